"""Forwarding of controller requests (KIP-590): a client's CreateTopics, DeleteTopics,
CreatePartitions, ElectLeaders, DescribeConfigs and IncrementalAlterConfigs of topics and
DescribeQuorum may reach any broker; the one that is not the active controller sends it on.

Owns: ``at_controller``: the request answered by this node's controller when it is the
active one, else sent to the active controller over the node's controller channel (which
follows it across failovers; sent again while no controller takes it, up to the broker's
``request.timeout.ms``), else answered by this node's (standby) controller, whose answer is
NOT_CONTROLLER.  A request that came over another node's controller channel is
never forwarded again, so a request travels at most one hop.

Kafka concept: ``ForwardingManager`` (KIP-590; Kafka wraps the request in an Envelope, here
the channel's ``client_id`` marks it).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable, Hashable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from kafkette.broker.apis.controller_endpoint import ControllerEndpoint
from kafkette.broker.node_to_controller_channel import CONTROLLER_CHANNEL_CLIENT_SUFFIX, is_not_controller
from kafkette.protocol.errors import KafkaConnectionError, KafkaTimeoutError
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext

R = TypeVar("R")

FORWARD_MARGIN_MS = 5000  # beyond the request's own timeout, for the hop to the controller
FORWARD_RETRY_BACKOFF_MS = 100  # between sends while no controller takes the request


def is_forwarded(header: RequestHeader) -> bool:
    """True for a request that came over a node's controller channel."""
    return (header.client_id or "").endswith(CONTROLLER_CHANNEL_CLIENT_SUFFIX)


async def at_controller(
    ctx: ApisContext,
    header: RequestHeader,
    request: Any,
    local: Callable[[ControllerEndpoint], Awaitable[R]],
    timeout_ms: int,
) -> R | None:
    """Answer ``request`` at the active controller (see the module docstring).

    While no controller takes it (an answer NOT_CONTROLLER, a lost connection or a timeout:
    the quorum is electing a new leader, the channel still names the old one, or this node's
    own controller lost its leadership before the request's records committed), the request
    is sent again every ``FORWARD_RETRY_BACKOFF_MS`` for up to the broker's
    ``request.timeout.ms``, the channel trying each voter in turn, as Kafka's
    ``NodeToControllerChannelManager`` re-discovers the controller within its retry timeout: a
    client meets NOT_CONTROLLER only when no controller took the request in that time.

    Args:
        ctx: the handler context (``controller``, ``controller_channel``, ``config``).
        header: the request's header (a forwarded request is not forwarded again).
        request: the decoded request, sent on as it is.
        local: asks this node's controller.
        timeout_ms: the request's own timeout (ms); each hop adds ``FORWARD_MARGIN_MS``.

    Returns:
        The controller's response; the last NOT_CONTROLLER answer when none took the request in
        time; None when this node has no controller and none could be reached (the caller
        answers NOT_CONTROLLER).
    """
    controller = ctx.controller
    loop = asyncio.get_running_loop()
    deadline = loop.time() + ctx.config.request_timeout_ms / 1000
    response: R | None = None
    while True:
        if controller is not None and controller.is_active:
            response = await local(controller)
            if not is_not_controller(response) or is_forwarded(header):
                return response
        elif ctx.controller_channel is None or is_forwarded(header):
            break
        else:
            try:
                response = await ctx.controller_channel.send(
                    request, timeout_ms=timeout_ms + FORWARD_MARGIN_MS
                )
            except (KafkaConnectionError, KafkaTimeoutError):
                response = None
            if response is not None and not is_not_controller(response):
                return response
        if loop.time() + FORWARD_RETRY_BACKOFF_MS / 1000 >= deadline:
            break
        await asyncio.sleep(FORWARD_RETRY_BACKOFF_MS / 1000)
    if controller is not None:
        return await local(controller)
    return response


def deadline_passed(timeout_ms: int, keys: Iterable[Hashable]) -> bool:
    """Whether Kafka's controller would answer REQUEST_TIMED_OUT for the whole request: its
    deadline (now + ``timeout_ms``) is already past (``timeout_ms`` <= 0) and the request leaves it
    something to do, a key (topic name or id) named exactly once (Kafka's ``ControllerApis`` answers
    duplicates INVALID_REQUEST itself, and its ``QuorumController`` answers an empty list at once).
    """
    if timeout_ms > 0:
        return False
    counts = Counter(keys)
    return any(n == 1 for n in counts.values())
