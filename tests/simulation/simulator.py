"""A deterministic simulation of the metadata quorum, in the manner of FoundationDB's simulator
and TigerBeetle's VOPR.

Owns: ``Simulation`` (N voters of ``KafkaRaftClient``, each with an in-memory log, a
quorum-state store and a ``ControllerContext`` that applies committed metadata records),
one seeded scheduler with a simulated clock, a network that delays, drops, duplicates and
reorders messages and partitions nodes, crashes that lose what was not flushed, a
workload that proposes metadata records on the leader, and the invariant checks after
every step (``InvariantViolation`` names the one broken).  Same seed, same run: the trace
hash of two runs of one seed is equal.

Phases: a safety phase with faults, then a liveness phase with every node up and the
network healed, in which a leader must be elected and a new record committed on every
node within ``LIVENESS_BOUND_MS`` of simulated time.
"""

from __future__ import annotations

import hashlib
import heapq
import random
from dataclasses import dataclass, field
from typing import Any

from kafkette.controller.controller_context import ControllerContext
from kafkette.controller.metadata_records import (
    ConfigRecord,
    PartitionRecord,
    RegisterBrokerRecord,
    TopicRecord,
)
from kafkette.controller.raft.kafka_raft_client import KafkaRaftClient, LeaderChange
from kafkette.controller.raft.quorum_state import LeaderState
from kafkette.controller.raft.quorum_state_store import MemoryQuorumStateStore
from kafkette.controller.raft.raft_config import RaftConfig
from kafkette.controller.raft.replicated_log import LogEntry, MemoryReplicatedLog

TICK_MS = 10
LIVENESS_BOUND_MS = 20_000
CONFIG = RaftConfig(election_timeout_ms=300, fetch_timeout_ms=600, election_backoff_max_ms=300,
                    request_timeout_ms=200, max_fetch_entries=16)


class InvariantViolation(AssertionError):
    """An invariant broke: ``invariant`` names it, the message says where."""

    def __init__(self, invariant: str, detail: str) -> None:
        super().__init__(f"{invariant}: {detail}")
        self.invariant = invariant


@dataclass
class Faults:
    """Probabilities per message or per step of the safety phase."""

    drop: float = 0.05
    duplicate: float = 0.03
    max_delay_ms: int = 60
    crash: float = 0.004
    restart: float = 0.05
    partition: float = 0.01
    heal: float = 0.05


@dataclass
class Node:
    node_id: int
    log: MemoryReplicatedLog = field(default_factory=MemoryReplicatedLog)
    store: MemoryQuorumStateStore = field(default_factory=MemoryQuorumStateStore)
    client: KafkaRaftClient | None = None
    context: ControllerContext | None = None
    applied: int = 0
    last_high_watermark: int = 0


def context_digest(context: ControllerContext) -> str:
    """A canonical digest of the controller state a record stream builds."""
    brokers = sorted((b.broker_id, b.broker_epoch, b.fenced) for b in context.brokers.values())
    topics = sorted((t.name, t.topic_id, t.num_partitions, tuple(sorted(t.configs.items())))
                    for t in context.topics.values())
    partitions = sorted((str(tp), tuple(p.replicas), tuple(p.isr), p.leader, p.leader_epoch)
                        for tp, p in context.partitions.items())
    return hashlib.sha256(repr((brokers, topics, partitions)).encode()).hexdigest()[:16]


class Simulation:
    """One seeded run.

    Args:
        seed: everything random derives from it.
        voters: 3 or 5.
        safety_steps: ticks of ``TICK_MS`` with faults on.
        faults: fault probabilities.
        client_factory: builds a node's Raft client (the tests swap in a broken one to show the
            checker sees bugs).
    """

    def __init__(self, seed: int, voters: int = 3, safety_steps: int = 600, faults: Faults | None = None,
                 client_factory: Any = KafkaRaftClient) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.voter_ids = frozenset(range(1, voters + 1))
        self.nodes = {i: Node(i) for i in sorted(self.voter_ids)}
        self.safety_steps = safety_steps
        self.faults = faults or Faults()
        self._client_factory = client_factory
        self.now_ms = 0
        self._queue: list[tuple[int, int, int, int, Any]] = []
        self._seq = 0
        self._cut: set[frozenset[int]] = set()
        self._leaders: dict[int, int] = {}
        self._committed: list[LogEntry] = []
        self._commit_epochs: list[int] = []  # the epoch of the node that first saw each offset committed
        self._digests: dict[int, str] = {}
        self._next_id = 1
        self._trace = hashlib.sha256()
        for node in self.nodes.values():
            self._start(node)

    # ------------------------------------------------------------------ lifecycle

    def _start(self, node: Node) -> None:
        node.client = self._client_factory(node.node_id, self.voter_ids, node.log, node.store, CONFIG,
                                           random.Random(self.rng.getrandbits(32)), self.now_ms)
        node.context = ControllerContext(lambda: 0, lambda: f"[sim node {node.node_id}]")
        node.applied = 0
        node.last_high_watermark = 0

    def _crash(self, node: Node) -> None:
        node.client = None
        node.log.crash()
        self._note(f"crash {node.node_id}")

    def _send(self, source: int, destination: int, message: Any, faults: Faults | None) -> None:
        if frozenset((source, destination)) in self._cut:
            return
        copies = 1
        if faults is not None:
            if self.rng.random() < faults.drop:
                return
            if self.rng.random() < faults.duplicate:
                copies = 2
        for _ in range(copies):
            delay = self.rng.randint(1, faults.max_delay_ms if faults else 20)
            self._seq += 1
            heapq.heappush(self._queue, (self.now_ms + delay, self._seq, source, destination, message))

    # ------------------------------------------------------------------ one tick

    def step(self, faults: Faults | None) -> None:
        """Advance ``TICK_MS``: deliver due messages, inject faults, propose, poll, apply, check."""
        self.now_ms += TICK_MS
        while self._queue and self._queue[0][0] <= self.now_ms:
            _, _, source, destination, message = heapq.heappop(self._queue)
            node = self.nodes[destination]
            if node.client is None or frozenset((source, destination)) in self._cut:
                continue
            self._note(f"deliver {source}->{destination} {type(message).__name__}")
            for out in node.client.handle(source, message, self.now_ms):
                self._send(destination, out.destination, out.message, faults)
        if faults is not None:
            self._inject(faults)
        self._propose()
        for node in self.nodes.values():
            if node.client is not None:
                for out in node.client.poll(self.now_ms):
                    self._send(node.node_id, out.destination, out.message, faults)
        self._apply_and_check()

    def _inject(self, faults: Faults) -> None:
        for node in self.nodes.values():
            if node.client is not None and self.rng.random() < faults.crash:
                self._crash(node)
            elif node.client is None and self.rng.random() < faults.restart:
                self._start(node)
                self._note(f"restart {node.node_id}")
        if self.rng.random() < faults.partition:
            a, b = self.rng.sample(sorted(self.voter_ids), 2)
            self._cut.add(frozenset((a, b)))
            self._note(f"cut {a}-{b}")
        if self._cut and self.rng.random() < faults.heal:
            self._cut.clear()
            self._note("heal")

    def _propose(self) -> None:
        leaders = [n for n in self.nodes.values() if n.client is not None and n.client.is_leader()]
        if not leaders or self.rng.random() > 0.3:
            return
        node = self.rng.choice(leaders)
        assert node.client is not None and node.context is not None
        n = self._next_id
        self._next_id += 1
        kind = self.rng.randrange(3)
        if kind == 0:
            records: list[Any] = [RegisterBrokerRecord(n, n, f"incarnation-{n}", "127.0.0.1", 9000 + n)]
        elif kind == 1 or not node.context.topics:
            records = [TopicRecord(f"t{n}", f"id-{n}"), PartitionRecord(f"t{n}", 0, [], [], -1)]
        else:
            topic = self.rng.choice(sorted(node.context.topics))
            records = [ConfigRecord("topic", topic, "retention.ms", str(n))]
        node.client.propose(records, self.now_ms)
        self._note(f"propose {node.node_id} {len(records)}")

    # ------------------------------------------------------------------ invariants

    def _apply_and_check(self) -> None:
        for node in self.nodes.values():
            client = node.client
            if client is None:
                continue
            if isinstance(client.state, LeaderState):
                leader = self._leaders.setdefault(client.epoch, node.node_id)
                if leader != node.node_id:
                    raise InvariantViolation("at most one leader per epoch",
                                             f"nodes {leader} and {node.node_id} both led epoch {client.epoch}")
            if client.high_watermark < node.last_high_watermark:
                raise InvariantViolation("the high watermark never goes back",
                                         f"node {node.node_id}: {node.last_high_watermark} -> {client.high_watermark}")
            node.last_high_watermark = client.high_watermark
            entries = node.log.entries()
            if client.high_watermark > len(entries):
                raise InvariantViolation("the high watermark is within the log",
                                         f"node {node.node_id}: {client.high_watermark} > {len(entries)}")
            for entry in entries[len(self._committed):client.high_watermark]:
                self._committed.append(entry)
                self._commit_epochs.append(client.epoch)
            for offset in range(client.high_watermark):
                if entries[offset] != self._committed[offset]:
                    raise InvariantViolation("a committed entry is never lost or changed",
                                             f"node {node.node_id} offset {offset}: {entries[offset]} "
                                             f"!= committed {self._committed[offset]}")
            self._apply(node, entries, client.high_watermark)
        for node in self.nodes.values():  # committed in epoch T: in the log of every leader of a later epoch
            if node.client is not None and node.client.is_leader():
                entries = node.log.entries()
                epoch = node.client.epoch
                for offset, (entry, committed_in) in enumerate(zip(self._committed, self._commit_epochs, strict=True)):
                    if committed_in < epoch and (offset >= len(entries) or entries[offset] != entry):
                        raise InvariantViolation("leader completeness",
                                                 f"leader {node.node_id} of epoch {epoch} lacks offset {offset}, "
                                                 f"committed by epoch {committed_in}")

    def _apply(self, node: Node, entries: list[LogEntry], high_watermark: int) -> None:
        assert node.context is not None
        while node.applied < high_watermark:
            payload = entries[node.applied].payload
            if not isinstance(payload, LeaderChange):
                node.context.replay(payload)
            digest = context_digest(node.context)
            known = self._digests.setdefault(node.applied, digest)
            if known != digest:
                raise InvariantViolation("every voter's applied state is the same at the same offset",
                                         f"node {node.node_id} at offset {node.applied}: {digest} != {known}")
            node.applied += 1

    def _note(self, event: str) -> None:
        self._trace.update(f"{self.now_ms} {event}\n".encode())

    # ------------------------------------------------------------------ the run

    def run(self) -> str:
        """The safety phase, then the liveness phase.

        Returns:
            The trace hash (same seed, same hash).

        Raises:
            InvariantViolation: an invariant broke (the message names it).
        """
        for _ in range(self.safety_steps):
            self.step(self.faults)
        self._cut.clear()
        for node in self.nodes.values():
            if node.client is None:
                self._start(node)
        deadline = self.now_ms + LIVENESS_BOUND_MS
        target: tuple[int, int] | None = None
        while self.now_ms < deadline:
            self.step(None)
            leaders = [n for n in self.nodes.values() if n.client is not None and n.client.is_leader()]
            if target is None and leaders:
                leader = leaders[0]
                assert leader.client is not None
                _, last = leader.client.propose([RegisterBrokerRecord(10_000, 1, "liveness", "127.0.0.1", 1)],
                                                self.now_ms)
                target = (leader.client.epoch, last)
            if target is not None and all(n.client is not None and n.client.high_watermark > target[1]
                                          for n in self.nodes.values()):
                if len(self._committed) > target[1] and self._committed[target[1]].epoch == target[0]:
                    return self._trace.hexdigest()
                target = None  # that leader lost its entry before it committed: propose again
        raise InvariantViolation("liveness", f"no record committed on every node within {LIVENESS_BOUND_MS} ms of "
                                             "a healed network")
