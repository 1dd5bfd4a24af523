"""The controller's topic lifecycle APIs (issue 3), mixed into ``KafkaController``.

Owns: the public coroutines CreatePartitions, DeleteTopics, ElectLeaders,
ControlledShutdown, DescribeConfigs and IncrementalAlterConfigs, their event
handlers (write the records the managers decide, then propagate), the response
waits, the glue that drives ``TopicDeletionManager`` (StopReplica sends, their
per-partition callbacks turned into events, ``RemoveTopicRecord`` writes), and the
auto leader rebalance event.  Does not own decisions (``ReplicationControlManager``,
``TopicDeletionManager``, ``ConfigControlManager``, ``preferred_leader_election``,
``controlled_shutdown``) nor the controller's lifecycle and broker events
(``KafkaController`` in ``controller.py``, which provides the attributes used here:
``context``, ``config``, ``_events``, ``_channel``, ``_write``, ``_new_batch``,
``_submit``, ``_log_prefix`` and the managers).

Every public method returns a response and never raises: NOT_CONTROLLER when the
controller is stopped, REQUEST_TIMED_OUT when the event did not run within
``request.timeout.ms``.  Waits (CreatePartitions, DeleteTopics, ElectLeaders) are
bounded by the request's ``timeout_ms``; what they wait for still happens after a
REQUEST_TIMED_OUT.

Kafka concept: ``KafkaController``'s ``onNewPartitionCreation``, ``onTopicDeletion`` /
``TopicDeletionManager`` callbacks, ``onPreferredReplicaElection``,
``doControlledShutdown``, ``checkAndTriggerAutoLeaderRebalance``; KRaft's
``QuorumController.createPartitions`` / ``incrementalAlterConfigs`` / ``electLeaders``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any

from kafkette.controller.controlled_shutdown import controlled_shutdown as plan_controlled_shutdown
from kafkette.controller.controller_channel_manager import mark_retrieved
from kafkette.controller.event_queue import error_code_for, error_message
from kafkette.controller.metadata_records import ConfigRecord, PartitionChangeRecord, PartitionRecord
from kafkette.controller.preferred_leader_election import auto_leader_rebalance, elect_leaders
from kafkette.protocol.apis.configs import (
    AlterConfigsResourceResponse,
    DescribeConfigsRequest,
    DescribeConfigsResponse,
    DescribeConfigsResult,
    IncrementalAlterConfigsRequest,
    IncrementalAlterConfigsResponse,
)
from kafkette.protocol.apis.controlled_shutdown import (
    ControlledShutdownRequest,
    ControlledShutdownResponse,
    RemainingPartition,
)
from kafkette.protocol.apis.create_partitions import (
    CreatePartitionsRequest,
    CreatePartitionsResponse,
    CreatePartitionsTopicResult,
)
from kafkette.protocol.apis.delete_topics import (
    DeletableTopicResult,
    DeleteTopicsRequest,
    DeleteTopicsResponse,
)
from kafkette.protocol.apis.elect_leaders import ElectLeadersRequest, ElectLeadersResponse
from kafkette.protocol.errors import Errors, KafkaTimeoutError, NotControllerError  # type: ignore[attr-defined]
from kafkette.protocol.topic_partition import TopicPartition

if TYPE_CHECKING:
    from kafkette.controller.controller import KafkaController

logger = logging.getLogger(__name__)

Futures = list[asyncio.Future[Any]]


class TopicLifecycleApis:
    """Mixin of ``KafkaController``: the issue-3 APIs and topic deletion glue."""

    # ------------------------------------------------------------ CreatePartitions

    async def create_partitions(self: KafkaController, request: CreatePartitionsRequest) -> CreatePartitionsResponse:
        """Add partitions to existing topics (seed 001).

        New partitions go New -> Online (first live replica leads), replicas get
        LeaderAndIsr (``is_new``) and all live brokers UpdateMetadata.  The response
        waits until those requests are acknowledged or ``timeout_ms`` passes
        (REQUEST_TIMED_OUT; the partitions stay created).  See
        ``ReplicationControlManager.create_partitions`` for the per-topic errors.
        """
        deadline = _deadline(request.timeout_ms)
        try:
            response, acks = await self._submit("CreatePartitions", lambda: self._handle_create_partitions(request))
        except Exception as exc:  # the wire-code boundary; the event manager logged unexpected errors
            return CreatePartitionsResponse(results=[
                CreatePartitionsTopicResult(name=t.name, error_code=error_code_for(exc), error_message=error_message(exc))
                for t in request.topics
            ])
        await _wait_all([f for fs in acks.values() for f in fs], deadline)
        for result in response.results:
            if not all(f.done() for f in acks.get(result.name, [])):
                result.error_code = Errors.REQUEST_TIMED_OUT
                result.error_message = (f"The partitions of {result.name} were created but not propagated to the "
                                        f"brokers within {request.timeout_ms} ms.")
        return response

    async def _handle_create_partitions(
        self: KafkaController, request: CreatePartitionsRequest
    ) -> tuple[CreatePartitionsResponse, dict[str, Futures]]:
        result = self._replication_control.create_partitions(request)
        assert result.response is not None
        await self._write(result.records, "CreatePartitions")
        new_partitions = [r.topic_partition for r in result.records if isinstance(r, PartitionRecord)]
        if not new_partitions:
            return result.response, {}
        return result.response, self._on_new_partition_creation(new_partitions)

    def _on_new_partition_creation(
        self: KafkaController, new_partitions: list[TopicPartition]
    ) -> dict[str, Futures]:
        """Tell every live broker about partitions just written: LeaderAndIsr (``is_new``) and UpdateMetadata.

        Kafka concept: ``KafkaController.onNewPartitionCreation`` (seed 000), shared by
        CreateTopics and CreatePartitions.  Call after the PartitionRecords are written.

        Args:
            new_partitions: the new partitions, in the order their records were written.

        Returns:
            ``{topic: futures}``: the brokers' acknowledgements of the requests carrying each
            topic's new partitions (the topic is present even when no request carried it).
        """
        live = self.context.live_broker_ids()
        batch = self._new_batch()
        batch.add_leader_and_isr_request_for_brokers(live, new_partitions, is_new=True)
        batch.add_update_metadata_request_for_brokers(live, new_partitions)
        futures = batch.send_requests_to_brokers()
        acks: dict[str, Futures] = {}
        for tp in new_partitions:
            acks.setdefault(tp.topic, []).extend(futures.get(tp, []))
        return acks

    # ---------------------------------------------------------------- DeleteTopics

    async def delete_topics(self: KafkaController, request: DeleteTopicsRequest) -> DeleteTopicsResponse:
        """Delete topics through the ``TopicDeletionManager`` (seed 001).

        Each topic is queued (``TopicDeletionRecord``), brokers get UpdateMetadata with
        it in ``deleted_topics`` (they stop serving it), then StopReplica(delete) goes to
        every live replica.  The response waits until each topic is fully deleted
        (``RemoveTopicRecord``) or ``timeout_ms`` passes: REQUEST_TIMED_OUT, and the
        deletion completes later (for example once a down replica's broker returns).
        Errors: TOPIC_DELETION_DISABLED, UNKNOWN_TOPIC_OR_PARTITION, INVALID_REQUEST.
        """
        deadline = _deadline(request.timeout_ms)
        try:
            response, waiters = await self._submit("DeleteTopics", lambda: self._handle_delete_topics(request))
        except Exception as exc:  # the wire-code boundary; the event manager logged unexpected errors
            return DeleteTopicsResponse(responses=[
                DeletableTopicResult(name=n, error_code=error_code_for(exc), error_message=error_message(exc))
                for n in request.topic_names
            ])
        await _wait_all(list(waiters.values()), deadline)
        for result in response.responses:
            waiter = waiters.get(result.name)
            if waiter is None:
                continue
            if not waiter.done():
                result.error_code = Errors.REQUEST_TIMED_OUT
                result.error_message = (f"Topic {result.name} is queued for deletion but was not fully deleted within "
                                        f"{request.timeout_ms} ms; the deletion continues.")
            elif waiter.exception() is not None:
                result.error_code = error_code_for(waiter.exception())  # type: ignore[arg-type]
                result.error_message = error_message(waiter.exception())  # type: ignore[arg-type]
        return response

    async def _handle_delete_topics(
        self: KafkaController, request: DeleteTopicsRequest
    ) -> tuple[DeleteTopicsResponse, dict[str, asyncio.Future[None]]]:
        result = self._deletion.delete_topics(request)
        assert result.response is not None
        await self._write(result.records, "DeleteTopics")
        waiters = {
            r.name: self._deletion.add_deletion_waiter(r.name)
            for r in result.response.responses if r.error_code == 0
        }
        if result.records:
            logger.info("%s Starting topic deletion for topics %s", self._log_prefix(),
                        ",".join(r.name for r in result.records))  # type: ignore[attr-defined]
            batch = self._new_batch()  # deleted_topics: brokers stop serving them first
            batch.add_update_metadata_request_for_brokers(self.context.live_broker_ids())
            batch.send_requests_to_brokers()
        await self._resume_deletions()
        return result.response, waiters

    async def _resume_deletions(self: KafkaController) -> None:
        """Run ``TopicDeletionManager.resume_deletions``: send the planned StopReplicas and
        remove the topics whose replicas are all deleted."""
        plan = self._deletion.resume_deletions()
        if plan.stop_replicas:
            batch = self._new_batch()
            for broker_id, partitions in sorted(plan.stop_replicas.items()):
                for tp in partitions:
                    batch.add_stop_replica_request_for_brokers(
                        [broker_id], tp, delete_partition=True, callback=self._on_stop_replica_result
                    )
            batch.send_requests_to_brokers()
        for topic in plan.completed_topics:
            await self._write([self._deletion.complete_delete_topic(topic)], "CompleteDeleteTopic")
            self._deletion.on_topic_removed(topic)

    def _on_stop_replica_result(self: KafkaController, broker_id: int, tp: TopicPartition, error_code: int) -> None:
        """StopReplica per-partition callback (runs outside the event task): queue the
        result and make sure one ``TopicDeletionStopReplicaResponseReceived`` event runs."""
        self._stop_replica_results.append((broker_id, tp, error_code))
        if not self._stop_replica_event_pending:
            self._stop_replica_event_pending = True
            self._submit_in_background("TopicDeletionStopReplicaResponseReceived", self._handle_stop_replica_results)

    async def _handle_stop_replica_results(self: KafkaController) -> None:
        self._stop_replica_event_pending = False
        results, self._stop_replica_results = self._stop_replica_results, []
        for broker_id, tp, error_code in results:
            self._deletion.on_stop_replica_result(broker_id, tp, error_code)
        await self._resume_deletions()

    def _submit_in_background(self: KafkaController, name: str, handler: Callable[[], Awaitable[Any]]) -> None:
        """Queue an event from a callback; the task is owned (cancelled by ``stop``)."""
        if not self._events.running:
            return

        async def run() -> None:
            try:
                await self._events.submit(name, handler, timeout_ms=self._request_timeout_ms)
            except (NotControllerError, KafkaTimeoutError) as exc:
                logger.warning("%s Event %s not run: %s", self._log_prefix(), name, exc)
            except Exception:
                logger.exception("%s Event %s failed", self._log_prefix(), name)

        task = asyncio.get_running_loop().create_task(run(), name=f"controller-{name}")
        self._background_tasks.add(task)
        task.add_done_callback(self._background_tasks.discard)

    # ---------------------------------------------------------------- ElectLeaders

    async def elect_leaders(self: KafkaController, request: ElectLeadersRequest) -> ElectLeadersResponse:
        """Preferred or unclean leader election (KIP-460); see
        ``preferred_leader_election.elect_leaders`` for the per-partition results.  The
        response waits until the new leaders' LeaderAndIsr / UpdateMetadata are
        acknowledged or ``timeout_ms`` passes (REQUEST_TIMED_OUT for those partitions)."""
        deadline = _deadline(request.timeout_ms)
        try:
            response, acks = await self._submit("ElectLeaders", lambda: self._handle_elect_leaders(request))
        except Exception as exc:  # the wire-code boundary; the event manager logged unexpected errors
            return ElectLeadersResponse(error_code=error_code_for(exc), replica_election_results=[])
        await _wait_all([f for fs in acks.values() for f in fs], deadline)
        for topic_result in response.replica_election_results:
            for result in topic_result.partition_result:
                futures = acks.get(TopicPartition(topic_result.topic, result.partition_id), [])
                if result.error_code == 0 and not all(f.done() for f in futures):
                    result.error_code = Errors.REQUEST_TIMED_OUT
                    result.error_message = f"The new leader was not propagated within {request.timeout_ms} ms."
        return response

    async def _handle_elect_leaders(
        self: KafkaController, request: ElectLeadersRequest
    ) -> tuple[ElectLeadersResponse, dict[TopicPartition, Futures]]:
        result = elect_leaders(self.context, request, shutting_down=self._shutting_down_broker_ids)
        assert result.response is not None
        acks = await self._write_partition_changes(result.records, "ElectLeaders")
        return result.response, acks

    async def check_leader_imbalance(self: KafkaController) -> list[TopicPartition]:
        """Run the auto leader rebalance now (it also runs every
        ``leader.imbalance.check.interval.seconds`` when ``auto.leader.rebalance.enable``).

        Returns:
            Partitions whose leadership moved back to their preferred replica.
        """
        return await self._submit("AutoPreferredReplicaLeaderElection", self._handle_auto_leader_rebalance)

    async def _handle_auto_leader_rebalance(self: KafkaController) -> list[TopicPartition]:
        records = auto_leader_rebalance(
            self.context, self.config.leader_imbalance_per_broker_percentage,
            shutting_down=self._shutting_down_broker_ids,
        )
        if records:
            logger.info("%s Leader imbalance above %d%%: preferred election for %s", self._log_prefix(),
                        self.config.leader_imbalance_per_broker_percentage,
                        ",".join(str(r.topic_partition) for r in records))
        await self._write_partition_changes(records, "AutoPreferredReplicaLeaderElection")
        return [r.topic_partition for r in records]

    async def _run_leader_rebalance_timer(self: KafkaController) -> None:
        pending: asyncio.Future[Any] | None = None
        while True:
            await asyncio.sleep(self.config.leader_imbalance_check_interval_seconds)
            if pending is None or pending.done():
                pending = self._events.try_submit("AutoPreferredReplicaLeaderElection",
                                                  self._handle_auto_leader_rebalance)
                if pending is not None:
                    pending.add_done_callback(mark_retrieved)

    async def _write_partition_changes(
        self: KafkaController, records: list[PartitionChangeRecord], name: str
    ) -> dict[TopicPartition, Futures]:
        """Write leader/ISR changes, then LeaderAndIsr to the replicas and UpdateMetadata to
        all live brokers.

        Returns:
            The request futures per changed partition.
        """
        if not records:
            return {}
        await self._write(list(records), name)
        return self._announce_partition_changes([r.topic_partition for r in records])

    def _announce_partition_changes(
        self: KafkaController, changed: list[TopicPartition]
    ) -> dict[TopicPartition, Futures]:
        """LeaderAndIsr to the live replicas of ``changed`` and UpdateMetadata to every live
        broker, after their records were written.

        Returns:
            The request futures per changed partition.
        """
        live = self.context.live_broker_ids()
        batch = self._new_batch()
        batch.add_leader_and_isr_request_for_brokers(live, changed)
        batch.add_update_metadata_request_for_brokers(live, changed)
        return batch.send_requests_to_brokers()

    # ---------------------------------------------------------- ControlledShutdown

    async def controlled_shutdown(self: KafkaController, request: ControlledShutdownRequest) -> ControlledShutdownResponse:
        """Move a stopping broker's leaderships and ISR memberships to other replicas.

        Errors: BROKER_NOT_AVAILABLE (unregistered broker), STALE_BROKER_EPOCH (a
        ``broker_epoch`` other than -1 that is not the registered one).  Otherwise the
        broker is remembered as shutting down (never elected again until it
        re-registers or is fenced) and ``remaining_partitions`` lists the replicated
        partitions it still leads (see ``controlled_shutdown.py``).
        """
        try:
            return await self._submit("ControlledShutdown", lambda: self._handle_controlled_shutdown(request))
        except Exception as exc:  # the wire-code boundary; the event manager logged unexpected errors
            return ControlledShutdownResponse(error_code=error_code_for(exc), remaining_partitions=[])

    async def _handle_controlled_shutdown(self: KafkaController, request: ControlledShutdownRequest) -> ControlledShutdownResponse:
        registration = self.context.brokers.get(request.broker_id)
        if registration is None:
            return ControlledShutdownResponse(error_code=Errors.BROKER_NOT_AVAILABLE, remaining_partitions=[])
        if request.broker_epoch != -1 and request.broker_epoch != registration.broker_epoch:
            return ControlledShutdownResponse(error_code=Errors.STALE_BROKER_EPOCH, remaining_partitions=[])
        self._shutting_down_broker_ids.add(request.broker_id)
        records, remaining = plan_controlled_shutdown(self.context, request.broker_id, self._shutting_down_broker_ids)
        logger.info("%s Controlled shutdown of broker %d: %d partitions change, %d remain led by it",
                    self._log_prefix(), request.broker_id, len(records), len(remaining))
        await self._write_partition_changes(records, "ControlledShutdown")
        return ControlledShutdownResponse(error_code=0, remaining_partitions=[
            RemainingPartition(topic_name=tp.topic, partition_index=tp.partition) for tp in remaining
        ])

    # --------------------------------------------------------------------- Configs

    async def describe_configs(self: KafkaController, request: DescribeConfigsRequest) -> DescribeConfigsResponse:
        """Describe TOPIC resources (see ``ConfigControlManager.describe_configs``)."""
        async def handle() -> DescribeConfigsResponse:
            return self._config_control.describe_configs(request)

        try:
            return await self._submit("DescribeConfigs", handle)
        except Exception as exc:  # the wire-code boundary; the event manager logged unexpected errors
            return DescribeConfigsResponse(results=[
                DescribeConfigsResult(error_code=error_code_for(exc), error_message=error_message(exc), resource_type=r.resource_type,
                                      resource_name=r.resource_name, configs=[])
                for r in request.resources
            ])

    async def incremental_alter_configs(
        self: KafkaController, request: IncrementalAlterConfigsRequest
    ) -> IncrementalAlterConfigsResponse:
        """Change TOPIC config overrides (see ``ConfigControlManager.incremental_alter_configs``).

        The ``ConfigRecord``s are written, every live broker gets UpdateMetadata with the
        topic's partitions and its whole override set (``topic_configs``), and a changed
        ``unclean.leader.election.enable`` triggers an election for the topic's offline
        partitions.
        """
        try:
            return await self._submit("IncrementalAlterConfigs", lambda: self._handle_incremental_alter_configs(request))
        except Exception as exc:  # the wire-code boundary; the event manager logged unexpected errors
            return IncrementalAlterConfigsResponse(responses=[
                AlterConfigsResourceResponse(error_code=error_code_for(exc), error_message=error_message(exc),
                                             resource_type=r.resource_type, resource_name=r.resource_name)
                for r in request.resources
            ])

    async def _handle_incremental_alter_configs(
        self: KafkaController, request: IncrementalAlterConfigsRequest
    ) -> IncrementalAlterConfigsResponse:
        result = self._config_control.incremental_alter_configs(request)
        assert result.response is not None
        if not result.records:
            return result.response
        await self._write(result.records, "IncrementalAlterConfigs")
        configs = [r for r in result.records if isinstance(r, ConfigRecord)]
        topics = sorted({r.resource_name for r in configs})
        for record in configs:
            logger.info("%s Topic %s config %s %s", self._log_prefix(), record.resource_name, record.name,
                        f"set to {record.value}" if record.value is not None else "reset to the default")
        batch = self._new_batch()
        batch.add_update_metadata_request_for_brokers(
            self.context.live_broker_ids(), _partitions_of(self.context, topics)
        )
        batch.send_requests_to_brokers()
        unclean_topics = sorted({r.resource_name for r in configs if r.name == "unclean.leader.election.enable"})
        if unclean_topics:
            changes = self._replication_control.elect_offline_partitions(unclean_topics)
            await self._write_partition_changes(changes, "UncleanLeaderElectionEnabled")
        return result.response


def _partitions_of(context: Any, topics: Iterable[str]) -> list[TopicPartition]:
    return [tp for t in topics for tp in context.partitions_of_topic(t)]


def _deadline(timeout_ms: int) -> float:
    return asyncio.get_running_loop().time() + max(0, timeout_ms) / 1000


async def _wait_all(futures: list[Any], deadline: float) -> None:
    pending = {f for f in futures if not f.done()}
    if pending:
        await asyncio.wait(pending, timeout=max(0.0, deadline - asyncio.get_running_loop().time()))

