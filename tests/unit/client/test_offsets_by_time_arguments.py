"""Argument checks of the by-time offset lookups (no sockets: they fail before any request)."""

from __future__ import annotations

import pytest

from kafkette.client import Consumer, OffsetSpec, TopicPartition
from kafkette.protocol.errors import IllegalStateError


def test_offset_spec_maps_to_list_offsets_timestamps():
    assert [
        OffsetSpec.earliest().timestamp,
        OffsetSpec.latest().timestamp,
        OffsetSpec.max_timestamp().timestamp,
        OffsetSpec.for_timestamp(1_234).timestamp,
    ] == [-2, -1, -3, 1_234]


@pytest.mark.parametrize("bad", [-1, -3, 1.5, True, "10"])
def test_offset_spec_for_timestamp_rejects_what_is_not_a_timestamp(bad):
    with pytest.raises(ValueError):
        OffsetSpec.for_timestamp(bad)


async def test_offsets_for_times_rejects_negative_timestamps_and_non_partitions_before_any_request():
    consumer = Consumer(bootstrap_servers="127.0.0.1:1")
    with pytest.raises(ValueError, match="cannot be negative"):
        await consumer.offsets_for_times({TopicPartition("t", 0): -2})
    with pytest.raises(TypeError):
        await consumer.offsets_for_times({("t", 0): 5})  # type: ignore[dict-item]
    with pytest.raises(IllegalStateError):
        await consumer.offsets_for_times({TopicPartition("t", 0): 5})
