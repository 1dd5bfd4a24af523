"""The OffsetsForLeaderEpoch handler called directly over real Partitions and Logs on tmp_path,
and its schema (round trip, ApiVersions registration).

The only stand-in is the handler context's ``replica_manager.get_partition``.
"""

from __future__ import annotations

from types import SimpleNamespace

from broker_fakes import TP0, TP1, make_batch, make_state, new_partition

from kafkette.broker.apis import api_versions, offsets_for_leader_epoch
from kafkette.protocol.api_keys import API_REGISTRY, ApiKey
from kafkette.protocol.apis.api_versions import ApiVersionsRequest
from kafkette.protocol.apis.offsets_for_leader_epoch import (
    OffsetForLeaderPartition,
    OffsetForLeaderTopic,
    OffsetsForLeaderEpochRequest,
    OffsetsForLeaderEpochResponse,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.topic_partition import TopicPartition

HEADER = RequestHeader(
    api_key=ApiKey.OFFSET_FOR_LEADER_EPOCH, api_version=0, correlation_id=1, client_id="test"
)


def _leader_with_epochs(log_manager, tp=TP0):
    """Leader of ``tp`` whose log has epoch 1 at 0..4, epoch 3 at 5..7, then epoch 4 from 8 (no data)."""
    partition = new_partition(log_manager, tp)
    partition.make_leader(make_state(tp, leader_epoch=1))
    partition.append_records_to_leader(bytearray(make_batch(5)), required_acks=1)
    partition.make_leader(make_state(tp, leader_epoch=3))
    partition.append_records_to_leader(bytearray(make_batch(3)), required_acks=1)
    partition.make_leader(make_state(tp, leader_epoch=4))
    return partition


async def _ask(partitions, asked, replica_id=2):
    """``asked``: ``[(tp, current_leader_epoch, leader_epoch)]`` -> ``[(error, epoch, end offset)]``."""
    ctx = SimpleNamespace(replica_manager=SimpleNamespace(get_partition=partitions.get))
    topics: dict[str, list[OffsetForLeaderPartition]] = {}
    for tp, current, epoch in asked:
        topics.setdefault(tp.topic, []).append(
            OffsetForLeaderPartition(partition=tp.partition, current_leader_epoch=current, leader_epoch=epoch)
        )
    request = OffsetsForLeaderEpochRequest(
        replica_id=replica_id,
        topics=[OffsetForLeaderTopic(name=name, partitions=parts) for name, parts in topics.items()],
    )
    response = await offsets_for_leader_epoch.handle(ctx, HEADER, request)
    return [(p.error_code, p.leader_epoch, p.end_offset) for t in response.topics for p in t.partitions]


async def test_leader_answers_each_epoch_with_where_it_ends_in_its_log(log_manager):
    partition = _leader_with_epochs(log_manager)
    assert [(e.epoch, e.start_offset) for e in partition.log.leader_epoch_cache.entries] == [
        (1, 0),
        (3, 5),
        (4, 8),
    ]
    answers = await _ask({TP0: partition}, [(TP0, 4, 4), (TP0, 4, 3), (TP0, 4, 2), (TP0, 4, 1), (TP0, 4, 0)])
    assert answers == [
        (Errors.NONE, 4, 8),  # the latest epoch ends at the log end offset
        (Errors.NONE, 3, 8),  # epoch 3 ends where epoch 4 starts
        (Errors.NONE, 1, 5),  # never had epoch 2: the largest epoch below it, ending where 3 starts
        (Errors.NONE, 1, 5),
        (Errors.NONE, 0, 0),  # older than every epoch: the first epoch's start offset
    ]


async def test_epoch_newer_than_the_leader_knows_is_undefined(log_manager):
    partition = _leader_with_epochs(log_manager)
    assert await _ask({TP0: partition}, [(TP0, -1, 9), (TP0, -1, -1)]) == [
        (Errors.NONE, -1, -1),
        (Errors.NONE, -1, -1),
    ]


async def test_current_leader_epoch_is_checked_against_the_leader(log_manager):
    partition = _leader_with_epochs(log_manager)
    assert await _ask({TP0: partition}, [(TP0, 3, 3), (TP0, 5, 3), (TP0, -1, 3)]) == [
        (Errors.FENCED_LEADER_EPOCH, -1, -1),
        (Errors.UNKNOWN_LEADER_EPOCH, -1, -1),
        (Errors.NONE, 3, 8),
    ]


async def test_unknown_partition_and_follower_answer_their_errors_and_others_are_served(log_manager):
    leader = _leader_with_epochs(log_manager)
    follower = new_partition(log_manager, TP1)
    follower.make_follower(make_state(TP1, leader=2, leader_epoch=4, replicas=[2, 1]))
    unknown = TopicPartition("missing", 0)
    answers = await _ask({TP0: leader, TP1: follower}, [(unknown, 4, 4), (TP1, 4, 4), (TP0, 4, 4)])
    assert answers == [
        (Errors.UNKNOWN_TOPIC_OR_PARTITION, -1, -1),
        (Errors.NOT_LEADER_OR_FOLLOWER, -1, -1),
        (Errors.NONE, 4, 8),
    ]


async def test_offline_log_answers_kafka_storage_error(log_manager):
    partition = _leader_with_epochs(log_manager)
    partition.log.mark_offline("test corruption")
    assert await _ask({TP0: partition}, [(TP0, 4, 4)]) == [(Errors.KAFKA_STORAGE_ERROR, -1, -1)]


async def test_unexpected_error_fails_only_that_partition(log_manager, caplog):
    leader = _leader_with_epochs(log_manager, TP1)

    class Broken:
        def leader_log(self, current_leader_epoch):
            raise RuntimeError("boom")

    answers = await _ask({TP0: Broken(), TP1: leader}, [(TP0, 4, 4), (TP1, 4, 4)])
    assert answers == [(Errors.UNKNOWN_SERVER_ERROR, -1, -1), (Errors.NONE, 4, 8)]
    assert "boom" in caplog.text


def test_request_and_response_round_trip_the_wire_format():
    request = OffsetsForLeaderEpochRequest(
        replica_id=2,
        topics=[
            OffsetForLeaderTopic(
                name="t",
                partitions=[OffsetForLeaderPartition(partition=3, current_leader_epoch=7, leader_epoch=6)],
            )
        ],
    )
    decoded = OffsetsForLeaderEpochRequest.from_wire(request.to_wire(4), 4)
    [part] = decoded.topics[0].partitions
    assert (
        decoded.replica_id,
        decoded.topics[0].name,
        part.partition,
        part.current_leader_epoch,
        part.leader_epoch,
    ) == (2, "t", 3, 7, 6)
    response = OffsetsForLeaderEpochResponse.from_wire([0, [["t", [[0, 3, 6, 120]]]]], 4)
    [answer] = response.topics[0].partitions
    assert (answer.error_code, answer.partition, answer.leader_epoch, answer.end_offset) == (0, 3, 6, 120)


async def test_api_versions_lists_offsets_for_leader_epoch():
    assert API_REGISTRY[ApiKey.OFFSET_FOR_LEADER_EPOCH].request is OffsetsForLeaderEpochRequest
    response = await api_versions.handle(None, HEADER, ApiVersionsRequest())
    assert ApiKey.OFFSET_FOR_LEADER_EPOCH in [k.api_key for k in response.api_keys]
