"""DescribeConfigs' handler before any resource is described: a resource type Kafka's ``ConfigHelper``
does not know fails the whole request, as Kafka's ``DescribeConfigsRequest.getErrorResponse`` answers."""

from __future__ import annotations

from types import SimpleNamespace

from kafkette.broker.apis import describe_configs
from kafkette.protocol.apis.configs import (
    RESOURCE_BROKER_LOGGER,
    DescribeConfigsRequest,
    DescribeConfigsResource,
)
from kafkette.protocol.errors import Errors, error_class
from kafkette.protocol.framing import RequestHeader


async def _describe(*resources: tuple[int, str]):
    request = DescribeConfigsRequest(
        resources=[DescribeConfigsResource(resource_type=t, resource_name=n) for t, n in resources]
    )
    header = RequestHeader(api_key=32, api_version=4, correlation_id=1, client_id="c")
    ctx = SimpleNamespace(config=SimpleNamespace(node_id=1, request_timeout_ms=1000))
    return (await describe_configs.handle(ctx, header, request)).results


async def test_a_resource_type_kafka_does_not_know_fails_every_resource_invalid_request():
    results = await _describe((RESOURCE_BROKER_LOGGER, "1"), (102, "fuzz-b"), (115, "7"))
    default = error_class(Errors.INVALID_REQUEST).message
    assert [
        (r.resource_type, r.resource_name, r.error_code, r.error_message, r.configs) for r in results
    ] == [
        (RESOURCE_BROKER_LOGGER, "1", Errors.INVALID_REQUEST, default, []),
        (102, "fuzz-b", Errors.INVALID_REQUEST, default, []),
        (115, "7", Errors.INVALID_REQUEST, default, []),
    ]


async def test_known_types_are_answered_each_on_its_own():
    (logger_result, metrics_result) = await _describe(
        (RESOURCE_BROKER_LOGGER, "1"), (describe_configs.RESOURCE_CLIENT_METRICS, "m")
    )
    assert logger_result.error_code == Errors.NONE
    assert metrics_result.error_code == Errors.INVALID_REQUEST  # a type Kafka knows, Kafkette has none
