"""The named invariants of the quorum simulation, checked after every step.

Owns: ``InvariantViolation`` (names the invariant broken) and ``InvariantChecker``, which
remembers what the run has established (the leader of each epoch, every committed entry
and the epoch of the leader that committed it, each node's last high watermark, the
controller-state digest at each offset) and checks each node against it:

* ONE_LEADER_PER_EPOCH: no two nodes lead the same epoch;
* HIGH_WATERMARK_IN_LOG: a node's high watermark is within its log (or its snapshot);
* BATCHES_COMMIT_WHOLE: a high watermark never falls inside a proposed batch (a topic is
  never committed without its partitions);
* HIGH_WATERMARK_MONOTONIC: it never goes back, except across a crash (a restarted node
  starts from its snapshot);
* COMMITTED_NEVER_CHANGES: every entry below a high watermark is the entry committed at
  that offset, and a snapshot ends on the committed entry's epoch (log matching);
* LEADER_COMPLETENESS: a leader holds every entry committed in an earlier epoch;
* SAME_APPLIED_STATE: every voter's controller state (replayed, or loaded from a
  snapshot) has the same digest at the same offset;
* COMMITTED_RECORDS_APPLY: every committed record replays into the controller state;
* SNAPSHOTS_LOAD: every snapshot a voter holds (taken or fetched) decodes and replays;
* CORE_NEVER_RAISES: the Raft core answers every input without an exception;
* LIVENESS: with the faults stopped and the network healed, a leader commits a new
  record on every voter within a bound.

Does not own running the nodes (``simulator``).
"""

from __future__ import annotations

from kafkette.controller.raft.kafka_raft_client import KafkaRaftClient
from kafkette.controller.raft.replicated_log import LogEntry, MemoryReplicatedLog

ONE_LEADER_PER_EPOCH = "at most one leader per epoch"
HIGH_WATERMARK_IN_LOG = "the high watermark is within the log"
BATCHES_COMMIT_WHOLE = "a batch commits whole"
HIGH_WATERMARK_MONOTONIC = "the high watermark never goes back"
COMMITTED_NEVER_CHANGES = "a committed entry is never lost or changed"
LEADER_COMPLETENESS = "leader completeness"
SAME_APPLIED_STATE = "every voter's applied state is the same at the same offset"
COMMITTED_RECORDS_APPLY = "every committed record applies"
SNAPSHOTS_LOAD = "every snapshot loads"
CORE_NEVER_RAISES = "the Raft core never raises"
LIVENESS = "liveness"


class InvariantViolation(AssertionError):
    """An invariant broke: ``invariant`` names it, the message says where."""

    def __init__(self, invariant: str, detail: str) -> None:
        super().__init__(f"{invariant}: {detail}")
        self.invariant = invariant


class InvariantChecker:
    """What the run has established so far, and the checks of each node against it."""

    def __init__(self) -> None:
        self.leaders: dict[int, int] = {}  # epoch -> the node that led it
        self.committed: list[LogEntry] = []  # the committed entry at each offset
        self.commit_epochs: list[int] = []  # the epoch of the leader that committed each offset
        self.digests: dict[int, str] = {}  # applied offset -> controller-state digest
        self._high_watermarks: dict[int, int] = {}
        self._verified_by_leader: dict[tuple[int, int], int] = {}  # (node, epoch) -> offsets checked

    def restarted(self, node_id: int) -> None:
        """``node_id`` crashed and restarted: its high watermark may start lower."""
        self._high_watermarks.pop(node_id, None)

    def check_node(self, node_id: int, client: KafkaRaftClient, log: MemoryReplicatedLog) -> None:
        """Every invariant about one node's Raft state, after a step.

        Raises:
            InvariantViolation: one broke.
        """
        epoch, high_watermark = client.epoch, client.high_watermark
        if client.is_leader():
            leader = self.leaders.setdefault(epoch, node_id)
            if leader != node_id:
                raise InvariantViolation(
                    ONE_LEADER_PER_EPOCH, f"nodes {leader} and {node_id} both led epoch {epoch}"
                )
        start, entries = log.log_start_offset(), log.entries()
        if not start <= high_watermark <= start + len(entries):
            raise InvariantViolation(
                HIGH_WATERMARK_IN_LOG,
                f"node {node_id}: {high_watermark} outside [{start}, {start + len(entries)}]",
            )
        if high_watermark > start and entries[high_watermark - start - 1].batch_end_offset != high_watermark:
            last_committed = entries[high_watermark - start - 1]
            raise InvariantViolation(
                BATCHES_COMMIT_WHOLE,
                f"node {node_id}: high watermark {high_watermark} inside the batch of {last_committed}",
            )
        last = self._high_watermarks.get(node_id, 0)
        if high_watermark < last:
            raise InvariantViolation(HIGH_WATERMARK_MONOTONIC, f"node {node_id}: {last} -> {high_watermark}")
        self._high_watermarks[node_id] = high_watermark
        known = len(self.committed)
        if high_watermark > known:
            if start > known:
                raise InvariantViolation(
                    COMMITTED_NEVER_CHANGES,
                    f"node {node_id} committed offsets {known} to {start - 1} unseen, in its snapshot",
                )
            self.committed += entries[known - start : high_watermark - start]
            self.commit_epochs += [epoch] * (high_watermark - known)
        self._check_prefix(node_id, log, high_watermark, COMMITTED_NEVER_CHANGES)
        if client.is_leader():
            self._check_leader_completeness(node_id, epoch, log)

    def _check_prefix(self, node_id: int, log: MemoryReplicatedLog, end: int, invariant: str) -> None:
        """The node's snapshot and entries below ``end`` are the committed ones."""
        start, entries = log.log_start_offset(), log.entries()
        snapshot_id = log.latest_snapshot_id()
        if snapshot_id is not None and self.committed[snapshot_id.offset - 1].epoch != snapshot_id.epoch:
            raise InvariantViolation(
                invariant,
                f"node {node_id}: snapshot {snapshot_id} does not end on the "
                f"committed {self.committed[snapshot_id.offset - 1]}",
            )
        if end > start and entries[: end - start] != self.committed[start:end]:
            offset = next(o for o in range(start, end) if entries[o - start] != self.committed[o])
            raise InvariantViolation(
                invariant,
                f"node {node_id} offset {offset}: {entries[offset - start]} "
                f"!= committed {self.committed[offset]}",
            )

    def _check_leader_completeness(self, node_id: int, epoch: int, log: MemoryReplicatedLog) -> None:
        """Committed offsets of earlier epochs are in the leader's log; its log only grows while it
        leads, so each offset is checked once per leadership."""
        checked = self._verified_by_leader.get((node_id, epoch), 0)
        end = checked
        while end < len(self.committed) and self.commit_epochs[end] < epoch:
            end += 1
        if end > checked:
            if end > log.end_offset():
                raise InvariantViolation(
                    LEADER_COMPLETENESS,
                    f"leader {node_id} of epoch {epoch} ends at {log.end_offset()}, {end - 1} is committed",
                )
            self._check_prefix(node_id, log, end, LEADER_COMPLETENESS)
            self._verified_by_leader[(node_id, epoch)] = end

    def check_applied_state(self, node_id: int, offset: int, digest: str) -> None:
        """The controller state of ``node_id`` after the entries below ``offset`` has ``digest``.

        Raises:
            InvariantViolation: another voter had another state at ``offset``.
        """
        known = self.digests.setdefault(offset, digest)
        if known != digest:
            raise InvariantViolation(
                SAME_APPLIED_STATE, f"node {node_id} at offset {offset}: {digest} != {known}"
            )
