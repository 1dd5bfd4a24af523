"""The ListOffsets handler called directly over a real Partition and Log on tmp_path.

The only stand-in is the handler context's ``replica_manager.get_partition_or_error``.
"""

from __future__ import annotations

from types import SimpleNamespace

from broker_fakes import TP0, make_state, new_partition

from kafkette.broker.apis import list_offsets
from kafkette.protocol.apis.list_offsets import (
    EARLIEST_LOCAL_TIMESTAMP,
    EARLIEST_PENDING_UPLOAD_TIMESTAMP,
    EARLIEST_TIMESTAMP,
    LATEST_TIERED_TIMESTAMP,
    LATEST_TIMESTAMP,
    MAX_TIMESTAMP,
    ListOffsetsPartition,
    ListOffsetsRequest,
    ListOffsetsTopic,
)
from kafkette.protocol.errors import Errors, UnknownTopicOrPartitionError
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.record_batch import build_batch


def _batch(timestamps_ms):
    return bytearray(build_batch([(None, b"v", None, ts) for ts in timestamps_ms]))


def _context(partition):
    def get_partition_or_error(tp):
        if tp != TP0:
            raise UnknownTopicOrPartitionError(f"no {tp}")
        return partition

    return SimpleNamespace(replica_manager=SimpleNamespace(get_partition_or_error=get_partition_or_error))


async def _request(partition, partitions, replica_id=-1):
    request = ListOffsetsRequest(
        replica_id=replica_id,
        isolation_level=0,
        topics=[ListOffsetsTopic(name=TP0.topic, partitions=partitions)],
    )
    header = RequestHeader(api_key=2, api_version=0, correlation_id=1, client_id="test")
    response = await list_offsets.handle(_context(partition), header, request)
    return [(p.partition_index, p.error_code, p.offset) for p in response.topics[0].partitions]


async def _list(partition, timestamps, replica_id=-1):
    """One request per timestamp (a partition may be asked once per request)."""
    answers = []
    for ts in timestamps:
        request = ListOffsetsRequest(
            replica_id=replica_id,
            isolation_level=0,
            topics=[
                ListOffsetsTopic(
                    name=TP0.topic, partitions=[ListOffsetsPartition(partition_index=0, timestamp=ts)]
                )
            ],
        )
        header = RequestHeader(api_key=2, api_version=0, correlation_id=1, client_id="test")
        response = await list_offsets.handle(_context(partition), header, request)
        answers += [
            (p.error_code, p.offset, p.timestamp, p.leader_epoch) for p in response.topics[0].partitions
        ]
    return answers


async def test_lookups_by_timestamp_and_max_timestamp_return_record_offset_timestamp_and_epoch(log_manager):
    partition = new_partition(log_manager)
    partition.make_leader(make_state(leader_epoch=4))
    partition.append_records_to_leader(_batch([1_000, 1_500, 1_200]), required_acks=1)
    partition.append_records_to_leader(_batch([2_000, 9_000, 2_500]), required_acks=1)
    answers = await _list(
        partition, [1_100, 1_501, 9_000, 9_001, MAX_TIMESTAMP, EARLIEST_TIMESTAMP, LATEST_TIMESTAMP]
    )
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


async def test_unknown_negative_timestamp_gets_unsupported_version(log_manager):
    partition = new_partition(log_manager)
    partition.make_leader(make_state())
    # -7 is no special timestamp of any version
    assert [a[0] for a in await _list(partition, [-7, -10])] == [Errors.UNSUPPORTED_VERSION] * 2


async def test_tiered_special_timestamps_answer_as_a_log_without_remote_storage(log_manager):
    partition = new_partition(log_manager)
    partition.make_leader(make_state())
    partition.append_records_to_leader(_batch([1_000, 2_000]), required_acks=1)
    earliest, earliest_local, latest_tiered, pending_upload = await _list(
        partition,
        [
            EARLIEST_TIMESTAMP,
            EARLIEST_LOCAL_TIMESTAMP,
            LATEST_TIERED_TIMESTAMP,
            EARLIEST_PENDING_UPLOAD_TIMESTAMP,
        ],
    )
    assert earliest_local == earliest  # the local log starts where the log starts
    assert latest_tiered == pending_upload == (Errors.NONE, -1, -1, -1)


async def test_a_partition_asked_twice_is_answered_once_with_invalid_request(log_manager):
    partition = new_partition(log_manager)
    partition.make_leader(make_state())
    partition.append_records_to_leader(_batch([1_000]), required_acks=1)
    twice = [ListOffsetsPartition(partition_index=0, timestamp=LATEST_TIMESTAMP)] * 2
    assert await _request(partition, twice) == [(0, Errors.INVALID_REQUEST, -1)]
    other = [
        ListOffsetsPartition(partition_index=0, timestamp=LATEST_TIMESTAMP),
        ListOffsetsPartition(partition_index=1, timestamp=LATEST_TIMESTAMP),
    ]
    assert await _request(partition, other) == [
        (0, Errors.NONE, 1),
        (1, Errors.UNKNOWN_TOPIC_OR_PARTITION, -1),
    ]


async def test_an_unknown_isolation_level_fails_the_whole_request():
    """Kafka's ``IsolationLevel.forId`` throws for a level other than 0 or 1: UNKNOWN_SERVER_ERROR
    for the request as a whole (the socket server answers it through ``getErrorResponse``)."""
    import pytest

    from kafkette.protocol.errors import UnknownServerError

    request = ListOffsetsRequest(
        replica_id=-1,
        isolation_level=2,
        topics=[
            ListOffsetsTopic(
                name=TP0.topic, partitions=[ListOffsetsPartition(partition_index=0, timestamp=-1)]
            )
        ],
    )
    header = RequestHeader(api_key=2, api_version=5, correlation_id=1, client_id="test")
    with pytest.raises(UnknownServerError):
        await list_offsets.handle(_context(None), header, request)
