"""Java's ``String.hashCode`` and the iteration order of a small Java ``HashSet``/``HashMap`` of
strings: the order Kafka's answers list what it keeps in hash collections.

Owns: ``java_string_hash`` (over UTF-16 code units, a signed 32-bit int),
``java_hash_set_order`` (bucket by the spread hash in a table of the default 16 buckets, then
insertion order) and ``java_hash_map_order`` (the same for a map built with an initial
capacity).  Used where a Kafka client prints what a Kafka broker sent in that order (supported
assignors, client quota values), and ``coordinator_partition_for`` (``Utils.abs(key.hashCode) %
partitions``) for ``__consumer_offsets`` and ``__transaction_state`` placement.

Kafka concept: ``java.lang.String.hashCode``, ``java.util.HashMap.hash`` (JDK 8+).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

T = TypeVar("T")

_JAVA_HASH_SET_BUCKETS = 16
_JAVA_HASH_SET_MAX_BEFORE_RESIZE = 12


def java_string_hash(value: str) -> int:
    """Java's ``String.hashCode``: ``s[0]*31^(n-1) + ... + s[n-1]`` over UTF-16 code units,
    as a signed 32-bit int."""
    data = value.encode("utf-16-be", "surrogatepass")
    h = 0
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] << 8 | data[i + 1])) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def coordinator_partition_for(key: str, partition_count: int) -> int:
    """The partition of a coordinator topic holding ``key`` (a group id, a transactional id): Kafka's
    ``Utils.abs(key.hashCode()) % partition_count``, ``Utils.abs`` mapping ``Integer.MIN_VALUE`` to 0.

    Raises:
        ValueError: ``partition_count`` below 1.
    """
    if partition_count < 1:
        raise ValueError(f"partition count must be at least 1, got {partition_count}")
    h = java_string_hash(key)
    return (0 if h == -(1 << 31) else abs(h)) % partition_count


def java_hash_set_order(names: Iterable[str]) -> list[str]:
    """``names`` in the order a Java ``HashSet`` (or ``HashMap`` keys) of them iterates: by bucket
    of the spread ``String.hashCode``, then insertion order.

    Exact for up to 12 distinct names (the default capacity, before any resize); more keep their
    given order after the first 12.
    """
    unique = list(dict.fromkeys(names))
    head, tail = unique[:_JAVA_HASH_SET_MAX_BEFORE_RESIZE], unique[_JAVA_HASH_SET_MAX_BEFORE_RESIZE:]

    def bucket(name: str) -> int:
        return _bucket(java_string_hash(name), _JAVA_HASH_SET_BUCKETS)

    return sorted(head, key=bucket) + tail


def java_hash_map_order(keys: Iterable[T], hash_code: Callable[[T], int], initial_capacity: int) -> list[T]:
    """``keys`` in the order a Java ``new HashMap<>(initial_capacity)`` iterates them after they are
    put in the given order: by bucket of the spread hash in the table the map has grown to
    (``tableSizeFor(initial_capacity)``, doubled each time the size passes 0.75 of it), then in
    insertion order (a resize keeps it).  Kafka's clients build their answers' maps this way
    (``new HashMap<>(data.entries().size())``).

    Args:
        keys: the keys, in insertion order (repeats are put once).
        hash_code: the key's Java ``hashCode`` (a 32-bit int, either sign).
        initial_capacity: the constructor's argument (>= 0).

    Exact while no bucket holds more than 8 keys (Java then makes it a tree).
    """
    unique = list(dict.fromkeys(keys))
    capacity = 1
    while capacity < initial_capacity:
        capacity *= 2
    for size in range(1, len(unique) + 1):
        if size > int(capacity * 0.75):
            capacity *= 2

    return sorted(unique, key=lambda key: _bucket(hash_code(key), capacity))


def _bucket(hash_code: int, capacity: int) -> int:
    """Java's ``HashMap`` bucket of a key: its spread hash (``h ^ (h >>> 16)``) modulo the
    table's capacity (a power of two)."""
    h = hash_code & 0xFFFFFFFF
    return (h ^ (h >> 16)) & (capacity - 1)
