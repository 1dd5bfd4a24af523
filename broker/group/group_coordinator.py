"""GroupCoordinator: answers a group's requests at the broker that coordinates it.

Owns: the checks Kafka makes before touching a group (a valid group id, this broker its
coordinator and done loading it), the per-partition checks of a commit (the topic and
partition exist, the metadata fits ``offset.metadata.max.bytes``), the generation rules of a
commit, and turning requests into ``GroupMetadataManager`` calls and responses.  Does not own
storage (``GroupMetadataManager``).

Commits come from consumers outside group management (``generation_id`` -1, empty
``member_id``, as Kafka accepts for a group with no members); a commit naming a generation
is refused with ILLEGAL_GENERATION, as Kafka refuses it for a group it has no members of.

Kafka concept: ``GroupCoordinator.handleCommitOffsets`` / ``handleFetchOffsets`` and
``validateGroupStatus``; ``KafkaApis.handleOffsetCommitRequest`` / ``handleOffsetFetchRequest``.
"""

from __future__ import annotations

import logging

from kafkette.broker.group.coordinator_records import OffsetCommitValue
from kafkette.broker.group.group_metadata_manager import GroupMetadataManager
from kafkette.broker.metadata_cache import MetadataCache
from kafkette.protocol.apis.offsets import (
    OffsetCommitRequest,
    OffsetCommitResponse,
    OffsetCommitResponsePartition,
    OffsetCommitResponseTopic,
    OffsetFetchRequest,
    OffsetFetchResponse,
    OffsetFetchResponsePartition,
    OffsetFetchResponseTopic,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)


class GroupCoordinator:
    """The group requests of one broker.

    Args:
        manager: the offsets of the groups this broker coordinates.
        metadata_cache: which topics and partitions exist.
        offset_metadata_max_bytes: ``offset.metadata.max.bytes``.
    """

    def __init__(self, manager: GroupMetadataManager, metadata_cache: MetadataCache, *,
                 offset_metadata_max_bytes: int = 4096) -> None:
        self.manager = manager
        self._metadata_cache = metadata_cache
        self._offset_metadata_max_bytes = offset_metadata_max_bytes

    def _group_error(self, group_id: str) -> Errors:
        """Kafka's ``validateGroupStatus``: INVALID_GROUP_ID for an empty id, then whether this
        broker coordinates the group (NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS)."""
        if not group_id:
            return Errors.INVALID_GROUP_ID
        return self.manager.coordinator_error(group_id)

    def _partition_exists(self, tp: TopicPartition) -> bool:
        return self._metadata_cache.partition_state(tp) is not None

    async def handle_commit_offsets(self, request: OffsetCommitRequest) -> OffsetCommitResponse:
        """OffsetCommit: every partition answered, the valid ones committed together."""
        errors: dict[TopicPartition, Errors] = {}
        to_commit: dict[TopicPartition, OffsetCommitValue] = {}
        group_error = self._group_error(request.group_id)
        if group_error == Errors.NONE and request.generation_id >= 0:
            group_error = Errors.ILLEGAL_GENERATION  # no member of this group (Kafka: a stale generation)
        for topic in request.topics:
            for p in topic.partitions:
                tp = TopicPartition(topic.name, p.partition_index)
                metadata = p.committed_metadata or ""
                if group_error != Errors.NONE:
                    errors[tp] = group_error
                elif not self._partition_exists(tp):
                    errors[tp] = Errors.UNKNOWN_TOPIC_OR_PARTITION
                elif len(metadata.encode("utf-8")) > self._offset_metadata_max_bytes:
                    errors[tp] = Errors.OFFSET_METADATA_TOO_LARGE
                else:
                    to_commit[tp] = OffsetCommitValue(p.committed_offset, p.committed_leader_epoch, metadata)
        if to_commit:
            errors.update(await self.manager.store_offsets(request.group_id, to_commit))
        return OffsetCommitResponse(topics=[
            OffsetCommitResponseTopic(name=topic.name, partitions=[
                OffsetCommitResponsePartition(partition_index=p.partition_index,
                                              error_code=errors[TopicPartition(topic.name, p.partition_index)])
                for p in topic.partitions])
            for topic in request.topics])

    def handle_fetch_offsets(self, request: OffsetFetchRequest) -> OffsetFetchResponse:
        """OffsetFetch: the committed offset of each partition asked for (-1 when none), or of
        every partition the group has committed when ``topics`` is null."""
        group_error = self._group_error(request.group_id)
        if group_error != Errors.NONE:
            return OffsetFetchResponse(error_code=group_error)
        asked = None if request.topics is None else [
            TopicPartition(t.name, p) for t in request.topics for p in t.partition_indexes]
        committed = self.manager.fetch_offsets(request.group_id, asked)
        by_topic: dict[str, list[OffsetFetchResponsePartition]] = {}
        for tp, value in committed.items():
            entry = OffsetFetchResponsePartition(partition_index=tp.partition, error_code=Errors.NONE)
            if value is not None:
                entry.committed_offset = value.offset
                entry.committed_leader_epoch = value.leader_epoch
                entry.metadata = value.metadata
            by_topic.setdefault(tp.topic, []).append(entry)
        return OffsetFetchResponse(error_code=Errors.NONE, topics=[
            OffsetFetchResponseTopic(name=name, partitions=sorted(parts, key=lambda e: e.partition_index))
            for name, parts in sorted(by_topic.items())])

    def on_election(self, partition: int, leader_epoch: int) -> None:
        """This broker leads ``__consumer_offsets-<partition>`` now (see ``GroupMetadataManager``)."""
        self.manager.on_election(partition, leader_epoch)

    def on_resignation(self, partition: int) -> None:
        """This broker no longer leads ``__consumer_offsets-<partition>``."""
        self.manager.on_resignation(partition)

    async def stop(self) -> None:
        """Stop loading and drop every group."""
        await self.manager.stop()
