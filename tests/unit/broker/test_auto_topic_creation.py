"""AutoTopicCreationManager (with a fake controller channel) and auto-creation in the
Metadata handler (seeds 000 and 003)."""

from __future__ import annotations

import asyncio

import pytest
from lifecycle_fakes import FakeControllerChannel, apis_context, make_config, running_replica_manager

from kafkette.broker.apis import metadata as metadata_api
from kafkette.broker.auto_topic_creation_manager import AutoTopicCreationManager
from kafkette.protocol.apis.create_topics import (
    CreatableTopicResult,
    CreateTopicsRequest,
    CreateTopicsResponse,
)
from kafkette.protocol.apis.metadata import MetadataRequest, MetadataRequestTopic
from kafkette.protocol.errors import Errors, KafkaConnectionError
from kafkette.protocol.framing import RequestHeader

HEADER = RequestHeader(api_key=3, api_version=1, correlation_id=1, client_id="producer")


def created(request: CreateTopicsRequest, code: int = Errors.NONE) -> CreateTopicsResponse:
    return CreateTopicsResponse(
        topics=[CreatableTopicResult(name=t.name, error_code=code) for t in request.topics]
    )


async def settle(manager: AutoTopicCreationManager) -> None:
    """Let the in-flight creation tasks finish (they only await the fake channel)."""
    for _ in range(10):
        await asyncio.sleep(0)
    assert not manager.in_flight_topics


def metadata_request(*names: str, allow: bool = True) -> MetadataRequest:
    return MetadataRequest(
        topics=[MetadataRequestTopic(name=n) for n in names], allow_auto_topic_creation=allow
    )


async def test_valid_unknown_topics_are_created_with_the_controller_defaults():
    channel = FakeControllerChannel(created)
    manager = AutoTopicCreationManager(1, channel, request_timeout_ms=7000)

    answers = manager.create_topics(["orders", "payments"])
    await settle(manager)

    assert [(a.name, a.error_code) for a in answers] == [
        ("orders", Errors.UNKNOWN_TOPIC_OR_PARTITION),
        ("payments", Errors.UNKNOWN_TOPIC_OR_PARTITION),
    ]
    (request,) = channel.requests
    assert [(t.name, t.num_partitions, t.replication_factor) for t in request.topics] == [
        ("orders", -1, -1),
        ("payments", -1, -1),
    ]
    assert request.timeout_ms == 7000


async def test_a_topic_being_created_is_asked_for_only_once():
    channel = FakeControllerChannel(created, hold=True)
    manager = AutoTopicCreationManager(1, channel)

    manager.create_topics(["orders"])
    await asyncio.sleep(0)
    manager.create_topics(["orders", "orders"])
    await asyncio.sleep(0)
    assert len(channel.requests) == 1
    assert manager.in_flight_topics == {"orders"}

    channel.release.set()
    await settle(manager)
    manager.create_topics(["orders"])
    await settle(manager)
    assert len(channel.requests) == 2


async def test_an_illegal_name_is_answered_invalid_topic_and_never_sent():
    channel = FakeControllerChannel(created)
    manager = AutoTopicCreationManager(1, channel)

    answers = manager.create_topics(["bad name!", "..", "x" * 250])
    await settle(manager)

    assert [a.error_code for a in answers] == [Errors.INVALID_TOPIC_EXCEPTION] * 3
    assert channel.requests == []


@pytest.mark.parametrize("outcome", ["exists", "unreachable"])
async def test_a_failed_or_raced_creation_frees_the_topic_for_a_later_attempt(outcome):
    def answer(request):
        if outcome == "unreachable":
            raise KafkaConnectionError("controller down")
        return created(request, Errors.TOPIC_ALREADY_EXISTS)

    channel = FakeControllerChannel(answer)
    manager = AutoTopicCreationManager(1, channel)

    manager.create_topics(["orders"])
    await settle(manager)
    manager.create_topics(["orders"])
    await settle(manager)

    assert len(channel.requests) == 2


async def test_stop_cancels_creations_in_flight():
    channel = FakeControllerChannel(created, hold=True)
    manager = AutoTopicCreationManager(1, channel)
    manager.create_topics(["orders"])
    await asyncio.sleep(0)

    await manager.stop()

    assert manager.in_flight_topics == set()
    manager.create_topics(["later"])
    assert len(channel.requests) == 1


async def test_metadata_for_unknown_topics_auto_creates_them(tmp_path):
    async with running_replica_manager(make_config(tmp_path)) as replica_manager:
        channel = FakeControllerChannel(created)
        manager = AutoTopicCreationManager(1, channel)
        ctx = apis_context(replica_manager, auto_topic_creation_manager=manager)

        response = await metadata_api.handle(ctx, HEADER, metadata_request("orders", "bad name"))
        await settle(manager)

        assert [(t.name, t.error_code) for t in response.topics] == [
            ("orders", Errors.UNKNOWN_TOPIC_OR_PARTITION),
            ("bad name", Errors.INVALID_TOPIC_EXCEPTION),
        ]
        assert [t.name for t in channel.requests[0].topics] == ["orders"]


@pytest.mark.parametrize("case", ["all topics", "client disallows", "broker disables"])
async def test_metadata_does_not_create_when_auto_creation_does_not_apply(tmp_path, case):
    config = make_config(tmp_path, auto_create_topics_enable=case != "broker disables")
    async with running_replica_manager(config) as replica_manager:
        channel = FakeControllerChannel(created)
        manager = AutoTopicCreationManager(1, channel)
        ctx = apis_context(replica_manager, auto_topic_creation_manager=manager)
        request = (
            MetadataRequest(topics=None)
            if case == "all topics"
            else metadata_request("orders", "bad name", allow=case != "client disallows")
        )

        response = await metadata_api.handle(ctx, HEADER, request)
        await settle(manager)

        assert channel.requests == []
        if case != "all topics":
            assert [(t.name, t.error_code) for t in response.topics] == [
                ("orders", Errors.UNKNOWN_TOPIC_OR_PARTITION),
                ("bad name", Errors.INVALID_TOPIC_EXCEPTION),
            ]


@pytest.mark.parametrize("allow", [True, False])
async def test_metadata_marks_an_unknown_internal_topic_internal_whether_it_creates_it_or_not(
    tmp_path, allow
):
    async with running_replica_manager(make_config(tmp_path)) as replica_manager:
        manager = AutoTopicCreationManager(1, FakeControllerChannel(created))
        ctx = apis_context(replica_manager, auto_topic_creation_manager=manager)

        response = await metadata_api.handle(
            ctx, HEADER, metadata_request("__transaction_state", "__cluster_metadata", "orders", allow=allow)
        )
        await settle(manager)

        assert [(t.name, t.error_code, t.is_internal) for t in response.topics] == [
            ("__transaction_state", Errors.UNKNOWN_TOPIC_OR_PARTITION, True),
            ("__cluster_metadata", Errors.UNKNOWN_TOPIC_OR_PARTITION, False),
            ("orders", Errors.UNKNOWN_TOPIC_OR_PARTITION, False),
        ]


async def test_a_topic_named_twice_is_answered_once(tmp_path):
    async with running_replica_manager(make_config(tmp_path)) as replica_manager:
        channel = FakeControllerChannel(created)
        manager = AutoTopicCreationManager(1, channel)
        ctx = apis_context(replica_manager, auto_topic_creation_manager=manager)

        request = metadata_request("orders", "bad name", "orders", "bad name", allow=False)
        response = await metadata_api.handle(ctx, HEADER, request)

        assert [(t.name, t.error_code) for t in response.topics] == [
            ("orders", Errors.UNKNOWN_TOPIC_OR_PARTITION),
            ("bad name", Errors.INVALID_TOPIC_EXCEPTION),
        ]
