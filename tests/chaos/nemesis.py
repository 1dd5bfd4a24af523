"""The chaos harness's nemesis: faults injected into a real LocalCluster, and healed.

A fault is ``kind:target``.  Kinds: ``kill`` (SIGKILL, the node restarted after the hold)
and ``pause`` (SIGSTOP, SIGCONT after the hold: longer than ``broker.session.timeout.ms``
and ``replica.lag.time.max.ms``, so the node is fenced and dropped from the ISR while its
process and sockets live on, Jepsen's ``pause``); on a cluster in network namespaces
(``tests/chaos/netns.py``) also ``partition`` (the node cut from every other node while the
clients still reach it: a minority of one, Jepsen's ``partition`` and Trogdor's
``NetworkPartitionFaultSpec``) and ``client-partition`` (the clients cut from the node while
the nodes still talk); on a cluster whose log dirs are size-capped tmpfs mounts also
``disk-full`` (the node's filesystem filled to the last byte; healed by deleting the filler
and restarting the node, since a log taken offline by a failed write stays offline until the
broker restarts, as an offline log dir does in Kafka); on a cluster started with the
clock-offset library (``tests/chaos/clock.py``) also ``clock`` (the node's wall clock jumps 1 to 10 minutes
forward or back, its monotonic clock untouched; healed by putting it back); on a cluster
started with the slow-fsync library (``tests/chaos/slow_disk.py``) also ``slow-disk``
(every fsync of the node waits 0.2 to 1 s; healed by removing the wait).  Targets: ``leader`` (the leader of a
partition of the workload's topic), ``controller`` (the active controller, the quorum's
leader) and ``random`` (any node).  Choices come from the run's seeded ``random.Random``,
so a run replays from its seed (the cluster's own timing aside).

The nemesis finds its targets through a ``Locator`` (the leaders of the topic's partitions and
the active controller): ``KafketteLocator`` asks Kafkette with its SDK, ``KafkaLocator``
(``tests/chaos/kafka_cluster.py``) asks Apache Kafka with Metadata and DescribeQuorum.  It acts on
the nodes through the cluster's ``broker_ids``, ``pid``, ``is_running``, ``stop_broker`` and
``start_broker`` (a LocalCluster, or ``KafkaPeerCluster`` over Apache Kafka's JVMs).
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from kafkette.client import AdminClient, KafkaError, LocalCluster
from kafkette.client.topic_specs import PartitionInfo
from tests.chaos.clock import NodeClocks
from tests.chaos.netns import CLIENTS, NamespaceNetwork
from tests.chaos.node_dials import NodeDials
from tests.chaos.slow_disk import SlowDisks
from tests.cluster_helpers import describe_partitions
from tests.disk_helpers import fill, free

logger = logging.getLogger(__name__)

KINDS = ("kill", "pause", "partition", "client-partition", "disk-full", "clock", "slow-disk")
NETWORK_KINDS = ("partition", "client-partition")
TARGETS = ("leader", "controller", "random")


def parse_fault(text: str) -> tuple[str, str]:
    """``"kill:leader"`` -> ``("kill", "leader")``.

    Raises:
        ValueError: an unknown kind or target.
    """
    kind, _, target = text.partition(":")
    if kind not in KINDS or target not in TARGETS:
        raise ValueError(f"fault {text!r}: expected KIND:TARGET with KIND in {KINDS} and TARGET in {TARGETS}")
    return kind, target


class Locator(Protocol):
    """Where a cluster's leaders are: the nemesis's only view of the cluster's metadata."""

    async def partitions(self, topic: str) -> list[PartitionInfo]:
        """The partitions of ``topic`` (leader, replicas, ISR), sorted by partition id (3 s bound).

        Raises:
            KafkaError, TimeoutError, OSError: no node answered.
        """
        ...

    async def active_controller(self) -> int:
        """The active controller's node id: the leader of the metadata quorum (KRaft's
        ``__cluster_metadata`` partition 0), 3 s bound.

        Raises:
            KafkaError, TimeoutError, OSError: no node answered, or the quorum has no leader.
        """
        ...


class KafketteLocator:
    """A ``Locator`` over Kafkette's own protocol (its SDK's DescribeTopics and DescribeQuorum)."""

    def __init__(self, bootstrap_servers: str) -> None:
        self.bootstrap_servers = bootstrap_servers

    async def partitions(self, topic: str) -> list[PartitionInfo]:
        return await describe_partitions(self.bootstrap_servers, topic, request_timeout_ms=3000)

    async def active_controller(self) -> int:
        async with AdminClient(bootstrap_servers=self.bootstrap_servers, request_timeout_ms=3000) as admin:
            return (await admin.describe_metadata_quorum(timeout_ms=3000)).leader_id


@dataclass
class Injected:
    """One fault as injected: what, on which node, from when (``time.monotonic()`` s) and for how long."""

    fault: str
    node: int
    started_s: float
    hold_s: float


class Nemesis:
    """Injects faults into ``cluster`` one at a time and heals each after its hold.

    Args:
        cluster: the running LocalCluster (or ``KafkaPeerCluster``).
        topic: the workload's topic (for ``leader`` targets).
        rng: the run's seeded randomness.
        hold_s: (min, max) seconds a fault lasts.
        network: the namespaces the cluster runs in (needed by ``partition`` faults).
        disks: ``{node id: mount point of its log dir's tmpfs}`` (needed by ``disk-full``).
        clocks: the nodes' wall-clock offsets (needed by ``clock``).
        slow_disks: the nodes' fsync delays (needed by ``slow-disk``).
        locator: finds leaders and the controller (by default ``KafketteLocator`` on the cluster).
    """

    def __init__(
        self,
        cluster: LocalCluster,
        topic: str,
        rng: random.Random,
        hold_s: tuple[float, float] = (4.0, 6.0),
        network: NamespaceNetwork | None = None,
        disks: dict[int, Path] | None = None,
        clocks: NodeClocks | None = None,
        slow_disks: SlowDisks | None = None,
        locator: Locator | None = None,
    ) -> None:
        self.cluster = cluster
        self.locator = locator or KafketteLocator(cluster.bootstrap_servers)
        self.network = network
        self.disks = disks or {}
        self.clocks = clocks
        self.slow_disks = slow_disks
        self.full: set[int] = set()
        self.topic = topic
        self.rng = rng
        self.hold_s = hold_s
        self.paused: set[int] = set()
        self.killed: set[int] = set()
        self.injected: list[Injected] = []

    async def _target(self, target: str) -> int:
        nodes = [n for n in self.cluster.broker_ids if n not in self.paused and n not in self.killed]
        try:
            if target == "leader":
                partitions = await self.locator.partitions(self.topic)
                leaders = sorted({p.leader for p in partitions if p.leader in nodes})
                if leaders:
                    return self.rng.choice(leaders)
            elif target == "controller":
                leader = await self.locator.active_controller()
                if leader in nodes:
                    return leader
        except (KafkaError, TimeoutError, OSError) as exc:
            logger.warning("[Nemesis] could not find the %s (%s); choosing a random node", target, exc)
        return self.rng.choice(nodes)

    async def inject(self, fault: str) -> Injected:
        """Inject one fault, hold it, heal it; returns what was done.

        Raises:
            ValueError: a malformed ``fault``, or a network fault without a ``network``.
        """
        kind, target = parse_fault(fault)
        if kind in NETWORK_KINDS and self.network is None:
            raise ValueError(f"fault {fault!r} needs the cluster in network namespaces")
        if kind == "disk-full" and not self.disks:
            raise ValueError(f"fault {fault!r} needs log dirs on tmpfs mounts")
        if kind == "clock" and self.clocks is None:
            raise ValueError(f"fault {fault!r} needs the nodes started with the clock-offset library")
        if kind == "slow-disk" and self.slow_disks is None:
            raise ValueError(f"fault {fault!r} needs the nodes started with the slow-fsync library")
        node = await self._target(target)
        hold = self.rng.uniform(*self.hold_s)
        pid = self.cluster.pid(node)
        injected = Injected(fault, node, time.monotonic(), hold)
        self.injected.append(injected)
        logger.info("[Nemesis] %s on node %d for %.1f s", fault, node, hold)
        if kind == "kill":
            self.killed.add(node)
            await asyncio.to_thread(self.cluster.stop_broker, node, True)
            await asyncio.sleep(hold)
            await asyncio.to_thread(self.cluster.start_broker, node)
            self.killed.discard(node)
        elif kind in ("clock", "slow-disk"):
            dials, setting = self._dial_setting(kind, node)
            dials.turn(node, setting)
            try:
                await asyncio.sleep(hold)
            finally:
                dials.put_back(node)
        elif kind == "disk-full":
            self.full.add(node)
            written = await asyncio.to_thread(fill, self.disks[node])
            logger.info("[Nemesis] filled node %d's disk with %d bytes", node, written)
            await asyncio.sleep(hold)
            await asyncio.to_thread(self._heal_disk, node)
        elif kind in NETWORK_KINDS:
            assert self.network is not None
            if kind == "partition":
                self.network.isolate(node)
            else:
                self.network.cut(node, CLIENTS)
            try:
                await asyncio.sleep(hold)
            finally:
                await asyncio.to_thread(self.network.heal)
        else:
            assert pid is not None, f"node {node} is not running"
            self.paused.add(node)
            os.kill(pid, signal.SIGSTOP)
            try:
                await asyncio.sleep(hold)
            finally:
                os.kill(pid, signal.SIGCONT)
                self.paused.discard(node)
        return injected

    def _dial_setting(self, kind: str, node: int) -> tuple[NodeDials, str]:
        """The dials a ``clock`` or ``slow-disk`` fault turns and the setting drawn for it."""
        if kind == "clock":
            assert self.clocks is not None
            offset = self.rng.choice((-1, 1)) * self.rng.randint(60, 600)
            logger.info("[Nemesis] node %d's wall clock jumps %+d s", node, offset)
            return self.clocks, f"{offset:+d}"
        assert self.slow_disks is not None
        delay = self.rng.choice((200, 500, 1000))
        logger.info("[Nemesis] node %d's fsync waits %d ms", node, delay)
        return self.slow_disks, str(delay)

    def _heal_disk(self, node: int) -> None:
        """Free the node's disk and restart it (cleanly; its offline logs come back at the start)."""
        free(self.disks[node])
        self.cluster.stop_broker(node, hard=False)
        self.cluster.start_broker(node)
        self.full.discard(node)

    def heal(self) -> None:
        """Reconnect every cut, free every full disk, resume every paused node and restart every
        killed one (after a cancelled ``inject``)."""
        if self.network is not None:
            self.network.heal()
        for dials in (self.clocks, self.slow_disks):
            for node in list(dials.turned if dials is not None else ()):
                dials.put_back(node)
        for node in list(self.full):
            self._heal_disk(node)
        for node in list(self.paused):
            pid = self.cluster.pid(node)
            if pid is not None:
                os.kill(pid, signal.SIGCONT)
            self.paused.discard(node)
        for node in list(self.killed):
            if not self.cluster.is_running(node):
                self.cluster.start_broker(node)
            self.killed.discard(node)
