"""KafkaController: the active controller inside the first voter's broker process.

Owns: the controller's lifecycle (replay the metadata log, bump and persist the
controller epoch, finish in-flight work - elect leaderless partitions, remove topics
an older controller queued for deletion - tell live brokers the full state, start the event task, the broker
session timer and the leader rebalance timer), the event handlers behind its core API
(CreateTopics, BrokerRegistration, BrokerHeartbeat with its offline replicas,
AlterPartition, session expiry),
writing records (fsync before apply) and the propagation of every change by
LeaderAndIsr and UpdateMetadata.  The topic lifecycle APIs (CreatePartitions,
DeleteTopics, ElectLeaders, ControlledShutdown, DescribeConfigs,
IncrementalAlterConfigs) are handled by ``PartitionApis``, ``TopicDeletionApis`` and
``ConfigApis``, which reach the controller only through ``ControllerOperations`` (which
this class implements).  Decisions are delegated to ``ClusterControlManager`` and
``ReplicationControlManager``; state lives in ``ControllerContext``.  Does not own the
network listener (the broker routes requests here) nor broker-side handling of the
requests it sends.

Kafka concept: ``KafkaController`` (ZK-era pushes: ``onBrokerFailure``,
``onBrokerStartup``, ``onNewPartitionCreation``) driven KRaft-style: broker liveness by
registration and heartbeats, state as a replayed metadata log, one event queue
(``QuorumController``).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from kafkette.common.background_tasks import cancel_and_wait
from kafkette.common.kafka_scheduler import KafkaScheduler
from kafkette.common.network.connection import BrokerConnection
from kafkette.controller.acl_apis import AclApis
from kafkette.controller.acl_control_manager import AclControlManager
from kafkette.controller.client_quota_apis import ClientQuotaApis
from kafkette.controller.client_quota_control_manager import ClientQuotaControlManager
from kafkette.controller.cluster_control_manager import (
    ClusterControlManager,
    HeartbeatAction,
)
from kafkette.controller.config_apis import ConfigApis
from kafkette.controller.config_control_manager import ConfigControlManager
from kafkette.controller.controller_broker_request_batch import ChannelManager, ControllerBrokerRequestBatch
from kafkette.controller.controller_channel_manager import ControllerChannelManager
from kafkette.controller.controller_config import ControllerConfig
from kafkette.controller.controller_context import ControllerContext
from kafkette.controller.event_queue import ControllerEventManager, submit_unless_pending
from kafkette.controller.metadata_records import (
    BeginTransactionRecord,
    ControllerEpochRecord,
    EndTransactionRecord,
    FenceBrokerRecord,
    MetadataRecord,
    PartitionChangeRecord,
    PartitionRecord,
    ProducerIdsRecord,
    RegisterBrokerRecord,
    RemoveTopicRecord,
    TopicDeletionRecord,
    TopicRecord,
    UnfenceBrokerRecord,
)
from kafkette.controller.partition_apis import PartitionApis
from kafkette.controller.partition_propagation import (
    announce_partition_changes,
    on_new_partition_creation,
    write_partition_changes,
)
from kafkette.controller.raft_metadata_log import RaftMetadataLog
from kafkette.controller.replication_control_manager import CreateTopicsOutcome, ReplicationControlManager
from kafkette.controller.scram_apis import ScramApis
from kafkette.controller.scram_control_manager import ScramControlManager
from kafkette.controller.topic_deletion_apis import TopicDeletionApis
from kafkette.protocol.apis.acls import (
    CreateAclsRequest,
    CreateAclsResponse,
    DeleteAclsRequest,
    DeleteAclsResponse,
)
from kafkette.protocol.apis.alter_partition import AlterPartitionRequest, AlterPartitionResponse
from kafkette.protocol.apis.broker_registration import (
    BrokerHeartbeatRequest,
    BrokerHeartbeatResponse,
    BrokerRegistrationRequest,
    BrokerRegistrationResponse,
)
from kafkette.protocol.apis.client_quotas import AlterClientQuotasRequest, AlterClientQuotasResponse
from kafkette.protocol.apis.configs import (
    DescribeConfigsRequest,
    DescribeConfigsResponse,
    IncrementalAlterConfigsRequest,
    IncrementalAlterConfigsResponse,
)
from kafkette.protocol.apis.controlled_shutdown import ControlledShutdownRequest, ControlledShutdownResponse
from kafkette.protocol.apis.create_partitions import CreatePartitionsRequest, CreatePartitionsResponse
from kafkette.protocol.apis.create_topics import (
    CreatableTopicConfigs,
    CreatableTopicResult,
    CreateTopicsRequest,
    CreateTopicsResponse,
)
from kafkette.protocol.apis.delete_topics import DeleteTopicsRequest, DeleteTopicsResponse
from kafkette.protocol.apis.elect_leaders import ElectLeadersRequest, ElectLeadersResponse
from kafkette.protocol.apis.producer_ids import AllocateProducerIdsRequest, AllocateProducerIdsResponse
from kafkette.protocol.apis.user_scram_credentials import (
    AlterUserScramCredentialsRequest,
    AlterUserScramCredentialsResponse,
)
from kafkette.protocol.errors import (
    Errors,
    KafkaTimeoutError,
    NotControllerError,
    error_code_for,
    error_message,
)
from kafkette.protocol.kafka_uuid import uuid_to_string
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)

T = TypeVar("T")
STOP_TIMEOUT_S = 10.0
UNREACHABLE_CHECK_S = 0.2  # how often CreateTopics re-checks which brokers it can no longer reach
SESSION_CHECK_JOB = "broker-session-check"  # fences brokers whose heartbeats stopped
LEADER_REBALANCE_JOB = "auto-leader-rebalance-task"  # Kafka's name for the preferred-leader check


PRODUCER_ID_BLOCK_SIZE = 1000  # Kafka's ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE


class KafkaController:
    """The active controller.

    Args:
        config: the controller's settings (``node.id``, ``num.partitions``,
            ``default.replication.factor``, ``unclean.leader.election.enable``,
            ``delete.topic.enable``, ``auto.leader.rebalance.enable``, the leader
            imbalance check, topic config defaults, ``broker.session.timeout.ms``,
            ``broker.heartbeat.interval.ms``, ``request.timeout.ms``,
            ``controller.socket.timeout.ms``, ``cluster.id``), built by the node.
        metadata_log: where records are written and read back: a ``RaftMetadataLog`` (one
            term of the replicated metadata log, as the node's ``QuorumController`` runs it;
            the controller's unit tests pass a local file log with the same methods).
        channel_manager: where LeaderAndIsr / UpdateMetadata go; default a
            ``ControllerChannelManager`` over ``BrokerConnection`` (tests pass a fake with
            ``start``, ``stop``, ``add_broker``, ``remove_broker`` and ``send``; StopReplica
            responses carry per-partition errors).
        clock_ms: monotonic clock in ms for broker sessions (default: the scheduler's clock;
            tests pass a manual clock).
        rng: randomness for replica assignment.
        scheduler: runs the ``broker-session-check`` and ``auto-leader-rebalance-task`` jobs
            (the node's KafkaScheduler; one of its own when None).

    Public methods may be called from any task on the controller's event loop; each
    becomes an event run on the single event task and is bounded by
    ``request.timeout.ms`` (CreateTopics additionally by its ``timeout_ms``).
    """

    def __init__(
        self,
        config: ControllerConfig,
        *,
        metadata_log: RaftMetadataLog,
        channel_manager: Any | None = None,
        clock_ms: Callable[[], int] | None = None,
        rng: random.Random | object = random,
        scheduler: KafkaScheduler | None = None,
    ) -> None:
        self.config = config
        self.controller_id: int = config.node_id
        self._scheduler = scheduler or KafkaScheduler(
            log_prefix=f"[KafkaScheduler controller={config.node_id}]"
        )
        time_source = self._scheduler.time
        self._clock_ms = clock_ms or (lambda: int(time_source.monotonic_ms()))
        self._session_check_pending: asyncio.Future[Any] | None = None
        self._metadata_log = metadata_log
        self.context = ControllerContext(self._clock_ms, self.log_prefix)
        self._cluster_control = ClusterControlManager(
            self.context,
            cluster_id=config.cluster_id,
            session_timeout_ms=config.broker_session_timeout_ms,
            log_prefix=self.log_prefix,
        )
        self._replication_control = ReplicationControlManager(
            self.context,
            default_num_partitions=config.num_partitions,
            default_replication_factor=config.default_replication_factor,
            unclean_leader_election_enable=config.unclean_leader_election_enable,
            rng=rng,
            log_prefix=self.log_prefix,
            topic_config_defaults=config.topic_config_defaults,
        )
        self._channel: Any = channel_manager or ControllerChannelManager(
            self.controller_id,
            request_timeout_ms=config.controller_socket_timeout_ms,
            connection_factory=functools.partial(BrokerConnection, security=config.inter_broker_security),
        )
        self._config_control = ConfigControlManager(self.context, config, self.log_prefix)
        self._events = ControllerEventManager(self.log_prefix)
        self._deletion_apis = TopicDeletionApis(
            self, self._replication_control, delete_topic_enable=config.delete_topic_enable
        )
        self._partition_apis = PartitionApis(
            self,
            self._replication_control,
            leader_imbalance_per_broker_percentage=config.leader_imbalance_per_broker_percentage,
            leader_imbalance_check_interval_seconds=config.leader_imbalance_check_interval_seconds,
        )
        self._config_apis = ConfigApis(self, self._config_control, self._replication_control)
        self._scram_apis = ScramApis(self, ScramControlManager(self.context))
        self._client_quota_apis = ClientQuotaApis(self, ClientQuotaControlManager(self.context))
        self._acl_apis = AclApis(self, AclControlManager(self.context))
        self._request_timeout_ms: int = config.request_timeout_ms
        self.session_check_interval_ms = max(
            1, min(config.broker_heartbeat_interval_ms // 2, config.broker_session_timeout_ms // 4)
        )
        self._background_tasks: set[asyncio.Task[None]] = set()
        self.shutting_down_broker_ids: set[int] = set()
        self._state = "new"

    # ------------------------------------------------------------------ lifecycle

    @property
    def controller_epoch(self) -> int:
        """The epoch of this controller (last persisted ``ControllerEpochRecord``)."""
        return self.context.controller_epoch

    def log_prefix(self) -> str:
        return f"[Controller id={self.controller_id} epoch={self.context.controller_epoch}]"

    async def start(self) -> None:
        """Replay the metadata log, persist the next controller epoch,
        push state to live brokers, start tasks.

        Raises:
            OSError: the metadata log cannot be read or written (the controller is stopped).
            RuntimeError: called twice.
        """
        if self._state != "new":
            raise RuntimeError(f"KafkaController.start() called in state {self._state}")
        self._state = "starting"
        try:
            records = await self._metadata_log.load()
            for record in records:
                self.context.replay(record)
            self.context.metadata_offset = self._metadata_log.next_offset - 1
            epoch = self._metadata_log.next_controller_epoch(self.context.controller_epoch)
            await self.write([ControllerEpochRecord(epoch=epoch)])
            logger.info(
                "%s Controller started: replayed %d metadata records; %d brokers, %d topics, %d partitions",
                self.log_prefix(),
                len(records),
                len(self.context.brokers),
                len(self.context.topics),
                len(self.context.partitions),
            )
            await self._channel.start()
            await self._on_controller_failover()
            self._events.start()
            self._scheduler.schedule(
                SESSION_CHECK_JOB,
                self._check_broker_sessions,
                delay_ms=self.session_check_interval_ms,
                period_ms=self.session_check_interval_ms,
            )
            if self.config.auto_leader_rebalance_enable:
                interval_ms = self._partition_apis.leader_imbalance_check_interval_ms
                self._scheduler.schedule(
                    LEADER_REBALANCE_JOB,
                    self._partition_apis.queue_leader_rebalance,
                    delay_ms=interval_ms,
                    period_ms=interval_ms,
                )
            self._state = "running"
        except BaseException:
            await self.stop()
            raise

    async def stop(self) -> None:
        """Stop the session timer and the event task, close channels and the metadata log."""
        if self._state == "stopped":
            return
        self._state = "stopped"
        await self._scheduler.cancel(SESSION_CHECK_JOB, LEADER_REBALANCE_JOB, timeout_s=STOP_TIMEOUT_S)
        await cancel_and_wait(self._background_tasks, STOP_TIMEOUT_S)
        await self._events.stop()
        await self._channel.stop()
        await self._metadata_log.close()
        logger.info("%s Controller stopped", self.log_prefix())

    async def _on_controller_failover(self) -> None:
        """Finish in-flight work and tell live brokers everything (a controller that died
        after writing leaves the rest to the next one: ``KafkaController.onControllerFailover``).

        Leaderless partitions with a live ISR member (or any live replica where unclean
        election is enabled) are elected; channels open to live brokers, each gets its
        partitions (LeaderAndIsr, full) and the full metadata; topics an older controller
        queued for deletion (``TopicDeletionRecord``) are removed (``RemoveTopicRecord``).
        """
        await self.write(self._replication_control.elect_offline_partitions(), "ControllerFailoverElection")
        batch = self.new_batch()
        for reg in self.context.live_brokers():
            self._channel.add_broker(reg.broker_id, reg.host, reg.port)
            batch.add_leader_and_isr_request_for_brokers(
                [reg.broker_id], self.context.partitions_on_broker(reg.broker_id), full=True
            )
            batch.add_update_metadata_request_for_brokers([reg.broker_id], full=True)
        batch.send_requests_to_brokers()
        await self._deletion_apis.remove_queued_topics()

    def _check_broker_sessions(self) -> None:
        """Queue a check of the brokers' sessions unless the last one is still queued or running
        (the ``broker-session-check`` job)."""
        self._session_check_pending = submit_unless_pending(
            self._session_check_pending,
            self._events.try_submit,
            "BrokerSessionCheck",
            self._handle_session_check,
        )

    # ---------------------------------------------------------------- public API

    async def create_topics(self, request: CreateTopicsRequest) -> CreateTopicsResponse:
        """Create topics (Kafka's ``ReplicationControlManager.createTopics``, then
        ``onNewPartitionCreation``).

        Each topic is validated on its own; created topics are written to the metadata
        log, their partitions go New -> Online, replicas get LeaderAndIsr (``is_new``)
        and all live brokers UpdateMetadata.  The response waits until those requests
        are acknowledged by every broker the controller can reach (a broker whose channel's
        last attempt failed, dead but not fenced yet, is not waited for, as KRaft's
        controller answers once the records are committed) or ``request.timeout_ms``
        passes (REQUEST_TIMED_OUT for the topics not yet propagated; their creation stands).
        ``timeout_ms <= 0`` or ``validate_only`` answers without waiting.

        Returns:
            ``CreateTopicsResponse`` with one result per requested topic (NOT_CONTROLLER
            for all if the controller is stopped, REQUEST_TIMED_OUT if the event queue
            did not run it in time).
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + max(0, request.timeout_ms) / 1000
        try:
            outcome, acks = await self.submit("CreateTopics", lambda: self._handle_create_topics(request))
        except Exception as exc:  # the wire-code boundary; the event manager logged unexpected errors
            code = error_code_for(exc)
            return CreateTopicsResponse(
                topics=[
                    CreatableTopicResult(name=t.name, error_code=code, error_message=error_message(exc))
                    for t in request.topics
                ]
            )
        if request.timeout_ms > 0 and acks:
            pending = {f for futures in acks.values() for f in futures if not f.done()}
            unreachable: set[asyncio.Future[Any]] = set()
            while pending and loop.time() < deadline:
                _, pending = await asyncio.wait(
                    pending, timeout=min(UNREACHABLE_CHECK_S, deadline - loop.time())
                )
                unreachable = self._channel.awaiting_unreachable_brokers()
                pending -= unreachable
            for result in outcome.response.topics:
                futures = acks.get(result.name)
                if futures and not all(f.done() or f in unreachable for f in futures):
                    result.error_code = Errors.REQUEST_TIMED_OUT
                    result.error_message = (
                        f"Topic {result.name} was created but its partitions were not propagated to the "
                        f"brokers within {request.timeout_ms} ms."
                    )
        return outcome.response

    async def register_broker(self, request: BrokerRegistrationRequest) -> BrokerRegistrationResponse:
        """Register a broker (KIP-631): a new broker epoch, fenced until it heartbeats.

        A different incarnation of a live broker first fences the old one (its partitions
        are re-elected); the same incarnation gets its existing epoch back.
        """
        try:
            return await self.submit("BrokerRegistration", lambda: self._handle_register_broker(request))
        except Exception as exc:  # the wire-code boundary; the event manager logged unexpected errors
            return BrokerRegistrationResponse(
                error_code=error_code_for(exc), error_message=error_message(exc)
            )

    async def broker_heartbeat(self, request: BrokerHeartbeatRequest) -> BrokerHeartbeatResponse:
        """Handle a heartbeat: BROKER_ID_NOT_REGISTERED, STALE_BROKER_EPOCH, else record it and
        unfence (or fence on ``want_fence`` / ``want_shut_down``) the broker.

        First, its ``offline_replicas`` (v1+, the broker's whole set of replicas whose log
        is offline) are compared with the marks the controller holds: newly offline
        replicas lose leadership and ISR membership, replicas no longer reported become
        eligible again (``ReplicationControlManager.handle_replicas_offline``)."""
        try:
            return await self.submit("BrokerHeartbeat", lambda: self._handle_broker_heartbeat(request))
        except Exception as exc:  # the wire-code boundary; the event manager logged unexpected errors
            return BrokerHeartbeatResponse(error_code=error_code_for(exc), is_fenced=True)

    async def alter_partition(self, request: AlterPartitionRequest) -> AlterPartitionResponse:
        """Apply ISR changes requested by partition leaders (KIP-497); see
        ``ReplicationControlManager.alter_partition`` for the per-partition errors."""
        try:
            return await self.submit("AlterPartition", lambda: self._handle_alter_partition(request))
        except Exception as exc:  # the wire-code boundary; the event manager logged unexpected errors
            return AlterPartitionResponse(error_code=error_code_for(exc))

    async def allocate_producer_ids(self, request: AllocateProducerIdsRequest) -> AllocateProducerIdsResponse:
        """Give a broker the next block of ``PRODUCER_ID_BLOCK_SIZE`` producer ids (KIP-730).

        The block is recorded (ProducerIdsRecord) before it is handed out, so no id is
        ever given twice, across controller restarts too.  Unknown broker:
        BROKER_ID_NOT_REGISTERED; wrong broker epoch: STALE_BROKER_EPOCH.
        """
        try:
            return await self.submit(
                "AllocateProducerIds", lambda: self._handle_allocate_producer_ids(request)
            )
        except Exception as exc:  # the wire-code boundary; the event manager logged unexpected errors
            return AllocateProducerIdsResponse(error_code=error_code_for(exc), producer_id_start=-1)

    async def _handle_allocate_producer_ids(
        self, request: AllocateProducerIdsRequest
    ) -> AllocateProducerIdsResponse:
        registration = self.context.brokers.get(request.broker_id)
        if registration is None:
            return AllocateProducerIdsResponse(
                error_code=Errors.BROKER_ID_NOT_REGISTERED, producer_id_start=-1
            )
        if request.broker_epoch != registration.broker_epoch:
            return AllocateProducerIdsResponse(error_code=Errors.STALE_BROKER_EPOCH, producer_id_start=-1)
        start = self.context.next_producer_id
        await self.write(
            [ProducerIdsRecord(request.broker_id, request.broker_epoch, start + PRODUCER_ID_BLOCK_SIZE)],
            "AllocateProducerIds",
        )
        return AllocateProducerIdsResponse(producer_id_start=start, producer_id_len=PRODUCER_ID_BLOCK_SIZE)

    async def check_broker_sessions(self) -> list[int]:
        """Run the session check now (it also runs every ``session_check_interval_ms``).

        Returns:
            Ids of the brokers fenced because their session expired.
        """
        return await self.submit("BrokerSessionCheck", self._handle_session_check)

    async def create_partitions(self, request: CreatePartitionsRequest) -> CreatePartitionsResponse:
        """CreatePartitions (see ``PartitionApis.create_partitions``)."""
        return await self._partition_apis.create_partitions(request)

    async def elect_leaders(self, request: ElectLeadersRequest) -> ElectLeadersResponse:
        """ElectLeaders (see ``PartitionApis.elect_leaders``)."""
        return await self._partition_apis.elect_leaders(request)

    async def check_leader_imbalance(self) -> list[TopicPartition]:
        """Run the auto leader rebalance now (see ``PartitionApis.check_leader_imbalance``)."""
        return await self._partition_apis.check_leader_imbalance()

    async def controlled_shutdown(self, request: ControlledShutdownRequest) -> ControlledShutdownResponse:
        """ControlledShutdown (see ``PartitionApis.controlled_shutdown``)."""
        return await self._partition_apis.controlled_shutdown(request)

    async def delete_topics(self, request: DeleteTopicsRequest) -> DeleteTopicsResponse:
        """DeleteTopics (see ``TopicDeletionApis.delete_topics``)."""
        return await self._deletion_apis.delete_topics(request)

    async def describe_configs(self, request: DescribeConfigsRequest) -> DescribeConfigsResponse:
        """DescribeConfigs for topics (see ``ConfigApis.describe_configs``)."""
        return await self._config_apis.describe_configs(request)

    async def incremental_alter_configs(
        self, request: IncrementalAlterConfigsRequest
    ) -> IncrementalAlterConfigsResponse:
        """IncrementalAlterConfigs for topics (see ``ConfigApis.incremental_alter_configs``)."""
        return await self._config_apis.incremental_alter_configs(request)

    async def alter_user_scram_credentials(
        self, request: AlterUserScramCredentialsRequest
    ) -> AlterUserScramCredentialsResponse:
        """AlterUserScramCredentials (see ``ScramApis.alter_user_scram_credentials``)."""
        return await self._scram_apis.alter_user_scram_credentials(request)

    async def alter_client_quotas(self, request: AlterClientQuotasRequest) -> AlterClientQuotasResponse:
        """AlterClientQuotas (see ``ClientQuotaApis.alter_client_quotas``)."""
        return await self._client_quota_apis.alter_client_quotas(request)

    async def create_acls(self, request: CreateAclsRequest) -> CreateAclsResponse:
        """CreateAcls (see ``AclApis.create_acls``)."""
        return await self._acl_apis.create_acls(request)

    async def delete_acls(self, request: DeleteAclsRequest) -> DeleteAclsResponse:
        """DeleteAcls (see ``AclApis.delete_acls``)."""
        return await self._acl_apis.delete_acls(request)

    # ------------------------------------------------------ ControllerOperations

    async def submit(self, name: str, handler: Callable[[], Awaitable[T]]) -> T:
        """Run ``handler`` as an event, bounded by ``request.timeout.ms`` (``ControllerOperations``)."""
        return await self._events.submit(name, handler, timeout_ms=self._request_timeout_ms)

    def try_submit(self, name: str, handler: Callable[[], Awaitable[Any]]) -> asyncio.Future[Any] | None:
        """Queue a periodic event without waiting (``ControllerOperations``)."""
        return self._events.try_submit(name, handler)

    def submit_in_background(self, name: str, handler: Callable[[], Awaitable[Any]]) -> None:
        """Queue an event from a callback; the task is owned (cancelled by ``stop``)."""
        if not self._events.running:
            return

        async def run() -> None:
            try:
                await self._events.submit(name, handler, timeout_ms=self._request_timeout_ms)
            except (NotControllerError, KafkaTimeoutError) as exc:
                logger.warning("%s Event %s not run: %s", self.log_prefix(), name, exc)
            except Exception:
                logger.exception("%s Event %s failed", self.log_prefix(), name)

        task = asyncio.get_running_loop().create_task(run(), name=f"controller-{name}")
        self._background_tasks.add(task)
        task.add_done_callback(self._background_tasks.discard)

    # ---------------------------------------------------------- event handlers

    async def _handle_create_topics(
        self, request: CreateTopicsRequest
    ) -> tuple[CreateTopicsOutcome, dict[str, list[asyncio.Future[Any]]]]:
        result = self._replication_control.create_topics(request)
        outcome = result.response
        assert outcome is not None
        requested = {t.name: t for t in request.topics}
        for topic_result in outcome.response.topics:
            if topic_result.error_code == Errors.NONE and topic_result.name in requested:
                overrides = {
                    c.name: c.value for c in requested[topic_result.name].configs if c.value is not None
                }
                topic_result.configs = [
                    CreatableTopicConfigs(
                        name=e.name,
                        value=e.value,
                        read_only=e.read_only,
                        config_source=e.config_source,
                        is_sensitive=e.is_sensitive,
                        config_type=e.config_type,
                    )
                    for e in self._config_control.topic_config_entries(overrides)
                ]
        if not result.records:
            return outcome, {}
        await self.write(result.records, "CreateTopics")
        new_partitions = [tp for t in outcome.created_topics for tp in self.context.partitions_of_topic(t)]
        return outcome, on_new_partition_creation(self, new_partitions)

    async def _handle_register_broker(self, request: BrokerRegistrationRequest) -> BrokerRegistrationResponse:
        broker_id = request.broker_id
        replaces = self._cluster_control.replaces_live_incarnation(request)
        result = self._cluster_control.register_broker(request, broker_epoch=self._metadata_log.next_offset)
        assert result.response is not None
        if not result.records:
            return result.response
        changes: list[PartitionChangeRecord] = []
        records: list[MetadataRecord] = []
        if replaces:
            logger.info(
                "%s Broker %d registered with a new incarnation %s; fencing the old incarnation",
                self.log_prefix(),
                broker_id,
                uuid_to_string(request.incarnation_id),
            )
            changes = self._replication_control.handle_broker_fenced(broker_id)
            records += [self._cluster_control.fence_broker(broker_id), *changes]
        await self.write([*records, *result.records], "BrokerRegistration")
        self.shutting_down_broker_ids.discard(broker_id)
        if replaces:
            await self._on_broker_fenced(broker_id, changes)
        return result.response

    async def _handle_broker_heartbeat(self, request: BrokerHeartbeatRequest) -> BrokerHeartbeatResponse:
        decision = self._cluster_control.broker_heartbeat(request, self._clock_ms())
        if decision.error == Errors.NONE:  # before unfencing, so that an offline replica is never elected
            offline = [
                TopicPartition(t.topic_name, p) for t in request.offline_replicas for p in t.partitions
            ]
            await self._handle_replicas_offline(request.broker_id, offline)
        if decision.action == HeartbeatAction.UNFENCE:
            changes = self._replication_control.handle_broker_unfenced(request.broker_id)
            await self.write(
                [self._cluster_control.unfence_broker(request.broker_id), *changes], "BrokerUnfenced"
            )
            await self._on_broker_unfenced(request.broker_id, changes)
        elif decision.action in (HeartbeatAction.FENCE, HeartbeatAction.CONTROLLED_SHUTDOWN):
            await self._fence_broker(request.broker_id, decision.action.name.lower().replace("_", " "))
        return decision.response

    async def _handle_session_check(self) -> list[int]:
        now_ms = self._clock_ms()
        expired = self._cluster_control.expired_brokers(now_ms)
        for broker_id in expired:
            last = self.context.brokers[broker_id].last_heartbeat_ms
            await self._fence_broker(broker_id, f"session expired: no heartbeat for {now_ms - last} ms")
        return expired

    async def _handle_alter_partition(self, request: AlterPartitionRequest) -> AlterPartitionResponse:
        result = self._replication_control.alter_partition(request)
        assert result.response is not None
        if result.records:
            await self.write(result.records, "AlterPartition")
            changed = [r.topic_partition for r in result.records if isinstance(r, PartitionChangeRecord)]
            batch = self.new_batch()
            batch.add_update_metadata_request_for_brokers(self.context.live_broker_ids(), changed)
            batch.send_requests_to_brokers()
        return result.response

    # ----------------------------------------------------- fencing and propagation

    async def _handle_replicas_offline(self, broker_id: int, offline: list[TopicPartition]) -> None:
        """Kafka's onReplicasBecomeOffline for replicas whose log went offline on ``broker_id``
        (and the way back): write the partition changes, then LeaderAndIsr to the live
        replicas of the changed partitions and UpdateMetadata to every live broker."""
        changes = self._replication_control.handle_replicas_offline(broker_id, offline)
        if not changes:
            return
        logger.info(
            "%s Broker %d reports offline replicas %s; %d partitions change",
            self.log_prefix(),
            broker_id,
            sorted(map(str, offline)),
            len(changes),
        )
        await write_partition_changes(self, list(changes), "ReplicasOffline")

    async def _fence_broker(self, broker_id: int, reason: str) -> None:
        changes = self._replication_control.handle_broker_fenced(broker_id)
        logger.info(
            "%s Fencing broker %d (%s); %d partitions change",
            self.log_prefix(),
            broker_id,
            reason,
            len(changes),
        )
        await self.write([self._cluster_control.fence_broker(broker_id), *changes], "BrokerFenced")
        await self._on_broker_fenced(broker_id, changes)

    async def _on_broker_fenced(self, broker_id: int, changes: list[PartitionChangeRecord]) -> None:
        """Kafka's onBrokerFailure: drop the channel, tell the remaining replicas and brokers."""
        self._channel.remove_broker(broker_id)
        self.shutting_down_broker_ids.discard(broker_id)
        announce_partition_changes(self, [r.topic_partition for r in changes])

    async def _on_broker_unfenced(self, broker_id: int, changes: list[PartitionChangeRecord]) -> None:
        """Kafka's onBrokerStartup: open the channel, send the broker all its partitions and the
        full metadata (its logs of removed topics are stray there), and tell the others about
        newly elected leaders and the new live broker."""
        reg = self.context.brokers[broker_id]
        self._channel.add_broker(broker_id, reg.host, reg.port)
        changed = [r.topic_partition for r in changes]
        others = [b for b in self.context.live_broker_ids() if b != broker_id]
        batch = self.new_batch()
        batch.add_leader_and_isr_request_for_brokers(
            [broker_id], self.context.partitions_on_broker(broker_id), full=True
        )
        batch.add_leader_and_isr_request_for_brokers(others, changed)
        batch.add_update_metadata_request_for_brokers([broker_id], full=True)
        batch.add_update_metadata_request_for_brokers(others, changed)
        batch.send_requests_to_brokers()

    def new_batch(self) -> ControllerBrokerRequestBatch:
        channel: ChannelManager = self._channel
        return ControllerBrokerRequestBatch(self.context, self.controller_id, channel)

    # ------------------------------------------------------------------- writes

    async def write(self, records: list[MetadataRecord], name: str = "") -> None:
        """Check, append (fsync) and then replay ``records``; a multi-record write is one
        transaction in the log.

        Raises:
            IllegalStateTransitionError: the records would make an illegal transition
                (nothing is written).
            OSError: the metadata log write failed (nothing is applied).
        """
        if not records:
            return
        self.context.check_records(records)
        framed = (
            records if len(records) == 1 else [BeginTransactionRecord(name), *records, EndTransactionRecord()]
        )
        await self._metadata_log.append(framed)
        for record in records:
            self._log_change(record)
            self.context.replay(record)
        self.context.metadata_offset = self._metadata_log.next_offset - 1

    def _log_change(self, record: MetadataRecord) -> None:
        """INFO log of a change about to be applied (old state still in the context)."""
        ctx, prefix = self.context, self.log_prefix()
        if isinstance(record, RegisterBrokerRecord):
            logger.info(
                "%s Registered broker %d at %s:%d rack=%s with broker epoch %d (fenced until it heartbeats)",
                prefix,
                record.broker_id,
                record.host,
                record.port,
                record.rack,
                record.broker_epoch,
            )
        elif isinstance(record, FenceBrokerRecord):
            logger.info(
                "%s Fenced broker %d (broker epoch %d)", prefix, record.broker_id, record.broker_epoch
            )
        elif isinstance(record, UnfenceBrokerRecord):
            logger.info(
                "%s Unfenced broker %d (broker epoch %d)", prefix, record.broker_id, record.broker_epoch
            )
        elif isinstance(record, TopicRecord):
            logger.info("%s Created topic %s with topic id %s", prefix, record.name, record.topic_id)
        elif isinstance(record, PartitionRecord):
            logger.info(
                "%s Created partition %s-%d with replicas %s, leader %d, ISR %s",
                prefix,
                record.topic,
                record.partition,
                record.replicas,
                record.leader,
                record.isr,
            )
        elif isinstance(record, PartitionChangeRecord):
            old = ctx.partitions.get(TopicPartition(record.topic, record.partition))
            if old is not None and old.leader != record.leader:
                logger.info(
                    "%s Leader of partition %s-%d changed from %d to %d (leader epoch %d)",
                    prefix,
                    record.topic,
                    record.partition,
                    old.leader,
                    record.leader,
                    record.leader_epoch,
                )
            if old is not None and old.isr != record.isr:
                logger.info(
                    "%s ISR of partition %s-%d changed from %s to %s (partition epoch %d)",
                    prefix,
                    record.topic,
                    record.partition,
                    old.isr,
                    record.isr,
                    record.partition_epoch,
                )
            if (
                old is not None
                and record.offline_replicas is not None
                and old.offline_replicas != record.offline_replicas
            ):
                logger.info(
                    "%s Offline replicas of partition %s-%d changed from %s to %s (partition epoch %d)",
                    prefix,
                    record.topic,
                    record.partition,
                    old.offline_replicas,
                    record.offline_replicas,
                    record.partition_epoch,
                )
        elif isinstance(record, ControllerEpochRecord):
            logger.info("%s Controller epoch is now %d", prefix, record.epoch)
        elif isinstance(record, TopicDeletionRecord):
            logger.info("%s Topic %s queued for deletion", prefix, record.name)
        elif isinstance(record, RemoveTopicRecord):
            logger.info("%s Removed topic %s (topic id %s)", prefix, record.name, record.topic_id)
