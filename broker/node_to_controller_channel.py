"""The broker's channel to the active controller (registration, heartbeats, ISR changes).

Owns: one BrokerConnection to the first voter of ``controller.quorum.voters``,
reopened on demand after a failure.  Does not retry by itself: callers decide (the
lifecycle manager keeps heartbeating, the AlterPartition manager resubmits).

Kafka concept: ``NodeToControllerChannelManager``.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from kafkette.broker.config import KafkaConfig
from kafkette.client.connection import BrokerConnection
from kafkette.protocol.errors import KafkaConnectionError, KafkaTimeoutError
from kafkette.protocol.schema import Struct

logger = logging.getLogger(__name__)


class NodeToControllerChannelManager:
    """Sends requests to the active controller over one reusable connection.

    Args:
        config: the broker config (``controller.quorum.voters``, ``request.timeout.ms``).
    """

    def __init__(self, config: KafkaConfig) -> None:
        address = config.controller_address
        if address is None:
            raise ValueError("controller.quorum.voters is empty: the broker cannot reach a controller")
        self.host, self.port = address
        self._client_id = f"broker-{config.node_id}-to-controller"
        self._timeout_ms = config.request_timeout_ms
        self._connection: BrokerConnection | None = None
        self._connect_lock = asyncio.Lock()

    async def send(self, request: Struct, timeout_ms: int | None = None) -> Any:
        """Send ``request`` to the controller and return its response.

        Raises:
            KafkaConnectionError: the controller cannot be reached (the connection
                is dropped and reopened by the next call).
            KafkaTimeoutError: no answer within ``timeout_ms``.
        """
        async with self._connect_lock:
            if self._connection is None or not self._connection.connected:
                if self._connection is not None:
                    await self._connection.close()
                self._connection = None
                conn = BrokerConnection(self.host, self.port, client_id=self._client_id,
                                        request_timeout_ms=self._timeout_ms)
                await conn.connect(timeout_ms=min(self._timeout_ms, 5000))
                self._connection = conn
            connection = self._connection
        try:
            return await connection.send(request, timeout_ms=timeout_ms or self._timeout_ms)
        except (KafkaConnectionError, KafkaTimeoutError):
            await self.close()
            raise

    async def close(self) -> None:
        """Close the connection (idempotent)."""
        if self._connection is not None:
            conn, self._connection = self._connection, None
            await conn.close()
