"""The broker's channel to the active controller (registration, heartbeats, ISR changes).

Owns: one ``BrokerConnection`` per voter of ``controller.quorum.voters`` (opened on demand,
reopened after a failure) and the guess of which voter is the active controller: the
hint of the node's own voter when it has one (the Raft leader it knows), else the voter
that last answered as the controller.  A send that meets a lost connection or a
NOT_CONTROLLER answer tries the next voter, each voter at most once per send, so a
broker finds a new active controller within one request after a failover.  Does not
retry beyond that: callers decide (the lifecycle manager keeps heartbeating, the
AlterPartition manager resubmits).

Kafka concept: ``NodeToControllerChannelManager`` with its ``ControllerNodeProvider``
(``RaftControllerNodeProvider``: the leader of the metadata quorum).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from kafkette.broker.config import KafkaConfig
from kafkette.common.network.connection import BrokerConnection
from kafkette.protocol.errors import Errors, KafkaConnectionError, KafkaTimeoutError
from kafkette.protocol.schema import Struct

logger = logging.getLogger(__name__)

CONNECT_TIMEOUT_MS = 5000
CONTROLLER_CHANNEL_CLIENT_SUFFIX = "-to-controller"  # marks the requests of this channel


PER_ITEM_RESULTS = ("topics", "results", "responses")  # CreateTopics; CreatePartitions, configs; DeleteTopics


def is_not_controller(response: Any) -> bool:
    """True when ``response`` says NOT_CONTROLLER: in its ``error_code``, or for every item of a
    per-item answer (CreateTopics' ``topics``, CreatePartitions' and the config APIs' ``results``,
    DeleteTopics' ``responses``)."""
    if getattr(response, "error_code", None) == Errors.NOT_CONTROLLER:
        return True
    for name in PER_ITEM_RESULTS:
        items = getattr(response, name, None)
        if items:
            return all(getattr(item, "error_code", None) == Errors.NOT_CONTROLLER for item in items)
    return False


class NodeToControllerChannelManager:
    """Sends requests to the active controller.

    Args:
        config: the broker config (``controller.quorum.voters``, ``request.timeout.ms``).
        controller_hint: the node id of the active controller as this node's own voter knows
            it (-1 when unknown); None on a node without the controller role.

    Raises:
        ValueError: ``controller.quorum.voters`` is empty.
    """

    def __init__(self, config: KafkaConfig, controller_hint: Callable[[], int] | None = None) -> None:
        self.voters = config.quorum_voters
        if not self.voters:
            raise ValueError("controller.quorum.voters is empty: the broker cannot reach a controller")
        self._order = list(self.voters)
        self._guess = self._order[0]
        self.controller_hint = controller_hint
        self._client_id = f"broker-{config.node_id}{CONTROLLER_CHANNEL_CLIENT_SUFFIX}"
        self._timeout_ms = config.request_timeout_ms
        self._security = config.controller_security
        self._connections: dict[int, BrokerConnection] = {}
        self._connect_lock = asyncio.Lock()

    @property
    def controller_id(self) -> int:
        """The voter the next request goes to first."""
        hint = self.controller_hint() if self.controller_hint is not None else -1
        return hint if hint in self.voters else self._guess

    async def send(self, request: Struct, timeout_ms: int | None = None) -> Any:
        """Send ``request`` to the active controller and return its response.

        Returns:
            The first answer that is not NOT_CONTROLLER, else the last NOT_CONTROLLER answer
            (no voter is the active controller now, e.g. during an election).

        Raises:
            KafkaConnectionError: no voter could be reached.
            KafkaTimeoutError: the voter tried did not answer within ``timeout_ms`` (the next
                send starts at the next voter).
        """
        response: Any = None
        last_exc: KafkaConnectionError | None = None
        tried: set[int] = set()
        while len(tried) < len(self._order):
            target = self.controller_id
            if target in tried:
                target = next(
                    v for v in self._order[self._order.index(self._guess) :] + self._order if v not in tried
                )
            tried.add(target)
            try:
                response = await self._send_to(target, request, timeout_ms or self._timeout_ms)
            except KafkaConnectionError as exc:
                last_exc = exc
                self._move_past(target)
                continue
            except KafkaTimeoutError:
                self._move_past(target)
                raise
            if not is_not_controller(response):
                self._guess = target
                return response
            self._move_past(target)
        if response is not None:
            return response
        assert last_exc is not None
        raise last_exc

    def _move_past(self, voter: int) -> None:
        self._guess = self._order[(self._order.index(voter) + 1) % len(self._order)]

    async def _send_to(self, voter: int, request: Struct, timeout_ms: int) -> Any:
        async with self._connect_lock:
            connection = self._connections.get(voter)
            if connection is None or not connection.connected:
                if connection is not None:
                    await connection.close()
                self._connections.pop(voter, None)
                host, port = self.voters[voter]
                connection = BrokerConnection(
                    host,
                    port,
                    client_id=self._client_id,
                    request_timeout_ms=self._timeout_ms,
                    security=self._security,
                )
                await connection.connect(timeout_ms=min(self._timeout_ms, CONNECT_TIMEOUT_MS))
                self._connections[voter] = connection
        try:
            return await connection.send(request, timeout_ms=timeout_ms)
        except (KafkaConnectionError, KafkaTimeoutError):
            if self._connections.get(voter) is connection:
                del self._connections[voter]
            await connection.close()
            raise

    async def close(self) -> None:
        """Close every connection (idempotent)."""
        connections, self._connections = self._connections, {}
        for connection in connections.values():
            await connection.close()
