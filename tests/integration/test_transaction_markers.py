"""Transaction markers on a real broker: raw Produce of transactional batches (a producer id from
InitProducerId, the transactional attribute set), WriteTxnMarkers COMMIT for one producer and ABORT
for another, then Fetch: READ_UNCOMMITTED sees every record, READ_COMMITTED stops at the last stable
offset while a transaction is open and afterwards carries the aborted transaction; ListOffsets
READ_COMMITTED answers the LSO; a client's Produce of a control batch is refused; after a restart
the broker keeps the LSO and the segment's .txnindex (Kafka's UnifiedLog, TransactionIndex,
KafkaApis.handleWriteTxnMarkersRequest)."""

from __future__ import annotations

import asyncio
import subprocess

import pytest

from kafkette.client import AdminClient, LocalCluster, NewTopic
from kafkette.common.network.connection import BrokerConnection
from kafkette.protocol.apis.list_offsets import (
    LATEST_TIMESTAMP,
    ListOffsetsPartition,
    ListOffsetsRequest,
    ListOffsetsTopic,
)
from kafkette.protocol.apis.produce import ProducePartitionData, ProduceRequest, ProduceTopicData
from kafkette.protocol.apis.producer_ids import InitProducerIdRequest
from kafkette.protocol.apis.write_txn_markers import (
    WritableTxnMarker,
    WritableTxnMarkerTopic,
    WriteTxnMarkersRequest,
)
from kafkette.protocol.control_record import (
    ControlRecordType,
    EndTransactionMarker,
    build_end_txn_marker_batch,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.record_batch import CONTROL_MASK, build_kafka_batch, decode_records, iter_batches
from tests.integration.transaction_requests import fetch_from_start
from tests.peers.kafka_peer import KafkaPeer

pytestmark = pytest.mark.timeout(120)

HOST = "127.0.0.1"
TOPIC = "txn-markers"
READ_UNCOMMITTED, READ_COMMITTED = 0, 1
UNVERIFIED_PRODUCE_VERSION = 11  # the last before the leader adds partitions itself (KIP-890 part 2)


@pytest.fixture(scope="module")
def txn_cluster(tmp_path_factory: pytest.TempPathFactory):
    """One broker shared by this module's tests, which run in order on one topic.  The markers are
    written by hand here (no coordinator knows these transactions), so the leaders' transaction
    verification (KIP-890) is off and Produce goes at v11 (from v12 a leader adds the partition to
    the transaction with its coordinator whatever the config)."""
    with LocalCluster(
        num_brokers=1,
        data_dir=tmp_path_factory.mktemp("txn-markers"),
        kafka_protocol=True,
        broker_configs={"transaction.partition.verification.enable": "false"},
    ) as cluster:
        yield cluster


def _connection(cluster: LocalCluster) -> BrokerConnection:
    [broker] = cluster.broker_ids
    return BrokerConnection(HOST, cluster.ports[broker], request_timeout_ms=20000)


async def _producer_id(conn: BrokerConnection) -> tuple[int, int]:
    response = await conn.send(
        InitProducerIdRequest(
            transactional_id=None, transaction_timeout_ms=60000, producer_id=-1, producer_epoch=-1
        )
    )
    assert response.error_code == Errors.NONE
    return response.producer_id, response.producer_epoch


async def _produce(conn: BrokerConnection, batch: bytes) -> tuple[int, int]:
    """(error code, base offset) of a Produce of ``batch`` to partition 0 (transactional batches
    need a transactional id in the request, as Kafka checks)."""
    response = await conn.send(
        ProduceRequest(
            transactional_id="txn-markers-test",
            acks=-1,
            timeout_ms=10000,
            topic_data=[
                ProduceTopicData(name=TOPIC, partition_data=[ProducePartitionData(index=0, records=batch)])
            ],
        ),
        api_version=UNVERIFIED_PRODUCE_VERSION,
    )
    [part] = response.responses[0].partition_responses
    return part.error_code, part.base_offset


async def _txn_produce(conn, producer, sequence, *values) -> int:
    producer_id, epoch = producer
    batch = build_kafka_batch(
        [(None, value, None, 1_700_000_000_000) for value in values],
        producer_id=producer_id,
        producer_epoch=epoch,
        base_sequence=sequence,
        transactional=True,
    )
    error, base_offset = await _produce(conn, batch)
    assert error == Errors.NONE, Errors(error).name
    return base_offset


async def _write_marker(conn, producer, commit: bool, coordinator_epoch: int = 0, partitions=(0,)) -> dict:
    producer_id, epoch = producer
    response = await conn.send(
        WriteTxnMarkersRequest(
            markers=[
                WritableTxnMarker(
                    producer_id=producer_id,
                    producer_epoch=epoch,
                    transaction_result=commit,
                    topics=[WritableTxnMarkerTopic(name=TOPIC, partition_indexes=list(partitions))],
                    coordinator_epoch=coordinator_epoch,
                )
            ]
        )
    )
    [marker] = response.markers
    assert marker.producer_id == producer_id
    return {(t.name, p.partition_index): p.error_code for t in marker.topics for p in t.partitions}


async def _fetch(conn, isolation_level: int):
    part = await fetch_from_start(conn, TOPIC, 0, isolation_level)
    assert part.error_code == Errors.NONE
    values = []
    for pos, header in iter_batches(part.records or b""):
        if not header.attributes & CONTROL_MASK:
            values.extend((r.offset, r.value) for r in decode_records(part.records, pos, header))
    return part, values


async def _fetch_once_led(conn):
    """A READ_COMMITTED fetch retried until the restarted broker leads the partition again (30 s)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    while True:
        try:
            part, _ = await _fetch(conn, READ_COMMITTED)
            return part
        except AssertionError:
            if loop.time() > deadline:
                raise
            await asyncio.sleep(0.2)


async def _latest(conn, isolation_level: int) -> int:
    response = await conn.send(
        ListOffsetsRequest(
            replica_id=-1,
            isolation_level=isolation_level,
            topics=[
                ListOffsetsTopic(
                    name=TOPIC,
                    partitions=[ListOffsetsPartition(partition_index=0, timestamp=LATEST_TIMESTAMP)],
                )
            ],
        )
    )
    [part] = response.topics[0].partitions
    assert part.error_code == Errors.NONE
    return part.offset


async def test_read_committed_stops_at_the_open_transaction_and_lists_the_aborted_one(txn_cluster):
    async with AdminClient(bootstrap_servers=txn_cluster.bootstrap_servers) as admin:
        await admin.create_topics([NewTopic(TOPIC, num_partitions=1, replication_factor=1)])
    async with _connection(txn_cluster) as conn:
        committer, aborter = await _producer_id(conn), await _producer_id(conn)
        assert await _txn_produce(conn, committer, 0, b"c0", b"c1") == 0  # offsets 0-1
        assert await _txn_produce(conn, aborter, 0, b"a0") == 2  # offset 2

        part, values = await _fetch(conn, READ_UNCOMMITTED)
        assert [v for _, v in values] == [b"c0", b"c1", b"a0"]
        assert part.aborted_transactions is None
        part, values = await _fetch(conn, READ_COMMITTED)
        assert values == [] and part.last_stable_offset == 0 and part.high_watermark == 3
        assert await _latest(conn, READ_COMMITTED) == 0
        assert await _latest(conn, READ_UNCOMMITTED) == 3

        assert await _write_marker(conn, committer, commit=True) == {(TOPIC, 0): Errors.NONE}  # offset 3
        part, values = await _fetch(conn, READ_COMMITTED)
        assert part.last_stable_offset == 2  # the aborter's transaction is still open
        assert [v for _, v in values] == [b"c0", b"c1"]

        assert await _write_marker(conn, aborter, commit=False) == {(TOPIC, 0): Errors.NONE}  # offset 4
        part, values = await _fetch(conn, READ_COMMITTED)
        assert part.last_stable_offset == part.high_watermark == 5
        assert [(a.producer_id, a.first_offset) for a in part.aborted_transactions] == [(aborter[0], 2)]
        assert [v for _, v in values] == [b"c0", b"c1", b"a0"]  # the consumer drops the aborted batch
        assert await _latest(conn, READ_COMMITTED) == 5


async def test_markers_are_refused_as_kafka_refuses_them(txn_cluster):
    async with _connection(txn_cluster) as conn:
        producer = await _producer_id(conn)
        await _txn_produce(conn, producer, 0, b"x")
        assert await _write_marker(conn, producer, commit=True, coordinator_epoch=3) == {
            (TOPIC, 0): Errors.NONE
        }
        await _txn_produce(conn, producer, 1, b"y")
        stale = await _write_marker(conn, producer, commit=False, coordinator_epoch=2, partitions=(0, 7))
        assert stale == {
            (TOPIC, 7): Errors.UNKNOWN_TOPIC_OR_PARTITION,
            (TOPIC, 0): Errors.TRANSACTION_COORDINATOR_FENCED,
        }
        marker = build_end_txn_marker_batch(
            producer[0], producer[1], EndTransactionMarker(ControlRecordType.ABORT, 3), 1_700_000_000_000
        )
        error, _ = await _produce(conn, marker)  # a client may not write control batches
        assert error == Errors.INVALID_RECORD
        assert await _write_marker(conn, producer, commit=False, coordinator_epoch=3) == {
            (TOPIC, 0): Errors.NONE
        }


def test_kafkas_console_consumer_reading_committed_skips_the_aborted_records(txn_cluster):
    """Kafka's own consumer (isolation.level=read_committed) on the Kafka listener: the committed
    records only (c0, c1 and the second test's x), the aborted a0 and y dropped by the consumer
    from the aborted transactions the broker lists."""
    command = [
        *KafkaPeer.tool_command("org.apache.kafka.tools.consumer.ConsoleConsumer"),
        "--bootstrap-server",
        txn_cluster.kafka_bootstrap_servers,
        "--topic",
        TOPIC,
        "--from-beginning",
        "--isolation-level",
        "read_committed",
        "--max-messages",
        "3",
        "--timeout-ms",
        "30000",
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=90)
    assert done.returncode == 0, done.stderr[-1500:]
    assert done.stdout.split() == ["c0", "c1", "x"]


async def test_a_restarted_broker_keeps_the_last_stable_offset_and_the_txnindex(txn_cluster):
    async with _connection(txn_cluster) as conn:
        producer = await _producer_id(conn)
        first_offset = await _txn_produce(conn, producer, 0, b"open")
        part, _ = await _fetch(conn, READ_COMMITTED)
        assert part.last_stable_offset == first_offset
        aborted_before = part.aborted_transactions
        assert len(aborted_before) == 1  # the read ends with its segment: only the aborter's overlaps it
    [index] = list(txn_cluster.data_dir.rglob(f"{TOPIC}-0/*.txnindex"))
    assert index.stat().st_size == 2 * 34  # the aborter's and the fenced test's aborted transactions
    [broker] = txn_cluster.broker_ids
    pid_before = txn_cluster.pid(broker)
    txn_cluster.stop_broker(broker, hard=False)
    txn_cluster.start_broker(broker)
    assert txn_cluster.pid(broker) not in (None, pid_before)
    async with _connection(txn_cluster) as conn:
        part = await _fetch_once_led(conn)
        assert part.last_stable_offset == first_offset
        assert part.aborted_transactions == aborted_before
        assert index.stat().st_size == 2 * 34
        assert await _write_marker(conn, producer, commit=True) == {(TOPIC, 0): Errors.NONE}
        part, _ = await _fetch(conn, READ_COMMITTED)
        assert part.last_stable_offset == part.high_watermark


async def test_a_broker_killed_with_an_open_transaction_recovers_its_lso_and_aborted_list(txn_cluster):
    """kill -9 (no clean-shutdown marker, no producer state snapshot at close): the recovery
    rebuilds the open transaction, the LSO and the aborted transactions from the log."""
    async with _connection(txn_cluster) as conn:
        opener, aborter = await _producer_id(conn), await _producer_id(conn)
        first_offset = await _txn_produce(conn, opener, 0, b"left-open")
        await _txn_produce(conn, aborter, 0, b"to-abort")
        assert await _write_marker(conn, aborter, commit=False) == {(TOPIC, 0): Errors.NONE}
        before, _ = await _fetch(conn, READ_COMMITTED)
        assert before.last_stable_offset == first_offset
        assert await _latest(conn, READ_COMMITTED) == first_offset
    [broker] = txn_cluster.broker_ids
    txn_cluster.stop_broker(broker, hard=True)
    txn_cluster.start_broker(broker)
    async with _connection(txn_cluster) as conn:
        after = await _fetch_once_led(conn)
        assert after.last_stable_offset == first_offset
        assert after.high_watermark == before.high_watermark
        assert after.aborted_transactions == before.aborted_transactions
        assert await _latest(conn, READ_COMMITTED) == first_offset
        assert await _write_marker(conn, opener, commit=False) == {(TOPIC, 0): Errors.NONE}
        part, _ = await _fetch(conn, READ_COMMITTED)
        assert part.last_stable_offset == part.high_watermark
