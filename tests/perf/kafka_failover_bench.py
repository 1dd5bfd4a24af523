"""``python -m tests.perf.kafka_failover_bench``: failover and recovery, Kafkette beside Apache Kafka,
measured the same way on both with the same client (confluent-kafka, to Kafkette's Kafka listener)
and Kafka's default timeouts on both (``broker.session.timeout.ms`` 9000, the quorum's election
timeout 1000 ms):

- **leader failover**: 3 nodes, a topic of 1 partition replicated 3 times
  (``min.insync.replicas=2``), a producer sending a record every 10 ms with acks=all; the
  partition's leader is killed (SIGKILL); seconds from the kill to the first acknowledgement of a
  record sent after it.
- **controller failover**: 3 nodes (every node a voter); the active controller (DescribeQuorum's
  leader) is killed; seconds from the kill until a CreateTopics sent to a surviving broker succeeds.
- **recovery after kill -9**: 1 node, ``--recovery-mb`` (default 1024) MiB of 1 KiB records in one
  partition, the node killed at once after the last acknowledgement and started again; seconds
  from the restart to the partition answering ListOffsets with every record (the log recovered).

Apache Kafka is the peer of ``tests/peers/kafka_peer.py`` (4.3.1, 512 MiB heap).  Prints a table
and writes JSON under ``tests/perf/results/``.  A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from kafkette.protocol.apis.raft import (
    DescribeQuorumPartitionRequest,
    DescribeQuorumRequest,
    DescribeQuorumTopicRequest,
)
from tests.conformance.raw_client import RawKafkaClient
from tests.perf.confluent_produce import produce_all
from tests.perf.results_file import write_result

NODES = 3
WAIT_S = 120.0
# Kafka's defaults, set on both so that neither side gets shorter timeouts
SAME_TIMEOUTS = {
    "broker.session.timeout.ms": 9000,
    "broker.heartbeat.interval.ms": 2000,
    "controller.quorum.election.timeout.ms": 1000,
    "controller.quorum.fetch.timeout.ms": 2000,
    "replica.lag.time.max.ms": 30000,
    "group.initial.rebalance.delay.ms": 0,
}


class Nodes:
    """One cluster as the measures see it: bootstrap servers, ``{node: (host, port)}`` of its
    Kafka-protocol listeners, and kill / start of one node."""

    def __init__(
        self,
        bootstrap: str,
        addresses: dict[int, tuple[str, int]],
        pid: Callable[[int], int | None],
        start: Callable[[int], None],
    ) -> None:
        self.bootstrap, self.addresses, self._pid, self._start = bootstrap, addresses, pid, start

    def kill(self, node: int) -> None:
        pid = self._pid(node)
        if pid is None:
            raise RuntimeError(f"node {node} is not running")
        os.kill(pid, signal.SIGKILL)

    def start(self, node: int) -> None:
        self._start(node)


def _cluster(system: str, data_dir: Path, nodes: int):
    """A context manager yielding ``Nodes`` for ``system`` (``kafkette`` or ``kafka``)."""
    from kafkette.client import LocalCluster
    from tests.peers.kafka_peer import KafkaPeer

    class _Ctx:
        def __enter__(self) -> Nodes:
            if system == "kafkette":
                self.c = LocalCluster(
                    num_brokers=nodes,
                    data_dir=data_dir,
                    kafka_protocol=True,
                    broker_configs=SAME_TIMEOUTS,
                    startup_timeout_s=120,
                ).start()
                return Nodes(
                    self.c.kafka_bootstrap_servers,
                    {n: ("127.0.0.1", p) for n, p in self.c.kafka_ports.items()},
                    self.c.pid,
                    self.c.start_broker,
                )
            self.c = KafkaPeer(data_dir, nodes=nodes, broker_configs=SAME_TIMEOUTS).start()
            return Nodes(
                self.c.bootstrap_servers,
                {n: ("127.0.0.1", p) for n, p in self.c.ports.items()},
                self.c.pid,
                self.c.start_node,
            )

        def __exit__(self, *exc: object) -> None:
            self.c.stop()

    return _Ctx()


def _create(
    bootstrap: str,
    topic: str,
    partitions: int,
    rf: int,
    config: dict[str, str] | None = None,
    timeout_s: float = 30,
) -> None:
    """Create a topic and wait until it has a leader (raises RuntimeError when it does not)."""
    admin = AdminClient({"bootstrap.servers": bootstrap})  # kept alive until its future is done
    admin.create_topics(
        [NewTopic(topic, num_partitions=partitions, replication_factor=rf, config=config or {})]
    )[topic].result(timeout_s)
    probe = Consumer({"bootstrap.servers": bootstrap, "group.id": "probe"})
    try:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            meta = probe.list_topics(topic, timeout=5).topics.get(topic)
            if (
                meta is not None
                and meta.partitions
                and all(p.leader >= 0 and len(p.isrs) == rf for p in meta.partitions.values())
            ):
                return
            time.sleep(0.1)
    finally:
        probe.close()
    raise RuntimeError(f"{topic} got no leader with a full ISR in {timeout_s} s")


def _leader(bootstrap: str, topic: str) -> int:
    probe = Consumer({"bootstrap.servers": bootstrap, "group.id": "probe"})
    try:
        return probe.list_topics(topic, timeout=10).topics[topic].partitions[0].leader
    finally:
        probe.close()


def leader_failover(nodes: Nodes) -> float:
    """Seconds from killing the partition's leader to the first acks=all acknowledgement of a
    record sent after the kill."""
    _create(nodes.bootstrap, "failover", 1, NODES, {"min.insync.replicas": "2"})
    producer = Producer(
        {
            "bootstrap.servers": nodes.bootstrap,
            "acks": "all",
            "linger.ms": 0,
            "enable.idempotence": True,
            "message.timeout.ms": int(WAIT_S * 1000),
        }
    )
    killed_at: list[float] = []
    first_ack: list[float] = []

    def on_delivery(sent: float) -> Callable[[Any, Any], None]:
        def report(err: Any, _msg: Any) -> None:
            if err is None and killed_at and sent >= killed_at[0] and not first_ack:
                first_ack.append(time.monotonic())

        return report

    deadline = time.monotonic() + WAIT_S
    started = time.monotonic()
    while time.monotonic() < deadline and not first_ack:
        now = time.monotonic()
        if not killed_at and now - started > 2.0:
            nodes.kill(_leader(nodes.bootstrap, "failover"))
            killed_at.append(time.monotonic())
        try:
            producer.produce("failover", b"x" * 100, partition=0, on_delivery=on_delivery(time.monotonic()))
        except BufferError:
            pass
        producer.poll(0.01)
    producer.flush(10)
    if not first_ack:
        raise RuntimeError(f"no acknowledgement within {WAIT_S:.0f} s of killing the leader")
    return first_ack[0] - killed_at[0]


def _active_controller(nodes: Nodes) -> int:
    node = min(nodes.addresses)
    client = RawKafkaClient(*nodes.addresses[node])
    try:
        answer = client.call(
            "DescribeQuorum",
            1,
            DescribeQuorumRequest(
                topics=[
                    DescribeQuorumTopicRequest(
                        topic_name="__cluster_metadata",
                        partitions=[DescribeQuorumPartitionRequest(partition_index=0)],
                    )
                ]
            ),
        )
    finally:
        client.close()
    return answer.topics[0].partitions[0].leader_id


def controller_failover(nodes: Nodes) -> float:
    """Seconds from killing the active controller until a CreateTopics sent to a surviving broker
    succeeds.  Each attempt uses a new AdminClient bootstrapped from the survivors, so that
    librdkafka's cached controller id (which it does not refresh while that broker is down)
    does not count against either broker."""
    controller = _active_controller(nodes)
    survivors = ",".join(f"{h}:{p}" for n, (h, p) in nodes.addresses.items() if n != controller)
    nodes.kill(controller)
    killed_at = time.monotonic()
    attempt = 0
    while time.monotonic() - killed_at < WAIT_S:
        attempt += 1
        name = f"after-controller-{attempt}"
        admin = AdminClient({"bootstrap.servers": survivors})
        try:
            admin.create_topics(
                [NewTopic(name, num_partitions=1, replication_factor=1)], request_timeout=2.0
            )[name].result(3.0)
            return time.monotonic() - killed_at
        except KafkaException:
            time.sleep(0.05)
    raise RuntimeError(f"no CreateTopics succeeded within {WAIT_S:.0f} s of killing the controller")


def recovery(nodes: Nodes, size_mb: int) -> tuple[float, int]:
    """``(seconds from restarting the killed node to ListOffsets answering every record, records)``
    after ``size_mb`` MiB of 1 KiB records."""
    _create(nodes.bootstrap, "recovery", 1, 1)
    records = (size_mb << 20) // 1024
    producer = Producer(
        {
            "bootstrap.servers": nodes.bootstrap,
            "acks": "1",
            "linger.ms": 5,
            "batch.size": 1 << 20,
            "compression.type": "none",
        }
    )
    value = os.urandom(1024)
    produce_all(producer, "recovery", value, records, flush_timeout_s=300)
    node = min(nodes.addresses)
    nodes.kill(node)
    time.sleep(1.0)
    started = time.monotonic()
    nodes.start(node)
    probe = Consumer({"bootstrap.servers": nodes.bootstrap, "group.id": "probe"})
    try:
        while time.monotonic() - started < WAIT_S * 5:
            try:
                _, high = probe.get_watermark_offsets(TopicPartition("recovery", 0), timeout=2.0)
                if high >= records:
                    return time.monotonic() - started, records
            except KafkaException:
                pass
            time.sleep(0.05)
    finally:
        probe.close()
    raise RuntimeError(f"the log was not back within {WAIT_S * 5:.0f} s of the restart")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per system and measure (default 3)")
    parser.add_argument("--recovery-mb", type=int, default=1024, help="log size before the kill -9 (MiB)")
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.recovery_mb < 1:
        parser.error("--repeat and --recovery-mb must be >= 1")
    figures: dict[str, dict[str, list[float]]] = {
        s: {"leader_failover_s": [], "controller_failover_s": [], "recovery_s": []}
        for s in ("kafkette", "kafka")
    }
    for attempt in range(args.repeat):
        for system in ("kafkette", "kafka"):
            with tempfile.TemporaryDirectory(prefix=f"failover-{system}-") as tmp:
                with _cluster(system, Path(tmp) / "leader", NODES) as nodes:
                    figures[system]["leader_failover_s"].append(leader_failover(nodes))
                with _cluster(system, Path(tmp) / "controller", NODES) as nodes:
                    figures[system]["controller_failover_s"].append(controller_failover(nodes))
                with _cluster(system, Path(tmp) / "recovery", 1) as nodes:
                    seconds, records = recovery(nodes, args.recovery_mb)
                    figures[system]["recovery_s"].append(seconds)
            print(
                f"[failover] run {attempt + 1} {system}: "
                + ", ".join(f"{k} {v[-1]:.2f}" for k, v in figures[system].items()),
                flush=True,
            )
    medians = {s: {k: statistics.median_low(v) for k, v in f.items()} for s, f in figures.items()}
    ours, theirs = medians["kafkette"], medians["kafka"]
    rows = [
        ("leader killed (SIGKILL) to the next acks=all acknowledgement (s)", "leader_failover_s"),
        ("active controller killed to the next CreateTopics (s)", "controller_failover_s"),
        (f"restart after kill -9 with {args.recovery_mb} MiB to every record readable (s)", "recovery_s"),
    ]
    print(
        f"median of {args.repeat}; Kafka's default timeouts on both\n"
        "| measure | Kafkette | Apache Kafka | Kafkette / Kafka |\n| --- | ---: | ---: | ---: |"
    )
    for label, key in rows:
        print(f"| {label} | {ours[key]:.2f} | {theirs[key]:.2f} | {ours[key] / theirs[key]:.2f}x |")
    out = write_result(
        "kafka-failover",
        "tests.perf.kafka_failover_bench",
        {
            "nodes": NODES,
            "recovery_mb": args.recovery_mb,
            "timeouts": SAME_TIMEOUTS,
            "runs": figures,
            "medians": medians,
            "records": records,
        },
    )
    print(f"results: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
