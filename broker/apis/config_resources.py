"""Config resources (KIP-133 DescribeConfigs, KIP-339 IncrementalAlterConfigs): who answers which.

Owns the routing shared by the two config handlers: a BROKER resource is answered
by this broker (only for its own id: ``broker_resource_error``), so is a BROKER_LOGGER one
(KIP-412, ``runtime_logger_manager.py``), TOPIC and GROUP resources
(KIP-848's group configs, kept in the metadata log) are forwarded in one request to the
active controller and answered NOT_CONTROLLER when none answers, any other type is INVALID_REQUEST; the
results keep the order of the request.  Does not own what describing or altering does: see
``describe_configs.py``, ``incremental_alter_configs.py`` and the controller's
``config_control_manager.py``.

Kafka concept: the resource split in ``KafkaApis.handleDescribeConfigsRequest`` and
``handleIncrementalAlterConfigsRequest`` (``ConfigHelper``, ``ConfigAdminManager``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol, TypeVar

from kafkette.protocol.apis.configs import (
    RESOURCE_BROKER,
    RESOURCE_BROKER_LOGGER,
    RESOURCE_GROUP,
    RESOURCE_TOPIC,
)
from kafkette.protocol.errors import Errors

NOT_CONTROLLER_MESSAGE = "This is not the correct controller for this cluster."


class ConfigResource(Protocol):
    """A requested resource: its type (TOPIC=2, BROKER=4) and name."""

    resource_type: int
    resource_name: str


class ConfigResourceResult(Protocol):
    """A per-resource result: the resource it answers for."""

    resource_type: int
    resource_name: str


ResourceT = TypeVar("ResourceT", bound=ConfigResource)
ResultT = TypeVar("ResultT", bound=ConfigResourceResult)


def broker_resource_error(resource_name: str, broker_id: int, altering: bool = False) -> str | None:
    """Why a BROKER resource cannot be handled by broker ``broker_id`` (None when it can).

    Args:
        resource_name: the resource's name (a broker id as a string; empty for the
            cluster-wide default).
        broker_id: this broker's node id.
        altering: for IncrementalAlterConfigs and AlterConfigs, which take the empty name
            (the cluster-wide default, checked by the caller) and word their refusals as
            Kafka's ``ConfigAdminManager``; DescribeConfigs (False) refuses the empty name.

    Returns:
        An INVALID_REQUEST message in Kafka's words, or None when the name is this
        broker's id (or empty, when ``altering``).
    """
    if resource_name == "":
        if altering:
            return None
        return (
            "Cluster-wide default broker configs are not supported; name a broker id "
            "and send the request to that broker"
        )
    try:
        target = int(resource_name)
    except ValueError:
        kind = "Node" if altering else "Broker"
        return f"{kind} id must be an integer, but it is: {resource_name}"
    if target != broker_id:
        expected = f"{broker_id}" if altering else f"{broker_id} or empty string"
        return f"Unexpected broker id, expected {expected}, but received {resource_name}"
    return None


async def answer_config_resources(
    resources: Sequence[ResourceT],
    result_type: Callable[..., ResultT],
    answer_broker: Callable[[ResourceT], ResultT],
    forward_topics: Callable[[list[ResourceT]], Awaitable[Sequence[ResultT] | None]],
    answer_broker_logger: Callable[[ResourceT], ResultT] | None = None,
) -> list[ResultT]:
    """Answer every resource, BROKER ones here and TOPIC ones at the controller, in request order.

    Args:
        resources: the request's resources.
        result_type: the response's per-resource class, built with ``error_code``,
            ``error_message``, ``resource_type`` and ``resource_name`` for the errors made here.
        answer_broker: answers one BROKER resource at this broker.
        forward_topics: sends all TOPIC and GROUP resources in one request to the active
            controller and returns its per-resource results, or None when no controller could
            answer (each of them then gets NOT_CONTROLLER).

    Returns:
        One result per resource, in request order: an unsupported type is INVALID_REQUEST,
        a TOPIC resource the controller left unanswered is UNKNOWN_SERVER_ERROR.

    Raises:
        Whatever ``answer_broker`` or ``forward_topics`` raise.
    """
    results: list[ResultT | None] = []
    topic_resources: list[tuple[int, ResourceT]] = []
    for resource in resources:
        if resource.resource_type == RESOURCE_BROKER:
            results.append(answer_broker(resource))
        elif resource.resource_type == RESOURCE_BROKER_LOGGER and answer_broker_logger is not None:
            results.append(answer_broker_logger(resource))
        elif resource.resource_type in (RESOURCE_TOPIC, RESOURCE_GROUP):
            topic_resources.append((len(results), resource))
            results.append(None)
        else:
            results.append(
                result_type(
                    error_code=Errors.INVALID_REQUEST,
                    resource_type=resource.resource_type,
                    resource_name=resource.resource_name,
                    error_message=(
                        f"Unsupported resource type {resource.resource_type} (TOPIC=2, BROKER=4, GROUP=32)"
                    ),
                )
            )
    if topic_resources:
        answered = await forward_topics([r for _, r in topic_resources])
        by_key = {(r.resource_type, r.resource_name): r for r in answered or ()}
        for index, resource in topic_resources:
            found = by_key.get((resource.resource_type, resource.resource_name))
            if found is None:
                code = Errors.NOT_CONTROLLER if answered is None else Errors.UNKNOWN_SERVER_ERROR
                message = NOT_CONTROLLER_MESSAGE if answered is None else "The controller gave no result"
                found = result_type(
                    error_code=code,
                    error_message=message,
                    resource_type=resource.resource_type,
                    resource_name=resource.resource_name,
                )
            results[index] = found
    return [r for r in results if r is not None]
