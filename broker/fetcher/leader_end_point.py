"""The seam through which a replica fetcher reaches a partition leader.

Owns: one BrokerConnection to the leader broker, reopened after failures.  Tests
can replace it with a fake leader.  Kafka concept: ``LeaderEndPoint`` /
``RemoteLeaderEndPoint`` (fetch, fetchEarliestOffset, fetchLatestOffset,
fetchEpochEndOffsets).
"""

from __future__ import annotations

from typing import Any

from kafkette.common.network.client_security import PLAINTEXT, ClientSecurity
from kafkette.common.network.connection import BrokerConnection
from kafkette.protocol.apis.fetch import FetchRequest, FetchResponse
from kafkette.protocol.apis.list_offsets import (
    EARLIEST_TIMESTAMP,
    LATEST_TIMESTAMP,
    ListOffsetsPartition,
    ListOffsetsRequest,
    ListOffsetsTopic,
)
from kafkette.protocol.apis.offsets_for_leader_epoch import (
    EpochEndOffset,
    OffsetForLeaderPartition,
    OffsetForLeaderTopic,
    OffsetsForLeaderEpochRequest,
)
from kafkette.protocol.errors import Errors, KafkaConnectionError, KafkaTimeoutError, raise_for_code
from kafkette.protocol.topic_partition import TopicPartition


class LeaderEndPoint:
    """Requests to one leader broker on behalf of a follower.

    Args:
        broker_id: this (follower) broker's id, sent as ``replica_id``.
        leader_id, host, port: the leader broker.
        socket_timeout_ms: per-request timeout (``replica.socket.timeout.ms``).
        security: TLS and SASL of the inter-broker listener (``KafkaConfig.inter_broker_security``).
    """

    def __init__(
        self,
        broker_id: int,
        leader_id: int,
        host: str,
        port: int,
        socket_timeout_ms: int,
        security: ClientSecurity = PLAINTEXT,
    ) -> None:
        self.broker_id = broker_id
        self.leader_id = leader_id
        self.host = host
        self.port = port
        self._timeout_ms = socket_timeout_ms
        self._security = security
        self._connection: BrokerConnection | None = None

    async def _conn(self) -> BrokerConnection:
        if self._connection is None or not self._connection.connected:
            if self._connection is not None:
                await self._connection.close()
            self._connection = None
            conn = BrokerConnection(
                self.host,
                self.port,
                client_id=f"replica-fetcher-{self.broker_id}",
                request_timeout_ms=self._timeout_ms,
                security=self._security,
            )
            await conn.connect(timeout_ms=min(self._timeout_ms, 5000))
            self._connection = conn
        return self._connection

    async def fetch(self, request: FetchRequest, timeout_ms: int) -> FetchResponse:
        """Send a follower fetch.

        Raises:
            KafkaConnectionError, KafkaTimeoutError: the leader is unreachable.
        """
        return await self._send(request, timeout_ms)

    async def _send(self, request: Any, timeout_ms: int) -> Any:
        """Send ``request`` on the connection to the leader; a failed connection is closed, then re-raised.

        The next call reconnects (``_conn``).

        Args:
            request: a request dataclass (Fetch, ListOffsets, OffsetsForLeaderEpoch).
            timeout_ms: how long to wait for the response (ms).

        Returns:
            The response.

        Raises:
            KafkaConnectionError, KafkaTimeoutError: the leader is unreachable.
        """
        conn = await self._conn()
        try:
            return await conn.send(request, timeout_ms=timeout_ms)
        except (KafkaConnectionError, KafkaTimeoutError):
            await self.close()
            raise

    async def _list_offset(self, tp: TopicPartition, timestamp: int, leader_epoch: int) -> int:
        request = ListOffsetsRequest(
            replica_id=self.broker_id,
            topics=[
                ListOffsetsTopic(
                    name=tp.topic,
                    partitions=[
                        ListOffsetsPartition(
                            partition_index=tp.partition,
                            current_leader_epoch=leader_epoch,
                            timestamp=timestamp,
                        )
                    ],
                )
            ],
        )
        response = await self._send(request, self._timeout_ms)
        part = response.topics[0].partitions[0]
        raise_for_code(part.error_code)
        return part.offset

    async def fetch_latest_offset(self, tp: TopicPartition, leader_epoch: int) -> int:
        """The leader's log end offset for ``tp`` (follower ListOffsets, -1)."""
        return await self._list_offset(tp, LATEST_TIMESTAMP, leader_epoch)

    async def fetch_earliest_offset(self, tp: TopicPartition, leader_epoch: int) -> int:
        """The leader's log start offset for ``tp`` (ListOffsets, -2)."""
        return await self._list_offset(tp, EARLIEST_TIMESTAMP, leader_epoch)

    async def fetch_epoch_end_offsets(
        self, partitions: dict[TopicPartition, OffsetForLeaderPartition]
    ) -> dict[TopicPartition, EpochEndOffset]:
        """Ask the leader where each partition's requested leader epoch ends (OffsetsForLeaderEpoch).

        Args:
            partitions: ``{tp: OffsetForLeaderPartition}`` carrying the epoch the follower
                follows (``current_leader_epoch``) and the epoch it asks about (``leader_epoch``).

        Returns:
            ``{tp: EpochEndOffset}`` as answered, errors per partition included; a partition
            missing from the answer gets UNKNOWN_SERVER_ERROR.

        Raises:
            KafkaConnectionError, KafkaTimeoutError: the leader is unreachable.
        """
        topics: dict[str, list[OffsetForLeaderPartition]] = {}
        for tp, data in partitions.items():
            data.partition = tp.partition
            topics.setdefault(tp.topic, []).append(data)
        request = OffsetsForLeaderEpochRequest(
            replica_id=self.broker_id,
            topics=[OffsetForLeaderTopic(name=name, partitions=parts) for name, parts in topics.items()],
        )
        response = await self._send(request, self._timeout_ms)
        answered = {
            TopicPartition(topic.name, p.partition): p for topic in response.topics for p in topic.partitions
        }
        return {
            tp: answered.get(tp)
            or EpochEndOffset(error_code=Errors.UNKNOWN_SERVER_ERROR, partition=tp.partition)
            for tp in partitions
        }

    async def close(self) -> None:
        if self._connection is not None:
            conn, self._connection = self._connection, None
            await conn.close()
