"""A deterministic simulation of the metadata quorum, in the manner of FoundationDB's simulator
and TigerBeetle's VOPR.

Owns: ``Simulation``: N voters of ``KafkaRaftClient``, each with an in-memory log, a
quorum-state store and a ``ControllerReplica`` applying committed metadata records, driven
by one scheduler seeded with ``random.Random(seed)`` on a simulated clock, over a
``SimulatedNetwork`` that delays, drops, duplicates and reorders messages and cuts links;
crashes that lose what was not flushed (the quorum state and snapshots survive) and
restarts; the ``MetadataWorkload`` proposing on the leader; snapshots taken by each voter
every ``metadata.log.max.record.bytes.between.snapshots`` of applied records (so voters
that fall behind fetch them); and the ``InvariantChecker`` run after every step.  Same
seed, same run: the trace hash of two runs of one seed is equal.

Phases: a safety phase of ``safety_steps`` steps of 10 ms with faults on, then a liveness
phase with every node up and the network healed, in which a leader must be elected, a new
record committed on every voter, and the voters' states converge, within
``LIVENESS_BOUND_MS`` of simulated time.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgpack

from kafkette.controller.raft.kafka_raft_client import KafkaRaftClient
from kafkette.controller.raft.quorum_state_store import MemoryQuorumStateStore
from kafkette.controller.raft.raft_config import RaftConfig
from kafkette.controller.raft.raft_messages import FetchSnapshotResponse
from kafkette.controller.raft.replicated_log import LogEntry, MemoryReplicatedLog
from kafkette.controller.state_machine import IllegalStateTransitionError
from tests.simulation.controller_replica import ControllerReplica, context_digest, encode_snapshot
from tests.simulation.invariants import (
    COMMITTED_RECORDS_APPLY,
    CORE_NEVER_RAISES,
    LIVENESS,
    SAME_APPLIED_STATE,
    SNAPSHOTS_LOAD,
    InvariantChecker,
    InvariantViolation,
)
from tests.simulation.network import Faults, SimulatedNetwork
from tests.simulation.workload import MetadataWorkload

TICK_MS = 10
LIVENESS_BOUND_MS = 20_000
PROPOSE_PROBABILITY = 0.3  # per step of the safety phase, when there is a leader
DIGEST_EVERY = 4  # the applied state is compared at offsets divisible by this, and at every snapshot
CONFIG = RaftConfig(
    election_timeout_ms=300,
    fetch_timeout_ms=600,
    election_backoff_max_ms=300,
    request_timeout_ms=200,
    metadata_log_max_record_bytes_between_snapshots=3000,
    max_fetch_entries=16,
    fetch_snapshot_max_bytes=512,
)


@dataclass
class Node:
    """A voter: what survives a crash (log, quorum state), and the process (client, replica)."""

    node_id: int
    log: MemoryReplicatedLog
    store: MemoryQuorumStateStore
    incarnation: int = 0
    client: KafkaRaftClient | None = None
    replica: ControllerReplica | None = None


ClientFactory = Callable[..., KafkaRaftClient]


class Simulation:
    """One seeded run.

    Args:
        seed: everything random derives from it.
        voters: 3 or 5.
        safety_steps: steps of ``TICK_MS`` with faults on.
        faults: fault probabilities of the safety phase; by default drawn for the seed
            (``Faults.swarm``).
        client_factory: builds a node's Raft client (the tests pass broken ones to show that
            the checker sees bugs).
    """

    def __init__(
        self,
        seed: int,
        voters: int = 3,
        safety_steps: int = 600,
        faults: Faults | None = None,
        client_factory: ClientFactory = KafkaRaftClient,
    ) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.voter_ids = frozenset(range(1, voters + 1))
        self.nodes = {
            i: Node(i, MemoryReplicatedLog(), MemoryQuorumStateStore()) for i in sorted(self.voter_ids)
        }
        self.safety_steps = safety_steps
        self.faults = faults or Faults.swarm(self.rng)
        self.network = SimulatedNetwork(self.rng, sorted(self.voter_ids))
        self.workload = MetadataWorkload(self.rng)
        self.checker = InvariantChecker()
        self.stats: Counter[str] = Counter()
        self.now_ms = 0
        self._client_factory = client_factory
        self._trace = hashlib.sha256()
        for node in self.nodes.values():
            self._start(node)

    # ------------------------------------------------------------------ processes

    def _start(self, node: Node) -> None:
        node.incarnation += 1
        node.client = self._client_factory(
            node.node_id,
            self.voter_ids,
            node.log,
            node.store,
            CONFIG,
            random.Random(self.rng.getrandbits(32)),
            self.now_ms,
        )
        node.replica = ControllerReplica(node.node_id)
        self.checker.restarted(node.node_id)

    def _crash(self, node: Node) -> None:
        node.client = node.replica = None
        node.log.crash()
        self.stats["crashes"] += 1
        self._note(f"crash {node.node_id}")

    def _core(self, node: Node, call: Callable[[KafkaRaftClient], Any]) -> Any:
        """Run ``call`` on the node's client; any exception is a broken invariant."""
        assert node.client is not None
        try:
            return call(node.client)
        except Exception as exc:
            raise InvariantViolation(
                CORE_NEVER_RAISES, f"node {node.node_id}: {type(exc).__name__}: {exc}"
            ) from exc

    def _send(
        self, node: Node, outs: list[Any], reply_to: tuple[int, int] | None, faults: Faults | None
    ) -> None:
        for out in outs:
            if reply_to is not None and out.destination == reply_to[0]:
                destination = reply_to  # an answer travels back on the asker's connection
            else:
                destination = (out.destination, self.nodes[out.destination].incarnation)
            self.network.send(self.now_ms, (node.node_id, node.incarnation), destination, out.message, faults)

    # ------------------------------------------------------------------ one step

    def step(self, faults: Faults | None, propose: bool = True) -> None:
        """Advance ``TICK_MS``: deliver due messages, propose, inject faults, poll, check and apply."""
        self.now_ms += TICK_MS
        for envelope in self.network.due(self.now_ms):
            node, source = self.nodes[envelope.destination], self.nodes[envelope.source]
            if (
                node.client is None
                or node.incarnation != envelope.destination_incarnation
                or source.client is None
                or source.incarnation != envelope.source_incarnation
            ):
                continue  # an end of the connection restarted: what was in flight is lost
            self._note(f"deliver {envelope.source}->{envelope.destination} {type(envelope.message).__name__}")
            if isinstance(envelope.message, FetchSnapshotResponse):
                self.stats["snapshot chunks"] += 1
            outs = self._core(node, lambda c, e=envelope: c.handle(e.source, e.message, self.now_ms))
            self._send(node, outs, (envelope.source, envelope.source_incarnation), faults)
        if propose and self.rng.random() < PROPOSE_PROBABILITY:
            self._propose()
        if faults is not None:
            self._inject(faults)
        for node in self.nodes.values():
            if node.client is not None:
                self._send(node, self._core(node, lambda c: c.poll(self.now_ms)), None, faults)
        for node in self.nodes.values():
            if node.client is not None:
                self.checker.check_node(node.node_id, node.client, node.log)
        for node in self.nodes.values():
            if node.client is not None:
                self._apply(node)

    def _inject(self, faults: Faults) -> None:
        for node in self.nodes.values():
            if node.client is not None and self.rng.random() < faults.crash:
                self._crash(node)
            elif node.client is None and self.rng.random() < faults.restart:
                self._start(node)
                self.stats["restarts"] += 1
                self._note(f"restart {node.node_id}")
        for event in self.network.inject(faults):
            self._note(event)

    def _propose(self) -> list[LogEntry]:
        """Propose the workload's next batch on a leader; the entries appended."""
        leaders = [n for n in self.nodes.values() if n.client is not None and n.client.is_leader()]
        if not leaders:
            return []
        node = self.rng.choice(leaders)
        assert node.client is not None
        start = node.log.end_offset()
        records = self.workload.propose(node.node_id, node.incarnation, node.client, node.log, self.now_ms)
        self._note(f"propose {node.node_id} {[type(r).__name__ for r in records]}")
        return node.log.read(start, len(records))

    def _apply(self, node: Node) -> None:
        """Apply what the node has committed to its controller state; take a snapshot when due."""
        client, replica, log = node.client, node.replica, node.log
        assert client is not None and replica is not None
        snapshot_id = log.latest_snapshot_id()
        if snapshot_id is not None and replica.applied < log.log_start_offset():
            try:
                replica.load_snapshot(snapshot_id, log.read_snapshot(snapshot_id) or b"")
            except (ValueError, TypeError, IllegalStateTransitionError, msgpack.UnpackException) as exc:
                raise InvariantViolation(
                    SNAPSHOTS_LOAD, f"node {node.node_id} snapshot {snapshot_id}: {exc}"
                ) from exc
            self.checker.check_applied_state(node.node_id, replica.applied, context_digest(replica.context))
            self.stats["snapshot loads"] += 1
            self._note(f"load snapshot {node.node_id} {snapshot_id}")
        if replica.applied < client.high_watermark:
            for entry in log.read(replica.applied, client.high_watermark - replica.applied):
                try:
                    replica.apply(entry)
                except (ValueError, IllegalStateTransitionError) as exc:
                    raise InvariantViolation(
                        COMMITTED_RECORDS_APPLY, f"node {node.node_id} offset {entry.offset}: {exc}"
                    ) from exc
                if replica.applied % DIGEST_EVERY == 0:
                    digest = context_digest(replica.context)
                    self.checker.check_applied_state(node.node_id, replica.applied, digest)
        if replica.bytes_since_snapshot >= CONFIG.metadata_log_max_record_bytes_between_snapshots:
            data = encode_snapshot(replica.context)
            snapshot_id = self._core(node, lambda c: c.create_snapshot(replica.applied, data))
            self.checker.check_applied_state(node.node_id, replica.applied, context_digest(replica.context))
            replica.bytes_since_snapshot = 0
            self.stats["snapshots"] += 1
            self._note(f"snapshot {node.node_id} {snapshot_id}")

    def _note(self, event: str) -> None:
        self._trace.update(f"{self.now_ms} {event}\n".encode())

    # ------------------------------------------------------------------ the run

    def run(self) -> str:
        """The safety phase, then the liveness phase.

        Returns:
            The trace hash (same seed, same hash).

        Raises:
            InvariantViolation: an invariant broke (``invariant`` names it).
        """
        for _ in range(self.safety_steps):
            self.step(self.faults)
        self.network.heal()
        for node in self.nodes.values():
            if node.client is None:
                self._start(node)
        deadline = self.now_ms + LIVENESS_BOUND_MS
        target: LogEntry | None = None
        while self.now_ms < deadline:
            self.step(None, propose=False)
            if target is not None and self._lost(target):
                target = None  # its leader lost it before it committed: propose again
            if target is None:
                proposed = self._propose()
                target = proposed[-1] if proposed else None
            elif all(
                n.client is not None and n.client.high_watermark > target.offset for n in self.nodes.values()
            ):
                if self.checker.committed[target.offset] == target:
                    return self._converge(deadline)
                target = None
        raise InvariantViolation(
            LIVENESS, f"no record committed on every voter within {LIVENESS_BOUND_MS} ms of a healed network"
        )

    def _lost(self, entry: LogEntry) -> bool:
        """True when a leader of a later epoch than ``entry``'s does not hold it: it will never commit."""
        for node in self.nodes.values():
            client = node.client
            if (
                client is not None
                and client.is_leader()
                and client.epoch > entry.epoch
                and entry.offset >= node.log.log_start_offset()
            ):
                held = node.log.read(entry.offset, 1)
                if held != [entry]:
                    return True
        return False

    def _converge(self, deadline: int) -> str:
        """Step until every voter has applied the same offset, then compare their states."""
        while self.now_ms < deadline:
            replicas = [n.replica for n in self.nodes.values() if n.replica is not None]
            if len({r.applied for r in replicas}) == 1:
                digests = {context_digest(r.context) for r in replicas}
                if len(digests) > 1:
                    raise InvariantViolation(
                        SAME_APPLIED_STATE,
                        f"voters at offset {replicas[0].applied} differ: {sorted(digests)}",
                    )
                self.stats["committed"] = len(self.checker.committed)
                self.stats["epochs"] = len(self.checker.leaders)
                return self._trace.hexdigest()
            self.step(None, propose=False)
        raise InvariantViolation(LIVENESS, f"voters did not converge within {LIVENESS_BOUND_MS} ms")
