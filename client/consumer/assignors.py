"""Partition assignors: how a group's leader divides the subscribed partitions among members.

Owns: ``RangeAssignor`` (per topic, consecutive ranges, the first members getting one more
when the count does not divide) and ``RoundRobinAssignor`` (all partitions in turn over the
members subscribed to them), both deterministic over members sorted by id, and the lookup of
an assignor by its protocol name.  Does not own the group protocol.

Kafka concept: ``ConsumerPartitionAssignor`` with ``RangeAssignor`` ("range") and
``RoundRobinAssignor`` ("roundrobin"), ``partition.assignment.strategy``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from kafkette.protocol.topic_partition import TopicPartition


class PartitionAssignor(Protocol):
    """An assignor: its protocol name and the assignment it computes."""

    name: str

    def assign(self, partitions_per_topic: Mapping[str, int], subscriptions: Mapping[str, Sequence[str]]
               ) -> dict[str, list[TopicPartition]]:
        """``{member_id: partitions}`` for every member.

        Args:
            partitions_per_topic: ``{topic: partition count}`` of the subscribed topics that
                exist.
            subscriptions: ``{member_id: subscribed topics}``.
        """
        ...


class RangeAssignor:
    """Kafka's default classic assignor: per topic, member i of n gets a consecutive range."""

    name = "range"

    def assign(self, partitions_per_topic: Mapping[str, int], subscriptions: Mapping[str, Sequence[str]]
               ) -> dict[str, list[TopicPartition]]:
        out: dict[str, list[TopicPartition]] = {m: [] for m in subscriptions}
        for topic, count in sorted(partitions_per_topic.items()):
            members = sorted(m for m, topics in subscriptions.items() if topic in topics)
            if not members:
                continue
            per_member, extra = divmod(count, len(members))
            start = 0
            for i, member in enumerate(members):
                length = per_member + (1 if i < extra else 0)
                out[member] += [TopicPartition(topic, p) for p in range(start, start + length)]
                start += length
        return out


class RoundRobinAssignor:
    """All partitions of all subscribed topics, dealt in turn to the members subscribed to them."""

    name = "roundrobin"

    def assign(self, partitions_per_topic: Mapping[str, int], subscriptions: Mapping[str, Sequence[str]]
               ) -> dict[str, list[TopicPartition]]:
        out: dict[str, list[TopicPartition]] = {m: [] for m in subscriptions}
        members = sorted(subscriptions)
        if not members:
            return out
        turn = 0
        for topic, count in sorted(partitions_per_topic.items()):
            for partition in range(count):
                for _ in range(len(members)):  # the next member subscribed to this topic
                    member = members[turn % len(members)]
                    turn += 1
                    if topic in subscriptions[member]:
                        out[member].append(TopicPartition(topic, partition))
                        break
        return out


ASSIGNORS: dict[str, type[RangeAssignor] | type[RoundRobinAssignor]] = {
    RangeAssignor.name: RangeAssignor, RoundRobinAssignor.name: RoundRobinAssignor,
}


def assignor_for(name: str) -> PartitionAssignor:
    """The assignor of protocol ``name``.

    Raises:
        ValueError: an unknown name (the message lists the known ones).
    """
    cls = ASSIGNORS.get(name)
    if cls is None:
        raise ValueError(f"Unknown partition.assignment.strategy {name!r}; known: {', '.join(sorted(ASSIGNORS))}")
    return cls()
