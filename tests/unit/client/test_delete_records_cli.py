"""The offset JSON file of ``kafkette delete-records`` (Kafka's format)."""

from __future__ import annotations

import pytest

from kafkette.client.cli.delete_records import parse_offset_json
from kafkette.protocol.topic_partition import TopicPartition


def test_kafka_offset_json_is_parsed_into_topic_partitions():
    text = (
        '{"version": 1, "partitions": [{"topic": "t", "partition": 0, "offset": 30},'
        ' {"topic": "t", "partition": 1, "offset": -1}]}'
    )
    assert parse_offset_json(text) == {TopicPartition("t", 0): 30, TopicPartition("t", 1): -1}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not json", "not valid JSON"),
        ('{"version": 1}', '"partitions" list'),
        ('{"partitions": [{"partition": 0, "offset": 1}]}', '"topic"'),
        ('{"partitions": [{"topic": "t", "partition": -1, "offset": 1}]}', '"partition"'),
        ('{"partitions": [{"topic": "t", "partition": 0, "offset": -2}]}', '"offset"'),
        (
            '{"partitions": [{"topic": "t", "partition": 0, "offset": 1}, '
            '{"topic": "t", "partition": 0, "offset": 2}]}',
            "duplicate",
        ),
        ('{"partitions": []}', "no partition"),
    ],
)
def test_malformed_offset_json_is_a_clear_value_error(text, message):
    with pytest.raises(ValueError, match=message):
        parse_offset_json(text)
