"""Topic-level log configuration: the table of topic configs, broker defaults plus overrides.

Owns: ``TopicConfigDef`` and ``TOPIC_CONFIG_DEFS`` (every topic-level config Kafka knows
- seed 002's list - with its type, default, valid range or values and the broker
property it overrides), parsing and validation of override values
(``validate_topic_configs``, ``parse_topic_config``), and ``LogConfig`` (one field per
topic config, snake_case).  The controller validates CreateTopics / CreatePartitions /
IncrementalAlterConfigs against this same table, and DescribeConfigs renders it.  Does
not own the broker properties (``kafkette.broker.config``) or where overrides are stored (the
controller's metadata log).

Kafka concept: ``LogConfig`` / ``TopicConfig`` / its ``ConfigDef``: topic names such as
``segment.bytes`` override broker properties such as ``log.segment.bytes``.  Types are
Java's: ``int`` is 32-bit and ``long`` 64-bit (a value outside is invalid), ``double``
a float, ``boolean`` true/false, ``list`` comma-separated.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from kafkette.broker.config import ConfigError, KafkaConfig

LONG_MAX = 2**63 - 1
LONG_MIN = -(2**63)
INT_MAX = 2**31 - 1
INT_MIN = -(2**31)
RECORD_OVERHEAD_V0 = 14  # LegacyRecord.RECORD_OVERHEAD_V0: the smallest segment.bytes

# message.format.version: Kafka's ApiVersion names, each release alone or with "-IVn".
_RELEASES = {
    "0.8.0": (), "0.8.1": (), "0.8.2": (), "0.9.0": (), "0.10.0": (0, 1), "0.10.1": (0, 1, 2), "0.10.2": (0,),
    "0.11.0": (0, 1, 2), "1.0": (0,), "1.1": (0,), "2.0": (0, 1), "2.1": (0, 1, 2), "2.2": (0, 1), "2.3": (0, 1),
    "2.4": (0, 1), "2.5": (0,), "2.6": (0,), "2.7": (0, 1, 2), "2.8": (0, 1), "3.0": (0, 1),
}
API_VERSIONS: frozenset[str] = frozenset(
    [*_RELEASES, *(f"{release}-IV{n}" for release, ivs in _RELEASES.items() for n in ivs)]
)
_THROTTLED_REPLICA = re.compile(r"\d+:\d+")


def _check_range(lo: float | None, hi: float | None) -> Callable[[Any], None]:
    def check(value: Any) -> None:
        if lo is not None and hi is not None and not lo <= value <= hi:
            raise ValueError(f"Value must be in the range [{lo}, {hi}]")
        if lo is not None and value < lo:
            raise ValueError(f"Value must be at least {lo}")

    return check


def _check_in(*choices: str, non_empty: bool = False) -> Callable[[Any], None]:
    def check(value: Any) -> None:
        if non_empty and not value:
            raise ValueError("empty list")
        for item in value if isinstance(value, list) else [value]:
            if item not in choices:
                raise ValueError(f"String must be one of: {', '.join(choices)}")

    return check


def _check_api_version(value: str) -> None:
    # Kafka's ApiVersion.apply: "0.x.y..." is named by 3 dot-separated segments, later ones by 2.
    segments = value.split(".")
    key = ".".join(segments[: 3 if value.startswith("0.") else 2])
    if key not in API_VERSIONS:
        raise ValueError(f"Version `{value}` is not a valid version (for example 2.5, 2.5-IV0, 0.10.2)")


def _check_throttled_replicas(value: list[str]) -> None:
    if value == ["*"] or all(_THROTTLED_REPLICA.fullmatch(item) for item in value):
        return
    raise ValueError("must be the literal '*' or a list of replicas in the format "
                     "[partitionId]:[brokerId],[partitionId]:[brokerId],...")


def _parse_integer(raw: Any, lo: int, hi: int, kind: str) -> int:
    if isinstance(raw, bool):
        raise ValueError(f"Expected value to be a {kind} number")
    if isinstance(raw, int):
        value = raw
    else:
        try:
            value = int(str(raw).strip())
        except ValueError:
            raise ValueError(f"Expected value to be a {kind} number, but it was a string") from None
    if not lo <= value <= hi:
        raise ValueError(f"Expected value to be a {kind} number (between {lo} and {hi})")
    return value


def _parse_double(raw: Any) -> float:
    if isinstance(raw, bool):
        raise ValueError("Expected value to be a double")
    try:
        value = float(str(raw).strip()) if not isinstance(raw, (int, float)) else float(raw)
    except ValueError:
        raise ValueError("Expected value to be a double") from None
    if math.isnan(value):
        raise ValueError("Expected value to be a double")
    return value


def _parse_boolean(raw: Any) -> bool:
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text not in ("true", "false"):
        raise ValueError("Expected value to be either true or false")
    return text == "true"


def _parse_list(raw: Any) -> list[str]:
    if isinstance(raw, (list, tuple)):
        return [str(x).strip() for x in raw if str(x).strip()]
    return [part.strip() for part in str(raw).split(",") if part.strip()]


_PARSERS: dict[str, Callable[[Any], Any]] = {
    "int": lambda raw: _parse_integer(raw, INT_MIN, INT_MAX, "32-bit integer"),
    "long": lambda raw: _parse_integer(raw, LONG_MIN, LONG_MAX, "64-bit integer"),
    "double": _parse_double,
    "boolean": _parse_boolean,
    "string": lambda raw: str(raw).strip(),
    "list": _parse_list,
}


@dataclass(frozen=True)
class TopicConfigDef:
    """One topic-level config (Kafka's ``ConfigDef`` entry).

    Attributes:
        name: topic config name (``segment.bytes``).
        field: ``LogConfig`` attribute (``segment_bytes``).
        type: ``int``, ``long``, ``double``, ``boolean``, ``string`` or ``list``.
        default: Kafka's default, typed.
        doc: one line, with units.
        validator: raises ValueError for a value outside the valid range or values.
        broker_synonyms: broker properties this overrides, the first one wins
            (``log.segment.bytes``); empty when no broker property exists.
    """

    name: str
    field: str
    type: str
    default: Any
    doc: str
    validator: Callable[[Any], None] | None = None
    broker_synonyms: tuple[str, ...] = ()

    def parse(self, raw: Any) -> Any:
        """Convert a raw (string or typed) value and validate it.

        Raises:
            ConfigError: (a ValueError) wrong type or invalid value; the message names the config.
        """
        if raw is None:
            raise ConfigError(f"Invalid value null for configuration {self.name}: a value is required")
        try:
            value = _PARSERS[self.type](raw)
            if self.validator is not None:
                self.validator(value)
        except (ValueError, TypeError) as exc:
            raise ConfigError(f"Invalid value {raw} for configuration {self.name}: {exc}") from None
        return value

    def render(self, value: Any) -> str:
        """String form of a typed value as DescribeConfigs shows it."""
        if self.type == "boolean":
            return str(value).lower()
        if self.type == "list":
            return ",".join(value) if isinstance(value, list) else str(value)
        return str(value)


def _def(name: str, type_: str, default: Any, doc: str, validator: Callable[[Any], None] | None = None,
         *synonyms: str) -> TopicConfigDef:
    return TopicConfigDef(name, name.replace(".", "_"), type_, default, doc, validator, synonyms)


TOPIC_CONFIG_DEFS: dict[str, TopicConfigDef] = {d.name: d for d in (
    _def("cleanup.policy", "list", ["delete"], "Retention policy: delete and/or compact.",
         _check_in("compact", "delete", non_empty=True), "log.cleanup.policy"),
    _def("compression.type", "string", "producer", "Final compression of the topic's batches.",
         _check_in("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"), "compression.type"),
    _def("delete.retention.ms", "long", 86400000, "Retention of delete tombstones in compacted topics (ms).",
         _check_range(0, None), "log.cleaner.delete.retention.ms"),
    _def("file.delete.delay.ms", "long", 60000, "Delay before a deleted segment file is removed (ms).",
         _check_range(0, None), "log.segment.delete.delay.ms"),
    _def("flush.messages", "long", LONG_MAX, "Messages between forced fsyncs.", _check_range(1, None),
         "log.flush.interval.messages"),
    _def("flush.ms", "long", LONG_MAX, "Max time between forced fsyncs (ms).", _check_range(0, None),
         "log.flush.interval.ms"),
    _def("follower.replication.throttled.replicas", "list", [], "Replicas throttled on the follower side.",
         _check_throttled_replicas),
    _def("index.interval.bytes", "int", 4096, "Bytes between offset index entries.", _check_range(0, None),
         "log.index.interval.bytes"),
    _def("leader.replication.throttled.replicas", "list", [], "Replicas throttled on the leader side.",
         _check_throttled_replicas),
    _def("max.compaction.lag.ms", "long", LONG_MAX, "Max time a message stays ineligible for compaction (ms).",
         _check_range(1, None), "log.cleaner.max.compaction.lag.ms"),
    _def("max.message.bytes", "int", 1048588, "Largest record batch accepted (bytes).", _check_range(0, None),
         "message.max.bytes"),
    _def("message.downconversion.enable", "boolean", True, "Down-convert batches for old consumers.", None,
         "log.message.downconversion.enable"),
    _def("message.format.version", "string", "2.5-IV0", "Message format version of the topic's batches.",
         _check_api_version, "log.message.format.version"),
    _def("message.timestamp.difference.max.ms", "long", LONG_MAX,
         "Max difference between broker time and a CreateTime timestamp (ms).", _check_range(0, None),
         "log.message.timestamp.difference.max.ms"),
    _def("message.timestamp.type", "string", "CreateTime", "CreateTime or LogAppendTime.",
         _check_in("CreateTime", "LogAppendTime"), "log.message.timestamp.type"),
    _def("min.cleanable.dirty.ratio", "double", 0.5, "Dirty share of the log that triggers compaction.",
         _check_range(0, 1), "log.cleaner.min.cleanable.ratio"),
    _def("min.compaction.lag.ms", "long", 0, "Min time a message stays uncompacted (ms).", _check_range(0, None),
         "log.cleaner.min.compaction.lag.ms"),
    _def("min.insync.replicas", "int", 1, "Min ISR size for acks=all produce.", _check_range(1, None),
         "min.insync.replicas"),
    _def("preallocate", "boolean", False, "Preallocate segment files.", None, "log.preallocate"),
    _def("retention.bytes", "long", -1, "Retention size per partition (bytes); -1 = none.", None,
         "log.retention.bytes"),
    _def("retention.ms", "long", 604800000, "Retention time (ms); -1 = none.", _check_range(-1, None),
         "log.retention.ms", "log.retention.minutes", "log.retention.hours"),
    _def("segment.bytes", "int", 1073741824, "Segment size before a roll (bytes).",
         _check_range(RECORD_OVERHEAD_V0, None), "log.segment.bytes"),
    _def("segment.index.bytes", "int", 10485760, "Max offset index size (bytes).", _check_range(4, None),
         "log.index.size.max.bytes"),
    _def("segment.jitter.ms", "long", 0, "Random jitter subtracted from segment.ms (ms).", _check_range(0, None),
         "log.roll.jitter.ms", "log.roll.jitter.hours"),
    _def("segment.ms", "long", 604800000, "Time before a segment rolls (ms).", _check_range(1, None), "log.roll.ms",
         "log.roll.hours"),
    _def("unclean.leader.election.enable", "boolean", False, "Elect out-of-sync replicas as a last resort.", None,
         "unclean.leader.election.enable"),
)}

TOPIC_CONFIG_NAMES: frozenset[str] = frozenset(TOPIC_CONFIG_DEFS)
"""Every topic-level config name a topic may override."""


def parse_topic_config(name: str, raw: Any) -> Any:
    """Parse and validate one topic config override.

    Returns:
        The typed value.

    Raises:
        ConfigError: (a ValueError) unknown name or invalid value; the message names the config.
    """
    definition = TOPIC_CONFIG_DEFS.get(name)
    if definition is None:
        raise ConfigError(f"Unknown topic config name: {name}")
    return definition.parse(raw)


def validate_topic_configs(configs: Mapping[str, Any]) -> None:
    """Check topic config overrides against the table (controller-side validation).

    Raises:
        ConfigError: (a ValueError) the first unknown name or invalid value, naming the config.
    """
    for name, raw in configs.items():
        parse_topic_config(name, raw)


@dataclass(frozen=True, slots=True)
class LogConfig:
    """The effective configuration of one partition's log (immutable; replace to change).

    One attribute per entry of ``TOPIC_CONFIG_DEFS`` (name with dots as underscores),
    defaulting to Kafka's default.  ``cleanup_policy`` and the throttled replica lists
    are comma-joined strings.  Only some settings are acted on by the log (segment
    roll, index, flush, retention, max message size, min ISR, unclean election,
    compression type and message timestamp type via the LogValidator); the rest are
    accepted, stored and described as in Kafka.
    """

    cleanup_policy: str = "delete"
    compression_type: str = "producer"
    delete_retention_ms: int = 86400000
    file_delete_delay_ms: int = 60000
    flush_messages: int = LONG_MAX
    flush_ms: int = LONG_MAX
    follower_replication_throttled_replicas: str = ""
    index_interval_bytes: int = 4096
    leader_replication_throttled_replicas: str = ""
    max_compaction_lag_ms: int = LONG_MAX
    max_message_bytes: int = 1048588
    message_downconversion_enable: bool = True
    message_format_version: str = "2.5-IV0"
    message_timestamp_difference_max_ms: int = LONG_MAX
    message_timestamp_type: str = "CreateTime"
    min_cleanable_dirty_ratio: float = 0.5
    min_compaction_lag_ms: int = 0
    min_insync_replicas: int = 1
    preallocate: bool = False
    retention_bytes: int = -1
    retention_ms: int = 604800000
    segment_bytes: int = 1073741824
    segment_index_bytes: int = 10485760
    segment_jitter_ms: int = 0
    segment_ms: int = 604800000
    unclean_leader_election_enable: bool = False

    @classmethod
    def from_broker(cls, config: KafkaConfig, overrides: Mapping[str, Any] | None = None) -> LogConfig:
        """Build a topic's log config from broker defaults plus topic overrides.

        Args:
            config: the broker configuration (``log.segment.bytes``, ``message.max.bytes``, ...).
            overrides: ``{topic config name: value}`` (strings as sent in CreateTopics,
                or typed values), e.g. ``{"segment.bytes": "1048576"}``.

        Returns:
            The effective LogConfig.

        Raises:
            ValueError: (``ConfigError``) an unknown override name or an invalid value; the
                message names the config.
        """
        base = cls(
            segment_bytes=config.log_segment_bytes,
            segment_ms=config.roll_ms,
            segment_jitter_ms=config.roll_jitter_ms,
            segment_index_bytes=config.log_index_size_max_bytes,
            index_interval_bytes=config.log_index_interval_bytes,
            max_message_bytes=config.message_max_bytes,
            flush_messages=config.log_flush_interval_messages,
            flush_ms=LONG_MAX if config.log_flush_interval_ms is None else config.log_flush_interval_ms,
            retention_ms=config.retention_ms,
            retention_bytes=config.log_retention_bytes,
            file_delete_delay_ms=config.log_segment_delete_delay_ms,
            min_insync_replicas=config.min_insync_replicas,
            compression_type=config.compression_type,
            message_timestamp_type=config.log_message_timestamp_type,
            unclean_leader_election_enable=config.unclean_leader_election_enable,
            cleanup_policy=",".join(config.log_cleanup_policy),
            delete_retention_ms=config.log_cleaner_delete_retention_ms,
            min_cleanable_dirty_ratio=config.log_cleaner_min_cleanable_ratio,
            min_compaction_lag_ms=config.log_cleaner_min_compaction_lag_ms,
        )
        return base.with_overrides(overrides or {})

    def with_overrides(self, overrides: Mapping[str, Any]) -> LogConfig:
        """Return a copy with topic config overrides applied.

        Raises:
            ValueError: (``ConfigError``) unknown name or invalid value, naming the config.
        """
        changes: dict[str, Any] = {}
        for name, raw in overrides.items():
            value = parse_topic_config(name, raw)
            definition = TOPIC_CONFIG_DEFS[name]
            if definition.type == "list":
                value = ",".join(value)
            changes[definition.field] = value
        return replace(self, **changes) if changes else self

    def to_topic_configs(self) -> dict[str, str]:
        """Render as ``{topic config name: string value}`` (DescribeConfigs-style)."""
        return {name: d.render(getattr(self, d.field)) for name, d in TOPIC_CONFIG_DEFS.items()}

