"""The ListOffsets handler called directly over a real Partition and Log on tmp_path.

The only stand-in is the handler context's ``replica_manager.get_partition``.
"""

from __future__ import annotations

from types import SimpleNamespace

from broker_fakes import TP0, make_state, new_partition

from kafkette.broker.apis import list_offsets
from kafkette.protocol.apis.list_offsets import (
    EARLIEST_TIMESTAMP,
    LATEST_TIMESTAMP,
    MAX_TIMESTAMP,
    ListOffsetsPartition,
    ListOffsetsRequest,
    ListOffsetsTopic,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.record_batch import build_batch


def _batch(timestamps_ms):
    return bytearray(build_batch([(None, b"v", None, ts) for ts in timestamps_ms]))


async def _list(partition, timestamps, replica_id=-1):
    ctx = SimpleNamespace(replica_manager=SimpleNamespace(get_partition={TP0: partition}.get))
    request = ListOffsetsRequest(replica_id=replica_id, isolation_level=0, topics=[ListOffsetsTopic(
        name=TP0.topic, partitions=[ListOffsetsPartition(partition_index=0, timestamp=ts) for ts in timestamps])])
    header = RequestHeader(api_key=2, api_version=0, correlation_id=1, client_id="test")
    response = await list_offsets.handle(ctx, header, request)
    return [(p.error_code, p.offset, p.timestamp, p.leader_epoch) for p in response.topics[0].partitions]


async def test_lookups_by_timestamp_and_max_timestamp_return_record_offset_timestamp_and_epoch(log_manager):
    partition = new_partition(log_manager)
    partition.make_leader(make_state(leader_epoch=4))
    partition.append_records_to_leader(_batch([1_000, 1_500, 1_200]), required_acks=1)
    partition.append_records_to_leader(_batch([2_000, 9_000, 2_500]), required_acks=1)
    answers = await _list(partition, [1_100, 1_501, 9_000, 9_001, MAX_TIMESTAMP, EARLIEST_TIMESTAMP, LATEST_TIMESTAMP])
    assert answers == [
        (Errors.NONE, 1, 1_500, 4),
        (Errors.NONE, 3, 2_000, 4),
        (Errors.NONE, 4, 9_000, 4),
        (Errors.NONE, -1, -1, -1),
        (Errors.NONE, 4, 9_000, 4),
        (Errors.NONE, 0, -1, 4),
        (Errors.NONE, 6, -1, 4),
    ]


async def test_records_at_or_past_the_high_watermark_are_hidden_from_consumers_only(log_manager):
    partition = new_partition(log_manager)
    partition.make_leader(make_state(replicas=[1, 2], isr=[1, 2]))
    partition.append_records_to_leader(_batch([1_000, 2_000]), required_acks=1)
    assert partition.high_watermark == 0
    assert await _list(partition, [1_500, MAX_TIMESTAMP]) == [(Errors.NONE, -1, -1, -1)] * 2
    assert await _list(partition, [1_500, MAX_TIMESTAMP], replica_id=2) == [(Errors.NONE, 1, 2_000, 1)] * 2


async def test_unknown_negative_timestamp_gets_invalid_request(log_manager):
    partition = new_partition(log_manager)
    partition.make_leader(make_state())
    assert (await _list(partition, [-7]))[0][0] == Errors.INVALID_REQUEST
