"""Streaming offsets of the kafkette source: their JSON form, rate limiting and ranges.

Owns: the offset of a micro-batch (``{"topic": {"partition": next_offset}}``, the shape of
Spark's ``KafkaSourceOffset``), its deterministic JSON order (Spark compares offsets as
JSON strings), the split of ``maxOffsetsPerTrigger`` across partitions in proportion
to their backlog (Spark's ``KafkaMicroBatchStream.rateLimit``), and the per-partition
offset ranges one micro-batch or batch read is made of.  Pure code: no I/O, no Spark
session.  Does not own fetching offsets (``offset_reader``) nor reading records
(``partition_reader``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from pyspark.sql.datasource import InputPartition

from kafkette.protocol.topic_partition import TopicPartition

PartitionOffsets = dict[TopicPartition, int]


def offsets_to_json(offsets: Mapping[TopicPartition, int]) -> dict[str, dict[str, int]]:
    """The JSON-ready offset ``{"topic": {"0": 23, "1": 5}}`` of ``offsets``.

    Topics are sorted by name and partitions by number, so equal offsets always give
    equal JSON strings (Spark compares offsets as strings).

    Args:
        offsets: next offset to read per partition.

    Returns:
        Nested dict with string partition keys, as Spark's Kafka source writes them.
    """
    out: dict[str, dict[str, int]] = {}
    for tp in sorted(offsets):
        out.setdefault(tp.topic, {})[str(tp.partition)] = int(offsets[tp])
    return out


def offsets_from_json(value: Mapping[str, Mapping[str, int]] | None) -> PartitionOffsets:
    """Inverse of ``offsets_to_json`` (partition keys may be strings or ints).

    Raises:
        ValueError: not a ``{"topic": {"partition": offset}}`` mapping.
    """
    out: PartitionOffsets = {}
    if not value:
        return out
    if not isinstance(value, Mapping):
        raise ValueError(f"Expected a {{topic: {{partition: offset}}}} offset, got {value!r}")
    for topic, per_partition in value.items():
        if not isinstance(per_partition, Mapping):
            raise ValueError(f"Expected a {{topic: {{partition: offset}}}} offset, got {value!r}")
        for partition, offset in per_partition.items():
            out[TopicPartition(topic, int(partition))] = int(offset)
    return out


def rate_limit(
    start: Mapping[TopicPartition, int], latest: Mapping[TopicPartition, int], max_offsets: int
) -> PartitionOffsets:
    """Bound a micro-batch to about ``max_offsets`` records, shared by backlog.

    Each partition with a backlog (``latest - start > 0``) gets
    ``max_offsets * backlog / total_backlog`` offsets, rounded down, or up when below 1
    so that a small backlog still advances; never past ``latest``.  Partitions without
    a backlog or without a start keep ``latest``.

    Args:
        start: where the batch starts, per partition (offsets).
        latest: the newest offsets available, per partition.
        max_offsets: ``maxOffsetsPerTrigger`` (records, > 0).

    Returns:
        The batch's end offset per partition of ``latest``.

    Raises:
        ValueError: ``max_offsets`` is not positive.
    """
    if max_offsets <= 0:
        raise ValueError(f"max_offsets must be positive, got {max_offsets}")
    backlog = {tp: end - start[tp] for tp, end in latest.items() if tp in start and end - start[tp] > 0}
    total = sum(backlog.values())
    if total < 1:
        return dict(latest)
    out: PartitionOffsets = {}
    for tp, end in latest.items():
        size = backlog.get(tp)
        if size is None:
            out[tp] = end
            continue
        share = max_offsets * (size / total)
        advance = math.ceil(share) if share < 1 else math.floor(share)
        out[tp] = min(end, start[tp] + advance)
    return out


@dataclass(frozen=True)
class OffsetRange(InputPartition):
    """One Spark input partition: the records ``[from_offset, until_offset)`` of one
    topic-partition (Spark's ``KafkaOffsetRange``).  Picklable; carries everything an
    executor needs besides the source options."""

    topic: str
    partition: int
    from_offset: int
    until_offset: int

    @property
    def topic_partition(self) -> TopicPartition:
        return TopicPartition(self.topic, self.partition)

    @property
    def size(self) -> int:
        """Offsets in the range (records, unless compaction left gaps)."""
        return self.until_offset - self.from_offset


def offset_ranges(
    start: Mapping[TopicPartition, int], end: Mapping[TopicPartition, int]
) -> list[OffsetRange]:
    """The non-empty ranges from ``start`` to ``end`` for every partition of ``end`` that
    ``start`` knows, sorted by topic-partition.

    Args:
        start: first offset per partition.
        end: end offset (exclusive) per partition.

    Returns:
        One OffsetRange per partition whose end is past its start.
    """
    return [
        OffsetRange(tp.topic, tp.partition, start[tp], end[tp])
        for tp in sorted(end)
        if tp in start and end[tp] > start[tp]
    ]
