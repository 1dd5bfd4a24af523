"""LogConfig: the effective configuration of one partition's log, broker defaults plus topic overrides.

Owns: ``LogConfig`` (one field per topic config of ``kafkette.common.topic_config``,
snake_case) and how it is built from the broker's properties (``from_broker``: each
topic config's broker synonym, e.g. ``log.segment.bytes`` for ``segment.bytes``).  Does
not own the topic config table (``kafkette.common.topic_config``, shared with the
controller) or the broker properties (``kafkette.broker.config``).

Kafka concept: ``LogConfig`` (storage module).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from kafkette.broker.config import KafkaConfig
from kafkette.common.config_def import LONG_MAX
from kafkette.common.topic_config import TOPIC_CONFIG_DEFS, parse_topic_config


@dataclass(frozen=True, slots=True)
class LogConfig:
    """The effective configuration of one partition's log (immutable; replace to change).

    One attribute per entry of ``TOPIC_CONFIG_DEFS`` (name with dots as underscores),
    defaulting to Kafka's default.  ``cleanup_policy`` and the throttled replica lists
    are comma-joined strings.  The throttled replica lists
    (``kafkette.common.topic_config.TOPIC_CONFIGS_WITHOUT_EFFECT``) and the tiered storage
    settings (no tiered storage: ``remote.storage.enable=true`` is refused) are accepted,
    stored and described as in Kafka but not acted on.
    """

    cleanup_policy: str = "delete"
    compression_gzip_level: int = -1
    compression_lz4_level: int = 9
    compression_type: str = "producer"
    compression_zstd_level: int = 3
    delete_retention_ms: int = 86400000
    file_delete_delay_ms: int = 60000
    flush_messages: int = LONG_MAX
    flush_ms: int = LONG_MAX
    follower_replication_throttled_replicas: str = ""
    index_interval_bytes: int = 4096
    leader_replication_throttled_replicas: str = ""
    local_retention_bytes: int = -2
    local_retention_ms: int = -2
    max_compaction_lag_ms: int = LONG_MAX
    max_message_bytes: int = 1048588
    message_timestamp_after_max_ms: int = 3600000
    message_timestamp_before_max_ms: int = LONG_MAX
    message_timestamp_type: str = "CreateTime"
    min_cleanable_dirty_ratio: float = 0.5
    min_compaction_lag_ms: int = 0
    min_insync_replicas: int = 1
    preallocate: bool = False
    remote_log_copy_disable: bool = False
    remote_log_delete_on_disable: bool = False
    remote_storage_enable: bool = False
    retention_bytes: int = -1
    retention_ms: int = 604800000
    segment_bytes: int = 1073741824
    segment_index_bytes: int = 10485760
    segment_jitter_ms: int = 0
    segment_ms: int = 604800000
    unclean_leader_election_enable: bool = False
    is_compacted: bool = field(init=False, repr=False, compare=False)
    """True when ``cleanup.policy`` contains ``compact`` (``compact`` or ``compact,delete``)."""
    max_segment_ms: int = field(init=False, repr=False, compare=False)
    """Age at which the active segment rolls (ms): ``segment.ms``, or ``max.compaction.lag.ms``
    when smaller on a compacted log, so that records past that lag leave the active segment and
    become cleanable (Kafka's ``LogConfig.maxSegmentMs``, KIP-354).  Worked out once here: every
    append's roll check reads it."""

    def __post_init__(self) -> None:
        compacted = "compact" in (part.strip() for part in self.cleanup_policy.split(","))
        object.__setattr__(self, "is_compacted", compacted)
        object.__setattr__(self, "max_segment_ms", min(self.max_compaction_lag_ms, self.segment_ms)
                           if compacted and self.max_compaction_lag_ms > 0 else self.segment_ms)

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
            compression_gzip_level=config.compression_gzip_level,
            compression_lz4_level=config.compression_lz4_level,
            compression_zstd_level=config.compression_zstd_level,
            message_timestamp_type=config.log_message_timestamp_type,
            message_timestamp_before_max_ms=config.log_message_timestamp_before_max_ms,
            message_timestamp_after_max_ms=config.log_message_timestamp_after_max_ms,
            local_retention_bytes=config.log_local_retention_bytes,
            local_retention_ms=config.log_local_retention_ms,
            preallocate=config.log_preallocate,
            unclean_leader_election_enable=config.unclean_leader_election_enable,
            cleanup_policy=",".join(config.log_cleanup_policy),
            delete_retention_ms=config.log_cleaner_delete_retention_ms,
            min_cleanable_dirty_ratio=config.log_cleaner_min_cleanable_ratio,
            min_compaction_lag_ms=config.log_cleaner_min_compaction_lag_ms,
            max_compaction_lag_ms=config.log_cleaner_max_compaction_lag_ms,
        )
        return base.with_overrides(overrides or {})

    @property
    def init_file_size(self) -> int:
        """Length a new segment's ``.log`` file is created with (bytes): ``segment.bytes`` when
        ``preallocate``, else 0 (Kafka's ``LogConfig.initFileSize``)."""
        return self.segment_bytes if self.preallocate else 0

    def with_overrides(self, overrides: Mapping[str, Any]) -> LogConfig:
        """Return a copy with topic config overrides applied.

        Raises:
            ValueError: (``ConfigError``) unknown name or invalid value, naming the config.
        """
        changes: dict[str, Any] = {}
        for name, raw in overrides.items():
            value = parse_topic_config(name, raw)
            key = TOPIC_CONFIG_DEFS[name]
            if key.type == "list":
                value = ",".join(value)
            changes[key.attr] = value
        return replace(self, **changes) if changes else self

    def to_topic_configs(self) -> dict[str, str]:
        """Render as ``{topic config name: string value}`` (DescribeConfigs-style)."""
        return {name: key.render(getattr(self, key.attr)) for name, key in TOPIC_CONFIG_DEFS.items()}

