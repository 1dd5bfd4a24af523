"""Fakes shared by the unit tests of ConsumerGroupCoordinator and of its regex subscriptions: the
cluster's topics, the groups' ``__consumer_offsets`` partition in memory, and a coordinator over them
with a manual clock."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kafkette.broker.group.consumer_group_coordinator import ConsumerGroupCoordinator
from kafkette.broker.group.consumer_group_records import ConsumerGroupRegularExpressionKey
from kafkette.broker.group.consumer_group_step import ConsumerGroupSettings
from kafkette.broker.group.coordinator_records import decode_key, decode_value
from kafkette.common.clock import MockTime
from kafkette.protocol.errors import Errors


class Topics:
    """The cluster's topics (``consumer_group_step.TopicMetadata``), no racks; ``create`` adds one.

    Args:
        topics: name -> (16-byte topic id, number of partitions).
    """

    def __init__(self, topics: Mapping[str, tuple[bytes, int]]) -> None:
        self.ids = {name: topic_id for name, (topic_id, _) in topics.items()}
        self.partitions = {topic_id: count for topic_id, count in topics.values()}

    def create(self, name: str, topic_id: bytes, partitions: int) -> None:
        """Add a topic of ``partitions`` partitions."""
        self.ids[name] = topic_id
        self.partitions[topic_id] = partitions

    def topic_names(self) -> list[str]:
        """Every topic's name, sorted."""
        return sorted(self.ids)

    def topic_id_of(self, name: str) -> bytes | None:
        """The topic's id, None when it does not exist."""
        return self.ids.get(name)

    def topic_name_of(self, topic_id: bytes) -> str | None:
        """The topic's name, None when no topic has this id."""
        return next((n for n, i in self.ids.items() if i == topic_id), None)

    def number_of_partitions(self, topic_id: bytes) -> int:
        """The topic's partition count, -1 when it does not exist."""
        return self.partitions.get(topic_id, -1)

    def racks_for_partition(self, topic_id: bytes, partition: int) -> frozenset[str]:
        """No racks."""
        return frozenset()


class Log:
    """The group's partition: every append kept and acknowledged, unless ``fail_with`` is set (then the
    append answers that error and keeps nothing)."""

    def __init__(self) -> None:
        self.records: list[tuple[bytes, bytes | None]] = []
        self.fail_with: Errors | None = None

    async def append(self, group_id: str, records: list[tuple[bytes, bytes | None]]) -> Errors:
        """The coordinator's ``append``: ``records`` are ``(key bytes, value bytes or None)``."""
        if self.fail_with is not None:
            return self.fail_with
        self.records.extend(records)
        return Errors.NONE

    def decoded(self) -> list[Any]:
        """The kept records as ``(key, value or None)``, decoded."""
        out = []
        for key, value in self.records:
            k = decode_key(key)
            out.append((k, None if value is None else decode_value(k, value)))
        return out

    def regex_records(self) -> list[Any]:
        """The RegularExpression records as ``(regex, value or None)``, in order."""
        return [
            (k.regular_expression, v)
            for k, v in self.decoded()
            if isinstance(k, ConsumerGroupRegularExpressionKey)
        ]


def new_coordinator(
    time: MockTime,
    log: Log,
    topics: Topics,
    settings: ConsumerGroupSettings,
    coordinator_error: Errors = Errors.NONE,
) -> ConsumerGroupCoordinator:
    """A coordinator of every group (partition 0) writing to ``log``, each group's coordinator error
    ``coordinator_error``."""
    return ConsumerGroupCoordinator(
        partition_for=lambda group_id: 0,
        coordinator_error=lambda group_id: coordinator_error,
        append=log.append,
        topics=topics,
        settings=settings,
        time=time,
    )
