"""TopicDeletionApis: DeleteTopics and the glue that drives the ``TopicDeletionManager``.

Owns: the DeleteTopics coroutine and its event (queue topics, UpdateMetadata so brokers stop
serving them, then StopReplica), ``resume_deletions`` (send the planned StopReplicas,
remove topics whose replicas are all deleted) and the StopReplica per-partition
callbacks, turned into one ``TopicDeletionStopReplicaResponseReceived`` event at a time.
Works through ``ControllerOperations`` only.  Does not own the deletion decisions
(``TopicDeletionManager``).

Kafka concept: ``TopicDeletionManager`` callbacks of ``KafkaController``
(``onTopicDeletion``, ``TopicDeletionStopReplicaResponseReceived``).
"""

from __future__ import annotations

import asyncio
import logging

from kafkette.controller.controller_operations import ControllerOperations, response_deadline, wait_all
from kafkette.controller.topic_deletion_manager import TopicDeletionManager
from kafkette.protocol.apis.delete_topics import (
    DeletableTopicResult,
    DeleteTopicsRequest,
    DeleteTopicsResponse,
)
from kafkette.protocol.errors import Errors, error_code_for, error_message
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)


class TopicDeletionApis:
    """DeleteTopics and deletion progress.

    Args:
        ops: the controller's operations.
        deletion: the deletion state machine driver (decisions and waiters).
    """

    def __init__(self, ops: ControllerOperations, deletion: TopicDeletionManager) -> None:
        self._ops = ops
        self._deletion = deletion
        self._stop_replica_results: list[tuple[int, TopicPartition, int]] = []
        self._stop_replica_event_pending = False

    async def delete_topics(self, request: DeleteTopicsRequest) -> DeleteTopicsResponse:
        """Delete topics through the ``TopicDeletionManager``.

        Each topic is queued (``TopicDeletionRecord``), brokers get UpdateMetadata with
        it in ``deleted_topics`` (they stop serving it), then StopReplica(delete) goes to
        every live replica.  The response waits until each topic is fully deleted
        (``RemoveTopicRecord``) or ``timeout_ms`` passes: REQUEST_TIMED_OUT, and the
        deletion completes later (for example once a down replica's broker returns).
        Errors: TOPIC_DELETION_DISABLED, UNKNOWN_TOPIC_OR_PARTITION, INVALID_REQUEST;
        NOT_CONTROLLER when the controller is stopped.  Never raises.
        """
        deadline = response_deadline(request.timeout_ms)
        try:
            response, waiters = await self._ops.submit("DeleteTopics", lambda: self._handle_delete_topics(request))
        except Exception as exc:  # the wire-code boundary; the event manager logged unexpected errors
            return DeleteTopicsResponse(responses=[
                DeletableTopicResult(name=n, error_code=error_code_for(exc), error_message=error_message(exc))
                for n in request.topic_names
            ])
        await wait_all(waiters.values(), deadline)
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
        self, request: DeleteTopicsRequest
    ) -> tuple[DeleteTopicsResponse, dict[str, asyncio.Future[None]]]:
        result = self._deletion.delete_topics(request)
        assert result.response is not None
        await self._ops.write(result.records, "DeleteTopics")
        waiters = {
            r.name: self._deletion.add_deletion_waiter(r.name)
            for r in result.response.responses if r.error_code == 0
        }
        if result.records:
            logger.info("%s Starting topic deletion for topics %s", self._ops.log_prefix(),
                        ",".join(r.name for r in result.records))  # type: ignore[attr-defined]
            batch = self._ops.new_batch()  # deleted_topics: brokers stop serving them first
            batch.add_update_metadata_request_for_brokers(self._ops.context.live_broker_ids())
            batch.send_requests_to_brokers()
        await self.resume_deletions()
        return result.response, waiters

    async def resume_deletions(self) -> None:
        """Run ``TopicDeletionManager.resume_deletions`` (call from an event): send the planned
        StopReplicas and remove the topics whose replicas are all deleted."""
        plan = self._deletion.resume_deletions()
        if plan.stop_replicas:
            batch = self._ops.new_batch()
            for broker_id, partitions in sorted(plan.stop_replicas.items()):
                for tp in partitions:
                    batch.add_stop_replica_request_for_brokers(
                        [broker_id], tp, delete_partition=True, callback=self._on_stop_replica_result
                    )
            batch.send_requests_to_brokers()
        for topic in plan.completed_topics:
            await self._ops.write([self._deletion.complete_delete_topic(topic)], "CompleteDeleteTopic")
            self._deletion.on_topic_removed(topic)

    def _on_stop_replica_result(self, broker_id: int, tp: TopicPartition, error_code: int) -> None:
        """StopReplica per-partition callback (runs outside the event task): queue the
        result and make sure one ``TopicDeletionStopReplicaResponseReceived`` event runs."""
        self._stop_replica_results.append((broker_id, tp, error_code))
        if not self._stop_replica_event_pending:
            self._stop_replica_event_pending = True
            self._ops.submit_in_background("TopicDeletionStopReplicaResponseReceived",
                                           self._handle_stop_replica_results)

    async def _handle_stop_replica_results(self) -> None:
        self._stop_replica_event_pending = False
        results, self._stop_replica_results = self._stop_replica_results, []
        for broker_id, tp, error_code in results:
            self._deletion.on_stop_replica_result(broker_id, tp, error_code)
        await self.resume_deletions()
