"""ClusterControlManager: broker registrations, heartbeats and session expiry decisions.

Owns: the rules for BrokerRegistration (new broker epoch, same incarnation gets its
existing epoch, a new incarnation replaces the old one), for BrokerHeartbeat
(unknown broker, stale epoch, fence/unfence/shut-down requests) and for session
expiry (``broker.session.timeout.ms`` without a heartbeat).  Produces records and
responses; never mutates the context except heartbeat times, which are not persisted
(as in Kafka's ``BrokerHeartbeatManager``).  Does not own the partition consequences
of fencing (``ReplicationControlManager``) nor channels and requests (the controller).

Kafka concept: KRaft's ``ClusterControlManager`` and ``BrokerHeartbeatManager``
(KIP-631).
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable
from dataclasses import dataclass

from kafkette.controller.controller_context import ControllerContext
from kafkette.controller.metadata_records import (
    ControllerResult,
    FenceBrokerRecord,
    RegisterBrokerRecord,
    UnfenceBrokerRecord,
)
from kafkette.protocol.apis.broker_registration import (
    BrokerHeartbeatRequest,
    BrokerHeartbeatResponse,
    BrokerRegistrationRequest,
    BrokerRegistrationResponse,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.kafka_uuid import uuid_to_string

logger = logging.getLogger(__name__)


class HeartbeatAction(enum.Enum):
    """What a heartbeat asks the controller to do to the broker's fencing state."""

    NONE = 0
    UNFENCE = 1  # fenced broker heartbeats without want_fence: it is live again
    FENCE = 2  # unfenced broker asked to be fenced (want_fence)
    CONTROLLED_SHUTDOWN = 3  # want_shut_down: fence now, then tell it to shut down


@dataclass
class HeartbeatDecision:
    """Outcome of a heartbeat check: an error code, or an action plus the response."""

    error: Errors
    action: HeartbeatAction
    response: BrokerHeartbeatResponse


class ClusterControlManager:
    """Decides broker registration, heartbeat and session-expiry outcomes.

    Args:
        context: the controller context (read; heartbeat times written).
        cluster_id: ``cluster.id``; a registration naming another cluster is refused.
        session_timeout_ms: ``broker.session.timeout.ms``.
        log_prefix: callable returning ``[Controller id=N epoch=E]``.
    """

    def __init__(
        self,
        context: ControllerContext,
        *,
        cluster_id: str | None,
        session_timeout_ms: int,
        log_prefix: Callable[[], str] = lambda: "",
    ) -> None:
        self._context = context
        self._cluster_id = cluster_id
        self._session_timeout_ms = session_timeout_ms
        self._log_prefix = log_prefix

    def replaces_live_incarnation(self, request: BrokerRegistrationRequest) -> bool:
        """True when ``request`` comes from a new process of a broker that is still unfenced:
        the old incarnation must be fenced (and its partitions re-elected) first."""
        existing = self._context.brokers.get(request.broker_id)
        return (
            existing is not None
            and existing.incarnation_id != uuid_to_string(request.incarnation_id)
            and not existing.fenced
        )

    def register_broker(
        self, request: BrokerRegistrationRequest, broker_epoch: int
    ) -> ControllerResult[BrokerRegistrationResponse]:
        """Decide a BrokerRegistration.

        Args:
            request: the registration.
            broker_epoch: epoch for a new registration (the next metadata log offset).

        Returns:
            ``ControllerResult``: a ``RegisterBrokerRecord`` (the broker starts fenced) and
            a response carrying ``broker_epoch``; no records when the same incarnation
            registers again (its existing epoch is returned) or on error
            (INVALID_REQUEST for a missing listener or another cluster's id).
        """
        if request.broker_id < 0:
            return _registration_error(Errors.INVALID_REQUEST, f"Invalid broker id {request.broker_id}.")
        if request.cluster_id and self._cluster_id and request.cluster_id != self._cluster_id:
            return _registration_error(
                Errors.INCONSISTENT_CLUSTER_ID,
                f"Expected cluster ID {self._cluster_id}, but got cluster ID {request.cluster_id}.",
            )
        if not request.listeners:
            return _registration_error(Errors.INVALID_REQUEST, "The registration names no listener.")
        incarnation_id = uuid_to_string(request.incarnation_id)
        existing = self._context.brokers.get(request.broker_id)
        if existing is not None and existing.incarnation_id == incarnation_id:
            return ControllerResult(
                [], BrokerRegistrationResponse(error_code=0, broker_epoch=existing.broker_epoch)
            )
        listener = request.listeners[0]  # the broker's own (kafkette) listener comes first
        record = RegisterBrokerRecord(
            broker_id=request.broker_id,
            broker_epoch=broker_epoch,
            incarnation_id=incarnation_id,
            host=listener.host,
            port=listener.port,
            rack=request.rack,
            endpoints=[[lst.name, lst.host, lst.port] for lst in request.listeners],
        )
        return ControllerResult([record], BrokerRegistrationResponse(error_code=0, broker_epoch=broker_epoch))

    def fence_broker(self, broker_id: int) -> FenceBrokerRecord:
        """The record fencing ``broker_id`` (which must be registered)."""
        return FenceBrokerRecord(
            broker_id=broker_id, broker_epoch=self._context.brokers[broker_id].broker_epoch
        )

    def unfence_broker(self, broker_id: int) -> UnfenceBrokerRecord:
        """The record unfencing ``broker_id`` (which must be registered)."""
        return UnfenceBrokerRecord(
            broker_id=broker_id, broker_epoch=self._context.brokers[broker_id].broker_epoch
        )

    def broker_heartbeat(self, request: BrokerHeartbeatRequest, now_ms: int) -> HeartbeatDecision:
        """Check a heartbeat, record its time, and decide the fencing action.

        Args:
            request: the heartbeat.
            now_ms: monotonic time (ms).

        Returns:
            ``HeartbeatDecision``: BROKER_ID_NOT_REGISTERED / STALE_BROKER_EPOCH errors,
            else an action and the response (``is_fenced`` as it will be after the
            action, ``is_caught_up`` True, ``should_shut_down`` for a shutdown request).
        """
        reg = self._context.brokers.get(request.broker_id)
        if reg is None:
            return HeartbeatDecision(
                Errors.BROKER_ID_NOT_REGISTERED,
                HeartbeatAction.NONE,
                BrokerHeartbeatResponse(error_code=Errors.BROKER_ID_NOT_REGISTERED, is_fenced=True),
            )
        if reg.broker_epoch != request.broker_epoch:
            return HeartbeatDecision(
                Errors.STALE_BROKER_EPOCH,
                HeartbeatAction.NONE,
                BrokerHeartbeatResponse(error_code=Errors.STALE_BROKER_EPOCH, is_fenced=reg.fenced),
            )
        reg.last_heartbeat_ms = now_ms
        if request.want_shut_down:
            action = HeartbeatAction.CONTROLLED_SHUTDOWN if not reg.fenced else HeartbeatAction.NONE
            fenced_after = True
        elif reg.fenced and not request.want_fence:
            action, fenced_after = HeartbeatAction.UNFENCE, False
        elif not reg.fenced and request.want_fence:
            action, fenced_after = HeartbeatAction.FENCE, True
        else:
            action, fenced_after = HeartbeatAction.NONE, reg.fenced
        response = BrokerHeartbeatResponse(
            error_code=0,
            is_caught_up=True,
            is_fenced=fenced_after,
            should_shut_down=bool(request.want_shut_down),
        )
        return HeartbeatDecision(Errors.NONE, action, response)

    def expired_brokers(self, now_ms: int) -> list[int]:
        """Unfenced brokers whose last heartbeat is older than the session timeout, sorted.

        Args:
            now_ms: monotonic time (ms).
        """
        return sorted(
            reg.broker_id
            for reg in self._context.brokers.values()
            if not reg.fenced and now_ms - reg.last_heartbeat_ms > self._session_timeout_ms
        )


def _registration_error(error: Errors, message: str) -> ControllerResult[BrokerRegistrationResponse]:
    return ControllerResult([], BrokerRegistrationResponse(error_code=error, error_message=message))
