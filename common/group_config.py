"""GroupConfig: the configs of one group (KIP-848's group configs), their types, defaults and checks.

Owns: ``GROUP_CONFIG_DEFS`` (Apache Kafka 4.3's ``GroupConfig`` table: the consumer, share and
streams group settings a group may override), ``GROUP_CONFIG_BOUNDS`` (the broker configs that
bound each one), ``group_config_defaults`` (what a group without an override has: the broker's
``group.*`` synonym as the node's properties set it, else Kafka's default) and
``validate_group_configs`` (Kafka's ``GroupConfig.validate``, with its messages).  The controller
describes and validates GROUP config resources with it.  Does not own where overrides are stored
(the controller's metadata log, ``ConfigRecord``s of resource type "group").

Brokers learn a group's overrides from the controller's UpdateMetadata (``group_configs``), and
their consumer group coordinator applies ``consumer.session.timeout.ms``,
``consumer.heartbeat.interval.ms`` and ``consumer.assignment.interval.ms``
(``broker.group.group_config_manager``).  The share (KIP-932) and streams (KIP-1071) group protocols
the other configs tune are not offered: those are stored and described as Kafka does and change
nothing else.

Kafka concept: ``org.apache.kafka.coordinator.group.GroupConfig`` and the ``group.*`` configs of
``GroupCoordinatorConfig`` / ``ShareGroupConfig``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from kafkette.common.config_def import ConfigError, ConfigKey, at_least, one_of, table

_DURATION = re.compile(
    r"[-+]?P(?:[-+]?[0-9]+D)?(?:T(?:[-+]?[0-9]+H)?(?:[-+]?[0-9]+M)?"
    r"(?:[-+]?[0-9]+(?:[.,][0-9]{0,9})?S)?)?",
    re.IGNORECASE,
)


def _check_share_auto_offset_reset(value: str) -> None:
    """Kafka's ``ShareGroupAutoOffsetResetStrategy.Validator``: earliest, latest or
    ``by_duration:`` and a non-negative ISO-8601 duration."""
    text = value.lower()
    if text in ("earliest", "latest"):
        return
    if text.startswith("by_duration:"):
        duration = value[len("by_duration:") :]
        if (
            _DURATION.fullmatch(duration)
            and duration.upper() not in ("P", "PT")
            and not duration.upper().endswith("T")
            and "-" not in duration
        ):
            return
    raise ValueError(
        f"Invalid value `{value}` for configuration share.auto.offset.reset. The value must be "
        "either 'earliest', 'latest' or of the format 'by_duration:<PnDTnHnMn.nS>'."
    )


def _int(name: str, default: int, lo: int, doc: str, synonym: str | None) -> ConfigKey:
    return ConfigKey(name, "int", default, doc, at_least(lo), (synonym,) if synonym else ())


GROUP_CONFIG_DEFS: dict[str, ConfigKey] = table(
    (
        _int(
            "consumer.session.timeout.ms",
            45000,
            1,
            "The timeout to detect client failures when using the consumer group protocol.",
            "group.consumer.session.timeout.ms",
        ),
        _int(
            "consumer.heartbeat.interval.ms",
            5000,
            1,
            "The heartbeat interval given to the members of a consumer group.",
            "group.consumer.heartbeat.interval.ms",
        ),
        _int(
            "consumer.assignment.interval.ms",
            1000,
            0,
            "The interval between assignment updates for a consumer group.",
            "group.consumer.assignment.interval.ms",
        ),
        _int(
            "share.session.timeout.ms",
            45000,
            1,
            "The timeout to detect client failures when using the share group protocol.",
            "group.share.session.timeout.ms",
        ),
        _int(
            "share.heartbeat.interval.ms",
            5000,
            1,
            "The heartbeat interval given to the members of a share group.",
            "group.share.heartbeat.interval.ms",
        ),
        _int(
            "share.record.lock.duration.ms",
            30000,
            1000,
            "The record acquisition lock duration in milliseconds for share groups.",
            "group.share.record.lock.duration.ms",
        ),
        _int(
            "share.delivery.count.limit",
            5,
            2,
            "The maximum number of delivery attempts for a record delivered to a share group.",
            "group.share.delivery.count.limit",
        ),
        _int(
            "share.partition.max.record.locks",
            2000,
            100,
            "Share-group record lock limit per share-partition.",
            "group.share.partition.max.record.locks",
        ),
        ConfigKey(
            "share.auto.offset.reset",
            "string",
            "latest",
            "The strategy to initialize the share-partition start offset: earliest, latest or "
            "by_duration:<ISO-8601 duration>.",
            _check_share_auto_offset_reset,
        ),
        ConfigKey(
            "share.isolation.level",
            "string",
            "read_uncommitted",
            "Controls how to read records written transactionally (read_committed or read_uncommitted).",
            one_of("read_committed", "read_uncommitted"),
        ),
        ConfigKey(
            "share.renew.acknowledge.enable",
            "boolean",
            True,
            "Whether the renew acknowledge type is enabled for the share group.",
        ),
        _int(
            "share.assignment.interval.ms",
            1000,
            0,
            "The interval between assignment updates for a share group.",
            "group.share.assignment.interval.ms",
        ),
        _int(
            "streams.session.timeout.ms",
            45000,
            1,
            "The timeout to detect client failures when using the streams group protocol.",
            "group.streams.session.timeout.ms",
        ),
        _int(
            "streams.heartbeat.interval.ms",
            5000,
            1,
            "The heartbeat interval given to the members.",
            "group.streams.heartbeat.interval.ms",
        ),
        _int(
            "streams.num.standby.replicas",
            0,
            0,
            "The number of standby replicas for each task.",
            "group.streams.num.standby.replicas",
        ),
        _int(
            "streams.initial.rebalance.delay.ms",
            3000,
            0,
            "The amount of time the group coordinator will wait for more streams clients to join a new group "
            "before performing the first rebalance.",
            "group.streams.initial.rebalance.delay.ms",
        ),
        _int(
            "streams.assignment.interval.ms",
            1000,
            0,
            "The interval between assignment updates for a streams group.",
            "group.streams.assignment.interval.ms",
        ),
    )
)
"""Kafka 4.3's ``GroupConfig.CONFIG_DEF``, in its order (the order Kafka checks them in)."""

BROKER_GROUP_DEFAULTS: dict[str, int] = {
    "group.consumer.min.session.timeout.ms": 45000,
    "group.consumer.max.session.timeout.ms": 60000,
    "group.consumer.min.heartbeat.interval.ms": 5000,
    "group.consumer.max.heartbeat.interval.ms": 15000,
    "group.consumer.min.assignment.interval.ms": 0,
    "group.consumer.max.assignment.interval.ms": 15000,
    "group.share.min.session.timeout.ms": 45000,
    "group.share.max.session.timeout.ms": 60000,
    "group.share.min.heartbeat.interval.ms": 5000,
    "group.share.max.heartbeat.interval.ms": 15000,
    "group.share.min.record.lock.duration.ms": 15000,
    "group.share.max.record.lock.duration.ms": 60000,
    "group.share.min.delivery.count.limit": 2,
    "group.share.max.delivery.count.limit": 10,
    "group.share.min.partition.max.record.locks": 100,
    "group.share.max.partition.max.record.locks": 4000,
    "group.share.min.assignment.interval.ms": 0,
    "group.share.max.assignment.interval.ms": 15000,
    "group.streams.min.session.timeout.ms": 45000,
    "group.streams.max.session.timeout.ms": 60000,
    "group.streams.min.heartbeat.interval.ms": 5000,
    "group.streams.max.heartbeat.interval.ms": 15000,
    "group.streams.max.standby.replicas": 2,
    "group.streams.min.assignment.interval.ms": 0,
    "group.streams.max.assignment.interval.ms": 15000,
}
"""Kafka's defaults of the broker configs that bound group configs (``GroupCoordinatorConfig``,
``ShareGroupConfig``)."""

GROUP_CONFIG_BOUNDS: tuple[tuple[str, str | None, str | None, bool], ...] = (
    (
        "consumer.heartbeat.interval.ms",
        "group.consumer.min.heartbeat.interval.ms",
        "group.consumer.max.heartbeat.interval.ms",
        False,
    ),
    (
        "consumer.session.timeout.ms",
        "group.consumer.min.session.timeout.ms",
        "group.consumer.max.session.timeout.ms",
        False,
    ),
    (
        "consumer.assignment.interval.ms",
        "group.consumer.min.assignment.interval.ms",
        "group.consumer.max.assignment.interval.ms",
        True,
    ),
    (
        "share.heartbeat.interval.ms",
        "group.share.min.heartbeat.interval.ms",
        "group.share.max.heartbeat.interval.ms",
        False,
    ),
    (
        "share.session.timeout.ms",
        "group.share.min.session.timeout.ms",
        "group.share.max.session.timeout.ms",
        False,
    ),
    (
        "share.record.lock.duration.ms",
        "group.share.min.record.lock.duration.ms",
        "group.share.max.record.lock.duration.ms",
        False,
    ),
    (
        "share.delivery.count.limit",
        "group.share.min.delivery.count.limit",
        "group.share.max.delivery.count.limit",
        False,
    ),
    (
        "share.partition.max.record.locks",
        "group.share.min.partition.max.record.locks",
        "group.share.max.partition.max.record.locks",
        False,
    ),
    (
        "share.assignment.interval.ms",
        "group.share.min.assignment.interval.ms",
        "group.share.max.assignment.interval.ms",
        True,
    ),
    (
        "streams.heartbeat.interval.ms",
        "group.streams.min.heartbeat.interval.ms",
        "group.streams.max.heartbeat.interval.ms",
        False,
    ),
    (
        "streams.session.timeout.ms",
        "group.streams.min.session.timeout.ms",
        "group.streams.max.session.timeout.ms",
        False,
    ),
    ("streams.num.standby.replicas", None, "group.streams.max.standby.replicas", False),
    (
        "streams.assignment.interval.ms",
        "group.streams.min.assignment.interval.ms",
        "group.streams.max.assignment.interval.ms",
        True,
    ),
)
"""``(group config, broker minimum, broker maximum, checked only when set)`` in the order of
Kafka's ``GroupConfig.validateValues``."""


def _broker_int(broker_settings: Mapping[str, Any], name: str, default: int) -> int:
    raw = broker_settings.get(name)
    try:
        return default if raw is None else int(str(raw).strip())
    except ValueError:
        return default


def group_config_defaults(broker_settings: Mapping[str, Any]) -> dict[str, str]:
    """What a group without overrides has for each group config (Kafka's
    ``GroupCoordinatorConfig.extractGroupConfigMap``).

    Args:
        broker_settings: the node's properties (only the ``group.*`` ones are read).

    Returns:
        ``{group config name: value}``: the broker synonym's value where the node sets it,
        else Kafka's default, rendered as DescribeConfigs shows it.
    """
    out = {}
    for name, key in GROUP_CONFIG_DEFS.items():
        value = key.default
        if key.synonyms and key.synonyms[0] in broker_settings:
            value = _broker_int(broker_settings, key.synonyms[0], key.default)
        out[name] = key.render(value)
    return out


def validate_group_configs(configs: Mapping[str, str], broker_settings: Mapping[str, Any]) -> None:
    """Check a group's overrides as Kafka's ``GroupConfig.validate`` does: the names, then each
    value's type and range (``ConfigDef.parse``, every config at its table default when not set),
    then each against the broker's ``group.*.min``/``max`` bounds.

    Args:
        configs: ``{group config name: value}``, every override the group would have.
        broker_settings: the node's properties (the bounds; Kafka's defaults when unset).

    Raises:
        ConfigError: (a ValueError) the first problem, in Kafka's words (all INVALID_CONFIG).
    """
    for name in configs:
        if name not in GROUP_CONFIG_DEFS:
            raise ConfigError(f"Unknown group config name: {name}")
    values = {
        name: key.parse(configs[name]) if name in configs else key.default
        for name, key in GROUP_CONFIG_DEFS.items()
    }
    for name, low, high, only_when_set in GROUP_CONFIG_BOUNDS:
        if only_when_set and name not in configs:
            continue
        if low is not None and values[name] < _broker_int(broker_settings, low, BROKER_GROUP_DEFAULTS[low]):
            raise ConfigError(f"{name} must be greater than or equal to {low}")
        if high is not None and values[name] > _broker_int(
            broker_settings, high, BROKER_GROUP_DEFAULTS[high]
        ):
            raise ConfigError(f"{name} must be less than or equal to {high}")
