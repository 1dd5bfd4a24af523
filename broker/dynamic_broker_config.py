"""Dynamic broker configs: broker properties changed at run time through
IncrementalAlterConfigs, and the describe view of every broker property.

Owns: the in-memory dynamic overrides of this broker (``{dotted name: string}``), the
effective ``KafkaConfig`` (``server.properties`` merged with the overrides, validated
by building a new ``KafkaConfig``), the set of properties that may change at run
time (``DYNAMIC_BROKER_CONFIGS``), and the callbacks (reconfigurables) told of each
change - the ReplicaManager re-applies broker-level log defaults to every local
partition, topic overrides still winning.  Does not own topic configs (the
controller) nor persistence: dynamic values live until the broker restarts.

Config sources, as Kafka reports them in DescribeConfigs: DYNAMIC_BROKER_CONFIG for
a run-time override, STATIC_BROKER_CONFIG for a value set in ``server.properties``,
DEFAULT_CONFIG otherwise.

Kafka concept: ``DynamicBrokerConfig`` / ``DynamicLogConfig`` (KIP-226, per-broker
dynamic log configs) and ``ConfigHelper.describeConfigs`` for BROKER resources.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from kafkette.broker.config import BROKER_CONFIGS, ConfigError, KafkaConfig
from kafkette.client.config_def import CONFIG_TYPE_IDS
from kafkette.client.topic_config import TOPIC_CONFIG_DEFS
from kafkette.protocol.apis.configs import (
    OP_APPEND,
    OP_DELETE,
    OP_SET,
    OP_SUBTRACT,
    SOURCE_DEFAULT_CONFIG,
    SOURCE_DYNAMIC_BROKER_CONFIG,
    SOURCE_STATIC_BROKER_CONFIG,
    AlterableConfig,
    DescribeConfigsResourceResult,
    DescribeConfigsSynonym,
)
from kafkette.protocol.errors import InvalidConfigError, InvalidRequestError  # type: ignore[attr-defined]

logger = logging.getLogger(__name__)

_BROKER_NAMES = frozenset(key.name for key in BROKER_CONFIGS)

DYNAMIC_BROKER_CONFIGS: frozenset[str] = frozenset(
    key.synonyms[0] for key in TOPIC_CONFIG_DEFS.values() if key.synonyms and key.synonyms[0] in _BROKER_NAMES
)
"""Broker properties that IncrementalAlterConfigs may change at run time: the first broker
synonym of every topic config (``log.retention.ms`` for ``retention.ms``, ``message.max.bytes``
for ``max.message.bytes``), the broker-level defaults every partition's log falls back to
(Kafka's ``DynamicLogConfig.ReconfigurableConfigs``).  Every other property is read-only."""

Reconfigurable = Callable[[KafkaConfig], None]


def render_config_value(value: Any) -> str | None:
    """Render a typed property value as DescribeConfigs shows it.

    Returns:
        None for an unset value; ``"true"``/``"false"`` for booleans; comma-joined
        lists; ``str(value)`` otherwise.
    """
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)


class DynamicBrokerConfig:
    """The static broker config plus run-time overrides of the dynamic properties.

    Args:
        static_config: the config read from ``server.properties`` at start-up.
    """

    def __init__(self, static_config: KafkaConfig) -> None:
        self.static_config = static_config
        self.current_config = static_config
        self._dynamic: dict[str, str] = {}
        self._reconfigurables: list[Reconfigurable] = []
        self._prefix = f"[DynamicBrokerConfig id={static_config.node_id}]"

    @property
    def broker_id(self) -> int:
        return self.static_config.node_id

    @property
    def dynamic_configs(self) -> dict[str, str]:
        """``{dotted name: string value}`` of the overrides now in force (a copy)."""
        return dict(self._dynamic)

    def add_reconfigurable(self, callback: Reconfigurable) -> None:
        """Register ``callback(new_config)``, called after every applied change."""
        self._reconfigurables.append(callback)

    # ----------------------------------------------------------------- alter
    def incremental_alter(self, ops: Sequence[AlterableConfig], *, validate_only: bool = False) -> None:
        """Apply one BROKER resource's IncrementalAlterConfigs operations, all or nothing.

        SET stores a value (validated like ``server.properties``); DELETE reverts to the
        static value.  Only ``DYNAMIC_BROKER_CONFIGS`` may change; APPEND and SUBTRACT
        apply to list properties, and none of those is dynamic.

        Args:
            ops: the resource's operations (name, ``config_operation``, value).
            validate_only: check without applying.

        Raises:
            InvalidRequestError: a name listed twice, or SET without a value.
            InvalidConfigError: an unknown or non-dynamic property, APPEND/SUBTRACT,
                an unknown operation, or an invalid value (the message names the key).
        """
        known = {key.name for key in BROKER_CONFIGS}
        seen: set[str] = set()
        dynamic = dict(self._dynamic)
        for op in ops:
            if op.name in seen:
                raise InvalidRequestError(f"Error due to duplicate config keys: {op.name}")
            seen.add(op.name)
            if op.name not in known:
                raise InvalidConfigError(f"Unknown broker config {op.name}")
            if op.name not in DYNAMIC_BROKER_CONFIGS:
                raise InvalidConfigError(
                    f"Broker config {op.name} cannot be updated dynamically; "
                    f"set it in server.properties and restart the broker"
                )
            if op.config_operation == OP_SET:
                if op.value is None:
                    raise InvalidRequestError(f"Null value not supported for SET of {op.name}")
                dynamic[op.name] = op.value
            elif op.config_operation == OP_DELETE:
                dynamic.pop(op.name, None)
            elif op.config_operation in (OP_APPEND, OP_SUBTRACT):
                raise InvalidConfigError(f"Config {op.name} is not a list: APPEND and SUBTRACT do not apply")
            else:
                raise InvalidConfigError(f"Unknown config operation {op.config_operation} for {op.name}")
        try:
            new_config = KafkaConfig({**self.static_config.originals, **dynamic})
        except ConfigError as exc:
            raise InvalidConfigError(str(exc)) from None
        if validate_only:
            return
        changed = dynamic != self._dynamic
        self._dynamic = dynamic
        self.current_config = new_config
        if changed:
            logger.info("%s Dynamic broker configs now %s", self._prefix, dynamic)
            for callback in self._reconfigurables:
                callback(new_config)

    # -------------------------------------------------------------- describe
    def source_of(self, name: str) -> int:
        """DescribeConfigs source of property ``name`` (DYNAMIC/STATIC_BROKER_CONFIG, DEFAULT_CONFIG)."""
        if name in self._dynamic:
            return SOURCE_DYNAMIC_BROKER_CONFIG
        if name in self.static_config.originals:
            return SOURCE_STATIC_BROKER_CONFIG
        return SOURCE_DEFAULT_CONFIG

    def describe(self, names: Sequence[str] | None = None,
                 include_synonyms: bool = False) -> list[DescribeConfigsResourceResult]:
        """Describe every broker property (or only ``names``; unknown names are left out).

        Args:
            names: the ``configuration_keys`` of the request (None: all).
            include_synonyms: list, per property, each source that sets it, most specific
                first: DYNAMIC_BROKER_CONFIG, STATIC_BROKER_CONFIG, then Kafka's default
                (DEFAULT_CONFIG, when it has one), as Kafka's ``DescribeConfigs`` does.

        Returns:
            One entry per property with its current value, source, and ``read_only``
            False only for the dynamic properties.
        """
        wanted = None if names is None else set(names)
        results = []
        for key in BROKER_CONFIGS:
            if wanted is not None and key.name not in wanted:
                continue
            results.append(DescribeConfigsResourceResult(
                name=key.name,
                value=render_config_value(getattr(self.current_config, key.attr)),
                read_only=key.name not in DYNAMIC_BROKER_CONFIGS,
                config_source=self.source_of(key.name),
                is_sensitive=False,
                config_type=CONFIG_TYPE_IDS.get(key.type, 0),
                synonyms=self._synonyms(key) if include_synonyms else [],
            ))
        return results

    def _synonyms(self, key: Any) -> list[DescribeConfigsSynonym]:
        out = []
        if key.name in self._dynamic:
            out.append(DescribeConfigsSynonym(name=key.name, value=self._dynamic[key.name],
                                              source=SOURCE_DYNAMIC_BROKER_CONFIG))
        if key.name in self.static_config.originals:
            out.append(DescribeConfigsSynonym(name=key.name, value=render_config_value(
                getattr(self.static_config, key.attr)), source=SOURCE_STATIC_BROKER_CONFIG))
        if key.default is not None:
            out.append(DescribeConfigsSynonym(name=key.name, value=render_config_value(key.default),
                                              source=SOURCE_DEFAULT_CONFIG))
        return out
