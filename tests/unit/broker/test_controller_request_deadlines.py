"""The controller's requests with a TimeoutMs <= 0 (CreateTopics, DeleteTopics, CreatePartitions,
ElectLeaders): Kafka's QuorumController finds the deadline (now + TimeoutMs) already past and answers
REQUEST_TIMED_OUT for everything named, without doing anything; so does Kafkette's broker, before it
forwards anything."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from kafkette.broker.apis import (
    controller_mutation_quota,
    create_partitions,
    create_topics,
    delete_topics,
    elect_leaders,
)
from kafkette.broker.controller_mutation_quota_manager import ControllerMutationQuotaManager
from kafkette.protocol.apis.create_partitions import CreatePartitionsRequest, CreatePartitionsTopic
from kafkette.protocol.apis.create_topics import CreatableTopic, CreateTopicsRequest
from kafkette.protocol.apis.delete_topics import DeleteTopicsRequest
from kafkette.protocol.apis.elect_leaders import ElectLeadersRequest, ElectLeadersTopicPartitions
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

NO_CONTROLLER = SimpleNamespace()  # any use of the context (forwarding) fails the test


def _header(api_key: int, version: int) -> RequestHeader:
    return RequestHeader(api_key=api_key, api_version=version, correlation_id=1, client_id="c")


@pytest.mark.parametrize("timeout_ms", [0, -1])
async def test_create_topics(timeout_ms):
    request = CreateTopicsRequest(
        topics=[CreatableTopic(name=n, num_partitions=1, replication_factor=1) for n in ("a", "b")],
        timeout_ms=timeout_ms,
    )
    answer = await create_topics.handle(NO_CONTROLLER, _header(19, 7), request)
    assert [(t.name, t.error_code, t.error_message) for t in answer.topics] == [
        ("a", Errors.REQUEST_TIMED_OUT, None),
        ("b", Errors.REQUEST_TIMED_OUT, None),
    ]


@pytest.mark.parametrize("timeout_ms", [0, -5])
async def test_delete_topics(timeout_ms):
    request = DeleteTopicsRequest(topic_names=["a", "b"], timeout_ms=timeout_ms)
    answer = await delete_topics.handle(NO_CONTROLLER, _header(20, 5), request)
    assert [(t.name, t.error_code) for t in answer.responses] == [
        ("a", Errors.REQUEST_TIMED_OUT),
        ("b", Errors.REQUEST_TIMED_OUT),
    ]


async def test_create_partitions():
    request = CreatePartitionsRequest(
        topics=[CreatePartitionsTopic(name="a", count=3, assignments=None)], timeout_ms=0
    )
    answer = await create_partitions.handle(NO_CONTROLLER, _header(37, 3), request)
    assert [(t.name, t.error_code, t.error_message) for t in answer.results] == [
        ("a", Errors.REQUEST_TIMED_OUT, None)
    ]


async def test_elect_leaders():
    request = ElectLeadersRequest(
        election_type=0,
        topic_partitions=[ElectLeadersTopicPartitions(topic="a", partitions=[0, 1])],
        timeout_ms=0,
    )
    answer = await elect_leaders.handle(NO_CONTROLLER, _header(43, 2), request)
    assert answer.error_code == Errors.REQUEST_TIMED_OUT
    assert [
        (r.topic, [(p.partition_id, p.error_code) for p in r.partition_result])
        for r in answer.replica_election_results
    ] == [("a", [(0, Errors.REQUEST_TIMED_OUT), (1, Errors.REQUEST_TIMED_OUT)])]


async def test_nothing_left_to_do_is_answered_as_without_a_deadline(monkeypatch):
    asked = []

    async def at_controller(ctx, header, request, call, timeout_ms):
        asked.append(type(request).__name__)
        return None  # answered NOT_CONTROLLER, as when no controller answers

    for module in (controller_mutation_quota, elect_leaders):
        monkeypatch.setattr(module, "at_controller", at_controller)
    twice = [CreatePartitionsTopic(name="a", count=3, assignments=None)] * 2
    no_quotas = SimpleNamespace(controller_mutation_quotas=ControllerMutationQuotaManager())
    await create_partitions.handle(
        no_quotas, _header(37, 3), CreatePartitionsRequest(topics=twice, timeout_ms=0)
    )
    none = ElectLeadersRequest(election_type=0, topic_partitions=[], timeout_ms=0)
    await elect_leaders.handle(NO_CONTROLLER, _header(43, 2), none)
    # Kafka's ControllerApis answers duplicates itself and its QuorumController an empty list at once
    assert asked == ["CreatePartitionsRequest", "ElectLeadersRequest"]
