"""The transaction coordinator on a real broker, over the msgpack listener: FindCoordinator for a
transactional id (``__transaction_state`` created on the way), InitProducerId with the id,
AddPartitionsToTxn, transactional Produce, EndTxn COMMIT then ABORT with the coordinator writing the
markers (READ_COMMITTED Fetch sees the committed records and lists the aborted transaction),
AddOffsetsToTxn + TxnOffsetCommit made visible by the commit's marker, a second InitProducerId
fencing the first producer, DescribeTransactions / ListTransactions, and the state reloaded from
``__transaction_state`` after a restart (Kafka's TransactionCoordinator, TransactionStateManager,
TransactionMarkerChannelManager)."""

from __future__ import annotations

import asyncio

import pytest

from kafkette.client import AdminClient, LocalCluster, NewTopic
from kafkette.common.network.connection import BrokerConnection
from kafkette.protocol.apis.find_coordinator import COORDINATOR_TYPE_TRANSACTION, FindCoordinatorRequest
from kafkette.protocol.apis.offsets import OffsetFetchRequest, OffsetFetchRequestTopic
from kafkette.protocol.apis.transactions import (
    AddOffsetsToTxnRequest,
    DescribeTransactionsRequest,
    ListTransactionsRequest,
    TxnOffsetCommitRequest,
    TxnOffsetCommitRequestPartition,
    TxnOffsetCommitRequestTopic,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.record_batch import CONTROL_MASK, decode_records, iter_batches
from tests.integration.transaction_requests import (
    RETRIABLE,
    add_partitions,
    end_txn,
    fetch_from_start,
    init_producer_id,
    transactional_produce,
    until,
)

pytestmark = pytest.mark.timeout(180)

HOST = "127.0.0.1"
TOPIC = "txn-e2e"
TXN_ID = "orders-tx"
GROUP = "txn-e2e-group"
READ_COMMITTED = 1


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory):
    """One broker; ``__transaction_state`` gets 5 partitions (fewer to load than Kafka's 50)."""
    with LocalCluster(
        num_brokers=1,
        data_dir=tmp_path_factory.mktemp("txn-coordinator"),
        broker_configs={"transaction.state.log.num.partitions": "5", "offsets.topic.num.partitions": "3"},
    ) as running:
        yield running


def _connection(cluster: LocalCluster) -> BrokerConnection:
    [broker] = cluster.broker_ids
    return BrokerConnection(HOST, cluster.ports[broker], request_timeout_ms=20000)


async def _init(conn: BrokerConnection) -> tuple[int, int]:
    return await init_producer_id(conn, TXN_ID)


async def _add_partitions(conn, producer, partitions) -> dict[int, int]:
    return await add_partitions(conn, TXN_ID, producer, TOPIC, partitions)


async def _produce(conn, producer, partition: int, sequence: int, *values: bytes) -> None:
    """Records stamped now (no time-based segment roll), at the connection's Produce version."""
    code = await transactional_produce(conn, TXN_ID, producer, TOPIC, partition, values, sequence)
    assert code == Errors.NONE, Errors(code).name


async def _end(conn, producer, commit: bool) -> int:
    return await end_txn(conn, TXN_ID, producer, commit)


async def _read_committed(conn, partition: int):
    part = await fetch_from_start(conn, TOPIC, partition, READ_COMMITTED)
    values = []
    for pos, header in iter_batches(part.records or b""):
        if not header.attributes & CONTROL_MASK:
            values.extend(r.value for r in decode_records(part.records, pos, header))
    return part, values


async def _wait_stable(conn, partition: int):
    """The READ_COMMITTED answer once the partition has no open transaction (its markers written)."""
    deadline = asyncio.get_running_loop().time() + 30
    while True:
        part, values = await _read_committed(conn, partition)
        if part.last_stable_offset == part.high_watermark or asyncio.get_running_loop().time() > deadline:
            return part, values
        await asyncio.sleep(0.1)


async def _describe(conn):
    response = await conn.send(DescribeTransactionsRequest(transactional_ids=[TXN_ID]))
    [state] = response.transaction_states
    return state


async def test_find_the_coordinator_then_commit_and_abort_through_it(cluster):
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers) as admin:
        await admin.create_topics([NewTopic(TOPIC, num_partitions=2, replication_factor=1)])
    async with _connection(cluster) as conn:
        found = await until(
            lambda: conn.send(
                FindCoordinatorRequest(key_type=COORDINATOR_TYPE_TRANSACTION, coordinator_keys=[TXN_ID])
            ),
            lambda r: r.coordinators[0].error_code,
        )
        assert found.coordinators[0].error_code == Errors.NONE
        assert found.coordinators[0].node_id == cluster.broker_ids[0]

        producer = await _init(conn)
        assert producer[1] == 0
        assert await _add_partitions(conn, producer, [0, 1]) == {0: Errors.NONE, 1: Errors.NONE}
        await _produce(conn, producer, 0, 0, b"c0", b"c1")
        await _produce(conn, producer, 1, 0, b"c2")
        state = await _describe(conn)
        assert (state.transaction_state, [(t.topic, sorted(t.partitions)) for t in state.topics]) == (
            "Ongoing",
            [(TOPIC, [0, 1])],
        )
        assert await _end(conn, producer, commit=True) == Errors.NONE
        part0, values0 = await _wait_stable(conn, 0)
        part1, values1 = await _wait_stable(conn, 1)
        assert (values0, values1) == ([b"c0", b"c1"], [b"c2"])
        assert part0.last_stable_offset == 3  # two records and the COMMIT marker

        assert await _add_partitions(conn, producer, [0]) == {0: Errors.NONE}
        await _produce(conn, producer, 0, 2, b"a0")
        assert await _end(conn, producer, commit=False) == Errors.NONE
        part0, values0 = await _wait_stable(conn, 0)
        assert [(a.producer_id, a.first_offset) for a in part0.aborted_transactions] == [(producer[0], 3)]
        assert values0 == [b"c0", b"c1", b"a0"]  # the consumer drops a0 from the aborted list

        deadline = asyncio.get_running_loop().time() + 10
        while (await _describe(conn)).transaction_state != "CompleteAbort":
            assert asyncio.get_running_loop().time() < deadline
            await asyncio.sleep(0.1)
        listed = await conn.send(ListTransactionsRequest(state_filters=[], producer_id_filters=[producer[0]]))
        assert [(t.transactional_id, t.transaction_state) for t in listed.transaction_states] == [
            (TXN_ID, "CompleteAbort")
        ]


async def test_offsets_sent_to_the_transaction_are_committed_by_its_marker(cluster):
    async with _connection(cluster) as conn:
        group_coordinator = await until(  # as a client does first: creates __consumer_offsets
            lambda: conn.send(FindCoordinatorRequest(coordinator_keys=[GROUP])),
            lambda r: r.coordinators[0].error_code,
        )
        assert group_coordinator.coordinators[0].error_code == Errors.NONE
        producer = await _init(conn)
        add = await until(
            lambda: conn.send(
                AddOffsetsToTxnRequest(
                    transactional_id=TXN_ID,
                    producer_id=producer[0],
                    producer_epoch=producer[1],
                    group_id=GROUP,
                )
            ),
            lambda r: r.error_code,
        )
        assert add.error_code == Errors.NONE
        committed = await until(
            lambda: conn.send(
                TxnOffsetCommitRequest(
                    transactional_id=TXN_ID,
                    group_id=GROUP,
                    producer_id=producer[0],
                    producer_epoch=producer[1],
                    topics=[
                        TxnOffsetCommitRequestTopic(
                            name=TOPIC,
                            partitions=[
                                TxnOffsetCommitRequestPartition(partition_index=0, committed_offset=2)
                            ],
                        )
                    ],
                )
            ),
            lambda r: r.topics[0].partitions[0].error_code,
        )
        assert committed.topics[0].partitions[0].error_code == Errors.NONE

        async def fetched(require_stable: bool) -> tuple[int, int]:
            response = await conn.send(
                OffsetFetchRequest(
                    group_id=GROUP,
                    topics=[OffsetFetchRequestTopic(name=TOPIC, partition_indexes=[0])],
                    require_stable=require_stable,
                )
            )
            part = response.topics[0].partitions[0]
            return part.error_code, part.committed_offset

        assert await fetched(True) == (Errors.UNSTABLE_OFFSET_COMMIT, -1)  # pending until the marker
        assert await _end(conn, producer, commit=True) == Errors.NONE
        deadline = asyncio.get_running_loop().time() + 10
        while await fetched(True) != (Errors.NONE, 2):
            assert asyncio.get_running_loop().time() < deadline, await fetched(True)
            await asyncio.sleep(0.1)


async def test_a_new_producer_with_the_id_fences_the_old_one_and_the_state_survives_a_restart(cluster):
    async with _connection(cluster) as conn:
        old = await _init(conn)
        assert await _add_partitions(conn, old, [1]) == {1: Errors.NONE}
        await _produce(conn, old, 1, 0, b"zombie")  # a new epoch starts its sequences at 0
        new = await _init(conn)  # aborts the old producer's open transaction, then bumps the epoch
        assert new[0] == old[0] and new[1] > old[1]
        assert await _end(conn, old, commit=True) in (Errors.PRODUCER_FENCED, Errors.INVALID_PRODUCER_EPOCH)
        part1, values1 = await _wait_stable(conn, 1)
        assert values1 == [b"c2", b"zombie"] and [a.producer_id for a in part1.aborted_transactions] == [
            old[0]
        ]
        before = await _describe(conn)
    [broker] = cluster.broker_ids
    cluster.stop_broker(broker, hard=False)
    cluster.start_broker(broker)
    async with _connection(cluster) as conn:
        deadline = asyncio.get_running_loop().time() + 60
        while True:
            state = await _describe(conn)
            if Errors(state.error_code) not in RETRIABLE:
                break
            assert asyncio.get_running_loop().time() < deadline
            await asyncio.sleep(0.2)
        assert (state.error_code, state.producer_id, state.producer_epoch, state.transaction_state) == (
            Errors.NONE,
            before.producer_id,
            before.producer_epoch,
            before.transaction_state,
        )
