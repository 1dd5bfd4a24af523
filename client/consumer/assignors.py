"""Partition assignors: how a group's leader divides the subscribed partitions among members.

Owns: ``RangeAssignor`` (per topic, consecutive ranges, the first members getting one more
when the count does not divide), ``RoundRobinAssignor`` (all partitions in turn over the
members subscribed to them), ``StickyAssignor`` (balanced, and every member keeps as many of
the partitions it owns as balance allows) and ``CooperativeStickyAssignor`` (the same, but a
partition owned by another member is not handed over in the same rebalance: its owner gives it
up first, KIP-429), all deterministic over members sorted by id, and the lookup of an assignor
by its protocol name.  Does not own the group protocol.

Kafka concept: ``ConsumerPartitionAssignor`` with ``RangeAssignor`` ("range"),
``RoundRobinAssignor`` ("roundrobin"), ``StickyAssignor`` ("sticky") and
``CooperativeStickyAssignor`` ("cooperative-sticky"), ``partition.assignment.strategy``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from kafkette.protocol.topic_partition import TopicPartition

EAGER = "EAGER"
COOPERATIVE = "COOPERATIVE"


class PartitionAssignor(Protocol):
    """An assignor: its protocol name, its rebalance protocol and the assignment it computes."""

    name: str
    rebalance_protocol: str  # EAGER: members give up every partition before a rebalance; COOPERATIVE: none

    def assign(
        self,
        partitions_per_topic: Mapping[str, int],
        subscriptions: Mapping[str, Sequence[str]],
        owned: Mapping[str, Sequence[TopicPartition]] | None = None,
    ) -> dict[str, list[TopicPartition]]:
        """``{member_id: partitions}`` for every member.

        Args:
            partitions_per_topic: ``{topic: partition count}`` of the subscribed topics that
                exist.
            subscriptions: ``{member_id: subscribed topics}``.
            owned: ``{member_id: partitions it owns now}`` (sticky assignors keep them).
        """
        ...


class RangeAssignor:
    """Kafka's default classic assignor: per topic, member i of n gets a consecutive range."""

    name = "range"
    rebalance_protocol = EAGER

    def assign(
        self,
        partitions_per_topic: Mapping[str, int],
        subscriptions: Mapping[str, Sequence[str]],
        owned: Mapping[str, Sequence[TopicPartition]] | None = None,
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
    rebalance_protocol = EAGER

    def assign(
        self,
        partitions_per_topic: Mapping[str, int],
        subscriptions: Mapping[str, Sequence[str]],
        owned: Mapping[str, Sequence[TopicPartition]] | None = None,
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


class StickyAssignor:
    """Balanced (member counts differ by at most one when every member subscribes to the same
    topics), each member keeping as many of its owned partitions as its share allows."""

    name = "sticky"
    rebalance_protocol = EAGER

    def assign(
        self,
        partitions_per_topic: Mapping[str, int],
        subscriptions: Mapping[str, Sequence[str]],
        owned: Mapping[str, Sequence[TopicPartition]] | None = None,
    ) -> dict[str, list[TopicPartition]]:
        members = sorted(subscriptions)
        out: dict[str, list[TopicPartition]] = {m: [] for m in members}
        partitions = sorted(
            TopicPartition(t, p)
            for t, n in partitions_per_topic.items()
            for p in range(n)
            if any(t in subscriptions[m] for m in members)
        )
        if not members or not partitions:
            return out
        existing = set(partitions)
        valid = {
            m: [
                tp
                for tp in sorted((owned or {}).get(m, ()))
                if tp in existing and tp.topic in subscriptions[m]
            ]
            for m in members
        }
        base, extra = divmod(len(partitions), len(members))
        taken: set[TopicPartition] = set()
        for member in sorted(
            members, key=lambda m: (-len(valid[m]), m)
        ):  # who keeps most gets a larger share
            quota = base + (1 if extra > 0 and len(valid[member]) > base else 0)
            extra -= quota - base
            for tp in valid[member]:
                if len(out[member]) < quota and tp not in taken:
                    out[member].append(tp)
                    taken.add(tp)
        for tp in partitions:  # the rest to the least loaded member subscribed to its topic
            if tp not in taken:
                member = min(
                    (m for m in members if tp.topic in subscriptions[m]), key=lambda m: (len(out[m]), m)
                )
                out[member].append(tp)
                taken.add(tp)
        return {m: sorted(ps) for m, ps in out.items()}


class CooperativeStickyAssignor(StickyAssignor):
    """The sticky assignment, less every partition another member still owns: that owner gives
    it up and rejoins, and the next rebalance hands it over (KIP-429)."""

    name = "cooperative-sticky"
    rebalance_protocol = COOPERATIVE

    def assign(
        self,
        partitions_per_topic: Mapping[str, int],
        subscriptions: Mapping[str, Sequence[str]],
        owned: Mapping[str, Sequence[TopicPartition]] | None = None,
    ) -> dict[str, list[TopicPartition]]:
        target = super().assign(partitions_per_topic, subscriptions, owned)
        owner = {tp: m for m, tps in (owned or {}).items() for tp in tps if m in target}
        return {m: [tp for tp in tps if owner.get(tp, m) == m] for m, tps in target.items()}


ASSIGNORS: dict[str, type[PartitionAssignor]] = {
    cls.name: cls for cls in (RangeAssignor, RoundRobinAssignor, StickyAssignor, CooperativeStickyAssignor)
}


def assignor_for(name: str) -> PartitionAssignor:
    """The assignor of protocol ``name``.

    Raises:
        ValueError: an unknown name (the message lists the known ones).
    """
    cls = ASSIGNORS.get(name)
    if cls is None:
        raise ValueError(
            f"Unknown partition.assignment.strategy {name!r}; known: {', '.join(sorted(ASSIGNORS))}"
        )
    return cls()  # type: ignore[call-arg]
