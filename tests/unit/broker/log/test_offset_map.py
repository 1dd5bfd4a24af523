"""OffsetMap: latest offset per key, bounded capacity, Kafka's sizing of the dedupe buffer."""

from __future__ import annotations

import pytest

from kafkette.broker.log.offset_map import OffsetMap, capacity_for_buffer


def test_offset_map_keeps_the_latest_offset_of_each_key():
    offset_map = OffsetMap(10)
    offset_map.put(b"a", 1)
    offset_map.put(b"b", 2)
    offset_map.put(b"a", 7)
    assert offset_map.get(b"a") == 7
    assert offset_map.get(b"b") == 2
    assert offset_map.get(b"missing") == -1
    assert offset_map.size == 2
    assert offset_map.latest_offset == 7


def test_full_offset_map_refuses_new_keys_but_updates_known_ones():
    offset_map = OffsetMap(2)
    offset_map.put(b"a", 0)
    offset_map.put(b"b", 1)
    assert offset_map.is_full
    assert not offset_map.can_put(b"c")
    assert offset_map.can_put(b"a")
    offset_map.put(b"a", 5)
    with pytest.raises(OverflowError):
        offset_map.put(b"c", 6)
    assert offset_map.get(b"a") == 5 and offset_map.get(b"c") == -1


def test_clear_forgets_keys_and_latest_offset():
    offset_map = OffsetMap(3)
    offset_map.put(b"a", 4)
    offset_map.clear()
    assert offset_map.size == 0 and offset_map.latest_offset == -1 and offset_map.get(b"a") == -1


def test_capacity_follows_kafkas_24_bytes_per_entry_and_load_factor():
    assert capacity_for_buffer(134217728) == int(134217728 // 24 * 0.9)
    assert capacity_for_buffer(240) == 9
    with pytest.raises(ValueError):
        capacity_for_buffer(10)
    with pytest.raises(ValueError):
        OffsetMap(0)
