"""Builders and fakes for the broker's topic-lifecycle unit tests (StopReplica, topic
configs, dynamic broker configs, auto-creation, controlled shutdown).

Fakes sit only at seams: the controller channel (``FakeControllerChannel``) and the
AlterPartitionManager (``NoAlterPartition``).  LogManager, Log, Partition and
ReplicaManager are real and live on ``tmp_path``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from broker_fakes import config_overrides

from kafkette.broker.apis.apis_context import ApisContext
from kafkette.broker.config import KafkaConfig
from kafkette.broker.dynamic_broker_config import DynamicBrokerConfig
from kafkette.broker.log.log_manager import LogManager
from kafkette.broker.metadata_cache import MetadataCache
from kafkette.broker.replica_manager import ReplicaManager
from kafkette.protocol.apis.leader_and_isr import LeaderAndIsrPartitionState, LeaderAndIsrRequest
from kafkette.protocol.apis.stop_replica import (
    StopReplicaPartitionState,
    StopReplicaRequest,
    StopReplicaTopicState,
)
from kafkette.protocol.record_batch import build_batch
from kafkette.protocol.topic_partition import TopicPartition

TOPIC = "flights"
TP0 = TopicPartition(TOPIC, 0)
TP1 = TopicPartition(TOPIC, 1)


def make_config(log_dir: Path, node_id: int = 1, **props: Any) -> KafkaConfig:
    """A broker config on ``log_dir``; ``props`` are dotted names given with underscores."""
    return KafkaConfig(
        {
            "node.id": node_id,
            "log.dirs": str(log_dir),
            "controller.quorum.voters": "1@127.0.0.1:9092",
            **{k.replace("_", "."): v for k, v in props.items()},
        }
    )


class NoAlterPartition:
    """Stands in for the AlterPartitionManager; records proposals and never answers."""

    def __init__(self) -> None:
        self.proposals: list[tuple[TopicPartition, list[int]]] = []

    def submit(self, partition: Any, leader_epoch: int, new_isr: list[int], partition_epoch: int) -> None:
        self.proposals.append((partition.tp, list(new_isr)))


@asynccontextmanager
async def running_replica_manager(config: KafkaConfig) -> AsyncIterator[ReplicaManager]:
    """A ReplicaManager over a started LogManager; both stopped on exit (no periodic tasks)."""
    log_manager = LogManager(config)
    await log_manager.start()
    manager = ReplicaManager(
        config, log_manager, MetadataCache(config.node_id, config.cluster_id), NoAlterPartition()
    )  # type: ignore[arg-type]
    try:
        yield manager
    finally:
        await manager.stop()
        await log_manager.stop()


def apis_context(
    manager: ReplicaManager,
    *,
    controller: Any = None,
    dynamic_config: DynamicBrokerConfig | None = None,
    auto_topic_creation_manager: Any = None,
) -> ApisContext:
    """An ApisContext over ``manager`` (its config and metadata cache)."""
    return ApisContext(
        manager.config,
        manager,
        manager.metadata_cache,
        controller,
        None,  # type: ignore[arg-type]
        dynamic_config=dynamic_config or DynamicBrokerConfig(manager.config),
        auto_topic_creation_manager=auto_topic_creation_manager,
    )


def leader_and_isr(
    *tps: TopicPartition,
    leader: int = 1,
    leader_epoch: int = 1,
    replicas: list[int] | None = None,
    isr: list[int] | None = None,
    controller_epoch: int = 1,
    configs: dict[str, str] | None = None,
) -> LeaderAndIsrRequest:
    """A LeaderAndIsr request giving every ``tp`` the same leader, epoch and replicas."""
    replicas = [1] if replicas is None else replicas
    return LeaderAndIsrRequest(
        controller_id=1,
        controller_epoch=controller_epoch,
        partition_states=[
            LeaderAndIsrPartitionState(
                topic_name=tp.topic,
                partition_index=tp.partition,
                controller_epoch=controller_epoch,
                leader=leader,
                leader_epoch=leader_epoch,
                isr=list(replicas if isr is None else isr),
                partition_epoch=0,
                replicas=list(replicas),
                is_new=True,
                configs=config_overrides(configs or {}),
            )
            for tp in tps
        ],
    )


def stop_replica(
    *tps: TopicPartition, delete: bool = True, leader_epoch: int = -2, controller_epoch: int = 1
) -> StopReplicaRequest:
    """A StopReplica request for ``tps`` (leader epoch -2: Kafka's "epoch during delete")."""
    by_topic: dict[str, list[StopReplicaPartitionState]] = {}
    for tp in tps:
        by_topic.setdefault(tp.topic, []).append(
            StopReplicaPartitionState(
                partition_index=tp.partition, leader_epoch=leader_epoch, delete_partition=delete
            )
        )
    return StopReplicaRequest(
        controller_id=1,
        controller_epoch=controller_epoch,
        topic_states=[
            StopReplicaTopicState(topic_name=topic, partition_states=parts)
            for topic, parts in by_topic.items()
        ],
    )


def make_batch(records: int = 1) -> bytes:
    """One producer batch of ``records`` small records."""
    return build_batch([(b"k%d" % i, b"value", None, 1_000 + i) for i in range(records)])


class FakeControllerChannel:
    """Replaces NodeToControllerChannelManager: records requests, answers from a script.

    Args:
        answer: ``request -> response`` (may raise, e.g. KafkaConnectionError).
        hold: when set, every send waits for ``release`` before answering.
    """

    def __init__(self, answer: Callable[[Any], Any], *, hold: bool = False) -> None:
        self._answer = answer
        self.requests: list[Any] = []
        self.timeouts: list[int | None] = []
        self.release = asyncio.Event()
        if not hold:
            self.release.set()

    async def send(self, request: Any, timeout_ms: int | None = None) -> Any:
        self.requests.append(request)
        self.timeouts.append(timeout_ms)
        await asyncio.wait_for(self.release.wait(), 5)
        return self._answer(request)
