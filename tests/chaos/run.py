"""Run the chaos matrix: ``python -m tests.chaos.run [--quick] [--seed N] [--runs N] [--scenario NAME ...]
[--broker B]``.

Each run starts a 3-broker LocalCluster (every node a voter of the metadata quorum), each
node in a network namespace of its own with its own address (``tests/chaos/netns.py``; the
harness's clients in another; ``--loopback`` or a machine where namespaces cannot be made runs
on 127.0.0.1 and skips the scenarios that cut the network, saying so), creates
a topic of 3 partitions replicated 3 times (``min.insync.replicas=2``), runs the workload
(``tests/chaos/workload.py``) while the nemesis (``tests/chaos/nemesis.py``) injects the
scenario's faults one after another, heals everything, reads every partition back, stops the
cluster and compares the replicas' logs up to the end of that read.  The checker
(``tests/chaos/checker.py``) then counts what was lost, duplicated, reordered or changed.

Every run prints its seed; ``--seed N --scenario NAME --runs 1`` replays it (faults, targets
and holds come from the seed; the cluster's own timing does not).  The summary table goes to
stdout and, as JSON rows, to ``tests/chaos/results/chaos-<UTC timestamp>.json``.

The negative control runs the same workload with acks=1, no idempotence,
``unclean.leader.election.enable=true`` and followers that fetch only every 2.5 s
(``replica.fetch.min.bytes`` 1 MiB): killing leaders must lose acknowledged records, which
shows that the checker sees loss.  Its rows say ``negative_control: true``.

``--broker`` picks the system under the same faults, workload and checker: ``kafkette`` (the
default: a LocalCluster, Kafkette's SDK), ``kafka`` (Apache Kafka 4.3.1, 3 nodes each a broker
and a voter, ``tests/chaos/kafka_cluster.py``, each in a network namespace of its own like a
LocalCluster's nodes, or on 127.0.0.1 with ``--loopback``) or ``kafkette-kafka-listener`` (a
LocalCluster with its Kafka-protocol listeners).  The last two drive the workload with aiokafka
(``tests/chaos/kafka_workload.py``).  Apache Kafka runs every scenario: kills, pauses, network
cuts, full disks (its ``log.dirs`` on a tmpfs), and clock jumps and slow fsyncs (the same
``LD_PRELOAD`` libraries in its JVMs).  Kafkette's Kafka listener runs only the kills and pauses.  Every row
names its broker.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType

from kafkette.broker.log.log_config import LogConfig
from kafkette.broker.log.unified_log import UnifiedLog
from kafkette.client import KafkaError, LocalCluster, TopicPartition
from tests.chaos import kafka_workload, netns, workload
from tests.chaos.checker import Report, check
from tests.chaos.clock import NodeClocks
from tests.chaos.clock import build_library as build_clock_library
from tests.chaos.kafka_cluster import KAFKA_UNCLEAN_SWEEP, KafkaLocator, KafkaPeerCluster
from tests.chaos.nemesis import NETWORK_KINDS, Injected, KafketteLocator, Locator, Nemesis, parse_fault
from tests.chaos.netns import NamespaceNetwork
from tests.chaos.slow_disk import SlowDisks
from tests.chaos.slow_disk import build_library as build_slow_disk_library
from tests.chaos.workload import Outcomes
from tests.cluster_configs import FAST_FAILOVER
from tests.cluster_helpers import log_records
from tests.disk_helpers import mount_tmpfs

logger = logging.getLogger(__name__)

RESULTS = Path(__file__).parent / "results"
TOPIC = "chaos"
GROUP = "chaos-readers"
PARTITIONS = 3
BROKERS = 3
PRODUCERS = 2
HEAL_TIMEOUT_S = 60
GROUP_READ_AFTER_HEAL_S = 30  # the consumer group must read something this soon after healing
RUN_TIMEOUT_S = 900
DISK_BYTES = 128 << 20
KAFKETTE, KAFKA, KAFKETTE_KAFKA_LISTENER = "kafkette", "kafka", "kafkette-kafka-listener"
BROKERS_UNDER_TEST = (KAFKETTE, KAFKA, KAFKETTE_KAFKA_LISTENER)
KAFKA_HEAP_MB = 384  # each Apache Kafka JVM's heap (MiB)


@dataclass(frozen=True)
class Scenario:
    """A named set of faults and the workload's settings.

    Attributes:
        faults: ``kind:target`` faults the nemesis picks from, one at a time.
        acks / idempotence: the producers' settings.
        broker_configs: extra broker settings (over the fast-failover ones).
        negative_control: the run must show anomalies (the checker's own test).
    """

    name: str
    faults: tuple[str, ...]
    acks: str | int = "all"
    idempotence: bool = True
    broker_configs: dict = field(default_factory=dict)
    negative_control: bool = False
    disk_bytes: int | None = None  # each node's log dir on a tmpfs of this size (for disk-full)
    topic_configs: dict = field(default_factory=dict)  # over min.insync.replicas=2

    @property
    def needs_clocks(self) -> bool:
        """True when a fault jumps a node's clock (the nodes run with the clock-offset library)."""
        return any(parse_fault(f)[0] == "clock" for f in self.faults)

    @property
    def needs_slow_disks(self) -> bool:
        """True when a fault slows a node's fsync (the nodes run with the slow-fsync library)."""
        return any(parse_fault(f)[0] == "slow-disk" for f in self.faults)

    @property
    def needs_network(self) -> bool:
        """True when a fault cuts the network (the run needs network namespaces)."""
        return any(parse_fault(f)[0] in NETWORK_KINDS for f in self.faults)

    def skip_reason(self, broker: str) -> str | None:
        """Why the scenario is not run against ``broker`` (one of BROKERS_UNDER_TEST), or None:
        Kafkette and Apache Kafka run every scenario; Kafkette's Kafka listener only kills and
        pauses."""
        if broker in (KAFKETTE, KAFKA):
            return None
        others = sorted({parse_fault(f)[0] for f in self.faults} - {"kill", "pause"})
        if others:
            return f"its faults ({', '.join(others)}) are not run against this broker (kills and pauses only)"
        return None


LAGGING_FOLLOWERS = {
    "replica.fetch.min.bytes": 1 << 20,
    "replica.fetch.wait.max.ms": 2500,
    "unclean.leader.election.enable": "true",
}

SCENARIOS = {
    s.name: s
    for s in (
        Scenario("kill-leader", ("kill:leader",)),
        Scenario("kill-controller", ("kill:controller",)),
        Scenario("pause-leader", ("pause:leader",)),
        Scenario("pause-controller", ("pause:controller",)),
        Scenario("kill-pause-mixed", ("kill:leader", "pause:leader", "kill:controller", "pause:random")),
        Scenario("partition-leader", ("partition:leader",)),
        Scenario("partition-controller", ("partition:controller",)),
        Scenario("client-partition-leader", ("client-partition:leader",)),
        Scenario(
            "partition-kill-pause-mixed",
            (
                "partition:leader",
                "kill:leader",
                "partition:controller",
                "pause:random",
                "client-partition:random",
                "partition:random",
            ),
        ),
        Scenario("disk-full-leader", ("disk-full:leader",), disk_bytes=DISK_BYTES),
        Scenario(
            "disk-full-mixed", ("disk-full:random", "kill:leader", "partition:leader"), disk_bytes=DISK_BYTES
        ),
        # LogAppendTime: the leaders' wall clocks are written into every batch, so the jumps show in the log
        Scenario(
            "clock-jump-mixed",
            ("clock:leader", "clock:controller", "clock:random", "kill:leader"),
            topic_configs={"message.timestamp.type": "LogAppendTime"},
        ),
        # flush.messages=1: every append is made durable, so the slow fsync is on the write path
        Scenario(
            "slow-disk-mixed",
            ("slow-disk:controller", "slow-disk:leader", "slow-disk:random"),
            topic_configs={"flush.messages": "1"},
        ),
        Scenario(
            "control-acks1-unclean-kill-leader",
            ("kill:leader",),
            acks=1,
            idempotence=False,
            broker_configs=LAGGING_FOLLOWERS,
            negative_control=True,
        ),
        Scenario(
            "control-acks1-unclean-partition-leader",
            ("partition:leader",),
            acks=1,
            idempotence=False,
            broker_configs=LAGGING_FOLLOWERS,
            negative_control=True,
        ),
    )
}


@dataclass(frozen=True)
class Injectors:
    """The per-node fault injectors a scenario started its nodes with (None: not used)."""

    clocks: NodeClocks | None = None
    slow_disks: SlowDisks | None = None


@dataclass
class Deployment:
    """The system under test as the harness sees it.

    Attributes:
        broker: one of BROKERS_UNDER_TEST.
        cluster: a LocalCluster or a KafkaPeerCluster (started and stopped by the harness).
        client_bootstrap: what the workload's clients dial (``host:port,...``).
        workload: ``tests.chaos.workload`` (Kafkette's SDK) or ``tests.chaos.kafka_workload`` (aiokafka).
        locator: where the nemesis and the harness find leaders, ISRs and the active controller.
    """

    broker: str
    cluster: LocalCluster | KafkaPeerCluster
    client_bootstrap: str
    workload: ModuleType
    locator: Locator


@dataclass
class Reads:
    """What the readers saw: the assigned reader during the faults, the group's members and the
    group's commits after healing, and the final read."""

    continuous: list[tuple[int, int, bytes]]
    group: list[tuple[int, int, bytes]]
    committed: dict[int, int]
    final: list[tuple[int, int, bytes]]
    healed: bool = True  # every ISR was whole again within HEAL_TIMEOUT_S of healing


@dataclass
class RunResult:
    """One run: its seed, the broker under test, the checker's report, the replicas that differ,
    and the faults' unavailability."""

    scenario: str
    seed: int
    network: str  # "namespaces" or "loopback"
    report: Report
    diverged: list[int]  # partitions whose replicas differ up to the final read's end
    unavailable_s: list[float]  # per fault: the longest gap between acknowledgements of a partition
    injected: list[Injected]
    group_read: int = 0  # records the group's members read (repeats included)
    committed: dict[int, int] = field(default_factory=dict)  # the group's commits after healing
    broker: str = KAFKETTE  # one of BROKERS_UNDER_TEST
    healed: bool = True  # every ISR was whole again within HEAL_TIMEOUT_S of healing (liveness)

    @property
    def valid(self) -> bool:
        """True when the checker found nothing and the replicas agree (safety; ``healed`` is
        liveness, reported beside it)."""
        return self.report.valid and not self.diverged


def unavailability(
    injected: list[Injected], ack_times: dict[int, list[float]], partitions: int, end_s: float
) -> list[float]:
    """Per fault, the longest time a partition went without an acknowledgement between the fault's
    injection and the next fault's (or ``end_s``): the producers send to every partition all the
    time, so a gap is time that partition could not be written.  Measured this way a fault that
    bites late (a disk that fills a page later) counts as well as one that bites at once.

    Args:
        ack_times: ``{partition: [monotonic s of each ack]}``.
        end_s: when the last fault's window ends (s, monotonic).
    """
    windows = []
    starts = [fault.started_s for fault in injected]
    for index, start in enumerate(starts):
        stop = starts[index + 1] if index + 1 < len(starts) else end_s
        longest = 0.0
        for p in range(partitions):
            points = [start, *sorted(t for t in ack_times.get(p, []) if start < t < stop), stop]
            longest = max(longest, max(b - a for a, b in zip(points, points[1:], strict=False)))
        windows.append(longest)
    return windows


def replicas_differ(seen: list[list[tuple]], lagging: bool) -> bool:
    """True when the replicas' records (one list per replica, in offset order) differ; with
    ``lagging``, only where both hold an offset (a replica holding a prefix of another's is
    behind, not diverged)."""
    if lagging:
        longest = max(seen, key=len, default=[])
        return any(records != longest[: len(records)] for records in seen)
    return any(records != seen[0] for records in seen[1:])


def _replica_logs(
    cluster: LocalCluster | KafkaPeerCluster, ends: dict[int, int], lagging: bool = False
) -> list[int]:
    """Partitions whose replicas' records (offset, key, value) below ``ends[p]`` differ (cluster
    stopped): Kafkette's logs through UnifiedLog, Apache Kafka's segment files directly.  With
    ``lagging`` (the run did not heal: a replica may still be out of the ISR) a replica that
    holds a prefix of another's records is behind, not diverged: only offsets both hold count."""
    diverged = []
    for p in range(PARTITIONS):
        tp = TopicPartition(TOPIC, p)
        seen = []
        for node in cluster.broker_ids:
            if isinstance(cluster, KafkaPeerCluster):
                seen.append([r for r in cluster.replica_records(TOPIC, p, node) if r[0] < ends.get(p, 0)])
                continue
            log_dir = Path(cluster.broker_properties(node)["log.dirs"])
            log = UnifiedLog.open(log_dir / str(tp), tp, LogConfig(), had_clean_shutdown=False)
            try:
                seen.append([r for r in log_records(log) if r[0] < ends.get(p, 0)])
            finally:
                log.close()
        if replicas_differ(seen, lagging):
            diverged.append(p)
    return diverged


async def _wait_for_full_isr(
    locator: Locator, what: str, timeout_s: float = 30, required: bool = True
) -> bool:
    """Poll the topic's partitions (every 0.2 s) until each has all BROKERS replicas in its ISR.

    Returns:
        True once so; False when not so after ``timeout_s`` seconds and not ``required``.

    Raises:
        AssertionError: not so after ``timeout_s`` seconds and ``required`` (with the last answer).
    """
    deadline = time.monotonic() + timeout_s
    last: object = None
    while True:
        try:
            last = await locator.partitions(TOPIC)
            if all(len(p.isr) == BROKERS for p in last):
                return True
        except (KafkaError, TimeoutError, OSError) as exc:
            last = exc
        if time.monotonic() >= deadline and not required:
            print(
                f"[chaos] {TOPIC}: timed out waiting for {what} ({timeout_s:.0f} s), reading on; last {last}",
                flush=True,
            )
            return False
        assert time.monotonic() < deadline, f"{TOPIC}: timed out waiting for {what}; last {last}"
        await asyncio.sleep(0.2)


async def _run_workload(
    deployment: Deployment,
    scenario: Scenario,
    rng: random.Random,
    faults: int,
    label: str,
    network: NamespaceNetwork | None,
    disks: dict[int, Path],
    injectors: Injectors,
) -> tuple[Reads, list[Injected], float, Outcomes]:
    bootstrap, clients = deployment.client_bootstrap, deployment.workload
    await clients.create_topic(
        bootstrap, TOPIC, PARTITIONS, BROKERS, {"min.insync.replicas": "2", **scenario.topic_configs}
    )
    await _wait_for_full_isr(deployment.locator, "a full ISR")
    tps = [TopicPartition(TOPIC, p) for p in range(PARTITIONS)]
    stop = asyncio.Event()
    outcomes = Outcomes()
    continuous: list[tuple[int, int, bytes]] = []
    tasks = [
        asyncio.create_task(
            clients.produce(
                bootstrap,
                TOPIC,
                PARTITIONS,
                i,
                label,
                stop,
                outcomes,
                acks=scenario.acks,
                idempotence=scenario.idempotence,
            )
        )
        for i in range(PRODUCERS)
    ]
    tasks.append(asyncio.create_task(clients.read_continuously(bootstrap, tps, stop, continuous)))
    group_read: list[tuple[int, int, bytes]] = []
    tasks.append(asyncio.create_task(clients.consume_in_group(bootstrap, TOPIC, GROUP, stop, group_read)))
    nemesis = Nemesis(
        deployment.cluster,
        TOPIC,
        rng,
        network=network,
        disks=disks,
        clocks=injectors.clocks,
        slow_disks=injectors.slow_disks,
        locator=deployment.locator,
    )
    try:
        await asyncio.sleep(2.0)  # a healthy start
        for _ in range(faults):
            await nemesis.inject(rng.choice(scenario.faults))
            await asyncio.sleep(rng.uniform(2.0, 4.0))  # the cluster recovers between faults
        end_s = time.monotonic()
    finally:
        await asyncio.to_thread(nemesis.heal)
        # liveness: a group whose members spent the faults rebalancing still gets to read once healed
        deadline = time.monotonic() + GROUP_READ_AFTER_HEAL_S
        while not group_read and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        stop.set()
        done, pending = await asyncio.wait(tasks, timeout=60)
        for task in pending:
            task.cancel()
        await asyncio.wait(tasks, timeout=10)
    for task in done:
        if task.exception() is not None:
            raise task.exception()
    healed = await _wait_for_full_isr(
        deployment.locator, "a full ISR after healing", timeout_s=HEAL_TIMEOUT_S, required=False
    )
    final = await clients.final_read(bootstrap, tps)
    committed = await clients.committed_offsets(bootstrap, GROUP, TOPIC)
    return Reads(continuous, group_read, committed, final, healed), nemesis.injected, end_s, outcomes


def run_once(
    scenario: Scenario,
    seed: int,
    faults: int,
    data_dir: Path,
    namespaces: bool = True,
    broker: str = KAFKETTE,
) -> RunResult:
    """One run of ``scenario`` with ``seed`` and ``faults`` faults, in ``data_dir``, against
    ``broker`` (one of BROKERS_UNDER_TEST); the nodes and the clients each in a network namespace
    of their own unless ``namespaces`` is False.

    Raises:
        ValueError: the scenario cuts the network and ``namespaces`` is False; the scenario
            has a ``skip_reason(broker)``; an unknown ``broker``.
        netns.NamespaceError: the namespaces could not be made.
        PeerUnavailable: ``broker`` is ``kafka`` and Apache Kafka cannot run here (no Java or Maven).
        AssertionError, TimeoutError, LocalClusterError, RuntimeError: the cluster did not heal or start.
    """
    if broker not in BROKERS_UNDER_TEST:
        raise ValueError(f"broker {broker!r}: expected one of {BROKERS_UNDER_TEST}")
    if (reason := scenario.skip_reason(broker)) is not None:
        raise ValueError(f"scenario {scenario.name} is not run against {broker}: {reason}")
    if not namespaces:
        if scenario.needs_network:
            raise ValueError(f"scenario {scenario.name} cuts the network: it needs network namespaces")
        return _run_once(scenario, seed, faults, data_dir, None, broker)
    with NamespaceNetwork(list(range(1, BROKERS + 1))) as network:
        return network.run_as_client(
            lambda: _run_once(scenario, seed, faults, data_dir, network, broker), RUN_TIMEOUT_S
        )


def _deploy(broker: str, scenario: Scenario, data_dir: Path, network: NamespaceNetwork | None) -> Deployment:
    """The (not yet started) cluster of ``broker`` with the fast-failover settings and the scenario's,
    its nodes placed in ``network``'s namespaces when there is one."""
    placement = (
        {} if network is None else {"hosts": network.hosts(), "command_prefix": network.command_prefix()}
    )
    if broker == KAFKA:
        configs = dict(scenario.broker_configs)
        if configs.get("unclean.leader.election.enable") == "true":
            configs.update(KAFKA_UNCLEAN_SWEEP)
        cluster = KafkaPeerCluster(data_dir, configs, nodes=BROKERS, heap_mb=KAFKA_HEAP_MB, **placement)
        return Deployment(
            broker,
            cluster,
            cluster.bootstrap_servers,
            kafka_workload,
            KafkaLocator(cluster.peer.ports, cluster.peer.hosts),
        )
    configs = {**FAST_FAILOVER, **scenario.broker_configs}
    listener = broker == KAFKETTE_KAFKA_LISTENER
    local = LocalCluster(
        num_brokers=BROKERS, data_dir=data_dir, broker_configs=configs, kafka_protocol=listener, **placement
    )
    if listener:
        return Deployment(
            broker,
            local,
            local.kafka_bootstrap_servers,
            kafka_workload,
            KafketteLocator(local.bootstrap_servers),
        )
    return Deployment(
        broker, local, local.bootstrap_servers, workload, KafketteLocator(local.bootstrap_servers)
    )


def _run_once(
    scenario: Scenario,
    seed: int,
    faults: int,
    data_dir: Path,
    network: NamespaceNetwork | None,
    broker: str = KAFKETTE,
) -> RunResult:
    where = "loopback" if network is None else "namespaces"
    print(f"[chaos] scenario {scenario.name} seed {seed} ({where}, broker {broker})", flush=True)
    rng = random.Random(seed)
    deployment = _deploy(broker, scenario, data_dir, network)
    cluster = deployment.cluster
    clocks = None
    if scenario.needs_clocks:
        library, problem = build_clock_library(data_dir / "clocks")
        if library is None:
            raise RuntimeError(
                f"scenario {scenario.name} jumps clocks and needs the clock-offset library: {problem}"
            )
        clocks = NodeClocks(data_dir / "clocks", cluster.broker_ids, library)
        cluster.node_env.update({node: clocks.env(node) for node in cluster.broker_ids})
    slow_disks = None
    if scenario.needs_slow_disks:
        library, problem = build_slow_disk_library(data_dir / "slow-disk")
        if library is None:
            raise RuntimeError(
                f"scenario {scenario.name} slows disks and needs the slow-fsync library: {problem}"
            )
        slow_disks = SlowDisks(data_dir / "slow-disk", cluster.broker_ids, library)
        cluster.node_env.update({node: slow_disks.env(node) for node in cluster.broker_ids})
    with contextlib.ExitStack() as mounts:
        disks: dict[int, Path] = {}
        if scenario.disk_bytes:
            for node in cluster.broker_ids:
                disks[node] = mounts.enter_context(
                    mount_tmpfs(cluster.broker_dir(node) / "disk", scenario.disk_bytes)
                )
                cluster.node_configs[node] = {"log.dirs": str(disks[node] / "logs")}
        cluster.start()
        try:
            reads, injected, end_s, outcomes = asyncio.run(
                _run_workload(
                    deployment,
                    scenario,
                    rng,
                    faults,
                    f"{scenario.name}-{seed}",
                    network,
                    disks,
                    Injectors(clocks, slow_disks),
                )
            )
        finally:
            cluster.stop()
        ends: dict[int, int] = {}
        for partition, offset, _ in reads.final:
            ends[partition] = max(ends.get(partition, 0), offset + 1)
        report = check(
            outcomes.sends, [reads.continuous, reads.final], group_read=reads.group, committed=reads.committed
        )
        result = RunResult(
            scenario.name,
            seed,
            where,
            report,
            _replica_logs(cluster, ends, not reads.healed),
            unavailability(injected, outcomes.ack_times, PARTITIONS, end_s),
            injected,
            len(reads.group),
            reads.committed,
            broker,
            reads.healed,
        )
    print(
        f"[chaos] {scenario.name} seed {seed} ({broker}): {report.summary()}, "
        f"diverged partitions {result.diverged}, "
        f"healed {result.healed}, "
        f"group read {result.group_read} committed {result.committed}, errors {outcomes.errors}",
        flush=True,
    )
    return result


def summarize(scenario: Scenario, results: list[RunResult]) -> dict:
    """One table row (the JSON keys the README's table uses)."""
    windows = [w for r in results for w in r.unavailable_s]
    return {
        "scenario": scenario.name,
        "broker": results[0].broker if results else KAFKETTE,
        "faults": list(scenario.faults),
        "runs": len(results),
        "network": sorted({r.network for r in results}),
        "acknowledged": sum(r.report.acknowledged for r in results),
        "lost": sum(len(r.report.lost) for r in results),
        "duplicated": sum(len(r.report.duplicated) for r in results),
        "reordered": sum(len(r.report.reordered) for r in results),
        "moved": sum(len(r.report.moved) for r in results),
        "inconsistent_offsets": sum(len(r.report.inconsistent_offsets) for r in results),
        "skipped_by_group": sum(len(r.report.skipped_by_group) for r in results),
        "unexpected": sum(len(r.report.unexpected) for r in results),
        "diverged": sum(len(r.diverged) for r in results),
        "not_healed": sum(not r.healed for r in results),
        "unavailable_p50_s": round(statistics.median(windows), 2) if windows else 0.0,
        "unavailable_max_s": round(max(windows), 2) if windows else 0.0,
        "seeds": [r.seed for r in results],
        "negative_control": scenario.negative_control,
    }


def table(rows: list[dict]) -> str:
    """The rows as a Markdown table."""
    head = (
        "| scenario | broker | runs | acknowledged | lost | duplicated | reordered | moved "
        "| inconsistent offsets | skipped by the group | diverged replicas "
        f"| not healed in {HEAL_TIMEOUT_S} s | unavailable p50 s | max s |"
    )
    lines = [head, "|" + " --- |" * 14]
    for r in rows:
        name = r["scenario"] + (" (negative control)" if r["negative_control"] else "")
        lines.append(
            f"| {name} | {r.get('broker', KAFKETTE)} | {r['runs']} | {r['acknowledged']:,} | {r['lost']} | "
            f"{r['duplicated']} | "
            f"{r['reordered']} | {r['moved']} | {r['inconsistent_offsets']} | {r['skipped_by_group']} | "
            f"{r['diverged']} | {r.get('not_healed', 0)} | "
            f"{r['unavailable_p50_s']} | {r['unavailable_max_s']} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="every scenario once with 2 faults (< 15 min)")
    parser.add_argument("--runs", type=int, help="runs per scenario (default 3, --quick 1)")
    parser.add_argument("--faults", type=int, help="faults per run (default 4, --quick 2)")
    parser.add_argument("--seed", type=int, help="the first run's seed (the others count up from it)")
    parser.add_argument(
        "--scenario", action="append", choices=sorted(SCENARIOS), help="only these (repeatable)"
    )
    parser.add_argument(
        "--loopback",
        action="store_true",
        help="run on 127.0.0.1, not in network namespaces (skips the scenarios that cut the network)",
    )
    parser.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="keep each run's cluster directory (broker logs) under DIR/<scenario>-<seed>",
    )
    parser.add_argument("--results-dir", type=Path, default=RESULTS)
    parser.add_argument(
        "--broker",
        choices=BROKERS_UNDER_TEST,
        default=KAFKETTE,
        help="the system under test: Kafkette (default), Apache Kafka 4.3.1 (every scenario), "
        "or Kafkette's Kafka-protocol listener (kills and pauses); the last two with aiokafka",
    )
    args = parser.parse_args(argv)
    runs = args.runs or (1 if args.quick else 3)
    faults = args.faults or (2 if args.quick else 4)
    if runs < 1 or faults < 1:
        parser.error("--runs and --faults must be >= 1")
    for scenario in SCENARIOS.values():
        for fault in scenario.faults:
            parse_fault(fault)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    logging.getLogger("kafkette").setLevel(logging.ERROR)  # the clients' retries under faults are expected
    logging.getLogger("aiokafka").setLevel(
        logging.CRITICAL
    )  # the same for aiokafka, which logs them as errors
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    again = "" if args.broker == KAFKETTE else f" --broker {args.broker}"
    print(
        f"[chaos] first seed {seed}; replay a run with --seed SEED --scenario NAME --runs 1{again}",
        flush=True,
    )
    namespaces = not args.loopback
    if namespaces and (reason := netns.available()) is not None:
        print(
            f"[chaos] network namespaces cannot be made here ({reason}): running on 127.0.0.1 and "
            f"skipping the scenarios that cut the network",
            flush=True,
        )
        namespaces = False
    rows, failed = [], []
    for scenario in (SCENARIOS[name] for name in (args.scenario or SCENARIOS)):
        if (reason := scenario.skip_reason(args.broker)) is not None:
            print(f"[chaos] SKIPPED {scenario.name} (--broker {args.broker}): {reason}", flush=True)
            continue
        if scenario.needs_network and not namespaces:
            print(
                f"[chaos] SKIPPED {scenario.name}: it cuts the network and needs network namespaces",
                flush=True,
            )
            continue
        results = []
        for _ in range(runs):
            if args.keep:
                results.append(
                    run_once(
                        scenario, seed, faults, args.keep / f"{scenario.name}-{seed}", namespaces, args.broker
                    )
                )
            else:
                with tempfile.TemporaryDirectory(prefix=f"chaos-{scenario.name}-") as tmp:
                    results.append(run_once(scenario, seed, faults, Path(tmp), namespaces, args.broker))
            seed += 1
        rows.append(summarize(scenario, results))
        if scenario.negative_control:
            if all(r.valid for r in results):
                failed.append(f"{scenario.name}: the negative control found no anomaly")
        else:
            failed.extend(
                f"{scenario.name} seed {r.seed}: {r.report.summary()}, diverged {r.diverged}"
                for r in results
                if not r.valid
            )
        failed.extend(
            f"{scenario.name} seed {r.seed}: no full ISR within {HEAL_TIMEOUT_S} s of healing"
            for r in results
            if not r.healed
        )
    print(table(rows))
    args.results_dir.mkdir(parents=True, exist_ok=True)
    out = args.results_dir / f"chaos-{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}.json"
    out.write_text(json.dumps(rows, indent=1) + "\n")
    print(f"[chaos] results: {out}")
    for line in failed:
        print(f"[chaos] FAILED {line}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
