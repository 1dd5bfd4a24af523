"""Apache Kafka's Java clients 4.3.1 against Kafkette's Kafka listener and against Apache Kafka
4.3.1 (``tests/peers/kafka_peer.py``), with the same outcome on both: KafkaProducer (idempotent,
acks=all, every compression.type), KafkaConsumer (group.protocol=classic, each assignor), Admin,
a Kafka Streams word count (a repartition and a changelog topic, at_least_once) and a Kafka
Connect standalone worker (FileStreamSource -> topic -> FileStreamSink).

Each program is a JVM of its own (``tests/peers/kafka_clients/*.java``, compiled against the
pinned jars by ``tests/peers/kafka_clients.py``), bounded by a timeout; both clusters have 3
nodes and ``SHARED_BROKER_CONFIGS`` and are shared by the tests of this module (each test uses
names of its own).  No Java, javac or Maven fails the tests, naming what is missing.
"""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from kafkette.client.local_cluster import free_ports
from kafkette.common.config_def import render_properties
from tests.peers import kafka_clients
from tests.peers.kafka_peer import PeerUnavailable

PROGRAM_TIMEOUT_S = 180
CONNECT_LINES = 2000
CONNECT_TIMEOUT_S = 120


@pytest.fixture(scope="module")
def brokers(kafka: str, kafkette: str) -> dict[str, str]:
    """``{"kafka": bootstrap servers, "kafkette": bootstrap servers}``."""
    return {"kafka": kafka, "kafkette": kafkette}


def java(main_class: str, *args: str, timeout_s: float = PROGRAM_TIMEOUT_S) -> list[str]:
    """Run a program of ``tests/peers/kafka_clients`` to its end; its stdout's lines.  It must exit 0."""
    try:
        command = kafka_clients.java_command(main_class)
    except PeerUnavailable as exc:
        pytest.fail(f"Apache Kafka's Java clients cannot run here: {exc}")
    done = subprocess.run([*command, *args], capture_output=True, text=True, timeout=timeout_s)
    assert done.returncode == 0, (
        f"{main_class} {' '.join(args)} exited {done.returncode}:\n{done.stderr[-3000:]}"
    )
    return done.stdout.splitlines()


def on_both(brokers: dict[str, str], main_class: str, *args: str) -> dict[str, list[str]]:
    """The stdout lines of ``main_class <bootstrap servers> *args`` run against each broker."""
    return {name: java(main_class, bootstrap, *args) for name, bootstrap in brokers.items()}


@pytest.mark.timeout(2 * PROGRAM_TIMEOUT_S + 300)
def test_an_idempotent_producer_of_every_codec_and_a_classic_consumer_of_each_assignor_work_as_on_kafka(
    brokers,
):
    lines = on_both(brokers, "ProduceConsume", "pc")
    expected = [
        f"codec {c} produced=600 consumed=600 intact=true" for c in ("none", "gzip", "snappy", "lz4", "zstd")
    ] + [
        f"assignor {a} both_assigned=true read=600 duplicates=0 both_members_read=true partitions_split=true"
        for a in ("range", "roundrobin", "sticky", "cooperative-sticky")
    ]
    assert lines["kafka"] == expected
    assert lines["kafkette"] == expected


@pytest.mark.timeout(2 * PROGRAM_TIMEOUT_S + 300)
def test_admin_describes_alters_lists_offsets_and_deletes_records_as_on_kafka(brokers):
    lines = on_both(brokers, "AdminCalls", "ad")
    expected = [
        "describeCluster nodes=3 controller_known=true",
        "createTopics created",
        "describeTopics partitions=2 replicas=3 isr=3 internal=false",
        "listTopics listed=true",
        "incrementalAlterConfigs altered",
        "describeConfigs retention.ms=3600000/DYNAMIC_TOPIC_CONFIG cleanup.policy=delete/DEFAULT_CONFIG",
        "createPartitions partitions=3",
        "listOffsets earliest=0 latest=10 max_timestamp=9 for_timestamp_5=5",
        "deleteRecords earliest_after=4",
        "deleteRecordsLowWatermark low_watermark=6",
        "electLeaders ElectionNotNeededException",
        "alterConsumerGroupOffsets altered",
        "listConsumerGroupOffsets offset=7 metadata=from AdminCalls",
        "describeConsumerGroups state=Empty members=0",
        "listGroups listed=true",
        "deleteConsumerGroupOffsets offsets_left=0",
        "deleteConsumerGroups deleted",
        "deleteTopics deleted",
    ]
    assert lines["kafka"] == expected
    assert lines["kafkette"] == expected


@pytest.mark.timeout(2 * PROGRAM_TIMEOUT_S + 300)
def test_a_kafka_streams_word_count_counts_the_same_on_kafkette_as_on_kafka(brokers, tmp_path):
    lines = {
        name: java("WordCount", bootstrap, "wc", str(tmp_path / f"state-{name}"))
        for name, bootstrap in brokers.items()
    }
    assert lines["kafka"] == lines["kafkette"]
    words = [line for line in lines["kafka"] if line.startswith("word ")]
    assert len(words) == 13 and sum(int(line.split()[2]) for line in words) == 1500, words
    # the groupBy went through a repartition topic and the count kept a changelog topic
    assert [line for line in lines["kafka"] if line.startswith("internal ")] == [
        "internal wc-wordcount-counts-changelog",
        "internal wc-wordcount-words-repartition",
    ]


def copy_through_connect(bootstrap: str, work: Path) -> tuple[bytes, bytes]:
    """A Connect standalone worker (``ConnectStandalone``, StringConverter) runs
    FileStreamSource (``in.txt`` -> topic ``connect-lines``) and FileStreamSink (topic ->
    ``out.txt``) until ``out.txt`` has every line, then stops (SIGTERM); the two files' bytes."""
    work.mkdir()
    source, sink = work / "in.txt", work / "out.txt"
    source.write_text(
        "".join(f"line {i} {'αβγ € ' * (i % 9)}end\n" for i in range(CONNECT_LINES)), encoding="utf-8"
    )
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic("connect-lines", 1, 3)])["connect-lines"].result(30)
    (rest_port,) = free_ports(1)
    files = {
        "worker.properties": {
            "bootstrap.servers": bootstrap,
            "key.converter": "org.apache.kafka.connect.storage.StringConverter",
            "value.converter": "org.apache.kafka.connect.storage.StringConverter",
            "offset.storage.file.filename": str(work / "offsets"),
            "offset.flush.interval.ms": 1000,
            "listeners": f"http://127.0.0.1:{rest_port}",
            "plugin.discovery": "only_scan",
        },
        "source.properties": {
            "name": "file-source",
            "tasks.max": 1,
            "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
            "file": str(source),
            "topic": "connect-lines",
        },
        "sink.properties": {
            "name": "file-sink",
            "tasks.max": 1,
            "connector.class": "org.apache.kafka.connect.file.FileStreamSinkConnector",
            "file": str(sink),
            "topics": "connect-lines",
        },
    }
    for name, props in files.items():
        (work / name).write_text(render_properties({k: str(v) for k, v in props.items()}), encoding="utf-8")
    try:
        command = kafka_clients.java_command("org.apache.kafka.connect.cli.ConnectStandalone")
    except PeerUnavailable as exc:
        pytest.fail(f"Apache Kafka's Java clients cannot run here: {exc}")
    with open(work / "connect.log", "wb") as log:
        worker = subprocess.Popen(
            [*command, *(str(work / name) for name in files)],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            cwd=work,
        )

    def copied_lines() -> int:
        return sink.read_bytes().count(b"\n") if sink.exists() else 0

    try:
        deadline = time.monotonic() + CONNECT_TIMEOUT_S
        while copied_lines() < CONNECT_LINES:
            log_tail = (work / "connect.log").read_text(errors="replace")[-3000:]
            assert worker.poll() is None, f"the Connect worker exited {worker.returncode}:\n{log_tail}"
            assert time.monotonic() < deadline, (
                f"out.txt had {copied_lines()} of {CONNECT_LINES} lines after {CONNECT_TIMEOUT_S} s:\n"
                f"{log_tail}"
            )
            time.sleep(0.5)
    finally:
        worker.send_signal(signal.SIGTERM)
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait(timeout=10)
    return source.read_bytes(), sink.read_bytes()


@pytest.mark.timeout(2 * CONNECT_TIMEOUT_S + 300)
def test_a_connect_standalone_worker_copies_a_file_through_kafkette_intact_as_through_kafka(
    brokers, tmp_path
):
    for name, bootstrap in brokers.items():
        written, copied = copy_through_connect(bootstrap, tmp_path / name)
        assert copied == written, f"{name}: the file came out of FileStreamSink changed"
