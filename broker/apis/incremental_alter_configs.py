"""IncrementalAlterConfigs handler: BROKER resources applied here, TOPIC ones by the controller.

A BROKER resource (this broker's id only) changes dynamic broker configs in memory
(``DynamicBrokerConfig``; ``validate_only`` checks without applying).  TOPIC
resources are forwarded to the controller when this broker runs it, otherwise
answered NOT_CONTROLLER per resource.  Responses keep the order of the request.
Kafka concept: ``KafkaApis.handleIncrementalAlterConfigsRequest`` (KIP-339, KIP-226).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.apis.config_resources import answer_config_resources, broker_resource_error
from kafkette.broker.apis.controller_forwarding import at_controller
from kafkette.protocol.apis.configs import (
    RESOURCE_BROKER,
    AlterConfigsResource,
    AlterConfigsResourceResponse,
    IncrementalAlterConfigsRequest,
    IncrementalAlterConfigsResponse,
)
from kafkette.protocol.errors import Errors, KafkaError, error_code_for
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.kafka_apis import ApisContext


def _alter_broker(ctx: ApisContext, resource: AlterConfigsResource, validate_only: bool) -> AlterConfigsResourceResponse:
    result = AlterConfigsResourceResponse(resource_type=RESOURCE_BROKER, resource_name=resource.resource_name)
    problem = broker_resource_error(resource.resource_name, ctx.config.node_id)
    if problem is not None:
        result.error_code, result.error_message = Errors.INVALID_REQUEST, problem
        return result
    try:
        ctx.dynamic_config.incremental_alter(resource.configs, validate_only=validate_only)
    except KafkaError as exc:
        result.error_code = int(error_code_for(exc))
        result.error_message = exc.args[0] if exc.args else None
    return result


async def handle(ctx: ApisContext, header: RequestHeader,
                 request: IncrementalAlterConfigsRequest) -> IncrementalAlterConfigsResponse:
    """Alter each resource; one response per requested resource, in request order."""
    async def forward_topics(resources: list[AlterConfigsResource]) -> list[AlterConfigsResourceResponse] | None:
        forwarded = IncrementalAlterConfigsRequest(resources=resources, validate_only=request.validate_only)
        response = await at_controller(ctx, header, forwarded, lambda c: c.incremental_alter_configs(forwarded),
                                       ctx.config.request_timeout_ms)
        return None if response is None else response.responses

    responses = await answer_config_resources(
        request.resources, AlterConfigsResourceResponse,
        lambda resource: _alter_broker(ctx, resource, request.validate_only), forward_topics,
    )
    return IncrementalAlterConfigsResponse(responses=responses)
