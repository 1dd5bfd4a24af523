"""MemoryPool: the bytes a listener may hold in requests being read, across its connections.

Owns: the available byte count and the callbacks of connections waiting for memory.  A
connection reserves a request's size as soon as its 4-byte length has arrived and before its
buffer exists, and gives it back once the request was handled; a connection that cannot
reserve stops reading until memory is given back.  Does not own buffers or sockets.

Kafka concept: ``SimpleMemoryPool`` in non-strict mode, as Kafka's ``SocketServer`` builds it
from ``queued.max.request.bytes``: an allocation succeeds while any memory is left (so a
request larger than what is left still goes through once, and the pool may go below zero),
and fails once none is.  ``queued.max.request.bytes`` of -1 (Kafka's default) means no pool.
"""

from __future__ import annotations

from collections.abc import Callable


class MemoryPool:
    """A byte budget shared by the connections of one listener.

    Args:
        capacity_bytes: ``queued.max.request.bytes`` (bytes, > 0).

    Raises:
        ValueError: ``capacity_bytes`` < 1.
    """

    def __init__(self, capacity_bytes: int) -> None:
        if capacity_bytes < 1:
            raise ValueError(f"a memory pool needs at least 1 byte, got {capacity_bytes}")
        self.capacity_bytes = capacity_bytes
        self.available_bytes = capacity_bytes
        self._waiters: list[Callable[[], None]] = []
        self.refusals = 0  # allocations refused (a connection stopped reading)

    def try_allocate(self, size: int) -> bool:
        """Reserve ``size`` bytes; False (nothing reserved) when no memory is left."""
        if self.available_bytes < 1:
            self.refusals += 1
            return False
        self.available_bytes -= size
        return True

    def release(self, size: int) -> None:
        """Give back ``size`` reserved bytes; waiting connections are called once memory is left."""
        self.available_bytes += size
        if self.available_bytes > 0 and self._waiters:
            waiters, self._waiters = self._waiters, []
            for waiter in waiters:
                waiter()

    def wait(self, callback: Callable[[], None]) -> None:
        """Call ``callback()`` (once) when memory is given back; it then tries again."""
        self._waiters.append(callback)

    def forget(self, callback: Callable[[], None]) -> None:
        """Stop waiting (the connection closed)."""
        if callback in self._waiters:
            self._waiters.remove(callback)

    @property
    def is_out_of_memory(self) -> bool:
        """True when no memory is left (Kafka's ``isOutOfMemory``)."""
        return self.available_bytes < 1
