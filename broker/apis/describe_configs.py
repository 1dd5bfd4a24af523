"""DescribeConfigs handler: BROKER resources answered here, TOPIC resources by the controller.

A BROKER resource must name this broker's id: a broker describes only its own
configs (another id is INVALID_REQUEST saying to ask that broker, as Kafka's
``ConfigHelper`` does).  TOPIC resources are forwarded to the controller when this
broker runs it, otherwise answered NOT_CONTROLLER per resource.  Results keep the
order of the request.  Kafka concept: ``KafkaApis.handleDescribeConfigsRequest``
(KIP-133).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from protocol.apis.configs import (
    RESOURCE_BROKER,
    RESOURCE_TOPIC,
    DescribeConfigsRequest,
    DescribeConfigsResource,
    DescribeConfigsResponse,
    DescribeConfigsResult,
)
from protocol.errors import Errors
from protocol.framing import RequestHeader

if TYPE_CHECKING:
    from broker.apis.kafka_apis import ApisContext

NOT_CONTROLLER_MESSAGE = "This is not the correct controller for this cluster."


def broker_resource_error(resource_name: str, broker_id: int) -> str | None:
    """Why a BROKER resource cannot be handled by broker ``broker_id`` (None when it can).

    Args:
        resource_name: the resource's name (a broker id as a string).
        broker_id: this broker's node id.

    Returns:
        An INVALID_REQUEST message, or None when the name is this broker's id.
    """
    if resource_name.strip() == "":
        return ("Cluster-wide default broker configs are not supported; name a broker id "
                "and send the request to that broker")
    try:
        target = int(resource_name)
    except ValueError:
        return f"Broker id must be an integer, got {resource_name!r}"
    if target != broker_id:
        return (f"Unexpected broker id, expected {broker_id} but received {target}: "
                f"send the request for broker {target} to that broker")
    return None


def _describe_broker(ctx: ApisContext, resource: DescribeConfigsResource) -> DescribeConfigsResult:
    result = DescribeConfigsResult(resource_type=RESOURCE_BROKER, resource_name=resource.resource_name)
    problem = broker_resource_error(resource.resource_name, ctx.config.node_id)
    if problem is not None:
        result.error_code, result.error_message = Errors.INVALID_REQUEST, problem
        return result
    result.configs = ctx.dynamic_config.describe(resource.configuration_keys)
    return result


async def handle(ctx: ApisContext, header: RequestHeader, request: DescribeConfigsRequest) -> DescribeConfigsResponse:
    """Describe each resource; one result per requested resource, in request order."""
    results: list[DescribeConfigsResult | None] = []
    topic_resources: list[tuple[int, DescribeConfigsResource]] = []
    for resource in request.resources:
        if resource.resource_type == RESOURCE_BROKER:
            results.append(_describe_broker(ctx, resource))
        elif resource.resource_type == RESOURCE_TOPIC:
            topic_resources.append((len(results), resource))
            results.append(None)
        else:
            results.append(DescribeConfigsResult(
                error_code=Errors.INVALID_REQUEST, resource_type=resource.resource_type,
                resource_name=resource.resource_name,
                error_message=f"Unsupported resource type {resource.resource_type} (TOPIC=2, BROKER=4)",
            ))
    if topic_resources:
        by_key: dict[tuple[int, str], DescribeConfigsResult] = {}
        if ctx.controller is not None:
            response = await ctx.controller.describe_configs(DescribeConfigsRequest(
                resources=[r for _, r in topic_resources], include_synonyms=request.include_synonyms,
            ))
            by_key = {(r.resource_type, r.resource_name): r for r in response.results}
        for index, resource in topic_resources:
            found = by_key.get((resource.resource_type, resource.resource_name))
            if found is None:
                code = Errors.NOT_CONTROLLER if ctx.controller is None else Errors.UNKNOWN_SERVER_ERROR
                message = NOT_CONTROLLER_MESSAGE if ctx.controller is None else "The controller gave no result"
                found = DescribeConfigsResult(error_code=code, error_message=message,
                                              resource_type=resource.resource_type,
                                              resource_name=resource.resource_name)
            results[index] = found
    return DescribeConfigsResponse(results=[r for r in results if r is not None])
