"""A Kafka Streams word count with ``processing.guarantee=exactly_once_v2`` (KIP-447) counts exactly
through a kill -9 of a broker mid-run, on Kafkette's Kafka listener as on Apache Kafka 4.3.1.

The application (``tests/peers/kafka_clients/WordCount.java``, Kafka Streams 4.3.1 unchanged) reads
lines, repartitions by word and keeps the counts in a state store with a changelog topic; with
exactly_once_v2 every commit is a transaction (its output, its changelog writes and its input
offsets together: AddPartitionsToTxn, TxnOffsetCommit, EndTxn, the coordinator's markers). It
counts the first half of the lines; then the test kills one broker with SIGKILL, the program
produces the second half while that broker is down, the broker is restarted, and the program's
read_committed reader must see every word's count reach exactly its number of occurrences: a
record processed twice (a transaction half-applied or replayed without its abort) makes a count
overshoot, which never matches.  Each cluster has 3 nodes with ``SHARED_BROKER_CONFIGS``.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from kafkette.client import LocalCluster
from tests.conformance.run import PEER_HEAP_MB
from tests.conformance.target import CLUSTER_NODES, SHARED_BROKER_CONFIGS
from tests.peers import kafka_clients
from tests.peers.kafka_peer import KafkaPeer, PeerUnavailable, start_or_fail

PROGRAM_TIMEOUT_S = 240
KILLED_NODE = 2
DOWN_S = 5.0
WORDS = 13
OCCURRENCES = 1500


@pytest.fixture(scope="module")
def kafka_peer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KafkaPeer]:
    peer = KafkaPeer(
        tmp_path_factory.mktemp("kafka-eos"),
        nodes=CLUSTER_NODES,
        heap_mb=PEER_HEAP_MB,
        broker_configs=SHARED_BROKER_CONFIGS,
    )
    start_or_fail(peer)
    try:
        yield peer
    finally:
        peer.stop()


@pytest.fixture(scope="module")
def kafkette_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    with LocalCluster(
        num_brokers=CLUSTER_NODES,
        data_dir=tmp_path_factory.mktemp("kafkette-eos"),
        kafka_protocol=True,
        broker_configs=SHARED_BROKER_CONFIGS,
    ) as cluster:
        yield cluster


def word_count_through_a_kill(
    bootstrap: str, state_dir: str, kill: Callable[[], None], restart: Callable[[], None]
) -> list[str]:
    """Run ``WordCount <bootstrap> eos <state dir> exactly_once_v2``; when it has counted the first
    half, ``kill`` a broker, let it go on (it produces the second half), ``restart`` the broker
    ``DOWN_S`` later; the program's stdout lines.  It must exit 0 within ``PROGRAM_TIMEOUT_S``."""
    try:
        command = kafka_clients.java_command("WordCount")
    except PeerUnavailable as exc:
        pytest.fail(f"Apache Kafka's Java clients cannot run here: {exc}")
    proc = subprocess.Popen(
        [*command, bootstrap, "eos", state_dir, "exactly_once_v2"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    stderr: list[str] = []
    reader = threading.Thread(target=lambda: stderr.extend(proc.stderr), daemon=True)  # type: ignore[arg-type]
    reader.start()
    timer = threading.Timer(PROGRAM_TIMEOUT_S, proc.kill)
    timer.start()
    lines: list[str] = []
    try:
        assert proc.stdout is not None and proc.stdin is not None
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            if line.startswith("phase 1 counted"):
                kill()
                proc.stdin.write("go\n")
                proc.stdin.flush()
                time.sleep(DOWN_S)
                restart()
        code = proc.wait(timeout=30)
    finally:
        timer.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        reader.join(timeout=10)
    assert "phase 1 counted" in lines, f"WordCount never counted its first half:\n{''.join(stderr)[-3000:]}"
    assert code == 0, f"WordCount exited {code}:\n{''.join(stderr)[-3000:]}"
    return lines


@pytest.mark.timeout(2 * PROGRAM_TIMEOUT_S + 300)
def test_exactly_once_v2_word_count_is_exact_through_a_broker_killed_mid_run(
    kafka_peer, kafkette_cluster, tmp_path
):
    outcomes = {
        "kafka": word_count_through_a_kill(
            kafka_peer.bootstrap_servers,
            str(tmp_path / "state-kafka"),
            lambda: kafka_peer.stop_node(KILLED_NODE, hard=True),
            lambda: kafka_peer.start_node(KILLED_NODE),
        ),
        "kafkette": word_count_through_a_kill(
            kafkette_cluster.kafka_bootstrap_servers,
            str(tmp_path / "state-kafkette"),
            lambda: kafkette_cluster.stop_broker(KILLED_NODE, hard=True),
            lambda: kafkette_cluster.start_broker(KILLED_NODE),
        ),
    }
    words = {name: [line for line in lines if line.startswith("word ")] for name, lines in outcomes.items()}
    assert words["kafkette"] == words["kafka"]
    assert len(words["kafka"]) == WORDS
    assert sum(int(line.split()[2]) for line in words["kafka"]) == OCCURRENCES
