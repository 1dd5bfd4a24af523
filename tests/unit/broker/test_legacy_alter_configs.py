"""AlterConfigs (API 33, an IncrementalAlterConfigs with ``replace_all``) refuses a resource naming a
config twice or setting one to null before anything is applied or forwarded, as Kafka's
``ConfigAdminManager.preprocess``; the other resources go on."""

from __future__ import annotations

from types import SimpleNamespace

from kafkette.broker.apis import incremental_alter_configs
from kafkette.protocol.apis.configs import (
    RESOURCE_TOPIC,
    AlterableConfig,
    AlterConfigsResource,
    AlterConfigsResourceResponse,
    IncrementalAlterConfigsRequest,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader


def _topic(name: str, *configs: tuple[str, str | None]) -> AlterConfigsResource:
    return AlterConfigsResource(
        resource_type=RESOURCE_TOPIC,
        resource_name=name,
        configs=[AlterableConfig(name=k, value=v) for k, v in configs],
    )


async def test_null_values_and_duplicate_keys_are_refused_before_the_controller_is_asked(monkeypatch):
    forwarded: list[list[str]] = []

    async def answer_config_resources(
        resources, response_type, alter_broker, forward_topics, alter_logger=None
    ):
        forwarded.append([r.resource_name for r in resources])
        return [AlterConfigsResourceResponse(resource_name=r.resource_name) for r in resources]

    monkeypatch.setattr(incremental_alter_configs, "answer_config_resources", answer_config_resources)
    request = IncrementalAlterConfigsRequest(
        replace_all=True,
        resources=[
            _topic("nulls", ("retention.ms", None), ("cleanup.policy", "compact"), ("segment.ms", None)),
            _topic("fine", ("retention.ms", "1000")),
            _topic("twice", ("retention.ms", "1"), ("retention.ms", "2")),
        ],
    )
    header = RequestHeader(api_key=33, api_version=2, correlation_id=1, client_id="c")
    response = await incremental_alter_configs.handle(SimpleNamespace(), header, request)

    assert forwarded == [["fine"]]
    assert [(r.resource_name, r.error_code, r.error_message) for r in response.responses] == [
        ("nulls", Errors.INVALID_REQUEST, "Null value not supported for : retention.ms, segment.ms"),
        ("fine", Errors.NONE, ""),
        ("twice", Errors.INVALID_REQUEST, "Error due to duplicate config keys"),
    ]


async def test_incremental_alter_configs_leaves_null_values_to_its_operations(monkeypatch):
    async def answer_config_resources(
        resources, response_type, alter_broker, forward_topics, alter_logger=None
    ):
        return [AlterConfigsResourceResponse(resource_name=r.resource_name) for r in resources]

    monkeypatch.setattr(incremental_alter_configs, "answer_config_resources", answer_config_resources)
    request = IncrementalAlterConfigsRequest(resources=[_topic("nulls", ("retention.ms", None))])
    header = RequestHeader(api_key=44, api_version=1, correlation_id=1, client_id="c")
    response = await incremental_alter_configs.handle(SimpleNamespace(), header, request)
    assert [r.error_code for r in response.responses] == [Errors.NONE]
