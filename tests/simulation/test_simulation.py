"""The quorum simulation: 1,000 seeds of faults with every invariant holding, replay by seed,
and the checker catching deliberately broken Raft cores."""

from __future__ import annotations

import pytest

from kafkette.controller.raft.kafka_raft_client import KafkaRaftClient
from kafkette.controller.raft.quorum_state import LeaderState, UnattachedState, VotedState
from kafkette.controller.raft.raft_messages import VoteRequest, VoteResponse
from kafkette.protocol.errors import Errors
from tests.simulation.run import run_seeds
from tests.simulation.simulator import InvariantViolation, Simulation

pytestmark = pytest.mark.timeout(600)


def test_a_thousand_seeds_of_three_voters_keep_every_invariant():
    failures = run_seeds(range(1000), voters=3, steps=600)
    assert failures == [], "replay with: python -m tests.simulation.run --seed N"


def test_a_hundred_seeds_of_five_voters_keep_every_invariant():
    failures = run_seeds(range(100), voters=5, steps=600)
    assert failures == [], "replay with: python -m tests.simulation.run --voters 5 --seed N"


def test_a_seed_replays_the_same_run():
    assert Simulation(42).run() == Simulation(42).run()
    assert Simulation(42).run() != Simulation(43).run()


class CommitsWithoutMajority(KafkaRaftClient):
    """Broken on purpose: the leader commits what it alone has flushed."""

    def _maybe_advance_high_watermark(self, state: LeaderState) -> None:
        self.high_watermark = max(self.high_watermark, state.end_offsets[self.node_id])


class VotesForEveryone(KafkaRaftClient):
    """Broken on purpose: grants every up-to-date candidate of an epoch, not only the first."""

    def _handle_vote_request(self, source: int, request: VoteRequest, now_ms: int) -> VoteResponse:
        if request.candidate_epoch > self.epoch:
            self.quorum.transition(UnattachedState(request.candidate_epoch, now_ms + 300))
        if request.candidate_epoch == self.epoch and isinstance(self.state, (UnattachedState, VotedState)):
            return VoteResponse(Errors.NONE, -1, self.epoch, True)
        return super()._handle_vote_request(source, request, now_ms)


@pytest.mark.parametrize(("broken", "invariants"), [
    (CommitsWithoutMajority, {"a committed entry is never lost or changed", "leader completeness"}),
    (VotesForEveryone, {"at most one leader per epoch", "a committed entry is never lost or changed",
                        "leader completeness", "every voter's applied state is the same at the same offset"}),
])
def test_the_checker_sees_a_broken_core(broken, invariants):
    for seed in range(200):
        try:
            Simulation(seed, client_factory=broken).run()
        except InvariantViolation as exc:
            assert exc.invariant in invariants, str(exc)
            return
    pytest.fail(f"{broken.__name__} broke no invariant in 200 seeds")
