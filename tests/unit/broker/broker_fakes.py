"""Test doubles and builders for the broker unit tests.

Fakes sit only at seams: a manual clock, a recorder standing in for the
AlterPartitionManager (``submit``), and a fake leader for the replica fetcher.
Everything else (LogManager, Log, Partition) is real and lives on ``tmp_path``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kafkette.broker.client_request_quota_manager import ClientRequestQuotaManager
from kafkette.broker.config import KafkaConfig
from kafkette.broker.controller_mutation_quota_manager import ControllerMutationQuotaManager
from kafkette.broker.log.log_config import LogConfig
from kafkette.broker.log.log_manager import LogManager
from kafkette.broker.partition import Partition
from kafkette.protocol.apis.alter_partition import AlterPartitionResponsePartition
from kafkette.protocol.apis.configs import TopicConfigOverride
from kafkette.protocol.apis.fetch import FetchPartitionData, FetchRequest, FetchResponse, FetchTopicResponse
from kafkette.protocol.apis.leader_and_isr import LeaderAndIsrPartitionState
from kafkette.protocol.apis.offsets_for_leader_epoch import EpochEndOffset, OffsetForLeaderPartition
from kafkette.protocol.errors import Errors
from kafkette.protocol.record_batch import build_batch, iter_batches, read_header
from kafkette.protocol.topic_partition import TopicPartition

TOPIC = "flights"
TP0 = TopicPartition(TOPIC, 0)
TP1 = TopicPartition(TOPIC, 1)


class ManualClock:
    """A monotonic clock in ms that only moves when a test advances it."""

    def __init__(self, now_ms: int = 1_000_000) -> None:
        self.now_ms = now_ms

    def __call__(self) -> int:
        return self.now_ms

    def advance(self, ms: int) -> None:
        self.now_ms += ms


@dataclass(frozen=True)
class Proposal:
    """One AlterPartition proposal as a Partition submitted it."""

    tp: TopicPartition
    leader_epoch: int
    new_isr: list[int]
    partition_epoch: int


class AlterPartitionRecorder:
    """Replaces the AlterPartitionManager: records proposals, answers only when told."""

    def __init__(self) -> None:
        self.proposals: list[Proposal] = []
        self.partitions: dict[TopicPartition, Partition] = {}

    def submit(
        self, partition: Partition, leader_epoch: int, new_isr: list[int], partition_epoch: int
    ) -> None:
        self.proposals.append(Proposal(partition.tp, leader_epoch, list(new_isr), partition_epoch))
        self.partitions[partition.tp] = partition

    def commit_last(self, partition_epoch: int | None = None) -> None:
        """Answer the last proposal as the controller would on success."""
        last = self.proposals[-1]
        self.partitions[last.tp].handle_alter_partition_result(
            last.leader_epoch,
            AlterPartitionResponsePartition(
                partition_index=last.tp.partition,
                error_code=Errors.NONE,
                leader_id=self.partitions[last.tp].leader_id,
                leader_epoch=last.leader_epoch,
                isr=list(last.new_isr),
                partition_epoch=last.partition_epoch + 1 if partition_epoch is None else partition_epoch,
            ),
        )


def make_config(log_dir: Path, node_id: int = 1, **props: Any) -> KafkaConfig:
    """A broker config on ``log_dir``; ``props`` use underscores for dots (``min_insync_replicas=2``)."""
    return KafkaConfig(
        {"node.id": node_id, "log.dirs": str(log_dir), **{k.replace("_", "."): v for k, v in props.items()}}
    )


def config_overrides(configs: dict[str, str]) -> list[TopicConfigOverride]:
    """The ``{name, value}`` topic overrides of a LeaderAndIsr or UpdateMetadata request."""
    return [TopicConfigOverride(name=name, value=value) for name, value in configs.items()]


def make_state(
    tp: TopicPartition = TP0,
    *,
    leader: int = 1,
    leader_epoch: int = 1,
    isr: list[int] | None = None,
    replicas: list[int] | None = None,
    partition_epoch: int = 0,
    controller_epoch: int = 1,
    configs: dict[str, str] | None = None,
) -> LeaderAndIsrPartitionState:
    """A LeaderAndIsr partition state; ISR defaults to the replicas, replicas to [1]."""
    replicas = [1] if replicas is None else replicas
    return LeaderAndIsrPartitionState(
        topic_name=tp.topic,
        partition_index=tp.partition,
        controller_epoch=controller_epoch,
        leader=leader,
        leader_epoch=leader_epoch,
        isr=list(replicas if isr is None else isr),
        partition_epoch=partition_epoch,
        replicas=list(replicas),
        is_new=False,
        configs=config_overrides(configs or {}),
    )


def make_batch(
    records: int = 1,
    *,
    base_offset: int = 0,
    producer_id: int = -1,
    producer_epoch: int = -1,
    base_sequence: int = -1,
    leader_epoch: int = -1,
    value_bytes: int = 8,
) -> bytes:
    """One batch of ``records`` records (offsets as given; a leader reassigns them)."""
    return build_batch(
        [(b"k%d" % i, b"v" * value_bytes, None, 1_000 + i) for i in range(records)],
        base_offset=base_offset,
        partition_leader_epoch=leader_epoch,
        producer_id=producer_id,
        producer_epoch=producer_epoch,
        base_sequence=base_sequence,
    )


def header_of(batch: bytes):
    return read_header(batch, 0)


def base_offsets(data: bytes | None) -> list[int]:
    """Base offsets of the whole batches in ``data``."""
    return [header.base_offset for _, header in iter_batches(data or b"")]


def new_partition(
    log_manager: LogManager,
    tp: TopicPartition = TP0,
    *,
    broker_id: int = 1,
    recorder: AlterPartitionRecorder | None = None,
    clock: ManualClock | None = None,
    replica_lag_time_max_ms: int = 10_000,
    hw_advanced: list[TopicPartition] | None = None,
) -> Partition:
    """A real Partition on ``log_manager`` with recording seams."""
    recorder = recorder if recorder is not None else AlterPartitionRecorder()
    advanced = hw_advanced if hw_advanced is not None else []
    return Partition(
        tp,
        local_broker_id=broker_id,
        log_manager=log_manager,
        make_log_config=lambda overrides: LogConfig.from_broker(log_manager.config, overrides),
        submit_alter_partition=recorder.submit,
        on_high_watermark_advanced=advanced.append,
        clock_ms=clock if clock is not None else ManualClock(),
        replica_lag_time_max_ms=replica_lag_time_max_ms,
    )


def fetch_response(parts: dict[TopicPartition, FetchPartitionData]) -> FetchResponse:
    """A FetchResponse with one entry per partition, grouped by topic."""
    topics: dict[str, list[FetchPartitionData]] = {}
    for tp, data in parts.items():
        data.partition_index = tp.partition
        topics.setdefault(tp.topic, []).append(data)
    return FetchResponse(responses=[FetchTopicResponse(topic=t, partitions=p) for t, p in topics.items()])


def requested(request: FetchRequest) -> list[tuple[TopicPartition, int]]:
    """``[(tp, fetch_offset)]`` in the request's order."""
    return [
        (TopicPartition(topic.topic, p.partition), p.fetch_offset)
        for topic in request.topics
        for p in topic.partitions
    ]


class FakeLeaderEndPoint:
    """A leader the fetcher talks to: scripted fetch answers and offsets, no sockets.

    ``responder(request)`` builds each FetchResponse (default: empty answers); it may
    also change the fetcher's partitions to simulate a LeaderAndIsr racing a fetch.
    ``block`` makes ``fetch`` wait until cancelled (for background-task tests).
    ``epoch_end_offsets`` answers OffsetsForLeaderEpoch: ``{tp: (epoch, end offset)}`` or
    ``{tp: error code}``; ``epoch_responder(partitions)`` may replace it (to race changes).
    """

    def __init__(
        self,
        broker_id: int = 2,
        leader_id: int = 1,
        host: str = "leader",
        port: int = 9092,
        socket_timeout_ms: int = 30_000,
    ) -> None:
        self.broker_id = broker_id
        self.leader_id = leader_id
        self.host = host
        self.port = port
        self.requests: list[FetchRequest] = []
        self.responder: Callable[[FetchRequest], FetchResponse] | None = None
        self.fetch_error: Exception | None = None
        self.latest_offsets: dict[TopicPartition, int] = {}
        self.earliest_offsets: dict[TopicPartition, int] = {}
        self.offset_requests: list[tuple[str, TopicPartition, int]] = []
        self.epoch_end_offsets: dict[TopicPartition, tuple[int, int] | int] = {}
        self.epoch_requests: list[dict[TopicPartition, tuple[int, int]]] = []
        self.epoch_error: Exception | None = None
        self.epoch_responder: Callable[[dict[TopicPartition, OffsetForLeaderPartition]], None] | None = None
        self.block = False
        self.closed = 0

    async def fetch(self, request: FetchRequest, timeout_ms: int) -> FetchResponse:
        self.requests.append(request)
        if self.block:
            await asyncio.Event().wait()
        if self.fetch_error is not None:
            raise self.fetch_error
        if self.responder is not None:
            return self.responder(request)
        return fetch_response(
            {
                tp: FetchPartitionData(error_code=Errors.NONE, high_watermark=-1, records=b"")
                for tp, _ in requested(request)
            }
        )

    async def fetch_latest_offset(self, tp: TopicPartition, leader_epoch: int) -> int:
        self.offset_requests.append(("latest", tp, leader_epoch))
        return self.latest_offsets[tp]

    async def fetch_earliest_offset(self, tp: TopicPartition, leader_epoch: int) -> int:
        self.offset_requests.append(("earliest", tp, leader_epoch))
        return self.earliest_offsets[tp]

    async def fetch_epoch_end_offsets(
        self, partitions: dict[TopicPartition, OffsetForLeaderPartition]
    ) -> dict[TopicPartition, EpochEndOffset]:
        """Records ``{tp: (current_leader_epoch, leader_epoch)}``; answers from ``epoch_end_offsets``."""
        self.epoch_requests.append(
            {tp: (p.current_leader_epoch, p.leader_epoch) for tp, p in partitions.items()}
        )
        if self.epoch_responder is not None:
            self.epoch_responder(partitions)
        if self.epoch_error is not None:
            raise self.epoch_error
        out = {}
        for tp in partitions:
            answer = self.epoch_end_offsets[tp]
            if isinstance(answer, tuple):
                out[tp] = EpochEndOffset(
                    error_code=Errors.NONE,
                    partition=tp.partition,
                    leader_epoch=answer[0],
                    end_offset=answer[1],
                )
            else:
                out[tp] = EpochEndOffset(error_code=answer, partition=tp.partition)
        return out

    async def close(self) -> None:
        self.closed += 1


class FakeLeaderEndPointFactory:
    """Stands in for the LeaderEndPoint class in ReplicaFetcherManager; keeps what it built."""

    def __init__(self) -> None:
        self.built: list[FakeLeaderEndPoint] = []

    def __call__(self, broker_id: int, leader_id: int, host: str, port: int, socket_timeout_ms: int):
        endpoint = FakeLeaderEndPoint(broker_id, leader_id, host, port, socket_timeout_ms)
        endpoint.block = True
        self.built.append(endpoint)
        return endpoint


def with_quota_managers(ctx: Any) -> Any:
    """``ctx`` (a ``SimpleNamespace`` standing in for an ``ApisContext``) with the request and
    controller mutation quota managers every request passes through, none of them with a quota."""
    ctx.request_quotas = ClientRequestQuotaManager()
    ctx.controller_mutation_quotas = ControllerMutationQuotaManager()
    return ctx
