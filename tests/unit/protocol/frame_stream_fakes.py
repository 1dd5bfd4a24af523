"""A transport stand-in for FrameStream tests, and a helper feeding it bytes as a transport would."""

from __future__ import annotations

import asyncio

from kafkette.common.network.frame_stream import FrameStream


class RecordingTransport(asyncio.Transport):
    """Records each writelines call and pause/resume of reading (no socket)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[bytes] = []
        self.reading = True
        self.closed = False

    def get_extra_info(self, name, default=None):
        return ("127.0.0.1", 1) if name == "peername" else default

    def is_closing(self) -> bool:
        return self.closed

    def writelines(self, buffers) -> None:
        self.calls.append(b"".join(buffers))

    def pause_reading(self) -> None:
        self.reading = False

    def resume_reading(self) -> None:
        self.reading = True

    def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.closed = True


def feed(stream: FrameStream, data: bytes, chunk: int | None = None) -> None:
    """Hand ``data`` to ``stream`` through get_buffer/buffer_updated, at most ``chunk`` bytes a time."""
    while data:
        buffer = stream.get_buffer(-1)
        n = min(len(buffer), len(data), chunk or len(data))
        buffer[:n] = data[:n]
        stream.buffer_updated(n)
        data = data[n:]
