"""Topic-level log configuration: broker defaults plus per-topic overrides.

Owns ``LogConfig`` (one field per topic config, snake_case), the table of topic config
names (``TOPIC_CONFIG_NAMES``) and their parsing/validation.  Does not own the broker
properties (``broker.config``) or where overrides are stored (the controller).

Kafka concept: ``LogConfig`` / ``TopicConfig`` (topic names such as ``segment.bytes``
override broker properties such as ``log.segment.bytes``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from broker.config import ConfigError, ConfigKey, KafkaConfig, at_least, one_of

LONG_MAX = 2**63 - 1

# topic config name -> (LogConfig field, parser/validator).  Defaults come from the broker.
_TOPIC_CONFIGS: dict[str, tuple[str, ConfigKey]] = {
    key.name: (field, key)
    for field, key in (
        ("segment_bytes", ConfigKey("segment.bytes", "int", None, "Segment size before a roll (bytes).", at_least(14))),
        ("segment_index_bytes", ConfigKey("segment.index.bytes", "int", None, "Max offset index size (bytes).", at_least(4))),
        ("index_interval_bytes", ConfigKey("index.interval.bytes", "int", None, "Bytes between index entries.", at_least(0))),
        ("max_message_bytes", ConfigKey("max.message.bytes", "int", None, "Largest batch accepted (bytes).", at_least(0))),
        ("flush_messages", ConfigKey("flush.messages", "long", None, "Messages before an fsync.", at_least(1))),
        ("flush_ms", ConfigKey("flush.ms", "long", None, "Max time between fsyncs (ms).", at_least(0))),
        ("retention_ms", ConfigKey("retention.ms", "long", None, "Retention time (ms), -1 = none.", at_least(-1))),
        ("retention_bytes", ConfigKey("retention.bytes", "long", None, "Retention size (bytes), -1 = none.", at_least(-1))),
        ("min_insync_replicas", ConfigKey("min.insync.replicas", "int", None, "Min ISR for acks=all.", at_least(1))),
        (
            "unclean_leader_election_enable",
            ConfigKey("unclean.leader.election.enable", "bool", None, "Elect out-of-sync replicas."),
        ),
        ("cleanup_policy", ConfigKey("cleanup.policy", "list", None, "delete and/or compact.", one_of("delete", "compact"))),
    )
}

TOPIC_CONFIG_NAMES: frozenset[str] = frozenset(_TOPIC_CONFIGS)
"""Every topic-level config name a topic may override (for CreateTopics validation)."""


@dataclass(frozen=True, slots=True)
class LogConfig:
    """The effective configuration of one partition's log (immutable; replace to change).

    Attributes (topic config name in brackets):
        segment_bytes: roll when the active segment would exceed this (``segment.bytes``).
        segment_index_bytes: max offset index size; a full index rolls (``segment.index.bytes``).
        index_interval_bytes: bytes between offset index entries (``index.interval.bytes``).
        max_message_bytes: largest batch accepted, header included (``max.message.bytes``).
        flush_messages: fsync after this many unflushed messages (``flush.messages``).
        flush_ms: fsync when the last flush is this old, ms (``flush.ms``).
        retention_ms: delete segments older than this, ms, -1 none (``retention.ms``).
        retention_bytes: keep at most this many bytes, -1 none (``retention.bytes``).
        min_insync_replicas: ISR size needed for acks=all (``min.insync.replicas``).
        unclean_leader_election_enable: allow out-of-sync leaders
            (``unclean.leader.election.enable``).
        cleanup_policy: ``"delete"``, ``"compact"`` or ``"compact,delete"``
            (``cleanup.policy``; only delete is implemented).
    """

    segment_bytes: int = 1073741824
    segment_index_bytes: int = 10485760
    index_interval_bytes: int = 4096
    max_message_bytes: int = 1048588
    flush_messages: int = LONG_MAX
    flush_ms: int = LONG_MAX
    retention_ms: int = 604800000
    retention_bytes: int = -1
    min_insync_replicas: int = 1
    unclean_leader_election_enable: bool = False
    cleanup_policy: str = "delete"

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
            segment_index_bytes=config.log_index_size_max_bytes,
            index_interval_bytes=config.log_index_interval_bytes,
            max_message_bytes=config.message_max_bytes,
            flush_messages=config.log_flush_interval_messages,
            flush_ms=LONG_MAX if config.log_flush_interval_ms is None else config.log_flush_interval_ms,
            retention_ms=config.retention_ms,
            retention_bytes=config.log_retention_bytes,
            min_insync_replicas=config.min_insync_replicas,
            unclean_leader_election_enable=config.unclean_leader_election_enable,
        )
        return base.with_overrides(overrides or {})

    def with_overrides(self, overrides: Mapping[str, Any]) -> LogConfig:
        """Return a copy with topic config overrides applied.

        Raises:
            ValueError: (``ConfigError``) unknown name or invalid value, naming the config.
        """
        changes: dict[str, Any] = {}
        for name, raw in overrides.items():
            if name not in _TOPIC_CONFIGS:
                raise ConfigError(f"Unknown topic config name: {name}")
            field, key = _TOPIC_CONFIGS[name]
            if raw is None:
                raise ConfigError(f"Invalid value None for configuration {name}: a value is required")
            value = key.parse(raw)
            if field == "cleanup_policy":
                if not value:
                    raise ConfigError(f"Invalid value {raw!r} for configuration {name}: empty list")
                value = ",".join(value)
            changes[field] = value
        return replace(self, **changes) if changes else self

    def to_topic_configs(self) -> dict[str, str]:
        """Render as ``{topic config name: string value}`` (DescribeConfigs-style)."""
        out = {}
        for name, (field, key) in _TOPIC_CONFIGS.items():
            value = getattr(self, field)
            out[name] = str(value).lower() if key.type == "bool" else str(value)
        return out


def validate_topic_configs(configs: Mapping[str, Any]) -> None:
    """Check topic config overrides without a broker config (controller-side validation).

    Raises:
        ValueError: (``ConfigError``) unknown name or invalid value, naming the config.
    """
    LogConfig().with_overrides(configs)
