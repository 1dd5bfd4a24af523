"""LogConfig: the effective configuration of one partition's log, broker defaults plus topic overrides.

Owns: ``LogConfig`` (one field per topic config of ``kafkette.common.topic_config``,
snake_case, with its type and default derived from that table) and how it is built from the
broker's properties (``from_broker``: each topic config's broker synonyms as the table names
them, e.g. ``log.segment.bytes`` for ``segment.bytes``).  Does
not own the topic config table (``kafkette.common.topic_config``, shared with the
controller) or the broker properties (``kafkette.broker.config``).

Kafka concept: ``LogConfig`` (storage module).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, make_dataclass, replace
from typing import Any

from kafkette.broker.config import KafkaConfig
from kafkette.common.config_def import ConfigKey
from kafkette.common.topic_config import TOPIC_CONFIG_DEFS, parse_topic_config

_FIELD_TYPES: dict[str, type] = {
    "short": int,
    "int": int,
    "long": int,
    "double": float,
    "boolean": bool,
    "string": str,
    "list": str,
}
"""The Python type of a ``LogConfig`` field by its topic config's ``ConfigKey.type`` (lists are
comma-joined strings)."""


def field_value(key: ConfigKey, value: Any) -> Any:
    """A typed topic config value as its ``LogConfig`` field holds it: a list comma-joined
    (``cleanup.policy``: ``"compact,delete"``), anything else as it is.

    Args:
        key: the topic config.
        value: its typed value (``key.parse`` of a raw value, or its default).

    Returns:
        The field value.
    """
    return ",".join(value) if key.type == "list" else value


_TopicConfigFields = make_dataclass(
    "_TopicConfigFields",
    [
        (key.attr, _FIELD_TYPES[key.type], field(default=field_value(key, key.default)))
        for key in TOPIC_CONFIG_DEFS.values()
    ],
    frozen=True,
    slots=True,
)
"""One field per entry of ``TOPIC_CONFIG_DEFS`` (dotted name with underscores, e.g.
``segment_bytes``), its type and Kafka's default taken from the entry: the table is the one
declaration (Kafka's ``LogConfig`` defines its fields from its ``ConfigDef``)."""
_TopicConfigFields.__module__ = __name__


@dataclass(frozen=True, slots=True)
class LogConfig(_TopicConfigFields):
    """The effective configuration of one partition's log (immutable; replace to change).

    One attribute per entry of ``TOPIC_CONFIG_DEFS`` (name with dots as underscores,
    ``segment_bytes``), defaulting to the entry's default (Kafka's).  ``cleanup_policy`` and
    the throttled replica lists are comma-joined strings (read by the replication throttles,
    ``ReplicationQuotaManager``).  The tiered storage settings (no tiered storage:
    ``remote.storage.enable=true`` is refused) are accepted, stored and described as in Kafka
    but not acted on.
    """

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
        object.__setattr__(
            self,
            "max_segment_ms",
            min(self.max_compaction_lag_ms, self.segment_ms)
            if compacted and self.max_compaction_lag_ms > 0
            else self.segment_ms,
        )

    @classmethod
    def from_broker(cls, config: KafkaConfig, overrides: Mapping[str, Any] | None = None) -> LogConfig:
        """Build a topic's log config from broker defaults plus topic overrides.

        Each field starts from its topic config's broker synonyms (``KafkaConfig.topic_config_default``:
        ``log.segment.bytes`` for ``segment.bytes``, ``log.roll.hours`` as ms for ``segment.ms``),
        the synonyms named once in ``TOPIC_CONFIG_DEFS``.

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
            **{
                key.attr: field_value(key, config.topic_config_default(name))
                for name, key in TOPIC_CONFIG_DEFS.items()
            }
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
            value = parse_topic_config(name, raw)  # first: it names an unknown config
            key = TOPIC_CONFIG_DEFS[name]
            changes[key.attr] = field_value(key, value)
        return replace(self, **changes) if changes else self

    def to_topic_configs(self) -> dict[str, str]:
        """Render as ``{topic config name: string value}`` (DescribeConfigs-style)."""
        return {name: key.render(getattr(self, key.attr)) for name, key in TOPIC_CONFIG_DEFS.items()}
