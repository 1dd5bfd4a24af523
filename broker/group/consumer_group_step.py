"""What one step of a KIP-848 consumer group reads and returns: a ConsumerGroupHeartbeat (a join, a
heartbeat), a leave or a fence, as the coordinator runs each under the partition's lock.

Owns: the member epochs that ask for a leave (-1, -2), the metadata refresh interval, what a step reads of
the cluster's topics (``TopicMetadata``) and of the broker's config (``ConsumerGroupSettings``), a
group's metadata refresh deadline (``MetadataRefreshDeadline``) and a step's result (``HeartbeatResult``:
the records to write, the answer, the timers to change).  Does not own computing the steps
(``consumer_group_heartbeat`` for a heartbeat, ``consumer_group_leave`` for a leave or a fence), nor
reading the settings from the config (``consumer_group_settings``).

Kafka concept: ``ConsumerGroupHeartbeatRequest.LEAVE_GROUP_MEMBER_EPOCH`` and
``LEAVE_GROUP_STATIC_MEMBER_EPOCH``, ``GroupMetadataManager.METADATA_REFRESH_INTERVAL_MS``,
``MetadataImage``, ``GroupCoordinatorConfig``'s consumer group settings, ``DeadlineAndEpoch`` and
``CoordinatorResult``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kafkette.broker.group.assignors.api import (
    ConsumerGroupPartitionAssignor,
    SubscribedTopicDescriber,
    TopicId,
)
from kafkette.broker.group.consumer_group import ConsumerGroup
from kafkette.broker.group.consumer_group_regex import RegexUpdate
from kafkette.broker.group.group_coordinator_config import (
    CONSUMER_GROUP_REGEX_REFRESH_INTERVAL_MS_DEFAULT,
    ConsumerGroupMigrationPolicy,
)
from kafkette.protocol.apis.consumer_group import ConsumerGroupHeartbeatResponse

LEAVE_GROUP_MEMBER_EPOCH = -1
LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2
METADATA_REFRESH_INTERVAL_MS = 2**31 - 1
"""How long a computed metadata hash stays valid without a metadata change (Kafka's
``METADATA_REFRESH_INTERVAL_MS``, ``Integer.MAX_VALUE``): in practice until ``request_metadata_refresh``."""


class TopicMetadata(SubscribedTopicDescriber):
    """What the heartbeat reads of the cluster's topics (Kafka's ``MetadataImage``)."""

    def topic_id_of(self, name: str) -> TopicId | None:
        """The topic's id, None when it does not exist."""
        ...

    def topic_name_of(self, topic_id: TopicId) -> str | None:
        """The topic's name, None when no topic has this id."""
        ...

    def topic_names(self) -> list[str]:
        """Every topic's name, internal ones included."""
        ...


@dataclass(frozen=True)
class ConsumerGroupSettings:
    """The broker's ``group.consumer.*`` settings the heartbeat applies.

    Attributes:
        assignors: name -> assignor (``group.consumer.assignors``); the first is the default.
        session_timeout_ms: ``group.consumer.session.timeout.ms``.
        heartbeat_interval_ms: ``group.consumer.heartbeat.interval.ms``.
        max_size: ``group.consumer.max.size``.
        assignment_interval_ms: ``group.consumer.assignment.interval.ms``.
        migration_policy: ``group.consumer.migration.policy``.
        regex_refresh_interval_ms: ``group.consumer.regex.refresh.interval.ms`` (Kafka's internal config,
            ms): a group's regexes are resolved again once their last resolution is older.
    """

    assignors: Mapping[str, ConsumerGroupPartitionAssignor]
    session_timeout_ms: int = 45000
    heartbeat_interval_ms: int = 5000
    max_size: int = 2**31 - 1
    assignment_interval_ms: int = 1000
    migration_policy: ConsumerGroupMigrationPolicy = ConsumerGroupMigrationPolicy.BIDIRECTIONAL
    regex_refresh_interval_ms: int = CONSUMER_GROUP_REGEX_REFRESH_INTERVAL_MS_DEFAULT

    @property
    def default_assignor(self) -> str:
        """The first of ``group.consumer.assignors``."""
        return next(iter(self.assignors))


@dataclass
class MetadataRefreshDeadline:
    """When a group's metadata hash must be recomputed (Kafka's ``DeadlineAndEpoch``): at ``deadline_ms``
    or once the group epoch is below ``epoch`` (a bump whose write failed).  ``(0, 0)`` is due now."""

    deadline_ms: int = 0
    epoch: int = 0

    def expired(self, now_ms: int, group_epoch: int) -> bool:
        """Kafka's ``hasMetadataExpired``."""
        return now_ms >= self.deadline_ms or group_epoch < self.epoch


@dataclass
class HeartbeatResult:
    """What one step computed.

    Attributes:
        records: the records to write, in order (Kafka's ``CoordinatorResult.records``).
        response: the answer, sent once the records are written.
        group: the group the records apply to (a new, not yet registered one for a first join).
        member_id: the member the step is about.
        refresh_deadline: the group's new metadata refresh deadline, None when unchanged.
        rebalance_timeout: ``(member epoch, timeout ms)`` to (re)start the member's rebalance timer; None
            to leave it; ``(-1, -1)`` to cancel it.
        fenced: member ids whose timers must be cancelled.
        regex: a heartbeat's regex step (the coordinator then checks whether to resolve the group's
            regexes), None for other steps.
    """

    records: list[Any]
    response: ConsumerGroupHeartbeatResponse
    group: ConsumerGroup
    member_id: str
    refresh_deadline: MetadataRefreshDeadline | None = None
    rebalance_timeout: tuple[int, int] | None = None
    fenced: list[str] = field(default_factory=list)
    regex: RegexUpdate | None = None


CANCEL_REBALANCE_TIMEOUT = (-1, -1)
"""``HeartbeatResult.rebalance_timeout`` that cancels the member's rebalance timer."""
