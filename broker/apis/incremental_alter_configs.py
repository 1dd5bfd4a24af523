"""IncrementalAlterConfigs handler: BROKER resources applied here, TOPIC ones by the controller.

A BROKER resource (this broker's id only) changes dynamic broker configs in memory
(``DynamicBrokerConfig``; ``validate_only`` checks without applying).  TOPIC
resources are forwarded to the controller when this broker runs it, otherwise
answered NOT_CONTROLLER per resource.  Responses keep the order of the request.
Kafka concept: ``KafkaApis.handleIncrementalAlterConfigsRequest`` (KIP-339, KIP-226).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from broker.apis.describe_configs import NOT_CONTROLLER_MESSAGE, broker_resource_error
from protocol.apis.configs import (
    RESOURCE_BROKER,
    RESOURCE_TOPIC,
    AlterConfigsResource,
    AlterConfigsResourceResponse,
    IncrementalAlterConfigsRequest,
    IncrementalAlterConfigsResponse,
)
from protocol.errors import Errors, KafkaError
from protocol.framing import RequestHeader

if TYPE_CHECKING:
    from broker.apis.kafka_apis import ApisContext


def _alter_broker(ctx: ApisContext, resource: AlterConfigsResource, validate_only: bool) -> AlterConfigsResourceResponse:
    result = AlterConfigsResourceResponse(resource_type=RESOURCE_BROKER, resource_name=resource.resource_name)
    problem = broker_resource_error(resource.resource_name, ctx.config.node_id)
    if problem is not None:
        result.error_code, result.error_message = Errors.INVALID_REQUEST, problem
        return result
    try:
        ctx.dynamic_config.incremental_alter(resource.configs, validate_only=validate_only)
    except KafkaError as exc:
        result.error_code = int(exc.errno if exc.errno is not None else Errors.UNKNOWN_SERVER_ERROR)
        result.error_message = exc.args[0] if exc.args else None
    return result


async def handle(ctx: ApisContext, header: RequestHeader,
                 request: IncrementalAlterConfigsRequest) -> IncrementalAlterConfigsResponse:
    """Alter each resource; one response per requested resource, in request order."""
    results: list[AlterConfigsResourceResponse | None] = []
    topic_resources: list[tuple[int, AlterConfigsResource]] = []
    for resource in request.resources:
        if resource.resource_type == RESOURCE_BROKER:
            results.append(_alter_broker(ctx, resource, request.validate_only))
        elif resource.resource_type == RESOURCE_TOPIC:
            topic_resources.append((len(results), resource))
            results.append(None)
        else:
            results.append(AlterConfigsResourceResponse(
                error_code=Errors.INVALID_REQUEST, resource_type=resource.resource_type,
                resource_name=resource.resource_name,
                error_message=f"Unsupported resource type {resource.resource_type} (TOPIC=2, BROKER=4)",
            ))
    if topic_resources:
        by_key: dict[tuple[int, str], AlterConfigsResourceResponse] = {}
        if ctx.controller is not None:
            response = await ctx.controller.incremental_alter_configs(IncrementalAlterConfigsRequest(
                resources=[r for _, r in topic_resources], validate_only=request.validate_only,
            ))
            by_key = {(r.resource_type, r.resource_name): r for r in response.responses}
        for index, resource in topic_resources:
            found = by_key.get((resource.resource_type, resource.resource_name))
            if found is None:
                code = Errors.NOT_CONTROLLER if ctx.controller is None else Errors.UNKNOWN_SERVER_ERROR
                message = NOT_CONTROLLER_MESSAGE if ctx.controller is None else "The controller gave no result"
                found = AlterConfigsResourceResponse(error_code=code, error_message=message,
                                                     resource_type=resource.resource_type,
                                                     resource_name=resource.resource_name)
            results[index] = found
    return IncrementalAlterConfigsResponse(responses=[r for r in results if r is not None])
