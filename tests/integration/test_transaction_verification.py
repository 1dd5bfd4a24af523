"""Transactional produce verification (KIP-890 part 1) on two real brokers: a partition leader asks
the transactional id's coordinator (on the other broker for one partition, on itself for the other)
with AddPartitionsToTxn v5 ``verify_only`` before it appends a transactional batch of a producer with
no transaction open there.  A partition never added to the transaction is refused with
INVALID_TXN_STATE and nothing is appended (no hanging transaction); once AddPartitionsToTxn added it,
the same batch appends; Produce v12+ has the leader add the partition itself; with
``transaction.partition.verification.enable`` set false at run time the batch appends unchecked, as
before KIP-890, and set true again it is checked again (Kafka's AddPartitionsToTxnManager,
ReplicaManager.handleProduceAppend)."""

from __future__ import annotations

import asyncio
import time

import pytest

from kafkette.client import AdminClient, ConfigResource, LocalCluster, NewTopic
from kafkette.client.config_resource import ConfigResourceType
from kafkette.common.network.connection import BrokerConnection
from kafkette.protocol.apis.find_coordinator import COORDINATOR_TYPE_TRANSACTION, FindCoordinatorRequest
from kafkette.protocol.apis.produce import ProducePartitionData, ProduceRequest, ProduceTopicData
from kafkette.protocol.apis.transactions import (
    DescribeTransactionsRequest,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.record_batch import build_kafka_batch
from tests.integration.transaction_requests import (
    add_partitions,
    end_txn,
    fetch_from_start,
    init_producer_id,
    until,
)

pytestmark = pytest.mark.timeout(180)

HOST = "127.0.0.1"
TOPIC = "txn-verified"
TXN_ID = "verified-tx"
REFUSALS = {  # a partition not in the transaction, as each client generation is told (Kafka's mapping)
    9: (Errors.INVALID_TXN_STATE, "Partition was not added to the transaction"),  # DEFAULT_ERROR
    11: (Errors.TRANSACTION_ABORTABLE, None),  # GENERIC_ERROR_SUPPORTED: the coordinator's own answer
}
ADD_PARTITION_VERSION = 12  # the last naming topics by name


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory):
    """Two brokers; ``__transaction_state`` has one partition (one coordinator for the id)."""
    with LocalCluster(
        num_brokers=2,
        data_dir=tmp_path_factory.mktemp("txn-verification"),
        broker_configs={
            "transaction.state.log.num.partitions": "1",
            "transaction.state.log.replication.factor": "1",
            "transaction.state.log.min.isr": "1",
        },
    ) as running:
        yield running


@pytest.fixture(scope="module")
def leaders(cluster: LocalCluster) -> dict[int, int]:
    """``{partition: leader}``: partition 0 on broker 1, partition 1 on broker 2."""
    first, second = cluster.broker_ids

    async def create() -> None:
        async with AdminClient(bootstrap_servers=cluster.bootstrap_servers) as admin:
            await admin.create_topics([NewTopic(TOPIC, replica_assignment={0: [first], 1: [second]})])

    asyncio.run(create())
    return {0: first, 1: second}


def _connection(cluster: LocalCluster, broker: int) -> BrokerConnection:
    return BrokerConnection(HOST, cluster.ports[broker], request_timeout_ms=20000)


async def _coordinator(cluster: LocalCluster) -> BrokerConnection:
    """A connection (to open with ``async with``) to the transactional id's coordinator."""
    async with _connection(cluster, cluster.broker_ids[0]) as conn:
        found = await until(
            lambda: conn.send(
                FindCoordinatorRequest(key_type=COORDINATOR_TYPE_TRANSACTION, coordinator_keys=[TXN_ID])
            ),
            lambda r: r.coordinators[0].error_code,
        )
    [coordinator] = found.coordinators
    assert coordinator.error_code == Errors.NONE
    return _connection(cluster, coordinator.node_id)


def _produce_request(producer, partition: int, sequence: int) -> ProduceRequest:
    """A Produce (acks=-1) of one transactional batch of ``producer`` with base ``sequence``."""
    batch = build_kafka_batch(
        [(None, b"v%d" % sequence, None, int(time.time() * 1000))],
        producer_id=producer[0],
        producer_epoch=producer[1],
        base_sequence=sequence,
        transactional=True,
    )
    return ProduceRequest(
        transactional_id=TXN_ID,
        acks=-1,
        timeout_ms=10000,
        topic_data=[
            ProduceTopicData(
                name=TOPIC, partition_data=[ProducePartitionData(index=partition, records=batch)]
            )
        ],
    )


async def _produce(cluster, leaders, producer, partition: int, sequence: int, version: int):
    """The partition's answer (error code, base offset, error message) to a transactional batch."""
    async with _connection(cluster, leaders[partition]) as conn:
        response = await conn.send(_produce_request(producer, partition, sequence), api_version=version)
    [part] = response.responses[0].partition_responses
    return part.error_code, part.base_offset, part.error_message


async def _log_end_offset(cluster, leaders, partition: int) -> int:
    """The partition's high watermark (acks=-1 with one replica: its log end offset)."""
    async with _connection(cluster, leaders[partition]) as conn:
        part = await fetch_from_start(conn, TOPIC, partition, isolation_level=0)
    assert part.error_code == Errors.NONE
    return part.high_watermark


async def _transaction_partitions(coordinator: BrokerConnection) -> tuple[str, list[int]]:
    response = await coordinator.send(DescribeTransactionsRequest(transactional_ids=[TXN_ID]))
    [state] = response.transaction_states
    return state.transaction_state, sorted(p for t in state.topics if t.topic == TOPIC for p in t.partitions)


async def test_a_partition_not_in_the_transaction_is_refused_until_added(cluster, leaders):
    coordinator = await _coordinator(cluster)
    async with coordinator:
        producer = await init_producer_id(coordinator, TXN_ID)
        for partition in (0, 1):  # one leader is the coordinator's broker, the other is not
            for version, (refusal, refusal_message) in REFUSALS.items():
                error, base_offset, message = await _produce(
                    cluster, leaders, producer, partition, 0, version
                )
                assert (Errors(error), base_offset, message) == (refusal, -1, refusal_message)
            assert await _log_end_offset(cluster, leaders, partition) == 0  # nothing appended
        assert await _transaction_partitions(coordinator) == ("Empty", [])

        for partition in (0, 1):
            assert await add_partitions(coordinator, TXN_ID, producer, TOPIC, [partition]) == {
                partition: Errors.NONE
            }
            assert await _produce(cluster, leaders, producer, partition, 0, 11) == (Errors.NONE, 0, None)
            # the transaction is open there now: the next batch needs no verification
            assert (await _produce(cluster, leaders, producer, partition, 1, 9))[:2] == (Errors.NONE, 1)
        assert await _transaction_partitions(coordinator) == ("Ongoing", [0, 1])
        assert await end_txn(coordinator, TXN_ID, producer, commit=True) == Errors.NONE


async def test_produce_v12_and_later_adds_the_partition_itself(cluster, leaders):
    coordinator = await _coordinator(cluster)
    async with coordinator:
        producer = await init_producer_id(coordinator, TXN_ID)
        before = await _log_end_offset(cluster, leaders, 1)
        error, base_offset, _ = await _produce(cluster, leaders, producer, 1, 0, ADD_PARTITION_VERSION)
        assert (Errors(error), base_offset) == (Errors.NONE, before)
        assert await _transaction_partitions(coordinator) == ("Ongoing", [1])
        assert await end_txn(coordinator, TXN_ID, producer, commit=False) == Errors.NONE


async def test_pipelined_batches_of_a_new_transaction_append_in_order(cluster, leaders):
    """A producer pipelines the first five batches of its transaction on each partition (Kafka's
    ``max.in.flight.requests.per.connection=5``) over one connection: each waits for the first's
    verification and they append in order, as Kafka (which handles one request of a connection at a
    time) appends them, none refused with OUT_OF_ORDER_SEQUENCE_NUMBER."""
    coordinator = await _coordinator(cluster)
    async with coordinator:
        producer = await init_producer_id(coordinator, TXN_ID)
        assert await add_partitions(coordinator, TXN_ID, producer, TOPIC, [0, 1]) == {
            0: Errors.NONE,
            1: Errors.NONE,
        }
        for partition in (0, 1):
            before = await _log_end_offset(cluster, leaders, partition)
            async with _connection(cluster, leaders[partition]) as conn:
                responses = await asyncio.gather(
                    *(
                        conn.send(_produce_request(producer, partition, sequence), api_version=11)
                        for sequence in range(5)
                    )
                )
            answers = [
                (Errors(part.error_code), part.base_offset)
                for response in responses
                for part in response.responses[0].partition_responses
            ]
            assert answers == [(Errors.NONE, before + n) for n in range(5)], partition
        assert await end_txn(coordinator, TXN_ID, producer, commit=True) == Errors.NONE


async def test_with_verification_off_the_batch_appends_unchecked(cluster, leaders):
    coordinator = await _coordinator(cluster)
    async with coordinator, AdminClient(bootstrap_servers=cluster.bootstrap_servers) as admin:
        producer = await init_producer_id(coordinator, TXN_ID)

        async def verification(enabled: str) -> None:
            await admin.alter_configs(
                {
                    ConfigResource(ConfigResourceType.BROKER, str(broker)): {
                        "transaction.partition.verification.enable": enabled
                    }
                    for broker in cluster.broker_ids
                }
            )

        await verification("false")
        before = await _log_end_offset(cluster, leaders, 0)
        assert (await _produce(cluster, leaders, producer, 0, 0, 11))[:2] == (Errors.NONE, before)
        assert (
            await _log_end_offset(cluster, leaders, 0) == before + 1
        )  # a hanging transaction, as before KIP-890
        assert await _transaction_partitions(coordinator) == ("Empty", [])

        await verification("true")
        assert (await _produce(cluster, leaders, producer, 1, 0, 9))[0] == Errors.INVALID_TXN_STATE
