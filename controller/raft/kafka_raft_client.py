"""KafkaRaftClient: the sans-I/O Raft replica of the metadata log, one per voter.

Owns: elections (Vote with the log up-to-date rule, one vote per epoch, persisted before
it is answered), leadership (a ``LeaderChange`` entry opens each epoch; BeginQuorumEpoch
to the voters; the high watermark advances once a majority of voters has fetched past an
offset of the current epoch; check quorum: a leader not fetched from by a majority within
1.5 x ``controller.quorum.fetch.timeout.ms`` resigns and sends EndQuorumEpoch), following
(pull-based Fetch with ``last_fetched_epoch``; a diverging epoch truncates the log) and
the stale-epoch and unknown-voter refusals with Kafka's error codes.  It takes messages
and time in (``handle``, ``poll``) and gives messages out (``Outbound``); its only side
effects are on the injected ``ReplicatedLog`` and quorum-state store.  Appended entries
count for the high watermark once flushed, which ``poll`` does, so a crash between two
calls loses only what no majority acknowledged.  Does not own sockets, clocks or what
entries mean.

Kafka concept: ``org.apache.kafka.raft.KafkaRaftClient`` (KIP-595).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from kafkette.controller.raft.quorum_state import (
    CandidateState,
    FollowerState,
    LeaderState,
    QuorumState,
    ResignedState,
    RoleState,
    UnattachedState,
    VotedState,
)
from kafkette.controller.raft.raft_config import RaftConfig
from kafkette.controller.raft.raft_messages import (
    BeginQuorumEpochRequest,
    BeginQuorumEpochResponse,
    EndQuorumEpochRequest,
    EndQuorumEpochResponse,
    FetchRequest,
    FetchResponse,
    Outbound,
    VoteRequest,
    VoteResponse,
)
from kafkette.controller.raft.replicated_log import LogEntry, ReplicatedLog
from kafkette.protocol.errors import Errors, NotLeaderOrFollowerError  # type: ignore[attr-defined]

IDLE_FETCH_BACKOFF_MS = 50  # a follower whose last fetch brought nothing asks again after this


@dataclass(frozen=True)
class LeaderChange:
    """The control entry that opens a leader's epoch (Kafka's ``LeaderChangeMessage``)."""

    leader_id: int
    voters: tuple[int, ...]


class KafkaRaftClient:
    """One voter's Raft replica.

    Args:
        node_id: this voter's id (must be in ``voters``).
        voters: the ids of ``controller.quorum.voters``.
        log: the metadata log.
        store: the quorum-state store (``read()``, ``write(ElectionState)``).
        config: timeouts.
        rng: randomness for election timeouts.
        now_ms: the time of creation (ms).

    Raises:
        ValueError: ``node_id`` is not a voter.
    """

    def __init__(self, node_id: int, voters: frozenset[int], log: ReplicatedLog, store: Any, config: RaftConfig,
                 rng: random.Random, now_ms: int) -> None:
        if node_id not in voters:
            raise ValueError(f"node {node_id} is not among the voters {sorted(voters)}")
        self.node_id = node_id
        self.voters = frozenset(voters)
        self.log = log
        self.config = config
        self._rng = rng
        self.high_watermark = 0
        self._correlation_ids = 0
        stored = store.read()
        initial: RoleState
        if stored.voted_id >= 0:  # a vote (a candidate's or a leader's for itself) is never given twice
            initial = VotedState(stored.epoch, stored.voted_id, self._election_deadline(now_ms))
        elif stored.leader_id >= 0 and stored.leader_id != node_id:
            initial = FollowerState(stored.epoch, stored.leader_id, now_ms + config.fetch_timeout_ms)
        else:
            initial = UnattachedState(stored.epoch, self._election_deadline(now_ms))
        self.quorum = QuorumState(node_id, store, initial)

    # ------------------------------------------------------------------ queries

    @property
    def epoch(self) -> int:
        return self.quorum.epoch

    @property
    def state(self) -> RoleState:
        return self.quorum.state

    def is_leader(self) -> bool:
        return isinstance(self.state, LeaderState)

    def leader_id(self) -> int:
        """The leader of the current epoch as this node knows it, -1 when unknown."""
        if isinstance(self.state, LeaderState):
            return self.node_id
        if isinstance(self.state, FollowerState):
            return self.state.leader_id
        return -1

    def majority(self) -> int:
        return len(self.voters) // 2 + 1

    def next_deadline_ms(self) -> int:
        """When ``poll`` next has timer work to do (ms)."""
        state = self.state
        if isinstance(state, (UnattachedState, VotedState, ResignedState)):
            return state.election_deadline_ms
        if isinstance(state, CandidateState):
            return min([state.election_deadline_ms, *state.next_request_ms.values()])
        if isinstance(state, FollowerState):
            return min(state.fetch_deadline_ms, max(state.fetch_outstanding_until_ms, 0))
        return min([state.check_quorum_deadline_ms, *state.next_begin_ms.values()])

    # ------------------------------------------------------------------ writes

    def propose(self, payloads: list[Any], now_ms: int) -> tuple[int, int]:
        """Append ``payloads`` as entries of the current epoch (leader only).

        Returns:
            (offset of the first entry, offset of the last); they are committed once the
            high watermark passes the last.

        Raises:
            NotLeaderOrFollowerError: this node is not the leader.
            ValueError: no payloads.
        """
        if not isinstance(self.state, LeaderState):
            raise NotLeaderOrFollowerError(f"node {self.node_id} is not the leader of epoch {self.epoch}")
        if not payloads:
            raise ValueError("nothing to propose")
        base = self.log.end_offset()
        self.log.append([LogEntry(base + i, self.epoch, payload) for i, payload in enumerate(payloads)])
        return base, base + len(payloads) - 1

    # ------------------------------------------------------------------ time

    def poll(self, now_ms: int) -> list[Outbound]:
        """Flush what was appended, then run the timers: elections, vote and BeginQuorumEpoch
        retries, check quorum, follower fetches.  Returns the messages to send."""
        self.log.flush()
        state = self.state
        if isinstance(state, LeaderState):
            state.end_offsets[self.node_id] = self.log.flushed_offset()
            self._maybe_advance_high_watermark(state)
            return self._poll_leader(state, now_ms)
        if isinstance(state, (UnattachedState, VotedState, ResignedState)):
            return self._become_candidate(now_ms) if now_ms >= state.election_deadline_ms else []
        if isinstance(state, CandidateState):
            if now_ms >= state.election_deadline_ms:
                return self._become_candidate(now_ms)
            return self._request_votes(state, now_ms)
        assert isinstance(state, FollowerState)
        if now_ms >= state.fetch_deadline_ms:
            return self._become_candidate(now_ms)
        if now_ms >= state.fetch_outstanding_until_ms:
            state.fetch_outstanding_until_ms = now_ms + self.config.request_timeout_ms
            self._correlation_ids += 1
            state.inflight_correlation_id = self._correlation_ids
            return [Outbound(state.leader_id, FetchRequest(self.node_id, self.epoch, self.log.end_offset(),
                                                           self.log.last_epoch(), self._correlation_ids))]
        return []

    def _poll_leader(self, state: LeaderState, now_ms: int) -> list[Outbound]:
        if now_ms >= state.check_quorum_deadline_ms:
            window = now_ms - self.config.fetch_timeout_ms * 3 // 2
            heard = 1 + sum(1 for v, t in state.last_fetch_ms.items() if v != self.node_id and t >= window)
            if heard < self.majority():
                return self._resign(state, now_ms)
            state.check_quorum_deadline_ms = now_ms + self.config.fetch_timeout_ms
        out = []
        for voter in sorted(state.unacknowledged):
            if now_ms >= state.next_begin_ms.get(voter, 0):
                state.next_begin_ms[voter] = now_ms + self.config.request_timeout_ms
                out.append(Outbound(voter, BeginQuorumEpochRequest(self.node_id, self.epoch)))
        return out

    # ------------------------------------------------------------------ messages

    def handle(self, source: int, message: Any, now_ms: int) -> list[Outbound]:
        """Handle a request or response from node ``source``; returns the messages to send.

        A request from a node outside the voters (other than a Fetch, which observers may
        send) is answered INCONSISTENT_VOTER_SET; one with a stale epoch
        FENCED_LEADER_EPOCH; neither changes this node's state.

        Raises:
            TypeError: not a Raft message.
        """
        if isinstance(message, VoteRequest):
            return [Outbound(source, self._handle_vote_request(source, message, now_ms))]
        if isinstance(message, BeginQuorumEpochRequest):
            return [Outbound(source, self._handle_begin_quorum_epoch(source, message, now_ms))]
        if isinstance(message, EndQuorumEpochRequest):
            return [Outbound(source, self._handle_end_quorum_epoch(source, message, now_ms))]
        if isinstance(message, FetchRequest):
            return [Outbound(source, self._handle_fetch_request(source, message, now_ms))]
        if isinstance(message, VoteResponse):
            return self._handle_vote_response(source, message, now_ms)
        if isinstance(message, FetchResponse):
            return self._handle_fetch_response(source, message, now_ms)
        if isinstance(message, (BeginQuorumEpochResponse, EndQuorumEpochResponse)):
            self._observe_epoch(message.leader_epoch, message.leader_id, now_ms)
            return []
        raise TypeError(f"not a Raft message: {type(message).__name__}")

    def _handle_vote_request(self, source: int, request: VoteRequest, now_ms: int) -> VoteResponse:
        if source not in self.voters or request.candidate_id != source:
            return VoteResponse(Errors.INCONSISTENT_VOTER_SET, self.leader_id(), self.epoch, False)
        if request.candidate_epoch < self.epoch:
            return VoteResponse(Errors.FENCED_LEADER_EPOCH, self.leader_id(), self.epoch, False)
        if request.candidate_epoch > self.epoch:
            self.quorum.transition(UnattachedState(request.candidate_epoch, self._election_deadline(now_ms)))
        state = self.state
        up_to_date = (request.last_offset_epoch, request.last_offset) >= (self.log.last_epoch(), self.log.end_offset())
        granted = False
        if isinstance(state, UnattachedState) and up_to_date:
            self.quorum.transition(VotedState(self.epoch, source, self._election_deadline(now_ms)))
            granted = True
        elif isinstance(state, VotedState) and state.voted_id == source:
            granted = True
        return VoteResponse(Errors.NONE, self.leader_id(), self.epoch, granted)

    def _handle_vote_response(self, source: int, response: VoteResponse, now_ms: int) -> list[Outbound]:
        if self._observe_epoch(response.leader_epoch, response.leader_id, now_ms):
            return []
        state = self.state
        if not isinstance(state, CandidateState) or response.leader_epoch != state.epoch or source not in self.voters:
            return []
        if response.error_code != Errors.NONE:
            return []
        (state.granted if response.vote_granted else state.rejected).add(source)
        state.next_request_ms.pop(source, None)
        if len(state.granted) >= self.majority():
            return self._become_leader(now_ms)
        return []

    def _handle_begin_quorum_epoch(self, source: int, request: BeginQuorumEpochRequest,
                                   now_ms: int) -> BeginQuorumEpochResponse:
        if source not in self.voters or request.leader_id != source:
            return BeginQuorumEpochResponse(Errors.INCONSISTENT_VOTER_SET, self.leader_id(), self.epoch)
        if request.leader_epoch < self.epoch:
            return BeginQuorumEpochResponse(Errors.FENCED_LEADER_EPOCH, self.leader_id(), self.epoch)
        self._follow(request.leader_epoch, request.leader_id, now_ms)
        return BeginQuorumEpochResponse(Errors.NONE, self.leader_id(), self.epoch)

    def _handle_end_quorum_epoch(self, source: int, request: EndQuorumEpochRequest,
                                 now_ms: int) -> EndQuorumEpochResponse:
        if source not in self.voters or request.leader_id != source:
            return EndQuorumEpochResponse(Errors.INCONSISTENT_VOTER_SET, self.leader_id(), self.epoch)
        if request.leader_epoch < self.epoch:
            return EndQuorumEpochResponse(Errors.FENCED_LEADER_EPOCH, self.leader_id(), self.epoch)
        state = self.state
        if isinstance(state, FollowerState) and state.epoch == request.leader_epoch and state.leader_id == source:
            # the leader gave up: preferred successors campaign first (KIP-595)
            rank = list(request.preferred_successors).index(self.node_id) \
                if self.node_id in request.preferred_successors else len(self.voters)
            state.fetch_deadline_ms = min(state.fetch_deadline_ms, now_ms + rank * self.config.election_backoff_max_ms
                                          // max(len(self.voters), 1))
        return EndQuorumEpochResponse(Errors.NONE, self.leader_id(), self.epoch)

    def _handle_fetch_request(self, source: int, request: FetchRequest, now_ms: int) -> FetchResponse:
        state = self.state
        if request.current_leader_epoch < self.epoch:
            return self._fetch_error(Errors.FENCED_LEADER_EPOCH, request)
        if request.current_leader_epoch > self.epoch:
            return self._fetch_error(Errors.UNKNOWN_LEADER_EPOCH, request)
        if not isinstance(state, LeaderState):
            return self._fetch_error(Errors.NOT_LEADER_OR_FOLLOWER, request)
        if request.fetch_offset > 0:
            epoch, end_offset = self.log.end_offset_for_epoch(request.last_fetched_epoch)
            if epoch != request.last_fetched_epoch or end_offset < request.fetch_offset:
                return FetchResponse(Errors.NONE, self.node_id, self.epoch, self.high_watermark,
                                     (epoch, end_offset), (), request.correlation_id)
        if source in self.voters:
            state.end_offsets[source] = request.fetch_offset
            state.last_fetch_ms[source] = now_ms
            state.unacknowledged.discard(source)
            self._maybe_advance_high_watermark(state)
        entries = tuple(self.log.read(request.fetch_offset, self.config.max_fetch_entries))
        return FetchResponse(Errors.NONE, self.node_id, self.epoch, self.high_watermark, None, entries,
                             request.correlation_id)

    def _fetch_error(self, code: int, request: FetchRequest) -> FetchResponse:
        return FetchResponse(code, self.leader_id(), self.epoch, -1, None, (), request.correlation_id)

    def _handle_fetch_response(self, source: int, response: FetchResponse, now_ms: int) -> list[Outbound]:
        if self._observe_epoch(response.leader_epoch, response.leader_id, now_ms):
            return []
        state = self.state
        if (not isinstance(state, FollowerState) or source != state.leader_id
                or response.leader_epoch != state.epoch or response.error_code != Errors.NONE
                or response.correlation_id != state.inflight_correlation_id):
            return []  # an error, or the answer to an older fetch (duplicated or overtaken)
        state.inflight_correlation_id = -1
        state.fetch_deadline_ms = now_ms + self.config.fetch_timeout_ms
        if response.diverging_epoch is not None:
            epoch, end_offset = response.diverging_epoch
            self.log.truncate_to(min(end_offset, self.log.end_offset_for_epoch(epoch)[1]))
            state.fetch_outstanding_until_ms = now_ms
            return []
        entries = list(response.entries)
        if entries and entries[0].offset == self.log.end_offset():
            self.log.append(entries)
        self.high_watermark = max(self.high_watermark, min(response.high_watermark, self.log.end_offset()))
        state.fetch_outstanding_until_ms = now_ms if entries else now_ms + IDLE_FETCH_BACKOFF_MS
        return []

    # ------------------------------------------------------------------ transitions

    def _observe_epoch(self, epoch: int, leader_id: int, now_ms: int) -> bool:
        """Move to a higher epoch learnt from a message (following its leader when named).

        Returns:
            True when the epoch was higher (the message is then not handled further).
        """
        if epoch <= self.epoch:
            if epoch == self.epoch and leader_id >= 0 and leader_id != self.node_id \
                    and isinstance(self.state, (UnattachedState, VotedState, CandidateState)):
                self._follow(epoch, leader_id, now_ms)
                return True
            return False
        if leader_id >= 0 and leader_id != self.node_id and leader_id in self.voters:
            self._follow(epoch, leader_id, now_ms)
        else:
            self.quorum.transition(UnattachedState(epoch, self._election_deadline(now_ms)))
        return True

    def _follow(self, epoch: int, leader_id: int, now_ms: int) -> None:
        state = self.state
        if isinstance(state, FollowerState) and state.epoch == epoch and state.leader_id == leader_id:
            return
        if isinstance(state, (LeaderState, ResignedState)) and epoch == state.epoch:
            return  # this node led ``epoch``: another leader of the same epoch cannot exist
        self.quorum.transition(FollowerState(epoch, leader_id, now_ms + self.config.fetch_timeout_ms))

    def _become_candidate(self, now_ms: int) -> list[Outbound]:
        deadline = self._election_deadline(now_ms) + self._rng.randint(0, self.config.election_backoff_max_ms)
        state = CandidateState(self.epoch + 1, {self.node_id}, set(), deadline)
        self.quorum.transition(state)
        if len(state.granted) >= self.majority():
            return self._become_leader(now_ms)
        return self._request_votes(state, now_ms)

    def _request_votes(self, state: CandidateState, now_ms: int) -> list[Outbound]:
        out = []
        request = VoteRequest(state.epoch, self.node_id, self.log.last_epoch(), self.log.end_offset())
        for voter in sorted(self.voters - state.granted - state.rejected):
            if now_ms >= state.next_request_ms.get(voter, 0):
                state.next_request_ms[voter] = now_ms + self.config.request_timeout_ms
                out.append(Outbound(voter, request))
        return out

    def _become_leader(self, now_ms: int) -> list[Outbound]:
        start = self.log.end_offset()
        others = set(self.voters - {self.node_id})
        state = LeaderState(self.epoch, start, {v: 0 for v in self.voters}, {}, others,
                            check_quorum_deadline_ms=now_ms + self.config.fetch_timeout_ms)
        self.quorum.transition(state)
        self.log.append([LogEntry(start, self.epoch, LeaderChange(self.node_id, tuple(sorted(self.voters))))])
        return self._poll_leader(state, now_ms)

    def _resign(self, state: LeaderState, now_ms: int) -> list[Outbound]:
        self.quorum.transition(ResignedState(state.epoch, self._election_deadline(now_ms)))
        request = EndQuorumEpochRequest(self.node_id, state.epoch, ())
        return [Outbound(v, request) for v in sorted(self.voters - {self.node_id})]

    def _maybe_advance_high_watermark(self, state: LeaderState) -> None:
        offsets = sorted(state.end_offsets.values(), reverse=True)
        candidate = offsets[self.majority() - 1]
        if candidate > self.high_watermark and candidate > state.epoch_start_offset:
            self.high_watermark = candidate

    def _election_deadline(self, now_ms: int) -> int:
        timeout = self.config.election_timeout_ms
        return now_ms + timeout + self._rng.randint(0, timeout)
