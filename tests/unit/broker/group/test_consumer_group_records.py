"""The KIP-848 consumer group records of ``__consumer_offsets`` (types 3 to 8 and 16) in Kafka's
bytes: ``fixtures/consumer_group_records.json`` holds what Kafka 4.3.1's own classes and
``GroupCoordinatorRecordSerde`` write for the records below (``tests/peers/kafka/SerializeGroupRecords.java``
built them under the same names; ``tests/interop/test_kafka_consumer_group_records.py`` checks the
fixture is current).  Kafkette must write exactly those bytes, read them back to the same
records, and round-trip any record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kafkette.broker.group import consumer_group_records as cg
from kafkette.broker.group.coordinator_records import (
    CoordinatorRecordError,
    decode_consumer_group_value,
    decode_key,
    decode_value,
    encode_key,
    encode_value,
)

FIXTURE = Path(__file__).parent / "fixtures" / "consumer_group_records.json"
GROUP = "grüppe"
TOPIC_A = bytes.fromhex("0102030405060708090a0b0c0d0e0f10")
TOPIC_B = bytes.fromhex("f1e2d3c4b5a697887766554433221100")
MEMBER_KEY = cg.ConsumerGroupMemberMetadataKey(GROUP, "member-1")
TARGET_KEY = cg.ConsumerGroupTargetAssignmentMetadataKey(GROUP)
TARGET_MEMBER_KEY = cg.ConsumerGroupTargetAssignmentMemberKey(GROUP, "member-1")
CURRENT_KEY = cg.ConsumerGroupCurrentMemberAssignmentKey(GROUP, "member-1")
REGEX_KEY = cg.ConsumerGroupRegularExpressionKey(GROUP, "^orders-.*")

# The records SerializeGroupRecords.java builds, by name: (key, value or None for a tombstone)
RECORDS: dict[str, tuple[cg.ConsumerGroupKey, cg.ConsumerGroupValue | None]] = {
    "consumer_group_metadata": (cg.ConsumerGroupMetadataKey(GROUP), cg.ConsumerGroupMetadataValue(5)),
    "consumer_group_metadata_hash": (
        cg.ConsumerGroupMetadataKey(GROUP),
        cg.ConsumerGroupMetadataValue(7, metadata_hash=-1234567890123456789),
    ),
    "consumer_group_metadata_tombstone": (cg.ConsumerGroupMetadataKey(GROUP), None),
    "consumer_group_partition_metadata": (
        cg.ConsumerGroupPartitionMetadataKey(GROUP),
        cg.ConsumerGroupPartitionMetadataValue(
            (
                cg.TopicMetadata(
                    TOPIC_A,
                    "orders",
                    2,
                    (cg.PartitionMetadata(0, ("rack-a", "rack-b")), cg.PartitionMetadata(1, ())),
                ),
                cg.TopicMetadata(TOPIC_B, "payments", 1, ()),
            )
        ),
    ),
    "consumer_group_partition_metadata_tombstone": (cg.ConsumerGroupPartitionMetadataKey(GROUP), None),
    "consumer_group_member_metadata_consumer": (
        MEMBER_KEY,
        cg.ConsumerGroupMemberMetadataValue(
            instance_id=None,
            rack_id=None,
            client_id="client-1",
            client_host="/127.0.0.1",
            subscribed_topic_names=("orders", "payments"),
            subscribed_topic_regex=None,
            rebalance_timeout_ms=30000,
            server_assignor="uniform",
            classic_member_metadata=None,
        ),
    ),
    "consumer_group_member_metadata_classic": (
        MEMBER_KEY,
        cg.ConsumerGroupMemberMetadataValue(
            instance_id="instance-1",
            rack_id="rack-a",
            client_id="",
            client_host="host",
            subscribed_topic_names=(),
            subscribed_topic_regex="^orders-.*",
            rebalance_timeout_ms=60000,
            server_assignor=None,
            classic_member_metadata=cg.ClassicMemberMetadata(
                45000,
                (cg.ClassicProtocol("range", b"\x00\x01\x02\xff"), cg.ClassicProtocol("roundrobin", b"")),
            ),
        ),
    ),
    "consumer_group_member_metadata_empty_classic": (
        MEMBER_KEY,
        cg.ConsumerGroupMemberMetadataValue(
            client_id="c",
            client_host="h",
            subscribed_topic_names=("orders",),
            classic_member_metadata=cg.ClassicMemberMetadata(),
        ),
    ),
    "consumer_group_member_metadata_tombstone": (MEMBER_KEY, None),
    "consumer_group_target_assignment_metadata": (
        TARGET_KEY,
        cg.ConsumerGroupTargetAssignmentMetadataValue(3),
    ),
    "consumer_group_target_assignment_metadata_timestamp": (
        TARGET_KEY,
        cg.ConsumerGroupTargetAssignmentMetadataValue(4, assignment_timestamp=1700000000123),
    ),
    "consumer_group_target_assignment_metadata_tombstone": (TARGET_KEY, None),
    "consumer_group_target_assignment_member": (
        TARGET_MEMBER_KEY,
        cg.ConsumerGroupTargetAssignmentMemberValue(
            (cg.TargetTopicPartitions(TOPIC_A, (0, 2)), cg.TargetTopicPartitions(TOPIC_B, ()))
        ),
    ),
    "consumer_group_target_assignment_member_empty": (
        TARGET_MEMBER_KEY,
        cg.ConsumerGroupTargetAssignmentMemberValue(()),
    ),
    "consumer_group_target_assignment_member_tombstone": (TARGET_MEMBER_KEY, None),
    "consumer_group_current_member_assignment": (
        CURRENT_KEY,
        cg.ConsumerGroupCurrentMemberAssignmentValue(
            5,
            4,
            1,
            (
                cg.CurrentTopicPartitions(TOPIC_A, (0, 1), (5, 3)),
                cg.CurrentTopicPartitions(TOPIC_B, (7,), None),
            ),
            (cg.CurrentTopicPartitions(TOPIC_B, (2,), ()),),
        ),
    ),
    "consumer_group_current_member_assignment_empty": (
        CURRENT_KEY,
        cg.ConsumerGroupCurrentMemberAssignmentValue(-1, -1, 0, (), ()),
    ),
    "consumer_group_current_member_assignment_tombstone": (CURRENT_KEY, None),
    "consumer_group_regular_expression": (
        REGEX_KEY,
        cg.ConsumerGroupRegularExpressionValue(("orders-1", "orders-2"), 12, 1700000000456),
    ),
    "consumer_group_regular_expression_empty": (REGEX_KEY, cg.ConsumerGroupRegularExpressionValue((), -1, 0)),
    "consumer_group_regular_expression_tombstone": (REGEX_KEY, None),
}


def kafka_records() -> dict[str, dict]:
    return {r["name"]: r for r in json.loads(FIXTURE.read_text())["records"]}


def test_the_fixture_and_this_test_name_the_same_records():
    assert set(kafka_records()) == set(RECORDS)
    assert {r["type"] for r in kafka_records().values()} == set(cg.CONSUMER_GROUP_RECORD_TYPES)


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_kafkette_writes_kafkas_bytes(name):
    key, value = RECORDS[name]
    kafka = kafka_records()[name]
    assert kafka["type"] == key.RECORD_TYPE
    assert encode_key(key).hex() == kafka["key"]
    encoded = encode_value(value)
    assert (None if encoded is None else encoded.hex()) == kafka["value"]


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_kafkette_reads_kafkas_bytes(name):
    key, value = RECORDS[name]
    kafka = kafka_records()[name]
    decoded_key = decode_key(bytes.fromhex(kafka["key"]))
    assert decoded_key == key
    if kafka["value"] is not None:
        assert decode_value(decoded_key, bytes.fromhex(kafka["value"])) == value


def test_an_absent_classic_tag_reads_as_the_empty_struct_and_a_written_null_as_null():
    consumer = kafka_records()["consumer_group_member_metadata_consumer"]["value"]
    assert consumer.endswith("01000100")  # one tagged field: tag 0, size 1, null marker 0
    assert decode_value(MEMBER_KEY, bytes.fromhex(consumer)).classic_member_metadata is None
    empty = kafka_records()["consumer_group_member_metadata_empty_classic"]["value"]
    assert empty.endswith("00")
    assert (
        decode_value(MEMBER_KEY, bytes.fromhex(empty)).classic_member_metadata == cg.ClassicMemberMetadata()
    )


def test_unknown_tags_are_skipped():
    # ConsumerGroupMetadataValue: epoch 9, then tags 0 (hash 1) and 5 (two unknown bytes)
    data = bytes.fromhex("00000000000902000800000000000000010502abcd")
    assert decode_consumer_group_value(3, data) == cg.ConsumerGroupMetadataValue(9, 1)


@pytest.mark.parametrize(
    "data",
    [
        "00010000000900",  # version 1
        "0000000000",  # truncated
        "00000000000900ff",  # left-over byte
        "00000000000901000400000001",  # MetadataHash of 4 bytes, not 8
    ],
)
def test_malformed_values_raise_the_record_error(data):
    with pytest.raises(CoordinatorRecordError):
        decode_consumer_group_value(3, bytes.fromhex(data))


def test_a_null_array_is_malformed():
    with pytest.raises(CoordinatorRecordError):
        decode_value(TARGET_MEMBER_KEY, bytes.fromhex("00000000"))


def test_an_unknown_record_type_is_malformed():
    with pytest.raises(CoordinatorRecordError):
        decode_key(bytes.fromhex("0009000167"))


# ------------------------------------------------------------------ round trips

ints32 = st.integers(-(2**31), 2**31 - 1)
ints64 = st.integers(-(2**63), 2**63 - 1)
texts = st.text(max_size=12)
names = st.lists(texts, max_size=4).map(tuple)
topic_ids = st.binary(min_size=16, max_size=16)
partitions = st.lists(ints32, max_size=5).map(tuple)
current = st.builds(cg.CurrentTopicPartitions, topic_ids, partitions, st.none() | partitions)
classic = st.builds(
    cg.ClassicMemberMetadata,
    ints32,
    st.lists(st.builds(cg.ClassicProtocol, texts, st.binary(max_size=8)), max_size=3).map(tuple),
)
values = st.one_of(
    st.builds(cg.ConsumerGroupMetadataValue, ints32, ints64),
    st.builds(
        cg.ConsumerGroupPartitionMetadataValue,
        st.lists(
            st.builds(
                cg.TopicMetadata,
                topic_ids,
                texts,
                ints32,
                st.lists(st.builds(cg.PartitionMetadata, ints32, names), max_size=3).map(tuple),
            ),
            max_size=3,
        ).map(tuple),
    ),
    st.builds(
        cg.ConsumerGroupMemberMetadataValue,
        st.none() | texts,
        st.none() | texts,
        texts,
        texts,
        names,
        st.none() | texts,
        ints32,
        st.none() | texts,
        st.none() | classic,
    ),
    st.builds(cg.ConsumerGroupTargetAssignmentMetadataValue, ints32, ints64),
    st.builds(
        cg.ConsumerGroupTargetAssignmentMemberValue,
        st.lists(st.builds(cg.TargetTopicPartitions, topic_ids, partitions), max_size=3).map(tuple),
    ),
    st.builds(
        cg.ConsumerGroupCurrentMemberAssignmentValue,
        ints32,
        ints32,
        st.integers(-128, 127),
        st.lists(current, max_size=3).map(tuple),
        st.lists(current, max_size=3).map(tuple),
    ),
    st.builds(cg.ConsumerGroupRegularExpressionValue, names, ints64, ints64),
)
keys = st.one_of(
    st.builds(cg.ConsumerGroupMetadataKey, texts),
    st.builds(cg.ConsumerGroupPartitionMetadataKey, texts),
    st.builds(cg.ConsumerGroupMemberMetadataKey, texts, texts),
    st.builds(cg.ConsumerGroupTargetAssignmentMetadataKey, texts),
    st.builds(cg.ConsumerGroupTargetAssignmentMemberKey, texts, texts),
    st.builds(cg.ConsumerGroupCurrentMemberAssignmentKey, texts, texts),
    st.builds(cg.ConsumerGroupRegularExpressionKey, texts, texts),
)
_VALUE_TYPES = {
    cg.ConsumerGroupMetadataValue: 3,
    cg.ConsumerGroupPartitionMetadataValue: 4,
    cg.ConsumerGroupMemberMetadataValue: 5,
    cg.ConsumerGroupTargetAssignmentMetadataValue: 6,
    cg.ConsumerGroupTargetAssignmentMemberValue: 7,
    cg.ConsumerGroupCurrentMemberAssignmentValue: 8,
    cg.ConsumerGroupRegularExpressionValue: 16,
}


@settings(max_examples=300, deadline=None)
@given(keys)
def test_keys_round_trip(key):
    assert decode_key(encode_key(key)) == key


@settings(max_examples=500, deadline=None)
@given(values)
def test_values_round_trip(value):
    assert decode_consumer_group_value(_VALUE_TYPES[type(value)], encode_value(value)) == value
