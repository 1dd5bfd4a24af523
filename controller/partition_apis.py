"""PartitionApis: CreatePartitions, ElectLeaders, the auto leader rebalance and ControlledShutdown.

Owns: those coroutines, their events (write the records the deciders return, then tell
the brokers) and their response waits, and the leader rebalance timer.  Works through
``ControllerOperations`` only.  Does not own the decisions
(``ReplicationControlManager.create_partitions``, ``preferred_leader_election``,
``controlled_shutdown``).

Every public coroutine returns a response and never raises: NOT_CONTROLLER when the
controller is stopped, REQUEST_TIMED_OUT when the event did not run within
``request.timeout.ms``; waits for propagation are bounded by the request's ``timeout_ms``
and what they wait for still happens after a REQUEST_TIMED_OUT.

Kafka concept: ``KafkaController.onNewPartitionCreation`` for CreatePartitions,
``onPreferredReplicaElection`` (KIP-460), ``checkAndTriggerAutoLeaderRebalance``,
``doControlledShutdown``; KRaft's ``QuorumController.createPartitions`` / ``electLeaders``.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from kafkette.controller.controlled_shutdown import controlled_shutdown as plan_controlled_shutdown
from kafkette.controller.controller_operations import (
    ControllerOperations,
    Futures,
    response_deadline,
    wait_all,
)
from kafkette.controller.event_queue import submit_unless_pending
from kafkette.controller.metadata_records import PartitionRecord
from kafkette.controller.partition_propagation import on_new_partition_creation, write_partition_changes
from kafkette.controller.preferred_leader_election import auto_leader_rebalance, elect_leaders
from kafkette.controller.replication_control_manager import ReplicationControlManager
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
from kafkette.protocol.apis.elect_leaders import ElectLeadersRequest, ElectLeadersResponse
from kafkette.protocol.errors import Errors, error_code_for, error_message
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)


class PartitionApis:
    """Partition count, leadership and controlled shutdown requests.

    Args:
        ops: the controller's operations.
        replication_control: decides CreatePartitions.
        leader_imbalance_per_broker_percentage: ``leader.imbalance.per.broker.percentage`` (%).
        leader_imbalance_check_interval_seconds: ``leader.imbalance.check.interval.seconds`` (s).
    """

    def __init__(
        self,
        ops: ControllerOperations,
        replication_control: ReplicationControlManager,
        *,
        leader_imbalance_per_broker_percentage: int,
        leader_imbalance_check_interval_seconds: int,
    ) -> None:
        self._ops = ops
        self._replication_control = replication_control
        self._imbalance_percentage = leader_imbalance_per_broker_percentage
        self._imbalance_check_interval_s = leader_imbalance_check_interval_seconds
        self._rebalance_pending: asyncio.Future[Any] | None = None

    # ------------------------------------------------------------ CreatePartitions

    async def create_partitions(self, request: CreatePartitionsRequest) -> CreatePartitionsResponse:
        """Add partitions to existing topics (Kafka's ``ReplicationControlManager.createPartitions``).

        New partitions go New -> Online (first live replica leads), replicas get
        LeaderAndIsr (``is_new``) and all live brokers UpdateMetadata.  The response
        waits until those requests are acknowledged or ``timeout_ms`` passes
        (REQUEST_TIMED_OUT; the partitions stay created).  See
        ``ReplicationControlManager.create_partitions`` for the per-topic errors.
        """
        deadline = response_deadline(request.timeout_ms)
        try:
            response, acks = await self._ops.submit(
                "CreatePartitions", lambda: self._handle_create_partitions(request)
            )
        except Exception as exc:  # the wire-code boundary; the event manager logged unexpected errors
            return CreatePartitionsResponse(
                results=[
                    CreatePartitionsTopicResult(
                        name=t.name, error_code=error_code_for(exc), error_message=error_message(exc)
                    )
                    for t in request.topics
                ]
            )
        await wait_all([f for fs in acks.values() for f in fs], deadline)
        for result in response.results:
            if not all(f.done() for f in acks.get(result.name, [])):
                result.error_code = Errors.REQUEST_TIMED_OUT
                result.error_message = (
                    f"The partitions of {result.name} were created but not propagated to the "
                    f"brokers within {request.timeout_ms} ms."
                )
        return response

    async def _handle_create_partitions(
        self, request: CreatePartitionsRequest
    ) -> tuple[CreatePartitionsResponse, dict[str, Futures]]:
        result = self._replication_control.create_partitions(request)
        assert result.response is not None
        await self._ops.write(result.records, "CreatePartitions")
        new_partitions = [r.topic_partition for r in result.records if isinstance(r, PartitionRecord)]
        if not new_partitions:
            return result.response, {}
        return result.response, on_new_partition_creation(self._ops, new_partitions)

    # ---------------------------------------------------------------- ElectLeaders

    async def elect_leaders(self, request: ElectLeadersRequest) -> ElectLeadersResponse:
        """Preferred or unclean leader election (KIP-460); see
        ``preferred_leader_election.elect_leaders`` for the per-partition results.  The
        response waits until the new leaders' LeaderAndIsr / UpdateMetadata are
        acknowledged or ``timeout_ms`` passes (REQUEST_TIMED_OUT for those partitions)."""
        deadline = response_deadline(request.timeout_ms)
        try:
            response, acks = await self._ops.submit(
                "ElectLeaders", lambda: self._handle_elect_leaders(request)
            )
        except Exception as exc:  # the wire-code boundary; the event manager logged unexpected errors
            return ElectLeadersResponse(error_code=error_code_for(exc), replica_election_results=[])
        await wait_all([f for fs in acks.values() for f in fs], deadline)
        for topic_result in response.replica_election_results:
            for result in topic_result.partition_result:
                futures = acks.get(TopicPartition(topic_result.topic, result.partition_id), [])
                if result.error_code == 0 and not all(f.done() for f in futures):
                    result.error_code = Errors.REQUEST_TIMED_OUT
                    result.error_message = (
                        f"The new leader was not propagated within {request.timeout_ms} ms."
                    )
        return response

    async def _handle_elect_leaders(
        self, request: ElectLeadersRequest
    ) -> tuple[ElectLeadersResponse, dict[TopicPartition, Futures]]:
        result = elect_leaders(self._ops.context, request, shutting_down=self._ops.shutting_down_broker_ids)
        assert result.response is not None
        acks = await write_partition_changes(self._ops, result.records, "ElectLeaders")
        return result.response, acks

    # ------------------------------------------------------- auto leader rebalance

    async def check_leader_imbalance(self) -> list[TopicPartition]:
        """Run the auto leader rebalance now (it also runs every
        ``leader.imbalance.check.interval.seconds`` when ``auto.leader.rebalance.enable``).

        Returns:
            Partitions whose leadership moved back to their preferred replica.
        """
        return await self._ops.submit(
            "AutoPreferredReplicaLeaderElection", self._handle_auto_leader_rebalance
        )

    async def _handle_auto_leader_rebalance(self) -> list[TopicPartition]:
        records = auto_leader_rebalance(
            self._ops.context, self._imbalance_percentage, shutting_down=self._ops.shutting_down_broker_ids
        )
        if records:
            logger.info(
                "%s Leader imbalance above %d%%: preferred election for %s",
                self._ops.log_prefix(),
                self._imbalance_percentage,
                ",".join(str(r.topic_partition) for r in records),
            )
        await write_partition_changes(self._ops, records, "AutoPreferredReplicaLeaderElection")
        return [r.topic_partition for r in records]

    @property
    def leader_imbalance_check_interval_ms(self) -> int:
        """``leader.imbalance.check.interval.seconds`` in ms: the period of ``queue_leader_rebalance``."""
        return self._imbalance_check_interval_s * 1000

    def queue_leader_rebalance(self) -> None:
        """Queue the auto leader rebalance unless the last one is still queued or running (the
        controller's ``auto-leader-rebalance-task`` job, every
        ``leader.imbalance.check.interval.seconds``)."""
        self._rebalance_pending = submit_unless_pending(
            self._rebalance_pending,
            self._ops.try_submit,
            "AutoPreferredReplicaLeaderElection",
            self._handle_auto_leader_rebalance,
        )

    # ---------------------------------------------------------- ControlledShutdown

    async def controlled_shutdown(self, request: ControlledShutdownRequest) -> ControlledShutdownResponse:
        """Move a stopping broker's leaderships and ISR memberships to other replicas.

        Errors: BROKER_NOT_AVAILABLE (unregistered broker), STALE_BROKER_EPOCH (a
        ``broker_epoch`` other than -1 that is not the registered one).  Otherwise the
        broker is remembered as shutting down (never elected again until it
        re-registers or is fenced) and ``remaining_partitions`` lists the replicated
        partitions it still leads (see ``controlled_shutdown.py``).
        """
        try:
            return await self._ops.submit(
                "ControlledShutdown", lambda: self._handle_controlled_shutdown(request)
            )
        except Exception as exc:  # the wire-code boundary; the event manager logged unexpected errors
            return ControlledShutdownResponse(error_code=error_code_for(exc), remaining_partitions=[])

    async def _handle_controlled_shutdown(
        self, request: ControlledShutdownRequest
    ) -> ControlledShutdownResponse:
        registration = self._ops.context.brokers.get(request.broker_id)
        if registration is None:
            return ControlledShutdownResponse(error_code=Errors.BROKER_NOT_AVAILABLE, remaining_partitions=[])
        if request.broker_epoch != -1 and request.broker_epoch != registration.broker_epoch:
            return ControlledShutdownResponse(error_code=Errors.STALE_BROKER_EPOCH, remaining_partitions=[])
        shutting_down = self._ops.shutting_down_broker_ids
        shutting_down.add(request.broker_id)
        records, remaining = plan_controlled_shutdown(self._ops.context, request.broker_id, shutting_down)
        logger.info(
            "%s Controlled shutdown of broker %d: %d partitions change, %d remain led by it",
            self._ops.log_prefix(),
            request.broker_id,
            len(records),
            len(remaining),
        )
        await write_partition_changes(self._ops, records, "ControlledShutdown")
        return ControlledShutdownResponse(
            error_code=0,
            remaining_partitions=[
                RemainingPartition(topic_name=tp.topic, partition_index=tp.partition) for tp in remaining
            ],
        )
