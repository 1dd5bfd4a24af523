"""RaftManager: one voter's ``KafkaRaftClient`` on the event loop, over real connections and files.

Owns: the metadata log (``FileReplicatedLog``) and ``quorum-state`` file in
``<metadata log dir>/__cluster_metadata-0``, the core, one task that polls it at its next
deadline (or when woken by a message), the outbound requests (a ``BrokerConnection`` per
voter, each request in an owned task; a lost connection or timeout just drops the request,
the core retries), inbound requests (``handle_request``, called by the node's listener; a
leader holds a Fetch that would bring the follower nothing new until there are new entries
or a higher high watermark, up to ``FETCH_MAX_WAIT_MS``, as Kafka's delayed fetch does, so
that a commit waits for no follower's polling), proposals and waits for their commitment, and the delivery of
committed entries, in order, to ``on_commit`` (a snapshot the log starts with first, to ``on_snapshot``), and
the snapshots it is asked to write.  Does not own the listener or what the entries mean.

Kafka concept: ``KafkaRaftManager`` (the thread driving ``KafkaRaftClient.poll``) and
``RaftClient.Listener.handleCommit``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import random
import time
from collections.abc import Callable, Mapping
from typing import Any

from kafkette.common.background_tasks import BackgroundTasks
from kafkette.common.config_def import ConfigError
from kafkette.common.network.client_security import PLAINTEXT, ClientSecurity
from kafkette.common.network.connection import BrokerConnection
from kafkette.common.topic_names import METADATA_TOPIC_PARTITION_DIR
from kafkette.controller.raft import raft_messages as core
from kafkette.controller.raft.file_replicated_log import FileReplicatedLog, fsync_and_close
from kafkette.controller.raft.kafka_raft_client import KafkaRaftClient, LeaderChange
from kafkette.controller.raft.leader_state import LeaderState
from kafkette.controller.raft.quorum_state_store import DeferredQuorumStateStore, FileQuorumStateStore
from kafkette.controller.raft.raft_config import RaftConfig
from kafkette.controller.raft.raft_wire import RaftWire
from kafkette.controller.raft.record_serde import RecordSerde
from kafkette.controller.raft.replicated_log import LogEntry, OffsetAndEpoch
from kafkette.controller.raft.segment_rewrite import SegmentRewrite
from kafkette.protocol.errors import (
    Errors,
    KafkaConnectionError,
    KafkaTimeoutError,
    NotLeaderOrFollowerError,
    error_class,
)

logger = logging.getLogger(__name__)

STOP_TIMEOUT_S = 5.0
SLOW_FLUSH_MS = 500  # a metadata log flush this slow is logged
FETCH_MAX_WAIT_MS = 500  # the longest a leader holds a fetch it has nothing new for (Kafka's max_wait_ms)


def _monotonic_ms() -> int:
    return int(time.monotonic() * 1000)


class RaftManager:
    """Runs the Raft replica of node ``node_id``.

    Args:
        node_id: this voter.
        voters: ``{node id: (host, port)}`` of ``controller.quorum.voters``.
        metadata_log_dir: the directory holding ``__cluster_metadata-0/``.
        cluster_id: sent in every quorum request.
        serde: the state machine's record encoding (Kafka's ``RecordSerde``; the controller's
            ``METADATA_RECORD_SERDE``): the Raft layer knows nothing of what a record holds.
        config: the quorum's timeouts.
        on_commit: called with each run of newly committed entries, in offset order.
        on_snapshot: called with a snapshot's bytes when the entries to deliver next are in it
            rather than in the log (the log starts with a snapshot, or one was fetched from the
            leader): what follows on ``on_commit`` continues from its end offset.
        on_inconsistent: called with a voter's id, the error and None when it answered
            INCONSISTENT_VOTER_SET (it does not count this node among its voters:
            ``controller.quorum.voters`` differs) or INCONSISTENT_CLUSTER_ID (``cluster.id`` differs);
            called with the leader's id, INCONSISTENT_VOTER_SET and the leader's voters when a
            fetched ``LeaderChange`` names other voters than this node's (the entries are not
            appended).
        on_change: called (no arguments) after anything that may have changed the role, the
            leader or the high watermark (Kafka's ``RaftClient.Listener.handleLeaderChange``,
            widened); it must not block.
        on_fatal: called with the error when the metadata log or the quorum state cannot be
            written, or the poll loop crashed: the replica cannot go on (Kafka's raft fault
            handler, which stops the process).
        rng: randomness for election timeouts.
        clock_ms: monotonic clock (ms).
        security: TLS and SASL of requests to the other voters over the controller listener
            (plaintext by default).
    """

    def __init__(
        self,
        node_id: int,
        voters: Mapping[int, tuple[str, int]],
        metadata_log_dir: str,
        *,
        cluster_id: str | None,
        serde: RecordSerde,
        config: RaftConfig | None = None,
        on_commit: Callable[[list[LogEntry]], None] | None = None,
        on_snapshot: Callable[[bytes], None] | None = None,
        on_inconsistent: Callable[[int, int, tuple[int, ...] | None], None] | None = None,
        on_change: Callable[[], None] | None = None,
        on_fatal: Callable[[BaseException], None] | None = None,
        rng: random.Random | None = None,
        clock_ms: Callable[[], int] = _monotonic_ms,
        security: ClientSecurity = PLAINTEXT,
    ) -> None:
        self.node_id = node_id
        self._security = security
        self.voters = dict(voters)
        self.directory = f"{metadata_log_dir}/{METADATA_TOPIC_PARTITION_DIR}"
        self.cluster_id = cluster_id
        self._wire = RaftWire(serde)
        # this driver's leader holds fetches that bring nothing (see handle_request): a follower
        # need not wait before asking again
        self.config = dataclasses.replace(config or RaftConfig(), idle_fetch_backoff_ms=1)
        self._on_commit = on_commit
        self._on_snapshot = on_snapshot
        self._on_inconsistent = on_inconsistent
        self._on_change = on_change
        self._on_fatal = on_fatal
        self._rng = rng or random.Random()
        self._clock_ms = clock_ms
        self.client: KafkaRaftClient | None = None
        self._log: FileReplicatedLog | None = None
        self._store: DeferredQuorumStateStore | None = None
        self._persist_lock = asyncio.Lock()
        # the snapshot file work running on a worker thread (stop waits for it)
        self._rewrite_work: tuple[SegmentRewrite, asyncio.Future[Any]] | None = None
        self._delivered = 0
        self._commit_waiters: list[tuple[int, asyncio.Future[None]]] = []
        self._connections: dict[int, BrokerConnection] = {}
        self._wake = asyncio.Event()
        self._progress = asyncio.Event()
        self._high_watermark_sent: dict[int, int] = {}
        self._fetch_max_wait_ms = min(FETCH_MAX_WAIT_MS, self.config.fetch_timeout_ms // 4)
        self._last_high_watermark = -1
        self._prefix = f"[RaftManager nodeId={node_id}]"
        self._tasks = BackgroundTasks()  # the poll loop and its outbound requests

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        """Open the log and the quorum state, then start polling.

        Raises:
            OSError: the directory or files cannot be used.
            ValueError: a corrupt quorum-state file.
            ConfigError: ``controller.quorum.voters`` differs from the voters the quorum state was
                written with.
        """
        loop = asyncio.get_running_loop()
        self._log = await loop.run_in_executor(
            None,
            functools.partial(
                FileReplicatedLog,
                self.directory,
                self._wire.encode_payload,
                self._wire.decode_payload,
                defer_rewrites=True,
            ),
        )
        store = FileQuorumStateStore(self.directory, self.voters)
        stored = store.stored_voters()
        if stored is not None and stored != sorted(self.voters):
            self._log.close()
            raise ConfigError(
                f"Invalid value for configuration controller.quorum.voters: voters {sorted(self.voters)} "
                f"differ from the voters {stored} that {store.path} was written with (a static quorum's "
                f"voters cannot change)"
            )
        self._store = DeferredQuorumStateStore(store)
        self.client = KafkaRaftClient(
            self.node_id,
            frozenset(self.voters),
            self._log,
            self._store,
            self.config,
            self._rng,
            self._clock_ms(),
        )
        logger.info(
            "%s Started in epoch %d with %d entries", self._prefix, self.client.epoch, self._log.end_offset()
        )
        self._tasks.start(
            self._run, f"raft-manager-{self.node_id}", on_failure=self._on_fatal, log_prefix=self._prefix
        )

    async def stop(self) -> None:
        """Stop polling, release held fetches, drop outbound requests, fail commit waiters, close
        connections and the log."""
        self._progress.set()
        await self._tasks.stop(STOP_TIMEOUT_S)
        await self._finish_rewrite()
        for _, waiter in self._commit_waiters:
            if not waiter.done():
                waiter.set_exception(NotLeaderOrFollowerError(f"{self._prefix} stopped"))
        self._commit_waiters.clear()
        for connection in self._connections.values():
            await connection.close()
        self._connections.clear()
        if self._log is not None:
            try:
                await asyncio.to_thread(self._log.close)  # any planned snapshot file work, the last fsync
            except (OSError, RuntimeError) as exc:
                logger.error("%s Could not close the metadata log: %r", self._prefix, exc)

    async def _finish_rewrite(self) -> None:
        """Wait for snapshot file work left running by the stopped poll loop, and switch to its
        segment, so the log closes on the files it describes."""
        if self._rewrite_work is None or self._log is None:
            return
        rewrite, work = self._rewrite_work
        self._rewrite_work = None
        try:
            segment = await asyncio.wait_for(asyncio.shield(work), STOP_TIMEOUT_S)
        except (OSError, TimeoutError) as exc:
            logger.error("%s Snapshot file work did not finish: %r", self._prefix, exc)
            return
        self._log.complete_rewrite(rewrite, segment)

    # ------------------------------------------------------------------ queries

    @property
    def epoch(self) -> int:
        return self._core().epoch

    def leader_id(self) -> int:
        return self._core().leader_id()

    @property
    def high_watermark(self) -> int:
        return self._core().high_watermark

    def is_leader(self) -> bool:
        return self._core().is_leader()

    @property
    def log_end_offset(self) -> int:
        """The offset the next appended entry gets."""
        return self._core().log.end_offset()

    @property
    def delivered_offset(self) -> int:
        """The end of what was delivered to ``on_snapshot`` / ``on_commit`` (offsets)."""
        return self._delivered

    def latest_snapshot(self) -> tuple[OffsetAndEpoch, bytes] | None:
        """The latest snapshot's id and bytes, None when the log has none."""
        assert self._log is not None
        snapshot_id = self._log.latest_snapshot_id()
        if snapshot_id is None:
            return None
        data = self._log.read_snapshot(snapshot_id)
        assert data is not None
        return snapshot_id, data

    def create_snapshot(self, end_offset: int, data: bytes) -> OffsetAndEpoch:
        """Store ``data``, the state after applying every entry below ``end_offset``, as a
        snapshot and drop those entries from the log (KIP-630).  The log moves at once; the poll
        loop writes the files on a worker thread (a failure there is fatal, ``on_fatal``).

        Returns:
            The snapshot id (end offset, epoch of the entry before it).

        Raises:
            ValueError: ``end_offset`` is beyond what was delivered or not above the log start offset.
        """
        if end_offset > self._delivered:
            raise ValueError(
                f"{self._prefix} snapshot end offset {end_offset} is beyond the delivered offset "
                f"{self._delivered}"
            )
        snapshot_id = self._core().create_snapshot(end_offset, data)
        self._wake.set()  # the poll loop writes its files, off the event loop
        return snapshot_id

    @property
    def committed_start_offset(self) -> int:
        """The log start offset: entries below it are in the latest snapshot."""
        assert self._log is not None
        return self._log.log_start_offset()

    def committed_entries(self) -> list[LogEntry]:
        """Every committed entry still in the log, in offset order (the ones already delivered
        to ``on_commit``)."""
        assert self._log is not None
        start = self._log.log_start_offset()
        return self._log.read(start, self._delivered - start) if self._delivered > start else []

    def replica_states(self) -> list[tuple[int, int, int]] | None:
        """The leader's view of each voter: ``[(voter id, log end offset, last fetch ms on the
        monotonic clock, -1 if never)]`` sorted by id; None when this node is not the leader."""
        state = self._core().state
        if not isinstance(state, LeaderState):
            return None
        log_end = self._core().log.end_offset()
        return [
            (
                voter,
                log_end if voter == self.node_id else replica.end_offset,
                self._clock_ms() if voter == self.node_id else replica.last_fetch_ms,
            )
            for voter, replica in sorted(state.replicas.items())
        ]

    def clock_ms(self) -> int:
        """The manager's monotonic clock (ms)."""
        return self._clock_ms()

    def _core(self) -> KafkaRaftClient:
        if self.client is None:
            raise RuntimeError(f"{self._prefix} not started")
        return self.client

    # ------------------------------------------------------------------ writes

    async def propose(self, payloads: list[Any], timeout_ms: int) -> int:
        """Append ``payloads`` as the leader and wait until they are committed.

        Returns:
            The offset of the last entry.

        Raises:
            NotLeaderOrFollowerError: this node is not the leader (or stopped before the commit).
            KafkaTimeoutError: not committed within ``timeout_ms`` (the entries may commit later).
        """
        _, last = self._core().propose(payloads, self._clock_ms())
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._commit_waiters.append((last, waiter))
        self._wake.set()
        self._signal_progress()
        try:
            await asyncio.wait_for(asyncio.shield(waiter), timeout_ms / 1000)
        except TimeoutError:
            raise KafkaTimeoutError(
                f"{self._prefix} entries up to {last} not committed in {timeout_ms} ms"
            ) from None
        return last

    # ------------------------------------------------------------------ inbound

    async def handle_request(self, request: Any) -> Any:
        """Answer a quorum request from another voter (Vote, BeginQuorumEpoch, EndQuorumEpoch,
        Fetch of ``__cluster_metadata-0``).

        Raises:
            ValueError: a request about another partition or with malformed entries.
            TypeError: not a quorum request.
            InconsistentClusterIdError: the request names another ``cluster.id`` (Kafka's
                INCONSISTENT_CLUSTER_ID: the sender belongs to another cluster).
        """
        theirs = getattr(request, "cluster_id", None)
        if theirs is not None and self.cluster_id is not None and theirs != self.cluster_id:
            raise error_class(Errors.INCONSISTENT_CLUSTER_ID)(
                f"{self._prefix} a quorum request of cluster {theirs!r} reached cluster {self.cluster_id!r}"
            )
        source, message = self._wire.from_wire(request)
        reply = await self._answer(source, message)
        if isinstance(reply, core.FetchResponse) and self._may_hold(source, reply):
            # Kafka's delayed fetch: an empty answer waits (up to FETCH_MAX_WAIT_MS) for new
            # entries or a higher high watermark, so a commit needs no polling follower
            progress = self._progress
            try:
                await asyncio.wait_for(progress.wait(), self._fetch_max_wait_ms / 1000)
            except TimeoutError:
                pass
            reply = await self._answer(source, message)
        if isinstance(reply, core.FetchResponse):
            self._high_watermark_sent[source] = reply.high_watermark
        return self._wire.to_wire(reply, self.cluster_id)

    async def _answer(self, source: int, message: Any) -> Any:
        outs = self._core().handle(source, message, self._clock_ms())
        self._after_change()
        await self._persist_election_state()
        for out in outs:
            if out.destination != source:
                self._send(out)
        return next(out.message for out in outs if out.destination == source)

    def _may_hold(self, source: int, reply: core.FetchResponse) -> bool:
        """True for a leader's answer that brings the follower nothing new."""
        return (
            reply.error_code == Errors.NONE
            and not reply.entries
            and reply.diverging_epoch is None
            and reply.snapshot_id is None
            and self._core().is_leader()
            and reply.high_watermark <= self._high_watermark_sent.get(source, -1)
        )

    def _signal_progress(self) -> None:
        """Release the held fetches: there are new entries or a higher high watermark."""
        self._progress.set()
        self._progress = asyncio.Event()

    # ------------------------------------------------------------------ the loop

    async def _run(self) -> None:
        client = self._core()
        while True:
            # the core's poll flushes first; doing it here, off the event loop, leaves it nothing
            # to flush (no await between the last check and the poll), so the loop keeps answering
            # fetches and votes while the disk syncs
            await self._flush()
            outs = client.poll(self._clock_ms())
            self._after_change()
            await self._persist_election_state()
            for out in outs:
                self._send(out)
            if client.log.flushed_offset() < client.log.end_offset() or client.log.rewrite_pending:
                # appended during the poll (a new leader's LeaderChange), or a snapshot taken on
                # the commits it delivered: write them now
                continue
            delay_ms = max(
                1, min(client.next_deadline_ms() - self._clock_ms(), self.config.request_timeout_ms)
            )
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), delay_ms / 1000)
            except TimeoutError:
                pass

    async def _flush(self) -> None:
        """Make the quorum state and every appended entry durable, and write the snapshots taken,
        their fsyncs on worker threads; entries appended meanwhile (a follower's fetched entries)
        are flushed by the next round.  A leader counts its own entries toward the high watermark
        only once flushed (in the next poll), so an entry is acknowledged only after its fsync;
        the quorum state goes first, so no entry of an epoch is durable before the epoch is.

        Raises:
            OSError: a file could not be written (``on_fatal`` is told first).
        """
        assert self._log is not None
        await self._persist_election_state()
        while True:
            rewrite = self._log.take_rewrite()
            if rewrite is not None:
                await self._run_rewrite(rewrite)
                continue
            ticket = self._log.begin_flush()
            if ticket is None:
                return
            started = time.monotonic()
            await asyncio.to_thread(fsync_and_close, ticket.fd)
            self._log.complete_flush(ticket)
            elapsed_ms = (time.monotonic() - started) * 1000
            if elapsed_ms >= SLOW_FLUSH_MS:
                logger.info(
                    "%s Flushing the metadata log up to offset %d took %d ms",
                    self._prefix,
                    ticket.end_offset,
                    elapsed_ms,
                )

    async def _run_rewrite(self, rewrite: SegmentRewrite) -> None:
        """Run a snapshot's file work on a worker thread, then switch the log to its segment.

        Raises:
            OSError: a file could not be written (``on_fatal`` is told first).
        """
        assert self._log is not None
        started = time.monotonic()
        work = asyncio.get_running_loop().run_in_executor(None, rewrite.run)
        self._rewrite_work = (rewrite, work)
        try:
            segment = await asyncio.shield(work)
        except OSError as exc:
            self._rewrite_work = None
            self._fail(f"Could not write snapshot file {rewrite.snapshot_path.name}", exc)
            raise
        self._rewrite_work = None
        self._log.complete_rewrite(rewrite, segment)
        logger.info(
            "%s Wrote snapshot file %s in %d ms",
            self._prefix,
            rewrite.snapshot_path.name,
            (time.monotonic() - started) * 1000,
        )

    async def _persist_election_state(self) -> None:
        """Make the quorum state the core last wrote durable (``quorum-state``, on a worker
        thread) before anything the core produced since is sent; one write at a time, each the
        newest state.

        Raises:
            OSError: the file could not be written (``on_fatal`` is told first).
        """
        store = self._store
        if store is None or not store.pending:
            return
        target = store.version
        async with self._persist_lock:
            while store.durable_version < target:
                version, state = store.staged()
                try:
                    await asyncio.to_thread(store.store.write, state)
                except OSError as exc:
                    self._fail(f"Could not write {store.store.path}", exc)
                    raise
                store.mark_durable(version)

    def _fail(self, what: str, exc: BaseException) -> None:
        logger.error("%s %s: %r", self._prefix, what, exc)
        if self._on_fatal is not None:
            self._on_fatal(exc)

    def _after_change(self) -> None:
        """Deliver newly committed entries and complete the waits they satisfy."""
        client = self._core()
        assert self._log is not None
        high_watermark = client.high_watermark
        if high_watermark != self._last_high_watermark:
            self._last_high_watermark = high_watermark
            self._signal_progress()
        start = self._log.log_start_offset()
        if start > self._delivered:
            snapshot = self.latest_snapshot()
            assert snapshot is not None and snapshot[0].offset == start
            self._delivered = start
            if self._on_snapshot is not None:
                self._on_snapshot(snapshot[1])
        if high_watermark > self._delivered:
            entries = self._log.read(self._delivered, high_watermark - self._delivered)
            self._delivered = high_watermark
            if self._on_commit is not None:
                self._on_commit(entries)
        waiting = []
        for offset, waiter in self._commit_waiters:
            if waiter.done():
                continue
            if offset < high_watermark:
                waiter.set_result(None)
            elif not client.is_leader():
                waiter.set_exception(
                    NotLeaderOrFollowerError(
                        f"{self._prefix} lost leadership before offset {offset} committed"
                    )
                )
            else:
                waiting.append((offset, waiter))
        self._commit_waiters = waiting
        if self._on_change is not None:
            self._on_change()

    # ------------------------------------------------------------------ outbound

    def _other_voters(self, message: Any) -> tuple[int, ...] | None:
        """The voters of a fetched ``LeaderChange`` (Kafka's ``LeaderChangeMessage.voters``) when
        they are not this node's ``controller.quorum.voters``, else None: the leader was elected
        by majorities of another voter set."""
        if not isinstance(message, core.FetchResponse):
            return None
        for entry in message.entries:
            payload = entry.payload
            if isinstance(payload, LeaderChange) and sorted(payload.voters) != sorted(self.voters):
                return tuple(sorted(payload.voters))
        return None

    def _send(self, out: core.Outbound) -> None:
        self._tasks.spawn(self._request(out))

    async def _request(self, out: core.Outbound) -> None:
        address = self.voters.get(out.destination)
        if address is None:
            return
        correlation_id = getattr(out.message, "correlation_id", 0)
        try:
            connection = self._connections.get(out.destination)
            if connection is None or not connection.connected:
                connection = BrokerConnection(
                    *address,
                    client_id=f"raft-{self.node_id}",
                    request_timeout_ms=self.config.request_timeout_ms,
                    security=self._security,
                )
                self._connections[out.destination] = connection
                await connection.connect()
            response = await connection.send(self._wire.to_wire(out.message, self.cluster_id))
            if getattr(response, "error_code", None) in (
                Errors.INCONSISTENT_CLUSTER_ID,
                Errors.INCONSISTENT_VOTER_SET,
            ):
                refusal = response.error_code
            else:
                source, message = self._wire.from_wire(
                    response, source=out.destination, correlation_id=correlation_id
                )
                refusal = getattr(message, "error_code", None)
        except (KafkaConnectionError, KafkaTimeoutError, OSError) as exc:
            logger.debug("%s Request to %d failed: %s", self._prefix, out.destination, exc)
            return
        except (ValueError, TypeError) as exc:
            logger.warning("%s Bad answer from %d: %s", self._prefix, out.destination, exc)
            return
        if refusal in (Errors.INCONSISTENT_CLUSTER_ID, Errors.INCONSISTENT_VOTER_SET):
            if self._on_inconsistent is not None:
                self._on_inconsistent(out.destination, refusal, None)
            return
        their_voters = self._other_voters(message)
        if their_voters is not None:
            if self._on_inconsistent is not None:
                self._on_inconsistent(out.destination, Errors.INCONSISTENT_VOTER_SET, their_voters)
            return
        follow_ups = self._core().handle(source, message, self._clock_ms())
        self._after_change()
        try:
            await self._persist_election_state()
        except OSError:
            return  # fatal: told by _persist_election_state
        for follow_up in follow_ups:
            self._send(follow_up)
        self._wake.set()
