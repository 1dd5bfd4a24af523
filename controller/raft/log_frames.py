"""Length- and CRC32C-framed entries in a file, as the controller's logs store them.

Owns: ``frame`` (``length: uint32 BE, crc: uint32 BE = CRC32C(body), body``) and
``FrameScan`` (walks a file's bytes frame by frame and stops at the first torn or
corrupt one, remembering where the valid prefix ends and why it stopped).  Used by the
metadata log and the Raft core's file log.  Does not own what a body holds.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator

import crc32c

FRAME_HEADER = struct.Struct(">II")
MAX_BODY_BYTES = 16 * 1024 * 1024


def frame(body: bytes) -> bytes:
    """``body`` with its length and CRC32C in front."""
    return FRAME_HEADER.pack(len(body), crc32c.crc32c(body)) + body


class FrameScan:
    """Iterate ``(position, body)`` over the valid frames of ``data``.

    After the iteration (or a ``stop``), ``valid_end`` is the byte position where the
    valid prefix ends and ``reason`` says why the scan stopped early ("" at the end).
    """

    def __init__(self, data: bytes) -> None:
        self._data = data
        self.valid_end = 0
        self.reason = ""

    def __iter__(self) -> Iterator[tuple[int, bytes]]:
        data, position = self._data, 0
        while position < len(data):
            if len(data) - position < FRAME_HEADER.size:
                self.reason = f"torn frame header at position {position}"
                return
            length, crc = FRAME_HEADER.unpack_from(data, position)
            body_start = position + FRAME_HEADER.size
            if length > MAX_BODY_BYTES or body_start + length > len(data):
                self.reason = f"torn frame of {length} bytes at position {position}"
                return
            body = data[body_start : body_start + length]
            if crc32c.crc32c(body) != crc:
                self.reason = f"CRC mismatch at position {position}"
                return
            yield position, body
            if self.reason:  # the consumer stopped the scan at this frame
                return
            position = body_start + length
            self.valid_end = position

    def stop(self, reason: str) -> None:
        """End the scan at the frame just yielded (not part of the valid prefix)."""
        self.reason = reason
