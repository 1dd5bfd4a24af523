"""QuorumState's transition table, move by move, and the role a voter restarts in; the role
states' own rules (vote tallies, the majority offset, check quorum)."""

from __future__ import annotations

import pytest

from kafkette.controller.raft.candidate_state import CandidateState
from kafkette.controller.raft.follower_state import FollowerState
from kafkette.controller.raft.leader_state import LeaderState
from kafkette.controller.raft.quorum_state import IllegalQuorumTransition, QuorumState, restart_role
from kafkette.controller.raft.quorum_state_store import ElectionState, MemoryQuorumStateStore
from kafkette.controller.raft.resigned_state import ResignedState
from kafkette.controller.raft.unattached_state import UnattachedState
from kafkette.controller.raft.voted_state import VotedState

VOTERS = frozenset({1, 2, 3})
ROLES = (UnattachedState, VotedState, CandidateState, LeaderState, FollowerState, ResignedState)

# (from, to) -> the epoch steps allowed (0 = the same epoch); every other move is illegal.
LEGAL = {
    (UnattachedState, UnattachedState): {1, 2},
    (UnattachedState, VotedState): {0},
    (UnattachedState, CandidateState): {1},
    (UnattachedState, FollowerState): {0, 1, 2},
    (VotedState, UnattachedState): {1, 2},
    (VotedState, CandidateState): {1},
    (VotedState, FollowerState): {0, 1, 2},
    (CandidateState, UnattachedState): {1, 2},
    (CandidateState, CandidateState): {1},
    (CandidateState, LeaderState): {0},
    (CandidateState, FollowerState): {0, 1, 2},
    (LeaderState, UnattachedState): {1, 2},
    (LeaderState, FollowerState): {1, 2},
    (LeaderState, ResignedState): {0},
    (FollowerState, UnattachedState): {1, 2},
    (FollowerState, CandidateState): {1},
    (FollowerState, FollowerState): {1, 2},
    (ResignedState, UnattachedState): {1, 2},
    (ResignedState, CandidateState): {1},
    (ResignedState, FollowerState): {1, 2},
}


def _role(kind: type, epoch: int):
    return {
        UnattachedState: lambda: UnattachedState(epoch, 0),
        VotedState: lambda: VotedState(epoch, 2, 0),
        CandidateState: lambda: CandidateState(epoch, 1, VOTERS, 0),
        LeaderState: lambda: LeaderState(epoch, 1, VOTERS, 0, 0),
        FollowerState: lambda: FollowerState(epoch, 2, 0),
        ResignedState: lambda: ResignedState(epoch, 1, 0, (), set()),
    }[kind]()


@pytest.mark.parametrize("old", ROLES, ids=lambda r: r.__name__)
@pytest.mark.parametrize("new", ROLES, ids=lambda r: r.__name__)
@pytest.mark.parametrize("step", [-1, 0, 1, 2])
def test_every_move_of_the_transition_table_and_no_other(old, new, step):
    store = MemoryQuorumStateStore()
    quorum = QuorumState(1, store, _role(old, 5))
    target = _role(new, 5 + step)
    if step in LEGAL.get((old, new), set()):
        quorum.transition(target)
        assert quorum.state is target and store.read() == target.election_state(1) and store.writes == 1
    else:
        with pytest.raises(IllegalQuorumTransition):
            quorum.transition(target)
        assert type(quorum.state) is old and quorum.epoch == 5 and store.writes == 0


def test_a_move_whose_state_cannot_be_written_does_not_happen():
    store = MemoryQuorumStateStore()
    quorum = QuorumState(1, store, UnattachedState(3, 0))
    store.fail_writes = True
    with pytest.raises(OSError):
        quorum.transition(VotedState(3, 2, 0))
    assert isinstance(quorum.state, UnattachedState) and store.read() == ElectionState()


@pytest.mark.parametrize(
    ("stored", "role"),
    [
        (ElectionState(), UnattachedState),
        (ElectionState(4, voted_id=2), VotedState),
        (ElectionState(4, voted_id=1), CandidateState),
        (ElectionState(4, leader_id=3), FollowerState),
        (ElectionState(4, voted_id=1, leader_id=1), ResignedState),
    ],
)
def test_a_voter_restarts_in_the_role_its_stored_state_gives(stored, role):
    assert restart_role(stored, 1) is role


def test_each_role_writes_what_it_must_not_forget():
    assert LeaderState(4, 1, VOTERS, 0, 0).election_state(1) == ElectionState(4, 1, 1)
    assert CandidateState(4, 1, VOTERS, 0).election_state(1) == ElectionState(4, 1, -1)
    assert VotedState(4, 3, 0).election_state(1) == ElectionState(4, 3, -1)
    assert FollowerState(4, 2, 0).election_state(1) == ElectionState(4, -1, 2)
    assert UnattachedState(4, 0).election_state(1) == ElectionState(4, -1, -1)


def test_a_candidate_wins_with_a_majority_and_loses_with_a_majority_of_rejections():
    candidate = CandidateState(2, 1, VOTERS, 0)
    assert not candidate.is_vote_granted() and candidate.unrecorded_voters() == [2, 3]
    candidate.record_rejected_vote(3)
    assert not candidate.is_vote_rejected()
    with pytest.raises(ValueError, match="already rejected"):
        candidate.record_granted_vote(3)
    with pytest.raises(ValueError, match="not a voter"):
        candidate.record_granted_vote(9)
    candidate.record_granted_vote(2)
    assert candidate.is_vote_granted() and candidate.unrecorded_voters() == []
    loser = CandidateState(2, 1, frozenset({1, 2, 3, 4, 5}), 0)
    loser.record_rejected_vote(2)
    loser.record_rejected_vote(3)
    assert not loser.is_vote_rejected()
    loser.record_rejected_vote(4)
    assert loser.is_vote_rejected()


def test_only_unattached_and_the_same_candidate_get_a_vote():
    assert UnattachedState(1, 0).can_grant_vote(2, True)
    assert not UnattachedState(1, 0).can_grant_vote(2, False)
    assert VotedState(1, 2, 0).can_grant_vote(2, True) and not VotedState(1, 2, 0).can_grant_vote(3, True)
    for role in (CandidateState, LeaderState, FollowerState, ResignedState):
        assert not _role(role, 1).can_grant_vote(2, True)


def test_the_majority_offset_counts_only_once_it_is_in_the_leaders_epoch():
    leader = LeaderState(3, 1, frozenset({1, 2, 3, 4, 5}), epoch_start_offset=10, check_quorum_deadline_ms=0)
    leader.update_local_state(14)
    leader.update_replica_state(2, 10, 0)
    leader.update_replica_state(3, 12, 0)
    assert leader.high_watermark_candidate() is None  # a majority (3 of 5) holds 10: not past the epoch start
    leader.update_replica_state(4, 11, 0)
    assert leader.high_watermark_candidate() == 11
    with pytest.raises(ValueError, match="not a voter"):
        leader.update_replica_state(9, 20, 0)
    assert leader.voters_by_descending_end_offset() == (3, 4, 2, 5)


def test_check_quorum_restarts_its_timer_once_a_majority_fetched():
    leader = LeaderState(3, 1, VOTERS, 0, check_quorum_deadline_ms=900)
    assert not leader.has_lost_quorum(899) and leader.has_lost_quorum(900)
    leader.record_voter_fetch(2, 500, 900)
    assert leader.check_quorum_deadline_ms == 1400 and 2 not in leader.unacknowledged
    assert not LeaderState(3, 1, frozenset({1}), 0, 0).has_lost_quorum(10**9)
