"""ControllerApis, the listener of a controller-only node: ApiVersions lists exactly what it
answers, a broker API is UNSUPPORTED_VERSION, a Fetch of a data partition is INVALID_REQUEST,
and a controller API reaches the voter (NOT_CONTROLLER before it leads)."""

from __future__ import annotations

import pytest
from controller_fakes import make_config

from kafkette.controller.controller_apis import HANDLERS, ControllerApis
from kafkette.controller.quorum_controller import QuorumController
from kafkette.protocol.api_keys import API_REGISTRY, ApiKey
from kafkette.protocol.apis.api_versions import ApiVersionsRequest
from kafkette.protocol.apis.create_topics import CreatableTopic, CreateTopicsRequest
from kafkette.protocol.apis.fetch import FetchPartition, FetchRequest, FetchTopic
from kafkette.protocol.apis.produce import ProduceRequest
from kafkette.protocol.errors import Errors, KafkaError, UnsupportedVersionError
from kafkette.protocol.framing import RequestHeader


def _header(key: ApiKey) -> RequestHeader:
    return RequestHeader(api_key=int(key), api_version=0, correlation_id=1, client_id="test")


@pytest.fixture
def apis(tmp_path) -> ControllerApis:
    quorum = QuorumController(
        make_config(), voters={1: ("127.0.0.1", 9001), 2: ("127.0.0.1", 9002)}, metadata_log_dir=str(tmp_path)
    )
    return ControllerApis(quorum)  # never started: not the active controller


async def test_api_versions_lists_the_quorum_and_controller_apis_only(apis):
    answer = await apis.handle(
        _header(ApiKey.API_VERSIONS), API_REGISTRY[ApiKey.API_VERSIONS], ApiVersionsRequest()
    )
    keys = {k.api_key for k in answer.api_keys}
    assert keys == {int(k) for k in HANDLERS} | {int(ApiKey.API_VERSIONS)}
    assert int(ApiKey.PRODUCE) not in keys and int(ApiKey.VOTE) in keys and int(ApiKey.CREATE_TOPICS) in keys


async def test_a_broker_api_is_unsupported_and_a_data_fetch_is_invalid(apis):
    with pytest.raises(UnsupportedVersionError, match="PRODUCE is not answered by a controller-only node"):
        await apis.handle(
            _header(ApiKey.PRODUCE), API_REGISTRY[ApiKey.PRODUCE], ProduceRequest(topic_data=[])
        )
    fetch = FetchRequest(topics=[FetchTopic(topic="flights", partitions=[FetchPartition(partition=0)])])
    with pytest.raises(KafkaError, match="serves no partition") as raised:
        await apis.handle(_header(ApiKey.FETCH), API_REGISTRY[ApiKey.FETCH], fetch)
    assert raised.value.errno == Errors.INVALID_REQUEST


async def test_a_controller_api_reaches_the_voter(apis):
    request = CreateTopicsRequest(
        topics=[CreatableTopic(name="t", num_partitions=1, replication_factor=1)], timeout_ms=30000
    )
    answer = await apis.handle(_header(ApiKey.CREATE_TOPICS), API_REGISTRY[ApiKey.CREATE_TOPICS], request)
    assert [t.error_code for t in answer.topics] == [Errors.NOT_CONTROLLER]
