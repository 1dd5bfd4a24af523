"""ConfigDef: how a Kafka configuration is declared, parsed and validated.

Owns: ``ConfigKey`` (one property: dotted name, type, default, doc, validator and the
broker properties a topic config overrides), the value types (Java's: ``int`` is 32-bit,
``long`` 64-bit, ``double``, ``boolean``, ``string``, ``list`` comma-separated), the
validators (``at_least``, ``in_range``, ``one_of``, ``non_empty_list_of``) and
``ConfigError``.  The broker's properties (``kafkette.broker.config``) and the topic
configs (``kafkette.common.topic_config``) are both tables of ``ConfigKey``; the broker
and the controller read them, neither owns the other's.  Does not own any table.

Kafka concept: ``org.apache.kafka.common.config.ConfigDef`` (its ``Type``, ``Range``,
``ValidString``, ``ValidList`` and their error messages); ``render_properties`` writes a
``server.properties`` text.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import javaproperties

LONG_MAX = 2**63 - 1
LONG_MIN = -(2**63)
INT_MAX = 2**31 - 1
INT_MIN = -(2**31)


class ConfigError(ValueError):
    """A configuration value is missing, unknown or invalid; the message names the property."""


def _parse_integer(raw: Any, lo: int, hi: int, kind: str, type_name: str) -> int:
    """An integer config value; a string that is not one in range is "Not a number of type INT"
    (Kafka's ``ConfigDef.parseType`` wording for a string, ``type_name`` its ConfigDef type)."""
    if isinstance(raw, bool):
        raise ValueError(f"Expected value to be a {kind} number")
    if isinstance(raw, int):
        value = raw
    else:
        try:
            value = int(str(raw).strip())
        except ValueError:
            raise ValueError(f"Not a number of type {type_name}") from None
        if not lo <= value <= hi:
            raise ValueError(f"Not a number of type {type_name}")
    if not lo <= value <= hi:
        raise ValueError(f"Expected value to be a {kind} number (between {lo} and {hi})")
    return value


def _parse_double(raw: Any) -> float:
    if isinstance(raw, bool):
        raise ValueError("Expected value to be a double")
    try:
        value = float(raw) if isinstance(raw, (int, float)) else float(str(raw).strip())
    except ValueError:
        raise ValueError("Not a number of type DOUBLE") from None
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


PARSERS: dict[str, Callable[[Any], Any]] = {
    "short": lambda raw: _parse_integer(raw, -(1 << 15), (1 << 15) - 1, "16-bit integer", "SHORT"),
    "int": lambda raw: _parse_integer(raw, INT_MIN, INT_MAX, "32-bit integer", "INT"),
    "long": lambda raw: _parse_integer(raw, LONG_MIN, LONG_MAX, "64-bit integer", "LONG"),
    "double": _parse_double,
    "boolean": _parse_boolean,
    "string": lambda raw: str(raw).strip(),
    "list": _parse_list,
}
"""Kafka's ``ConfigDef.Type`` by name: raw (string or typed) value -> typed value."""

CONFIG_TYPE_IDS: dict[str, int] = {
    "boolean": 1,
    "string": 2,
    "int": 3,
    "short": 4,
    "long": 5,
    "double": 6,
    "list": 7,
}
"""The ``config_type`` of DescribeConfigs answers (KIP-569, Kafka's ``ConfigType``) by ``ConfigKey.type``;
0 is UNKNOWN."""


@dataclass(frozen=True)
class ConfigKey:
    """One configuration property (Kafka's ``ConfigDef.ConfigKey``).

    Attributes:
        name: dotted Kafka name (``log.segment.bytes``, ``segment.bytes``).
        type: a key of ``PARSERS``: ``int``, ``long``, ``double``, ``boolean``,
            ``string`` or ``list``.
        default: Kafka's default, typed; None means "no default" (unset, or required
            where the table's owner says so).
        doc: one line, with units.
        validator: raises ValueError for a value outside the valid range or values.
        synonyms: for a topic config, the broker properties it overrides, the first one
            present wins (``segment.ms``: ``log.roll.ms``, ``log.roll.hours``).
    """

    name: str
    type: str
    default: Any
    doc: str
    validator: Callable[[Any], None] | None = None
    synonyms: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.type not in PARSERS:
            raise ValueError(f"Unknown config type {self.type!r} for {self.name}")

    @property
    def attr(self) -> str:
        """The attribute name: the dotted name with dots as underscores."""
        return self.name.replace(".", "_")

    def parse(self, raw: Any) -> Any:
        """Convert a raw (string or typed) value and validate it.

        Raises:
            ConfigError: (a ValueError) no value, the wrong type or an invalid value; the
                message names the property.
        """
        if raw is None:
            raise ConfigError(f"Invalid value null for configuration {self.name}: a value is required")
        try:
            value = PARSERS[self.type](raw)
            if self.validator is not None:
                self.validator(value)
        except (ValueError, TypeError) as exc:
            raise ConfigError(f"Invalid value {raw} for configuration {self.name}: {exc}") from None
        return value

    def render(self, value: Any) -> str:
        """String form of a typed value, as DescribeConfigs and server.properties show it."""
        if isinstance(value, bool):
            return str(value).lower()
        if isinstance(value, (list, tuple)):
            return ",".join(str(v) for v in value)
        return str(value)


def at_least(lo: float) -> Callable[[Any], None]:
    """Validator (Kafka's ``Range.atLeast``): value >= lo."""

    def check(value: Any) -> None:
        if value < lo:
            raise ValueError(f"Value must be at least {lo}")

    return check


def in_range(lo: float, hi: float) -> Callable[[Any], None]:
    """Validator (Kafka's ``Range.between``): lo <= value <= hi."""

    def check(value: Any) -> None:
        if value < lo:
            raise ValueError(f"Value must be at least {lo}")
        if value > hi:
            raise ValueError(f"Value must be no more than {hi}")

    return check


def one_of(*choices: str) -> Callable[[Any], None]:
    """Validator (Kafka's ``ValidString`` / ``ValidList``): the string, or every list item,
    is one of ``choices``."""

    def check(value: Any) -> None:
        for item in value if isinstance(value, list) else [value]:
            if item not in choices:
                raise ValueError(f"String must be one of: {', '.join(choices)}")

    return check


def non_empty_list_of(*choices: str) -> Callable[[Any], None]:
    """Validator (Kafka's ``ValidList.in`` with an empty list refused): at least one item,
    each one of ``choices``."""
    items_valid = one_of(*choices)

    def check(value: Any) -> None:
        if not value:
            raise ValueError("empty list")
        items_valid(value)

    return check


def table(keys: Sequence[ConfigKey]) -> dict[str, ConfigKey]:
    """``{name: key}`` for a table of keys.

    Raises:
        ValueError: two keys share a name.
    """
    by_name: dict[str, ConfigKey] = {}
    for key in keys:
        if key.name in by_name:
            raise ValueError(f"Config {key.name} is defined twice")
        by_name[key.name] = key
    return by_name


def render_properties(props: Mapping[str, Any]) -> str:
    """Render ``props`` as ``server.properties`` text (lists joined with commas)."""
    rendered = {
        k: ",".join(v) if isinstance(v, (list, tuple)) else str(v).lower() if isinstance(v, bool) else str(v)
        for k, v in props.items()
    }
    return javaproperties.dumps(rendered, timestamp=False)
