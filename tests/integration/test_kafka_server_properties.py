"""A real broker (``kafkette broker start``) from Apache Kafka's own ``server.properties``: the
KRaft combined-mode sample Kafka ships (``tests/peers/kafka/server.properties``), edited only for
ports and paths, serves the SDK (create a topic, produce, consume) and says once, in one WARN,
which of Kafka's keys it accepts without using them.  Kafka's synonyms ``broker.id`` and
``log.dir`` start a broker alone, ``metadata.log.dir`` places the metadata log; a misspelled key
stops start-up with "Did you mean", a broker-only node without the quorum's voters with Kafka's
refusal."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from kafkette.client import AdminClient, NewTopic, Producer, TopicPartition
from kafkette.client.local_cluster import fetch_metadata, free_ports
from tests.cluster_helpers import consume_from_beginning

pytestmark = pytest.mark.timeout(180)

KAFKETTE = Path(sys.executable).parent / "kafkette"
KAFKA_SAMPLE = Path(__file__).resolve().parents[1] / "peers" / "kafka" / "server.properties"
STARTUP_TIMEOUT_S = 60
UNUSED_WARNING = "accepted, not used: "
UNUSED_IN_KAFKAS_SAMPLE = [
    "num.io.threads",
    "num.network.threads",
    "num.recovery.threads.per.data.dir",
    "share.coordinator.state.topic.min.isr",
    "share.coordinator.state.topic.replication.factor",
    "socket.receive.buffer.bytes",
    "socket.send.buffer.bytes",
]


def kafkas_sample(tmp_path: Path, broker_port: int, controller_port: int, quorum_line: str) -> Path:
    """Kafka's sample file with its ports and paths edited (and its quorum line as ``quorum_line``
    says: Kafka 3's ``controller.quorum.voters`` or Kafka 4's ``controller.quorum.bootstrap.servers``)."""
    quorum = {
        "voters": f"controller.quorum.voters=1@127.0.0.1:{controller_port}",
        "bootstrap.servers": f"controller.quorum.bootstrap.servers=127.0.0.1:{controller_port}",
    }[quorum_line]
    edits = {
        "controller.quorum.voters=1@localhost:9093": quorum,
        "listeners=PLAINTEXT://:9092,CONTROLLER://:9093": f"listeners=PLAINTEXT://127.0.0.1:{broker_port},CONTROLLER://127.0.0.1:{controller_port}",
        "advertised.listeners=PLAINTEXT://localhost:9092,CONTROLLER://localhost:9093": f"advertised.listeners=PLAINTEXT://127.0.0.1:{broker_port},CONTROLLER://127.0.0.1:{controller_port}",
        "log.dirs=/tmp/kraft-combined-logs": f"log.dirs={tmp_path / 'kraft-combined-logs'}",
    }
    text = KAFKA_SAMPLE.read_text(encoding="utf-8")
    for old, new in edits.items():
        line = re.compile("^" + re.escape(old) + "$", re.MULTILINE)
        assert len(line.findall(text)) == 1, f"Kafka's sample has no single line {old!r}"
        text = line.sub(lambda _match, new=new: new, text)
    config = tmp_path / "server.properties"
    config.write_text(text, encoding="utf-8")
    return config


@contextmanager
def broker_process(config: Path, log_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    """``kafkette broker start --config config`` with its output in ``log_path``; SIGTERM (then
    SIGKILL) at the end."""
    with open(log_path, "wb") as log:  # a file, not a pipe nobody drains while the broker logs
        proc = subprocess.Popen(
            [str(KAFKETTE), "broker", "start", "--config", str(config)],
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=str(config.parent),
            env={**os.environ, "LOG_DIR": str(config.parent)},
        )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)


async def wait_serving(proc: subprocess.Popen[bytes], port: int, log_path: Path) -> None:
    """Until the broker lists itself in Metadata (registered and unfenced)."""
    deadline = asyncio.get_running_loop().time() + STARTUP_TIMEOUT_S
    while True:
        assert proc.poll() is None, f"broker exited with {proc.returncode}: {log_path.read_text()}"
        try:
            if [b.node_id for b in (await asyncio.to_thread(fetch_metadata, port)).brokers] == [1]:
                return
        except (OSError, ValueError):
            pass
        assert asyncio.get_running_loop().time() < deadline, (
            f"the broker never served: {log_path.read_text()}"
        )
        await asyncio.sleep(0.2)


async def create_produce_consume(port: int, topic: str) -> None:
    bootstrap = f"127.0.0.1:{port}"
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics([NewTopic(topic, num_partitions=2, replication_factor=1)])
    async with Producer(bootstrap_servers=bootstrap, acks="all") as producer:
        for i in range(10):
            await producer.send_and_wait(topic, f"value-{i}".encode(), partition=i % 2)
    records = await consume_from_beginning(
        bootstrap, [TopicPartition(topic, 0), TopicPartition(topic, 1)], 10, timeout_s=60
    )
    assert sorted(r.value for r in records) == sorted(f"value-{i}".encode() for i in range(10))


def stop(proc: subprocess.Popen[bytes], log_path: Path) -> str:
    """SIGTERM the broker; returns its output after checking it stopped cleanly."""
    proc.send_signal(signal.SIGTERM)
    exit_code = proc.wait(timeout=60)
    output = log_path.read_text()
    assert exit_code == 0 and "Traceback" not in output, f"broker exited {exit_code}: {output}"
    return output


@pytest.mark.parametrize("quorum_line", ["voters", "bootstrap.servers"])
async def test_a_broker_serves_from_kafkas_own_server_properties_and_warns_once_of_the_unused_keys(
    tmp_path, quorum_line
):
    broker_port, controller_port = free_ports(2)
    config = kafkas_sample(tmp_path, broker_port, controller_port, quorum_line)
    log_path = tmp_path / "broker.log"
    with broker_process(config, log_path) as proc:
        await wait_serving(proc, broker_port, log_path)
        await create_produce_consume(broker_port, "from-kafkas-sample")
        output = stop(proc, log_path)
    warnings = [line for line in output.splitlines() if UNUSED_WARNING in line]
    assert len(warnings) == 1, output
    assert " WARNING " in warnings[0], warnings[0]
    assert warnings[0].split(UNUSED_WARNING, 1)[1].split(", ") == UNUSED_IN_KAFKAS_SAMPLE
    assert (tmp_path / "kraft-combined-logs" / "from-kafkas-sample-0").is_dir()
    assert (tmp_path / "kraft-combined-logs" / "__cluster_metadata-0").is_dir()
    if quorum_line == "bootstrap.servers":
        assert f"node 1 is the only voter of the metadata quorum, at 127.0.0.1:{controller_port}" in output


async def test_a_broker_with_kafkas_broker_id_log_dir_and_metadata_log_dir_alone_serves_and_uses_them(
    tmp_path,
):
    (port,) = free_ports(1)
    config = tmp_path / "server.properties"
    config.write_text(
        "broker.id=1\n"
        "process.roles=broker,controller\n"
        f"listeners=PLAINTEXT://127.0.0.1:{port}\n"
        f"controller.quorum.voters=1@127.0.0.1:{port}\n"
        f"log.dir={tmp_path / 'kafka-logs'}\n"
        f"metadata.log.dir={tmp_path / 'metadata'}\n",
        encoding="utf-8",
    )
    log_path = tmp_path / "broker.log"
    with broker_process(config, log_path) as proc:
        await wait_serving(proc, port, log_path)
        await create_produce_consume(port, "synonyms")
        output = stop(proc, log_path)
    assert (tmp_path / "kafka-logs" / "synonyms-0").is_dir()
    assert (tmp_path / "kafka-logs" / "meta.properties").is_file()
    assert (tmp_path / "metadata" / "__cluster_metadata-0").is_dir()
    assert not (tmp_path / "kafka-logs" / "__cluster_metadata-0").exists()
    assert UNUSED_WARNING not in output


@pytest.mark.parametrize(
    ("line", "error"),
    [
        (
            "num.netwrk.threads=3",
            "Error: Unknown configuration 'num.netwrk.threads'. Did you mean 'num.network.threads'?",
        ),
        (
            "broker.id=2",
            "Error: You must set `node.id` to the same value as `broker.id` (node.id=1, broker.id=2)",
        ),
    ],
)
def test_broker_start_refuses_a_misspelled_key_or_disagreeing_ids_in_one_line(tmp_path, line, error):
    (port,) = free_ports(1)
    config = tmp_path / "server.properties"
    config.write_text(
        f"node.id=1\nprocess.roles=broker,controller\nlisteners=PLAINTEXT://127.0.0.1:{port}\n"
        f"controller.quorum.voters=1@127.0.0.1:{port}\nlog.dirs={tmp_path / 'logs'}\n{line}\n",
        encoding="utf-8",
    )
    result = subprocess.run(
        [str(KAFKETTE), "broker", "start", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert [line for line in result.stderr.splitlines() if line.strip()] == [error], result.stderr
    assert not (tmp_path / "logs").exists()


@pytest.mark.parametrize(
    "command",
    [[str(KAFKETTE), "broker", "start"], [sys.executable, "-m", "kafkette.broker"]],
    ids=["kafkette broker start", "python -m kafkette.broker"],
)
def test_a_broker_only_node_without_controller_quorum_voters_stops_in_one_line_before_it_logs(
    tmp_path, command
):
    (port,) = free_ports(1)
    config = tmp_path / "server.properties"
    config.write_text(
        f"node.id=2\nprocess.roles=broker\nlisteners=PLAINTEXT://127.0.0.1:{port}\n"
        f"log.dirs={tmp_path / 'data'}\n",
        encoding="utf-8",
    )
    result = subprocess.run(
        [*command, "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env={k: v for k, v in os.environ.items() if k != "LOG_DIR"},
    )
    assert result.returncode == 1
    assert [line for line in result.stderr.splitlines() if line.strip()] == [
        "Error: If using process.roles, either controller.quorum.bootstrap.servers must contain the set of "
        "bootstrap controllers or controller.quorum.voters must contain a parseable set of controllers. A "
        "broker reaches the controllers at controller.quorum.voters (id@host:port of every voter)."
    ], result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["server.properties"], "no logs folder, no log dir"
