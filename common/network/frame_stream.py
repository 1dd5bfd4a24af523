"""Size-delimited frames over an asyncio transport, received straight into their own buffers.

Owns: ``FrameStream`` (an ``asyncio.BufferedProtocol``: the transport receives into
memory the protocol hands out, so a large frame (a Produce request, a Fetch response)
lands in one buffer of its exact size with no further copy; small frames are cut out
of a 64 KiB scratch buffer), the queue of received frames with read back-pressure,
the write side (``writelines`` and ``drain`` with the transport's write flow control),
and ``open_frame_stream`` / ``start_frame_server`` that make one.  Does not own what a
frame holds (``kafkette.protocol.framing`` encodes and decodes bodies) nor any request logic.

asyncio's ``StreamReader`` copies every byte four times on the way to a frame (the
transport's bytes object, the reader's buffer, ``readexactly``'s slice, and the
buffer's shift); here the kernel's receive copy is the only one for large frames.

Kafka concept: ``NetworkReceive`` (a 4-byte size, then a buffer of exactly that size)
and ``KafkaChannel``'s send side.
"""

from __future__ import annotations

import asyncio
import collections
import ssl
import threading
from collections.abc import Callable, Iterable
from typing import Any

from kafkette.common.network.memory_pool import MemoryPool
from kafkette.common.network.ssl_transport_layer import SslTransportLayer
from kafkette.protocol.framing import LENGTH, FrameError, check_frame_length

SCRATCH_BYTES = 64 * 1024
"""Receive buffer for small frames (one per thread);
a frame that does not fit in it gets a buffer of its own."""


QUEUED_HIGH_BYTES = 4 * 1024 * 1024
"""Reading pauses while received frames nobody has read yet hold more than this (bytes)..."""

QUEUED_HIGH_FRAMES = 128
"""... or are more than this many (tiny frames cost more in objects than in bytes); it resumes
once they are down to a quarter of both."""


class _Scratch(threading.local):
    """The thread's receive buffer and how many bytes at its front the current read kept."""

    def __init__(self) -> None:
        self.buffer = bytearray(SCRATCH_BYTES)
        self.view = memoryview(self.buffer)
        self.used = 0


_SCRATCH = _Scratch()


def _thread_scratch() -> _Scratch:
    return _SCRATCH


class FrameStream(asyncio.BufferedProtocol):
    """One connection carrying frames of ``[4-byte big-endian length][length bytes]``.

    Args:
        max_frame_bytes: largest frame body accepted (``socket.request.max.bytes`` on a
            broker); a longer length ends the stream with ``FrameError``.
        on_connect: called with the stream once connected (servers use it to start the
            connection's handler); None for client streams.
        memory_pool: the listener's ``queued.max.request.bytes`` pool, or None.  Each frame's
            size is reserved from it once its length has arrived (reading stops while the pool
            has nothing left) and given back by ``release(len(frame))`` after the frame was
            handled; frames never handed out are given back when the connection is lost.

    Memory: an idle connection holds no receive buffer.  Bytes arrive in a scratch buffer
    shared by every stream of the thread (the event loop reads one connection at a time:
    ``get_buffer`` and ``buffer_updated`` come in pairs); a partial small frame left at the
    end of a read is copied out (``_tail``), a large frame gets its own buffer.

    Reading: ``await read_frame()`` returns each frame body in order.  Writing:
    ``writelines(buffers)`` then ``await drain()``.  ``close()`` / ``abort()`` end it.
    """

    def __init__(
        self,
        max_frame_bytes: int,
        on_connect: Callable[[FrameStream], None] | None = None,
        memory_pool: MemoryPool | None = None,
    ) -> None:
        self._max_frame_bytes = max_frame_bytes
        self._on_connect = on_connect
        self._pool = memory_pool
        self._loop = asyncio.get_running_loop()
        self.transport: asyncio.Transport | None = None
        self._tail = b""  # received bytes not yet parsed (a partial small frame or length)
        self._tail_reserved = False  # the tail's frame size is already reserved from the pool
        self._frame: bytearray | None = None  # a large frame being received in place
        self._filled = 0  # bytes of self._frame received so far
        self._frames: collections.deque[bytes | bytearray] = collections.deque()
        self._queued_bytes = 0
        self._end_exc: BaseException | None = None  # what read_frame raises once the frames run out
        self._read_waiter: asyncio.Future[None] | None = None
        self._paused_for: set[str] = set()  # "queued" (frames nobody read) and/or "memory" (the pool)
        self._writing_paused = False
        self._drain_waiters: collections.deque[asyncio.Future[None]] = collections.deque()
        self._lost_error: BaseException | None = None  # set once the connection is lost: what drain raises

    # -- asyncio.BufferedProtocol ------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        if self._on_connect is not None:
            self._on_connect(self)

    def get_buffer(self, sizehint: int) -> memoryview:
        if self._frame is not None:
            return memoryview(self._frame)[self._filled :]
        scratch = _thread_scratch()
        used = len(self._tail)
        if used:
            scratch.buffer[:used] = self._tail
        scratch.used = used
        return scratch.view[used:]

    def buffer_updated(self, nbytes: int) -> None:
        if self._frame is not None:
            self._filled += nbytes
            if self._filled == len(self._frame):
                frame, self._frame = self._frame, None
                self._deliver(frame)
            return
        scratch = _thread_scratch()
        self._parse(scratch.view[: scratch.used + nbytes])

    def eof_received(self) -> bool:
        self._finish(asyncio.IncompleteReadError(b"", None))
        # half-closed: answers already owed can still be written, then close(); TLS cannot half-close
        transport = getattr(self, "transport", None)
        return transport is None or transport.get_extra_info("sslcontext") is None

    def connection_lost(self, exc: Exception | None) -> None:
        self._lost_error = exc if exc is not None else ConnectionResetError("connection lost")
        self._finish(exc if exc is not None else asyncio.IncompleteReadError(b"", None))
        self._give_back_unread()
        while self._drain_waiters:
            waiter = self._drain_waiters.popleft()
            if not waiter.done():
                waiter.set_exception(self._lost_error)
                waiter.exception()  # a writer that stopped waiting must not log it as lost

    def pause_writing(self) -> None:
        self._writing_paused = True

    def resume_writing(self) -> None:
        self._writing_paused = False
        while self._drain_waiters:
            waiter = self._drain_waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)

    # -- receiving --------------------------------------------------------------------------
    def _parse(self, data: memoryview) -> None:
        """Cut every whole frame out of ``data``; start an own buffer for a large one; keep the rest."""
        start, end = 0, len(data)
        while end - start >= LENGTH.size:
            (length,) = LENGTH.unpack_from(data, start)
            try:
                check_frame_length(length, self._max_frame_bytes)
            except FrameError as exc:
                start = end
                self._finish(exc)
                self._pause("error")
                break
            if not self._tail_reserved and self._pool is not None:
                if not self._pool.try_allocate(length):
                    self._pause("memory")
                    self._pool.wait(self._on_memory)
                    break
            self._tail_reserved = False
            body_start = start + LENGTH.size
            if end - body_start >= length:
                self._deliver(bytes(data[body_start : body_start + length]))
                start = body_start + length
                continue
            if LENGTH.size + length > SCRATCH_BYTES:  # will not fit: receive the rest into its own buffer
                frame = bytearray(length)
                received = end - body_start
                frame[:received] = data[body_start:end]
                self._frame, self._filled = frame, received
                start = end
            else:
                self._tail_reserved = True  # a partial small frame: its size stays reserved
            break
        self._tail = bytes(data[start:end]) if start < end else b""

    def _on_memory(self) -> None:
        """The pool has memory again: parse what waits, then read on."""
        if self._end_exc is not None or self.transport is None or self.transport.is_closing():
            return
        self._paused_for.discard("memory")
        if self._tail:
            self._parse(memoryview(self._tail))
        if not self._paused_for:
            self.transport.resume_reading()

    def _pause(self, reason: str) -> None:
        if not self._paused_for and self.transport is not None and not self.transport.is_closing():
            self.transport.pause_reading()
        self._paused_for.add(reason)

    def _give_back_unread(self) -> None:
        """Return to the pool what was reserved for frames nobody will read (connection lost)."""
        if self._pool is None:
            return
        self._pool.forget(self._on_memory)
        reserved = sum(len(f) for f in self._frames)
        if self._frame is not None:
            reserved += len(self._frame)
        if self._tail_reserved and len(self._tail) >= LENGTH.size:
            reserved += LENGTH.unpack_from(self._tail, 0)[0]
        self._frames.clear()
        self._queued_bytes = 0
        self._frame, self._tail, self._tail_reserved = None, b"", False
        if reserved:
            self._pool.release(reserved)

    def release(self, size: int) -> None:
        """Give back the pool memory of a frame handed out by ``read_frame`` (``len(frame)`` bytes),
        once it was handled; nothing without a pool."""
        if self._pool is not None and size:
            self._pool.release(size)

    def _deliver(self, frame: bytes | bytearray) -> None:
        self._frames.append(frame)
        self._queued_bytes += len(frame)
        if (
            self._queued_bytes > QUEUED_HIGH_BYTES or len(self._frames) > QUEUED_HIGH_FRAMES
        ) and "queued" not in self._paused_for:
            self._pause("queued")
        self._wake_reader()

    def _finish(self, exc: BaseException) -> None:
        if self._end_exc is None:
            self._end_exc = exc
        self._wake_reader()

    def _wake_reader(self) -> None:
        waiter = self._read_waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def read_frame(self) -> bytes | bytearray:
        """The next frame body (without its length prefix), waiting for it.

        Returns:
            bytes for frames of up to 64 KiB, a bytearray of the exact size for larger ones.

        Raises:
            asyncio.IncompleteReadError: the peer closed the connection (at or inside a frame).
            FrameError: a length outside ``0..max_frame_bytes``; the stream stops reading.
            ConnectionError / OSError: the connection failed.
        """
        while not self._frames:
            if self._end_exc is not None:
                raise self._end_exc
            self._read_waiter = self._loop.create_future()
            try:
                await self._read_waiter
            finally:
                self._read_waiter = None
        frame = self._frames.popleft()
        self._queued_bytes -= len(frame)
        if (
            "queued" in self._paused_for
            and self._queued_bytes <= QUEUED_HIGH_BYTES // 4
            and len(self._frames) <= QUEUED_HIGH_FRAMES // 4
            and self._end_exc is None
        ):
            self._paused_for.discard("queued")
            if not self._paused_for and self.transport is not None and not self.transport.is_closing():
                self.transport.resume_reading()
        return frame

    # -- sending ----------------------------------------------------------------------------
    def writelines(self, buffers: Iterable[bytes | bytearray | memoryview]) -> None:
        """Queue ``buffers`` on the transport (sent without being joined).

        On a lost connection the buffers are dropped; the ``drain`` that follows raises.
        """
        if self.transport is not None and self._lost_error is None:
            self.transport.writelines(buffers)

    async def drain(self) -> None:
        """Wait until the transport's write buffer is below its high-water mark.

        Raises:
            ConnectionResetError / OSError: the connection was lost (meanwhile).
        """
        if self._lost_error is not None:
            raise self._lost_error
        if not self._writing_paused:
            return
        waiter = self._loop.create_future()
        self._drain_waiters.append(waiter)
        await waiter

    def is_closing(self) -> bool:
        return self.transport is None or self.transport.is_closing()

    def close(self) -> None:
        """Close after the queued writes are sent."""
        if self.transport is not None:
            self.transport.close()

    def abort(self) -> None:
        """Close at once, dropping queued writes."""
        if self.transport is not None:
            self.transport.abort()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self.transport.get_extra_info(name, default) if self.transport is not None else default


SSL_HANDSHAKE_TIMEOUT_S = 10.0  # a TLS handshake not finished by then is cut off (either side)


async def open_frame_stream(
    host: str, port: int, max_frame_bytes: int, ssl_context: ssl.SSLContext | None = None
) -> FrameStream:
    """Connect to ``host:port`` (TCP_NODELAY set by the caller if wanted); over TLS with
    ``ssl_context``, the server's certificate checked for ``host`` when the context checks names.

    Raises:
        OSError: refused or unreachable; ``ssl.SSLError`` (an OSError) when the TLS handshake fails.
        TimeoutError: the TLS handshake took longer than ``SSL_HANDSHAKE_TIMEOUT_S``.
    """
    loop = asyncio.get_running_loop()
    tls: dict[str, Any] = {}
    if ssl_context is not None:
        tls = {"ssl": ssl_context, "server_hostname": host, "ssl_handshake_timeout": SSL_HANDSHAKE_TIMEOUT_S}
    _, stream = await loop.create_connection(lambda: FrameStream(max_frame_bytes), host, port, **tls)
    return stream


async def start_frame_server(
    on_connect: Callable[[FrameStream], None],
    host: str,
    port: int,
    max_frame_bytes: int,
    backlog: int = 1024,
    memory_pool: MemoryPool | None = None,
    ssl_context: ssl.SSLContext | None = None,
) -> asyncio.Server:
    """Listen on ``host:port``; ``on_connect(stream)`` runs as each connection is made; every
    connection reserves its frames from ``memory_pool`` when one is given.

    ``on_connect`` must not block: it starts (and owns) whatever serves the connection.  With
    ``ssl_context`` each connection is TLS: ``on_connect`` runs once its handshake is done (a
    failed handshake, or one not done in ``SSL_HANDSHAKE_TIMEOUT_S``, closes it unseen).

    Raises:
        OSError: the address is in use or cannot be bound.
    """
    loop = asyncio.get_running_loop()

    def factory() -> asyncio.BaseProtocol:
        stream = FrameStream(max_frame_bytes, on_connect, memory_pool)
        if ssl_context is None:
            return stream
        # own TLS layer: a failed handshake's alert reaches the client (see ssl_transport_layer)
        return SslTransportLayer(ssl_context, stream, SSL_HANDSHAKE_TIMEOUT_S)

    return await loop.create_server(factory, host, port, reuse_address=True, backlog=backlog)
