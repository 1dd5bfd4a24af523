"""KafkaRaftClient's rules, message by message, with a manual clock: votes, leadership and the
high watermark, divergence, refusals, check quorum, restarts, and snapshots (KIP-630)."""

from __future__ import annotations

import random

import pytest

from kafkette.controller.raft.candidate_state import CandidateState
from kafkette.controller.raft.follower_state import FollowerState
from kafkette.controller.raft.kafka_raft_client import KafkaRaftClient, LeaderChange
from kafkette.controller.raft.quorum_state_store import (
    ElectionState,
    FileQuorumStateStore,
    MemoryQuorumStateStore,
)
from kafkette.controller.raft.raft_config import RaftConfig
from kafkette.controller.raft.raft_messages import (
    BeginQuorumEpochRequest,
    EndQuorumEpochRequest,
    EndQuorumEpochResponse,
    FetchRequest,
    FetchResponse,
    FetchSnapshotRequest,
    FetchSnapshotResponse,
    VoteRequest,
    VoteResponse,
)
from kafkette.controller.raft.replicated_log import LogEntry, MemoryReplicatedLog, OffsetAndEpoch
from kafkette.controller.raft.resigned_state import ResignedState
from kafkette.controller.raft.voted_state import VotedState
from kafkette.protocol.errors import Errors, IllegalStateError, NotLeaderOrFollowerError

CONFIG = RaftConfig(
    election_timeout_ms=100,
    fetch_timeout_ms=200,
    election_backoff_max_ms=100,
    request_timeout_ms=50,
    fetch_snapshot_max_bytes=4,
)
VOTERS = frozenset({1, 2, 3})


def _client(node_id: int = 1, entries: list[tuple[int, str]] = (), store=None) -> KafkaRaftClient:
    log = MemoryReplicatedLog()
    log.append([LogEntry(i, epoch, payload) for i, (epoch, payload) in enumerate(entries)])
    log.flush()
    store = store or MemoryQuorumStateStore()
    return KafkaRaftClient(node_id, VOTERS, log, store, CONFIG, random.Random(1), 0)


def _leader(entries: list[tuple[int, str]] = ()) -> KafkaRaftClient:
    """Node 1, leader of epoch 1 after the vote of 2, its LeaderChange entry flushed."""
    client = _client(1, entries)
    client.poll(1000)  # the election timer fired: candidate of epoch 1
    client.handle(2, VoteResponse(Errors.NONE, -1, 1, True), 1000)
    assert client.is_leader()
    client.poll(1000)
    return client


def _follower(node_id: int = 2, entries: list[tuple[int, str]] = ()) -> KafkaRaftClient:
    """``node_id``, following leader 1 in epoch 1."""
    client = _client(node_id, entries)
    client.handle(1, BeginQuorumEpochRequest(1, 1), 1000)
    assert isinstance(client.state, FollowerState)
    return client


def _round_trip(leader: KafkaRaftClient, follower: KafkaRaftClient, now_ms: int) -> object:
    """The follower's next request to the leader and the leader's answer back; the answer."""
    request = follower.poll(now_ms)[0].message
    answer = leader.handle(follower.node_id, request, now_ms)[0].message
    follower.handle(1, answer, now_ms)
    return answer


# ------------------------------------------------------------------ votes


def test_a_vote_is_granted_once_per_epoch_and_written_before_the_answer():
    store = MemoryQuorumStateStore()
    voter = _client(2, store=store)
    granted = voter.handle(1, VoteRequest(1, 1, 0, 0), 10)[0].message
    assert granted.vote_granted and store.read() == ElectionState(1, 1, -1)
    assert isinstance(voter.state, VotedState) and voter.state.voted_id == 1
    other = voter.handle(3, VoteRequest(1, 3, 0, 0), 10)[0].message
    assert not other.vote_granted and other.error_code == Errors.NONE
    assert voter.handle(1, VoteRequest(1, 1, 0, 0), 10)[0].message.vote_granted  # the same candidate again


def test_a_vote_that_cannot_be_written_is_not_given():
    store = MemoryQuorumStateStore()
    voter = _client(2, store=store)
    store.fail_writes = True
    with pytest.raises(OSError):
        voter.handle(1, VoteRequest(1, 1, 0, 0), 10)
    assert voter.epoch == 0 and store.read() == ElectionState()


def test_a_candidate_writes_its_own_vote_before_it_asks():
    store = MemoryQuorumStateStore()
    candidate = _client(1, store=store)
    store.fail_writes = True
    with pytest.raises(OSError):
        candidate.poll(1000)
    store.fail_writes = False
    requests = candidate.poll(1000)
    assert store.read() == ElectionState(1, 1, -1)
    assert sorted(out.destination for out in requests) == [2, 3]
    assert requests[0].message == VoteRequest(1, 1, 0, 0)


def test_a_vote_needs_a_log_at_least_as_up_to_date():
    voter = _client(2, [(1, "a"), (2, "b")])
    assert not voter.handle(1, VoteRequest(3, 1, 1, 5), 10)[0].message.vote_granted  # older last epoch
    assert not voter.handle(3, VoteRequest(4, 3, 2, 1), 10)[0].message.vote_granted  # same epoch, shorter
    assert voter.handle(1, VoteRequest(5, 1, 2, 2), 10)[0].message.vote_granted


def test_a_candidate_rejected_by_a_majority_backs_off_and_tries_the_next_epoch():
    candidate = _client(1)
    candidate.poll(1000)
    deadline = candidate.state.election_deadline_ms
    candidate.handle(2, VoteResponse(Errors.NONE, -1, 1, False), 1010)
    candidate.handle(3, VoteResponse(Errors.NONE, -1, 1, False), 1010)
    state = candidate.state
    assert isinstance(state, CandidateState) and state.is_vote_rejected()
    assert 1010 <= state.election_deadline_ms <= min(deadline, 1010 + CONFIG.election_backoff_max_ms)
    candidate.poll(state.election_deadline_ms)
    assert isinstance(candidate.state, CandidateState) and candidate.epoch == 2


def test_a_candidate_with_a_majority_leads_and_opens_its_epoch_with_a_leader_change():
    leader = _leader()
    first = leader.log.read(0, 1)[0]
    assert (first.epoch, first.payload) == (1, LeaderChange(1, (1, 2, 3)))
    with pytest.raises(NotLeaderOrFollowerError):
        _client(2).propose(["x"], 0)


def test_a_voter_that_learns_of_a_higher_epoch_keeps_its_election_timer():
    voter = _client(2)
    deadline = voter.state.election_deadline_ms
    voter.handle(3, VoteRequest(7, 3, 0, 0), 10)  # granted: the timer starts again
    voter.handle(1, VoteRequest(8, 1, -1, 0), 20)  # refused: no reason to wait longer
    assert voter.epoch == 8
    assert voter.state.election_deadline_ms <= max(deadline, 10 + 2 * CONFIG.election_timeout_ms)
    refused_at = voter.state.election_deadline_ms
    voter.handle(1, VoteRequest(9, 1, -1, 0), 30)
    assert voter.state.election_deadline_ms == refused_at


# ------------------------------------------------------------------ refusals


def test_stale_epochs_and_unknown_voters_are_refused_without_a_state_change():
    voter = _client(2)
    voter.handle(1, VoteRequest(3, 1, 0, 0), 10)
    stale = voter.handle(1, VoteRequest(2, 1, 0, 0), 10)[0].message
    assert (stale.error_code, stale.vote_granted, voter.epoch) == (Errors.FENCED_LEADER_EPOCH, False, 3)
    stranger = voter.handle(9, VoteRequest(4, 9, 9, 9), 10)[0].message
    assert (stranger.error_code, voter.epoch) == (Errors.INCONSISTENT_VOTER_SET, 3)
    impostor = voter.handle(3, VoteRequest(4, 1, 9, 9), 10)[0].message  # 3 asks in 1's name
    assert impostor.error_code == Errors.INCONSISTENT_VOTER_SET
    for source, request, error in [
        (9, BeginQuorumEpochRequest(9, 5), Errors.INCONSISTENT_VOTER_SET),
        (1, BeginQuorumEpochRequest(1, 2), Errors.FENCED_LEADER_EPOCH),
        (9, EndQuorumEpochRequest(9, 5, ()), Errors.INCONSISTENT_VOTER_SET),
        (1, EndQuorumEpochRequest(1, 2, ()), Errors.FENCED_LEADER_EPOCH),
    ]:
        assert voter.handle(source, request, 10)[0].message.error_code == error
    assert voter.epoch == 3 and isinstance(voter.state, VotedState)


@pytest.mark.parametrize(
    ("source", "request_epoch", "replica_id", "error"),
    [
        (2, 0, 2, Errors.FENCED_LEADER_EPOCH),
        (2, 2, 2, Errors.UNKNOWN_LEADER_EPOCH),
        (2, 1, 3, Errors.INVALID_REQUEST),
    ],
)
def test_a_fetch_with_a_wrong_epoch_or_sender_is_refused(source, request_epoch, replica_id, error):
    leader = _leader()
    request = FetchRequest(replica_id, request_epoch, 0, 0, correlation_id=5)
    answer = leader.handle(source, request, 1010)[0].message
    assert (answer.error_code, answer.entries, answer.correlation_id) == (error, (), 5)


def test_a_fetch_sent_to_a_follower_is_refused_naming_the_leader():
    answer = _follower(2).handle(3, FetchRequest(3, 1, 0, 0), 1000)[0].message
    assert (answer.error_code, answer.leader_id, answer.leader_epoch) == (Errors.NOT_LEADER_OR_FOLLOWER, 1, 1)


def test_an_unexpected_message_type_is_a_type_error():
    with pytest.raises(TypeError, match="not a Raft message"):
        _client(1).handle(2, "hello", 0)


# ------------------------------------------------------------------ the high watermark


def test_the_high_watermark_needs_a_majority_and_an_entry_of_the_current_epoch():
    leader = _leader([(0, "old")])  # an entry of an earlier epoch at offset 0; the LeaderChange at 1
    leader.propose(["a", "b"], 1000)
    leader.poll(1000)
    assert leader.high_watermark == 0  # only the leader has anything
    leader.handle(2, FetchRequest(2, 1, 1, 0), 1010)  # follower 2 has offset 0 only
    assert leader.high_watermark == 0  # the old entry alone is not committed by a leader of epoch 1
    answer = leader.handle(2, FetchRequest(2, 1, 4, 1), 1020)[0].message
    assert leader.high_watermark == 4 and answer.high_watermark == 4


def test_an_observer_does_not_count_for_the_high_watermark():
    leader = _leader()
    answer = leader.handle(7, FetchRequest(7, 1, 1, 1), 1010)[0].message  # node 7 is no voter
    assert answer.error_code == Errors.NONE and leader.high_watermark == 0


def test_a_follower_commits_up_to_the_leaders_high_watermark_within_its_log():
    leader, follower = _leader(), _follower(2)
    leader.propose(["a", "b", "c"], 1000)
    leader.poll(1000)
    _round_trip(leader, follower, 1001)  # follower gets offsets 0..3
    assert (follower.log.end_offset(), follower.high_watermark) == (4, 0)
    _round_trip(leader, follower, 1002)  # it fetches at 4: committed, and told so
    assert leader.high_watermark == 4 and follower.high_watermark == 4


def test_a_proposal_is_fetched_as_one_whole_batch():
    leader, follower = _leader(), _follower(2)
    leader.propose([f"record-{i}" for i in range(100)], 1000)  # longer than max_fetch_entries
    leader.poll(1000)
    _round_trip(leader, follower, 1001)
    assert follower.log.end_offset() == 101
    assert {e.batch_end_offset for e in follower.log.read(1, 100)} == {101}


# ------------------------------------------------------------------ divergence


def test_a_follower_truncates_where_the_leader_says_its_log_diverges():
    leader = _leader([(0, "x")])
    diverging = leader.handle(3, FetchRequest(3, 1, 5, 0, correlation_id=7), 1000)[0].message
    assert diverging.diverging_epoch == OffsetAndEpoch(1, 0) and diverging.correlation_id == 7
    follower = _follower(3, [(0, "x"), (0, "y"), (0, "z")])
    request = follower.poll(1000)[0].message
    diverging = FetchResponse(
        Errors.NONE, 1, 1, 0, OffsetAndEpoch(1, 0), correlation_id=request.correlation_id
    )
    follower.handle(1, diverging, 1001)
    assert follower.log.end_offset() == 1


def test_a_truncation_below_the_high_watermark_is_refused():
    leader, follower = _leader(), _follower(2)
    leader.propose(["a"], 1000)
    leader.poll(1000)
    _round_trip(leader, follower, 1001)
    _round_trip(leader, follower, 1002)
    assert follower.high_watermark == 2
    request = follower.poll(1100)[0].message  # the next fetch, after the idle backoff
    with pytest.raises(IllegalStateError, match="below the high"):
        follower.handle(
            1,
            FetchResponse(Errors.NONE, 1, 1, 2, OffsetAndEpoch(0, 0), correlation_id=request.correlation_id),
            1101,
        )
    assert follower.log.end_offset() == 2


def test_a_follower_ignores_an_answer_to_an_older_fetch():
    follower = _follower(3)
    first = follower.poll(1000)[0].message
    second = follower.poll(1100)[0].message  # the first timed out: sent again
    assert second.correlation_id != first.correlation_id
    entries = (LogEntry(0, 1, LeaderChange(1, (1, 2, 3))),)

    def answer(request: FetchRequest) -> FetchResponse:
        return FetchResponse(Errors.NONE, 1, 1, 1, entries=entries, correlation_id=request.correlation_id)

    follower.handle(1, answer(first), 1101)
    assert follower.log.end_offset() == 0
    follower.handle(1, answer(second), 1102)
    assert (follower.log.end_offset(), follower.high_watermark) == (1, 1)
    follower.handle(1, answer(second), 1103)
    assert follower.log.end_offset() == 1  # a duplicate changes nothing


# ------------------------------------------------------------------ leadership ends


def test_a_leader_not_fetched_from_by_a_majority_resigns_and_names_its_successors():
    leader = _leader()
    leader.handle(3, FetchRequest(3, 1, 1, 1), 1010)
    deadline = leader.state.check_quorum_deadline_ms
    assert deadline == 1010 + CONFIG.check_quorum_timeout_ms
    out = leader.poll(deadline)
    assert isinstance(leader.state, ResignedState)
    assert {o.destination: o.message for o in out} == {
        2: EndQuorumEpochRequest(1, 1, (3, 2)),
        3: EndQuorumEpochRequest(1, 1, (3, 2)),
    }
    leader.handle(3, EndQuorumEpochResponse(Errors.NONE, -1, 1), deadline + 1)
    assert [o.destination for o in leader.poll(deadline + CONFIG.request_timeout_ms)] == [2]  # 3 answered


def test_end_quorum_epoch_makes_the_first_successor_campaign_at_once():
    first, second = _follower(2), _follower(3)
    first.handle(1, EndQuorumEpochRequest(1, 1, (2, 3)), 1100)
    second.handle(1, EndQuorumEpochRequest(1, 1, (2, 3)), 1100)
    assert first.poll(1100)[0].message == VoteRequest(2, 2, 0, 0)
    assert isinstance(second.poll(1100)[0].message, FetchRequest)  # it waits a backoff first


def test_a_restarted_voter_keeps_its_vote(tmp_path):
    voter = _client(2, store=FileQuorumStateStore(tmp_path))
    voter.handle(1, VoteRequest(4, 1, 0, 0), 10)
    again = _client(2, store=FileQuorumStateStore(tmp_path))
    assert isinstance(again.state, VotedState) and (again.epoch, again.state.voted_id) == (4, 1)
    assert not again.handle(3, VoteRequest(4, 3, 0, 0), 10)[0].message.vote_granted


def test_a_restarted_leader_resigns_its_epoch_and_follows_no_one_in_it():
    store = MemoryQuorumStateStore()
    leader = _client(1, store=store)
    leader.poll(1000)
    leader.handle(2, VoteResponse(Errors.NONE, -1, 1, True), 1000)
    again = KafkaRaftClient(1, VOTERS, MemoryReplicatedLog(), store, CONFIG, random.Random(2), 2000)
    assert isinstance(again.state, ResignedState) and again.epoch == 1
    again.handle(2, BeginQuorumEpochRequest(2, 1), 2001)
    assert isinstance(again.state, ResignedState)
    assert not again.handle(3, VoteRequest(1, 3, 5, 5), 2002)[0].message.vote_granted


# ------------------------------------------------------------------ snapshots


def test_a_snapshot_covers_committed_entries_only_and_moves_the_log_start():
    leader, follower = _leader(), _follower(2)
    leader.propose(["a", "b"], 1000)
    leader.poll(1000)
    with pytest.raises(ValueError, match="above the high watermark"):
        leader.create_snapshot(2, b"state")
    _round_trip(leader, follower, 1001)
    _round_trip(leader, follower, 1002)
    assert leader.create_snapshot(3, b"state") == OffsetAndEpoch(3, 1)
    assert leader.log.log_start_offset() == 3
    with pytest.raises(ValueError, match="not above the log start offset"):
        leader.create_snapshot(3, b"again")


def test_a_follower_below_the_log_start_offset_fetches_the_snapshot_in_chunks():
    leader, follower = _leader(), _follower(2)
    leader.propose(["a", "b"], 1000)
    leader.poll(1000)
    leader.handle(3, FetchRequest(3, 1, 3, 1), 1000)  # voter 3 holds all: committed
    state = b"the state after 3 entries"  # 25 bytes: 7 chunks of 4
    leader.create_snapshot(3, state)
    leader.propose(["c"], 1001)
    leader.poll(1001)
    answer = _round_trip(leader, follower, 1002)
    assert answer.snapshot_id == OffsetAndEpoch(3, 1) and answer.entries == ()
    chunks = 0
    while follower.log.log_start_offset() == 0:
        request = follower.poll(1003 + chunks)[0].message
        assert isinstance(request, FetchSnapshotRequest) and request.position == 4 * chunks
        reply = leader.handle(2, request, 1003 + chunks)[0].message
        assert (reply.error_code, reply.size) == (Errors.NONE, 25)
        assert len(reply.unaligned_records) == min(4, 25 - 4 * chunks)
        follower.handle(1, reply, 1003 + chunks)
        chunks += 1
    assert chunks == 7 and follower.log.read_snapshot(OffsetAndEpoch(3, 1)) == state
    assert (follower.log.end_offset(), follower.high_watermark) == (3, 3)
    _round_trip(leader, follower, 1020)  # then the log from the snapshot on
    assert [e.payload for e in follower.log.read(3, 10)] == ["c"]


@pytest.mark.parametrize(
    ("snapshot_id", "position", "error"),
    [
        (OffsetAndEpoch(2, 1), 0, Errors.SNAPSHOT_NOT_FOUND),
        (OffsetAndEpoch(3, 1), 5, Errors.POSITION_OUT_OF_RANGE),
        (OffsetAndEpoch(3, 1), -1, Errors.POSITION_OUT_OF_RANGE),
    ],
)
def test_a_fetch_snapshot_of_an_unknown_snapshot_or_position_is_refused(snapshot_id, position, error):
    leader = _leader()
    leader.propose(["a", "b"], 1000)
    leader.poll(1000)
    leader.handle(3, FetchRequest(3, 1, 3, 1), 1000)
    leader.create_snapshot(3, b"state")
    request = FetchSnapshotRequest(2, 1, snapshot_id, position, 100, correlation_id=9)
    answer = leader.handle(2, request, 1001)[0].message
    assert (answer.error_code, answer.unaligned_records, answer.correlation_id) == (error, b"", 9)


def test_a_follower_told_its_snapshot_is_gone_fetches_again():
    follower = _follower(2)
    request = follower.poll(1000)[0].message
    follower.handle(
        1,
        FetchResponse(
            Errors.NONE, 1, 1, 5, snapshot_id=OffsetAndEpoch(5, 1), correlation_id=request.correlation_id
        ),
        1001,
    )
    snapshot_request = follower.poll(1001)[0].message
    assert isinstance(snapshot_request, FetchSnapshotRequest)
    follower.handle(
        1,
        FetchSnapshotResponse(
            Errors.SNAPSHOT_NOT_FOUND,
            1,
            1,
            OffsetAndEpoch(5, 1),
            correlation_id=snapshot_request.correlation_id,
        ),
        1002,
    )
    assert isinstance(follower.poll(1100)[0].message, FetchRequest)
