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
from collections.abc import Callable, Iterable
from typing import Any

from kafkette.protocol.framing import LENGTH, FrameError, check_frame_length

SCRATCH_BYTES = 64 * 1024
"""Receive buffer for small frames; a frame that does not fit in it gets a buffer of its own."""

COMPACT_BELOW_BYTES = 4096  # free scratch space under which the unparsed tail moves to the front

QUEUED_HIGH_BYTES = 4 * 1024 * 1024
"""Reading pauses while received frames nobody has read yet hold more than this (bytes)."""


class FrameStream(asyncio.BufferedProtocol):
    """One connection carrying frames of ``[4-byte big-endian length][length bytes]``.

    Args:
        max_frame_bytes: largest frame body accepted (``socket.request.max.bytes`` on a
            broker); a longer length ends the stream with ``FrameError``.
        on_connect: called with the stream once connected (servers use it to start the
            connection's handler); None for client streams.

    Reading: ``await read_frame()`` returns each frame body in order.  Writing:
    ``writelines(buffers)`` then ``await drain()``.  ``close()`` / ``abort()`` end it.
    """

    def __init__(self, max_frame_bytes: int, on_connect: Callable[[FrameStream], None] | None = None) -> None:
        self._max_frame_bytes = max_frame_bytes
        self._on_connect = on_connect
        self._loop = asyncio.get_running_loop()
        self.transport: asyncio.Transport | None = None
        self._scratch = bytearray(SCRATCH_BYTES)
        self._scratch_view = memoryview(self._scratch)
        self._start = 0  # first unparsed byte of the scratch buffer
        self._end = 0  # end of the received bytes in the scratch buffer
        self._frame: bytearray | None = None  # a large frame being received in place
        self._filled = 0  # bytes of self._frame received so far
        self._frames: collections.deque[bytes | bytearray] = collections.deque()
        self._queued_bytes = 0
        self._end_exc: BaseException | None = None  # what read_frame raises once the frames run out
        self._read_waiter: asyncio.Future[None] | None = None
        self._reading_paused = False
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
            return memoryview(self._frame)[self._filled:]
        if self._start and SCRATCH_BYTES - self._end < COMPACT_BELOW_BYTES:
            # nearly full: move the unparsed tail (part of a small frame) to the front
            tail = self._end - self._start
            self._scratch[:tail] = self._scratch_view[self._start:self._end]
            self._start, self._end = 0, tail
        return self._scratch_view[self._end:]

    def buffer_updated(self, nbytes: int) -> None:
        if self._frame is not None:
            self._filled += nbytes
            if self._filled == len(self._frame):
                frame, self._frame = self._frame, None
                self._deliver(frame)
            return
        self._end += nbytes
        self._parse_scratch()

    def eof_received(self) -> bool:
        self._finish(asyncio.IncompleteReadError(b"", None))
        return True  # half-closed: answers already owed can still be written, then close()

    def connection_lost(self, exc: Exception | None) -> None:
        self._lost_error = exc if exc is not None else ConnectionResetError("connection lost")
        self._finish(exc if exc is not None else asyncio.IncompleteReadError(b"", None))
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
    def _parse_scratch(self) -> None:
        """Cut every whole frame out of the scratch buffer; start an own buffer for a large one."""
        scratch, view = self._scratch, self._scratch_view
        start, end = self._start, self._end
        while end - start >= LENGTH.size:
            (length,) = LENGTH.unpack_from(scratch, start)
            try:
                check_frame_length(length, self._max_frame_bytes)
            except FrameError as exc:
                self._start = self._end = 0
                self._finish(exc)
                if self.transport is not None:
                    self.transport.pause_reading()
                return
            body_start = start + LENGTH.size
            if end - body_start >= length:
                self._deliver(bytes(view[body_start:body_start + length]))
                start = body_start + length
                continue
            if LENGTH.size + length > SCRATCH_BYTES:  # will not fit: receive the rest into its own buffer
                frame = bytearray(length)
                received = end - body_start
                frame[:received] = view[body_start:end]
                self._frame, self._filled = frame, received
                start = end = 0
            break
        if start == end:
            start = end = 0
        self._start, self._end = start, end

    def _deliver(self, frame: bytes | bytearray) -> None:
        self._frames.append(frame)
        self._queued_bytes += len(frame)
        if self._queued_bytes > QUEUED_HIGH_BYTES and not self._reading_paused and self.transport is not None:
            self._reading_paused = True
            self.transport.pause_reading()
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
        if self._reading_paused and self._queued_bytes <= QUEUED_HIGH_BYTES // 4 and self._end_exc is None:
            self._reading_paused = False
            if self.transport is not None and not self.transport.is_closing():
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


async def open_frame_stream(host: str, port: int, max_frame_bytes: int) -> FrameStream:
    """Connect to ``host:port`` (TCP_NODELAY set by the caller if wanted).

    Raises:
        OSError: refused or unreachable.
    """
    loop = asyncio.get_running_loop()
    _, stream = await loop.create_connection(lambda: FrameStream(max_frame_bytes), host, port)
    return stream


async def start_frame_server(on_connect: Callable[[FrameStream], None], host: str, port: int,
                             max_frame_bytes: int, backlog: int = 1024) -> asyncio.Server:
    """Listen on ``host:port``; ``on_connect(stream)`` runs as each connection is made.

    ``on_connect`` must not block: it starts (and owns) whatever serves the connection.

    Raises:
        OSError: the address is in use or cannot be bound.
    """
    loop = asyncio.get_running_loop()
    return await loop.create_server(lambda: FrameStream(max_frame_bytes, on_connect), host, port,
                                    reuse_address=True, backlog=backlog)
