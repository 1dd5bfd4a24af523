"""The broker's consumer group settings (KIP-848) read from its config.

Owns: turning the checked ``group.consumer.*`` configs into the ``ConsumerGroupSettings`` the consumer
group coordinator applies, with one new assignor per configured name, and into the bounds of the
``GroupConfigManager`` that holds the groups' overrides.  Does not own checking the configs
(``group_coordinator_config``).

Kafka concept: ``GroupCoordinatorConfig`` (``consumerGroupSessionTimeoutMs``,
``consumerGroupHeartbeatIntervalMs``, ``consumerGroupMaxSize``, ``consumerGroupAssignors``,
``consumerGroupAssignmentIntervalMs`` and their ``min``/``max`` bounds, ``consumerGroupMigrationPolicy``,
``consumerGroupRegexRefreshIntervalMs``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.group.assignors.registry import new_assignors
from kafkette.broker.group.consumer_group_step import ConsumerGroupSettings
from kafkette.broker.group.group_config_manager import (
    CONSUMER_ASSIGNMENT_INTERVAL_MS_CONFIG,
    CONSUMER_HEARTBEAT_INTERVAL_MS_CONFIG,
    CONSUMER_SESSION_TIMEOUT_MS_CONFIG,
    GroupConfigManager,
)
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
        regex_refresh_interval_ms=config.group_consumer_regex_refresh_interval_ms,
    )


def group_config_manager(config: KafkaConfig) -> GroupConfigManager:
    """An empty ``GroupConfigManager`` bounded by ``config``'s ``group.consumer.min.*``/``max.*`` configs."""
    return GroupConfigManager(
        {
            CONSUMER_SESSION_TIMEOUT_MS_CONFIG: (
                config.group_consumer_min_session_timeout_ms,
                config.group_consumer_max_session_timeout_ms,
            ),
            CONSUMER_HEARTBEAT_INTERVAL_MS_CONFIG: (
                config.group_consumer_min_heartbeat_interval_ms,
                config.group_consumer_max_heartbeat_interval_ms,
            ),
            CONSUMER_ASSIGNMENT_INTERVAL_MS_CONFIG: (
                config.group_consumer_min_assignment_interval_ms,
                config.group_consumer_max_assignment_interval_ms,
            ),
        },
        broker_session_timeout_ms=config.group_consumer_session_timeout_ms,
        broker_heartbeat_interval_ms=config.group_consumer_heartbeat_interval_ms,
    )
