"""TransactionStateLog on a real ReplicaManager and real logs (tmp_path): a transactional id's
transitions appended to ``__transaction_state`` with acks=all and completed in the cache; a
reload rebuilds them and hands transactions left in PREPARE_COMMIT to ``on_loaded``; a partition
this broker no longer leads, or one reloaded at a newer epoch, answers NOT_COORDINATOR."""

from __future__ import annotations

import asyncio

import pytest
from broker_fakes import AlterPartitionRecorder, make_config, make_state

from kafkette.broker.log.log_manager import LogManager
from kafkette.broker.metadata_cache import MetadataCache
from kafkette.broker.replica_manager import ReplicaManager
from kafkette.broker.transaction.transaction_coordinator import (
    handle_add_partitions_to_transaction,
    handle_end_transaction,
    handle_init_producer_id,
)
from kafkette.broker.transaction.transaction_state import TransactionState, TransactionVersion
from kafkette.broker.transaction.transaction_state_log import TransactionStateLog
from kafkette.broker.transaction.transaction_state_manager import (
    CoordinatorEpochAndTxnMetadata,
    PendingCompletion,
    TransactionStateManager,
)
from kafkette.common.clock import MockTime
from kafkette.common.kafka_scheduler import KafkaScheduler
from kafkette.common.topic_names import TRANSACTION_STATE_TOPIC_NAME
from kafkette.protocol.apis.leader_and_isr import LeaderAndIsrRequest
from kafkette.protocol.errors import Errors
from kafkette.protocol.topic_partition import TopicPartition

PARTITIONS = 50
TXN_ID = "orders-tx"
NOW = 1_700_000_000_000
WAIT_S = 5.0
ORDERS = [TopicPartition("orders", 0), TopicPartition("orders", 1)]


class Coordinator:
    def __init__(self, rm: ReplicaManager) -> None:
        self.rm = rm
        self.state = TransactionStateManager(PARTITIONS, 604_800_000, 900_000)
        self.loaded: list[tuple[int, list[PendingCompletion]]] = []
        self.log = TransactionStateLog(1, rm, self.state, time_ms=lambda: NOW, on_loaded=self._on_loaded)
        self.partition = self.state.partition_for(TXN_ID)
        self.tp = TopicPartition(TRANSACTION_STATE_TOPIC_NAME, self.partition)
        self._producer_ids = iter(range(1000, 2000))
        self._load_seen = asyncio.Event()

    def _on_loaded(self, partition: int, pending: list[PendingCompletion]) -> None:
        self.loaded.append((partition, pending))
        self._load_seen.set()

    def next_producer_id(self) -> int:
        return next(self._producer_ids)

    async def lead(self, epoch: int) -> None:
        await self.rm.become_leader_or_follower(
            LeaderAndIsrRequest(
                controller_id=1,
                controller_epoch=1,
                partition_states=[make_state(self.tp, leader_epoch=epoch)],
            )
        )
        self._load_seen.clear()
        self.log.on_election(self.partition, epoch)
        await asyncio.wait_for(self._load_seen.wait(), WAIT_S)

    def metadata(self) -> CoordinatorEpochAndTxnMetadata:
        found = self.state.get_transaction_state(TXN_ID)
        assert isinstance(found, CoordinatorEpochAndTxnMetadata), found
        return found

    async def write(self, result) -> Errors:
        assert result.error == Errors.NONE and result.writes, result
        return await self.log.append_transaction_to_log(TXN_ID, result.coordinator_epoch, result.transit)

    async def init_and_begin(self) -> None:
        init = handle_init_producer_id(self.state, TXN_ID, 60_000, None, self.next_producer_id, NOW)
        assert await self.write(init) == Errors.NONE
        md = self.metadata().transaction_metadata
        add = handle_add_partitions_to_transaction(
            self.state, TXN_ID, md.producer_id, md.producer_epoch, ORDERS, TransactionVersion.TV_2, NOW
        )
        assert await self.write(add) == Errors.NONE


@pytest.fixture
async def coordinator(tmp_path):
    config = make_config(tmp_path / "logs", node_id=1)
    log_manager = LogManager(config)
    await log_manager.start()
    rm = ReplicaManager(
        config,
        log_manager,
        MetadataCache(1, "c"),
        AlterPartitionRecorder(),
        scheduler=KafkaScheduler(MockTime()),
    )
    coordinator = Coordinator(rm)
    yield coordinator
    await coordinator.log.stop()
    await rm.stop()
    await log_manager.stop()


async def test_transitions_are_written_completed_and_reloaded(coordinator):
    await coordinator.lead(1)
    assert coordinator.loaded == [(coordinator.partition, [])]
    await coordinator.init_and_begin()
    md = coordinator.metadata().transaction_metadata
    assert (md.state, md.pending_state, md.producer_id, md.topic_partitions) == (
        TransactionState.ONGOING,
        None,
        1000,
        set(ORDERS),
    )
    assert coordinator.rm.get_partition(coordinator.tp).log.log_end_offset == 2  # one record per transition

    coordinator.log.on_resignation(coordinator.partition)
    assert coordinator.state.get_transaction_state(TXN_ID) == Errors.NOT_COORDINATOR
    await coordinator.lead(2)
    reloaded = coordinator.metadata()
    assert reloaded.coordinator_epoch == 2
    assert (reloaded.transaction_metadata.state, reloaded.transaction_metadata.topic_partitions) == (
        TransactionState.ONGOING,
        set(ORDERS),
    )


async def test_a_transaction_left_preparing_its_commit_is_handed_back_after_a_reload(coordinator):
    await coordinator.lead(1)
    await coordinator.init_and_begin()
    md = coordinator.metadata().transaction_metadata
    end = handle_end_transaction(
        coordinator.state,
        TXN_ID,
        md.producer_id,
        md.producer_epoch,
        True,
        TransactionVersion.TV_2,
        coordinator.next_producer_id,
        NOW,
    )
    assert await coordinator.write(end) == Errors.NONE
    assert coordinator.metadata().transaction_metadata.state is TransactionState.PREPARE_COMMIT

    coordinator.log.on_resignation(coordinator.partition)
    await coordinator.lead(2)
    partition, pending = coordinator.loaded[-1]
    assert partition == coordinator.partition
    assert [(p.transactional_id, p.committed, p.coordinator_epoch) for p in pending] == [(TXN_ID, True, 2)]
    assert pending[0].transit.txn_state is TransactionState.COMPLETE_COMMIT


async def test_a_stale_coordinator_epoch_or_a_lost_partition_is_not_coordinator(coordinator):
    await coordinator.lead(1)
    init = handle_init_producer_id(coordinator.state, TXN_ID, 60_000, None, coordinator.next_producer_id, NOW)
    assert init.coordinator_epoch == 1
    coordinator.log.on_resignation(coordinator.partition)
    await coordinator.lead(2)
    # prepared at epoch 1, written after the reload at epoch 2: refused, nothing appended
    assert await coordinator.write(init) == Errors.NOT_COORDINATOR
    assert coordinator.rm.get_partition(coordinator.tp).log.log_end_offset == 0
    coordinator.log.on_resignation(coordinator.partition)
    assert await coordinator.log.append_transaction_to_log(TXN_ID, 2, init.transit) == Errors.NOT_COORDINATOR
