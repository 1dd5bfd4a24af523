"""TopicDeletionApis: DeleteTopics, answered when the topic's removal commits.

Owns: the DeleteTopics coroutine and its event (``delete.topic.enable``, topics given by name
or, from v6 on, by topic id (KIP-516), duplicate names and ids, the ``RemoveTopicRecord``s
decided by ``ReplicationControlManager.delete_topics``), and the propagation of a removal to
the brokers: UpdateMetadata with the removed topics in ``deleted_topics`` to every live broker
(Metadata answers UNKNOWN_TOPIC_OR_PARTITION at once) and StopReplica(delete_partition=True) to
the live brokers holding a replica, neither waited for.  A replica whose broker is down is not
waited for either: that broker finds the log stray (its topic id unknown to the metadata) when it
comes back.  Works through ``ControllerOperations`` only.  Does not own broker-side log deletion
(``LogManager``).

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
from kafkette.protocol.errors import (
    Errors,
    UnknownTopicIdError,
    UnknownTopicOrPartitionError,
    error_code_for,
    error_message,
)
from kafkette.protocol.kafka_schema import ZERO_UUID
from kafkette.protocol.kafka_uuid import uuid_from_string
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
        """Delete topics, named (``topic_names``, v0-5, or a ``topics`` entry with a name and the zero
        id) or given by topic id (v6, KIP-516: a null name and the id): one ``RemoveTopicRecord``
        each, answered once the records commit.

        One answer per topic, in the order the request first gives it (Kafka shuffles its answers;
        their order is no part of the protocol), with the topic id (v6 carries it) when the topic is
        known, as Kafka's ``ControllerApis.deleteTopics``: TOPIC_DELETION_DISABLED when
        ``delete.topic.enable`` is false; INVALID_REQUEST for an entry with neither a name nor an id,
        with both, a name or an id given more than once, or a name whose topic's id was also given;
        UNKNOWN_TOPIC_OR_PARTITION for an unknown name, UNKNOWN_TOPIC_ID for an unknown id, with
        Kafka's generic messages; else error 0.  NOT_CONTROLLER when the controller is stopped.
        Never raises.
        """
        try:
            return await self._ops.submit("DeleteTopics", lambda: self._handle_delete_topics(request))
        except Exception as exc:  # the wire-code boundary; the event manager logged unexpected errors
            return DeleteTopicsResponse(
                responses=[
                    DeletableTopicResult(
                        name=name,
                        topic_id=topic_id,
                        error_code=error_code_for(exc),
                        error_message=error_message(exc),
                    )
                    for name, topic_id in dict.fromkeys(_entries(request))
                ]
            )

    async def _handle_delete_topics(self, request: DeleteTopicsRequest) -> DeleteTopicsResponse:
        entries = _entries(request)
        answers: list[DeletableTopicResult] = []

        def answer(name: str | None, topic_id: bytes, code: int, message: str | None) -> None:
            answers.append(
                DeletableTopicResult(name=name, topic_id=topic_id, error_code=code, error_message=message)
            )

        if not self.delete_topic_enable:
            message = "Topic deletion is disabled (delete.topic.enable=false on the controller)."
            for name, topic_id in dict.fromkeys(entries):
                answer(name, topic_id, Errors.TOPIC_DELETION_DISABLED, message)
            return DeleteTopicsResponse(responses=answers)
        names: dict[str, None] = {}  # given once, in order
        duplicate_names: set[str] = set()
        ids: dict[bytes, None] = {}
        duplicate_ids: set[bytes] = set()
        for name, topic_id in entries:
            if name is None and topic_id == ZERO_UUID:
                answer(None, ZERO_UUID, Errors.INVALID_REQUEST, "Neither topic name nor id were specified.")
            elif name is not None and topic_id != ZERO_UUID:
                answer(
                    name,
                    topic_id,
                    Errors.INVALID_REQUEST,
                    "You may not specify both topic name and topic id.",
                )
            else:
                given, duplicates, key = (
                    (names, duplicate_names, name) if name is not None else (ids, duplicate_ids, topic_id)
                )
                if key in duplicates or key in given:
                    duplicates.add(key)
                    given.pop(key, None)
                else:
                    given[key] = None
        for name in sorted(duplicate_names):
            answer(name, ZERO_UUID, Errors.INVALID_REQUEST, "Duplicate topic name.")
        for topic_id in sorted(duplicate_ids):
            answer(None, topic_id, Errors.INVALID_REQUEST, "Duplicate topic id.")
        topics = self._ops.context.topics
        name_by_id = {uuid_from_string(info.topic_id): name for name, info in topics.items()}
        name_by_id.pop(ZERO_UUID, None)
        to_delete: dict[str, bytes] = {}  # name -> topic id
        name_of_given_id: dict[bytes, str] = {}
        for topic_id in ids:
            if topic_id in name_by_id:
                to_delete[name_by_id[topic_id]] = topic_id
                name_of_given_id[topic_id] = name_by_id[topic_id]
            else:
                answer(None, topic_id, Errors.UNKNOWN_TOPIC_ID, UnknownTopicIdError.message)
        for name in names:
            info = topics.get(name)
            if info is None:
                answer(
                    name, ZERO_UUID, Errors.UNKNOWN_TOPIC_OR_PARTITION, UnknownTopicOrPartitionError.message
                )
                continue
            topic_id = uuid_from_string(info.topic_id)
            if topic_id != ZERO_UUID and (topic_id in duplicate_ids or topic_id in name_of_given_id):
                # the topic's id was given too: the name answers INVALID_REQUEST and the id none, as Kafka
                duplicate_ids.add(topic_id)
                to_delete.pop(name_of_given_id.pop(topic_id, ""), None)
                message = "The provided topic name maps to an ID that was already supplied."
                answer(name, topic_id, Errors.INVALID_REQUEST, message)
            else:
                to_delete[name] = topic_id
        result = self._replication_control.delete_topics(to_delete)
        assert result.response is not None
        for name, topic_id in to_delete.items():
            answer(name, topic_id, *result.response[name])
        removed = [r for r in result.records if isinstance(r, RemoveTopicRecord)]
        replicas = {r.name: self._replicas_by_broker(r.name) for r in removed}
        await self._ops.write(result.records, "DeleteTopics")
        if removed:
            self._announce_removal(removed, replicas)
        return DeleteTopicsResponse(responses=sorted(answers, key=lambda a: _position(entries, a)))

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


def _entries(request: DeleteTopicsRequest) -> list[tuple[str | None, bytes]]:
    """The request's topics as (name or None, topic id): ``topic_names`` (v0-5) with the zero id, then
    ``topics`` (v6)."""
    return [(name, ZERO_UUID) for name in request.topic_names] + [
        (t.name, t.topic_id) for t in request.topics
    ]


def _position(entries: list[tuple[str | None, bytes]], result: DeletableTopicResult) -> int:
    """Where the request first gives the topic ``result`` answers (by name or by id)."""
    for i, (name, topic_id) in enumerate(entries):
        if (name is not None and name == result.name) or (
            topic_id != ZERO_UUID and topic_id == result.topic_id
        ):
            return i
    return len(entries)
