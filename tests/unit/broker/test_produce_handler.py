"""The Produce handler called directly: the checks it makes before the ReplicaManager appends.

The only stand-in is the handler context's ``replica_manager.append_records``, which records
what it is asked to append.
"""

from __future__ import annotations

from types import SimpleNamespace

from broker_fakes import TP0, make_batch

from kafkette.broker.apis import produce
from kafkette.broker.delayed_produce import ProducePartitionStatus
from kafkette.common.network.socket_server import CLOSE_CONNECTION
from kafkette.protocol.apis.produce import ProducePartitionData, ProduceRequest, ProduceTopicData
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.record_batch import build_kafka_batch


async def _produce(records: bytes, acks: int = 1, client_id: str = "test", allowed: list | None = None):
    appended: dict = {}

    async def append_records(timeout_ms, required_acks, entries, *, internal_topics_allowed):
        if allowed is not None:
            allowed.append(internal_topics_allowed)
        appended.update(entries)
        return {
            tp: ProducePartitionStatus(
                required_offset=1,
                base_offset=0,
                pending=False,
                error=Errors.NONE if records != b"fails" else Errors.CORRUPT_MESSAGE,
            )
            for tp in entries
        }

    ctx = SimpleNamespace(replica_manager=SimpleNamespace(append_records=append_records))
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


async def test_malformed_records_are_left_to_the_log_checks():
    assert (await _produce(b"not a batch"))[2] == [TP0], "the log answers CORRUPT_MESSAGE"


async def test_acks_0_gets_no_answer_unless_a_partition_failed_which_closes_the_connection():
    assert await _produce(make_batch(1), acks=0) == (None, [TP0])
    assert await _produce(b"fails", acks=0) == (CLOSE_CONNECTION, [TP0])
    assert await _produce(make_batch(1) + make_batch(1), acks=0) == (CLOSE_CONNECTION, [])


async def test_transactional_batches_without_a_transactional_id_fail_authorization_for_the_whole_request():
    transactional = build_kafka_batch(
        [(None, b"v", None, 1_000)], producer_id=7, producer_epoch=0, base_sequence=0, transactional=True
    )
    assert await _produce(transactional) == (Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, -1, [])


async def test_only_kafkas_admin_client_id_may_append_to_internal_topics():
    allowed: list[bool] = []
    await _produce(make_batch(1), client_id="__admin_client", allowed=allowed)
    await _produce(make_batch(1), client_id="my-producer", allowed=allowed)
    await _produce(make_batch(1), client_id=None, allowed=allowed)
    assert allowed == [True, False, False]
