"""Kafka's transactions (KIP-98) by Kafka's own clients and tools, against Kafkette's Kafka listener
and against Apache Kafka 4.3.1, with the same outcome on both: Kafka's Java transactional producer
(``ProducerPerformance --transactional-id``) commits records that Kafka's console consumer reads
with ``--isolation-level read_committed``; a transaction aborted by librdkafka (confluent-kafka) is
invisible to read_committed and visible to read_uncommitted; a second producer with the same
``transactional.id`` fences the first (PRODUCER_FENCED); ``kafka-transactions.sh`` (Kafka's
TransactionsCommand) ``list``, ``describe`` and ``describe-producers`` print the same (ids, times
and addresses aside); and Kafka's ``TransactionalMessageCopier`` (consume-transform-produce,
TxnOffsetCommit, random aborts) copies a partition exactly once.  One Apache Kafka node and one
Kafkette broker are shared by the module's tests.  Needs Java 17 and the Kafka jars (the Apache
Kafka peer, ``tests/peers``); without them the tests fail, saying what is missing."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from itertools import zip_longest

import pytest
from confluent_kafka import KafkaError, KafkaException, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from tests.peers.kafka_peer import KafkaPeer

pytestmark = pytest.mark.timeout(300)

TOOLS = "org.apache.kafka.tools."
TOOL_TIMEOUT_S = 90


@pytest.fixture(scope="module")
def brokers(one_node_each) -> dict[str, str]:
    """``{"kafka": bootstrap, "kafkette": bootstrap}``: one Apache Kafka node and one Kafkette
    broker with its Kafka listener."""
    return one_node_each[1]


def _run(main_class: str, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run one of Kafka's tools; the finished process (the test fails on a non-zero exit when
    ``check``, showing stderr)."""
    done = subprocess.run(
        [*KafkaPeer.tool_command(main_class), *args], capture_output=True, text=True, timeout=TOOL_TIMEOUT_S
    )
    if check:
        assert done.returncode == 0, (
            f"{main_class.rsplit('.', 1)[-1]} {' '.join(args)} exited {done.returncode}:\n"
            f"{done.stdout[-1500:]}\n{done.stderr[-1500:]}"
        )
    return done


def _create_topic(bootstrap: str, topic: str, partitions: int = 1) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    [future] = admin.create_topics([NewTopic(topic, partitions, 1)]).values()
    future.result(timeout=30)


def _consume(bootstrap: str, topic: str, isolation: str, count: int) -> list[str]:
    """The first ``count`` values Kafka's console consumer reads from partition 0 of ``topic`` from
    the start (assigned, no group) with ``--isolation-level isolation`` (fewer when none comes for
    30 s).  Each test's last committed record comes last in what it expects, so a record that
    should not be read shows as a difference, not as one more record."""
    done = _run(
        TOOLS + "consumer.ConsoleConsumer",
        "--bootstrap-server",
        bootstrap,
        "--topic",
        topic,
        "--partition",
        "0",
        "--offset",
        "earliest",
        "--isolation-level",
        isolation,
        "--max-messages",
        str(count),
        "--timeout-ms",
        "30000",
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr[-1500:]
    return done.stdout.splitlines()


def _on_both(brokers: dict[str, str], check: Callable[[str], None]) -> None:
    """Run ``check(bootstrap)`` against both brokers at once (their tools' JVMs and timeouts
    overlap); the test fails naming each broker whose check failed, with its error."""
    with ThreadPoolExecutor(len(brokers)) as pool:
        futures = {broker: pool.submit(check, bootstrap) for broker, bootstrap in brokers.items()}
    failed = {broker: future.exception() for broker, future in futures.items() if future.exception()}
    if failed:
        raise AssertionError("; ".join(f"on {broker}: {error!r}" for broker, error in failed.items()))


def _transactional_producer(bootstrap: str, transactional_id: str) -> Producer:
    producer = Producer(
        {
            "bootstrap.servers": bootstrap,
            "transactional.id": transactional_id,
            "transaction.timeout.ms": 60000,
        }
    )
    producer.init_transactions(30)
    return producer


def test_javas_transactional_producer_commits_what_read_committed_reads(brokers, tmp_path):
    """Kafka's ProducerPerformance with a transactional id (a transaction every 100 ms) writes 300
    records, then librdkafka commits ``last``: the console consumer reading committed gets 300
    values from the payload file, then ``last``."""

    payloads = [f"payload-{n}" for n in range(10)]
    payload_file = tmp_path / "payloads.txt"
    payload_file.write_text("\n".join(payloads))

    def check(bootstrap: str) -> None:
        _create_topic(bootstrap, "perf-committed")
        done = _run(
            TOOLS + "ProducerPerformance",
            "--topic",
            "perf-committed",
            "--num-records",
            "300",
            "--throughput",
            "1000",
            "--payload-file",
            str(payload_file),
            "--transactional-id",
            "perf-txn",
            "--transaction-duration-ms",
            "100",
            "--command-property",
            f"bootstrap.servers={bootstrap}",
        )
        assert "300 records sent" in done.stdout, done.stdout
        last = _transactional_producer(bootstrap, "perf-last")
        last.begin_transaction()
        last.produce("perf-committed", b"last")
        last.commit_transaction(30)
        read = _consume(bootstrap, "perf-committed", "read_committed", 301)
        assert read[-1] == "last" and len(read) == 301 and set(read[:-1]) <= set(payloads), read[-20:]

    _on_both(brokers, check)


def test_an_aborted_transaction_is_seen_by_read_uncommitted_only(brokers):
    """librdkafka commits ``c0 c1``, aborts ``a0 a1``, commits ``c2``: Kafka's console consumer
    reading committed gets ``c0 c1 c2``, reading uncommitted all five in order."""

    def check(bootstrap: str) -> None:
        _create_topic(bootstrap, "aborts")
        producer = _transactional_producer(bootstrap, "aborting")
        for values, commit in ((["c0", "c1"], True), (["a0", "a1"], False), (["c2"], True)):
            producer.begin_transaction()
            for value in values:
                producer.produce("aborts", value.encode())
            if commit:
                producer.commit_transaction(30)
            else:
                producer.flush(30)
                producer.abort_transaction(30)
        assert _consume(bootstrap, "aborts", "read_committed", 3) == ["c0", "c1", "c2"]
        assert _consume(bootstrap, "aborts", "read_uncommitted", 5) == ["c0", "c1", "a0", "a1", "c2"]

    _on_both(brokers, check)


def test_a_second_producer_with_the_same_transactional_id_fences_the_first(brokers):
    """The zombie's open transaction is aborted when its successor initialises (InitProducerId
    bumps the epoch); the zombie's next commit fails fatally with PRODUCER_FENCED; only the
    successor's records are committed."""

    def check(bootstrap: str) -> None:
        _create_topic(bootstrap, "fencing")
        zombie = _transactional_producer(bootstrap, "fenced")
        zombie.begin_transaction()
        zombie.produce("fencing", b"zombie")
        zombie.flush(30)
        successor = _transactional_producer(bootstrap, "fenced")
        successor.begin_transaction()
        successor.produce("fencing", b"successor")
        successor.commit_transaction(30)
        with pytest.raises(KafkaException) as raised:
            zombie.produce("fencing", b"zombie-again")
            zombie.commit_transaction(30)
        error = raised.value.args[0]
        assert error.fatal() and error.code() == KafkaError._FENCED, error
        assert _consume(bootstrap, "fencing", "read_committed", 1) == ["successor"]

    _on_both(brokers, check)


# the columns whose values differ between two clusters alike: allocated ids and clock times
VARYING_COLUMNS = frozenset(
    {"ProducerId", "CurrentTransactionStartTimeMs", "TransactionDurationMs", "LastTimestamp"}
)


def _shape(text: str) -> list[list[str]]:
    """TransactionsCommand's table (a header line of column names, then rows) as lists of cells,
    an empty last cell ``""``, the cells of ``VARYING_COLUMNS`` made ``<varies>``, the rows sorted."""
    header, *rows = [line.split() for line in text.splitlines() if line.strip()]
    masked = [
        [
            "<varies>" if column in VARYING_COLUMNS else cell
            for column, cell in zip_longest(header, row, fillvalue="")
        ]
        for row in rows
    ]
    return [header, *sorted(masked)]


def _transactions_command(bootstrap: str, *args: str) -> list[list[str]]:
    return _shape(_run(TOOLS + "TransactionsCommand", "--bootstrap-server", bootstrap, *args).stdout)


def test_the_transactions_command_prints_the_same_on_both(brokers):
    """With one ongoing transaction (``open-txn``, on ``txn-tool`` partition 0) and one completed
    (``done-txn``): ``list``, ``describe --transactional-id`` of each, ``describe-producers`` of
    the partition, ``abort`` of the open transaction from its start offset (2: ``done``, its
    COMMIT marker, then ``open``) and ``describe-producers`` again print the same on both."""
    producers = []

    def print_commands(bootstrap: str) -> dict[str, list]:
        _create_topic(bootstrap, "txn-tool")
        done = _transactional_producer(bootstrap, "done-txn")
        done.begin_transaction()
        done.produce("txn-tool", b"done", partition=0)
        done.commit_transaction(30)
        ongoing = _transactional_producer(bootstrap, "open-txn")
        ongoing.begin_transaction()
        ongoing.produce("txn-tool", b"open", partition=0)
        ongoing.flush(30)
        producers.append(ongoing)
        return {
            "list": _transactions_command(bootstrap, "list"),
            "describe open": _transactions_command(bootstrap, "describe", "--transactional-id", "open-txn"),
            "describe done": _transactions_command(bootstrap, "describe", "--transactional-id", "done-txn"),
            "describe-producers": _transactions_command(
                bootstrap, "describe-producers", "--topic", "txn-tool", "--partition", "0"
            ),
            "abort": _run(
                TOOLS + "TransactionsCommand",
                "--bootstrap-server",
                bootstrap,
                "abort",
                "--topic",
                "txn-tool",
                "--partition",
                "0",
                "--start-offset",
                "2",
            ).stdout.split(),
            "describe-producers after abort": _transactions_command(
                bootstrap, "describe-producers", "--topic", "txn-tool", "--partition", "0"
            ),
        }

    with ThreadPoolExecutor(len(brokers)) as pool:
        printed = dict(zip(brokers, pool.map(print_commands, brokers.values()), strict=True))
    for producer in producers:
        producer.abort_transaction(30)
    assert printed["kafkette"] == printed["kafka"]
    assert ["open-txn", "1", "<varies>", "Ongoing"] in printed["kafka"]["list"]
    # the hanging transaction's ABORT marker, written by the tool (WriteTxnMarkers), ends it
    assert [row[-1] for row in printed["kafka"]["describe-producers after abort"][1:]] == ["None", "None"]


def test_the_transactional_message_copier_copies_exactly_once(brokers):
    """Kafka's TransactionalMessageCopier copies the 500 records of ``copy-in`` to ``copy-out`` in
    transactions of 50 with random aborts (each retried from the committed offsets): reading
    committed, ``copy-out`` holds each record exactly once, in order (then the ``last`` librdkafka
    commits after)."""

    def check(bootstrap: str) -> None:
        _create_topic(bootstrap, "copy-in")
        _create_topic(bootstrap, "copy-out")
        values = [f"record-{n}" for n in range(500)]
        producer = Producer({"bootstrap.servers": bootstrap})
        for value in values:
            producer.produce("copy-in", value.encode())
        assert producer.flush(30) == 0
        done = _run(
            TOOLS + "TransactionalMessageCopier",
            "--broker-list",
            bootstrap,
            "--input-topic",
            "copy-in",
            "--input-partition",
            "0",
            "--output-topic",
            "copy-out",
            "--transactional-id",
            "copier",
            "--consumer-group",
            "copier-group",
            "--transaction-size",
            "50",
            "--enable-random-aborts",
            "--use-group-metadata",
        )
        assert '"remaining":0' in done.stdout.replace(" ", ""), done.stdout[-1500:]
        last = _transactional_producer(bootstrap, "copy-last")
        last.begin_transaction()
        last.produce("copy-out", b"last")
        last.commit_transaction(30)
        assert _consume(bootstrap, "copy-out", "read_committed", 501) == [*values, "last"]

    _on_both(brokers, check)
