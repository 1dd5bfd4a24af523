"""The SDK's transactional Producer and read_committed Consumer against a real broker (KIP-98).

One single-broker cluster for the module: commit and abort seen by read_committed and
read_uncommitted consumers, ``async with producer.transaction()`` aborting on an exception,
``send_offsets_to_transaction`` committing group offsets only with the transaction, fencing by a
second producer with the same ``transactional_id``, and the CLI's ``--transactional-id`` /
``--isolation-level`` flags.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

from kafkette.client import AdminClient, Consumer, LocalCluster, NewTopic, Producer, TopicPartition
from kafkette.client.producer.transactional_requests import TransactionAbortedError
from kafkette.protocol.errors import ProducerFencedError

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory):
    with LocalCluster(
        num_brokers=1,
        data_dir=tmp_path_factory.mktemp("sdk-txn"),
        broker_configs={
            "transaction.state.log.num.partitions": "3",
            "offsets.topic.num.partitions": "3",
        },
    ) as running:
        yield running


async def _create(cluster: LocalCluster, *topics: str, partitions: int = 2) -> None:
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers) as admin:
        await admin.create_topics([NewTopic(t, partitions, 1) for t in topics])


async def _read_all(
    cluster: LocalCluster, topic: str, isolation_level: str, partitions: int = 2
) -> list[bytes]:
    """Every record a consumer of ``isolation_level`` reads, from the beginning to the partitions'
    end (the last stable offset for read_committed)."""
    tps = [TopicPartition(topic, p) for p in range(partitions)]
    async with Consumer(
        bootstrap_servers=cluster.bootstrap_servers,
        isolation_level=isolation_level,
        auto_offset_reset="earliest",
        fetch_max_wait_ms=50,
    ) as consumer:
        consumer.assign(tps)
        ends = await consumer.end_offsets(tps)
        values: list[bytes] = []
        deadline = asyncio.get_running_loop().time() + 20
        while [tp for tp in tps if await consumer.position(tp) < ends[tp]]:
            assert asyncio.get_running_loop().time() < deadline, "records not read in time"
            for records in (await consumer.getmany(timeout_ms=200)).values():
                values.extend(r.value for r in records)
        return sorted(values)


def _producer(cluster: LocalCluster, transactional_id: str) -> Producer:
    return Producer(
        bootstrap_servers=cluster.bootstrap_servers, transactional_id=transactional_id, linger_ms=0
    )


async def test_commit_is_read_committed_and_abort_only_read_uncommitted(cluster):
    await _create(cluster, "tx-basic")
    async with _producer(cluster, "tx-basic-id") as producer:
        producer.begin_transaction()
        for i in range(4):
            await producer.send("tx-basic", f"committed-{i}".encode(), partition=i % 2)
        await producer.commit_transaction()

        producer.begin_transaction()
        futures = [
            await producer.send("tx-basic", f"aborted-{i}".encode(), partition=i % 2) for i in range(4)
        ]
        await producer.flush()
        await producer.abort_transaction()
        assert all(f.done() for f in futures)

        producer.begin_transaction()
        await producer.send("tx-basic", b"after-abort", partition=0)
        await producer.commit_transaction()

    committed = sorted([f"committed-{i}".encode() for i in range(4)] + [b"after-abort"])
    assert await _read_all(cluster, "tx-basic", "read_committed") == committed
    uncommitted = await _read_all(cluster, "tx-basic", "read_uncommitted")
    assert uncommitted == sorted(committed + [f"aborted-{i}".encode() for i in range(4)])


async def test_transaction_block_aborts_on_an_exception(cluster):
    await _create(cluster, "tx-block")
    async with _producer(cluster, "tx-block-id") as producer:
        pending = None
        with pytest.raises(RuntimeError, match="transform failed"):
            async with producer.transaction():
                await producer.send_and_wait("tx-block", b"sent-then-aborted", partition=0)
                pending = await producer.send("tx-block", b"never-sent", partition=1)
                raise RuntimeError("transform failed")
        assert pending is not None and pending.done()
        if pending.exception() is not None:
            assert isinstance(pending.exception(), TransactionAbortedError)
        async with producer.transaction():
            await producer.send("tx-block", b"kept", partition=1)
    assert await _read_all(cluster, "tx-block", "read_committed") == [b"kept"]


async def test_offsets_sent_to_the_transaction_are_committed_only_with_it(cluster):
    await _create(cluster, "tx-in", "tx-out", partitions=1)
    group = "tx-group"
    tp_in = TopicPartition("tx-in", 0)
    async with Consumer(bootstrap_servers=cluster.bootstrap_servers, group_id=group) as consumer:
        async with _producer(cluster, "tx-offsets-id") as producer:
            producer.begin_transaction()
            await producer.send("tx-out", b"one", partition=0)
            await producer.send_offsets_to_transaction({tp_in: 5}, group)
            await producer.abort_transaction()
            assert await consumer.committed(tp_in) is None

            producer.begin_transaction()
            await producer.send("tx-out", b"two", partition=0)
            await producer.send_offsets_to_transaction({tp_in: 7}, group)
            await producer.commit_transaction()
        assert await consumer.committed(tp_in) == 7  # a stable offset: waits for the markers
    assert await _read_all(cluster, "tx-out", "read_committed", partitions=1) == [b"two"]


async def test_a_second_producer_with_the_id_fences_the_first(cluster):
    await _create(cluster, "tx-fence", partitions=1)
    first = _producer(cluster, "tx-fence-id")
    await first.start()
    try:
        first.begin_transaction()
        await first.send_and_wait("tx-fence", b"zombie", partition=0)
        async with _producer(cluster, "tx-fence-id") as second:
            async with second.transaction():
                await second.send("tx-fence", b"winner", partition=0)
            with pytest.raises(ProducerFencedError):
                await first.send("tx-fence", b"zombie-2", partition=0)
                await first.commit_transaction()
            with pytest.raises(ProducerFencedError):
                first.begin_transaction()
    finally:
        await first.stop()
    assert await _read_all(cluster, "tx-fence", "read_committed", partitions=1) == [b"winner"]


def _cli(*args: str, input: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "kafkette", *args], input=input, capture_output=True, text=True, timeout=90
    )


async def _produce_cli(
    cluster: LocalCluster, topic: str, transactional_id: str, lines: str, *flags: str
) -> subprocess.CompletedProcess:
    """``kafkette produce --transactional-id`` of ``lines``."""
    args = ["produce", "--topic", topic, "--bootstrap-server", cluster.bootstrap_servers]
    args += ["--transactional-id", transactional_id, *flags]
    return await asyncio.to_thread(_cli, *args, input=lines)


async def _consume_committed_cli(cluster: LocalCluster, topic: str, count: int) -> list[str]:
    """The first ``count`` values ``kafkette consume --isolation-level read_committed`` prints."""
    args = ["consume", "--topic", topic, "--bootstrap-server", cluster.bootstrap_servers]
    args += ["--from-beginning", "--isolation-level", "read_committed"]
    args += ["--max-messages", str(count), "--timeout-ms", "10000"]
    consumed = await asyncio.to_thread(_cli, *args)
    assert consumed.returncode == 0, consumed.stderr
    return consumed.stdout.split()


async def test_cli_produces_one_transaction_and_consumes_read_committed(cluster):
    await _create(cluster, "tx-cli", partitions=1)
    lines = "".join(f"line-{i}\n" for i in range(5))
    produced = await _produce_cli(cluster, "tx-cli", "tx-cli-id", lines, "--transaction-size", "2")
    assert produced.returncode == 0, produced.stderr
    assert await _consume_committed_cli(cluster, "tx-cli", 5) == [f"line-{i}" for i in range(5)]


async def test_cli_aborts_its_transaction_when_the_input_is_bad(cluster):
    await _create(cluster, "tx-cli-bad", partitions=1)
    failed = await _produce_cli(
        cluster, "tx-cli-bad", "tx-cli-bad-1", "k:first\nno separator\n", "--key-separator", ":"
    )
    assert failed.returncode != 0 and "No key separator found on line number 2" in failed.stderr
    # Another producer (another transactional id) commits after it: a read_committed consumer
    # reaches that record at once, so the failed run left no open transaction holding the LSO back.
    produced = await _produce_cli(cluster, "tx-cli-bad", "tx-cli-bad-2", "second\n")
    assert produced.returncode == 0, produced.stderr
    assert await _consume_committed_cli(cluster, "tx-cli-bad", 1) == ["second"]


async def test_consume_transform_produce_as_the_readme_shows(cluster):
    await _create(cluster, "etl-in", "etl-out", partitions=1)
    bootstrap = cluster.bootstrap_servers
    async with Producer(bootstrap_servers=bootstrap) as plain:
        for i in range(3):
            await plain.send("etl-in", f"v{i}".encode(), partition=0)
    tp_in = TopicPartition("etl-in", 0)
    async with (
        Consumer(
            bootstrap_servers=bootstrap,
            group_id="etl",
            enable_auto_commit=False,
            isolation_level="read_committed",
            auto_offset_reset="earliest",
        ) as consumer,
        Producer(bootstrap_servers=bootstrap, transactional_id="etl-1") as producer,
    ):
        consumer.subscribe(["etl-in"])
        done = 0
        deadline = asyncio.get_running_loop().time() + 30
        while done < 3:
            assert asyncio.get_running_loop().time() < deadline, "input not consumed in time"
            batches = await consumer.getmany(timeout_ms=1000)
            if not batches:
                continue
            async with producer.transaction():
                for records in batches.values():
                    for r in records:
                        await producer.send("etl-out", r.value.upper(), key=r.key)
                offsets = {tp: records[-1].offset + 1 for tp, records in batches.items()}
                await producer.send_offsets_to_transaction(offsets, "etl")
            done += sum(len(records) for records in batches.values())
        assert await consumer.committed(tp_in) == 3
    assert await _read_all(cluster, "etl-out", "read_committed", partitions=1) == [b"V0", b"V1", b"V2"]
