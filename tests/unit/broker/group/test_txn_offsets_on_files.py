"""Transactional offsets through the real ``GroupCoordinator`` and ``GroupMetadataManager`` over a real
``ReplicaManager`` leading ``__consumer_offsets-0`` on files (tmp_path): TxnOffsetCommit writes a
transactional batch of its producer, the offsets stay pending (OffsetFetch does not see them;
``require_stable`` answers UNSTABLE_OFFSET_COMMIT) until the transaction's marker, and a new leader
loading the partition rebuilds pending and committed offsets from the records and the control batches.
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest
from broker_fakes import AlterPartitionRecorder, make_config, make_state

from kafkette.broker.group.group_coordinator import GroupCoordinator
from kafkette.broker.group.group_metadata_manager import GroupMetadataManager
from kafkette.broker.group.pending_transactional_offsets import TransactionResult
from kafkette.broker.log.append_origin import AppendOrigin
from kafkette.broker.log.log_manager import LogManager
from kafkette.broker.metadata_cache import MetadataCache
from kafkette.broker.replica_manager import ReplicaManager
from kafkette.common.clock import MockTime
from kafkette.common.kafka_scheduler import KafkaScheduler
from kafkette.common.topic_names import GROUP_METADATA_TOPIC_NAME
from kafkette.protocol.apis.leader_and_isr import LeaderAndIsrRequest
from kafkette.protocol.apis.offsets import (
    OffsetCommitRequest,
    OffsetCommitRequestPartition,
    OffsetCommitRequestTopic,
    OffsetFetchRequestGroup,
    OffsetFetchRequestTopics,
)
from kafkette.protocol.apis.transactions import (
    TxnOffsetCommitRequest,
    TxnOffsetCommitRequestPartition,
    TxnOffsetCommitRequestTopic,
)
from kafkette.protocol.control_record import (
    ControlRecordType,
    EndTransactionMarker,
    build_end_txn_marker_batch,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.record_batch import (
    CONTROL_MASK,
    TRANSACTIONAL_MASK,
    iter_batches,
)
from kafkette.protocol.topic_partition import TopicPartition

OFFSETS_TP = TopicPartition(GROUP_METADATA_TOPIC_NAME, 0)
TOPIC = "orders"
PRODUCER_ID = 4000
GROUP = "txn-group"  # any group: __consumer_offsets has one partition here


class OneTopicMetadataCache:
    """A metadata cache that knows ``TOPIC`` with two partitions."""

    def partition_state(self, tp: TopicPartition) -> object | None:
        return SimpleNamespace(replicas=[1]) if tp.topic == TOPIC and 0 <= tp.partition < 2 else None

    def topic_id(self, topic: str) -> bytes | None:
        return bytes(range(16)) if topic == TOPIC else None

    def topic_name(self, topic_id: bytes) -> str | None:
        return TOPIC if topic_id == bytes(range(16)) else None

    def num_partitions(self, topic: str) -> int | None:
        return 2 if topic == TOPIC else None


class Broker:
    """One broker's ``__consumer_offsets-0`` leader, its group metadata manager and coordinator."""

    def __init__(self, rm: ReplicaManager, time: MockTime) -> None:
        self.rm = rm
        self.time = time
        self.coordinator = self.new_coordinator()

    def new_coordinator(self) -> GroupCoordinator:
        manager = GroupMetadataManager(1, self.rm, partition_count=lambda: 1, time_ms=self.time.milliseconds)
        return GroupCoordinator(
            manager,
            OneTopicMetadataCache(),  # type: ignore[arg-type]
            initial_rebalance_delay_ms=0,
            scheduler=KafkaScheduler(time=self.time),
        )

    async def elect(self, coordinator: GroupCoordinator, leader_epoch: int = 1) -> None:
        coordinator.on_election(0, leader_epoch)
        await asyncio.wait_for(coordinator.manager._loading[0][1], WAIT_S)

    async def write_marker(self, producer_id: int, result: TransactionResult, epoch: int = 0) -> None:
        """Append a marker to ``__consumer_offsets-0`` and tell the coordinator, as the broker does
        once WriteTxnMarkers has written it."""
        end = self.rm.get_partition(OFFSETS_TP).leader_log().log_end_offset
        kind = ControlRecordType.COMMIT if result is TransactionResult.COMMIT else ControlRecordType.ABORT
        marker = build_end_txn_marker_batch(producer_id, epoch, EndTransactionMarker(kind, 0), 0)
        statuses = await self.rm.append_records(
            1000, -1, {OFFSETS_TP: marker}, internal_topics_allowed=True, origin=AppendOrigin.COORDINATOR
        )
        assert statuses[OFFSETS_TP].base_offset == end  # appended, not taken for a duplicate
        assert statuses[OFFSETS_TP].error == Errors.NONE, statuses[OFFSETS_TP]
        self.coordinator.on_transaction_completed(producer_id, [0], result)


WAIT_S = 5.0


@pytest.fixture
async def broker(tmp_path):
    config = make_config(tmp_path / "logs", node_id=1)
    log_manager = LogManager(config)
    await log_manager.start()
    time = MockTime()
    rm = ReplicaManager(
        config, log_manager, MetadataCache(1, "c"), AlterPartitionRecorder(), scheduler=KafkaScheduler(time)
    )
    await rm.become_leader_or_follower(
        LeaderAndIsrRequest(
            controller_id=1,
            controller_epoch=1,
            partition_states=[make_state(OFFSETS_TP, configs={"cleanup.policy": "compact"})],
        )
    )
    broker = Broker(rm, time)
    await broker.elect(broker.coordinator)
    yield broker
    await broker.coordinator.stop()
    await rm.stop()
    await log_manager.stop()


def txn_commit(
    offsets: dict[int, int],
    *,
    producer_id: int = PRODUCER_ID,
    producer_epoch: int = 0,
    generation_id: int = -1,
    member_id: str = "",
    group_instance_id: str | None = None,
    metadata: str = "",
) -> TxnOffsetCommitRequest:
    return TxnOffsetCommitRequest(
        transactional_id="txn-1",
        group_id=GROUP,
        producer_id=producer_id,
        producer_epoch=producer_epoch,
        generation_id=generation_id,
        member_id=member_id,
        group_instance_id=group_instance_id,
        topics=[
            TxnOffsetCommitRequestTopic(
                name=TOPIC,
                partitions=[
                    TxnOffsetCommitRequestPartition(
                        partition_index=p,
                        committed_offset=o,
                        committed_leader_epoch=-1,
                        committed_metadata=metadata,
                    )
                    for p, o in offsets.items()
                ],
            )
        ],
    )


def errors_of(answer) -> dict[int, int]:
    return {p.partition_index: p.error_code for t in answer.topics for p in t.partitions}


def fetch(coordinator: GroupCoordinator, require_stable: bool = False) -> dict[int, tuple[int, int]]:
    """``{partition: (committed offset, error)}`` of both partitions of ``TOPIC``."""
    answer = coordinator.handle_fetch_offsets(
        OffsetFetchRequestGroup(
            group_id=GROUP, topics=[OffsetFetchRequestTopics(name=TOPIC, partition_indexes=[0, 1])]
        ),
        require_stable,
    )
    assert answer.error_code == Errors.NONE
    return {
        p.partition_index: (p.committed_offset, p.error_code) for t in answer.topics for p in t.partitions
    }


async def plain_commit(coordinator: GroupCoordinator, offsets: dict[int, int]) -> None:
    answer = await coordinator.handle_commit_offsets(
        OffsetCommitRequest(
            group_id=GROUP,
            generation_id=-1,
            member_id="",
            topics=[
                OffsetCommitRequestTopic(
                    name=TOPIC,
                    partitions=[
                        OffsetCommitRequestPartition(partition_index=p, committed_offset=o)
                        for p, o in offsets.items()
                    ],
                )
            ],
        ),
        8,
    )
    assert all(p.error_code == Errors.NONE for t in answer.topics for p in t.partitions)


def batches(rm: ReplicaManager) -> list:
    log = rm.get_partition(OFFSETS_TP).leader_log()
    return [h for _, h in iter_batches(log.read(0, 1 << 20, log.log_end_offset, True).records)]


async def test_a_transactional_commit_is_a_transactional_batch_of_its_producer_and_stays_pending(broker):
    answer = await broker.coordinator.commit_transactional_offsets(txn_commit({0: 10, 1: 11}), 3)
    assert errors_of(answer) == {0: Errors.NONE, 1: Errors.NONE}
    [header] = batches(broker.rm)
    assert (header.producer_id, header.producer_epoch, header.records_count) == (PRODUCER_ID, 0, 2)
    assert header.attributes & TRANSACTIONAL_MASK and not header.attributes & CONTROL_MASK
    assert fetch(broker.coordinator) == {0: (-1, Errors.NONE), 1: (-1, Errors.NONE)}
    assert fetch(broker.coordinator, require_stable=True) == {
        0: (-1, Errors.UNSTABLE_OFFSET_COMMIT),
        1: (-1, Errors.UNSTABLE_OFFSET_COMMIT),
    }
    # a second commit of the same transaction continues the producer's sequence: a new batch
    await broker.coordinator.commit_transactional_offsets(txn_commit({0: 12}), 3)
    assert len(batches(broker.rm)) == 2


async def test_commit_marker_makes_pending_offsets_committed_and_abort_drops_them(broker):
    await broker.coordinator.commit_transactional_offsets(txn_commit({0: 10}), 3)
    await broker.write_marker(PRODUCER_ID, TransactionResult.COMMIT)
    assert fetch(broker.coordinator, require_stable=True) == {0: (10, Errors.NONE), 1: (-1, Errors.NONE)}
    await broker.coordinator.commit_transactional_offsets(txn_commit({0: 20, 1: 21}), 3)
    await broker.write_marker(PRODUCER_ID, TransactionResult.ABORT)
    assert fetch(broker.coordinator, require_stable=True) == {0: (10, Errors.NONE), 1: (-1, Errors.NONE)}


async def test_a_later_plain_commit_wins_over_an_earlier_transactional_one(broker):
    await broker.coordinator.commit_transactional_offsets(txn_commit({0: 10, 1: 11}), 3)
    await plain_commit(broker.coordinator, {0: 99})
    await broker.write_marker(PRODUCER_ID, TransactionResult.COMMIT)
    assert fetch(broker.coordinator) == {0: (99, Errors.NONE), 1: (11, Errors.NONE)}


async def test_a_new_leader_rebuilds_pending_and_committed_offsets_from_the_log(broker):
    other = 4001
    await broker.coordinator.commit_transactional_offsets(txn_commit({0: 10}), 3)
    await broker.coordinator.commit_transactional_offsets(txn_commit({1: 7}, producer_id=other), 3)
    await plain_commit(broker.coordinator, {1: 5})
    await broker.write_marker(PRODUCER_ID, TransactionResult.COMMIT)
    await broker.coordinator.commit_transactional_offsets(
        txn_commit({0: 30}), 3
    )  # a second transaction, open
    reloaded = broker.new_coordinator()
    try:
        await broker.elect(reloaded)  # a fresh coordinator reads the whole log
        assert fetch(reloaded) == {0: (10, Errors.NONE), 1: (5, Errors.NONE)}
        assert fetch(reloaded, require_stable=True) == {
            0: (-1, Errors.UNSTABLE_OFFSET_COMMIT),
            1: (-1, Errors.UNSTABLE_OFFSET_COMMIT),
        }
        reloaded.on_transaction_completed(other, [0], TransactionResult.COMMIT)  # written after plain 5
        reloaded.on_transaction_completed(PRODUCER_ID, [0], TransactionResult.ABORT)
        assert fetch(reloaded, require_stable=True) == {0: (10, Errors.NONE), 1: (5, Errors.NONE)}
    finally:
        await reloaded.stop()


async def test_a_group_with_only_pending_offsets_exists_and_keeps_them_from_expiring(broker):
    await plain_commit(broker.coordinator, {1: 3})
    await broker.coordinator.commit_transactional_offsets(txn_commit({0: 10, 1: 4}), 3)
    later = broker.time.milliseconds() + 8 * 24 * 3600 * 1000  # past offsets.retention.minutes
    assert await broker.coordinator.expire_offsets(later) == 0
    assert fetch(broker.coordinator) == {0: (-1, Errors.NONE), 1: (3, Errors.NONE)}
    await broker.write_marker(PRODUCER_ID, TransactionResult.COMMIT)
    assert fetch(broker.coordinator) == {0: (10, Errors.NONE), 1: (4, Errors.NONE)}
    assert await broker.coordinator.expire_offsets(later) == 2  # no transaction open: both expire


async def test_deleting_the_topic_drops_its_pending_offsets_too(broker):
    await broker.coordinator.commit_transactional_offsets(txn_commit({0: 10, 1: 11}), 3)
    assert await broker.coordinator.remove_deleted_partitions({TopicPartition(TOPIC, 0)}) == 1
    await broker.write_marker(PRODUCER_ID, TransactionResult.COMMIT)
    assert fetch(broker.coordinator) == {0: (-1, Errors.NONE), 1: (11, Errors.NONE)}
