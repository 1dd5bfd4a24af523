"""A group lands on the ``__consumer_offsets`` partition a Kafka broker would pick.

The hash codes below were printed by Java 17's ``String.hashCode`` (jshell); the partitions
follow Kafka's ``Utils.abs(hashCode) % 50``.
"""

from __future__ import annotations

import pytest

from kafkette.broker.group.group_metadata_topic import group_metadata_topic, partition_for
from kafkette.common.java_hash_order import java_string_hash

JAVA_HASH_CODES = {
    "": 0,
    "g": 103,
    "hello": 99162322,
    "test-group": 627841412,
    "my-group": -1906497762,
    "consumer-group-1": 147483020,
    "console-consumer-12345": 158455506,
    "\u00e9t\u00e9-\U0001f600": -1803456526,  # non-ASCII and a surrogate pair
}


@pytest.mark.parametrize(("group_id", "expected"), sorted(JAVA_HASH_CODES.items()))
def test_java_string_hash(group_id: str, expected: int) -> None:
    assert java_string_hash(group_id) == expected


def test_partition_for_uses_kafkas_abs_not_a_mask() -> None:
    # -1906497762: Math.abs gives partition 12 of 50; masking the sign bit would give 36
    assert partition_for("my-group", 50) == 12
    assert partition_for("test-group", 50) == 12
    assert partition_for("\u00e9t\u00e9-\U0001f600", 50) == 26
    assert partition_for("g", 50) == 3
    assert partition_for("anything", 1) == 0


def test_partition_for_integer_min_value_is_partition_zero() -> None:
    # "polygenelubricants".hashCode() == Integer.MIN_VALUE in Java; Utils.abs maps it to 0
    assert java_string_hash("polygenelubricants") == -(1 << 31)
    assert partition_for("polygenelubricants", 7) == 0


def test_partition_for_refuses_no_partitions() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        partition_for("g", 0)


def test_group_metadata_topic_is_compacted_and_capped_at_the_live_brokers() -> None:
    topic = group_metadata_topic(50, 3, 104857600, live_brokers=1)
    assert (topic.name, topic.num_partitions, topic.replication_factor) == ("__consumer_offsets", 50, 1)
    assert {c.name: c.value for c in topic.configs} == {
        "cleanup.policy": "compact",
        "segment.bytes": "104857600",
        "compression.type": "producer",
    }
    assert group_metadata_topic(50, 3, 1 << 20, live_brokers=5).replication_factor == 3
    assert group_metadata_topic(50, 3, 1 << 20, live_brokers=0).replication_factor == 1
