"""IncrementalAlterConfigs handler: BROKER resources applied here, TOPIC ones by the controller.

A BROKER resource (this broker's id only) changes dynamic broker configs in memory
(``DynamicBrokerConfig``, with Kafka's rules and messages; ``validate_only`` checks without
applying).  The cluster-wide default (empty name) is checked as Kafka checks it, and refused
unless ``validate_only``: Kafkette keeps no cluster-wide dynamic broker configs.  With
``replace_all`` (Kafka's AlterConfigs, API 33) the configs set replace every dynamic one, and a
resource naming a config twice or setting one to null is refused first, as Kafka's
``ConfigAdminManager.preprocess``.  A BROKER_LOGGER resource (KIP-412, this broker's id) sets or
unsets Python logger levels in memory (``runtime_logger_manager.py``); AlterConfigs refuses it
("Unknown resource type 8").  TOPIC
resources are forwarded to the controller when this broker runs it, otherwise
answered NOT_CONTROLLER per resource.  Responses keep the order of the request.
Kafka concept: ``KafkaApis.handleIncrementalAlterConfigsRequest`` (KIP-339, KIP-226).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.apis.config_resources import answer_config_resources, broker_resource_error
from kafkette.broker.apis.controller_forwarding import at_controller
from kafkette.broker.runtime_logger_manager import BrokerLoggerError, alter_loggers
from kafkette.protocol.apis.configs import (
    OP_DELETE,
    RESOURCE_BROKER,
    RESOURCE_BROKER_LOGGER,
    AlterConfigsResource,
    AlterConfigsResourceResponse,
    IncrementalAlterConfigsRequest,
    IncrementalAlterConfigsResponse,
)
from kafkette.protocol.errors import Errors, KafkaError, error_code_for
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


CLUSTER_DEFAULT_REFUSAL = (
    "Cluster-wide default broker configs are not supported; name a broker id "
    "and send the request to that broker"
)


def _alter_broker(
    ctx: ApisContext, resource: AlterConfigsResource, validate_only: bool, replace_all: bool
) -> AlterConfigsResourceResponse:
    result = AlterConfigsResourceResponse(
        resource_type=RESOURCE_BROKER, resource_name=resource.resource_name, error_message=None
    )
    problem = broker_resource_error(resource.resource_name, ctx.config.node_id, altering=True)
    if problem is not None:
        result.error_code, result.error_message = Errors.INVALID_REQUEST, problem
        return result
    cluster_default = resource.resource_name == ""
    try:
        ctx.dynamic_config.incremental_alter(
            resource.configs,
            validate_only=validate_only,
            cluster_default=cluster_default,
            replace_all=replace_all,
        )
    except KafkaError as exc:
        result.error_code = int(error_code_for(exc))
        result.error_message = exc.args[0] if exc.args else None
        return result
    if cluster_default and not validate_only:
        result.error_code, result.error_message = Errors.INVALID_REQUEST, CLUSTER_DEFAULT_REFUSAL
    return result


def _alter_broker_logger(
    ctx: ApisContext, resource: AlterConfigsResource, validate_only: bool, replace_all: bool
) -> AlterConfigsResourceResponse:
    result = AlterConfigsResourceResponse(
        resource_type=RESOURCE_BROKER_LOGGER, resource_name=resource.resource_name, error_message=None
    )
    if replace_all:
        # The legacy AlterConfigs (API 33) has no BROKER_LOGGER, as Kafka's ConfigAdminManager.
        result.error_code = Errors.INVALID_REQUEST
        result.error_message = f"Unknown resource type {RESOURCE_BROKER_LOGGER}"
        return result
    names = [c.name for c in resource.configs]
    try:
        if len(set(names)) != len(names):
            raise BrokerLoggerError(Errors.INVALID_REQUEST, "Error due to duplicate config keys")
        nulls = [c.name for c in resource.configs if c.config_operation != OP_DELETE and c.value is None]
        if nulls:
            raise BrokerLoggerError(
                Errors.INVALID_REQUEST, "Null value not supported for : " + ", ".join(nulls)
            )
        alter_loggers(resource.resource_name, resource.configs, ctx.config.node_id, validate_only)
    except BrokerLoggerError as exc:
        result.error_code, result.error_message = int(exc.error_code), exc.message
    return result


async def handle(
    ctx: ApisContext, header: RequestHeader, request: IncrementalAlterConfigsRequest
) -> IncrementalAlterConfigsResponse:
    """Alter each resource; one response per requested resource, in request order."""

    async def forward_topics(
        resources: list[AlterConfigsResource],
    ) -> list[AlterConfigsResourceResponse] | None:
        forwarded = IncrementalAlterConfigsRequest(
            resources=resources, validate_only=request.validate_only, replace_all=request.replace_all
        )
        response = await at_controller(
            ctx,
            header,
            forwarded,
            lambda c: c.controller.incremental_alter_configs(forwarded),
            ctx.config.request_timeout_ms,
        )
        return None if response is None else response.responses

    refused = _legacy_refusals(request.resources) if request.replace_all else {}
    remaining = [r for i, r in enumerate(request.resources) if i not in refused]
    answered = iter(
        await answer_config_resources(
            remaining,
            AlterConfigsResourceResponse,
            lambda resource: _alter_broker(ctx, resource, request.validate_only, request.replace_all),
            forward_topics,
            lambda resource: _alter_broker_logger(ctx, resource, request.validate_only, request.replace_all),
        )
    )
    return IncrementalAlterConfigsResponse(
        responses=[refused[i] if i in refused else next(answered) for i in range(len(request.resources))]
    )


def _legacy_refusals(resources: list[AlterConfigsResource]) -> dict[int, AlterConfigsResourceResponse]:
    """AlterConfigs' (API 33) checks on the receiving broker, before any resource is applied or
    forwarded: a config named twice, or set to null, is INVALID_REQUEST for its resource.

    Returns:
        The refusals by the resource's position in the request.

    Kafka concept: ``ConfigAdminManager.preprocess`` (the legacy AlterConfigs).
    """
    refused = {}
    for position, resource in enumerate(resources):
        names = [c.name for c in resource.configs]
        if len(set(names)) != len(names):
            message = "Error due to duplicate config keys"
        elif nulls := [c.name for c in resource.configs if c.value is None]:
            message = "Null value not supported for : " + ", ".join(nulls)
        else:
            continue
        refused[position] = AlterConfigsResourceResponse(
            error_code=Errors.INVALID_REQUEST,
            error_message=message,
            resource_type=resource.resource_type,
            resource_name=resource.resource_name,
        )
    return refused
