"""murmur2 and partition choice must match Kafka's Java client bit for bit."""

from __future__ import annotations

import random

import pytest

from kafkette.client.producer.partitioner import DefaultPartitioner, murmur2, partition_for_key, to_positive

# Kafka's UtilsTest.testMurmur2 (signed Java ints).
KAFKA_MURMUR2_VECTORS = {
    b"21": -973932308,
    b"foobar": -790332482,
    b"a-little-bit-long-string": -985981536,
    b"a-little-bit-longer-string": -1486304829,
    b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": -58897971,
    b"abc": 479470107,
}

# Partitions out of 1000 as Kafka's default partitioner picks them
# (kafka-python's test_murmur2_java_compatibility).
KAFKA_PARTITION_VECTORS = {
    b"": 681,
    b"a": 524,
    b"ab": 434,
    b"abc": 107,
    b"123456789": 566,
    b"\x00 ": 742,
}


@pytest.mark.parametrize(("key", "expected"), sorted(KAFKA_MURMUR2_VECTORS.items()))
def test_murmur2_matches_kafka_utils_test_vectors(key, expected):
    assert murmur2(key) == expected


@pytest.mark.parametrize(("key", "expected"), sorted(KAFKA_PARTITION_VECTORS.items()))
def test_partition_for_key_matches_the_java_default_partitioner(key, expected):
    assert partition_for_key(key, 1000) == expected


def test_murmur2_handles_non_ascii_and_long_keys():
    assert -(2**31) <= murmur2(b"\xa4") < 2**31
    assert murmur2(b"\x81" * 1000) == murmur2(bytes(b"\x81" * 1000))


def test_to_positive_clears_the_sign_bit_instead_of_negating():
    assert to_positive(-1) == 0x7FFFFFFF
    assert to_positive(-(2**31)) == 0
    assert to_positive(12345) == 12345


def test_partition_for_key_rejects_zero_partitions():
    with pytest.raises(ValueError):
        partition_for_key(b"k", 0)


def test_keyed_records_always_go_to_the_hashed_partition():
    partitioner = DefaultPartitioner(random.Random(1))
    parts = list(range(6))
    for key in (b"JFK", b"LGA", b"EWR"):
        chosen = {partitioner.partition("flights", key, parts, parts) for _ in range(5)}
        assert chosen == {to_positive(murmur2(key)) % 6}


def test_keyless_records_stick_to_one_partition_until_a_new_batch():
    partitioner = DefaultPartitioner(random.Random(7))
    parts = list(range(4))
    first = partitioner.partition("t", None, parts, parts)
    assert all(partitioner.partition("t", None, parts, parts) == first for _ in range(20))
    moved = partitioner.on_new_batch("t", parts, parts, first)
    assert moved != first
    assert partitioner.partition("t", None, parts, parts) == moved


def test_sticky_partition_prefers_partitions_with_a_leader():
    partitioner = DefaultPartitioner(random.Random(3))
    for _ in range(20):
        previous = partitioner.sticky_partition("t", [0, 1, 2], [2])
        assert previous == 2
        assert partitioner.on_new_batch("t", [0, 1, 2], [2], previous) == 2


def test_on_new_batch_for_a_stale_partition_keeps_the_current_choice():
    partitioner = DefaultPartitioner(random.Random(5))
    parts = [0, 1, 2]
    current = partitioner.sticky_partition("t", parts, parts)
    stale = next(p for p in parts if p != current)
    assert partitioner.on_new_batch("t", parts, parts, stale) == current
