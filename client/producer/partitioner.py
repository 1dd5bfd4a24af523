"""Partition choice for produced records: murmur2 of the key, or a sticky partition.

Owns: ``murmur2`` (bit-for-bit the 32-bit MurmurHash2 variant of Kafka's Java
client, seed 0x9747b28c), ``to_positive`` and ``DefaultPartitioner``.  Keyed records
go to ``to_positive(murmur2(key)) % num_partitions``, so keys land on the same
partitions as with any Java or librdkafka producer using the default partitioner.
Keyless records stick to one partition until a new batch has to be opened for it
(the batch was sent or filled), then move to another available partition.

Kafka concept: ``Utils.murmur2``, ``BuiltInPartitioner``/``DefaultPartitioner`` with
the sticky partitioning of KIP-480.  Does not own batching (RecordAccumulator).
"""

from __future__ import annotations

import random
import struct
from collections.abc import Sequence

_SEED = 0x9747B28C
_M = 0x5BD1E995
_MASK = 0xFFFFFFFF


def murmur2(data: bytes) -> int:
    """32-bit MurmurHash2 as Kafka's ``Utils.murmur2`` computes it.

    Args:
        data: the serialized key bytes.

    Returns:
        The hash as a signed 32-bit integer (the Java ``int`` value).
    """
    length = len(data)
    h = (_SEED ^ length) & _MASK
    words = length >> 2
    if words:
        for k in struct.unpack_from(f"<{words}I", data):
            k = (k * _M) & _MASK
            k ^= k >> 24
            k = (k * _M) & _MASK
            h = ((h * _M) & _MASK) ^ k
    tail = length & 3
    base = length - tail
    if tail == 3:
        h ^= data[base + 2] << 16
    if tail >= 2:
        h ^= data[base + 1] << 8
    if tail >= 1:
        h ^= data[base]
        h = (h * _M) & _MASK
    h ^= h >> 13
    h = (h * _M) & _MASK
    h ^= h >> 15
    return h - (1 << 32) if h & 0x80000000 else h


def to_positive(number: int) -> int:
    """Kafka's ``Utils.toPositive``: clear the sign bit of a 32-bit int (not abs())."""
    return number & 0x7FFFFFFF


def partition_for_key(key: bytes, num_partitions: int) -> int:
    """The default partitioner's choice for a keyed record.

    Raises:
        ValueError: ``num_partitions`` < 1.
    """
    if num_partitions < 1:
        raise ValueError("num_partitions must be >= 1")
    return to_positive(murmur2(key)) % num_partitions


class DefaultPartitioner:
    """Chooses a partition per record: explicit key hash, else a sticky partition.

    State: ``{topic: sticky partition}``; a topic's sticky partition changes only in
    ``on_new_batch`` (called when a keyless append would open a new batch).

    Args:
        rng: randomness source (injected for deterministic tests).
    """

    def __init__(self, rng: random.Random | None = None) -> None:
        self._rng = rng or random.Random()
        self._sticky: dict[str, int] = {}

    def partition(
        self,
        topic: str,
        key: bytes | None,
        all_partitions: Sequence[int],
        available_partitions: Sequence[int],
    ) -> int:
        """Return the partition for a record of ``topic``.

        Args:
            key: serialized key or None.
            all_partitions: sorted ids of every partition of the topic.
            available_partitions: sorted ids of partitions with a live leader.
        """
        if key is not None:
            return all_partitions[to_positive(murmur2(key)) % len(all_partitions)]
        return self.sticky_partition(topic, all_partitions, available_partitions)

    def sticky_partition(
        self, topic: str, all_partitions: Sequence[int], available_partitions: Sequence[int]
    ) -> int:
        """The topic's current sticky partition (chosen at random on first use)."""
        current = self._sticky.get(topic)
        # Partition ids are 0..n-1: an index check, not a scan of the list (once per record).
        if current is not None and current < len(all_partitions) and all_partitions[current] == current:
            return current
        return self._choose(topic, all_partitions, available_partitions, None)

    def on_new_batch(
        self, topic: str, all_partitions: Sequence[int], available_partitions: Sequence[int], previous: int
    ) -> int:
        """Move the sticky partition away from ``previous`` (a batch there was closed).

        Returns:
            The new sticky partition (``previous`` only when it is the sole choice).
        """
        if self._sticky.get(topic) != previous:
            return self.sticky_partition(topic, all_partitions, available_partitions)
        return self._choose(topic, all_partitions, available_partitions, previous)

    def _choose(
        self,
        topic: str,
        all_partitions: Sequence[int],
        available_partitions: Sequence[int],
        previous: int | None,
    ) -> int:
        pool = available_partitions or all_partitions
        if len(pool) > 1 and previous is not None:
            choice = previous
            while choice == previous:
                choice = pool[self._rng.randrange(len(pool))]
        else:
            choice = pool[self._rng.randrange(len(pool))]
        self._sticky[topic] = choice
        return choice
