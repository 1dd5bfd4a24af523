"""Java's ``String.hashCode`` and the iteration order of a small Java ``HashSet``/``HashMap`` of
strings: the order Kafka's answers list what it keeps in hash collections.

Owns: ``java_string_hash`` (over UTF-16 code units, a signed 32-bit int) and
``java_hash_set_order`` (bucket by the spread hash in a table of the default 16 buckets, then
insertion order).  Used where a Kafka client prints what a Kafka broker sent in that order
(supported assignors, client quota values), and for ``__consumer_offsets`` placement.

Kafka concept: ``java.lang.String.hashCode``, ``java.util.HashMap.hash`` (JDK 8+).
"""

from __future__ import annotations

from collections.abc import Iterable

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


def java_hash_set_order(names: Iterable[str]) -> list[str]:
    """``names`` in the order a Java ``HashSet`` (or ``HashMap`` keys) of them iterates: by bucket
    of the spread ``String.hashCode``, then insertion order.

    Exact for up to 12 distinct names (the default capacity, before any resize); more keep their
    given order after the first 12.
    """
    unique = list(dict.fromkeys(names))
    head, tail = unique[:_JAVA_HASH_SET_MAX_BEFORE_RESIZE], unique[_JAVA_HASH_SET_MAX_BEFORE_RESIZE:]

    def bucket(name: str) -> int:
        h = java_string_hash(name) & 0xFFFFFFFF
        return (h ^ (h >> 16)) & (_JAVA_HASH_SET_BUCKETS - 1)

    return sorted(head, key=bucket) + tail
