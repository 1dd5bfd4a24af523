"""QuorumController: a controller node of the KRaft quorum: a Raft voter that is the active
controller while it leads.

Owns: the node's Raft replica of ``__cluster_metadata-0`` (``RaftManager``), the committed
image (a ``ControllerContext`` every voter keeps by applying each committed record, from which
it writes a snapshot every ``metadata.log.max.record.bytes.between.snapshots`` bytes of
records, KIP-630), the Raft
requests other voters send (Vote, BeginQuorumEpoch, EndQuorumEpoch, Fetch and
FetchSnapshot of the metadata partition), DescribeQuorum, and the controller terms: when
this voter leads epoch E and every entry of its log is committed (the epoch's opening
``LeaderChange`` included, so every earlier record has been replayed by a majority), a
new ``KafkaController`` is started over the committed records (``RaftMetadataLog``);
it then does what a new controller does (controller epoch E, LeaderAndIsr and
UpdateMetadata to every live broker, elections of leaderless partitions, queued topic
deletions resumed).  When leadership is lost, or a write of the term fails (its entries may
still commit, so the term's memory is no longer trusted), the term is stopped and, if this
voter still leads, a new one starts once the log is committed again.  Requests reaching a
voter that is not the active controller answer NOT_CONTROLLER.  Does not own what the
records mean (``KafkaController`` and its managers) nor the network listener.

Kafka concept: ``QuorumController`` with ``QuorumMetaLogListener.handleLeaderChange``
(claim and renounce) over ``KafkaRaftClient`` (KIP-500, KIP-595, KIP-631).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable, Mapping
from typing import Any

from kafkette.common.background_tasks import ShutdownableTask
from kafkette.common.kafka_scheduler import KafkaScheduler
from kafkette.common.topic_names import CLUSTER_METADATA_TOPIC_NAME
from kafkette.controller.controller import KafkaController
from kafkette.controller.controller_config import ControllerConfig
from kafkette.controller.controller_context import ControllerContext
from kafkette.controller.metadata_record_serde import METADATA_RECORD_SERDE
from kafkette.controller.metadata_records import BeginTransactionRecord, EndTransactionRecord, MetadataRecord
from kafkette.controller.metadata_snapshot import decode_snapshot, encode_snapshot, snapshot_records
from kafkette.controller.raft.raft_config import RaftConfig
from kafkette.controller.raft.raft_manager import RaftManager
from kafkette.controller.raft.replicated_log import LogEntry
from kafkette.controller.raft_metadata_log import RaftMetadataLog
from kafkette.protocol.apis.raft import (
    DescribeQuorumListener,
    DescribeQuorumNode,
    DescribeQuorumPartitionResponse,
    DescribeQuorumRequest,
    DescribeQuorumResponse,
    DescribeQuorumTopicResponse,
    QuorumReplicaState,
)
from kafkette.protocol.errors import Errors, KafkaTimeoutError, NotControllerError, error_class

logger = logging.getLogger(__name__)

STOP_TIMEOUT_S = 15.0


def _monotonic_ms() -> int:
    return int(time.monotonic() * 1000)


ACTIVATION_RETRY_BACKOFF_S = 0.1


class InconsistentQuorumError(RuntimeError):
    """Voters disagree on ``controller.quorum.voters`` (Kafka's INCONSISTENT_VOTER_SET) or a
    majority of them on ``cluster.id`` (INCONSISTENT_CLUSTER_ID); the message names the property."""


class QuorumController:
    """A voter of ``controller.quorum.voters`` and, while it leads, the active controller.

    Args:
        config: the controller's settings (``node.id`` is this voter).
        voters: ``{node id: (host, port)}`` of ``controller.quorum.voters``.
        metadata_log_dir: the directory holding ``__cluster_metadata-0/``.
        raft_config: the quorum's timeouts (``controller.quorum.*``).
        rng: randomness for elections and replica assignment.
        scheduler: the node's KafkaScheduler, which runs each term's periodic jobs (the broker
            session check, the auto leader rebalance); each term has one of its own when None.
        fatal_fault_handler: called with the error when the committed metadata cannot be
            loaded (an illegal state transition in the log, a log that cannot be read), another
            voter's ``controller.quorum.voters`` does not count this node, or a majority of the
            voters refused it for another ``cluster.id``: the node must stop, as
            Kafka's ``ProcessTerminatingFaultHandler`` stops it; default: log it and go idle.

    The controller APIs are answered by ``controller`` (NOT_CONTROLLER when this voter is not
    the active controller), as ``ControllerEndpoint`` requires.
    """

    def __init__(
        self,
        config: ControllerConfig,
        *,
        voters: Mapping[int, tuple[str, int]],
        metadata_log_dir: str,
        raft_config: RaftConfig | None = None,
        rng: random.Random | None = None,
        fatal_fault_handler: Callable[[BaseException], None] | None = None,
        scheduler: KafkaScheduler | None = None,
    ) -> None:
        self.config = config
        self._voters = dict(voters)
        self._scheduler = scheduler
        self._fatal_fault_handler = fatal_fault_handler
        self.node_id = config.node_id
        self._rng = rng or random.Random()
        raft_config = raft_config or RaftConfig()
        self.raft = RaftManager(
            self.node_id,
            voters,
            metadata_log_dir,
            cluster_id=config.cluster_id,
            serde=METADATA_RECORD_SERDE,
            config=raft_config,
            on_change=self._on_raft_change,
            on_commit=self._on_commit,
            on_snapshot=self._on_snapshot,
            on_inconsistent=self._on_inconsistent,
            on_fatal=self._fatal,
            rng=self._rng,
            security=config.controller_security,
        )
        self._snapshot_every_bytes = raft_config.metadata_log_max_record_bytes_between_snapshots
        self.image = ControllerContext(_monotonic_ms, lambda: self._prefix)
        self._bytes_since_snapshot = 0
        self._active: KafkaController | None = None
        self._active_epoch = -1
        self._renounce_reason: str | None = None
        self._current = self._term(-1)  # never started: answers NOT_CONTROLLER
        self._reconcile_task = ShutdownableTask(f"quorum-controller-{self.node_id}")
        self._dirty = False
        self._stopping = False
        self._cluster_id_refusals: set[int] = set()
        self._prefix = f"[QuorumController id={self.node_id}]"

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        """Open the metadata log and start the Raft replica; the controller becomes active
        later, once this voter is elected and its log committed.

        Raises:
            OSError: the metadata log directory cannot be used.
            ValueError: a corrupt quorum-state file.
        """
        await self.raft.start()

    async def stop(self) -> None:
        """Stop the active term (if any), then the Raft replica."""
        self._stopping = True
        await self._reconcile_task.shutdown(STOP_TIMEOUT_S)
        await self._deactivate("the node is shutting down")
        await self.raft.stop()

    @property
    def is_active(self) -> bool:
        """True while this voter is the active controller."""
        return self._active is not None

    @property
    def controller(self) -> KafkaController:
        """The current term's controller, which answers the controller APIs (``ControllerEndpoint``'s
        one accessor): the active one, or a never-started or stopped term that answers
        NOT_CONTROLLER."""
        return self._current

    @property
    def active_controller(self) -> KafkaController | None:
        """The running term's controller, or None."""
        return self._active

    @property
    def controller_epoch(self) -> int:
        """The active term's controller epoch (-1 when not active)."""
        return self._active.controller_epoch if self._active is not None else -1

    def leader_id(self) -> int:
        """The Raft leader (the active controller) as this voter knows it, -1 when unknown."""
        return self.raft.leader_id() if self.raft.client is not None else -1

    # ------------------------------------------------------------------ the committed image

    def _on_snapshot(self, data: bytes) -> None:
        """The log starts with a snapshot (at start-up, or fetched from the leader): the image
        is rebuilt from its records."""
        image = ControllerContext(_monotonic_ms, lambda: self._prefix)
        try:
            for record in decode_snapshot(data):
                image.replay(record)
        except Exception as exc:  # a snapshot that cannot be loaded: the node cannot run on it
            self._fatal(exc)
            return
        self.image, self._bytes_since_snapshot = image, 0

    def _on_commit(self, entries: list[LogEntry]) -> None:
        """Apply newly committed records to the image; take a snapshot every
        ``metadata.log.max.record.bytes.between.snapshots`` bytes of them."""
        if self._stopping:
            return
        for entry in entries:
            record = entry.payload
            if not isinstance(record, MetadataRecord) or isinstance(
                record, (BeginTransactionRecord, EndTransactionRecord)
            ):
                continue
            try:
                self.image.replay(record)
            except Exception as exc:  # a committed record that cannot be applied
                self._fatal(exc)
                return
            self._bytes_since_snapshot += len(METADATA_RECORD_SERDE.write(record))
        if self._bytes_since_snapshot >= self._snapshot_every_bytes:
            self._take_snapshot()

    def _take_snapshot(self) -> None:
        end_offset = self.raft.delivered_offset
        if end_offset <= self.raft.committed_start_offset:
            return
        try:
            snapshot_id = self.raft.create_snapshot(end_offset, encode_snapshot(snapshot_records(self.image)))
        except ValueError as exc:
            logger.error("%s Could not take a snapshot at offset %d: %r", self._prefix, end_offset, exc)
            return
        self._bytes_since_snapshot = 0
        logger.info(
            "%s Took snapshot %s of %d brokers, %d topics, %d partitions (its files are written off "
            "the event loop)",
            self._prefix,
            snapshot_id,
            len(self.image.brokers),
            len(self.image.topics),
            len(self.image.partitions),
        )

    def _on_inconsistent(self, voter: int, error: int, leader_voters: tuple[int, ...] | None) -> None:
        """A voter refused a request as from a node outside its voters, or the leader's
        ``LeaderChange`` names other voters than this node's: this node stops rather than run a
        quorum whose majorities disagree.  A refusal for another ``cluster.id`` is logged at
        ERROR; once a majority of the voters has refused this node so, it stops."""
        if error == Errors.INCONSISTENT_CLUSTER_ID:
            # both sides refuse each other's requests: the node refused by a majority of the
            # voters is the one whose cluster.id is not the quorum's, and it stops
            logger.error(
                "%s Node %d refused a quorum request: its cluster.id differs from %r "
                "(INCONSISTENT_CLUSTER_ID)",
                self._prefix,
                voter,
                self.config.cluster_id,
            )
            self._cluster_id_refusals.add(voter)
            if len(self._cluster_id_refusals) > len(self.raft.voters) // 2:
                refused_by = ",".join(str(v) for v in sorted(self._cluster_id_refusals))
                self._fatal(
                    InconsistentQuorumError(
                        f"Invalid value {self.config.cluster_id!r} for configuration cluster.id: "
                        f"voters {refused_by}, a majority of controller.quorum.voters, belong to another "
                        f"cluster (INCONSISTENT_CLUSTER_ID)"
                    )
                )
            return
        voters = ",".join(str(v) for v in sorted(self.raft.voters))
        if leader_voters is None:
            detail = f"node {voter} does not count node {self.node_id} among its voters"
        else:
            detail = f"leader {voter} was elected by voters {','.join(map(str, leader_voters))}"
        self._fatal(
            InconsistentQuorumError(
                f"controller.quorum.voters differs between nodes: {detail} (this node's voters: {voters})"
            )
        )

    def _fatal(self, error: BaseException) -> None:
        if self._stopping:
            return
        logger.error("%s Fatal: %s", self._prefix, error)
        self._stopping = True
        if self._fatal_fault_handler is not None:
            self._fatal_fault_handler(error)

    # ------------------------------------------------------------------ claim and renounce

    def _term(self, epoch: int) -> KafkaController:
        log = RaftMetadataLog(
            self.raft,
            epoch,
            commit_timeout_ms=self.config.request_timeout_ms,
            on_write_failure=self._renounce,
        )
        return KafkaController(self.config, metadata_log=log, rng=self._rng, scheduler=self._scheduler)

    def _renounce(self, reason: str) -> None:
        self._renounce_reason = reason
        self._on_raft_change()

    def _on_raft_change(self) -> None:
        """Called by the Raft replica after each change: start (or re-run) the reconciliation."""
        if self._stopping:
            return
        self._dirty = True
        if not self._reconcile_task.running:
            self._reconcile_task.start(self._reconcile)

    def _may_lead(self) -> bool:
        raft = self.raft
        return raft.client is not None and raft.is_leader() and raft.high_watermark >= raft.log_end_offset

    async def _reconcile(self) -> None:
        while self._dirty and not self._stopping:
            self._dirty = False
            leads = self.raft.client is not None and self.raft.is_leader()
            if self._active is not None and (
                not leads or self.raft.epoch != self._active_epoch or self._renounce_reason is not None
            ):
                reason = self._renounce_reason or f"Raft leadership of epoch {self._active_epoch} lost"
                await self._deactivate(reason)
                self._dirty = True
            elif self._active is None and self._may_lead():
                await self._activate(self.raft.epoch)
                self._dirty = True

    async def _activate(self, epoch: int) -> None:
        self._renounce_reason = None
        controller = self._term(epoch)
        logger.info(
            "%s Elected leader of the metadata quorum in epoch %d: becoming the active controller",
            self._prefix,
            epoch,
        )
        try:
            await controller.start()
        except (NotControllerError, KafkaTimeoutError) as exc:  # start stopped the controller; stay a standby
            logger.warning(
                "%s Could not become the active controller in epoch %d: %s", self._prefix, epoch, exc
            )
            await asyncio.sleep(ACTIVATION_RETRY_BACKOFF_S)
            return
        except Exception as exc:
            self._fatal(exc)
            return
        self._active, self._active_epoch, self._current = controller, epoch, controller

    async def _deactivate(self, reason: str) -> None:
        controller, self._active, self._active_epoch = self._active, None, -1
        self._renounce_reason = None
        if controller is None:
            return
        logger.info(
            "%s Renouncing the controller of epoch %d: %s", self._prefix, controller.controller_epoch, reason
        )
        try:
            await asyncio.wait_for(controller.stop(), STOP_TIMEOUT_S)
        except Exception:
            logger.exception("%s Stopping the controller term failed", self._prefix)

    # ------------------------------------------------------------------ quorum requests

    async def handle_raft_request(self, request: Any) -> Any:
        """Answer Vote, BeginQuorumEpoch, EndQuorumEpoch, Fetch or FetchSnapshot of
        ``__cluster_metadata-0`` from another voter.

        Raises:
            ValueError: a malformed request or one about another partition.
            TypeError: not a quorum request.
        """
        return await self.raft.handle_request(request)

    async def describe_quorum(self, request: DescribeQuorumRequest) -> DescribeQuorumResponse:
        """DescribeQuorum (KIP-595, KIP-836): the leader answers with its epoch, high watermark
        and each voter's log end offset and last fetch time (itself first); another voter answers
        NOT_LEADER_OR_FOLLOWER with the leader it knows.  A request for anything but the one partition
        ``__cluster_metadata-0`` gets UNKNOWN_TOPIC_OR_PARTITION with Kafka's message for every
        partition it names (leader, epoch and high watermark left at 0), as Kafka's
        ``DescribeQuorumRequest.getPartitionLevelErrorResponse``.  ``nodes`` (v2, KIP-853) lists each
        voter with its controller listener at the address of ``controller.quorum.voters``, and each
        replica's directory id is the zero Uuid (a static quorum names none), as Kafka's
        ``RaftUtil.singletonDescribeQuorumResponse`` answers for a static voter set; an error answer
        has no nodes."""
        asked = [(t.topic_name, p.partition_index) for t in request.topics for p in t.partitions]
        if len(request.topics) != 1 or asked != [(CLUSTER_METADATA_TOPIC_NAME, 0)]:
            unknown = Errors.UNKNOWN_TOPIC_OR_PARTITION
            return DescribeQuorumResponse(
                topics=[
                    DescribeQuorumTopicResponse(
                        topic_name=t.topic_name,
                        partitions=[
                            DescribeQuorumPartitionResponse(
                                partition_index=p.partition_index,
                                error_code=unknown,
                                error_message=error_class(unknown).message,
                            )
                            for p in t.partitions
                        ],
                    )
                    for t in request.topics
                ]
            )
        partition = self._describe_partition(0)
        topics = [DescribeQuorumTopicResponse(topic_name=CLUSTER_METADATA_TOPIC_NAME, partitions=[partition])]
        if partition.error_code != Errors.NONE:
            return DescribeQuorumResponse(topics=topics)
        listener = self.config.controller_listener_name
        nodes = [
            DescribeQuorumNode(
                node_id=voter, listeners=[DescribeQuorumListener(name=listener, host=host, port=port)]
            )
            for voter, (host, port) in sorted(self._voters.items())
        ]
        return DescribeQuorumResponse(topics=topics, nodes=nodes)

    def _describe_partition(self, index: int) -> DescribeQuorumPartitionResponse:
        raft = self.raft
        states = raft.replica_states() if raft.client is not None else None
        if states is None:
            return DescribeQuorumPartitionResponse(
                partition_index=index,
                error_code=Errors.NOT_LEADER_OR_FOLLOWER,
                error_message=error_class(Errors.NOT_LEADER_OR_FOLLOWER).message,
                leader_id=self.leader_id(),
                leader_epoch=raft.epoch if raft.client is not None else -1,
                high_watermark=-1,
            )
        wall_ms, mono_ms = int(time.time() * 1000), raft.clock_ms()
        voters = [
            QuorumReplicaState(
                replica_id=voter,
                log_end_offset=end_offset,
                last_fetch_timestamp=-1 if fetched_ms < 0 else wall_ms - (mono_ms - fetched_ms),
                last_caught_up_timestamp=-1 if fetched_ms < 0 else wall_ms - (mono_ms - fetched_ms),
            )
            for voter, end_offset, fetched_ms in sorted(states, key=lambda s: (s[0] != self.node_id, s[0]))
        ]
        return DescribeQuorumPartitionResponse(
            partition_index=index,
            leader_id=self.node_id,
            leader_epoch=raft.epoch,
            high_watermark=raft.high_watermark,
            current_voters=voters,
            observers=[],
        )
