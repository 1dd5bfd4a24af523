"""Sending one fuzzed frame to a live listener and classifying what the broker did with it,
shared by the msgpack and the Kafka listener fuzz tests."""

from __future__ import annotations

import asyncio
import struct
from collections.abc import Callable

WAIT_S = 0.5  # an incomplete frame is left waiting: the broker reads on until its idle timeout


async def send_frame(port: int, data: bytes, check_answer: Callable[[bytes], None]) -> str:
    """Send ``data`` on a fresh connection to 127.0.0.1:``port``.

    Args:
        check_answer: called with an answer's body (after its length); raises when the answer
            is malformed.

    Returns:
        "answered", "closed" or "waiting" (the broker waits for the rest of an incomplete frame).
    """
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(data)
        await writer.drain()
        try:
            (length,) = struct.unpack(">i", await asyncio.wait_for(reader.readexactly(4), WAIT_S))
            body = await asyncio.wait_for(reader.readexactly(length), WAIT_S)
        except asyncio.IncompleteReadError:
            return "closed"
        except TimeoutError:
            return "waiting"
        check_answer(body)
        return "answered"
    except (ConnectionResetError, BrokenPipeError):
        return "closed"
    finally:
        writer.close()
