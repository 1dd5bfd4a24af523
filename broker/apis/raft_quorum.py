"""Vote, BeginQuorumEpoch, EndQuorumEpoch, FetchSnapshot (and Fetch of ``__cluster_metadata-0``)
handler: passed to the metadata quorum's voter on this node.

A node without the ``controller`` role runs no voter: the request is answered
UNSUPPORTED_VERSION by the socket server.  A malformed request, or one about another
partition, gets INVALID_REQUEST.  Kafka concept: ``ControllerApis.handleVoteRequest`` and
its siblings, which hand the request to ``KafkaRaftManager`` (KIP-595).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kafkette.protocol.errors import Errors, UnsupportedVersionError, error_class
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(ctx: ApisContext, header: RequestHeader, request: Any) -> Any:
    """Let this node's voter answer.

    Raises:
        UnsupportedVersionError: this node is no voter.
        InvalidRequestError: the voter could not read the request.
    """
    if ctx.controller is None:
        raise UnsupportedVersionError(f"node {ctx.config.node_id} is not a voter of the metadata quorum")
    try:
        return await ctx.controller.handle_raft_request(request)
    except (ValueError, TypeError) as exc:
        raise error_class(Errors.INVALID_REQUEST)(f"bad metadata quorum request: {exc}") from None
