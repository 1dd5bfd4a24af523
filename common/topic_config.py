"""TopicConfig: every topic-level config, its type, default, valid values and broker synonyms.

Owns: ``TOPIC_CONFIG_DEFS`` (Kafka's topic configs, with the broker properties each
overrides: ``segment.bytes`` overrides ``log.segment.bytes``), ``TOPIC_CONFIG_NAMES``, the parsing and
validation of override values (``parse_topic_config``, ``validate_topic_configs``).  The controller
validates CreateTopics, CreatePartitions and IncrementalAlterConfigs against this table and describes topics
with it; the broker's ``LogConfig`` (``kafkette.broker.log.log_config``) has one field per entry.  Does not
own where overrides are stored (the controller's metadata log) or the broker's properties.

Kafka concept: ``TopicConfig`` and ``LogConfig``'s ``ConfigDef``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from kafkette.common.config_def import (
    LONG_MAX,
    ConfigError,
    ConfigKey,
    at_least,
    in_range,
    non_empty_list_of,
    one_of,
    table,
)

RECORD_OVERHEAD_V0 = 14  # LegacyRecord.RECORD_OVERHEAD_V0: the smallest segment.bytes

_THROTTLED_REPLICA = re.compile(r"\d+:\d+")


def _check_throttled_replicas(value: list[str]) -> None:
    if value == ["*"] or all(_THROTTLED_REPLICA.fullmatch(item) for item in value):
        return
    raise ValueError(
        "must be the literal '*' or a list of replicas in the format "
        "[partitionId]:[brokerId],[partitionId]:[brokerId],..."
    )


def _check_gzip_level(value: int) -> None:
    # Kafka's GzipCompression: Deflater's levels 1-9, or -1 for its default (6)
    if value != -1 and not 1 <= value <= 9:
        raise ValueError("Value must be between 1 and 9 or equal to -1")


def _def(name: str, type_: str, default: Any, doc: str, validator: Any = None, *synonyms: str) -> ConfigKey:
    return ConfigKey(name, type_, default, doc, validator, synonyms)


TOPIC_CONFIG_DEFS: dict[str, ConfigKey] = table(
    (
        _def(
            "cleanup.policy",
            "list",
            ["delete"],
            "Retention policy: delete and/or compact.",
            non_empty_list_of("compact", "delete"),
            "log.cleanup.policy",
        ),
        _def(
            "compression.gzip.level",
            "int",
            -1,
            "gzip level of batches the broker compresses (-1: 6).",
            _check_gzip_level,
            "compression.gzip.level",
        ),
        _def(
            "compression.lz4.level",
            "int",
            9,
            "LZ4 level of batches the broker compresses.",
            in_range(1, 17),
            "compression.lz4.level",
        ),
        _def(
            "compression.type",
            "string",
            "producer",
            "Final compression of the topic's batches.",
            one_of("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"),
            "compression.type",
        ),
        _def(
            "compression.zstd.level",
            "int",
            3,
            "zstd level of batches the broker compresses.",
            in_range(-131072, 22),
            "compression.zstd.level",
        ),
        _def(
            "delete.retention.ms",
            "long",
            86400000,
            "Retention of delete tombstones in compacted topics (ms).",
            at_least(0),
            "log.cleaner.delete.retention.ms",
        ),
        _def(
            "file.delete.delay.ms",
            "long",
            60000,
            "Delay before a deleted segment file is removed (ms).",
            at_least(0),
            "log.segment.delete.delay.ms",
        ),
        _def(
            "flush.messages",
            "long",
            LONG_MAX,
            "Messages between forced fsyncs.",
            at_least(1),
            "log.flush.interval.messages",
        ),
        _def(
            "flush.ms",
            "long",
            LONG_MAX,
            "Max time between forced fsyncs (ms).",
            at_least(0),
            "log.flush.interval.ms",
        ),
        _def(
            "follower.replication.throttled.replicas",
            "list",
            [],
            "Replicas throttled on the follower side.",
            _check_throttled_replicas,
        ),
        _def(
            "index.interval.bytes",
            "int",
            4096,
            "Bytes between offset index entries.",
            at_least(0),
            "log.index.interval.bytes",
        ),
        _def(
            "leader.replication.throttled.replicas",
            "list",
            [],
            "Replicas throttled on the leader side.",
            _check_throttled_replicas,
        ),
        _def(
            "local.retention.bytes",
            "long",
            -2,
            "Local share of retention.bytes under tiered storage (bytes; -2: retention.bytes).",
            at_least(-2),
            "log.local.retention.bytes",
        ),
        _def(
            "local.retention.ms",
            "long",
            -2,
            "Local share of retention.ms under tiered storage (ms; -2: retention.ms).",
            at_least(-2),
            "log.local.retention.ms",
        ),
        _def(
            "max.compaction.lag.ms",
            "long",
            LONG_MAX,
            "Max time a message stays ineligible for compaction (ms).",
            at_least(1),
            "log.cleaner.max.compaction.lag.ms",
        ),
        _def(
            "max.message.bytes",
            "int",
            1048588,
            "Largest record batch accepted (bytes).",
            at_least(0),
            "message.max.bytes",
        ),
        _def(
            "message.timestamp.after.max.ms",
            "long",
            3600000,
            "Max time a CreateTime timestamp may be ahead of the broker's clock (ms).",
            at_least(0),
            "log.message.timestamp.after.max.ms",
        ),
        _def(
            "message.timestamp.before.max.ms",
            "long",
            LONG_MAX,
            "Max time a CreateTime timestamp may be behind the broker's clock (ms).",
            at_least(0),
            "log.message.timestamp.before.max.ms",
        ),
        _def(
            "message.timestamp.type",
            "string",
            "CreateTime",
            "CreateTime or LogAppendTime.",
            one_of("CreateTime", "LogAppendTime"),
            "log.message.timestamp.type",
        ),
        _def(
            "min.cleanable.dirty.ratio",
            "double",
            0.5,
            "Dirty share of the log that triggers compaction.",
            in_range(0, 1),
            "log.cleaner.min.cleanable.ratio",
        ),
        _def(
            "min.compaction.lag.ms",
            "long",
            0,
            "Min time a message stays uncompacted (ms).",
            at_least(0),
            "log.cleaner.min.compaction.lag.ms",
        ),
        _def(
            "min.insync.replicas",
            "int",
            1,
            "Min ISR size for acks=all produce.",
            at_least(1),
            "min.insync.replicas",
        ),
        _def("preallocate", "boolean", False, "Preallocate segment files.", None, "log.preallocate"),
        _def(
            "remote.log.copy.disable",
            "boolean",
            False,
            "Stop copying segments to remote storage (tiered storage).",
            None,
        ),
        _def(
            "remote.log.delete.on.disable",
            "boolean",
            False,
            "Delete remote segments when tiered storage is turned off for the topic.",
            None,
        ),
        _def(
            "remote.storage.enable",
            "boolean",
            False,
            "Tiered storage for the topic (KIP-405); needs "
            "remote.log.storage.system.enable on the brokers, which Kafkette does not offer.",
            None,
        ),
        _def(
            "retention.bytes",
            "long",
            -1,
            "Retention size per partition (bytes); -1 = none.",
            None,
            "log.retention.bytes",
        ),
        _def(
            "retention.ms",
            "long",
            604800000,
            "Retention time (ms); -1 = none.",
            at_least(-1),
            "log.retention.ms",
            "log.retention.minutes",
            "log.retention.hours",
        ),
        _def(
            "segment.bytes",
            "int",
            1073741824,
            "Segment size before a roll (bytes).",
            at_least(RECORD_OVERHEAD_V0),
            "log.segment.bytes",
        ),
        _def(
            "segment.index.bytes",
            "int",
            10485760,
            "Max offset index size (bytes).",
            at_least(4),
            "log.index.size.max.bytes",
        ),
        _def(
            "segment.jitter.ms",
            "long",
            0,
            "Random jitter subtracted from segment.ms (ms).",
            at_least(0),
            "log.roll.jitter.ms",
            "log.roll.jitter.hours",
        ),
        _def(
            "segment.ms",
            "long",
            604800000,
            "Time before a segment rolls (ms).",
            at_least(1),
            "log.roll.ms",
            "log.roll.hours",
        ),
        _def(
            "unclean.leader.election.enable",
            "boolean",
            False,
            "Elect out-of-sync replicas as a last resort.",
            None,
            "unclean.leader.election.enable",
        ),
    )
)

BROKER_SYNONYMS_WITHOUT_DEFAULT: frozenset[str] = frozenset(
    {"log.retention.ms", "log.roll.ms", "log.roll.jitter.ms", "log.flush.interval.ms"}
)
"""First broker synonyms whose Kafka default is null (another synonym or property supplies the
value: ``log.retention.hours``, ``log.roll.hours``, ``log.flush.scheduler.interval.ms``)."""

TOPIC_CONFIG_NAMES: frozenset[str] = frozenset(TOPIC_CONFIG_DEFS)
"""Every topic-level config name a topic may override."""

TOPIC_CONFIG_BY_SYNONYM: dict[str, ConfigKey] = {
    synonym: key for key in TOPIC_CONFIG_DEFS.values() for synonym in key.synonyms
}
"""The topic config each broker synonym sets the broker-wide default of (``log.roll.hours`` ->
``segment.ms``; Kafka's ``ServerTopicConfigSynonyms.TOPIC_CONFIG_SYNONYMS`` read backwards)."""

SYNONYM_MS_PER_UNIT: dict[str, int] = {"hours": 3_600_000, "minutes": 60_000}
"""Milliseconds per unit of a broker synonym named in hours or minutes (``log.roll.hours``,
``log.retention.minutes``) of a topic config in ms (Kafka's ``ConfigSynonym.HOURS_TO_MILLISECONDS``
and ``MINUTES_TO_MILLISECONDS``)."""


def synonym_to_topic_value(synonym: str, value: Any) -> Any:
    """A broker synonym's value in its topic config's unit: hours and minutes as ms, a negative
    value (``log.retention.hours=-1``: unlimited) kept as it is; any other synonym unchanged.

    Args:
        synonym: the broker property (``log.retention.hours``).
        value: its typed value.

    Returns:
        The value for the topic config (``retention.ms``).
    """
    factor = SYNONYM_MS_PER_UNIT.get(synonym.rsplit(".", 1)[-1], 1)
    return value * factor if factor != 1 and value >= 0 else value


def parse_topic_config(name: str, raw: Any) -> Any:
    """Parse and validate one topic config override.

    Returns:
        The typed value.

    Raises:
        ConfigError: (a ValueError) unknown name or invalid value; the message names the config.
    """
    key = TOPIC_CONFIG_DEFS.get(name)
    if key is None:
        raise ConfigError(f"Unknown topic config name: {name}")
    return key.parse(raw)


def validate_topic_configs(configs: Mapping[str, Any], defaults: Mapping[str, Any] | None = None) -> None:
    """Check topic config overrides against the table (controller-side validation).

    ``remote.storage.enable=true`` is refused as Kafka refuses it on brokers without
    ``remote.log.storage.system.enable`` (Kafkette has no tiered storage, KIP-405), and
    ``min.compaction.lag.ms`` above ``max.compaction.lag.ms`` as Kafka's
    ``LogConfig.validateValues`` refuses it (each taken from ``configs``, else ``defaults``,
    else the table's default).

    Args:
        configs: ``{topic config name: value}`` overrides.
        defaults: ``{topic config name: value}`` a topic without an override gets (the
            broker's defaults), or None for the table's.

    Raises:
        ConfigError: (a ValueError) the first unknown name or invalid value, naming the config.
    """
    for name, raw in configs.items():
        if parse_topic_config(name, raw) is True and name == "remote.storage.enable":
            raise ConfigError(
                "Tiered Storage functionality is disabled in the broker. Topic cannot be configured "
                "with remote log storage."
            )
    lags = []
    for name in ("min.compaction.lag.ms", "max.compaction.lag.ms"):
        raw = (
            configs[name] if name in configs else (defaults or {}).get(name, TOPIC_CONFIG_DEFS[name].default)
        )
        lags.append(parse_topic_config(name, raw))
    if lags[0] > lags[1]:
        raise ConfigError(
            f"conflict topic config setting min.compaction.lag.ms ({lags[0]}) > "
            f"max.compaction.lag.ms ({lags[1]})"
        )
