"""TopicDeletionManager: which topics are being deleted, and how far each has got.

Owns: the DeleteTopics decision (``delete_topics``: TOPIC_DELETION_DISABLED,
UNKNOWN_TOPIC_OR_PARTITION, or a ``TopicDeletionRecord`` queueing the topic),
``topics_ineligible_for_deletion``, the replica deletion state changes
(OfflineReplica -> ReplicaDeletionStarted -> ReplicaDeletionSuccessful, or
ReplicaDeletionIneligible and back to OfflineReplica for a retry), the decision of
which StopReplica(delete_partition=True) requests to send, and of when a topic is
fully deleted (``RemoveTopicRecord``).  Also the futures of DeleteTopics requests
waiting for a topic to be gone.  Does not own sending (the controller sends what
``resume_deletions`` plans, with ``ControllerBrokerRequestBatch``) nor the durable
queue itself (``ControllerContext.topics_to_be_deleted``, replayed from
``TopicDeletionRecord``s).

Kafka concept: ``TopicDeletionManager``.  Lifecycle of a topic::

    DeleteTopics -> TopicDeletionRecord (queued; UpdateMetadata deleted_topics: brokers
    stop serving it) -> resume_deletions():
        all replicas ReplicaDeletionSuccessful      -> completeDeleteTopic: RemoveTopicRecord
        a replica ReplicaDeletionStarted            -> in progress, wait for responses
        a replica ReplicaDeletionIneligible         -> retry: back to OfflineReplica
        eligible (not ineligible, not in progress)  -> onTopicDeletion:
            replicas on dead (fenced) brokers -> ReplicaDeletionIneligible, topic ineligible
            live replicas not yet deleted     -> OfflineReplica -> ReplicaDeletionStarted,
                                                 StopReplica(delete_partition=True)
    StopReplica response per partition: error 0 -> ReplicaDeletionSuccessful, else
    ReplicaDeletionIneligible and the topic ineligible; broker fenced -> its started
    replicas ReplicaDeletionIneligible, topic ineligible; broker back (unfenced) ->
    topic eligible again, deletion resumed.

Deletion progress lives in controller memory, as in Kafka: a restarted controller
finds the topic still queued and starts again (StopReplica of a missing log succeeds).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from kafkette.controller.controller_context import ControllerContext
from kafkette.controller.metadata_records import (
    ControllerResult,
    MetadataRecord,
    RemoveTopicRecord,
    TopicDeletionRecord,
)
from kafkette.controller.replica_state_machine import PartitionAndReplica, ReplicaState
from kafkette.protocol.apis.delete_topics import (
    DeletableTopicResult,
    DeleteTopicsRequest,
    DeleteTopicsResponse,
)
from kafkette.protocol.errors import Errors, UnknownTopicOrPartitionError, error_name
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)

_R = ReplicaState


@dataclass
class DeletionPlan:
    """What ``resume_deletions`` decided: StopReplica(delete) per broker, topics to remove."""

    stop_replicas: dict[int, list[TopicPartition]] = field(default_factory=dict)
    completed_topics: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.stop_replicas and not self.completed_topics


class TopicDeletionManager:
    """Drives the deletion of the topics queued in the controller context.

    Args:
        context: the controller context (replica states are changed here, in memory).
        delete_topic_enable: the controller's ``delete.topic.enable``.
        log_prefix: callable returning ``[Controller id=N epoch=E]``.

    Invariants: a topic in ``topics_ineligible_for_deletion`` is queued for deletion; a
    replica of a queued topic is in OfflineReplica or a deletion state once
    ``resume_deletions`` has looked at the topic.
    """

    def __init__(
        self, context: ControllerContext, *, delete_topic_enable: bool, log_prefix: Callable[[], str] = lambda: ""
    ) -> None:
        self._context = context
        self.delete_topic_enable = delete_topic_enable
        self._log_prefix = log_prefix
        self.topics_ineligible_for_deletion: set[str] = set()
        self._waiters: dict[str, list[asyncio.Future[None]]] = {}

    @property
    def topics_to_be_deleted(self) -> set[str]:
        """Topics queued for deletion (durable: ``ControllerContext.topics_to_be_deleted``)."""
        return self._context.topics_to_be_deleted

    def is_topic_queued_up_for_deletion(self, topic: str) -> bool:
        """True while ``topic`` is queued for deletion."""
        return self._context.is_topic_queued_up_for_deletion(topic)

    # --------------------------------------------------------------- DeleteTopics

    def delete_topics(self, request: DeleteTopicsRequest) -> ControllerResult[DeleteTopicsResponse]:
        """Decide a DeleteTopics request.

        One answer per name, in the request's order (Kafka shuffles its answers; their order is
        no part of the protocol): TOPIC_DELETION_DISABLED when ``delete.topic.enable`` is false;
        INVALID_REQUEST ("Duplicate topic name.") for a name given more than once;
        UNKNOWN_TOPIC_OR_PARTITION, with Kafka's generic message, for an unknown topic; else
        error 0, with a ``TopicDeletionRecord`` unless the topic is already queued.

        Returns:
            ``ControllerResult``: the ``TopicDeletionRecord``s and the response (error
            codes only; the controller turns the waits into REQUEST_TIMED_OUT).
        """
        counts: dict[str, int] = {}
        for name in request.topic_names:
            counts[name] = counts.get(name, 0) + 1
        records: list[MetadataRecord] = []
        results = []
        answered: set[str] = set()
        for name in request.topic_names:
            if name in answered:
                continue  # one answer per name, as Kafka's ControllerApis.deleteTopics
            answered.add(name)
            error, message = Errors.NONE, None
            if not self.delete_topic_enable:
                error = Errors.TOPIC_DELETION_DISABLED
                message = "Topic deletion is disabled (delete.topic.enable=false on the controller)."
            elif counts[name] > 1:
                error, message = Errors.INVALID_REQUEST, "Duplicate topic name."
            elif name not in self._context.topics:
                error, message = Errors.UNKNOWN_TOPIC_OR_PARTITION, UnknownTopicOrPartitionError.message
            elif not self.is_topic_queued_up_for_deletion(name):
                records.append(TopicDeletionRecord(name, self._context.topics[name].topic_id))
            results.append(DeletableTopicResult(name=name, error_code=error, error_message=message))
        return ControllerResult(records, DeleteTopicsResponse(responses=results))

    def add_deletion_waiter(self, topic: str) -> asyncio.Future[None]:
        """A future completed when ``topic`` is fully deleted (``RemoveTopicRecord`` applied)."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.setdefault(topic, []).append(future)
        return future

    def complete_delete_topic(self, topic: str) -> RemoveTopicRecord:
        """Kafka's ``completeDeleteTopic``: the record that removes every trace of ``topic``."""
        return RemoveTopicRecord(topic, self._context.topics[topic].topic_id)

    def on_topic_removed(self, topic: str) -> None:
        """After the ``RemoveTopicRecord`` was applied: forget the topic, wake its waiters."""
        self.topics_ineligible_for_deletion.discard(topic)
        for future in self._waiters.pop(topic, []):
            if not future.done():
                future.set_result(None)
        logger.info("%s Deletion of topic %s successfully completed", self._log_prefix(), topic)

    def fail_waiters(self, exc: BaseException) -> None:
        """Fail every waiting DeleteTopics (the controller is stopping)."""
        for futures in self._waiters.values():
            for future in futures:
                if not future.done():
                    future.set_exception(exc)
                    future.exception()
        self._waiters.clear()

    # ------------------------------------------------------------- eligibility

    def mark_topic_ineligible_for_deletion(self, topics: Iterable[str], reason: str) -> None:
        """Stop retrying the deletion of ``topics`` until ``resume_deletion_for_topics``."""
        for topic in topics:
            if self.is_topic_queued_up_for_deletion(topic) and topic not in self.topics_ineligible_for_deletion:
                self.topics_ineligible_for_deletion.add(topic)
                logger.info("%s Halted deletion of topic %s: %s", self._log_prefix(), topic, reason)

    def resume_deletion_for_topics(self, topics: Iterable[str]) -> None:
        """Make ``topics`` eligible again (a replica's broker came back)."""
        for topic in topics:
            self.topics_ineligible_for_deletion.discard(topic)

    def is_topic_eligible_for_deletion(self, topic: str) -> bool:
        """Queued, not ineligible, and no replica in ReplicaDeletionStarted."""
        return (
            self.is_topic_queued_up_for_deletion(topic)
            and topic not in self.topics_ineligible_for_deletion
            and not self._replicas_in_state(topic, _R.ReplicaDeletionStarted)
        )

    def on_broker_fenced(self, broker_id: int) -> None:
        """Kafka's ``onReplicasBecomeOffline`` for topics being deleted: the topics with a
        replica on ``broker_id`` become ineligible (their started replicas were moved to
        ReplicaDeletionIneligible by the fence record)."""
        topics = {tp.topic for tp in self._context.partitions_on_broker(broker_id)}
        self.mark_topic_ineligible_for_deletion(
            sorted(t for t in topics if self.is_topic_queued_up_for_deletion(t)), f"broker {broker_id} is down"
        )

    def on_broker_unfenced(self, broker_id: int) -> None:
        """Kafka's ``onBrokerStartup``: topics with a replica on ``broker_id`` resume."""
        topics = {tp.topic for tp in self._context.partitions_on_broker(broker_id)}
        self.resume_deletion_for_topics(t for t in topics if self.is_topic_queued_up_for_deletion(t))

    # ---------------------------------------------------------- StopReplica results

    def on_stop_replica_result(self, broker_id: int, tp: TopicPartition, error_code: int) -> None:
        """Kafka's ``deleteTopicStopReplicaCallback`` for one replica: error 0 moves it
        ReplicaDeletionStarted -> ReplicaDeletionSuccessful, anything else to
        ReplicaDeletionIneligible (topic ineligible).  Results for replicas not in
        ReplicaDeletionStarted (already failed by a fence, or a stale response) are ignored."""
        replica = PartitionAndReplica(tp, broker_id)
        if (not self.is_topic_queued_up_for_deletion(tp.topic)
                or self._context.replica_state_machine.state(replica) != _R.ReplicaDeletionStarted):
            return
        if error_code == Errors.NONE:
            self._context.transition_replicas([replica], _R.ReplicaDeletionSuccessful)
        else:
            logger.warning("%s Deletion of replica %s on broker %d failed with error %s", self._log_prefix(), tp,
                           broker_id, error_name(error_code))
            self._context.transition_replicas([replica], _R.ReplicaDeletionIneligible)
            self.mark_topic_ineligible_for_deletion([tp.topic], f"StopReplica failed on broker {broker_id}")

    # ------------------------------------------------------------------ progress

    def resume_deletions(self) -> DeletionPlan:
        """Kafka's ``resumeDeletions`` over every queued topic (see the module docstring).

        Changes replica states in memory and returns what to send and which topics are
        done; the controller sends the StopReplicas and writes ``RemoveTopicRecord``s.
        """
        plan = DeletionPlan()
        for topic in sorted(self.topics_to_be_deleted):
            replicas = self._context.replicas_of_topic(topic)
            states = self._context.replica_state_machine
            if all(states.state(r) == _R.ReplicaDeletionSuccessful for r in replicas):
                plan.completed_topics.append(topic)
                continue
            if self._replicas_in_state(topic, _R.ReplicaDeletionStarted):
                continue  # in progress: responses will call back
            ineligible = self._replicas_in_state(topic, _R.ReplicaDeletionIneligible)
            if ineligible:  # markTopicForDeletionRetry
                self._context.transition_replicas(ineligible, _R.OfflineReplica)
            if self.is_topic_eligible_for_deletion(topic):
                self._start_replica_deletion(topic, replicas, plan)
        return plan

    def _start_replica_deletion(self, topic: str, replicas: list[PartitionAndReplica], plan: DeletionPlan) -> None:
        states = self._context.replica_state_machine
        logger.info("%s Deletion of topic %s (re)started", self._log_prefix(), topic)
        pending = [r for r in replicas if states.state(r) != _R.ReplicaDeletionSuccessful]
        dead = [r for r in pending if not self._context.is_live(r.replica)]
        alive = [r for r in pending if self._context.is_live(r.replica)]
        for replica in dead:
            if states.state(replica) != _R.OfflineReplica:
                self._context.transition_replicas([replica], _R.OfflineReplica)
            self._context.transition_replicas([replica], _R.ReplicaDeletionIneligible)
        for replica in alive:
            if states.state(replica) != _R.OfflineReplica:
                self._context.transition_replicas([replica], _R.OfflineReplica)
            self._context.transition_replicas([replica], _R.ReplicaDeletionStarted)
            plan.stop_replicas.setdefault(replica.replica, []).append(replica.topic_partition)
        if dead:
            self.mark_topic_ineligible_for_deletion(
                [topic], f"replicas on dead brokers {sorted({r.replica for r in dead})}"
            )

    def _replicas_in_state(self, topic: str, state: ReplicaState) -> list[PartitionAndReplica]:
        return sorted(self._context.replica_state_machine.replicas_in_state(topic, state))
