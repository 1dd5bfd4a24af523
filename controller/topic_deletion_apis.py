"""TopicDeletionApis: DeleteTopics, answered when the topic's removal commits.

Owns: the DeleteTopics coroutine and its event (``delete.topic.enable``, duplicate names,
the ``RemoveTopicRecord``s decided by ``ReplicationControlManager.delete_topics``), and the
propagation of a removal to the brokers: UpdateMetadata with the removed topics in
``deleted_topics`` to every live broker (Metadata answers UNKNOWN_TOPIC_OR_PARTITION at
once) and StopReplica(delete_partition=True) to the live brokers holding a replica, neither
waited for.  A replica whose broker is down is not waited for either: that broker finds the
log stray (its topic id unknown to the metadata) when it comes back.  Works through
``ControllerOperations`` only.  Does not own broker-side log deletion (``LogManager``).

Kafka concept: KRaft's ``ControllerApis.deleteTopics`` -> ``ReplicationControlManager.deleteTopics``
(``RemoveTopicRecord``); brokers apply the removal from their metadata delta
(``ReplicaManager.applyDelta`` -> ``stopPartitions`` with delete).
"""

from __future__ import annotations

import logging

from kafkette.controller.controller_operations import ControllerOperations
from kafkette.controller.metadata_records import RemoveTopicRecord
from kafkette.controller.replication_control_manager import ReplicationControlManager
from kafkette.protocol.apis.delete_topics import (
    DeletableTopicResult,
    DeleteTopicsRequest,
    DeleteTopicsResponse,
)
from kafkette.protocol.errors import Errors, error_code_for, error_message
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)


class TopicDeletionApis:
    """DeleteTopics.

    Args:
        ops: the controller's operations.
        replication_control: decides the ``RemoveTopicRecord``s.
        delete_topic_enable: the controller's ``delete.topic.enable``.
    """

    def __init__(
        self,
        ops: ControllerOperations,
        replication_control: ReplicationControlManager,
        *,
        delete_topic_enable: bool,
    ) -> None:
        self._ops = ops
        self._replication_control = replication_control
        self.delete_topic_enable = delete_topic_enable

    async def delete_topics(self, request: DeleteTopicsRequest) -> DeleteTopicsResponse:
        """Delete topics: one ``RemoveTopicRecord`` each, answered once the records commit.

        One answer per name, in the request's order (Kafka shuffles its answers; their order
        is no part of the protocol): TOPIC_DELETION_DISABLED when ``delete.topic.enable`` is
        false; INVALID_REQUEST ("Duplicate topic name.") for a name given more than once;
        UNKNOWN_TOPIC_OR_PARTITION, with Kafka's generic message, for an unknown topic; else
        error 0.  NOT_CONTROLLER when the controller is stopped.  Never raises.
        """
        try:
            return await self._ops.submit("DeleteTopics", lambda: self._handle_delete_topics(request))
        except Exception as exc:  # the wire-code boundary; the event manager logged unexpected errors
            return DeleteTopicsResponse(
                responses=[
                    DeletableTopicResult(
                        name=n, error_code=error_code_for(exc), error_message=error_message(exc)
                    )
                    for n in dict.fromkeys(request.topic_names)
                ]
            )

    async def _handle_delete_topics(self, request: DeleteTopicsRequest) -> DeleteTopicsResponse:
        names = list(dict.fromkeys(request.topic_names))  # one answer per name, as Kafka's ControllerApis
        duplicates = {n for n in names if request.topic_names.count(n) > 1}
        answers: dict[str, tuple[int, str | None]] = {}
        if not self.delete_topic_enable:
            message = "Topic deletion is disabled (delete.topic.enable=false on the controller)."
            answers = dict.fromkeys(names, (Errors.TOPIC_DELETION_DISABLED, message))
        answers.update(
            dict.fromkeys(duplicates - answers.keys(), (Errors.INVALID_REQUEST, "Duplicate topic name."))
        )
        result = self._replication_control.delete_topics(n for n in names if n not in answers)
        assert result.response is not None
        answers.update(result.response)
        removed = [r for r in result.records if isinstance(r, RemoveTopicRecord)]
        replicas = {r.name: self._replicas_by_broker(r.name) for r in removed}
        await self._ops.write(result.records, "DeleteTopics")
        if removed:
            self._announce_removal(removed, replicas)
        return DeleteTopicsResponse(
            responses=[
                DeletableTopicResult(name=n, error_code=answers[n][0], error_message=answers[n][1])
                for n in names
            ]
        )

    async def remove_queued_topics(self) -> None:
        """Remove the topics an older controller queued for deletion (``TopicDeletionRecord``,
        ZK-style deletion) with ``RemoveTopicRecord``s (call from an event, at failover)."""
        queued = sorted(self._ops.context.topics_to_be_deleted)
        if not queued:
            return
        result = self._replication_control.delete_topics(queued)
        removed = [r for r in result.records if isinstance(r, RemoveTopicRecord)]
        replicas = {r.name: self._replicas_by_broker(r.name) for r in removed}
        await self._ops.write(result.records, "RemoveQueuedTopics")
        self._announce_removal(removed, replicas)

    def _replicas_by_broker(self, topic: str) -> dict[int, list[TopicPartition]]:
        ctx = self._ops.context
        by_broker: dict[int, list[TopicPartition]] = {}
        for tp in ctx.partitions_of_topic(topic):
            for broker_id in ctx.partitions[tp].replicas:
                by_broker.setdefault(broker_id, []).append(tp)
        return by_broker

    def _announce_removal(
        self, removed: list[RemoveTopicRecord], replicas: dict[str, dict[int, list[TopicPartition]]]
    ) -> None:
        """The brokers' view of the removal (their metadata delta): UpdateMetadata naming the
        removed topics, then StopReplica(delete) to each live broker holding a replica."""
        ctx = self._ops.context
        names = [r.name for r in removed]
        logger.info("%s Removed topics %s", self._ops.log_prefix(), ",".join(names))
        live = set(ctx.live_broker_ids())
        batch = self._ops.new_batch()
        batch.add_update_metadata_request_for_brokers(sorted(live), removed_topics=names)
        for topic in names:
            for broker_id, partitions in sorted(replicas[topic].items()):
                if broker_id in live:
                    for tp in partitions:
                        batch.add_stop_replica_request_for_brokers([broker_id], tp, delete_partition=True)
        batch.send_requests_to_brokers()
