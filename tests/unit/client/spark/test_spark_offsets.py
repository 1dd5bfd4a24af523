"""Streaming offsets of the kafkette source: JSON form, rate limiting, ranges."""

from __future__ import annotations

import json

import pytest

from kafkette.client.spark.offsets import (
    OffsetRange,
    offset_ranges,
    offsets_from_json,
    offsets_to_json,
    rate_limit,
)
from kafkette.protocol.topic_partition import TopicPartition

A0, A1, A10, B0 = (
    TopicPartition("a", 0),
    TopicPartition("a", 1),
    TopicPartition("a", 10),
    TopicPartition("b", 0),
)


def test_equal_offsets_give_equal_json_strings_whatever_the_insertion_order():
    one = offsets_to_json({B0: 1, A10: 3, A1: 2, A0: 5})
    other = offsets_to_json({A0: 5, A1: 2, A10: 3, B0: 1})
    assert json.dumps(one) == json.dumps(other) == '{"a": {"0": 5, "1": 2, "10": 3}, "b": {"0": 1}}'


def test_json_round_trip_restores_topic_partitions():
    offsets = {A0: 5, A10: 3, B0: 0}
    assert offsets_from_json(json.loads(json.dumps(offsets_to_json(offsets)))) == offsets
    assert offsets_from_json({}) == {} and offsets_from_json(None) == {}


def test_malformed_offsets_are_refused():
    with pytest.raises(ValueError):
        offsets_from_json({"a": 5})


def test_rate_limit_shares_the_limit_by_backlog():
    # backlogs 100 and 300: a limit of 40 gives 10 and 30
    assert rate_limit({A0: 0, A1: 100}, {A0: 100, A1: 400}, 40) == {A0: 10, A1: 130}


def test_rate_limit_rounds_small_shares_up_and_never_passes_latest():
    # backlog 1 of 1001 with limit 10: share 0.00999 rounds up to 1
    assert rate_limit({A0: 0, A1: 0}, {A0: 1, A1: 1000}, 10) == {A0: 1, A1: 9}
    assert rate_limit({A0: 0}, {A0: 5}, 100) == {A0: 5}


def test_rate_limit_keeps_partitions_without_backlog_or_start_at_latest():
    assert rate_limit({A0: 7, A1: 0}, {A0: 7, A1: 50, B0: 9}, 10) == {A0: 7, A1: 10, B0: 9}
    assert rate_limit({A0: 7}, {A0: 7}, 10) == {A0: 7}


def test_rate_limit_refuses_a_non_positive_limit():
    with pytest.raises(ValueError):
        rate_limit({A0: 0}, {A0: 5}, 0)


def test_offset_ranges_skip_empty_and_unknown_partitions():
    ranges = offset_ranges({A0: 3, A1: 9, B0: 0}, {A0: 8, A1: 9, B0: 2, A10: 4})
    assert ranges == [OffsetRange("a", 0, 3, 8), OffsetRange("b", 0, 0, 2)]
    assert ranges[0].size == 5 and ranges[0].topic_partition == A0
