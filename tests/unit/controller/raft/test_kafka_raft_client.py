"""KafkaRaftClient's rules, message by message, with a manual clock: votes, the high watermark,
divergence, refusals, and the quorum-state transitions."""

from __future__ import annotations

import random

import pytest

from kafkette.controller.raft.kafka_raft_client import KafkaRaftClient, LeaderChange
from kafkette.controller.raft.quorum_state import (
    CandidateState,
    FollowerState,
    IllegalQuorumTransition,
    LeaderState,
    QuorumState,
    UnattachedState,
    VotedState,
)
from kafkette.controller.raft.quorum_state_store import (
    ElectionState,
    FileQuorumStateStore,
    MemoryQuorumStateStore,
)
from kafkette.controller.raft.raft_config import RaftConfig
from kafkette.controller.raft.raft_messages import (
    BeginQuorumEpochRequest,
    FetchRequest,
    FetchResponse,
    VoteRequest,
    VoteResponse,
)
from kafkette.controller.raft.replicated_log import LogEntry, MemoryReplicatedLog
from kafkette.protocol.errors import Errors, NotLeaderOrFollowerError

CONFIG = RaftConfig(election_timeout_ms=100, fetch_timeout_ms=200, election_backoff_max_ms=100, request_timeout_ms=50)
VOTERS = frozenset({1, 2, 3})


def _client(node_id: int = 1, entries: list[tuple[int, str]] = (), store=None) -> KafkaRaftClient:
    log = MemoryReplicatedLog()
    log.append([LogEntry(i, epoch, payload) for i, (epoch, payload) in enumerate(entries)])
    log.flush()
    return KafkaRaftClient(node_id, VOTERS, log, store or MemoryQuorumStateStore(), CONFIG, random.Random(1), 0)


def _leader(entries: list[tuple[int, str]] = ()) -> KafkaRaftClient:
    """Node 1, leader of epoch 1 after votes from 2."""
    client = _client(1, entries)
    client.poll(1000)  # election timeout: candidate of epoch 1
    client.handle(2, VoteResponse(Errors.NONE, -1, 1, True), 1000)
    assert client.is_leader()
    client.poll(1000)  # flush the LeaderChange entry
    return client


def test_a_vote_is_granted_once_per_epoch_and_written_before_the_answer():
    store = MemoryQuorumStateStore()
    voter = _client(2, store=store)
    granted = voter.handle(1, VoteRequest(1, 1, 0, 0), 10)[0].message
    assert granted.vote_granted and store.read() == ElectionState(1, 1, -1)
    assert isinstance(voter.state, VotedState) and voter.state.voted_id == 1
    other = voter.handle(3, VoteRequest(1, 3, 0, 0), 10)[0].message
    assert not other.vote_granted and other.error_code == Errors.NONE
    assert voter.handle(1, VoteRequest(1, 1, 0, 0), 10)[0].message.vote_granted  # the same candidate again


def test_a_vote_needs_a_log_at_least_as_up_to_date():
    voter = _client(2, [(1, "a"), (2, "b")])
    assert not voter.handle(1, VoteRequest(3, 1, 1, 5), 10)[0].message.vote_granted  # older last epoch
    assert not voter.handle(3, VoteRequest(4, 3, 2, 1), 10)[0].message.vote_granted  # same epoch, shorter
    assert voter.handle(1, VoteRequest(5, 1, 2, 2), 10)[0].message.vote_granted


def test_stale_epochs_and_unknown_voters_are_refused_without_a_state_change():
    voter = _client(2)
    voter.handle(1, VoteRequest(3, 1, 0, 0), 10)
    stale = voter.handle(1, VoteRequest(2, 1, 0, 0), 10)[0].message
    assert (stale.error_code, stale.vote_granted, voter.epoch) == (Errors.FENCED_LEADER_EPOCH, False, 3)
    stranger = voter.handle(9, VoteRequest(4, 9, 9, 9), 10)[0].message
    assert (stranger.error_code, voter.epoch) == (Errors.INCONSISTENT_VOTER_SET, 3)
    assert voter.handle(9, BeginQuorumEpochRequest(9, 5), 10)[0].message.error_code == Errors.INCONSISTENT_VOTER_SET
    assert voter.handle(1, BeginQuorumEpochRequest(1, 2), 10)[0].message.error_code == Errors.FENCED_LEADER_EPOCH
    assert voter.epoch == 3


def test_a_candidate_with_a_majority_leads_and_opens_its_epoch_with_a_leader_change():
    leader = _leader()
    first = leader.log.read(0, 1)[0]
    assert (first.epoch, first.payload) == (1, LeaderChange(1, (1, 2, 3)))
    with pytest.raises(NotLeaderOrFollowerError):
        _client(2).propose(["x"], 0)


def test_the_high_watermark_needs_a_majority_and_an_entry_of_the_current_epoch():
    leader = _leader([(0, "old")])  # an entry of an earlier epoch at offset 0; the LeaderChange at 1
    leader.propose(["a", "b"], 1000)
    leader.poll(1000)
    assert leader.high_watermark == 0  # only the leader has anything
    leader.handle(2, FetchRequest(2, 1, 1, 0), 1010)  # follower 2 has offset 0 only
    assert leader.high_watermark == 0  # the old entry alone is not committed by a leader of epoch 1
    answer = leader.handle(2, FetchRequest(2, 1, 3, 1), 1020)[0].message
    assert leader.high_watermark == 3 and answer.high_watermark == 3


def test_a_follower_truncates_where_the_leader_says_its_log_diverges():
    leader = _leader([(0, "x")])
    diverging = leader.handle(3, FetchRequest(3, 1, 5, 0, correlation_id=7), 1000)[0].message
    assert diverging.diverging_epoch == (0, 1) and diverging.correlation_id == 7
    follower = _client(3, [(0, "x"), (0, "y"), (0, "z")])
    follower.handle(1, BeginQuorumEpochRequest(1, 1), 1000)
    assert isinstance(follower.state, FollowerState)
    request = follower.poll(1000)[0].message
    follower.handle(1, FetchResponse(Errors.NONE, 1, 1, 0, (0, 1), (), request.correlation_id), 1001)
    assert follower.log.end_offset() == 1


def test_a_follower_ignores_an_answer_to_an_older_fetch():
    follower = _client(3)
    follower.handle(1, BeginQuorumEpochRequest(1, 1), 0)
    first = follower.poll(0)[0].message
    second = follower.poll(100)[0].message  # the first timed out: sent again
    assert second.correlation_id != first.correlation_id
    entries = (LogEntry(0, 1, LeaderChange(1, (1, 2, 3))),)
    follower.handle(1, FetchResponse(Errors.NONE, 1, 1, 1, None, entries, first.correlation_id), 101)
    assert follower.log.end_offset() == 0
    follower.handle(1, FetchResponse(Errors.NONE, 1, 1, 1, None, entries, second.correlation_id), 102)
    assert (follower.log.end_offset(), follower.high_watermark) == (1, 1)


def test_a_restarted_voter_keeps_its_vote(tmp_path):
    store = FileQuorumStateStore(tmp_path)
    voter = _client(2, store=store)
    voter.handle(1, VoteRequest(4, 1, 0, 0), 10)
    again = _client(2, store=FileQuorumStateStore(tmp_path))
    assert isinstance(again.state, VotedState) and (again.epoch, again.state.voted_id) == (4, 1)
    assert not again.handle(3, VoteRequest(4, 3, 0, 0), 10)[0].message.vote_granted


def test_quorum_state_refuses_illegal_transitions_and_writes_before_moving():
    store = MemoryQuorumStateStore()
    quorum = QuorumState(1, store, UnattachedState(2, 0))
    with pytest.raises(IllegalQuorumTransition):
        quorum.transition(LeaderState(2, 0, {}, {}, set()))
    with pytest.raises(IllegalQuorumTransition):
        quorum.transition(UnattachedState(1, 0))
    with pytest.raises(IllegalQuorumTransition):
        quorum.transition(CandidateState(4, {1}, set(), 0))  # skips an epoch
    assert store.writes == 0
    quorum.transition(CandidateState(3, {1}, set(), 0))
    assert store.read() == ElectionState(3, 1, -1)
    quorum.transition(LeaderState(3, 0, {}, {}, set()))
    with pytest.raises(IllegalQuorumTransition):
        quorum.transition(FollowerState(3, 2, 0))  # another leader in the epoch this node leads


def test_the_quorum_state_file_is_replaced_whole_and_a_corrupt_one_is_named(tmp_path):
    store = FileQuorumStateStore(tmp_path / "__cluster_metadata-0")
    assert store.read() == ElectionState()
    store.write(ElectionState(7, 2, -1))
    store.write(ElectionState(8, -1, 3))
    assert FileQuorumStateStore(tmp_path / "__cluster_metadata-0").read() == ElectionState(8, -1, 3)
    assert sorted(p.name for p in (tmp_path / "__cluster_metadata-0").iterdir()) == ["quorum-state"]
    store.path.write_text("{")
    with pytest.raises(ValueError, match="is not a quorum-state file"):
        store.read()
