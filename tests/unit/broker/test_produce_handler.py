"""The Produce handler called directly: the checks it makes before the ReplicaManager appends.

The only stand-ins are the handler context's ``replica_manager.handle_produce_append``, which records
what it is asked to append (or answers one error for every partition), and its ``get_partition``
(this broker's replica, if any, for the current leader of a NOT_LEADER_OR_FOLLOWER answer).
"""

from __future__ import annotations

from types import SimpleNamespace

from broker_fakes import TP0, make_batch

from kafkette.broker.apis import produce
from kafkette.broker.client_quota_manager import ClientQuotaManager
from kafkette.broker.delayed_produce import ProducePartitionStatus
from kafkette.broker.metadata_cache import MetadataCache
from kafkette.common.network.socket_server import CLOSE_CONNECTION
from kafkette.protocol.apis.produce import (
    NodeEndpoint,
    ProducePartitionData,
    ProduceRequest,
    ProduceTopicData,
)
from kafkette.protocol.apis.update_metadata import (
    UpdateMetadataBroker,
    UpdateMetadataEndpoint,
    UpdateMetadataPartitionState,
    UpdateMetadataRequest,
    UpdateMetadataTopicConfigs,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.kafka_uuid import uuid_to_string
from kafkette.protocol.record_batch import build_kafka_batch

FAILS = make_batch(7)
"""A batch the fake ReplicaManager answers NOT_LEADER_OR_FOLLOWER."""


async def _produce(
    records: bytes | None,
    acks: int = 1,
    client_id: str = "test",
    allowed: list | None = None,
    known: bool = True,
):
    """Produce ``records`` to ``TP0`` (a partition the metadata has when ``known``)."""
    appended: dict = {}

    async def handle_produce_append(
        timeout_ms, required_acks, entries, transactional_id, operation, *, internal_topics_allowed
    ):
        if allowed is not None:
            allowed.append(internal_topics_allowed)
        appended.update(entries)
        return {
            tp: ProducePartitionStatus(
                required_offset=1,
                base_offset=0,
                pending=False,
                error=Errors.NONE if records != FAILS else Errors.NOT_LEADER_OR_FOLLOWER,
            )
            for tp in entries
        }

    ctx = SimpleNamespace(
        replica_manager=SimpleNamespace(handle_produce_append=handle_produce_append),
        metadata_cache=SimpleNamespace(partition_state=lambda tp: object() if known and tp == TP0 else None),
        produce_quotas=ClientQuotaManager("producer_byte_rate"),
    )
    request = ProduceRequest(
        transactional_id=None,
        acks=acks,
        timeout_ms=1000,
        topic_data=[
            ProduceTopicData(name=TP0.topic, partition_data=[ProducePartitionData(index=0, records=records)])
        ],
    )
    header = RequestHeader(api_key=0, api_version=0, correlation_id=1, client_id=client_id)
    response = await produce.handle(ctx, header, request)
    if acks == 0:
        return response, list(appended)
    (partition,) = response.responses[0].partition_responses
    return partition.error_code, partition.base_offset, list(appended)


async def test_one_batch_per_partition_is_appended():
    assert await _produce(make_batch(3)) == (Errors.NONE, 0, [TP0])


async def test_two_batches_for_one_partition_are_invalid_record_and_nothing_is_appended():
    assert await _produce(make_batch(1) + make_batch(1)) == (Errors.INVALID_RECORD, -1, [])


async def test_a_partition_the_metadata_lacks_is_unknown_topic_or_partition_before_its_records_are_checked():
    assert await _produce(None) == (Errors.INVALID_REQUEST, -1, [])
    assert await _produce(None, known=False) == (Errors.UNKNOWN_TOPIC_OR_PARTITION, -1, [])
    two_batches = make_batch(1) + make_batch(1)
    assert await _produce(two_batches, known=False) == (Errors.UNKNOWN_TOPIC_OR_PARTITION, -1, [])
    assert await _produce(make_batch(1), known=False) == (Errors.UNKNOWN_TOPIC_OR_PARTITION, -1, [])


async def test_records_without_one_whole_batch_of_magic_2_are_invalid_record_and_not_appended():
    one = make_batch(1)
    legacy = one[:16] + bytes([1]) + one[17:]
    for records in (b"not a batch", b"", one[:-1], legacy):
        assert await _produce(records) == (Errors.INVALID_RECORD, -1, [])


async def test_acks_0_gets_no_answer_unless_a_partition_failed_which_closes_the_connection():
    assert await _produce(make_batch(1), acks=0) == (None, [TP0])
    assert await _produce(FAILS, acks=0) == (CLOSE_CONNECTION, [TP0])
    assert await _produce(make_batch(1) + make_batch(1), acks=0) == (CLOSE_CONNECTION, [])


async def test_transactional_batches_without_a_transactional_id_fail_authorization_for_the_whole_request():
    transactional = build_kafka_batch(
        [(None, b"v", None, 1_000)], producer_id=7, producer_epoch=0, base_sequence=0, transactional=True
    )
    assert await _produce(transactional) == (Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, -1, [])


async def _produce_many(parts: list[tuple[int, bytes | None]], acks: int = 1):
    """Produce to ``TP0``'s topic, partition and records per entry of ``parts``; the answer's
    (index, error code) pairs and what was appended."""
    appended: dict = {}

    async def handle_produce_append(
        timeout_ms, required_acks, entries, transactional_id, operation, *, internal_topics_allowed
    ):
        appended.update(entries)
        return {tp: ProducePartitionStatus(required_offset=1, base_offset=0, pending=False) for tp in entries}

    ctx = SimpleNamespace(
        replica_manager=SimpleNamespace(handle_produce_append=handle_produce_append),
        metadata_cache=SimpleNamespace(partition_state=lambda tp: object()),
        produce_quotas=ClientQuotaManager("producer_byte_rate"),
    )
    data = [ProducePartitionData(index=i, records=r) for i, r in parts]
    request = ProduceRequest(
        transactional_id=None,
        acks=acks,
        timeout_ms=1000,
        topic_data=[ProduceTopicData(name=TP0.topic, partition_data=data)],
    )
    response = await produce.handle(
        ctx, RequestHeader(api_key=0, api_version=9, correlation_id=1, client_id="test"), request
    )
    if acks == 0:
        return response, list(appended)
    answers = [(p.index, p.error_code) for t in response.responses for p in t.partition_responses]
    return answers, list(appended)


async def test_a_first_batch_kafkas_batch_iterator_refuses_fails_the_whole_request_corrupt_message():
    good = make_batch(1)
    too_small = bytes(8) + (13).to_bytes(4, "big") + bytes(20)  # below the v0 record overhead
    negative = bytes(8) + (-5).to_bytes(4, "big", signed=True)
    bad_magic = good[:16] + bytes([3]) + good[17:]
    for corrupt in (too_small, negative, bad_magic):
        answers, appended = await _produce_many([(0, good), (1, corrupt), (0, good)])
        assert (
            sorted(answers) == [(0, Errors.CORRUPT_MESSAGE), (1, Errors.CORRUPT_MESSAGE)] and appended == []
        )
        assert await _produce_many([(1, corrupt)], acks=0) == (CLOSE_CONNECTION, [])
    short = bytes(8) + (100).to_bytes(4, "big")  # too short to hold a magic: no batch
    assert await _produce_many([(0, short)]) == ([(0, Errors.INVALID_RECORD)], [])


async def test_zstd_before_v7_and_an_unknown_codec_before_v7_are_refused_as_kafka_refuses_them():
    def with_codec(codec: int, version: int):
        batch = bytearray(make_batch(1))
        batch[22] = (batch[22] & ~0x07) | codec  # the attributes' low byte (Kafka's compression id)
        request = ProduceRequest(
            acks=1,
            timeout_ms=1000,
            topic_data=[
                ProduceTopicData(
                    name=TP0.topic, partition_data=[ProducePartitionData(index=0, records=bytes(batch))]
                )
            ],
        )
        ctx = SimpleNamespace(
            replica_manager=SimpleNamespace(handle_produce_append=None),
            metadata_cache=SimpleNamespace(partition_state=lambda tp: object()),
            produce_quotas=ClientQuotaManager("producer_byte_rate"),
        )
        header = RequestHeader(api_key=0, api_version=version, correlation_id=1, client_id="c")
        return produce.handle(ctx, header, request)

    for version, codec, error in (
        (6, 4, Errors.UNSUPPORTED_COMPRESSION_TYPE),
        (6, 5, Errors.UNKNOWN_SERVER_ERROR),
    ):
        response = await with_codec(codec, version)
        assert [p.error_code for t in response.responses for p in t.partition_responses] == [error]
    # Kafka's ProduceRequest.getErrorResponse writes ApiError.fromThrowable's message: none for
    # UNKNOWN_SERVER_ERROR (CompressionType.forId's IllegalArgumentException says nothing on the wire)
    assert [p.error_message for t in response.responses for p in t.partition_responses] == [None]


async def test_a_partition_listed_twice_is_answered_once_a_refusal_winning_else_the_last_batch_appended():
    first, last = make_batch(1), make_batch(2)
    assert await _produce_many([(0, first), (0, last)]) == ([(0, Errors.NONE)], [TP0])
    answers, appended = await _produce_many([(0, b"x"), (0, last)])
    assert answers == [(0, Errors.INVALID_RECORD)] and appended == [
        TP0
    ]  # Kafka appends it, answers the refusal


async def test_batches_after_the_first_transactional_one_are_not_looked_at():
    transactional = build_kafka_batch(
        [(None, b"v", None, 1_000)], producer_id=7, producer_epoch=0, base_sequence=0, transactional=True
    )
    corrupt = bytes(8) + (1).to_bytes(4, "big") + bytes(20)
    answers, appended = await _produce_many([(0, transactional), (1, corrupt), (0, transactional)])
    assert sorted(answers) == [
        (0, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED),
        (1, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED),
    ]
    assert appended == []
    answers, _ = await _produce_many([(1, corrupt), (0, transactional)])
    assert sorted(answers) == [(0, Errors.CORRUPT_MESSAGE), (1, Errors.CORRUPT_MESSAGE)]


async def test_only_kafkas_admin_client_id_may_append_to_internal_topics():
    allowed: list[bool] = []
    await _produce(make_batch(1), client_id="__admin_client", allowed=allowed)
    await _produce(make_batch(1), client_id="my-producer", allowed=allowed)
    await _produce(make_batch(1), client_id=None, allowed=allowed)
    assert allowed == [True, False, False]


TOPIC_ID = bytes(range(1, 17))
UNKNOWN_ID = bytes(range(101, 117))


def _cache(leader: int = 2, leader_epoch: int = 5, live: tuple[int, ...] = (1, 2, 3)) -> MetadataCache:
    """A cache knowing ``TP0`` (id ``TOPIC_ID``) led by ``leader`` and the ``live`` brokers, each with a
    kafkette listener and an ``EXTERNAL`` one."""
    cache = MetadataCache(1, "c")
    cache.update_metadata(
        UpdateMetadataRequest(
            controller_id=1,
            controller_epoch=1,
            full=True,
            partition_states=[
                UpdateMetadataPartitionState(
                    topic_name=TP0.topic,
                    partition_index=0,
                    controller_epoch=1,
                    leader=leader,
                    leader_epoch=leader_epoch,
                    isr=[1, 2, 3],
                    replicas=[1, 2, 3],
                )
            ],
            live_brokers=[
                UpdateMetadataBroker(
                    id=i,
                    host="internal",
                    port=9000 + i,
                    rack=f"rack-{i}",
                    endpoints=[UpdateMetadataEndpoint(listener="EXTERNAL", host=f"h{i}", port=19000 + i)],
                )
                for i in live
            ],
            topic_configs=[
                UpdateMetadataTopicConfigs(topic_name=TP0.topic, topic_id=uuid_to_string(TOPIC_ID))
            ],
        )
    )
    return cache


def _context(cache: MetadataCache, error: Errors = Errors.NONE, partition: object = None) -> SimpleNamespace:
    """A handler context whose appends all answer ``error`` and whose replica of ``TP0`` (if any) is
    ``partition``."""

    async def handle_produce_append(
        timeout_ms, required_acks, entries, transactional_id, operation, *, internal_topics_allowed
    ):
        return {
            tp: ProducePartitionStatus(
                required_offset=1, base_offset=0 if error == Errors.NONE else -1, pending=False, error=error
            )
            for tp in entries
        }

    return SimpleNamespace(
        metadata_cache=cache,
        replica_manager=SimpleNamespace(
            handle_produce_append=handle_produce_append, get_partition=lambda tp: partition
        ),
        produce_quotas=ClientQuotaManager("producer_byte_rate"),
    )


def _request(topics: list[ProduceTopicData], acks: int = 1) -> ProduceRequest:
    return ProduceRequest(transactional_id=None, acks=acks, timeout_ms=1000, topic_data=topics)


def _header(version: int, listener_name: str | None = "EXTERNAL") -> RequestHeader:
    return RequestHeader(
        api_key=0, api_version=version, correlation_id=1, client_id="c", listener_name=listener_name
    )


def _by_name(*partitions: int) -> ProduceTopicData:
    return ProduceTopicData(
        name=TP0.topic,
        partition_data=[ProducePartitionData(index=p, records=make_batch(1)) for p in partitions],
    )


async def test_v13_names_topics_by_id_and_an_id_no_topic_has_is_unknown_topic_id():
    request = _request(
        [
            ProduceTopicData(
                topic_id=TOPIC_ID, partition_data=[ProducePartitionData(index=0, records=make_batch(1))]
            ),
            ProduceTopicData(
                topic_id=UNKNOWN_ID,
                partition_data=[ProducePartitionData(index=p, records=make_batch(1)) for p in (0, 1)],
            ),
        ]
    )
    response = await produce.handle(_context(_cache()), _header(13), request)
    assert [
        (t.topic_id, [(p.index, p.error_code, p.base_offset) for p in t.partition_responses])
        for t in response.responses
    ] == [
        (TOPIC_ID, [(0, Errors.NONE, 0)]),
        (UNKNOWN_ID, [(0, Errors.UNKNOWN_TOPIC_ID, -1), (1, Errors.UNKNOWN_TOPIC_ID, -1)]),
    ]


async def test_v13_with_acks_0_closes_the_connection_for_an_unknown_topic_id():
    request = _request(
        [ProduceTopicData(topic_id=UNKNOWN_ID, partition_data=[ProducePartitionData(index=0, records=b"")])],
        acks=0,
    )
    assert await produce.handle(_context(_cache()), _header(13), request) is CLOSE_CONNECTION


async def test_not_leader_from_a_broker_without_the_replica_carries_the_metadatas_leader_from_v10():
    ctx = _context(_cache(leader=2, leader_epoch=5), Errors.NOT_LEADER_OR_FOLLOWER)
    response = await produce.handle(ctx, _header(10), _request([_by_name(0)]))
    (partition,) = response.responses[0].partition_responses
    assert partition.error_code == Errors.NOT_LEADER_OR_FOLLOWER
    assert (partition.current_leader.leader_id, partition.current_leader.leader_epoch) == (2, 5)
    assert response.node_endpoints == [NodeEndpoint(node_id=2, host="h2", port=19002, rack="rack-2")]


async def test_not_leader_from_a_follower_carries_its_replicas_leader_on_the_requests_listener():
    follower = SimpleNamespace(leader_id=3, leader_epoch=7)
    ctx = _context(_cache(leader=2, leader_epoch=5), Errors.NOT_LEADER_OR_FOLLOWER, follower)
    response = await produce.handle(ctx, _header(12, listener_name=None), _request([_by_name(0)]))
    (partition,) = response.responses[0].partition_responses
    assert (partition.current_leader.leader_id, partition.current_leader.leader_epoch) == (3, 7)
    assert response.node_endpoints == [NodeEndpoint(node_id=3, host="internal", port=9003, rack="rack-3")]


async def test_a_current_leader_that_is_not_alive_has_no_endpoint():
    ctx = _context(_cache(leader=3, leader_epoch=4, live=(1, 2)), Errors.NOT_LEADER_OR_FOLLOWER)
    response = await produce.handle(ctx, _header(11), _request([_by_name(0)]))
    (partition,) = response.responses[0].partition_responses
    assert (partition.current_leader.leader_id, partition.current_leader.leader_epoch) == (3, 4)
    assert response.node_endpoints == []


async def test_before_v10_not_leader_carries_no_current_leader():
    ctx = _context(_cache(), Errors.NOT_LEADER_OR_FOLLOWER)
    response = await produce.handle(ctx, _header(9), _request([_by_name(0)]))
    (partition,) = response.responses[0].partition_responses
    assert (partition.current_leader.leader_id, partition.current_leader.leader_epoch) == (-1, -1)
    assert response.node_endpoints == []
