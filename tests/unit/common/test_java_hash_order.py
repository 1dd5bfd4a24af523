"""The iteration order of Java hash maps Kafka's clients build: by bucket of the table they grow
to, then insertion order."""

from __future__ import annotations

from kafkette.common.java_hash_order import java_hash_map_order, java_hash_set_order, java_string_hash


def test_a_map_sized_for_its_keys_grows_and_orders_by_the_grown_table():
    keys = ["producer_byte_rate", "consumer_byte_rate"]
    # HashMap(2): 2 buckets, grown to 4 by the second key; both keys differ in the low two bits.
    assert java_hash_map_order(keys, java_string_hash, 2) == ["consumer_byte_rate", "producer_byte_rate"]
    assert java_hash_map_order(keys, java_string_hash, 16) == java_hash_set_order(keys)


def test_keys_in_one_bucket_keep_their_insertion_order_and_repeats_count_once():
    assert java_hash_map_order([8, 0, 4, 0], lambda k: k, 1) == [8, 0, 4]
    assert java_hash_map_order([3, 1], lambda k: k, 0) == [1, 3]
    assert java_hash_map_order([], lambda k: k, 0) == []
