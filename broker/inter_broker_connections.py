"""One connection per peer broker for a broker's own requests to other brokers, opened on demand and
reopened after a failure.

Owns: ``InterBrokerConnections`` (``connection(broker_id)``, ``drop(broker_id)``, ``close()``).  Does
not own what is sent: its users (the transaction marker sender, the AddPartitionsToTxn verifier)
build the requests and handle the answers.

Kafka concept: the ``NetworkClient`` under ``InterBrokerSendThread`` (connections on the
inter-broker listener, ``inter.broker.listener.name``).
"""

from __future__ import annotations

import asyncio

from kafkette.broker.metadata_cache import MetadataCache
from kafkette.common.network.client_security import PLAINTEXT, ClientSecurity
from kafkette.common.network.connection import BrokerConnection
from kafkette.protocol.errors import KafkaConnectionError

CONNECT_TIMEOUT_MS = 5000


class InterBrokerConnections:
    """Open connections to peer brokers, keyed by broker id.

    Args:
        broker_id: this broker (in the client id).
        metadata_cache: the live brokers' addresses.
        client_id_suffix: the client id is ``broker-<id>-<suffix>``.
        security: TLS and SASL of the inter-broker listener (``KafkaConfig.inter_broker_security``).
        request_timeout_ms: each request's default deadline, ms (the connect timeout is at most
            ``CONNECT_TIMEOUT_MS``).
    """

    def __init__(
        self,
        broker_id: int,
        metadata_cache: MetadataCache,
        client_id_suffix: str,
        *,
        security: ClientSecurity = PLAINTEXT,
        request_timeout_ms: int = 30000,
    ) -> None:
        self._broker_id = broker_id
        self._metadata = metadata_cache
        self._client_id = f"broker-{broker_id}-{client_id_suffix}"
        self._security = security
        self._request_timeout_ms = request_timeout_ms
        self._connections: dict[int, BrokerConnection] = {}
        self._connect_lock = asyncio.Lock()

    async def connection(self, broker_id: int) -> BrokerConnection:
        """The open connection to ``broker_id`` (opened now when there is none or it was lost).

        Raises:
            KafkaConnectionError: the broker is not alive or does not answer in time.
            OSError: the connection was refused.
        """
        async with self._connect_lock:
            connection = self._connections.get(broker_id)
            if connection is not None and connection.connected:
                return connection
            if connection is not None:
                await connection.close()
            endpoint = self._metadata.get_alive_broker(broker_id)
            if endpoint is None:
                raise KafkaConnectionError(f"broker {broker_id} is not alive")
            connection = BrokerConnection(
                endpoint.host,
                endpoint.port,
                client_id=self._client_id,
                request_timeout_ms=self._request_timeout_ms,
                security=self._security,
            )
            await connection.connect(timeout_ms=min(self._request_timeout_ms, CONNECT_TIMEOUT_MS))
            self._connections[broker_id] = connection
            return connection

    async def drop(self, broker_id: int) -> None:
        """Close the connection to ``broker_id`` (the next ``connection`` opens a new one)."""
        connection = self._connections.pop(broker_id, None)
        if connection is not None:
            await connection.close()

    async def close(self) -> None:
        """Close every connection (idempotent)."""
        for broker_id in list(self._connections):
            await self.drop(broker_id)
