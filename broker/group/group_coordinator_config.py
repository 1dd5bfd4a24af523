"""The broker configs of the consumer group protocol (KIP-848), with Kafka 4.3.1's names, defaults,
validation and messages.

Owns: ``CONSUMER_GROUP_CONFIGS`` (the ``ConfigKey``s ``broker.config.BROKER_CONFIGS`` includes:
``group.coordinator.rebalance.protocols`` and the ``group.consumer.*`` session, heartbeat, size,
assignor, migration and assignment-interval keys), ``CONSUMER_GROUP_INTERNAL_CONFIGS`` (the regex
refresh interval), ``check_group_coordinator_configs`` (Kafka's
cross-checks of them, min <= value <= max and heartbeat < session, with Kafka's messages),
``consumer_group_assignors`` (the configured server-side assignors by builtin name, Kafka's class
names accepted), ``ConsumerGroupMigrationPolicy`` and ``clamp_dynamic_configs`` (a dynamic
``group.consumer.assignment.interval.ms`` is capped to its bounds, not refused).
Does not own: the group coordinator that reads them, the per-group overrides
(``common.group_config``: ``consumer.session.timeout.ms``/``consumer.heartbeat.interval.ms`` of a
GROUP config resource, checked against these bounds).

``group.consumer.regex.refresh.interval.ms`` is an internal config of Kafka's (``defineInternal``: read
and validated, at least 10 s, but not listed by Kafka's DescribeConfigs): it is in
``CONSUMER_GROUP_INTERNAL_CONFIGS``, which ``KafkaConfig`` reads beside ``BROKER_CONFIGS`` and
DescribeConfigs leaves out.

``group.coordinator.rebalance.protocols`` keeps Kafka's default (``classic,consumer,streams``), as
DescribeConfigs has always shown it.  As in Kafka, the consumer protocol is served only when the list
holds ``consumer`` *and* the finalized ``group.version`` is at least 1: Kafkette finalizes
``group.version`` 0 and offers neither ConsumerGroupHeartbeat nor ConsumerGroupDescribe
(``protocol.api_keys``), so the default claims nothing the broker cannot serve.  ``classic`` cannot
be left out (Kafka's ``KafkaConfig`` refuses it).

Kafka concept: ``GroupCoordinatorConfig`` (its ``CONFIG_DEF``, constructor checks,
``consumerGroupAssignors`` and ``clampDynamicConfigs``), ``KafkaConfig``'s check of the rebalance
protocols, ``ConsumerGroupMigrationPolicy``.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from kafkette.common.config_def import INT_MAX, ConfigError, ConfigKey, at_least

REBALANCE_PROTOCOLS = ("consumer", "classic", "share", "streams")
"""The values of ``group.coordinator.rebalance.protocols`` (Kafka's ``Group.GroupType``, in its order)."""

BUILTIN_ASSIGNORS: dict[str, str] = {
    "uniform": "org.apache.kafka.coordinator.group.assignor.UniformAssignor",
    "range": "org.apache.kafka.coordinator.group.assignor.RangeAssignor",
}
"""Kafka's builtin server-side assignors: name -> Kafka's class name (either may be configured)."""


class ConsumerGroupMigrationPolicy(StrEnum):
    """Which non-empty group conversions are allowed between the classic and the consumer protocols
    (empty groups always convert).  Kafka concept: ``ConsumerGroupMigrationPolicy``."""

    DISABLED = "disabled"
    DOWNGRADE = "downgrade"
    UPGRADE = "upgrade"
    BIDIRECTIONAL = "bidirectional"

    @classmethod
    def parse(cls, text: str) -> ConsumerGroupMigrationPolicy:
        """The policy a ``group.consumer.migration.policy`` value names, case-insensitively.

        Raises:
            ValueError: not one of the four names.
        """
        return cls(text.strip().lower())

    def is_upgrade_enabled(self) -> bool:
        """Whether a non-empty classic group may become a consumer group (online upgrade)."""
        return self in (ConsumerGroupMigrationPolicy.UPGRADE, ConsumerGroupMigrationPolicy.BIDIRECTIONAL)

    def is_downgrade_enabled(self) -> bool:
        """Whether a non-empty consumer group may become a classic group (online downgrade)."""
        return self in (ConsumerGroupMigrationPolicy.DOWNGRADE, ConsumerGroupMigrationPolicy.BIDIRECTIONAL)


def _check_migration_policy(value: str) -> None:
    try:
        ConsumerGroupMigrationPolicy.parse(value)
    except ValueError:
        names = ", ".join(policy.name for policy in ConsumerGroupMigrationPolicy)
        raise ValueError(f"String must be one of (case insensitive): {names}") from None


# fmt: off
CONSUMER_GROUP_CONFIGS: tuple[ConfigKey, ...] = (
    ConfigKey("group.coordinator.rebalance.protocols", "list", ["classic", "consumer", "streams"],
              "The enabled rebalance protocols (classic, consumer, share, streams; classic required). The "
              "consumer protocol is served only with group.version 1 or more."),
    ConfigKey("group.consumer.session.timeout.ms", "int", 45000,
              "A consumer group member without a heartbeat this long is fenced (ms).", at_least(1)),
    ConfigKey("group.consumer.min.session.timeout.ms", "int", 45000,
              "Shortest session timeout of a consumer group (ms).", at_least(1)),
    ConfigKey("group.consumer.max.session.timeout.ms", "int", 60000,
              "Longest session timeout of a consumer group (ms).", at_least(1)),
    ConfigKey("group.consumer.heartbeat.interval.ms", "int", 5000,
              "Heartbeat interval given to consumer group members (ms).", at_least(1)),
    ConfigKey("group.consumer.min.heartbeat.interval.ms", "int", 5000,
              "Shortest heartbeat interval of a consumer group (ms).", at_least(1)),
    ConfigKey("group.consumer.max.heartbeat.interval.ms", "int", 15000,
              "Longest heartbeat interval of a consumer group (ms).", at_least(1)),
    ConfigKey("group.consumer.max.size", "int", INT_MAX,
              "Most members a consumer group (consumer protocol) may have.", at_least(1)),
    ConfigKey("group.consumer.assignors", "list", ["uniform", "range"],
              "Server-side assignors, by builtin name (uniform, range) or Kafka's class name; the first is "
              "the default."),
    ConfigKey("group.consumer.migration.policy", "string", "bidirectional",
              "Conversions of non-empty groups between the classic and consumer protocols: disabled, "
              "downgrade, upgrade or bidirectional (case-insensitive).", _check_migration_policy),
    ConfigKey("group.consumer.assignment.interval.ms", "int", 1000,
              "Least time between two target assignment computations of a consumer group (ms).",
              at_least(0)),
    ConfigKey("group.consumer.min.assignment.interval.ms", "int", 0,
              "Lowest group.consumer.assignment.interval.ms (ms).", at_least(0)),
    ConfigKey("group.consumer.max.assignment.interval.ms", "int", 15000,
              "Highest group.consumer.assignment.interval.ms (ms).", at_least(0)),
)
# fmt: on
"""The consumer group protocol's broker configs, Kafka's ``GroupCoordinatorConfig.CONFIG_DEF`` entries."""

CONSUMER_GROUP_REGEX_REFRESH_INTERVAL_MS_CONFIG = "group.consumer.regex.refresh.interval.ms"
CONSUMER_GROUP_REGEX_REFRESH_INTERVAL_MS_DEFAULT = 10 * 60 * 1000
"""``group.consumer.regex.refresh.interval.ms``'s default (ms): a group's resolved regexes are resolved
again at least this often even when no topic was created."""

# fmt: off
CONSUMER_GROUP_INTERNAL_CONFIGS: tuple[ConfigKey, ...] = (
    ConfigKey(CONSUMER_GROUP_REGEX_REFRESH_INTERVAL_MS_CONFIG, "int",
              CONSUMER_GROUP_REGEX_REFRESH_INTERVAL_MS_DEFAULT,
              "The interval at which the group coordinator refreshes the topics matching the consumer "
              "groups' subscribed regexes (ms).", at_least(10 * 1000)),
)
# fmt: on
"""The consumer group protocol's internal broker configs (Kafka's ``GroupCoordinatorConfig.CONFIG_DEF``
entries made with ``defineInternal``): read and validated by ``KafkaConfig``, never described."""

_HEARTBEAT_INTERVAL = (
    "group.consumer.heartbeat.interval.ms",
    "group.consumer.min.heartbeat.interval.ms",
    "group.consumer.max.heartbeat.interval.ms",
)
_SESSION_TIMEOUT = (
    "group.consumer.session.timeout.ms",
    "group.consumer.min.session.timeout.ms",
    "group.consumer.max.session.timeout.ms",
)
_ASSIGNMENT_INTERVAL = (
    "group.consumer.assignment.interval.ms",
    "group.consumer.min.assignment.interval.ms",
    "group.consumer.max.assignment.interval.ms",
)
_DEFAULTS = {key.name: key.default for key in CONSUMER_GROUP_CONFIGS}


def _attr(name: str) -> str:
    return name.replace(".", "_")


def consumer_group_assignors(configured: list[str]) -> list[str]:
    """The server-side assignors ``group.consumer.assignors`` names, as builtin names, in order, each
    once (Kafka keeps the first of a repeated one).

    Args:
        configured: the config's items: ``uniform``, ``range`` or Kafka's class names of them.

    Returns:
        Builtin names (``["uniform", "range"]`` by default); the first is the default assignor.

    Raises:
        ConfigError: an item that is neither (Kafka's ``Class X cannot be found``: Kafkette loads no
            custom assignor class).
    """
    by_class = {klass: name for name, klass in BUILTIN_ASSIGNORS.items()}
    out: list[str] = []
    for item in configured:
        name = item if item in BUILTIN_ASSIGNORS else by_class.get(item)
        if name is None:
            raise ConfigError(f"Class {item} cannot be found")
        if name not in out:
            out.append(name)
    return out


def check_group_coordinator_configs(config: Any) -> None:
    """Kafka's checks across the consumer group protocol's configs, in Kafka's order.

    Args:
        config: a ``KafkaConfig`` (one attribute per key of ``CONSUMER_GROUP_CONFIGS``).

    Raises:
        ConfigError: with Kafka's message: an empty or unknown rebalance protocol, ``classic`` left
            out, an empty or unknown assignor, or a value outside its min/max (min above max,
            heartbeat interval not below the session timeout).
    """
    protocols = config.group_coordinator_rebalance_protocols
    if not protocols:
        raise ConfigError(
            "Configuration 'group.coordinator.rebalance.protocols' must not be empty. Valid values "
            f"include: [{', '.join(REBALANCE_PROTOCOLS)}]"
        )
    for protocol in protocols:
        if protocol not in REBALANCE_PROTOCOLS:
            raise ConfigError(
                f"Invalid value {protocol} for configuration group.coordinator.rebalance.protocols: String "
                f"must be one of: {', '.join(REBALANCE_PROTOCOLS)}"
            )
    if not config.group_consumer_assignors:
        raise ConfigError(
            "Configuration 'group.consumer.assignors' must not be empty. Valid values include: any "
            "non-empty value"
        )
    if "classic" not in protocols:
        raise ConfigError("Disabling the 'classic' protocol is not supported.")
    consumer_group_assignors(config.group_consumer_assignors)
    _check_bounds(config, *_HEARTBEAT_INTERVAL)
    _check_bounds(config, *_SESSION_TIMEOUT)
    heartbeat, session = _HEARTBEAT_INTERVAL[0], _SESSION_TIMEOUT[0]
    if getattr(config, _attr(heartbeat)) >= getattr(config, _attr(session)):
        raise ConfigError(f"{heartbeat} must be less than {session}")
    _check_bounds(config, *_ASSIGNMENT_INTERVAL)


def _check_bounds(config: Any, value: str, low: str, high: str) -> None:
    """Kafka's three ``require``s of one bounded config: max >= min, value >= min, value <= max."""
    v, lo, hi = (getattr(config, _attr(name)) for name in (value, low, high))
    if hi < lo:
        raise ConfigError(f"{high} must be greater than or equal to {low}")
    if v < lo:
        raise ConfigError(f"{value} must be greater than or equal to {low}")
    if v > hi:
        raise ConfigError(f"{value} must be less than or equal to {high}")


def clamp_dynamic_configs(props: Mapping[str, Any]) -> dict[str, Any]:
    """``props`` with a ``group.consumer.assignment.interval.ms`` outside its bounds capped to the
    nearer bound, as Kafka applies a dynamic broker config (a static one out of bounds is refused).

    Args:
        props: the node's properties with its dynamic overrides (dotted names, raw values).

    Returns:
        A copy, the interval capped when set and out of bounds (as a string); a bound or value that
        is not a number is left for the config's own parsing to refuse.
    """
    value_name, low_name, high_name = _ASSIGNMENT_INTERVAL
    out = dict(props)
    if out.get(value_name) is None:
        return out
    try:
        value = int(str(out[value_name]).strip())
        low = int(str(out.get(low_name, _DEFAULTS[low_name])).strip())
        high = int(str(out.get(high_name, _DEFAULTS[high_name])).strip())
    except ValueError:
        return out
    if value < low:
        out[value_name] = str(low)
    elif value > high:
        out[value_name] = str(high)
    return out
