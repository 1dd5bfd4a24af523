"""``kafkette consume``'s DefaultMessageFormatter prints what Kafka's prints for the same
``--property`` values (org.apache.kafka.tools.consumer.DefaultMessageFormatter.writeTo)."""

from __future__ import annotations

from kafkette.client.cli.message_formatter import DefaultMessageFormatter
from kafkette.client.consumer import ConsumerRecord

EVERY_FIELD = {
    "print.timestamp": "true",
    "print.partition": "true",
    "print.offset": "true",
    "print.headers": "true",
    "print.key": "true",
}


def _record(**fields) -> ConsumerRecord:
    values = dict(
        topic="t",
        partition=0,
        offset=41,
        timestamp=1700000000123,
        timestamp_type=1,
        key=b"id-1",
        value=b"hello",
        headers=[("trace", b"abc")],
    )
    values.update(fields)
    return ConsumerRecord(**values)


def test_timestamp_is_its_type_and_value_and_no_timestamp_only_without_a_type():
    formatter = DefaultMessageFormatter.from_properties({"print.timestamp": "true"})
    assert formatter.format(_record()) == b"LogAppendTime:1700000000123\thello\n"
    assert formatter.format(_record(timestamp_type=0, timestamp=-1)) == b"CreateTime:-1\thello\n"
    assert formatter.format(_record(timestamp_type=-1, timestamp=-1)) == b"NO_TIMESTAMP\thello\n"


def test_the_last_field_ends_the_line_when_the_value_is_not_printed():
    formatter = DefaultMessageFormatter.from_properties({**EVERY_FIELD, "print.value": "false"})
    assert (
        formatter.format(_record())
        == b"LogAppendTime:1700000000123\tPartition:0\tOffset:41\ttrace:abc\tid-1\n"
    )
    assert DefaultMessageFormatter.from_properties({"print.value": "false"}).format(_record()) == b""


def test_separators_and_the_null_literal_apply_to_keys_values_and_headers():
    formatter = DefaultMessageFormatter.from_properties(
        {
            "print.headers": "True ",
            "print.key": "TRUE",
            "key.separator": " | ",
            "headers.separator": ";",
            "line.separator": "\\r\\n",
            "null.literal": "<null>",
        }
    )
    record = _record(key=None, value=None, headers=[("a", b"1"), ("b", None)])
    assert formatter.format(record) == b"a:1;b:<null> | <null> | <null>\r\n"
    assert (
        DefaultMessageFormatter.from_properties({"print.key": "true", "key.separator": "\\t"}).format(
            _record()
        )
        == b"id-1\thello\n"
    )
