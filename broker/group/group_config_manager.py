"""GroupConfigManager: the group config overrides this broker's consumer groups apply (KIP-848).

Owns: each group's overrides of the configs Kafka 4.3.1's ``GroupMetadataManager`` reads for a consumer
group (``consumer.session.timeout.ms``, ``consumer.heartbeat.interval.ms``,
``consumer.assignment.interval.ms``), capped to the broker's ``group.consumer.min.*``/``max.*`` bounds
when they are learnt (a WARNING names a capped value), and the settings a consumer group gets from them
(``ConsumerGroupSettings`` with the group's values in place of the broker's).  Does not own storing,
validating or describing the overrides (the controller: ``common.group_config``, ConfigRecords of resource
type "group"), nor how they reach the broker (UpdateMetadata's ``group_configs``), nor the share and
streams configs (their groups are not offered: they are ignored here).

A group has a ``GroupConfig`` once any override is set and loses it when the last one is removed, as
Kafka's ``GroupConfigManager.updateGroupConfig``; a value the group does not override is the broker's.
A new value applies from the group's next heartbeat (the heartbeat interval it answers, the session timer
it reschedules, the assignment interval it checks).

Kafka concept: ``GroupConfigManager``, ``GroupConfig.evaluate`` (``clampToRange``,
``checkSessionExceedsHeartbeat``) and ``GroupMetadataManager.consumerGroupSessionTimeoutMs`` /
``consumerGroupHeartbeatIntervalMs`` / ``consumerGroupAssignmentIntervalMs``.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from dataclasses import dataclass

from kafkette.broker.group.consumer_group_step import ConsumerGroupSettings

logger = logging.getLogger(__name__)

CONSUMER_SESSION_TIMEOUT_MS_CONFIG = "consumer.session.timeout.ms"
CONSUMER_HEARTBEAT_INTERVAL_MS_CONFIG = "consumer.heartbeat.interval.ms"
CONSUMER_ASSIGNMENT_INTERVAL_MS_CONFIG = "consumer.assignment.interval.ms"
CONSUMER_GROUP_CONFIG_NAMES = (
    CONSUMER_SESSION_TIMEOUT_MS_CONFIG,
    CONSUMER_HEARTBEAT_INTERVAL_MS_CONFIG,
    CONSUMER_ASSIGNMENT_INTERVAL_MS_CONFIG,
)
"""The group configs a consumer group applies, in Kafka's ``GroupConfig.evaluateValues`` order."""


@dataclass(frozen=True)
class GroupConfig:
    """One group's consumer overrides, each None when the group does not set it (the broker's value).

    Attributes:
        consumer_session_timeout_ms: ``consumer.session.timeout.ms`` (ms).
        consumer_heartbeat_interval_ms: ``consumer.heartbeat.interval.ms`` (ms).
        consumer_assignment_interval_ms: ``consumer.assignment.interval.ms`` (ms; KIP-1263).
    """

    consumer_session_timeout_ms: int | None = None
    consumer_heartbeat_interval_ms: int | None = None
    consumer_assignment_interval_ms: int | None = None


class GroupConfigManager:
    """The group configs of the groups that have overrides.

    Args:
        bounds: group config name -> ``(minimum, maximum)`` from the broker's ``group.consumer.min.*`` and
            ``group.consumer.max.*`` configs; a learnt value outside is capped to them.
        broker_session_timeout_ms / broker_heartbeat_interval_ms: ``group.consumer.session.timeout.ms``
            and ``group.consumer.heartbeat.interval.ms``, for the session-exceeds-heartbeat warning.
    """

    def __init__(
        self,
        bounds: Mapping[str, tuple[int, int]],
        broker_session_timeout_ms: int = 45000,
        broker_heartbeat_interval_ms: int = 5000,
    ) -> None:
        self._bounds = dict(bounds)
        self._broker_session_timeout_ms = broker_session_timeout_ms
        self._broker_heartbeat_interval_ms = broker_heartbeat_interval_ms
        self._configs: dict[str, GroupConfig] = {}

    def update_group_config(self, group_id: str, configs: Mapping[str, str]) -> None:
        """Replace the overrides of ``group_id`` (Kafka's ``GroupConfigManager.updateGroupConfig``).

        Args:
            group_id: a non-empty group id.
            configs: every override the group has (group config name -> string value, as the controller
                stores them); empty removes the group's config.  Names other than the consumer ones, and
                values that are not integers, are ignored (the controller validated them).

        Raises:
            ValueError: an empty group id (Kafka's "Group name can't be empty.").
        """
        if not group_id:
            raise ValueError("Group name can't be empty.")
        if not configs:
            self._configs.pop(group_id, None)
            return
        values: dict[str, int | None] = {}
        for name in CONSUMER_GROUP_CONFIG_NAMES:
            values[name] = self._evaluate(group_id, name, configs.get(name))
        self._check_session_exceeds_heartbeat(group_id, values)
        self._configs[group_id] = GroupConfig(
            consumer_session_timeout_ms=values[CONSUMER_SESSION_TIMEOUT_MS_CONFIG],
            consumer_heartbeat_interval_ms=values[CONSUMER_HEARTBEAT_INTERVAL_MS_CONFIG],
            consumer_assignment_interval_ms=values[CONSUMER_ASSIGNMENT_INTERVAL_MS_CONFIG],
        )

    def update_group_configs(self, configs_by_group: Mapping[str, Mapping[str, str]], full: bool) -> None:
        """Apply the group configs an UpdateMetadata carries.

        Args:
            configs_by_group: group id -> its whole override set (empty: none left).
            full: the request lists every group with overrides; the groups it leaves out lose theirs.
        """
        if full:
            for group_id in [g for g in self._configs if g not in configs_by_group]:
                self._configs.pop(group_id)
        for group_id, configs in configs_by_group.items():
            if group_id:
                self.update_group_config(group_id, configs)

    def group_config(self, group_id: str) -> GroupConfig | None:
        """The group's config, None when it has no override (Kafka's ``groupConfig``)."""
        return self._configs.get(group_id)

    def group_ids(self) -> list[str]:
        """The groups that have overrides."""
        return list(self._configs)

    def consumer_group_settings(
        self, group_id: str, settings: ConsumerGroupSettings
    ) -> ConsumerGroupSettings:
        """The settings the consumer group applies: ``settings`` (the broker's) with the group's overrides in
        place of ``session_timeout_ms``, ``heartbeat_interval_ms`` and ``assignment_interval_ms`` (Kafka's
        ``consumerGroupSessionTimeoutMs``, ``consumerGroupHeartbeatIntervalMs`` and
        ``consumerGroupAssignmentIntervalMs``)."""
        config = self._configs.get(group_id)
        if config is None:
            return settings
        return dataclasses.replace(
            settings,
            session_timeout_ms=_or(config.consumer_session_timeout_ms, settings.session_timeout_ms),
            heartbeat_interval_ms=_or(config.consumer_heartbeat_interval_ms, settings.heartbeat_interval_ms),
            assignment_interval_ms=_or(
                config.consumer_assignment_interval_ms, settings.assignment_interval_ms
            ),
        )

    def _evaluate(self, group_id: str, name: str, raw: str | None) -> int | None:
        """Kafka's ``clampToRange``: the value capped to the broker's bounds, None when not set."""
        if raw is None:
            return None
        try:
            value = int(str(raw).strip())
        except ValueError:
            logger.warning(
                "[GroupId %s] Ignoring the group config %s=%r: not an integer.", group_id, name, raw
            )
            return None
        low, high = self._bounds.get(name, (value, value))
        if value < low:
            logger.warning(
                "The group config '%s' for group '%s' has value %d which is below the broker's allowed "
                "minimum %d. The effective value will be capped to %d.",
                name,
                group_id,
                value,
                low,
                low,
            )
            return low
        if value > high:
            logger.warning(
                "The group config '%s' for group '%s' has value %d which exceeds the broker's allowed "
                "maximum %d. The effective value will be capped to %d.",
                name,
                group_id,
                value,
                high,
                high,
            )
            return high
        return value

    def _check_session_exceeds_heartbeat(self, group_id: str, values: Mapping[str, int | None]) -> None:
        """Kafka's ``checkSessionExceedsHeartbeat``: a warning when capping left session <= heartbeat."""
        session = values[CONSUMER_SESSION_TIMEOUT_MS_CONFIG]
        heartbeat = values[CONSUMER_HEARTBEAT_INTERVAL_MS_CONFIG]
        if session is None and heartbeat is None:
            return
        session = _or(session, self._broker_session_timeout_ms)
        heartbeat = _or(heartbeat, self._broker_heartbeat_interval_ms)
        if session <= heartbeat:
            logger.warning(
                "The effective %s (%d) for group '%s' is not greater than %s (%d). Check that the "
                "broker-level min/max bounds for session timeout and heartbeat interval do not overlap.",
                CONSUMER_SESSION_TIMEOUT_MS_CONFIG,
                session,
                group_id,
                CONSUMER_HEARTBEAT_INTERVAL_MS_CONFIG,
                heartbeat,
            )


def _or(value: int | None, default: int) -> int:
    return default if value is None else value
