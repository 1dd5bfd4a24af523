"""The quorum simulation in CI: 1,000 seeds of three voters and 100 of five (6 s of faults each), and
100 longer ones (30 s of faults), with every invariant holding; replay by seed; and the checker
catching deliberately broken Raft cores.

A failure names each failing seed and the invariant it broke; ``python -m
tests.simulation.run --seed N`` (with the same ``--voters``) replays it exactly.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from kafkette.controller.raft.kafka_raft_client import KafkaRaftClient
from kafkette.controller.raft.leader_state import LeaderState
from kafkette.controller.raft.quorum_state_store import MemoryQuorumStateStore
from kafkette.controller.raft.raft_messages import FetchSnapshotResponse, Outbound, VoteRequest, VoteResponse
from kafkette.controller.raft.unattached_state import UnattachedState
from kafkette.controller.raft.voted_state import VotedState
from kafkette.protocol.errors import Errors
from tests.simulation.invariants import (
    COMMITTED_NEVER_CHANGES,
    CORE_NEVER_RAISES,
    LEADER_COMPLETENESS,
    ONE_LEADER_PER_EPOCH,
    SAME_APPLIED_STATE,
    SNAPSHOTS_LOAD,
    InvariantViolation,
)
from tests.simulation.run import run_seeds
from tests.simulation.simulator import Simulation

pytestmark = pytest.mark.timeout(600)

SAFETY_STEPS = 600  # 6 s of simulated faults per seed
LONG_SAFETY_STEPS = 3000  # 30 s: longer logs, more snapshots and elections per seed


def _failures(report, voters: int) -> str:
    lines = [f"seed={seed} {message}" for seed, _, message in report.failures]
    return "\n".join([*lines, f"replay one with: python -m tests.simulation.run --voters {voters} --seed N"])


def test_a_thousand_seeds_of_three_voters_keep_every_invariant():
    report = run_seeds(range(1000), voters=3, steps=SAFETY_STEPS, verbose=False)
    assert report.failures == [], _failures(report, 3)
    assert report.stats["snapshot chunks"] > 0 and report.stats["crashes"] > 0  # the faults did happen


def test_a_hundred_seeds_of_five_voters_keep_every_invariant():
    report = run_seeds(range(100), voters=5, steps=SAFETY_STEPS, verbose=False)
    assert report.failures == [], _failures(report, 5)


def test_a_hundred_long_seeds_of_three_voters_keep_every_invariant():
    report = run_seeds(range(1000, 1100), voters=3, steps=LONG_SAFETY_STEPS, verbose=False)
    assert report.failures == [], _failures(report, 3) + f" --steps {LONG_SAFETY_STEPS}"


def test_a_seed_replays_the_same_run():
    assert Simulation(42).run() == Simulation(42).run()
    assert Simulation(42).run() != Simulation(43).run()


class CommitsWithoutMajority(KafkaRaftClient):
    """Broken on purpose: the leader commits what it alone has flushed."""

    def _maybe_advance_high_watermark(self, state: LeaderState) -> None:
        self.high_watermark = max(self.high_watermark, state.replicas[self.node_id].end_offset)


class VotesForEveryone(KafkaRaftClient):
    """Broken on purpose: grants every candidate of an epoch, not only the first."""

    def _handle_vote_request(self, source: int, request: VoteRequest, now_ms: int) -> VoteResponse:
        if request.replica_epoch > self.epoch:
            self._become_unattached(request.replica_epoch, now_ms)
        if request.replica_epoch == self.epoch and isinstance(self.state, (UnattachedState, VotedState)):
            return VoteResponse(Errors.NONE, -1, self.epoch, True)
        return super()._handle_vote_request(source, request, now_ms)


class IgnoresLogUpToDate(KafkaRaftClient):
    """Broken on purpose: grants a vote whatever the candidate's log (no up-to-date check)."""

    def _handle_vote_request(self, source: int, request: VoteRequest, now_ms: int) -> VoteResponse:
        return super()._handle_vote_request(source, replace(request, last_offset_epoch=2**31 - 1), now_ms)


class InstallsSnapshotAfterOneChunk(KafkaRaftClient):
    """Broken on purpose: a follower installs the snapshot it fetches after the first chunk."""

    def _handle_fetch_snapshot_response(
        self, source: int, response: FetchSnapshotResponse, now_ms: int
    ) -> list[Outbound]:
        whole = replace(response, size=response.position + len(response.unaligned_records))
        return super()._handle_fetch_snapshot_response(source, whole, now_ms)


def forgets_its_vote(node_id, voters, log, store, config, rng, now_ms) -> KafkaRaftClient:
    """Broken on purpose: the quorum state is not durable, so a restarted voter forgets its epoch
    and its vote and may vote again in the same epoch."""
    return KafkaRaftClient(node_id, voters, log, MemoryQuorumStateStore(), config, rng, now_ms)


@pytest.mark.parametrize(
    ("broken", "invariants"),
    [
        (CommitsWithoutMajority, {COMMITTED_NEVER_CHANGES, LEADER_COMPLETENESS}),
        (
            VotesForEveryone,
            {ONE_LEADER_PER_EPOCH, COMMITTED_NEVER_CHANGES, LEADER_COMPLETENESS, SAME_APPLIED_STATE},
        ),
        (IgnoresLogUpToDate, {COMMITTED_NEVER_CHANGES, LEADER_COMPLETENESS}),
        (
            forgets_its_vote,
            {ONE_LEADER_PER_EPOCH, COMMITTED_NEVER_CHANGES, LEADER_COMPLETENESS, CORE_NEVER_RAISES},
        ),
        (InstallsSnapshotAfterOneChunk, {SNAPSHOTS_LOAD, SAME_APPLIED_STATE}),
    ],
    ids=[
        "commits-without-majority",
        "votes-for-everyone",
        "ignores-log-up-to-date",
        "forgets-its-vote",
        "installs-snapshot-after-one-chunk",
    ],
)
def test_the_checker_sees_a_broken_core_and_the_seed_replays_it(broken, invariants):
    name = getattr(broken, "__name__", str(broken))
    for seed in range(300):
        try:
            Simulation(seed, client_factory=broken).run()
        except InvariantViolation as first:
            assert first.invariant in invariants, str(first)
            with pytest.raises(InvariantViolation) as again:
                Simulation(seed, client_factory=broken).run()
            assert str(again.value) == str(first)
            return
    pytest.fail(f"{name} broke no invariant in 300 seeds")


def test_a_failing_seed_prints_the_seed_and_the_invariant(capsys):
    report = run_seeds(range(6), client_factory=CommitsWithoutMajority)
    assert report.failures, "the broken core passed six seeds"
    seed, invariant, message = report.failures[0]
    assert f"seed={seed} {invariant}: " in capsys.readouterr().out and message.startswith(invariant)
