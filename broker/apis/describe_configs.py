"""DescribeConfigs handler: BROKER resources answered here, TOPIC resources by the controller.

A BROKER resource must name this broker's id: a broker describes only its own
configs (another id is INVALID_REQUEST saying to ask that broker, as Kafka's
``ConfigHelper`` does).  TOPIC resources are forwarded to the controller when this
broker runs it, otherwise answered NOT_CONTROLLER per resource.  Results keep the
order of the request; a resource of a type Kafka does not know fails them all.  A BROKER_LOGGER
resource (this broker's id) lists the process's loggers and their levels (KIP-412,
``runtime_logger_manager.py``).  Kafka concept: ``KafkaApis.handleDescribeConfigsRequest`` (KIP-133).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.apis.config_resources import answer_config_resources, broker_resource_error
from kafkette.broker.apis.controller_forwarding import at_controller
from kafkette.broker.runtime_logger_manager import describe_loggers, describe_resource_error
from kafkette.protocol.apis.configs import (
    RESOURCE_BROKER,
    RESOURCE_BROKER_LOGGER,
    RESOURCE_GROUP,
    RESOURCE_TOPIC,
    DescribeConfigsRequest,
    DescribeConfigsResource,
    DescribeConfigsResponse,
    DescribeConfigsResult,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.kafka_error_responses import describe_configs_error_response

RESOURCE_CLIENT_METRICS = 16
"""KIP-714's client metrics subscriptions: a type Kafka describes (Kafkette has none to describe: each is
INVALID_REQUEST)."""

DESCRIBABLE_RESOURCE_TYPES = frozenset(
    {RESOURCE_TOPIC, RESOURCE_BROKER, RESOURCE_BROKER_LOGGER, RESOURCE_CLIENT_METRICS, RESOURCE_GROUP}
)
"""The resource types Kafka's DescribeConfigs knows (``ConfigHelper``); any other fails the request."""

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


def _describe_broker(
    ctx: ApisContext, resource: DescribeConfigsResource, include_synonyms: bool
) -> DescribeConfigsResult:
    result = DescribeConfigsResult(
        resource_type=RESOURCE_BROKER, resource_name=resource.resource_name, error_message=None
    )
    problem = broker_resource_error(resource.resource_name, ctx.config.node_id)
    if problem is not None:
        result.error_code, result.error_message = Errors.INVALID_REQUEST, problem
        return result
    result.configs = ctx.dynamic_config.describe(resource.configuration_keys, include_synonyms)
    return result


def _describe_broker_logger(ctx: ApisContext, resource: DescribeConfigsResource) -> DescribeConfigsResult:
    result = DescribeConfigsResult(
        resource_type=RESOURCE_BROKER_LOGGER, resource_name=resource.resource_name, error_message=None
    )
    problem = describe_resource_error(resource.resource_name, ctx.config.node_id)
    if problem is not None:
        result.error_code, result.error_message = Errors.INVALID_REQUEST, problem
        return result
    result.configs = describe_loggers(resource.configuration_keys)
    return result


async def handle(
    ctx: ApisContext, header: RequestHeader, request: DescribeConfigsRequest
) -> DescribeConfigsResponse:
    """Describe each resource; one result per requested resource, in request order.  A resource of a
    type Kafka's ``ConfigHelper`` does not know fails the whole request (``_unexpected_type``)."""
    if any(r.resource_type not in DESCRIBABLE_RESOURCE_TYPES for r in request.resources):
        return _unexpected_type(request)

    async def forward_topics(resources: list[DescribeConfigsResource]) -> list[DescribeConfigsResult] | None:
        forwarded = DescribeConfigsRequest(resources=resources, include_synonyms=request.include_synonyms)
        response = await at_controller(
            ctx,
            header,
            forwarded,
            lambda c: c.controller.describe_configs(forwarded),
            ctx.config.request_timeout_ms,
        )
        return None if response is None else response.results

    results = await answer_config_resources(
        request.resources,
        DescribeConfigsResult,
        lambda resource: _describe_broker(ctx, resource, request.include_synonyms),
        forward_topics,
        lambda resource: _describe_broker_logger(ctx, resource),
    )
    return DescribeConfigsResponse(results=results)


def _unexpected_type(request: DescribeConfigsRequest) -> DescribeConfigsResponse:
    """Kafka's ``ConfigHelper.handleDescribeConfigsRequest`` throws InvalidRequestException ("Unexpected
    resource type") for the whole request when a resource's type is none it knows, and
    ``DescribeConfigsRequest.getErrorResponse`` answers every resource INVALID_REQUEST with the error's
    default message and no configs."""
    return describe_configs_error_response(request, 0, int(Errors.INVALID_REQUEST), None)  # type: ignore[no-any-return]
