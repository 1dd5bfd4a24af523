"""FrameStream: frames reassembled from any split of the byte stream, large frames received in
place, bad lengths, EOF, and read and write back-pressure (fed as a transport would, no socket)."""

from __future__ import annotations

import asyncio
import random

import pytest

from kafkette.common.network.frame_stream import (
    QUEUED_HIGH_BYTES,
    QUEUED_HIGH_FRAMES,
    SCRATCH_BYTES,
    FrameStream,
)
from kafkette.protocol.framing import FrameError, frame
from tests.unit.protocol.frame_stream_fakes import RecordingTransport, feed

MAX_FRAME = 8 * 1024 * 1024


def connected(max_frame: int = MAX_FRAME) -> tuple[FrameStream, RecordingTransport]:
    stream = FrameStream(max_frame)
    transport = RecordingTransport()
    stream.connection_made(transport)
    return stream, transport


async def read_all(stream: FrameStream, count: int) -> list[bytes]:
    return [bytes(await asyncio.wait_for(stream.read_frame(), 1)) for _ in range(count)]


@pytest.mark.parametrize("chunk", [7, 4096, 65536, None])
async def test_small_and_large_frames_come_out_whole_and_in_order_whatever_the_split(chunk):
    rng = random.Random(chunk)
    sizes = [0, 1, 100, SCRATCH_BYTES - 4, SCRATCH_BYTES, 3 * SCRATCH_BYTES + 5, 17, 1 << 20, 2]
    bodies = [rng.randbytes(size) for size in sizes]
    stream, _ = connected()
    feed(stream, b"".join(frame(body) for body in bodies), chunk)
    assert await read_all(stream, len(bodies)) == bodies


async def test_small_frames_fed_one_byte_at_a_time():
    bodies = [b"", b"a", b"bc" * 300, b"d"]
    stream, _ = connected()
    feed(stream, b"".join(frame(body) for body in bodies), 1)
    assert await read_all(stream, len(bodies)) == bodies


async def test_a_large_frame_is_received_into_a_buffer_of_its_exact_size():
    stream, _ = connected()
    body = random.Random(1).randbytes(200_000)
    data = frame(body)
    feed(stream, data[:1000])
    buffer = stream.get_buffer(-1)
    assert len(buffer) == len(body) - (1000 - 4)  # the rest of the frame, not a scratch window
    feed(stream, data[1000:])
    received = await stream.read_frame()
    assert type(received) is bytearray and received == body


async def test_a_length_over_the_maximum_ends_the_stream_after_the_frames_before_it():
    stream, transport = connected(max_frame=1024)
    feed(stream, frame(b"first") + (2048).to_bytes(4, "big") + b"x" * 10)
    assert await stream.read_frame() == b"first"
    with pytest.raises(FrameError, match="socket.request.max.bytes"):
        await stream.read_frame()
    assert not transport.reading


async def test_a_negative_length_is_a_frame_error():
    stream, _ = connected()
    feed(stream, (-1).to_bytes(4, "big", signed=True))
    with pytest.raises(FrameError):
        await stream.read_frame()


async def test_eof_inside_a_frame_is_an_incomplete_read_after_the_whole_frames():
    stream, _ = connected()
    feed(stream, frame(b"whole") + frame(b"cut short")[:7])
    assert stream.eof_received() is True  # stay half-open: answers owed can still leave
    assert await stream.read_frame() == b"whole"
    with pytest.raises(asyncio.IncompleteReadError):
        await stream.read_frame()


async def test_a_waiting_reader_wakes_on_the_frame_and_on_connection_loss():
    stream, _ = connected()
    waiting = asyncio.ensure_future(stream.read_frame())
    await asyncio.sleep(0)
    feed(stream, frame(b"late"))
    assert await asyncio.wait_for(waiting, 1) == b"late"
    waiting = asyncio.ensure_future(stream.read_frame())
    await asyncio.sleep(0)
    stream.connection_lost(ConnectionResetError("reset by peer"))
    with pytest.raises(ConnectionResetError):
        await asyncio.wait_for(waiting, 1)


async def test_reading_pauses_while_unread_frames_pile_up_and_resumes_as_they_are_read():
    stream, transport = connected()
    body = bytes(1 << 20)
    count = QUEUED_HIGH_BYTES // len(body) + 1
    feed(stream, frame(body) * count)
    assert not transport.reading
    await read_all(stream, count - 1)
    assert transport.reading


async def test_drain_waits_for_resume_writing_and_fails_on_connection_loss():
    stream, transport = connected()
    stream.writelines([b"ab", b"cd"])
    assert transport.calls == [b"abcd"]
    await asyncio.wait_for(stream.drain(), 1)  # not paused: returns at once
    stream.pause_writing()
    draining = asyncio.ensure_future(stream.drain())
    await asyncio.sleep(0)
    assert not draining.done()
    stream.resume_writing()
    await asyncio.wait_for(draining, 1)
    stream.pause_writing()
    draining = asyncio.ensure_future(stream.drain())
    await asyncio.sleep(0)
    stream.connection_lost(None)
    with pytest.raises(ConnectionResetError):
        await asyncio.wait_for(draining, 1)
    stream.writelines([b"dropped"])  # lost: dropped, the next drain raises
    assert transport.calls == [b"abcd"]
    with pytest.raises(ConnectionResetError):
        await stream.drain()


async def test_reading_pauses_while_many_tiny_frames_pile_up():
    stream, transport = connected()
    feed(stream, frame(b"x") * (QUEUED_HIGH_FRAMES + 1))
    assert not transport.reading  # 129 bytes of bodies, but 129 objects
    await read_all(stream, QUEUED_HIGH_FRAMES + 1 - QUEUED_HIGH_FRAMES // 4)
    assert transport.reading
