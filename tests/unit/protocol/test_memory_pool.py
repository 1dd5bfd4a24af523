"""queued.max.request.bytes: the MemoryPool (Kafka's non-strict SimpleMemoryPool) and
FrameStream reserving each frame from it, pausing while it is empty, giving back on release
and on connection loss; streams sharing the thread's receive buffer (fed as a transport
would, no socket)."""

from __future__ import annotations

import asyncio
import random

import pytest

from kafkette.common.network.frame_stream import SCRATCH_BYTES, FrameStream
from kafkette.common.network.memory_pool import MemoryPool
from kafkette.protocol.framing import frame
from tests.unit.protocol.frame_stream_fakes import RecordingTransport, feed

MAX_FRAME = 1 << 20


def connected(pool: MemoryPool | None) -> tuple[FrameStream, RecordingTransport]:
    stream = FrameStream(MAX_FRAME, memory_pool=pool)
    transport = RecordingTransport()
    stream.connection_made(transport)
    return stream, transport


def feed_while_reading(stream: FrameStream, transport: RecordingTransport, data: bytes) -> bytes:
    """Feed as a transport does, stopping once reading is paused; returns what was not fed."""
    while data and transport.reading:
        buffer = stream.get_buffer(-1)
        n = min(len(buffer), len(data))
        buffer[:n] = data[:n]
        stream.buffer_updated(n)
        data = data[n:]
    return data


def test_the_pool_is_non_strict_as_kafkas_socket_server_uses_it():
    pool = MemoryPool(100)
    assert pool.try_allocate(150)  # some memory left: a larger request still goes through
    assert pool.available_bytes == -50 and pool.is_out_of_memory
    assert not pool.try_allocate(1) and pool.refusals == 1
    called = []
    pool.wait(lambda: called.append(1))
    pool.release(50)
    assert called == []  # still none left
    pool.release(100)
    assert called == [1] and pool.available_bytes == 100
    with pytest.raises(ValueError):
        MemoryPool(0)


async def test_each_frame_is_reserved_until_released_and_reading_pauses_while_the_pool_is_empty():
    pool = MemoryPool(1000)
    first, first_transport = connected(pool)
    second, second_transport = connected(pool)
    assert feed_while_reading(first, first_transport, frame(b"a" * 1000)) == b""
    assert pool.available_bytes == 0
    body = b"b" * 300
    left = feed_while_reading(second, second_transport, frame(body) + frame(b"c"))
    assert not second_transport.reading and left == b""  # its bytes wait, unparsed
    received = await first.read_frame()
    first.release(len(received))
    assert second_transport.reading
    assert await asyncio.wait_for(second.read_frame(), 1) == body
    assert await asyncio.wait_for(second.read_frame(), 1) == b"c"
    assert pool.available_bytes == 1000 - 301


async def test_a_large_frame_is_reserved_before_its_buffer_exists():
    pool = MemoryPool(1)
    stream, transport = connected(pool)
    body = random.Random(3).randbytes(3 * SCRATCH_BYTES)
    data = frame(body)
    assert feed_while_reading(stream, transport, data[:100]) == b""
    assert pool.available_bytes == 1 - len(body)  # reserved when the length arrived
    assert feed_while_reading(stream, transport, data[100:]) == b""
    assert await stream.read_frame() == body
    stream.release(len(body))
    assert pool.available_bytes == 1


async def test_a_lost_connection_gives_back_what_nobody_will_read():
    pool = MemoryPool(10_000)
    stream, transport = connected(pool)
    large = frame(bytes(2 * SCRATCH_BYTES))
    feed_while_reading(stream, transport, frame(b"x" * 100) + frame(b"y" * 50) + large[:10])
    assert pool.available_bytes == 10_000 - 150 - 2 * SCRATCH_BYTES
    stream.connection_lost(None)
    assert pool.available_bytes == 10_000


async def test_a_partial_small_frame_keeps_its_reservation_across_reads():
    pool = MemoryPool(10_000)
    stream, transport = connected(pool)
    data = frame(b"z" * 500)
    feed_while_reading(stream, transport, data[:200])
    assert pool.available_bytes == 9_500
    feed_while_reading(stream, transport, data[200:])
    assert await stream.read_frame() == b"z" * 500 and pool.available_bytes == 9_500


async def test_streams_of_one_thread_share_the_receive_buffer_without_mixing_their_bytes():
    rng = random.Random(7)
    streams = [FrameStream(MAX_FRAME) for _ in range(3)]
    for stream in streams:
        stream.connection_made(RecordingTransport())
    bodies = [
        [rng.randbytes(rng.choice([0, 5, 900, SCRATCH_BYTES - 4, 70_000])) for _ in range(20)]
        for _ in streams
    ]
    pending = [b"".join(frame(b) for b in stream_bodies) for stream_bodies in bodies]
    while any(pending):  # interleave reads of random sizes across the streams
        i = rng.randrange(len(streams))
        if pending[i]:
            n = rng.randint(1, 40_000)
            feed(streams[i], pending[i][:n])
            pending[i] = pending[i][n:]
    for stream, stream_bodies in zip(streams, bodies, strict=True):
        assert [bytes(await stream.read_frame()) for _ in stream_bodies] == stream_bodies
