"""The log cleaner's key -> latest offset map, bounded by ``log.cleaner.dedupe.buffer.size``.

Owns the map built from the dirty section of a compacted log and its capacity rule.
Does not read logs (``kafkette.broker.log.log_cleaner`` feeds it) or decide what to keep.

Kafka concept: ``OffsetMap`` / ``SkippableOffsetMap`` (Kafka stores a 16-byte MD5 of the
key and an 8-byte offset per slot, loaded to ``log.cleaner.io.buffer.load.factor`` 0.9;
the capacity here is computed the same way, but keys are kept whole in a dict).
"""

from __future__ import annotations

BYTES_PER_ENTRY = 24  # Kafka: 16-byte MD5 hash + 8-byte offset
LOAD_FACTOR = 0.9  # Kafka's log.cleaner.io.buffer.load.factor default


def capacity_for_buffer(dedupe_buffer_size_bytes: int) -> int:
    """Entries that fit a dedupe buffer of ``dedupe_buffer_size_bytes`` (Kafka's sizing).

    Raises:
        ValueError: the buffer holds no entry at all.
    """
    slots = int(dedupe_buffer_size_bytes // BYTES_PER_ENTRY * LOAD_FACTOR)
    if slots < 1:
        raise ValueError(f"log.cleaner.dedupe.buffer.size {dedupe_buffer_size_bytes} bytes holds no key")
    return slots


class OffsetMap:
    """Maps each record key to the largest offset seen for it, up to ``capacity`` keys.

    Invariants: ``latest_offset`` is the largest offset ever ``put`` (-1 when empty);
    ``size <= capacity``.  Putting a new key into a full map raises; updating a key
    already present never does.

    Args:
        capacity: maximum number of distinct keys.

    Raises:
        ValueError: ``capacity < 1``.
    """

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be >= 1, got {capacity}")
        self.capacity = capacity
        self._offsets: dict[bytes, int] = {}
        self.latest_offset = -1

    @property
    def size(self) -> int:
        """Distinct keys held."""
        return len(self._offsets)

    @property
    def is_full(self) -> bool:
        """True when no new key fits."""
        return len(self._offsets) >= self.capacity

    def can_put(self, key: bytes) -> bool:
        """True when ``put(key, ...)`` would succeed (key present, or room for a new one)."""
        return key in self._offsets or len(self._offsets) < self.capacity

    def put(self, key: bytes, offset: int) -> None:
        """Record ``offset`` as the latest offset of ``key`` (offsets arrive in log order).

        Raises:
            OverflowError: ``key`` is new and the map is full.
        """
        if key not in self._offsets and len(self._offsets) >= self.capacity:
            raise OverflowError(f"offset map is full ({self.capacity} keys)")
        self._offsets[key] = offset
        if offset > self.latest_offset:
            self.latest_offset = offset

    def get(self, key: bytes) -> int:
        """The latest offset recorded for ``key``, or -1 when absent."""
        return self._offsets.get(key, -1)

    def clear(self) -> None:
        """Forget every key."""
        self._offsets.clear()
        self.latest_offset = -1

    def __repr__(self) -> str:
        return f"OffsetMap(size={self.size}, capacity={self.capacity}, latest_offset={self.latest_offset})"
