"""KafkaRaftClient: the sans-I/O Raft replica of the metadata log, one per voter (KIP-595, KIP-630).

Owns the protocol over one ``ReplicatedLog``: elections (Vote with the log up-to-date rule,
one vote per epoch, written to the quorum-state store before it is answered or asked
for); leadership (a ``LeaderChange`` entry opens each epoch, BeginQuorumEpoch until the
voters fetch, the high watermark advanced once a majority of voters has fetched past an
offset of the current epoch, check quorum with EndQuorumEpoch naming the successors);
following (pull-based Fetch with ``last_fetched_epoch``, truncation where the leader says
the logs diverge, never below the high watermark, and FetchSnapshot in chunks when the
entries needed are gone); ``create_snapshot`` at a committed offset; and the refusals with
Kafka's error codes (an unknown voter, a stale or unknown epoch, a missing snapshot: an
error answer, never a crash).  Proposals are atomic batches.

It takes messages and time in (``handle``, ``poll``) and gives messages out
(``Outbound``); its only side effects are on the injected log and quorum-state store, its
only randomness the injected ``random.Random``.  Appended entries count for the high
watermark once flushed, which ``poll`` does first, so a crash between two calls loses only
what no majority acknowledged.  Does not own sockets, clocks, or what entries and
snapshots mean; committed entries are read through the log below ``high_watermark``.

Kafka concept: ``org.apache.kafka.raft.KafkaRaftClient``.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass
from typing import Any

from kafkette.controller.raft.candidate_state import CandidateState
from kafkette.controller.raft.follower_state import (
    FollowerState,
    SnapshotDownload,
    end_epoch_election_backoff_ms,
)
from kafkette.controller.raft.leader_state import LeaderState
from kafkette.controller.raft.quorum_state import QuorumState, RoleState, restart_state
from kafkette.controller.raft.quorum_state_store import QuorumStateStore
from kafkette.controller.raft.raft_config import RaftConfig
from kafkette.controller.raft.raft_messages import (
    BeginQuorumEpochRequest,
    BeginQuorumEpochResponse,
    EndQuorumEpochRequest,
    EndQuorumEpochResponse,
    FetchRequest,
    FetchResponse,
    FetchSnapshotRequest,
    FetchSnapshotResponse,
    Outbound,
    VoteRequest,
    VoteResponse,
)
from kafkette.controller.raft.replicated_log import (
    Kind,
    LogEntry,
    OffsetAndEpoch,
    ReplicatedLog,
    read_whole_batches,
    truncation_offset,
    validate_offset_and_epoch,
)
from kafkette.controller.raft.resigned_state import ResignedState
from kafkette.controller.raft.unattached_state import UnattachedState
from kafkette.controller.raft.voted_state import VotedState
from kafkette.protocol.errors import Errors, IllegalStateError, NotLeaderOrFollowerError

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class LeaderChange:
    """The control entry that opens a leader's epoch (Kafka's ``LeaderChangeMessage``)."""

    leader_id: int
    voters: tuple[int, ...]


class KafkaRaftClient:
    """One voter's Raft replica (see the module docstring).

    Args:
        node_id: this voter's id (must be in ``voters``).
        voters: the ids of ``controller.quorum.voters``.
        log: the metadata log.
        store: the quorum-state store; its state gives the role to restart in.
        config: timeouts and sizes.
        rng: randomness for election timeouts and backoffs.
        now_ms: the time of creation (ms).

    Raises:
        ValueError: ``node_id`` is not a voter.
    """

    def __init__(
        self,
        node_id: int,
        voters: frozenset[int],
        log: ReplicatedLog,
        store: QuorumStateStore,
        config: RaftConfig,
        rng: random.Random,
        now_ms: int,
    ) -> None:
        if node_id not in voters:
            raise ValueError(f"node {node_id} is not among the voters {sorted(voters)}")
        self.node_id = node_id
        self.voters = frozenset(voters)
        self.log = log
        self.config = config
        self._rng = rng
        self.high_watermark = log.log_start_offset()  # a snapshot holds only committed entries
        self._correlation_ids = 0
        # The only voter need not wait for anyone: it stands at its first poll (Kafka's
        # QuorumState.initialize makes a lone voter a candidate at once).
        election_deadline = now_ms if self.voters == {node_id} else self._election_deadline(now_ms)
        initial = restart_state(
            store.read(), node_id, self.voters, election_deadline, now_ms + config.fetch_timeout_ms
        )
        self.quorum = QuorumState(node_id, store, initial)
        self._prefix = f"[RaftClient id={node_id}]"

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

    def next_deadline_ms(self) -> int:
        """When ``poll`` next has timer work to do (ms); a message may bring it forward."""
        return self.state.next_deadline_ms()

    # ------------------------------------------------------------------ writes

    def propose(self, payloads: list[Any], now_ms: int) -> tuple[int, int]:
        """Append ``payloads`` as one batch of entries of the current epoch (leader only): it is
        fetched, truncated and committed whole (Kafka's atomic append).

        Returns:
            (offset of the first entry, offset of the last); they are committed once the
            high watermark passes the last (if this node stays leader until then).

        Raises:
            NotLeaderOrFollowerError: this node is not the leader.
            ValueError: no payloads.
        """
        if not isinstance(self.state, LeaderState):
            raise NotLeaderOrFollowerError(f"node {self.node_id} is not the leader of epoch {self.epoch}")
        if not payloads:
            raise ValueError("nothing to propose")
        base = self.log.end_offset()
        end = base + len(payloads)
        self.log.append([LogEntry(base + i, self.epoch, payload, end) for i, payload in enumerate(payloads)])
        return base, base + len(payloads) - 1

    def create_snapshot(self, end_offset: int, data: bytes) -> OffsetAndEpoch:
        """Store ``data``, the caller's state after applying every entry below ``end_offset``, as a
        snapshot, and drop those entries from the log (KIP-630).  Any role may.

        Args:
            end_offset: the first offset not in the snapshot; at most the high watermark.
            data: the state, in the caller's encoding.

        Returns:
            The snapshot id (``end_offset``, epoch of the entry before it).

        Raises:
            ValueError: ``end_offset`` is above the high watermark or not above the log start offset.
        """
        if end_offset > self.high_watermark:
            raise ValueError(
                f"snapshot end offset {end_offset} is above the high watermark {self.high_watermark}"
            )
        if end_offset <= self.log.log_start_offset():
            raise ValueError(
                f"snapshot end offset {end_offset} is not above the log start offset "
                f"{self.log.log_start_offset()}"
            )
        snapshot_id = OffsetAndEpoch(end_offset, self.log.read(end_offset - 1, 1)[0].epoch)
        self.log.create_snapshot(snapshot_id, data)
        logger.info("%s Created snapshot %s", self._prefix, snapshot_id)
        return snapshot_id

    # ------------------------------------------------------------------ time

    def poll(self, now_ms: int) -> list[Outbound]:
        """Flush what was appended, then run the timers: elections, vote, BeginQuorumEpoch and
        EndQuorumEpoch retries, check quorum, follower fetches.

        Returns:
            The messages to send.
        """
        self.log.flush()
        state = self.state
        if isinstance(state, LeaderState):
            state.update_local_state(self.log.flushed_offset())
            self._maybe_advance_high_watermark(state)
            return self._poll_leader(state, now_ms)
        if isinstance(state, FollowerState):
            if now_ms >= state.fetch_deadline_ms:
                return self._become_candidate(now_ms)
            return self._send_fetch(state, now_ms) if now_ms >= state.next_fetch_ms else []
        if now_ms >= state.election_deadline_ms:
            return self._become_candidate(now_ms)
        if isinstance(state, CandidateState):
            return self._request_votes(state, now_ms)
        if isinstance(state, ResignedState):
            return self._send_end_quorum_epoch(state, now_ms)
        return []

    def _poll_leader(self, state: LeaderState, now_ms: int) -> list[Outbound]:
        if state.has_lost_quorum(now_ms):
            logger.warning(
                "%s No majority fetched within %d ms: resigning epoch %d",
                self._prefix,
                self.config.check_quorum_timeout_ms,
                state.epoch,
            )
            successors = state.voters_by_descending_end_offset()
            resigned = ResignedState(
                state.epoch, self.node_id, self._election_deadline(now_ms), successors, set(successors)
            )
            self.quorum.transition(resigned)
            return self._send_end_quorum_epoch(resigned, now_ms)
        return self._send_due(
            state.unacknowledged,
            state.next_begin_ms,
            BeginQuorumEpochRequest(self.node_id, self.epoch),
            now_ms,
        )

    def _send_end_quorum_epoch(self, state: ResignedState, now_ms: int) -> list[Outbound]:
        request = EndQuorumEpochRequest(self.node_id, state.epoch, state.preferred_successors)
        return self._send_due(state.unacknowledged, state.next_request_ms, request, now_ms)

    def _send_due(
        self, voters: set[int] | list[int], next_ms: dict[int, int], request: Any, now_ms: int
    ) -> list[Outbound]:
        """``request`` to each of ``voters`` not asked within the request timeout (``next_ms``: when
        each may be asked again, updated)."""
        out = []
        for voter in sorted(voters):
            if now_ms >= next_ms.get(voter, 0):
                next_ms[voter] = now_ms + self.config.request_timeout_ms
                out.append(Outbound(voter, request))
        return out

    def _send_fetch(self, state: FollowerState, now_ms: int) -> list[Outbound]:
        state.next_fetch_ms = now_ms + self.config.request_timeout_ms
        self._correlation_ids += 1
        state.inflight_correlation_id = self._correlation_ids
        download = state.fetching_snapshot
        if download is not None:
            return [
                Outbound(
                    state.leader_id,
                    FetchSnapshotRequest(
                        self.node_id,
                        state.epoch,
                        download.snapshot_id,
                        len(download.data),
                        self.config.fetch_snapshot_max_bytes,
                        self._correlation_ids,
                    ),
                )
            ]
        state.inflight_fetch_offset = self.log.end_offset()
        return [
            Outbound(
                state.leader_id,
                FetchRequest(
                    self.node_id,
                    state.epoch,
                    state.inflight_fetch_offset,
                    self.log.last_epoch(),
                    self._correlation_ids,
                ),
            )
        ]

    # ------------------------------------------------------------------ messages

    def handle(self, source: int, message: Any, now_ms: int) -> list[Outbound]:
        """Handle a request or response from node ``source``.

        A request from a node outside the voters (other than Fetch and FetchSnapshot, which
        observers may send) is answered INCONSISTENT_VOTER_SET; one with a stale epoch
        FENCED_LEADER_EPOCH; a fetch with a newer one UNKNOWN_LEADER_EPOCH, and one sent to a
        non-leader NOT_LEADER_OR_FOLLOWER; none of them changes this node's state.

        Returns:
            The messages to send (the answer to a request first).

        Raises:
            TypeError: not a Raft message.
            OSError: the quorum-state store could not write (nothing was answered or changed).
        """
        if source not in self.voters and type(message) in _RESPONSE_HANDLERS:
            return []  # answers come only from the voters asked
        request_handler = _REQUEST_HANDLERS.get(type(message))
        if request_handler is not None:
            return [Outbound(source, getattr(self, request_handler)(source, message, now_ms))]
        response_handler = _RESPONSE_HANDLERS.get(type(message))
        if response_handler is None:
            raise TypeError(f"not a Raft message: {type(message).__name__}")
        return getattr(self, response_handler)(source, message, now_ms)  # type: ignore[no-any-return]

    def _refusal(self, source: int, claimed_id: int, epoch: int) -> int:
        """The error for a voter-only request from ``source`` in ``epoch``, or NONE."""
        if source not in self.voters or claimed_id != source or source == self.node_id:
            return Errors.INCONSISTENT_VOTER_SET
        return Errors.FENCED_LEADER_EPOCH if epoch < self.epoch else Errors.NONE

    def _handle_vote_request(self, source: int, request: VoteRequest, now_ms: int) -> VoteResponse:
        error = self._refusal(source, request.replica_id, request.replica_epoch)
        if error != Errors.NONE:
            return VoteResponse(error, self.leader_id(), self.epoch, False)
        if request.replica_epoch > self.epoch:
            self._become_unattached(request.replica_epoch, now_ms)
        last = (self.log.last_epoch(), self.log.end_offset())
        up_to_date = (request.last_offset_epoch, request.last_offset) >= last
        state = self.state
        granted = state.can_grant_vote(source, up_to_date)
        if granted and isinstance(state, UnattachedState):
            self.quorum.transition(VotedState(self.epoch, source, self._election_deadline(now_ms)))
        return VoteResponse(Errors.NONE, self.leader_id(), self.epoch, granted)

    def _handle_vote_response(self, source: int, response: VoteResponse, now_ms: int) -> list[Outbound]:
        if self._observe_epoch(response.leader_epoch, response.leader_id, now_ms):
            return []
        state = self.state
        if (
            not isinstance(state, CandidateState)
            or response.leader_epoch != state.epoch
            or response.error_code != Errors.NONE
            or source in state.granted | state.rejected
        ):
            return []
        if response.vote_granted:
            state.record_granted_vote(source)
            return self._become_leader(state, now_ms) if state.is_vote_granted() else []
        state.record_rejected_vote(source)
        if state.is_vote_rejected():  # lost: back off a random while before the next try
            backoff = now_ms + self._rng.randint(0, self.config.election_backoff_max_ms)
            state.election_deadline_ms = min(state.election_deadline_ms, backoff)
        return []

    def _handle_quorum_epoch_response(
        self, source: int, response: BeginQuorumEpochResponse | EndQuorumEpochResponse, now_ms: int
    ) -> list[Outbound]:
        if (
            not self._observe_epoch(response.leader_epoch, response.leader_id, now_ms)
            and isinstance(response, EndQuorumEpochResponse)
            and isinstance(self.state, ResignedState)
            and response.leader_epoch == self.epoch
        ):
            self.state.acknowledge_end_quorum_epoch(source)
        return []

    def _handle_begin_quorum_epoch(
        self, source: int, request: BeginQuorumEpochRequest, now_ms: int
    ) -> BeginQuorumEpochResponse:
        error = self._refusal(source, request.leader_id, request.leader_epoch)
        if error == Errors.NONE:
            self._follow(request.leader_epoch, request.leader_id, now_ms)
        return BeginQuorumEpochResponse(error, self.leader_id(), self.epoch)

    def _handle_end_quorum_epoch(
        self, source: int, request: EndQuorumEpochRequest, now_ms: int
    ) -> EndQuorumEpochResponse:
        error = self._refusal(source, request.leader_id, request.leader_epoch)
        if error != Errors.NONE:
            return EndQuorumEpochResponse(error, self.leader_id(), self.epoch)
        if request.leader_epoch > self.epoch:
            self._follow(request.leader_epoch, source, now_ms)
        state = self.state
        if isinstance(state, FollowerState) and state.leader_id == source:
            backoff_ms = end_epoch_election_backoff_ms(
                request.preferred_successors,
                self.node_id,
                self.config.retry_backoff_ms,
                self.config.election_backoff_max_ms,
            )
            state.override_fetch_timeout(now_ms, backoff_ms)
        return EndQuorumEpochResponse(Errors.NONE, self.leader_id(), self.epoch)

    def _fetch_refusal(self, epoch: int) -> int:
        if epoch < self.epoch:
            return Errors.FENCED_LEADER_EPOCH
        if epoch > self.epoch:
            return Errors.UNKNOWN_LEADER_EPOCH
        return Errors.NONE if self.is_leader() else Errors.NOT_LEADER_OR_FOLLOWER

    def _handle_fetch_request(self, source: int, request: FetchRequest, now_ms: int) -> FetchResponse:
        error = (
            Errors.INVALID_REQUEST
            if request.replica_id != source or request.fetch_offset < 0
            else self._fetch_refusal(request.current_leader_epoch)
        )
        state = self.state
        if error != Errors.NONE or not isinstance(state, LeaderState):
            return FetchResponse(
                error, self.leader_id(), self.epoch, -1, correlation_id=request.correlation_id
            )
        is_voter = source in self.voters and source != self.node_id
        if is_voter:
            state.record_voter_fetch(source, now_ms, self.config.check_quorum_timeout_ms)
        verdict = validate_offset_and_epoch(self.log, request.fetch_offset, request.last_fetched_epoch)
        if verdict.kind is Kind.SNAPSHOT:
            return FetchResponse(
                Errors.NONE,
                self.node_id,
                self.epoch,
                self.high_watermark,
                snapshot_id=verdict.offset_and_epoch,
                correlation_id=request.correlation_id,
            )
        if verdict.kind is Kind.DIVERGING:
            return FetchResponse(
                Errors.NONE,
                self.node_id,
                self.epoch,
                self.high_watermark,
                diverging_epoch=verdict.offset_and_epoch,
                correlation_id=request.correlation_id,
            )
        if is_voter:
            state.update_replica_state(source, request.fetch_offset, now_ms)
            self._maybe_advance_high_watermark(state)
        entries = tuple(read_whole_batches(self.log, request.fetch_offset, self.config.max_fetch_entries))
        return FetchResponse(
            Errors.NONE,
            self.node_id,
            self.epoch,
            self.high_watermark,
            entries=entries,
            correlation_id=request.correlation_id,
        )

    def _handle_fetch_snapshot_request(
        self, source: int, request: FetchSnapshotRequest, now_ms: int
    ) -> FetchSnapshotResponse:
        error = (
            Errors.INVALID_REQUEST
            if request.replica_id != source or request.max_bytes < 1
            else self._fetch_refusal(request.current_leader_epoch)
        )
        state = self.state
        if error == Errors.NONE and isinstance(state, LeaderState):
            if source in self.voters and source != self.node_id:
                state.record_voter_fetch(source, now_ms, self.config.check_quorum_timeout_ms)
            data = self.log.read_snapshot(request.snapshot_id)
            if data is None:
                error = Errors.SNAPSHOT_NOT_FOUND
            elif not 0 <= request.position < len(data):
                error = Errors.POSITION_OUT_OF_RANGE
            else:
                chunk = data[request.position : request.position + request.max_bytes]
                return FetchSnapshotResponse(
                    Errors.NONE,
                    self.node_id,
                    self.epoch,
                    request.snapshot_id,
                    len(data),
                    request.position,
                    chunk,
                    request.correlation_id,
                )
        return FetchSnapshotResponse(
            error, self.leader_id(), self.epoch, request.snapshot_id, correlation_id=request.correlation_id
        )

    def _awaited_answer(
        self,
        source: int,
        error_code: int,
        leader_epoch: int,
        leader_id: int,
        correlation_id: int,
        now_ms: int,
    ) -> FollowerState | None:
        """The follower state if this answer is the one awaited from the leader of this epoch
        (it is then no longer awaited, and the next request is scheduled); None otherwise."""
        if self._observe_epoch(leader_epoch, leader_id, now_ms):
            return None
        state = self.state
        if (
            not isinstance(state, FollowerState)
            or source != state.leader_id
            or leader_epoch != state.epoch
            or not state.complete_inflight(correlation_id)
        ):
            return None  # not ours: from another node or epoch, or duplicated or overtaken
        if error_code == Errors.NONE:
            state.reset_fetch_timeout(now_ms, self.config.fetch_timeout_ms)
            state.next_fetch_ms = now_ms
        else:
            state.next_fetch_ms = now_ms + self.config.retry_backoff_ms
        return state

    def _handle_fetch_response(self, source: int, response: FetchResponse, now_ms: int) -> list[Outbound]:
        state = self._awaited_answer(
            source,
            response.error_code,
            response.leader_epoch,
            response.leader_id,
            response.correlation_id,
            now_ms,
        )
        if state is None or response.error_code != Errors.NONE:
            return []
        if response.diverging_epoch is not None:
            self._truncate_to_end_offset(response.diverging_epoch)
        elif response.snapshot_id is not None:
            if state.fetching_snapshot is None or state.fetching_snapshot.snapshot_id != response.snapshot_id:
                logger.info(
                    "%s Fetching snapshot %s from leader %d",
                    self._prefix,
                    response.snapshot_id,
                    state.leader_id,
                )
                state.fetching_snapshot = SnapshotDownload(response.snapshot_id)
        else:
            fetch_offset = state.inflight_fetch_offset
            entries = list(response.entries)
            if fetch_offset != self.log.end_offset() or (entries and entries[0].offset != fetch_offset):
                return []  # the log moved since this fetch went out: ask again
            if entries:
                self.log.append(entries)
            else:
                state.next_fetch_ms = now_ms + self.config.idle_fetch_backoff_ms
            # the log matches the leader's up to its end now: that much of it may be committed
            committed = min(response.high_watermark, self.log.end_offset())
            self.high_watermark = max(self.high_watermark, committed)
        return []

    def _handle_fetch_snapshot_response(
        self, source: int, response: FetchSnapshotResponse, now_ms: int
    ) -> list[Outbound]:
        state = self._awaited_answer(
            source,
            response.error_code,
            response.leader_epoch,
            response.leader_id,
            response.correlation_id,
            now_ms,
        )
        if state is None:
            return []
        download = state.fetching_snapshot
        if (
            response.error_code != Errors.NONE
            or download is None
            or download.snapshot_id != response.snapshot_id
            or response.position != len(download.data)
        ):
            # SNAPSHOT_NOT_FOUND (the leader has a newer one), POSITION_OUT_OF_RANGE, or an answer
            # that does not continue the download: start again from a Fetch
            state.fetching_snapshot = None
            return []
        download.data += response.unaligned_records
        if len(download.data) >= response.size:
            state.fetching_snapshot = None
            self.log.install_snapshot(download.snapshot_id, bytes(download.data))
            self.high_watermark = max(self.high_watermark, download.snapshot_id.offset)
            logger.info(
                "%s Installed snapshot %s from leader %d", self._prefix, download.snapshot_id, state.leader_id
            )
        return []

    def _truncate_to_end_offset(self, end: OffsetAndEpoch) -> None:
        """Cut the log where it stops agreeing with the leader's.

        Raises:
            IllegalStateError: the cut would drop a committed entry (below the high watermark).
        """
        offset = truncation_offset(self.log, end)
        if offset < self.high_watermark:
            raise IllegalStateError(
                f"{self._prefix} the leader asks to truncate to {offset}, below the high "
                f"watermark {self.high_watermark}"
            )
        logger.info("%s Truncating the log to %d (diverging epoch %s)", self._prefix, offset, end)
        self.log.truncate_to(offset)

    # ------------------------------------------------------------------ transitions

    def _observe_epoch(self, epoch: int, leader_id: int, now_ms: int) -> bool:
        """Move to a higher epoch learnt from an answer (following its leader when named), or
        follow the now known leader of the current epoch.

        Returns:
            True when the role changed (the answer is then not handled further).
        """
        known_leader = leader_id if leader_id != self.node_id and leader_id in self.voters else -1
        if epoch > self.epoch:
            if known_leader >= 0:
                self._follow(epoch, known_leader, now_ms)
            else:
                self._become_unattached(epoch, now_ms)
            return True
        if (
            epoch == self.epoch
            and known_leader >= 0
            and isinstance(self.state, (UnattachedState, VotedState, CandidateState))
        ):
            self._follow(epoch, known_leader, now_ms)
            return True
        return False

    def _become_unattached(self, epoch: int, now_ms: int) -> None:
        """Move to ``epoch`` with no leader known.  A voter that was already waiting for an
        election keeps its timer (a follower its fetch timeout): learning of a higher epoch is no
        reason to wait longer (as in Raft, only granting a vote or hearing from a leader resets
        it), so a candidate that cannot win (its log is behind) does not hold off, round after
        round, the voters that could."""
        state = self.state
        deadline = getattr(state, "election_deadline_ms", None)
        if deadline is None:  # a follower's timer is its fetch timeout
            deadline = getattr(state, "fetch_deadline_ms", None)
        if deadline is None or deadline < now_ms:
            deadline = self._election_deadline(now_ms)
        self.quorum.transition(UnattachedState(epoch, deadline))

    def _follow(self, epoch: int, leader_id: int, now_ms: int) -> None:
        state = self.state
        if epoch == state.epoch and (
            isinstance(state, (LeaderState, ResignedState))
            or (isinstance(state, FollowerState) and state.leader_id == leader_id)
        ):
            return  # already following it, or this node led ``epoch``: no other leader of it exists
        if isinstance(state, FollowerState) and epoch == state.epoch:
            logger.error(
                "%s Leader %d of epoch %d announced while following %d",
                self._prefix,
                leader_id,
                epoch,
                state.leader_id,
            )
            return
        self.quorum.transition(FollowerState(epoch, leader_id, now_ms + self.config.fetch_timeout_ms))

    def _become_candidate(self, now_ms: int) -> list[Outbound]:
        deadline = self._election_deadline(now_ms) + self._rng.randint(0, self.config.election_backoff_max_ms)
        state = CandidateState(self.epoch + 1, self.node_id, self.voters, deadline)
        self.quorum.transition(state)
        if state.is_vote_granted():
            return self._become_leader(state, now_ms)
        return self._request_votes(state, now_ms)

    def _request_votes(self, state: CandidateState, now_ms: int) -> list[Outbound]:
        request = VoteRequest(state.epoch, self.node_id, self.log.last_epoch(), self.log.end_offset())
        return self._send_due(state.unrecorded_voters(), state.next_request_ms, request, now_ms)

    def _become_leader(self, candidate: CandidateState, now_ms: int) -> list[Outbound]:
        start = self.log.end_offset()
        state = LeaderState(
            candidate.epoch, self.node_id, self.voters, start, now_ms + self.config.check_quorum_timeout_ms
        )
        self.quorum.transition(state)
        self.log.append([LogEntry(start, self.epoch, LeaderChange(self.node_id, tuple(sorted(self.voters))))])
        return self._poll_leader(state, now_ms)

    def _maybe_advance_high_watermark(self, state: LeaderState) -> None:
        candidate = state.high_watermark_candidate()
        if candidate is not None and candidate > self.high_watermark:
            self.high_watermark = candidate

    def _election_deadline(self, now_ms: int) -> int:
        timeout = self.config.election_timeout_ms
        return now_ms + timeout + self._rng.randint(0, timeout)


# The handler method of each message type: (source, message, now_ms) -> an answer (requests) or the
# messages to send (responses).  Looked up by name, so a subclass's override is the one called.
_REQUEST_HANDLERS = {
    VoteRequest: "_handle_vote_request",
    BeginQuorumEpochRequest: "_handle_begin_quorum_epoch",
    EndQuorumEpochRequest: "_handle_end_quorum_epoch",
    FetchRequest: "_handle_fetch_request",
    FetchSnapshotRequest: "_handle_fetch_snapshot_request",
}
_RESPONSE_HANDLERS = {
    VoteResponse: "_handle_vote_response",
    BeginQuorumEpochResponse: "_handle_quorum_epoch_response",
    EndQuorumEpochResponse: "_handle_quorum_epoch_response",
    FetchResponse: "_handle_fetch_response",
    FetchSnapshotResponse: "_handle_fetch_snapshot_response",
}
