"""ControllerBrokerRequestBatch: StopReplica per-partition callbacks, topics queued for
deletion left out of LeaderAndIsr / UpdateMetadata, UpdateMetadata's live and fenced brokers, and
creation's name-collision warning."""

from __future__ import annotations

import asyncio

from controller_fakes import register_live_brokers
from test_kafka_controller import create, topic

from kafkette.controller.controller_broker_request_batch import ControllerBrokerRequestBatch
from kafkette.controller.controller_context import (
    BrokerRegistration,
    ControllerContext,
    PartitionRegistration,
    TopicInfo,
)
from kafkette.protocol.apis.stop_replica import (
    StopReplicaPartitionError,
    StopReplicaRequest,
    StopReplicaResponse,
)
from kafkette.protocol.errors import Errors, KafkaConnectionError
from kafkette.protocol.topic_partition import TopicPartition

A0, A1 = TopicPartition("a", 0), TopicPartition("a", 1)


class _Channel:
    def __init__(self):
        self.futures: dict[int, asyncio.Future] = {}
        self.requests: dict[int, list] = {}

    def send(self, broker_id, request):
        future = asyncio.get_running_loop().create_future()
        self.futures[broker_id] = future
        self.requests.setdefault(broker_id, []).append(request)
        return future


def _context():
    ctx = ControllerContext(lambda: 0)
    ctx.topics["a"] = TopicInfo("a", "id-a", num_partitions=2)
    for tp in (A0, A1):
        ctx.partitions[tp] = PartitionRegistration([1, 2], [1, 2], 1, 3, 0)
    return ctx


async def test_stop_replica_callbacks_get_each_partitions_error():
    channel, results = _Channel(), []
    batch = ControllerBrokerRequestBatch(_context(), 1, channel)
    for tp in (A0, A1):
        batch.add_stop_replica_request_for_brokers(
            [2], tp, delete_partition=True, callback=lambda b, tp, e: results.append((b, tp, e))
        )
    batch.send_requests_to_brokers()
    (request,) = channel.requests[2]
    assert isinstance(request, StopReplicaRequest)
    assert [
        (p.partition_index, p.leader_epoch, p.delete_partition)
        for p in request.topic_states[0].partition_states
    ] == [(0, 3, True), (1, 3, True)]
    channel.futures[2].set_result(
        StopReplicaResponse(
            error_code=0,
            partition_errors=[
                StopReplicaPartitionError(topic_name="a", partition_index=0, error_code=0),
                StopReplicaPartitionError(
                    topic_name="a", partition_index=1, error_code=Errors.KAFKA_STORAGE_ERROR
                ),
            ],
        )
    )
    await asyncio.sleep(0)
    assert results == [(2, A0, 0), (2, A1, Errors.KAFKA_STORAGE_ERROR)]


async def test_update_metadata_lists_the_live_brokers_and_apart_the_registered_fenced_ones():
    ctx = _context()
    for broker_id, fenced in ((1, False), (2, True), (3, False)):
        ctx.brokers[broker_id] = BrokerRegistration(
            broker_id, 10, f"inc-{broker_id}", "127.0.0.1", 9000 + broker_id, "r", fenced=fenced
        )
    channel = _Channel()
    batch = ControllerBrokerRequestBatch(ctx, 1, channel)
    batch.add_update_metadata_request_for_brokers([1], [A0])
    batch.send_requests_to_brokers()
    (request,) = channel.requests[1]
    assert [(b.id, b.port, b.rack) for b in request.live_brokers] == [(1, 9001, "r"), (3, 9003, "r")]
    assert [(b.id, b.port) for b in request.fenced_brokers] == [(2, 9002)]


async def test_undelivered_stop_replica_fails_every_partition():
    channel, results = _Channel(), []
    batch = ControllerBrokerRequestBatch(_context(), 1, channel)
    batch.add_stop_replica_request_for_brokers(
        [2], A0, delete_partition=True, callback=lambda b, tp, e: results.append((b, tp, e))
    )
    batch.send_requests_to_brokers()
    channel.futures[2].set_exception(KafkaConnectionError("broker 2 removed"))
    await asyncio.sleep(0)
    assert results == [(2, A0, Errors.UNKNOWN_SERVER_ERROR)]


async def test_topics_queued_for_deletion_are_not_sent_as_partitions():
    ctx = _context()
    ctx.topics_to_be_deleted.add("a")
    channel = _Channel()
    batch = ControllerBrokerRequestBatch(ctx, 1, channel)
    batch.add_leader_and_isr_request_for_brokers([1, 2], [A0, A1], full=True)
    batch.add_update_metadata_request_for_brokers([1], full=True)
    batch.send_requests_to_brokers()
    (update,) = channel.requests[1]
    assert update.partition_states == [] and update.deleted_topics == ["a"] and update.topic_configs == []
    assert 2 not in channel.requests


async def test_a_topic_that_collides_on_dot_and_underscore_is_refused_as_kraft_refuses_it(controller):
    await register_live_brokers(controller, 1)
    await create(controller, topic("metrics.cpu", 1, 1))
    result = (await create(controller, topic("metrics_cpu", 1, 1))).topics[0]
    assert (result.error_code, result.error_message) == (
        Errors.INVALID_TOPIC_EXCEPTION,
        "Topic 'metrics_cpu' collides with existing topic: metrics.cpu",
    )
    both = (await create(controller, topic("load.avg", 1, 1), topic("load_avg", 1, 1))).topics
    assert [r.error_code for r in both] == [Errors.NONE, Errors.INVALID_TOPIC_EXCEPTION]


async def test_update_metadata_carries_the_named_groups_overrides_and_every_groups_when_full():
    ctx = _context()
    ctx.group_configs = {
        "g": {"consumer.session.timeout.ms": "50000"},
        "h": {"consumer.heartbeat.interval.ms": "6000"},
    }
    channel = _Channel()
    batch = ControllerBrokerRequestBatch(ctx, 1, channel)
    batch.add_update_metadata_request_for_brokers([1], groups=["g", "gone"])
    batch.add_update_metadata_request_for_brokers([2], full=True)
    batch.send_requests_to_brokers()
    (named,) = channel.requests[1]
    assert [(g.group_id, [(c.name, c.value) for c in g.configs]) for g in named.group_configs] == [
        ("g", [("consumer.session.timeout.ms", "50000")]),
        ("gone", []),
    ]
    (full,) = channel.requests[2]
    assert [g.group_id for g in full.group_configs] == ["g", "h"]
