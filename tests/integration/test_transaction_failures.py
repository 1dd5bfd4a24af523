"""Transactions through failures on 3 real brokers (KIP-98's guarantees): a transaction commits or
aborts whole, never half-visible, whoever dies.

- The transaction coordinator killed -9 right after it answered EndTxn COMMIT (PREPARE_COMMIT in
  ``__transaction_state``, markers in flight): the coordinator elected next loads the transaction
  and writes the markers, so every partition shows the records without any client action.
- The coordinator killed -9 mid-transaction (records written, no EndTxn yet): the producer finds
  the new coordinator and commits; everything becomes visible.
- A partition leader killed -9 between markers (after the records, before EndTxn): the
  coordinator retries that marker until the new leader takes it (Kafka's
  TransactionMarkerChannelManager), and the partition shows the records.
- A transaction left open past its ``transaction.timeout.ms`` is aborted by the coordinator
  (``transaction.abort.timed.out.transaction.cleanup.interval.ms``): its records never become
  visible to read_committed, the partition's last stable offset moves on, and the producer's next
  EndTxn is fenced by the bumped epoch.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from typing import Any, NamedTuple

import pytest

from kafkette.client import AdminClient, LocalCluster, NewTopic
from kafkette.common.network.connection import BrokerConnection
from kafkette.protocol.apis.find_coordinator import COORDINATOR_TYPE_TRANSACTION, FindCoordinatorRequest
from kafkette.protocol.apis.producer_ids import InitProducerIdRequest
from kafkette.protocol.control_record import ControlRecordType, read_end_txn_marker
from kafkette.protocol.errors import Errors, KafkaConnectionError, KafkaTimeoutError
from kafkette.protocol.record_batch import CONTROL_MASK, decode_records, iter_batches
from tests.cluster_configs import FAST_FAILOVER
from tests.integration.transaction_requests import (
    add_partitions,
    end_txn,
    fetch_from_start,
    transactional_produce,
    until,
)

pytestmark = pytest.mark.timeout(240)

HOST = "127.0.0.1"
READ_COMMITTED = 1
WAIT_S = 45.0


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory):
    """3 brokers, fast failover; 3 ``__transaction_state`` partitions (replication factor 3)."""
    with LocalCluster(
        num_brokers=3,
        data_dir=tmp_path_factory.mktemp("txn-failures"),
        broker_configs={
            **FAST_FAILOVER,
            "transaction.state.log.num.partitions": "3",
            "offsets.topic.num.partitions": "3",
            "transaction.abort.timed.out.transaction.cleanup.interval.ms": "500",
        },
    ) as running:
        yield running


def _conn(cluster: LocalCluster, broker: int) -> BrokerConnection:
    return BrokerConnection(HOST, cluster.ports[broker], request_timeout_ms=10000)


def _live(cluster: LocalCluster) -> list[int]:
    return [b for b in cluster.broker_ids if cluster.is_running(b)]


async def _create(cluster: LocalCluster, topic: str, assignment: dict[int, list[int]]) -> None:
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers) as admin:
        await admin.create_topics(
            [NewTopic(topic, replica_assignment=assignment, configs={"min.insync.replicas": "2"})]
        )


async def _leaders(cluster: LocalCluster, topic: str) -> dict[int, int]:
    """``{partition: leader}`` once every partition has a live leader."""
    deadline = time.monotonic() + WAIT_S
    live = set(_live(cluster))
    while True:
        async with AdminClient(
            bootstrap_servers=",".join(f"{HOST}:{cluster.ports[b]}" for b in live)
        ) as admin:
            described = await admin.describe_topics([topic])
        leaders = {p.partition: p.leader for p in described[topic].partitions}
        if set(leaders.values()) <= live or time.monotonic() > deadline:
            return leaders
        await asyncio.sleep(0.3)


async def _coordinator(cluster: LocalCluster, transactional_id: str) -> int:
    """The node id of ``transactional_id``'s live transaction coordinator."""
    deadline = time.monotonic() + WAIT_S
    while True:
        async with _conn(cluster, _live(cluster)[0]) as conn:
            found = await until(
                lambda conn=conn: conn.send(
                    FindCoordinatorRequest(
                        key_type=COORDINATOR_TYPE_TRANSACTION, coordinator_keys=[transactional_id]
                    )
                ),
                lambda r: r.coordinators[0].error_code,
            )
        node = found.coordinators[0].node_id
        if (found.coordinators[0].error_code == Errors.NONE and cluster.is_running(node)) or (
            time.monotonic() > deadline
        ):
            assert found.coordinators[0].error_code == Errors.NONE
            return node
        await asyncio.sleep(0.3)


async def _init(conn: BrokerConnection, transactional_id: str, timeout_ms: int = 60000) -> tuple[int, int]:
    response = await until(
        lambda: conn.send(
            InitProducerIdRequest(transactional_id=transactional_id, transaction_timeout_ms=timeout_ms)
        ),
        lambda r: r.error_code,
    )
    assert response.error_code == Errors.NONE, Errors(response.error_code).name
    return response.producer_id, response.producer_epoch


async def _open_transaction(
    cluster: LocalCluster,
    transactional_id: str,
    topic: str,
    values: dict[int, list[bytes]],
    timeout_ms: int = 60000,
) -> tuple[int, tuple[int, int]]:
    """Init ``transactional_id``, add ``topic``'s partitions and write ``values`` to them
    (``{partition: values}``) in one open transaction; ``(coordinator, (producer id, epoch))``."""
    coordinator = await _coordinator(cluster, transactional_id)
    async with _conn(cluster, coordinator) as conn:
        producer = await _init(conn, transactional_id, timeout_ms)
        added = await add_partitions(conn, transactional_id, producer, topic, values)
    assert set(added.values()) == {Errors.NONE}
    leaders = await _leaders(cluster, topic)
    for partition, records in values.items():
        async with _conn(cluster, leaders[partition]) as conn:
            code = await transactional_produce(conn, transactional_id, producer, topic, partition, records)
        assert code == Errors.NONE, Errors(code).name
    return coordinator, producer


async def _commit_at_the_coordinator(cluster: LocalCluster, transactional_id: str, producer) -> int:
    """EndTxn COMMIT sent to whichever broker coordinates ``transactional_id`` now."""
    deadline = time.monotonic() + WAIT_S
    while True:
        coordinator = await _coordinator(cluster, transactional_id)
        try:
            async with _conn(cluster, coordinator) as conn:
                code = await end_txn(conn, transactional_id, producer, commit=True)
        except (KafkaConnectionError, KafkaTimeoutError):
            code = Errors.NOT_COORDINATOR
        if code != Errors.NOT_COORDINATOR or time.monotonic() > deadline:
            return code
        await asyncio.sleep(0.3)


class Stable(NamedTuple):
    """A partition read READ_COMMITTED once stable: its data records' values (aborted ones too:
    the broker returns them, the client drops them), its markers in order, and the producer ids
    of the aborted transactions the answer lists."""

    values: list[bytes]
    markers: list[ControlRecordType]
    aborted: list[int]


def _committed(read: dict[int, Stable]) -> dict[int, list[bytes]]:
    """``{partition: values}`` after asserting each partition has COMMIT markers only (one, or more
    when a new coordinator wrote them again, as Kafka's does) and lists no aborted transaction."""
    for partition, stable in read.items():
        # a coordinator elected mid-commit writes the markers again: a second COMMIT is harmless
        assert stable.markers and set(stable.markers) == {ControlRecordType.COMMIT}, (partition, stable)
        assert stable.aborted == [], (partition, stable)
    return {p: stable.values for p, stable in read.items()}


def _read(part: Any) -> Stable:
    """A READ_COMMITTED Fetch answer's partition as ``Stable``."""
    values, markers = [], []
    for pos, header in iter_batches(part.records or b""):
        if header.attributes & CONTROL_MASK:
            markers.append(read_end_txn_marker(part.records, pos, header).control_type)
        else:
            values.extend(r.value for r in decode_records(part.records, pos, header))
    return Stable(values, markers, [a.producer_id for a in part.aborted_transactions or []])


async def _stable(cluster: LocalCluster, topic: str, partitions: Iterable[int]) -> dict[int, Stable]:
    """``{partition: Stable}`` once each partition's leader has no open transaction (LSO == high
    watermark) and its transaction's marker is below the high watermark, read (READ_COMMITTED, from
    offset 0) from its current leader."""
    out = {}
    for partition in partitions:
        deadline = time.monotonic() + WAIT_S
        while True:
            leader = (await _leaders(cluster, topic))[partition]
            try:
                async with _conn(cluster, leader) as conn:
                    part = await fetch_from_start(conn, topic, partition, READ_COMMITTED)
            except (KafkaConnectionError, KafkaTimeoutError):
                part = None
            stable = None if part is None or part.error_code != Errors.NONE else _read(part)
            # a leader elected after a kill may answer an old high watermark (at 0) for a moment
            if stable is not None and part.last_stable_offset == part.high_watermark and stable.markers:
                break
            assert time.monotonic() < deadline, f"{topic}-{partition} never became stable: {part}"
            await asyncio.sleep(0.2)
        out[partition] = stable
    return out


async def test_a_coordinator_killed_right_after_end_txn_commit_leaves_a_whole_commit(cluster):
    topic, txn = "kill-mid-commit", "tx-mid-commit"
    await _create(cluster, topic, {0: [1, 2, 3], 1: [2, 3, 1], 2: [3, 1, 2]})
    values = {p: [f"{p}-{i}".encode() for i in range(3)] for p in range(3)}
    coordinator, producer = await _open_transaction(cluster, txn, topic, values)
    async with _conn(cluster, coordinator) as conn:
        assert await end_txn(conn, txn, producer, commit=True) == Errors.NONE
    cluster.stop_broker(coordinator, hard=True)  # markers maybe in flight
    try:
        assert _committed(await _stable(cluster, topic, range(3))) == values
    finally:
        cluster.start_broker(coordinator)


async def test_a_coordinator_killed_mid_transaction_hands_it_over_and_the_commit_completes(cluster):
    topic, txn = "kill-mid-txn", "tx-mid-txn"
    await _create(cluster, topic, {0: [1, 2, 3], 1: [2, 3, 1], 2: [3, 1, 2]})
    values = {p: [f"{p}-{i}".encode() for i in range(2)] for p in range(3)}
    coordinator, producer = await _open_transaction(cluster, txn, topic, values)
    cluster.stop_broker(coordinator, hard=True)
    try:
        assert await _commit_at_the_coordinator(cluster, txn, producer) == Errors.NONE
        assert _committed(await _stable(cluster, topic, range(3))) == values
    finally:
        cluster.start_broker(coordinator)


async def test_a_leader_killed_between_records_and_markers_gets_its_marker_from_the_new_leader(cluster):
    topic, txn = "kill-leader", "tx-kill-leader"
    coordinator = await _coordinator(cluster, txn)
    others = [b for b in cluster.broker_ids if b != coordinator]
    await _create(
        cluster, topic, {0: [others[0], coordinator, others[1]], 1: [coordinator, others[1], others[0]]}
    )
    values = {0: [b"a", b"b"], 1: [b"c"]}
    _, producer = await _open_transaction(cluster, txn, topic, values)
    cluster.stop_broker(others[0], hard=True)  # partition 0's leader
    try:
        assert await _commit_at_the_coordinator(cluster, txn, producer) == Errors.NONE
        assert _committed(await _stable(cluster, topic, range(2))) == values
    finally:
        cluster.start_broker(others[0])


async def test_a_transaction_past_its_timeout_is_aborted_and_its_producer_fenced(cluster):
    topic, txn = "txn-timeout", "tx-timeout"
    await _create(cluster, topic, {0: [1, 2, 3]})
    _, producer = await _open_transaction(cluster, txn, topic, {0: [b"never", b"seen"]}, timeout_ms=1000)
    read = await _stable(cluster, topic, [0])
    assert read[0].markers == [ControlRecordType.ABORT]
    assert read[0].aborted == [producer[0]]  # a read_committed consumer drops b"never", b"seen"
    code = await _commit_at_the_coordinator(cluster, txn, producer)
    assert code in (Errors.PRODUCER_FENCED, Errors.INVALID_PRODUCER_EPOCH), Errors(code).name
