"""Dynamic broker configs: broker properties changed at run time through
IncrementalAlterConfigs, and the describe view of every broker property.

Owns: the in-memory dynamic overrides of this broker (``{dotted name: string}``), the
effective ``KafkaConfig`` (``server.properties`` merged with the overrides, validated
by building a new ``KafkaConfig``), Kafka's rules of which configs may change at run
time and where (``DynamicBrokerConfig.validateConfigs``: read-only, per-broker and
cluster-wide configs, from ``kafka_dynamic_broker_configs``), the set of properties a
change acts on (``DYNAMIC_BROKER_CONFIGS``), and the callbacks (reconfigurables) told of each
change - the ReplicaManager re-applies broker-level log defaults to every local
partition, topic overrides still winning - and the listener reconfigurables that check an update
first (a TLS listener's ``SslFactory``: ``listener.name.<l>.ssl.keystore.*`` / ``ssl.truststore.*``
reload its certificate for new connections).  Does not own topic configs (the
controller) nor persistence: dynamic values live until the broker restarts.

Config sources, as Kafka reports them in DescribeConfigs: DYNAMIC_BROKER_CONFIG for
a run-time override, STATIC_BROKER_CONFIG for a value set in ``server.properties``,
DEFAULT_CONFIG otherwise.

Kafka concept: ``DynamicBrokerConfig`` / ``DynamicLogConfig`` (KIP-226, per-broker
dynamic log configs) and ``ConfigHelper.describeConfigs`` for BROKER resources.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from kafkette.broker.config import BROKER_CONFIGS, ConfigError, KafkaConfig, is_kafka_config
from kafkette.broker.group.group_coordinator_config import clamp_dynamic_configs
from kafkette.broker.kafka_broker_config_defaults import KAFKA_BROKER_CONFIG_DEFAULTS
from kafkette.broker.kafka_dynamic_broker_configs import (
    KAFKA_BROKER_CONFIG_TYPES,
    KAFKA_BROKER_UPDATE_MODES,
    KAFKA_CLUSTER_LEVEL_LISTENER_CONFIGS,
    KAFKA_DYNAMIC_SECURITY_CONFIGS,
)
from kafkette.common.config_def import CONFIG_TYPE_IDS
from kafkette.common.topic_config import TOPIC_CONFIG_DEFS
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
from kafkette.protocol.errors import InvalidConfigError, InvalidRequestError

logger = logging.getLogger(__name__)

_BROKER_KEYS = {key.name: key for key in BROKER_CONFIGS}
_BROKER_NAMES = frozenset(_BROKER_KEYS)
_LISTENER_CONFIG = re.compile(r"listener\.name\.[^.]*\.(.*)")
_NUMBER_TYPES = {"INT": int, "LONG": int, "SHORT": int, "DOUBLE": float}
_KAFKA_TYPE_IDS = {**CONFIG_TYPE_IDS, "class": 8, "password": 9}  # DescribeConfigs' config_type (KIP-569)

DYNAMIC_BROKER_CONFIGS: frozenset[str] = frozenset(
    key.synonyms[0] for key in TOPIC_CONFIG_DEFS.values() if key.synonyms and key.synonyms[0] in _BROKER_NAMES
) | {"leader.replication.throttled.rate", "follower.replication.throttled.rate"}
"""Broker properties a change at run time acts on in Kafkette: the first broker synonym of every
topic config (``log.retention.ms`` for ``retention.ms``, ``message.max.bytes`` for
``max.message.bytes``), the broker-level defaults every partition's log falls back to (Kafka's
``DynamicLogConfig.ReconfigurableConfigs``), and the replication throttles' rates (KIP-73).  The
other configs Kafka updates dynamically
(``KAFKA_BROKER_UPDATE_MODES``) are accepted, stored and described, and take effect at the next
start only if also put in ``server.properties``."""

Reconfigurable = Callable[[KafkaConfig], None]

INVALID_DYNAMIC_CONFIGURATION = "Invalid dynamic configuration"
"""Kafka's message of an update a listener reconfigurable refuses (``DynamicBrokerConfig``)."""


class ListenerReconfigurable(Protocol):
    """A listener's part that checks, then takes, every update of the broker's properties
    (Kafka's ``ListenerReconfigurable``: the listener's ``SslFactory``)."""

    def validate_reconfiguration(self, new_props: dict[str, Any]) -> object:
        """Check the update; raises ``ConfigError`` (the message says why) to refuse it."""

    def reconfigure(self, new_props: dict[str, Any]) -> bool:
        """Take the update (a no-op when nothing it uses changed); raises ``ConfigError``."""


def _listener_base(name: str) -> str | None:
    """``<config>`` of ``listener.name.<listener>.<config>``; None for a name without that prefix."""
    match = _LISTENER_CONFIG.fullmatch(name)
    return match.group(1) if match else None


def _check_value(name: str, value: str) -> None:
    """Parse ``value`` as Kafka's ConfigDef parses config ``name``'s type (and, for a config
    Kafkette uses, check its validator); unknown names pass.

    Raises:
        InvalidRequestError: "Invalid value <value> for configuration <name>: <why>".
    """
    kind = KAFKA_BROKER_CONFIG_TYPES.get(name)
    text = value.strip()
    why = None
    if kind in _NUMBER_TYPES:
        try:
            _NUMBER_TYPES[kind](text)
        except ValueError:
            why = f"Not a number of type {kind}"
    elif kind == "BOOLEAN" and text.lower() not in ("true", "false"):
        why = "Expected value to be either true or false"
    if why is not None:
        raise InvalidRequestError(f"Invalid value {value} for configuration {name}: {why}")
    key = _BROKER_KEYS.get(name)
    if key is not None:
        try:
            key.parse(value)
        except ConfigError as exc:
            raise InvalidRequestError(str(exc)) from None


def _check_dynamic_update(props: dict[str, str], cluster_default: bool) -> None:
    """Kafka's ``DynamicBrokerConfig.validateConfigs`` of the configs a request sets, in its order.

    Args:
        props: ``{name: new value}`` of the SET, APPEND and SUBTRACT operations.
        cluster_default: for the cluster-wide default resource (empty name).

    Raises:
        InvalidRequestError: with Kafka's message, naming the offending configs.
    """

    def refuse(names: list[str], message: str) -> None:
        if names:
            raise InvalidRequestError(f"{message}: [{', '.join(sorted(names))}]")

    refuse(
        [n for n in props if KAFKA_BROKER_UPDATE_MODES.get(n) == "read-only"],
        "Cannot update these configs dynamically",
    )
    refuse(
        [n for n in props if n in KAFKA_DYNAMIC_SECURITY_CONFIGS],
        "These security configs can be dynamically updated only per-listener using the listener prefix",
    )
    for name, value in props.items():
        _check_value(_listener_base(name) or name, value)
    if cluster_default:

        def per_broker(name: str) -> bool:
            base = _listener_base(name)
            if base is not None:
                return base not in KAFKA_CLUSTER_LEVEL_LISTENER_CONFIGS
            return KAFKA_BROKER_UPDATE_MODES.get(name) == "per-broker"

        refuse(
            [n for n in props if per_broker(n)],
            "Cannot update these configs at default cluster level, broker id must be specified",
        )


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
        self._listener_reconfigurables: list[ListenerReconfigurable] = []
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

    def add_listener_reconfigurable(self, reconfigurable: ListenerReconfigurable) -> None:
        """Register a listener's reconfigurable: it validates every update of a BROKER resource
        (refusing it with INVALID_REQUEST) and takes every applied one, even one that sets a value
        again (an SSL store file re-read when it was modified, as Kafka's
        ``reloadUpdatedFilesWithoutConfigChange``)."""
        self._listener_reconfigurables.append(reconfigurable)

    # ----------------------------------------------------------------- alter
    def incremental_alter(
        self,
        ops: Sequence[AlterableConfig],
        *,
        validate_only: bool = False,
        cluster_default: bool = False,
        replace_all: bool = False,
    ) -> None:
        """Apply one BROKER resource's IncrementalAlterConfigs operations, all or nothing, with
        Kafka's rules and messages (``ConfigAdminManager``, ``DynamicBrokerConfig.validateConfigs``).

        SET stores a value, DELETE reverts to the static value, APPEND and SUBTRACT change a LIST
        config.  Any config Kafka can update at run time is accepted (``per-broker`` and
        ``cluster-wide`` in ``KAFKA_BROKER_UPDATE_MODES``), and so is a name Kafka does not know
        (stored, as Kafka stores a custom config); a read-only one is refused.  A value is checked
        against the config's type (and, for a config Kafkette uses, its validator).  Kafkette acts
        at run time on ``DYNAMIC_BROKER_CONFIGS`` only; the others are stored and described.

        Args:
            ops: the resource's operations (name, ``config_operation``, value).
            validate_only: check without applying.
            cluster_default: the resource is the cluster-wide default (empty name): only checked,
                as Kafka checks it (per-broker configs are refused), never applied.
            replace_all: Kafka's AlterConfigs (API 33): the overrides become exactly the
                configs ``ops`` set, every other one deleted.

        Raises:
            InvalidRequestError: a name listed twice, SET without a value, an unknown operation, a
                read-only config ("Cannot update these configs dynamically"), an SSL config without
                a listener prefix, a per-broker config at the cluster-wide default, or an invalid value.
            InvalidConfigError: APPEND/SUBTRACT of a config that is unknown or not a list.
        """
        names = [op.name for op in ops]
        if len(set(names)) != len(names):
            raise InvalidRequestError("Error due to duplicate config keys")
        dynamic = {} if replace_all else dict(self._dynamic)
        for op in ops:
            if op.config_operation not in (OP_SET, OP_DELETE, OP_APPEND, OP_SUBTRACT):
                raise InvalidRequestError(f"Unknown operations type {op.config_operation}")
            if op.config_operation != OP_DELETE and op.value is None:
                raise InvalidRequestError(f"Null value not supported for : {op.name}")
        requested: dict[str, str] = {}  # checked as Kafka checks them: the values of the request
        for op in ops:
            if op.config_operation == OP_DELETE:
                dynamic.pop(op.name, None)
                continue
            requested[op.name] = op.value
            if op.config_operation == OP_SET:
                dynamic[op.name] = op.value
                continue
            verb = "append" if op.config_operation == OP_APPEND else "subtract"
            kind = KAFKA_BROKER_CONFIG_TYPES.get(op.name)
            if kind is None:
                raise InvalidConfigError(f"Unknown config name: {op.name}")
            if kind != "LIST":
                raise InvalidConfigError(f"Config value {verb} is not allowed for config key: {op.name}")
            items = [v for v in self._current_string(op.name).split(",") if v]
            change = [v for v in op.value.split(",") if v]
            if op.config_operation == OP_APPEND:
                items += [v for v in change if v not in items]
            else:
                items = [v for v in items if v not in change]
            dynamic[op.name] = ",".join(items)
        _check_dynamic_update(requested, cluster_default)
        kafka_names = {k: v for k, v in dynamic.items() if k in _BROKER_NAMES or is_kafka_config(k)}
        try:
            new_config = KafkaConfig(clamp_dynamic_configs({**self.static_config.originals, **kafka_names}))
        except ConfigError as exc:
            raise InvalidRequestError(str(exc)) from None
        if cluster_default:
            return
        self._reconfigure_listeners(new_config, validate_only)
        if validate_only:
            return
        changed = dynamic != self._dynamic
        self._dynamic = dynamic
        self.current_config = new_config
        if changed:
            logger.info("%s Dynamic broker configs now %s", self._prefix, dynamic)
            for callback in self._reconfigurables:
                callback(new_config)

    def _reconfigure_listeners(self, new_config: KafkaConfig, validate_only: bool) -> None:
        """Validate every listener reconfigurable against ``new_config``, then (unless
        ``validate_only``) reconfigure each.

        Raises:
            InvalidRequestError: "Invalid dynamic configuration: <why>" (Kafka's message, with the
                reconfigurable's reason after it); nothing was changed.
        """
        try:
            for reconfigurable in self._listener_reconfigurables:
                reconfigurable.validate_reconfiguration(new_config.originals)
            if not validate_only:
                for reconfigurable in self._listener_reconfigurables:
                    reconfigurable.reconfigure(new_config.originals)
        except ConfigError as exc:
            logger.info("%s %s: %s", self._prefix, INVALID_DYNAMIC_CONFIGURATION, exc)
            raise InvalidRequestError(f"{INVALID_DYNAMIC_CONFIGURATION}: {exc}") from None

    def _current_string(self, name: str) -> str:
        """The value of ``name`` now in force, as a string ("" when unset)."""
        if name in self._dynamic:
            return self._dynamic[name]
        key = _BROKER_KEYS.get(name)
        if key is not None:
            return render_config_value(getattr(self.current_config, key.attr)) or ""
        return str(self.static_config.originals.get(name, ""))

    # -------------------------------------------------------------- describe
    def source_of(self, name: str) -> int:
        """DescribeConfigs source of property ``name`` (DYNAMIC/STATIC_BROKER_CONFIG, DEFAULT_CONFIG)."""
        if name in self._dynamic:
            return SOURCE_DYNAMIC_BROKER_CONFIG
        if name in self.static_config.originals:
            return SOURCE_STATIC_BROKER_CONFIG
        return SOURCE_DEFAULT_CONFIG

    def describe(
        self, names: Sequence[str] | None = None, include_synonyms: bool = False
    ) -> list[DescribeConfigsResourceResult]:
        """Describe every broker property (or only ``names``; unknown names are left out).

        Args:
            names: the ``configuration_keys`` of the request (None: all).
            include_synonyms: list, per property, each source that sets it, most specific
                first: DYNAMIC_BROKER_CONFIG, STATIC_BROKER_CONFIG, then Kafka's default
                (DEFAULT_CONFIG, when it has one), as Kafka's ``DescribeConfigs`` does.

        Returns:
            One entry per property with its current value, source, and ``read_only`` as
            Kafka's update mode says (False for a per-broker or cluster-wide config); then
            one entry per other broker config Kafka lists (``KAFKA_BROKER_CONFIG_DEFAULTS``,
            the ones Kafkette does not use itself: their override, ``server.properties`` value
            or Kafka's default; a PASSWORD sensitive, its value null); then one entry per stored
            override of a name Kafka does not know (value null, read-only and sensitive, as
            Kafka shows a custom config) or of a listener's form of a config
            (``listener.name.<l>.ssl.keystore.location``: its value shown unless a PASSWORD).
        """
        wanted = None if names is None else set(names)
        results = []
        for key in BROKER_CONFIGS:
            if wanted is not None and key.name not in wanted:
                continue
            results.append(
                DescribeConfigsResourceResult(
                    name=key.name,
                    value=render_config_value(getattr(self.current_config, key.attr)),
                    read_only=KAFKA_BROKER_UPDATE_MODES.get(key.name, "read-only") == "read-only",
                    config_source=self.source_of(key.name),
                    is_sensitive=False,
                    config_type=CONFIG_TYPE_IDS.get(key.type, 0),
                    synonyms=self._synonyms(key) if include_synonyms else [],
                )
            )
        for name, default in KAFKA_BROKER_CONFIG_DEFAULTS.items():
            if name in _BROKER_NAMES or (wanted is not None and name not in wanted):
                continue
            results.append(self._describe_kafka_config(name, default, include_synonyms))
        for name, value in self._dynamic.items():
            if (
                name in _BROKER_NAMES
                or name in KAFKA_BROKER_CONFIG_DEFAULTS
                or (wanted is not None and name not in wanted)
            ):
                continue
            known = name in KAFKA_BROKER_CONFIG_TYPES
            # a listener's override (listener.name.<l>.ssl.keystore.location) has its config's type
            kind = KAFKA_BROKER_CONFIG_TYPES.get(name) or KAFKA_BROKER_CONFIG_TYPES.get(
                _listener_base(name) or ""
            )
            sensitive = kind is None or kind == "PASSWORD"
            shown = None if sensitive else value
            results.append(
                DescribeConfigsResourceResult(
                    name=name,
                    value=shown,
                    read_only=not known,
                    config_source=SOURCE_DYNAMIC_BROKER_CONFIG,
                    is_sensitive=sensitive,
                    config_type=CONFIG_TYPE_IDS.get((kind or "").lower(), 0),
                    synonyms=[
                        DescribeConfigsSynonym(name=name, value=shown, source=SOURCE_DYNAMIC_BROKER_CONFIG)
                    ]
                    if include_synonyms
                    else [],
                )
            )
        return results

    def _describe_kafka_config(
        self, name: str, default: str | None, include_synonyms: bool
    ) -> DescribeConfigsResourceResult:
        """One broker config Kafka lists and Kafkette does not use itself: its synonyms, most
        specific first, are the override (DYNAMIC_BROKER_CONFIG), the ``server.properties``
        value (STATIC_BROKER_CONFIG) and Kafka's default (DEFAULT_CONFIG, when it has one); the
        first gives the value and the source."""
        kind = KAFKA_BROKER_CONFIG_TYPES.get(name, "")
        sensitive = kind == "PASSWORD"
        synonyms = []
        if name in self._dynamic:
            synonyms.append(
                DescribeConfigsSynonym(
                    name=name,
                    value=None if sensitive else self._dynamic[name],
                    source=SOURCE_DYNAMIC_BROKER_CONFIG,
                )
            )
        if name in self.static_config.originals:
            static = self.static_config.originals[name]
            synonyms.append(
                DescribeConfigsSynonym(
                    name=name,
                    value=None if sensitive else render_config_value(static),
                    source=SOURCE_STATIC_BROKER_CONFIG,
                )
            )
        if default is not None:
            synonyms.append(DescribeConfigsSynonym(name=name, value=default, source=SOURCE_DEFAULT_CONFIG))
        first = synonyms[0] if synonyms else None
        return DescribeConfigsResourceResult(
            name=name,
            value=first.value if first is not None else None,
            read_only=KAFKA_BROKER_UPDATE_MODES.get(name, "read-only") == "read-only",
            config_source=first.source if first is not None else SOURCE_DEFAULT_CONFIG,
            is_sensitive=sensitive,
            config_type=_KAFKA_TYPE_IDS.get(kind.lower(), 0),
            synonyms=synonyms if include_synonyms else [],
        )

    def _synonyms(self, key: Any) -> list[DescribeConfigsSynonym]:
        out = []
        if key.name in self._dynamic:
            out.append(
                DescribeConfigsSynonym(
                    name=key.name, value=self._dynamic[key.name], source=SOURCE_DYNAMIC_BROKER_CONFIG
                )
            )
        if key.name in self.static_config.originals:
            out.append(
                DescribeConfigsSynonym(
                    name=key.name,
                    value=render_config_value(getattr(self.static_config, key.attr)),
                    source=SOURCE_STATIC_BROKER_CONFIG,
                )
            )
        if key.default is not None:
            out.append(
                DescribeConfigsSynonym(
                    name=key.name, value=render_config_value(key.default), source=SOURCE_DEFAULT_CONFIG
                )
            )
        return out
