"""Forwarding of controller requests (KIP-590): a client's CreateTopics, DeleteTopics,
CreatePartitions, ElectLeaders, DescribeConfigs and IncrementalAlterConfigs of topics and
DescribeQuorum may reach any broker; the one that is not the active controller sends it on.

Owns: ``at_controller``: the request answered by this node's controller when it is the
active one, else sent to the active controller over the node's controller channel (which
follows it across failovers), else answered by this node's (standby) controller, whose
answer is NOT_CONTROLLER.  A request that came over another node's controller channel is
never forwarded again, so a request travels at most one hop.

Kafka concept: ``ForwardingManager`` (KIP-590; Kafka wraps the request in an Envelope, here
the channel's ``client_id`` marks it).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from kafkette.broker.apis.controller_endpoint import ControllerEndpoint
from kafkette.broker.node_to_controller_channel import CONTROLLER_CHANNEL_CLIENT_SUFFIX
from kafkette.protocol.errors import KafkaConnectionError, KafkaTimeoutError
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.kafka_apis import ApisContext

R = TypeVar("R")

FORWARD_MARGIN_MS = 5000  # beyond the request's own timeout, for the hop to the controller


def is_forwarded(header: RequestHeader) -> bool:
    """True for a request that came over a node's controller channel."""
    return (header.client_id or "").endswith(CONTROLLER_CHANNEL_CLIENT_SUFFIX)


async def at_controller(ctx: ApisContext, header: RequestHeader, request: Any,
                        local: Callable[[ControllerEndpoint], Awaitable[R]], timeout_ms: int) -> R | None:
    """Answer ``request`` at the active controller (see the module docstring).

    Args:
        ctx: the handler context (``controller``, ``controller_channel``).
        header: the request's header (a forwarded request is not forwarded again).
        request: the decoded request, sent on as it is.
        local: asks this node's controller.
        timeout_ms: the request's own timeout (ms); the hop adds ``FORWARD_MARGIN_MS``.

    Returns:
        The controller's response, or None when this node has no controller and the active
        one could not be reached (the caller answers NOT_CONTROLLER).
    """
    controller = ctx.controller
    if controller is not None and controller.is_active:
        return await local(controller)
    if ctx.controller_channel is not None and not is_forwarded(header):
        try:
            return await ctx.controller_channel.send(request, timeout_ms=timeout_ms + FORWARD_MARGIN_MS)  # type: ignore[no-any-return]
        except (KafkaConnectionError, KafkaTimeoutError):
            pass
    return await local(controller) if controller is not None else None
