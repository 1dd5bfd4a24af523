"""The Fetch handler: topics by id (KIP-516), fetch sessions (KIP-227) and the current leader of a
NOT_LEADER_OR_FOLLOWER answer (KIP-951), over a fake ReplicaManager and metadata cache."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from kafkette.broker.apis import fetch
from kafkette.broker.client_quota_manager import ClientQuotaManager
from kafkette.broker.fetch_session import FetchManager, FetchSessionCache
from kafkette.broker.metadata_cache import BrokerEndpoint
from kafkette.broker.replica_manager import FetchPartitionResult
from kafkette.common.clock import MockTime
from kafkette.protocol.apis.fetch import FetchPartition, FetchRequest, FetchTopic, ForgottenTopic
from kafkette.protocol.apis.update_metadata import UpdateMetadataPartitionState
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.topic_partition import TopicPartition

TOPIC_ID = bytes(range(1, 17))
UNKNOWN_ID = bytes(range(101, 117))


class FakeReplicaManager:
    """Answers each read from ``results`` (by partition) and records what was read."""

    def __init__(self, results: dict[TopicPartition, FetchPartitionResult]) -> None:
        self.time = MockTime()
        self.results = results
        self.reads: list[list[TopicPartition]] = []
        self.partitions: dict[TopicPartition, Any] = {}  # this broker's own replicas

    def get_partition(self, tp: TopicPartition) -> Any:
        return self.partitions.get(tp)

    async def fetch_messages(self, fetch_infos: dict[TopicPartition, Any], **kwargs: Any) -> dict:
        self.reads.append(list(fetch_infos))
        return {tp: self.results[tp] for tp in fetch_infos}


def _context(results: dict[TopicPartition, FetchPartitionResult]) -> Any:
    metadata_cache = SimpleNamespace(
        topic_ids_to_names=lambda: {TOPIC_ID: "t"},
        partition_state=lambda tp: UpdateMetadataPartitionState(
            topic_name=tp.topic, partition_index=tp.partition, leader=2, leader_epoch=7
        ),
        get_alive_broker=lambda broker_id: BrokerEndpoint(
            broker_id, "h", 9092, "r", (("KAFKA", "kh", 19092),)
        ),
    )
    return SimpleNamespace(
        replica_manager=FakeReplicaManager(results),
        metadata_cache=metadata_cache,
        fetch_manager=FetchManager(FetchSessionCache(10)),
        fetch_quotas=ClientQuotaManager("consumer_byte_rate"),
    )


def _request(
    topics: list[tuple[bytes, list[int]]], session_id: int = 0, epoch: int = -1, forgotten=()
) -> FetchRequest:
    return FetchRequest(
        max_wait_ms=0,
        min_bytes=1,
        isolation_level=0,
        session_id=session_id,
        session_epoch=epoch,
        topics=[
            FetchTopic(
                topic_id=topic_id,
                partitions=[FetchPartition(partition=p, fetch_offset=0, partition_max_bytes=100) for p in ps],
            )
            for topic_id, ps in topics
        ],
        forgotten_topics_data=[ForgottenTopic(topic_id=t, partitions=ps) for t, ps in forgotten],
        rack_id="",
    )


def _call(ctx: Any, version: int, request: FetchRequest) -> Any:
    return asyncio.run(fetch.handle(ctx, RequestHeader(1, version, 1, "c", "KAFKA"), request))


def _partitions(response: Any) -> list[tuple[bytes, int, int]]:
    return [(r.topic_id, p.partition_index, p.error_code) for r in response.responses for p in r.partitions]


def test_a_topic_id_is_read_by_its_name_and_an_unknown_id_is_unknown_topic_id_unread():
    ctx = _context({TopicPartition("t", 0): FetchPartitionResult(Errors.NONE, 3, 0, b"x")})
    response = _call(ctx, 13, _request([(TOPIC_ID, [0]), (UNKNOWN_ID, [0])]))
    assert ctx.replica_manager.reads == [[TopicPartition("t", 0)]]
    assert (response.error_code, response.session_id) == (0, 0)
    assert _partitions(response) == [(TOPIC_ID, 0, 0), (UNKNOWN_ID, 0, int(Errors.UNKNOWN_TOPIC_ID))]


def test_the_topic_id_a_fetch_names_goes_to_the_read_to_be_checked_against_the_logs():
    """From v13 the ReplicaManager is given the topic id the request named (INCONSISTENT_TOPIC_ID when the
    partition's log carries another, Kafka's ``readFromLog``); before v13 none (zero)."""
    infos: list[Any] = []
    ctx = _context({TopicPartition("t", 0): FetchPartitionResult(Errors.INCONSISTENT_TOPIC_ID)})
    read = ctx.replica_manager.fetch_messages

    async def fetch_messages(fetch_infos: dict[TopicPartition, Any], **kwargs: Any) -> dict:
        infos.extend(fetch_infos.values())
        return await read(fetch_infos, **kwargs)

    ctx.replica_manager.fetch_messages = fetch_messages
    response = _call(ctx, 13, _request([(TOPIC_ID, [0])]))
    assert _partitions(response) == [(TOPIC_ID, 0, int(Errors.INCONSISTENT_TOPIC_ID))]
    legacy = FetchRequest(
        max_wait_ms=0,
        min_bytes=1,
        isolation_level=0,
        topics=[FetchTopic(topic="t", partitions=[FetchPartition(partition=0, fetch_offset=0)])],
        forgotten_topics_data=[],
        rack_id="",
    )
    _call(ctx, 12, legacy)
    assert [info.topic_id for info in infos] == [TOPIC_ID, bytes(16)]


def test_a_session_answers_only_what_is_new_and_reads_every_partition_it_holds():
    results = {
        TopicPartition("t", 0): FetchPartitionResult(Errors.NONE, 3, 0, b"x"),
        TopicPartition("t", 1): FetchPartitionResult(Errors.NONE, 5, 0, b"y"),
    }
    ctx = _context(results)
    full = _call(ctx, 18, _request([(TOPIC_ID, [0, 1])], epoch=0))
    assert full.session_id != 0 and len(_partitions(full)) == 2
    results[TopicPartition("t", 0)] = FetchPartitionResult(Errors.NONE, 3, 0, b"")
    results[TopicPartition("t", 1)] = FetchPartitionResult(Errors.NONE, 6, 0, b"z")
    incremental = _call(ctx, 18, _request([], full.session_id, 1))
    assert ctx.replica_manager.reads[-1] == [TopicPartition("t", 0), TopicPartition("t", 1)]
    assert (incremental.error_code, incremental.session_id) == (0, full.session_id)
    assert _partitions(incremental) == [(TOPIC_ID, 1, 0)]
    forgot = _call(ctx, 18, _request([], full.session_id, 2, forgotten=[(TOPIC_ID, [1])]))
    assert ctx.replica_manager.reads[-1] == [TopicPartition("t", 0)] and _partitions(forgot) == []


def test_a_wrong_epoch_or_an_unknown_session_reads_nothing():
    ctx = _context({TopicPartition("t", 0): FetchPartitionResult(Errors.NONE, 3, 0, b"x")})
    full = _call(ctx, 13, _request([(TOPIC_ID, [0])], epoch=0))
    wrong = _call(ctx, 13, _request([], full.session_id, 3))
    unknown = _call(ctx, 13, _request([], full.session_id + 1, 1))
    assert len(ctx.replica_manager.reads) == 1
    assert [(r.error_code, r.session_id, r.responses) for r in (wrong, unknown)] == [
        (int(Errors.INVALID_FETCH_SESSION_EPOCH), 0, []),
        (int(Errors.FETCH_SESSION_ID_NOT_FOUND), 0, []),
    ]


def test_from_v16_not_leader_or_follower_names_the_current_leader_and_its_endpoint():
    ctx = _context({TopicPartition("t", 0): FetchPartitionResult(Errors.NOT_LEADER_OR_FOLLOWER)})
    response = _call(ctx, 16, _request([(TOPIC_ID, [0])]))
    leader = response.responses[0].partitions[0].current_leader
    assert (leader.leader_id, leader.leader_epoch) == (2, 7)
    assert [(e.node_id, e.host, e.port, e.rack) for e in response.node_endpoints] == [(2, "kh", 19092, "r")]
    before = _call(ctx, 15, _request([(TOPIC_ID, [0])]))
    assert before.responses[0].partitions[0].current_leader.leader_id == -1 and not before.node_endpoints


def test_the_current_leader_is_this_brokers_own_replicas_before_the_metadatas():
    ctx = _context({TopicPartition("t", 0): FetchPartitionResult(Errors.FENCED_LEADER_EPOCH)})
    ctx.replica_manager.partitions[TopicPartition("t", 0)] = SimpleNamespace(leader_id=3, leader_epoch=9)
    leader = _call(ctx, 16, _request([(TOPIC_ID, [0])])).responses[0].partitions[0].current_leader
    assert (leader.leader_id, leader.leader_epoch) == (3, 9)  # Kafka's getCurrentLeader, as Produce's


def test_an_unknown_isolation_level_fails_the_request_as_kafkas_get_error_response():
    ctx = _context({TopicPartition("t", 0): FetchPartitionResult(Errors.NONE, 3, 0, b"x")})
    request = _request([(TOPIC_ID, [0, 1]), (UNKNOWN_ID, [0])], session_id=0, epoch=-1)
    request.isolation_level = 2
    failed = _call(ctx, 13, request)
    assert ctx.replica_manager.reads == []  # nothing read
    assert (failed.error_code, failed.responses) == (
        int(Errors.UNKNOWN_SERVER_ERROR),
        [],
    )  # v13+: top level only
    request.topics = [FetchTopic(topic="t", partitions=[FetchPartition(partition=p) for p in (0, 1)])]
    before_ids = _call(ctx, 12, request)
    assert before_ids.error_code == Errors.UNKNOWN_SERVER_ERROR
    assert [
        (p.partition_index, p.error_code, p.high_watermark) for p in before_ids.responses[0].partitions
    ] == [
        (0, Errors.UNKNOWN_SERVER_ERROR, -1),
        (1, Errors.UNKNOWN_SERVER_ERROR, -1),
    ]


def test_an_unknown_isolation_level_is_not_read_when_no_partition_the_metadata_has_is_asked():
    ctx = _context({TopicPartition("t", 0): FetchPartitionResult(Errors.UNKNOWN_TOPIC_OR_PARTITION)})
    ctx.metadata_cache.partition_state = lambda tp: None
    request = _request([(TOPIC_ID, [0])])
    request.isolation_level = 7
    response = _call(ctx, 13, request)
    assert response.error_code == Errors.NONE
    assert _partitions(response) == [(TOPIC_ID, 0, int(Errors.UNKNOWN_TOPIC_OR_PARTITION))]


def test_a_zero_topic_id_followed_by_another_refused_partition_fails_as_kafkas_broker_does():
    """Kafka's ``FetchResponse.toMessage`` compares a zero-id topic's null name with the next refused
    partition's (NullPointerException): UNKNOWN_SERVER_ERROR, top level only, the session id echoed."""
    zero = bytes(16)
    ctx = _context({TopicPartition("t", 0): FetchPartitionResult(Errors.NONE, 3, 0, b"x")})
    for topics in (
        [(zero, [0, 1])],
        [(zero, [2]), (UNKNOWN_ID, [0])],
        [(TOPIC_ID, [0]), (zero, [0]), (zero, [3])],
    ):
        failed = _call(ctx, 14, _request(topics, session_id=5, epoch=-1))
        assert (failed.error_code, failed.session_id, failed.responses) == (
            int(Errors.UNKNOWN_SERVER_ERROR),
            5,
            [],
        )
    # the zero id last (the read partitions come first in Kafka's answer), or alone twice: answered
    for topics in ([(zero, [0]), (TOPIC_ID, [0])], [(UNKNOWN_ID, [0]), (zero, [0, 0])]):
        answered = _call(ctx, 14, _request(topics))
        assert answered.error_code == Errors.NONE
        assert (zero, 0, int(Errors.UNKNOWN_TOPIC_ID)) in _partitions(answered)
