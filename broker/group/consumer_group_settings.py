"""The broker's consumer group settings (KIP-848) read from its config.

Owns: turning the checked ``group.consumer.*`` configs into the ``ConsumerGroupSettings`` the consumer
group coordinator applies, with one new assignor per configured name.  Does not own checking the configs
(``group_coordinator_config``).

Kafka concept: ``GroupCoordinatorConfig`` (``consumerGroupSessionTimeoutMs``,
``consumerGroupHeartbeatIntervalMs``, ``consumerGroupMaxSize``, ``consumerGroupAssignors``,
``consumerGroupAssignmentIntervalMs``, ``consumerGroupMigrationPolicy``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.group.assignors.registry import new_assignors
from kafkette.broker.group.consumer_group_heartbeat import ConsumerGroupSettings
from kafkette.broker.group.group_coordinator_config import (
    ConsumerGroupMigrationPolicy,
    consumer_group_assignors,
)

if TYPE_CHECKING:
    from kafkette.broker.config import KafkaConfig


def consumer_group_settings(config: KafkaConfig) -> ConsumerGroupSettings:
    """The settings of ``config`` (a checked ``KafkaConfig``)."""
    return ConsumerGroupSettings(
        assignors=new_assignors(consumer_group_assignors(config.group_consumer_assignors)),
        session_timeout_ms=config.group_consumer_session_timeout_ms,
        heartbeat_interval_ms=config.group_consumer_heartbeat_interval_ms,
        max_size=config.group_consumer_max_size,
        assignment_interval_ms=config.group_consumer_assignment_interval_ms,
        migration_policy=ConsumerGroupMigrationPolicy.parse(config.group_consumer_migration_policy),
    )
