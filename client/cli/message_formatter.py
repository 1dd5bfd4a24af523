"""DefaultMessageFormatter: how ``kafkette consume`` prints a record, with Kafka's ``--property`` names.

Owns: the formatter's properties (``print.timestamp``, ``print.partition``,
``print.offset``, ``print.headers``, ``print.key``, ``print.value``, ``key.separator``,
``line.separator``, ``headers.separator``, ``null.literal``), their parsing and the
output line: the enabled fields in Kafka's order (timestamp as ``CreateTime:<ms>`` or
``LogAppendTime:<ms>``, ``Partition:<n>``, ``Offset:<n>``, headers as ``k:v`` joined by
the headers separator or ``NO_HEADERS``, key, value), ``key.separator`` between them,
``line.separator`` after the value.  Does not own reading records.

Kafka concept: ``org.apache.kafka.tools.consumer.DefaultMessageFormatter``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kafkette.client.consumer import ConsumerRecord

TIMESTAMP_TYPES = {0: "CreateTime", 1: "LogAppendTime"}
_FLAGS = ("print.timestamp", "print.partition", "print.offset", "print.headers", "print.key", "print.value")
_TEXTS = ("key.separator", "line.separator", "headers.separator", "null.literal")
PROPERTIES = (*_FLAGS, *_TEXTS)


def _unescape(text: str) -> bytes:
    """Kafka's separators arrive as typed on a command line: ``\\t`` and ``\\n`` mean tab and newline."""
    return text.replace("\\t", "\t").replace("\\n", "\n").replace("\\r", "\r").encode("utf-8")


@dataclass(frozen=True)
class DefaultMessageFormatter:
    """What to print per record; defaults are Kafka's (value only, tab, newline, ``null``)."""

    print_timestamp: bool = False
    print_partition: bool = False
    print_offset: bool = False
    print_headers: bool = False
    print_key: bool = False
    print_value: bool = True
    key_separator: bytes = b"\t"
    line_separator: bytes = b"\n"
    headers_separator: bytes = b","
    null_literal: bytes = b"null"

    @classmethod
    def from_properties(cls, properties: Mapping[str, str]) -> DefaultMessageFormatter:
        """Build from ``--property`` values.

        Raises:
            ValueError: an unknown property or a ``print.*`` value other than true/false.
        """
        settings: dict[str, object] = {}
        for name, raw in properties.items():
            if name not in PROPERTIES:
                raise ValueError(f"Unknown --property {name!r} (supported: {', '.join(PROPERTIES)})")
            if name in _FLAGS:
                if raw.strip().lower() not in ("true", "false"):
                    raise ValueError(f"--property {name} must be true or false, got {raw!r}")
                settings[name.replace(".", "_")] = raw.strip().lower() == "true"
            else:
                settings[name.replace(".", "_")] = _unescape(raw)
        return cls(**settings)  # type: ignore[arg-type]

    def format(self, record: ConsumerRecord) -> bytes:
        """The output of one record: its enabled fields, separated, then the line separator
        (nothing when every ``print.*`` is false, as in Kafka)."""
        fields: list[bytes] = []
        if self.print_timestamp:
            kind = TIMESTAMP_TYPES.get(record.timestamp_type)  # Kafka: NO_TIMESTAMP only without a type
            fields.append(f"{kind}:{record.timestamp}".encode() if kind else b"NO_TIMESTAMP")
        if self.print_partition:
            fields.append(f"Partition:{record.partition}".encode())
        if self.print_offset:
            fields.append(f"Offset:{record.offset}".encode())
        if self.print_headers:
            fields.append(
                self.headers_separator.join(
                    key.encode() + b":" + (self.null_literal if value is None else value)
                    for key, value in record.headers
                )
                if record.headers
                else b"NO_HEADERS"
            )
        if self.print_key:
            fields.append(self.null_literal if record.key is None else record.key)
        if self.print_value:
            fields.append(self.null_literal if record.value is None else record.value)
        return self.key_separator.join(fields) + self.line_separator if fields else b""
