"""Sender against a fake client: grouping per leader, retries, failures, acks=0, idempotence,
pipelining of up to five batches per partition with their order kept across a leader's death."""

from __future__ import annotations

import asyncio
import logging
import re

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
from kafkette.protocol.errors import (
    Errors,
    KafkaConnectionError,
    KafkaError,
    KafkaTimeoutError,
    MessageTooLargeError,
    NotEnoughReplicasError,
    OutOfOrderSequenceNumberError,
)
from kafkette.protocol.record_batch import decode_records, read_header
from kafkette.protocol.topic_partition import TopicPartition

TP0, TP1, TP2 = (TopicPartition("t", p) for p in range(3))


class FakeClient:
    """Answers ProduceRequests from a script: ``errors[(tp, attempt)] = code``."""

    retry_backoff_ms = 0

    def __init__(self, leaders: list[int]) -> None:
        self.cluster = ClusterMetadata()
        partitions = [
            MetadataResponsePartition(
                error_code=0,
                partition_index=i,
                leader_id=leader,
                leader_epoch=0,
                replica_nodes=[leader],
                isr_nodes=[leader],
                offline_replicas=[],
            )
            for i, leader in enumerate(leaders)
        ]
        self.cluster.update(
            MetadataResponse(
                brokers=[
                    MetadataResponseBroker(node_id=n, host="h", port=n, rack=None) for n in set(leaders)
                ],
                cluster_id="c",
                controller_id=1,
                topics=[
                    MetadataResponseTopic(error_code=0, name="t", is_internal=False, partitions=partitions)
                ],
            ),
            ["t"],
        )
        self.requests: list[tuple[int, object, bool]] = []
        self.errors: dict[tuple[TopicPartition, int], int] = {}
        self.attempts: dict[TopicPartition, int] = {}
        self.next_offset: dict[TopicPartition, int] = {}
        self.metadata_updates = 0
        self.connection_delays: dict[int, float] = {}  # node id -> ms left of its reconnect backoff
        self.refused: set[int] = set()  # nodes whose connect fails
        self.api_versions: list[int | None] = []  # the version of each Produce sent

    def request_metadata_update(self, reset_backoff: bool = True) -> None:
        self.metadata_updates += 1

    def connection_delay_ms(self, node_id: int) -> float:
        return self.connection_delays.get(node_id, 0.0)

    async def get_connection(self, node_id: int) -> None:
        if node_id in self.refused:
            raise KafkaConnectionError(f"Cannot connect to broker {node_id}: connection refused")

    async def send_to_any(self, request):
        return InitProducerIdResponse(error_code=0, producer_id=77, producer_epoch=0)

    async def send(self, node_id, request, *, timeout_ms=None, expect_response=True, api_version=None):
        self.requests.append((node_id, request, expect_response))
        self.api_versions.append(api_version)
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
    sender = Sender(
        client,
        acc,
        acks=acks,
        request_timeout_ms=1000,  # type: ignore[arg-type]
        max_in_flight_requests_per_connection=5,
        client_id="test",
        transaction_manager=tm,
    )
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
    by_node = {
        node: sorted(p.index for t in req.topic_data for p in t.partition_data)
        for node, req, _ in client.requests
    }
    assert by_node == {1: [0, 2], 2: [1]}


async def test_produce_requests_name_topics_at_v12_whatever_the_highest_version():
    client = FakeClient(leaders=[1])
    acc, sender = make(client)
    await send_all(sender, [send(acc, TP0)])
    assert client.api_versions == [12]
    assert [t.name for _, req, _ in client.requests for t in req.topic_data] == ["t"]


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
    headers = [
        read_header(p.records)
        for _, req, _ in client.requests
        for t in req.topic_data
        for p in t.partition_data
    ]
    assert [(h.producer_id, h.producer_epoch, h.base_sequence) for h in headers] == [
        (77, 0, 0),
        (77, 0, 2),
        (77, 0, 2),
    ]
    assert [f.result().offset for f in first + second] == [0, 1, 2]


async def test_a_crashed_sender_fails_every_pending_batch():
    client = FakeClient(leaders=[1])

    def broken_partitions_by_leader(tps):
        raise RuntimeError("bug")

    client.cluster.partitions_by_leader = broken_partitions_by_leader  # type: ignore[method-assign]
    acc, sender = make(client)
    future = send(acc, TP0)
    sender.start()
    with pytest.raises(KafkaError, match="crashed"):
        await asyncio.wait_for(future, 5)
    await sender.stop()
    assert not acc.has_incomplete()


class SequencingLeader(FakeClient):
    """One partition's leader that checks idempotent sequences on arrival as
    ``ProducerStateManager`` does (a retry of one of the last five batches gets its
    original offset, a gap OUT_OF_ORDER_SEQUENCE_NUMBER) and holds each answer while
    ``held`` (``release(n)`` lets the next ``n`` answers go, in order).

    ``script`` says what happens to the next requests, in order: ``"ok"``, ``"lose"``
    (the leader dies before appending: the connection drops), ``"append-then-lose"`` (it
    appended and replicated the batch, then died before answering).
    """

    def __init__(self) -> None:
        super().__init__(leaders=[1])
        self.held = False
        self._answers: list[asyncio.Event] = []  # one per request, set when it may be answered
        self._released = 0
        self.script: list[str] = []
        self.values: list[bytes] = []  # the partition's log
        self.batches: dict[tuple[int, int], int] = {}  # (first, last sequence) -> base offset
        self.in_flight = 0
        self.max_in_flight = 0

    def release(self, count: int | None = None) -> None:
        """Let ``count`` more held answers go, in order (all, and stop holding, when None)."""
        if count is None:
            self.held = False
            count = len(self._answers)
        self._released += count
        for answer in self._answers[: self._released]:
            answer.set()

    async def send(self, node_id, request, *, timeout_ms=None, expect_response=True, api_version=None):
        self.requests.append((node_id, request, expect_response))
        answer = asyncio.Event()
        self._answers.append(answer)
        if not self.held or len(self._answers) <= self._released:
            answer.set()
        step = self.script.pop(0) if self.script else "ok"
        [topic] = request.topic_data
        [data] = topic.partition_data
        code, base = (-1, -1) if step == "lose" else self._append(data.records)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            async with asyncio.timeout(5):
                await answer.wait()
        finally:
            self.in_flight -= 1
        if step != "ok":
            raise KafkaConnectionError("the leader died")
        return ProduceResponse(
            responses=[
                ProduceTopicResponse(
                    name=topic.name,
                    partition_responses=[
                        ProducePartitionResponse(index=data.index, error_code=code, base_offset=base)
                    ],
                )
            ]
        )

    def _append(self, records: bytes) -> tuple[int, int]:
        header = read_header(records)
        first, last = header.base_sequence, header.base_sequence + header.records_count - 1
        if (first, last) in self.batches:
            return Errors.NONE, self.batches[(first, last)]
        expected = max((b[1] for b in self.batches), default=-1) + 1
        if first != expected:
            return Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, -1
        base = len(self.values)
        self.values.extend(r.value for r in decode_records(records))
        self.batches[(first, last)] = base
        return Errors.NONE, base


def one_record_batches(client: FakeClient, max_in_flight: int = 5):
    acc = RecordAccumulator(linger_ms=0, retry_backoff_ms=0, delivery_timeout_ms=60_000, max_batch_size=100)
    tm = TransactionManager(client, retry_backoff_ms=0, required=True)  # type: ignore[arg-type]
    sender = Sender(
        client,
        acc,
        acks=-1,
        request_timeout_ms=1000,  # type: ignore[arg-type]
        max_in_flight_requests_per_connection=max_in_flight,
        client_id="test",
        transaction_manager=tm,
    )
    return acc, sender


def value(i: int) -> bytes:
    return b"%d" % i + bytes(80)  # one record per batch


async def pipeline_then(leader: SequencingLeader, script: list[str], records: int = 8) -> list:
    """Play ``script`` on the first requests while their answers are held until five
    one-record batches are in flight; then answer everything."""
    acc, sender = one_record_batches(leader)
    leader.held = True
    leader.script = list(script)
    sender.start()
    try:
        futures = [send(acc, TP0, value(i)) for i in range(records)]
        await wait_until(lambda: leader.in_flight == 5)
        assert sender.in_flight_batches(TP0) == 5
        leader.release()
        return await wait_all(futures)
    finally:
        await sender.stop()


async def wait_until(condition, timeout_s: float = 5) -> None:
    async with asyncio.timeout(timeout_s):
        while not condition():
            await asyncio.sleep(0.001)


async def test_five_batches_of_a_partition_are_in_flight_at_once():
    leader = SequencingLeader()
    results = await pipeline_then(leader, [])
    assert leader.max_in_flight == 5
    assert [r.offset for r in results] == list(range(8))


async def test_while_every_broker_has_five_requests_in_flight_the_queues_are_not_walked():
    leader = SequencingLeader()
    acc, sender = one_record_batches(leader)
    leader.held = True
    walks = []
    ready = acc.ready
    acc.ready = lambda *args: walks.append(1) or ready(*args)  # type: ignore[method-assign]
    sender.start()
    try:
        futures = [send(acc, TP0, value(i)) for i in range(5)]
        await wait_until(lambda: leader.in_flight == 5)
        walked = len(walks)
        futures += [send(acc, TP0, value(i)) for i in range(5, 8)]  # queued behind the five
        for _ in range(20):
            acc.wakeup.set()
            await asyncio.sleep(0)
        assert len(walks) == walked
        leader.release()
        results = await wait_all(futures)
    finally:
        await sender.stop()
    assert [r.offset for r in results] == list(range(8))


async def test_with_one_in_flight_a_partition_sends_one_batch_at_a_time():
    leader = SequencingLeader()
    acc, sender = one_record_batches(leader, max_in_flight=1)
    futures = [send(acc, TP0, value(i)) for i in range(6)]
    results = await send_all(sender, futures)
    assert leader.max_in_flight == 1
    assert [r.offset for r in results] == list(range(6))


async def test_leader_dying_with_five_batches_in_flight_keeps_order_and_writes_each_once():
    # The old leader appended (and replicated) the first two batches, then died: every
    # in-flight request fails; the retries of the first two are answered as duplicates.
    leader = SequencingLeader()
    results = await pipeline_then(leader, ["append-then-lose", "append-then-lose", "lose", "lose", "lose"])
    assert [r.offset for r in results] == list(range(8))
    assert leader.values == [value(i) for i in range(8)]


async def test_batches_sent_behind_a_lost_one_are_retried_after_out_of_order_sequence():
    leader = SequencingLeader()
    results = await pipeline_then(leader, ["lose", "ok", "ok", "ok", "ok"])
    assert [r.offset for r in results] == list(range(8))
    assert leader.values == [value(i) for i in range(8)]


async def test_out_of_order_sequence_for_the_next_batch_fails_it_and_resets_the_producer_id():
    leader = SequencingLeader()
    leader.batches[(0, 4)] = 0  # the leader believes sequences 0-4 were written: batch 0 is a gap to it
    leader.values.extend([b"lost"] * 5)
    acc, sender = one_record_batches(leader, max_in_flight=1)
    future = send(acc, TP0, b"x")
    [result] = await send_all(sender, [future])
    assert isinstance(result, OutOfOrderSequenceNumberError)
    assert not sender._tm.has_producer_id


async def test_a_retried_batch_is_resent_only_after_the_batches_sent_behind_it_came_back():
    leader = SequencingLeader()
    acc, sender = one_record_batches(leader)
    leader.held = True
    leader.script = ["lose", "ok", "ok", "ok", "ok"]
    sender.start()
    try:
        futures = [send(acc, TP0, value(i)) for i in range(8)]
        await wait_until(lambda: leader.in_flight == 5)
        leader.release(1)  # the first batch's connection error comes back
        await wait_until(lambda: leader.in_flight == 4)
        await asyncio.sleep(0.05)
        assert len(leader.requests) == 5, "the failed batch was resent while later batches were in flight"
        leader.release()
        results = await wait_all(futures)
    finally:
        await sender.stop()
    assert [r.offset for r in results] == list(range(8))
    assert leader.values == [value(i) for i in range(8)]


def sender_lines(caplog) -> list[tuple[str, str]]:
    return [
        (r.levelname, r.getMessage())
        for r in caplog.records
        if r.name == "kafkette.client.producer.sender" and r.levelno >= logging.INFO
    ]


async def test_a_partition_failing_many_times_logs_one_warning_then_one_info_when_written(caplog):
    caplog.set_level(logging.DEBUG, logger="kafkette.client.producer.sender")
    client = FakeClient(leaders=[1, 1])
    for attempt in range(20):
        client.errors[(TP0, attempt)] = Errors.NOT_ENOUGH_REPLICAS
    acc, sender = make(client)
    results = await send_all(sender, [send(acc, TP0), send(acc, TP1)])
    assert [r.offset for r in results] == [0, 0] and client.attempts[TP0] == 21
    assert sender_lines(caplog) == [
        (
            "WARNING",
            "[Producer clientId=test] Got error produce response on topic-partition t-0, retrying "
            "(delivery.timeout.ms=60000). Error: [Error 19] NOT_ENOUGH_REPLICAS: Messages are rejected "
            "since there are fewer in-sync replicas than required.",
        ),
        ("INFO", sender_lines(caplog)[1][1]),
    ]
    assert re.fullmatch(
        r"\[Producer clientId=test\] Produce to topic-partition t-0 succeeded again after "
        r"\d+\.\d s \(20 failures\)",
        sender_lines(caplog)[1][1],
    )


async def test_retries_bounds_how_often_a_batch_is_sent_again():
    client = FakeClient(leaders=[1])
    for attempt in range(10):
        client.errors[(TP0, attempt)] = Errors.NOT_ENOUGH_REPLICAS
    acc = RecordAccumulator(linger_ms=0, retry_backoff_ms=0, delivery_timeout_ms=60_000)
    sender = Sender(
        client,
        acc,
        acks=-1,
        request_timeout_ms=1000,  # type: ignore[arg-type]
        max_in_flight_requests_per_connection=5,
        client_id="test",
        retries=2,
    )
    [result] = await send_all(sender, [send(acc, TP0)])
    assert isinstance(result, NotEnoughReplicasError)
    assert client.attempts[TP0] == 3  # the first send and two retries, as Kafka's canRetry
    with pytest.raises(ValueError, match="retries"):
        Sender(
            client,
            acc,
            acks=-1,
            request_timeout_ms=1000,  # type: ignore[arg-type]
            max_in_flight_requests_per_connection=5,
            client_id="test",
            retries=-1,
        )


async def test_connects_that_fail_spend_none_of_the_retries():
    client = FakeClient(leaders=[1])
    client.refused.add(1)
    acc = RecordAccumulator(linger_ms=0, retry_backoff_ms=0, delivery_timeout_ms=60_000)
    sender = Sender(
        client,
        acc,
        acks=-1,
        request_timeout_ms=1000,  # type: ignore[arg-type]
        max_in_flight_requests_per_connection=5,
        client_id="test",
        retries=1,
    )
    future = send(acc, TP0)
    sender.start()
    try:
        await asyncio.sleep(0.3)  # many refused connects: no reconnect backoff in this fake
        assert not future.done() and client.requests == []
        client.refused.clear()
        acc.wakeup.set()
        assert (await asyncio.wait_for(future, 5)).offset == 0
    finally:
        await sender.stop()
    assert client.attempts[TP0] == 1


async def test_a_leader_in_its_reconnect_backoff_gets_no_request_until_it_is_over():
    client = FakeClient(leaders=[1, 2])
    client.connection_delays[1] = 10_000.0
    acc, sender = make(client)
    futures = [send(acc, TP0), send(acc, TP1)]
    sender.start()
    try:
        await asyncio.wait_for(futures[1], 5)  # broker 2 is sent to
        await asyncio.sleep(0.2)
        assert [node for node, _, _ in client.requests] == [2]
        assert acc.queued_batches(TP0)[0].attempts == 0  # waiting costs the batch no attempt
        del client.connection_delays[1]
        acc.wakeup.set()
        assert (await asyncio.wait_for(futures[0], 5)).offset == 0
    finally:
        await sender.stop()
    assert [node for node, _, _ in client.requests] == [2, 1]


async def test_a_partition_whose_batches_expired_waiting_for_a_leader_is_no_longer_watched():
    client = FakeClient(leaders=[-1, 1])  # t-0 has no leader, t-1 has broker 1
    client.retry_backoff_ms = 10
    acc = RecordAccumulator(linger_ms=0, retry_backoff_ms=0, delivery_timeout_ms=300)
    sender = Sender(
        client,
        acc,
        acks=-1,
        request_timeout_ms=1000,  # type: ignore[arg-type]
        max_in_flight_requests_per_connection=5,
        client_id="test",
    )
    [expired] = await send_all(sender, [send(acc, TP0)])
    assert isinstance(expired, KafkaTimeoutError)
    # Nothing of t-0 is left to send: the Sender no longer walks the partitions of every request
    # it sends looking for a leader of t-0.
    assert sender._leaderless == {}


def leaders_now(client: FakeClient, leaders: list[int], epochs: list[int]) -> None:
    """A Metadata answer naming ``leaders`` with ``epochs`` for t's partitions."""
    partitions = [
        MetadataResponsePartition(
            error_code=0,
            partition_index=i,
            leader_id=leader,
            leader_epoch=epoch,
            replica_nodes=[leader],
            isr_nodes=[leader],
            offline_replicas=[],
        )
        for i, (leader, epoch) in enumerate(zip(leaders, epochs, strict=True))
    ]
    client.cluster.update(
        MetadataResponse(
            brokers=[MetadataResponseBroker(node_id=n, host="h", port=n, rack=None) for n in set(leaders)],
            cluster_id="c",
            controller_id=1,
            topics=[MetadataResponseTopic(error_code=0, name="t", is_internal=False, partitions=partitions)],
        ),
        ["t"],
    )


async def test_a_retried_batch_goes_to_a_new_leader_at_once_and_else_waits_its_retry_backoff():
    client = FakeClient(leaders=[1, 1])
    client.errors[(TP0, 0)] = client.errors[(TP1, 0)] = Errors.NOT_LEADER_OR_FOLLOWER
    acc = RecordAccumulator(
        linger_ms=0, retry_backoff_ms=1000, retry_backoff_max_ms=1000, delivery_timeout_ms=60_000
    )
    sender = Sender(
        client,
        acc,
        acks=-1,
        request_timeout_ms=1000,  # type: ignore[arg-type]
        max_in_flight_requests_per_connection=5,
        client_id="test",
    )
    answer = client.send

    async def send(node_id, request, **kwargs):
        response = await answer(node_id, request, **kwargs)
        if node_id == 1:  # once the Sender has taken the errors in: t-0 gets a new leader, t-1 keeps its own
            asyncio.get_running_loop().call_soon(leaders_now, client, [2, 1], [1, 0])
        return response

    client.send = send  # type: ignore[method-assign]
    futures = [globals()["send"](acc, TP0), globals()["send"](acc, TP1)]
    sender.start()
    try:
        # The retry backoff is 800 to 1000 ms: t-0's newer leader epoch (KIP-951) ends it at once ...
        assert (await asyncio.wait_for(futures[0], 0.5)).offset == 0
        assert not futures[1].done()  # ... while t-1's holds
        assert (await asyncio.wait_for(futures[1], 5)).offset == 0
    finally:
        await sender.stop()
    assert [node for node, _, _ in client.requests] == [1, 2, 1]
