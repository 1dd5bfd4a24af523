"""ReplicaFetcherManager: which fetcher task replicates which partition.

Owns: the fetcher tasks, keyed by (source broker id, fetcher id), where a partition
goes to fetcher ``hash(topic, partition) % num.replica.fetchers`` of its leader.
Adds and removes partitions, starts fetchers on demand and stops idle ones.

Kafka concept: ``AbstractFetcherManager``/``ReplicaFetcherManager``
(addFetcherForPartitions, removeFetcherForPartitions, shutdownIdleFetcherThreads).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import zlib
from collections.abc import Callable
from dataclasses import dataclass

from kafkette.broker.config import KafkaConfig
from kafkette.broker.fetcher.leader_end_point import LeaderEndPoint
from kafkette.broker.fetcher.replica_fetcher_thread import ReplicaFetcherThread
from kafkette.broker.partition import Partition
from kafkette.broker.replication_quota_manager import ReplicationQuotaManager
from kafkette.common.clock import SYSTEM_TIME, Time
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class InitialFetchState:
    """Where a follower starts: the leader's id and address, and the leader epoch."""

    leader_id: int
    leader_host: str
    leader_port: int
    leader_epoch: int


class ReplicaFetcherManager:
    """Routes follower partitions to fetcher tasks.

    Args:
        config: broker config (``num.replica.fetchers``, ``replica.*``).
        get_partition: ``tp -> Partition | None``.
        leader_end_point_factory: builds a LeaderEndPoint (tests pass a fake).
        time: the fetchers' clock (backoffs and waits); the broker's scheduler clock.
        quota: the follower's replication throttle (KIP-73) every fetcher honours; None: none.
    """

    def __init__(
        self,
        config: KafkaConfig,
        get_partition: Callable[[TopicPartition], Partition | None],
        leader_end_point_factory: Callable[[int, int, str, int, int], LeaderEndPoint] = LeaderEndPoint,
        *,
        time: Time = SYSTEM_TIME,
        quota: ReplicationQuotaManager | None = None,
    ) -> None:
        self._config = config
        self._time = time
        self._quota = quota
        self._get_partition = get_partition
        self._factory = leader_end_point_factory
        if leader_end_point_factory is LeaderEndPoint:
            self._factory = functools.partial(LeaderEndPoint, security=config.inter_broker_security)
        self._fetchers: dict[tuple[int, int], ReplicaFetcherThread] = {}
        self._owner: dict[TopicPartition, tuple[int, int]] = {}
        self._addresses: dict[int, tuple[str, int]] = {}

    def fetcher_id(self, tp: TopicPartition) -> int:
        """``hash(topic, partition) % num.replica.fetchers`` (stable across runs)."""
        return (zlib.crc32(tp.topic.encode()) * 31 + tp.partition) % self._config.num_replica_fetchers

    async def add_fetcher_for_partitions(self, partitions: dict[TopicPartition, InitialFetchState]) -> None:
        """Start replicating each partition from its leader (removing older assignments)."""
        await self.remove_fetcher_for_partitions(list(partitions))
        for tp, init in partitions.items():
            key = (init.leader_id, self.fetcher_id(tp))
            address = (init.leader_host, init.leader_port)
            fetcher = self._fetchers.get(key)
            moved: dict[TopicPartition, int] = {}
            if fetcher is not None and self._addresses.get(init.leader_id) != address:
                # The leader is reachable elsewhere now: move this fetcher's other partitions too.
                moved = {
                    other: state.leader_epoch
                    for other, owner in self._owner.items()
                    if owner == key and (state := fetcher.fetch_state(other)) is not None
                }
                await self._stop_fetcher(key)
                fetcher = None
            if fetcher is None:
                leader = self._factory(
                    self._config.node_id,
                    init.leader_id,
                    init.leader_host,
                    init.leader_port,
                    self._config.replica_socket_timeout_ms,
                )
                fetcher = ReplicaFetcherThread(
                    f"ReplicaFetcherThread-{key[1]}-{init.leader_id}",
                    self._config.node_id,
                    leader,
                    self._config,
                    self._get_partition,
                    time=self._time,
                    quota=self._quota,
                )
                self._fetchers[key] = fetcher
                self._addresses[init.leader_id] = address
                fetcher.start()
            fetcher.add_partitions({**moved, tp: init.leader_epoch})
            for added in (*moved, tp):
                self._owner[added] = key

    async def remove_fetcher_for_partitions(self, tps: list[TopicPartition]) -> None:
        """Stop replicating ``tps`` (no-op for partitions not being fetched)."""
        for tp in tps:
            key = self._owner.pop(tp, None)
            if key is not None and key in self._fetchers:
                self._fetchers[key].remove_partitions([tp])
        await self.shutdown_idle_fetcher_threads()

    async def shutdown_idle_fetcher_threads(self) -> None:
        for key in [k for k, f in self._fetchers.items() if f.partition_count == 0]:
            await self._stop_fetcher(key)

    async def _stop_fetcher(self, key: tuple[int, int]) -> None:
        fetcher = self._fetchers.pop(key)
        for tp in [tp for tp, owner in self._owner.items() if owner == key]:
            del self._owner[tp]
        await fetcher.stop()

    def fetcher_for(self, tp: TopicPartition) -> ReplicaFetcherThread | None:
        key = self._owner.get(tp)
        return self._fetchers.get(key) if key is not None else None

    async def shutdown(self) -> None:
        """Stop every fetcher task (all at once) and close their connections."""
        fetchers = list(self._fetchers.values())
        self._fetchers.clear()
        self._owner.clear()
        await asyncio.gather(*(f.stop() for f in fetchers))
