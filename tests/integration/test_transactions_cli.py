"""``kafkette transactions`` (kafka-transactions.sh) against a real two-broker cluster: a transaction
opened with raw requests shows in ``list`` (with its filters), ``describe`` and ``describe-producers``
(on the leader and on the follower); ``abort --start-offset`` writes the ABORT marker so the
partition's last stable offset reaches the high watermark; ``find-hanging`` reports a transactional
batch of a producer id no coordinator knows, not an old transaction its coordinator still holds,
and ``abort --producer-id ...`` ends it; the AdminClient calls' filters, per-broker listing,
per-id errors and refusals; ``forceTerminateTransaction`` fencing a producer (its transaction
aborted, the id Empty at a new epoch) (Kafka's TransactionsCommand over Admin's KIP-664 calls)."""

from __future__ import annotations

import asyncio
import time

import pytest
from click.testing import CliRunner, Result

from kafkette.client import AdminClient, LocalCluster, NewTopic
from kafkette.client.cli.main import kafkette
from kafkette.common.network.connection import BrokerConnection
from kafkette.protocol.apis.find_coordinator import COORDINATOR_TYPE_TRANSACTION, FindCoordinatorRequest
from kafkette.protocol.apis.producer_ids import InitProducerIdRequest
from kafkette.protocol.errors import Errors, TransactionalIdNotFoundError, UnknownTopicOrPartitionError
from kafkette.protocol.topic_partition import TopicPartition
from tests.integration.transaction_requests import (
    add_partitions,
    fetch_from_start,
    transactional_produce,
    until,
)

pytestmark = pytest.mark.timeout(180)

HOST = "127.0.0.1"
TRANSACTIONS_V1_PRODUCE_VERSION = 11
TOPIC = "txn-admin"
READ_COMMITTED = 1
TWENTY_MINUTES_MS = 20 * 60_000
LAYOUT: dict[int, tuple[int, list[int]]] = {}  # partition -> (leader, replicas), set by ``cluster``


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory):
    """Two brokers; ``__transaction_state`` with 2 partitions (quick to create and load); the topic
    has 2 partitions on both brokers.  Transaction verification (KIP-890) is off, as on the clusters
    where hanging transactions arise: a transactional batch the coordinator never heard of is let in."""
    with LocalCluster(
        num_brokers=2,
        data_dir=tmp_path_factory.mktemp("txn-admin"),
        broker_configs={
            "transaction.state.log.num.partitions": "2",
            "offsets.topic.num.partitions": "1",
            "transaction.partition.verification.enable": "false",
        },
    ) as running:

        async def create() -> dict[int, tuple[int, list[int]]]:
            async with AdminClient(bootstrap_servers=running.bootstrap_servers) as admin:
                await admin.create_topics([NewTopic(TOPIC, num_partitions=2, replication_factor=2)])
                deadline = time.monotonic() + 30
                while True:
                    parts = (await admin.describe_topics([TOPIC]))[TOPIC].partitions
                    if all(p.leader >= 0 and len(p.isr) == 2 for p in parts) or time.monotonic() > deadline:
                        return {p.partition: (p.leader, list(p.replicas)) for p in parts}
                    await asyncio.sleep(0.1)

        LAYOUT.update(asyncio.run(create()))
        yield running


def _cli(*args: str, ok: bool = True) -> Result:
    """``kafkette transactions ARGS`` run in this process (as the console script runs it, its
    exit status caught): quicker than a process per call."""
    done = CliRunner().invoke(kafkette, ["transactions", *args])
    if ok:
        assert done.exit_code == 0, f"exit {done.exit_code}\nstdout: {done.stdout}\nstderr: {done.stderr}"
    return done


def _table(cluster: LocalCluster, *args: str) -> list[list[str]]:
    """The command's rows (header first), cells stripped of Kafka's padding and tabs."""
    out = _cli(*args, "--bootstrap-server", cluster.bootstrap_servers).stdout
    return [[cell.strip() for cell in line.rstrip("\t").split("\t")] for line in out.splitlines()]


def _connection(cluster: LocalCluster, node_id: int) -> BrokerConnection:
    return BrokerConnection(HOST, cluster.ports[node_id], request_timeout_ms=20000)


async def _coordinator(cluster: LocalCluster, transactional_id: str) -> int:
    async with _connection(cluster, cluster.broker_ids[0]) as conn:
        found = await until(
            lambda: conn.send(
                FindCoordinatorRequest(
                    key_type=COORDINATOR_TYPE_TRANSACTION, coordinator_keys=[transactional_id]
                )
            ),
            lambda r: r.coordinators[0].error_code,
        )
    assert found.coordinators[0].error_code == Errors.NONE
    return found.coordinators[0].node_id


async def _produce(cluster, transactional_id, producer, partition, sequence, timestamp_ms, *values) -> None:
    """A transactional batch to the partition's leader, at Produce v11 as a client of transactions V1
    sends it (from v12 the leader adds the partition to the transaction itself, KIP-890 part 2, and
    the unknown producer of the hanging transaction would be refused)."""
    async with _connection(cluster, LAYOUT[partition][0]) as conn:
        code = await transactional_produce(
            conn,
            transactional_id,
            producer,
            TOPIC,
            partition,
            values,
            sequence,
            timestamp_ms,
            api_version=TRANSACTIONS_V1_PRODUCE_VERSION,
        )
    assert code == Errors.NONE, Errors(code).name


async def _open_transaction(cluster, transactional_id: str, partition: int, timestamp_ms: int):
    """InitProducerId, AddPartitionsToTxn and a batch of 2 records: (producer id, epoch, coordinator)."""
    coordinator = await _coordinator(cluster, transactional_id)
    async with _connection(cluster, coordinator) as conn:
        init = await until(
            lambda: conn.send(
                InitProducerIdRequest(transactional_id=transactional_id, transaction_timeout_ms=120000)
            ),
            lambda r: r.error_code,
        )
        assert init.error_code == Errors.NONE
        producer = (init.producer_id, init.producer_epoch)
        added = await add_partitions(conn, transactional_id, producer, TOPIC, [partition])
        assert added == {partition: Errors.NONE}
    await _produce(cluster, transactional_id, producer, partition, 0, timestamp_ms, b"a", b"b")
    return producer[0], producer[1], coordinator


async def _stable_and_high(cluster, partition: int) -> tuple[int, int]:
    """A READ_COMMITTED Fetch's (last stable offset, high watermark) at the leader."""
    async with _connection(cluster, LAYOUT[partition][0]) as conn:
        part = await fetch_from_start(conn, TOPIC, partition, READ_COMMITTED)
    return part.last_stable_offset, part.high_watermark


async def _wait_stable(cluster, partition: int) -> tuple[int, int]:
    deadline = time.monotonic() + 20
    while True:
        lso, hw = await _stable_and_high(cluster, partition)
        if lso == hw or time.monotonic() > deadline:
            return lso, hw
        await asyncio.sleep(0.1)


def test_list_describe_and_abort_an_open_transaction(cluster):
    producer_id, epoch, coordinator = asyncio.run(
        _open_transaction(cluster, "orders-tx", 0, int(time.time() * 1000))
    )
    assert asyncio.run(_stable_and_high(cluster, 0)) == (0, 2)

    listed = _table(cluster, "list")
    assert listed[0] == ["TransactionalId", "Coordinator", "ProducerId", "TransactionState"]
    assert ["orders-tx", str(coordinator), str(producer_id), "Ongoing"] in listed[1:]
    assert _table(cluster, "list", "--duration-filter", "3600000") == [listed[0]]
    assert _table(cluster, "list", "--transactional-id-pattern", "orders-.*")[1:] == [
        ["orders-tx", str(coordinator), str(producer_id), "Ongoing"]
    ]
    assert _table(cluster, "list", "--transactional-id-pattern", "nothing-.*") == [listed[0]]

    [header, row] = _table(cluster, "describe", "--transactional-id", "orders-tx")
    assert header == [
        "CoordinatorId",
        "TransactionalId",
        "ProducerId",
        "ProducerEpoch",
        "TransactionState",
        "TransactionTimeoutMs",
        "CurrentTransactionStartTimeMs",
        "TransactionDurationMs",
        "TopicPartitions",
    ]
    assert row[:6] == [str(coordinator), "orders-tx", str(producer_id), str(epoch), "Ongoing", "120000"]
    assert int(row[6]) > 0 and 0 <= int(row[7]) < 60000 and row[8] == f"{TOPIC}-0"

    producers_header = [
        "ProducerId",
        "ProducerEpoch",
        "LatestCoordinatorEpoch",
        "LastSequence",
        "LastTimestamp",
        "CurrentTransactionStartOffset",
    ]
    leader, replicas = LAYOUT[0]
    follower = next(r for r in replicas if r != leader)
    on_leader = _table(cluster, "describe-producers", "--topic", TOPIC, "--partition", "0")
    on_follower = _table(
        cluster, "describe-producers", "--topic", TOPIC, "--partition", "0", "--broker-id", str(follower)
    )
    assert on_leader[0] == producers_header
    [open_row] = on_leader[1:]
    assert open_row[:4] == [str(producer_id), str(epoch), "-1", "1"] and open_row[5] == "0"
    assert on_follower[1][0] == str(producer_id)

    missing = _cli(
        "abort", "--topic", TOPIC, "--partition", "0", "--start-offset", "1",
        "--bootstrap-server", cluster.bootstrap_servers, ok=False,
    )  # fmt: skip
    assert missing.exit_code != 0
    assert missing.stderr.strip() == (
        f"Error: Could not find any open transactions starting at offset 1 on partition {TOPIC}-0"
    )
    _cli(
        "abort", "--topic", TOPIC, "--partition", "0", "--start-offset", "0",
        "--bootstrap-server", cluster.bootstrap_servers,
    )  # fmt: skip
    assert asyncio.run(_wait_stable(cluster, 0)) == (3, 3)  # the ABORT marker is offset 2
    [_, after] = _table(cluster, "describe-producers", "--topic", TOPIC, "--partition", "0")
    assert after[0] == str(producer_id) and after[5] == "None"


def test_find_hanging_reports_a_producer_its_coordinator_does_not_know(cluster):
    twenty_minutes_ago = int(time.time() * 1000) - TWENTY_MINUTES_MS
    # An old transaction its coordinator holds (Ongoing, the partition in it): not hanging.
    live_id, _, _ = asyncio.run(_open_transaction(cluster, "live-tx", 1, twenty_minutes_ago))
    # A transactional batch of a producer id no coordinator gave out: hanging.
    ghost = 424242
    asyncio.run(_produce(cluster, "ghost-tx", (ghost, 3), 1, 0, twenty_minutes_ago, b"x"))
    leader = LAYOUT[1][0]

    found = _table(cluster, "find-hanging", "--broker-id", str(leader))
    assert found[0] == [
        "Topic",
        "Partition",
        "ProducerId",
        "ProducerEpoch",
        "CoordinatorEpoch",
        "StartOffset",
        "LastTimestamp",
        "Duration(min)",
    ]
    [hanging] = found[1:]
    assert hanging[:6] == [TOPIC, "1", str(ghost), "3", "-1", "2"]
    assert hanging[6] == str(twenty_minutes_ago) and hanging[7] in ("19", "20")
    assert live_id != ghost
    # Longer than the transaction has been open: nothing to report.
    assert _table(cluster, "find-hanging", "--topic", TOPIC, "--max-transaction-timeout", "30") == [found[0]]
    assert _table(cluster, "find-hanging", "--topic", TOPIC, "--partition", "1") == found

    _cli(
        "abort", "--topic", TOPIC, "--partition", "1", "--producer-id", str(ghost), "--producer-epoch", "3",
        "--coordinator-epoch", "-1", "--bootstrap-server", cluster.bootstrap_servers,
    )  # fmt: skip
    assert _table(cluster, "find-hanging", "--broker-id", str(leader)) == [found[0]]
    [_, *rows] = _table(cluster, "describe-producers", "--topic", TOPIC, "--partition", "1")
    assert {r[0]: r[5] for r in rows} == {str(live_id): "0", str(ghost): "None"}


def test_a_transactional_id_no_coordinator_knows_is_one_error_line(cluster):
    done = _cli(
        "describe",
        "--transactional-id",
        "never-used",
        "--bootstrap-server",
        cluster.bootstrap_servers,
        ok=False,
    )
    assert done.exit_code == 1 and done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith("Error: Failed to describe transaction state of transactional-id `never-used`: ")
    assert "TRANSACTIONAL_ID_NOT_FOUND" in line
    assert line.endswith("could not be found. Enable debug logging for additional detail.")


def test_the_admin_calls_filter_merge_and_refuse(cluster):
    """After the tests above, ``orders-tx`` and ``live-tx`` are Ongoing at their coordinators."""

    async def run() -> None:
        async with AdminClient(bootstrap_servers=cluster.bootstrap_servers) as admin:
            ongoing = {
                t.transactional_id: t for t in await admin.list_transactions(state_filters=["Ongoing"])
            }
            assert {"orders-tx", "live-tx"} <= set(ongoing) and all(
                t.state == "Ongoing" for t in ongoing.values()
            )
            assert await admin.list_transactions(state_filters=["CompleteCommit"]) == []
            live = ongoing["live-tx"]
            assert await admin.list_transactions(producer_id_filters=[live.producer_id]) == [live]
            by_broker = await admin.list_transactions_by_broker_id()
            assert sorted(by_broker) == sorted(cluster.broker_ids)
            assert sorted(t.transactional_id for ts in by_broker.values() for t in ts) == sorted(ongoing)

            described = await admin.describe_transactions(["live-tx", "orders-tx"])
            assert described["live-tx"].topic_partitions == {TopicPartition(TOPIC, 1)}
            assert described["live-tx"].producer_id == live.producer_id
            assert described["orders-tx"].state == "Ongoing"
            each = await admin.describe_transactions_each(["live-tx", "never-used"])
            assert isinstance(each["never-used"], TransactionalIdNotFoundError)
            with pytest.raises(TransactionalIdNotFoundError):
                await admin.describe_transactions(["never-used"])

            tp1 = TopicPartition(TOPIC, 1)
            follower = next(r for r in LAYOUT[1][1] if r != LAYOUT[1][0])
            on_leader = await admin.describe_producers([tp1])
            on_follower = await admin.describe_producers([tp1], broker_id=follower)
            assert on_leader == on_follower
            open_ = [
                p for p in on_leader[tp1].active_producers if p.current_transaction_start_offset is not None
            ]
            assert [p.producer_id for p in open_] == [live.producer_id]
            with pytest.raises(UnknownTopicOrPartitionError):
                await admin.describe_producers([TopicPartition("no-such-topic", 0)])
            with pytest.raises(UnknownTopicOrPartitionError, match=f"Partition {TOPIC}-7"):
                await admin.describe_producers([TopicPartition(TOPIC, 7)])
            with pytest.raises(TypeError):
                await admin.describe_producers([(TOPIC, 0)])
            with pytest.raises(TypeError):
                await admin.abort_transaction((tp1, live.producer_id, 0, 0))

    asyncio.run(run())


def test_force_terminate_fences_the_producer_and_aborts_its_transaction(cluster):
    [_, before] = _table(cluster, "describe", "--transactional-id", "live-tx")
    assert before[4] == "Ongoing"
    _cli(
        "forceTerminateTransaction",
        "--transactionalId",
        "live-tx",
        "--bootstrap-server",
        cluster.bootstrap_servers,
    )
    # The fencing InitProducerId aborts the transaction (CONCURRENT_TRANSACTIONS meanwhile, retried),
    # then gives the id a new epoch with no transaction: Empty.
    [_, after] = _table(cluster, "describe", "--transactional-id", "live-tx")
    assert after[2] == before[2] and int(after[3]) > int(before[3])
    assert (after[4], after[6], after[8]) == ("Empty", "None", "")
    lso, hw = asyncio.run(_wait_stable(cluster, 1))
    assert lso == hw
