"""Config resources for the AdminClient: what to describe or alter, and what comes back.

Owns: ``ConfigResourceType`` (Kafka's numbers: TOPIC = 2, BROKER = 4),
``ConfigResource`` (a hashable ``(type, name)``), ``ConfigSource``, ``ConfigEntry`` (one
described config), ``AlterConfigOpType`` / ``AlterConfigOp`` (one incremental change),
``normalize_alter_ops`` (the accepted shapes of ``AdminClient.alter_configs``) and the
request builders and response readers of DescribeConfigs / IncrementalAlterConfigs.
Does not own routing or retries (``kafkette.client.admin``).

Kafka concept: ``org.apache.kafka.common.config.ConfigResource``,
``org.apache.kafka.clients.admin.ConfigEntry`` and ``AlterConfigOp`` (KIP-133, KIP-339);
the resource shape of kafka-python's / aiokafka's ``ConfigResource``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from kafkette.protocol.apis.configs import (
    AlterableConfig,
    AlterConfigsResource,
    DescribeConfigsResource,
    DescribeConfigsResult,
)
from kafkette.protocol.errors import Errors, KafkaError, error_class


class ConfigResourceType(IntEnum):
    """Kind of resource whose configs are described or altered (wire values)."""

    TOPIC = 2
    BROKER = 4
    GROUP = 32  # KIP-848's group configs (consumer.session.timeout.ms ...), by group id

    @classmethod
    def parse(cls, value: ConfigResourceType | int | str) -> ConfigResourceType:
        """Accept the enum, its wire number, or a name (``"topic"``, ``"topics"``, ``"BROKER"``...).

        Raises:
            ValueError: anything else.
        """
        if isinstance(value, cls):
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            try:
                return cls(value)
            except ValueError:
                raise ValueError(
                    f"Unknown config resource type {value}; expected 2 (TOPIC), 4 (BROKER) or 32 (GROUP)"
                ) from None
        if isinstance(value, str):
            name = value.strip().upper()
            name = name[:-1] if name.endswith("S") else name
            if name in cls.__members__:
                return cls[name]
        raise ValueError(f"Unknown config resource type {value!r}; expected 'topic', 'broker' or 'group'")


@dataclass(frozen=True)
class ConfigResource:
    """A topic, a broker or a group whose configs are described or altered.

    Args:
        resource_type: ``ConfigResourceType`` (or ``"topic"``/``"broker"``/``"group"``, or 2/4/32).
        name: the topic name, the broker id (an int is turned into its string) or the group id.

    Raises:
        ValueError: unknown type, or an empty name (or a non-numeric broker name).
    """

    resource_type: ConfigResourceType
    name: str

    def __init__(self, resource_type: ConfigResourceType | int | str, name: str | int) -> None:
        kind = ConfigResourceType.parse(resource_type)
        if isinstance(name, bool) or not isinstance(name, (str, int)):
            raise TypeError(
                f"ConfigResource name must be a str (or a broker id int), not {type(name).__name__}"
            )
        text = str(name).strip()
        if not text:
            raise ValueError("ConfigResource name must not be empty")
        if kind is ConfigResourceType.BROKER and not text.isdigit():
            raise ValueError(f"Broker config resource name must be a broker id, got {text!r}")
        object.__setattr__(self, "resource_type", kind)
        object.__setattr__(self, "name", text)

    def __repr__(self) -> str:
        return f"ConfigResource({self.resource_type.name}, {self.name!r})"


class ConfigSource(IntEnum):
    """Where a described config's value comes from (wire values of DescribeConfigs)."""

    UNKNOWN = 0
    DYNAMIC_TOPIC_CONFIG = 1
    DYNAMIC_BROKER_CONFIG = 2
    DYNAMIC_DEFAULT_BROKER_CONFIG = 3
    STATIC_BROKER_CONFIG = 4
    DEFAULT_CONFIG = 5
    DYNAMIC_BROKER_LOGGER_CONFIG = 6
    CLIENT_METRICS_CONFIG = 7
    GROUP_CONFIG = 8  # a group's override (KIP-848)


@dataclass(frozen=True)
class ConfigEntry:
    """One described config.

    Attributes:
        name: Kafka's dotted name (``min.insync.replicas``).
        value: its value as a string, or None (unset / sensitive).
        source: where it comes from; ``is_default`` when ``DEFAULT_CONFIG``.
        read_only: cannot be altered at run time.
        is_sensitive: the value is hidden.
    """

    name: str
    value: str | None
    source: ConfigSource = ConfigSource.DEFAULT_CONFIG
    read_only: bool = False
    is_sensitive: bool = False

    @property
    def is_default(self) -> bool:
        return self.source == ConfigSource.DEFAULT_CONFIG


class AlterConfigOpType(IntEnum):
    """IncrementalAlterConfigs operations (wire values)."""

    SET = 0
    DELETE = 1
    APPEND = 2
    SUBTRACT = 3


@dataclass(frozen=True)
class AlterConfigOp:
    """One incremental change: SET ``name`` to ``value``, DELETE the override, APPEND or
    SUBTRACT list items.

    Raises:
        ValueError: an empty name, or SET/APPEND/SUBTRACT without a value.
    """

    name: str
    value: str | None = None
    op_type: AlterConfigOpType = AlterConfigOpType.SET

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError("AlterConfigOp name must be a non-empty string")
        object.__setattr__(self, "op_type", AlterConfigOpType(_op_type(self.op_type)))
        if self.value is not None and not isinstance(self.value, str):
            object.__setattr__(self, "value", _config_text(self.value))
        if self.op_type != AlterConfigOpType.DELETE and self.value is None:
            raise ValueError(f"AlterConfigOp {self.op_type.name} of {self.name!r} needs a value")


def _op_type(op: Any) -> AlterConfigOpType:
    if isinstance(op, AlterConfigOpType):
        return op
    if isinstance(op, str) and op.strip().upper() in AlterConfigOpType.__members__:
        return AlterConfigOpType[op.strip().upper()]
    if isinstance(op, int) and not isinstance(op, bool):
        try:
            return AlterConfigOpType(op)
        except ValueError:
            pass
    raise ValueError(f"Unknown config operation {op!r}; expected SET, DELETE, APPEND or SUBTRACT")


def _config_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def normalize_alter_ops(changes: Any) -> list[AlterConfigOp]:
    """Turn the accepted shapes of one resource's changes into ``AlterConfigOp`` s.

    Accepted: ``{name: value}`` (SET; a None value DELETEs the override), or an
    iterable of ``AlterConfigOp`` or ``(name, op, value)`` triples (op a name such as
    ``"set"``/``"delete"`` or an ``AlterConfigOpType``).

    Raises:
        TypeError: another shape.
        ValueError: an empty change list, a bad operation, or a name given twice.
    """
    ops: list[AlterConfigOp] = []
    if isinstance(changes, Mapping):
        for name, value in changes.items():
            if value is None:
                ops.append(AlterConfigOp(name, None, AlterConfigOpType.DELETE))
            else:
                ops.append(AlterConfigOp(name, _config_text(value), AlterConfigOpType.SET))
    elif isinstance(changes, Iterable) and not isinstance(changes, (str, bytes)):
        for item in changes:
            if isinstance(item, AlterConfigOp):
                ops.append(item)
            elif isinstance(item, (tuple, list)) and len(item) == 3:
                name, op, value = item
                ops.append(AlterConfigOp(name, None if value is None else _config_text(value), _op_type(op)))
            else:
                raise TypeError(
                    f"config change {item!r} must be an AlterConfigOp or a (name, op, value) triple"
                )
    else:
        raise TypeError("config changes must be {name: value} or a list of (name, op, value)")
    if not ops:
        raise ValueError("no config changes given")
    names = [op.name for op in ops]
    duplicate = next((n for n in names if names.count(n) > 1), None)
    if duplicate is not None:
        raise ValueError(f"config {duplicate!r} is changed more than once")
    return ops


def describe_resource(
    resource: ConfigResource, config_names: Iterable[str] | None
) -> DescribeConfigsResource:
    """The DescribeConfigs request entry of ``resource`` (None names = every config)."""
    return DescribeConfigsResource(
        resource_type=int(resource.resource_type),
        resource_name=resource.name,
        configuration_keys=None if config_names is None else list(config_names),
    )


def alter_resource(resource: ConfigResource, ops: list[AlterConfigOp]) -> AlterConfigsResource:
    """The IncrementalAlterConfigs request entry of ``resource``."""
    return AlterConfigsResource(
        resource_type=int(resource.resource_type),
        resource_name=resource.name,
        configs=[
            AlterableConfig(name=op.name, config_operation=int(op.op_type), value=op.value) for op in ops
        ],
    )


def resource_error(code: int, message: str | None, resource: ConfigResource) -> KafkaError | None:
    """The exception for a per-resource error code (None for NONE), server message first."""
    if code == Errors.NONE:
        return None
    cls = error_class(code)
    kind = resource.resource_type.name.lower()
    return cls(message) if message else cls(f"{kind.capitalize()} '{resource.name}': {cls.message}")


def read_described(result: DescribeConfigsResult) -> dict[str, ConfigEntry]:
    """``{name: ConfigEntry}`` of one DescribeConfigs result, sorted by name."""
    entries = {}
    for entry in result.configs:
        try:
            source = ConfigSource(entry.config_source)
        except ValueError:
            source = ConfigSource.UNKNOWN
        entries[entry.name] = ConfigEntry(
            entry.name, entry.value, source, bool(entry.read_only), bool(entry.is_sensitive)
        )
    return dict(sorted(entries.items()))
