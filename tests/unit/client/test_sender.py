"""Sender against a fake client: grouping per leader, retries, failures, acks=0, idempotence."""

from __future__ import annotations

import asyncio

import pytest

from kafkette.client.cluster_metadata import ClusterMetadata
from kafkette.client.producer.producer_batch import record_size_in_bytes
from kafkette.client.producer.record_accumulator import RecordAccumulator
from kafkette.client.producer.sender import Sender
from kafkette.client.producer.transaction_manager import TransactionManager
from kafkette.protocol.apis.metadata import (
    MetadataResponse,
    MetadataResponseBroker,
    MetadataResponsePartition,
    MetadataResponseTopic,
)
from kafkette.protocol.apis.produce import ProducePartitionResponse, ProduceResponse, ProduceTopicResponse
from kafkette.protocol.apis.producer_ids import InitProducerIdResponse
from kafkette.protocol.errors import Errors, KafkaError, MessageTooLargeError
from kafkette.protocol.record_batch import read_header
from kafkette.protocol.topic_partition import TopicPartition

TP0, TP1, TP2 = (TopicPartition("t", p) for p in range(3))


class FakeClient:
    """Answers ProduceRequests from a script: ``errors[(tp, attempt)] = code``."""

    retry_backoff_ms = 0

    def __init__(self, leaders: list[int]) -> None:
        self.cluster = ClusterMetadata()
        partitions = [
            MetadataResponsePartition(error_code=0, partition_index=i, leader_id=leader, leader_epoch=0,
                                      replica_nodes=[leader], isr_nodes=[leader], offline_replicas=[])
            for i, leader in enumerate(leaders)
        ]
        self.cluster.update(MetadataResponse(
            brokers=[MetadataResponseBroker(node_id=n, host="h", port=n, rack=None) for n in set(leaders)],
            cluster_id="c", controller_id=1,
            topics=[MetadataResponseTopic(error_code=0, name="t", is_internal=False, partitions=partitions)],
        ), ["t"])
        self.requests: list[tuple[int, object, bool]] = []
        self.errors: dict[tuple[TopicPartition, int], int] = {}
        self.attempts: dict[TopicPartition, int] = {}
        self.next_offset: dict[TopicPartition, int] = {}
        self.metadata_updates = 0

    def request_metadata_update(self) -> None:
        self.metadata_updates += 1

    async def send_to_any(self, request):
        return InitProducerIdResponse(error_code=0, producer_id=77, producer_epoch=0)

    async def send(self, node_id, request, *, timeout_ms=None, expect_response=True):
        self.requests.append((node_id, request, expect_response))
        if not expect_response:
            return None
        topics = []
        for topic in request.topic_data:
            parts = []
            for data in topic.partition_data:
                tp = TopicPartition(topic.name, data.index)
                attempt = self.attempts.get(tp, 0)
                self.attempts[tp] = attempt + 1
                code = self.errors.get((tp, attempt), 0)
                base = -1
                if code == 0:
                    base = self.next_offset.get(tp, 0)
                    self.next_offset[tp] = base + read_header(data.records).records_count
                parts.append(ProducePartitionResponse(index=data.index, error_code=code, base_offset=base))
            topics.append(ProduceTopicResponse(name=topic.name, partition_responses=parts))
        return ProduceResponse(responses=topics)


def make(client: FakeClient, acks: int = -1, idempotent: bool = False):
    acc = RecordAccumulator(linger_ms=0, retry_backoff_ms=0, delivery_timeout_ms=60_000)
    tm = TransactionManager(client, retry_backoff_ms=0, required=True) if idempotent else None  # type: ignore[arg-type]
    sender = Sender(client, acc, acks=acks, request_timeout_ms=1000,  # type: ignore[arg-type]
                    max_in_flight_requests_per_connection=5, client_id="test", transaction_manager=tm)
    return acc, sender


def send(acc: RecordAccumulator, tp: TopicPartition, value: bytes = b"v"):
    return acc.append(tp, None, value, None, 1000, record_size_in_bytes(None, value, None))


async def wait_all(futures):
    return await asyncio.wait_for(asyncio.gather(*futures, return_exceptions=True), 5)


async def send_all(sender: Sender, futures):
    """Run the sender until every future is done (bounded); their results or exceptions."""
    sender.start()
    try:
        return await wait_all(futures)
    finally:
        await sender.stop()


async def test_batches_are_grouped_into_one_request_per_leader():
    client = FakeClient(leaders=[1, 2, 1])
    acc, sender = make(client)
    futures = [send(acc, tp) for tp in (TP0, TP1, TP2)]
    results = await send_all(sender, futures)
    assert [r.offset for r in results] == [0, 0, 0]
    by_node = {node: sorted(p.index for t in req.topic_data for p in t.partition_data)
               for node, req, _ in client.requests}
    assert by_node == {1: [0, 2], 2: [1]}


async def test_retriable_error_is_retried_after_a_metadata_refresh():
    client = FakeClient(leaders=[1])
    client.errors[(TP0, 0)] = Errors.NOT_LEADER_OR_FOLLOWER
    acc, sender = make(client)
    futures = [send(acc, TP0, b"a"), send(acc, TP0, b"b")]
    results = await send_all(sender, futures)
    assert [r.offset for r in results] == [0, 1]
    assert client.attempts[TP0] == 2 and client.metadata_updates >= 1


async def test_non_retriable_error_fails_the_records():
    client = FakeClient(leaders=[1])
    client.errors[(TP0, 0)] = Errors.MESSAGE_TOO_LARGE
    acc, sender = make(client)
    future = send(acc, TP0)
    [result] = await send_all(sender, [future])
    assert isinstance(result, MessageTooLargeError)
    assert client.attempts[TP0] == 1 and not acc.has_incomplete()


async def test_acks_zero_sends_without_waiting_and_reports_offset_minus_one():
    client = FakeClient(leaders=[1])
    acc, sender = make(client, acks=0)
    future = send(acc, TP0)
    [result] = await send_all(sender, [future])
    assert result.offset == -1
    assert client.requests[0][2] is False and client.requests[0][1].acks == 0


async def test_idempotent_batches_carry_producer_id_and_consecutive_sequences():
    client = FakeClient(leaders=[1])
    client.errors[(TP0, 1)] = Errors.REQUEST_TIMED_OUT  # the second batch is retried once
    acc, sender = make(client, idempotent=True)
    sender.start()
    try:
        first = [send(acc, TP0, b"a"), send(acc, TP0, b"b")]
        await wait_all(first)
        second = [send(acc, TP0, b"c")]
        await wait_all(second)
    finally:
        await sender.stop()
    headers = [read_header(p.records) for _, req, _ in client.requests for t in req.topic_data
               for p in t.partition_data]
    assert [(h.producer_id, h.producer_epoch, h.base_sequence) for h in headers] == [
        (77, 0, 0), (77, 0, 2), (77, 0, 2)]
    assert [f.result().offset for f in first + second] == [0, 1, 2]


async def test_a_crashed_sender_fails_every_pending_batch():
    client = FakeClient(leaders=[1])

    def broken_leader_for(tp):
        raise RuntimeError("bug")

    client.cluster.leader_for = broken_leader_for  # type: ignore[method-assign]
    acc, sender = make(client)
    future = send(acc, TP0)
    sender.start()
    with pytest.raises(KafkaError, match="crashed"):
        await asyncio.wait_for(future, 5)
    await sender.stop()
    assert not acc.has_incomplete()
