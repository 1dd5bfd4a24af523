"""The Raft core's messages on the wire, and the metadata log's entries as bytes.

Owns: ``RaftWire``, built with the state machine's ``RecordSerde``: ``to_wire`` (a core
message -> the protocol struct of Vote, BeginQuorumEpoch, EndQuorumEpoch, Fetch or
FetchSnapshot, about partition ``__cluster_metadata-0``), ``from_wire`` (a protocol struct ->
``(source node id, core message)``; a request naming another partition, or malformed, raises
``ValueError``), and the entry codecs: a payload is a record (bytes from the serde) or the
``LeaderChange`` control entry (msgpack, written here); Fetch carries entries as
``msgpack([[offset, epoch, payload bytes, batch end offset], ...])``.
The frame's correlation id stands for the core's ``correlation_id`` of a Fetch or
FetchSnapshot; a FetchSnapshot chunk travels as the bytes it is (``unaligned_records``).

Kafka concept: the ``RaftUtil`` conversions between ``RaftMessage`` and the ``*Data`` classes.
"""

from __future__ import annotations

from typing import Any

import msgpack

from kafkette.common.topic_names import CLUSTER_METADATA_TOPIC_NAME
from kafkette.controller.raft import raft_messages as core
from kafkette.controller.raft.kafka_raft_client import LeaderChange
from kafkette.controller.raft.record_serde import RecordSerde
from kafkette.controller.raft.replicated_log import LogEntry, OffsetAndEpoch
from kafkette.protocol.apis import fetch as wire_fetch
from kafkette.protocol.apis import raft as wire

LEADER_CHANGE = "LeaderChange"
LEADER_CHANGE_PREFIX = b"\x92" + msgpack.packb(LEADER_CHANGE)  # msgpack: fixarray of 2, then the str
"""How every LeaderChange entry starts: a 2-array whose first item is the str "LeaderChange"."""
NO_OFFSET_AND_EPOCH = OffsetAndEpoch(-1, -1)


def _snapshot_id(snapshot_id: OffsetAndEpoch) -> Any:
    return wire.SnapshotId(end_offset=snapshot_id.offset, epoch=snapshot_id.epoch)


def _only_partition(topics: list[Any], name_field: str) -> Any:
    if (
        len(topics) != 1
        or getattr(topics[0], name_field) != CLUSTER_METADATA_TOPIC_NAME
        or len(topics[0].partitions) != 1
    ):
        raise ValueError(f"a quorum request is about {CLUSTER_METADATA_TOPIC_NAME}-0 alone")
    partition = topics[0].partitions[0]
    index = next(
        (
            getattr(partition, name)
            for name in ("partition_index", "partition", "index")
            if hasattr(partition, name)
        ),
        0,
    )
    if index != 0:
        raise ValueError(f"{CLUSTER_METADATA_TOPIC_NAME} has one partition, not {index}")
    return partition


class RaftWire:
    """The Raft layer's messages and entries as bytes, for one state machine's records.

    Args:
        serde: encodes the state machine's records (Kafka's ``RecordSerde``); the
            ``LeaderChange`` control entries are encoded here.
    """

    def __init__(self, serde: RecordSerde) -> None:
        self.serde = serde

    def encode_payload(self, payload: Any) -> bytes:
        """A record (through the serde) or ``LeaderChange`` as bytes.

        Raises:
            TypeError: any other payload.
        """
        if isinstance(payload, LeaderChange):
            return msgpack.packb(
                [LEADER_CHANGE, {"leader_id": payload.leader_id, "voters": list(payload.voters)}]
            )
        return self.serde.write(payload)

    def decode_payload(self, data: bytes) -> Any:
        """The inverse of ``encode_payload``.

        Raises:
            ValueError: bytes that are no payload.
        """
        if not data.startswith(LEADER_CHANGE_PREFIX):
            return self.serde.read(data)  # a record: decoded once, by its serde
        try:
            obj = msgpack.unpackb(data, raw=False)
            return LeaderChange(int(obj[1]["leader_id"]), tuple(int(v) for v in obj[1]["voters"]))
        except (msgpack.UnpackException, ValueError, TypeError, KeyError, IndexError) as exc:
            raise ValueError(f"undecodable LeaderChange entry: {exc}") from None

    def encode_entries(self, entries: tuple[LogEntry, ...]) -> bytes:
        """Entries as a Fetch answer's ``records``:
        ``msgpack([[offset, epoch, payload, batch end], ...])``."""
        rows = [[e.offset, e.epoch, self.encode_payload(e.payload), e.batch_end_offset] for e in entries]
        return msgpack.packb(rows, use_bin_type=True)

    def decode_entries(self, data: bytes | None) -> tuple[LogEntry, ...]:
        """Entries from a Fetch answer's ``records``.

        Raises:
            ValueError: malformed bytes or entries out of order.
        """
        if not data:
            return ()
        try:
            raw = msgpack.unpackb(data, raw=False)
            entries = tuple(LogEntry(int(o), int(e), self.decode_payload(p), int(b)) for o, e, p, b in raw)
        except (msgpack.UnpackException, TypeError, ValueError) as exc:
            raise ValueError(f"undecodable metadata log entries: {exc}") from None
        if any(b.offset != a.offset + 1 for a, b in zip(entries, entries[1:], strict=False)):
            raise ValueError("metadata log entries out of order")
        return entries

    def to_wire(self, message: Any, cluster_id: str | None) -> Any:
        """The protocol struct for a core message.

        Raises:
            TypeError: not a core Raft message.
        """
        topic = CLUSTER_METADATA_TOPIC_NAME
        if isinstance(message, core.VoteRequest):
            return wire.VoteRequest(
                cluster_id=cluster_id,
                topics=[
                    wire.VoteTopicRequest(
                        topic_name=topic,
                        partitions=[
                            wire.VotePartitionRequest(
                                partition_index=0,
                                replica_epoch=message.replica_epoch,
                                replica_id=message.replica_id,
                                last_offset_epoch=message.last_offset_epoch,
                                last_offset=message.last_offset,
                            )
                        ],
                    )
                ],
            )
        if isinstance(message, core.VoteResponse):
            return wire.VoteResponse(
                topics=[
                    wire.VoteTopicResponse(
                        topic_name=topic,
                        partitions=[
                            wire.VotePartitionResponse(
                                partition_index=0,
                                error_code=message.error_code,
                                leader_id=message.leader_id,
                                leader_epoch=message.leader_epoch,
                                vote_granted=message.vote_granted,
                            )
                        ],
                    )
                ]
            )
        if isinstance(message, core.BeginQuorumEpochRequest):
            return wire.BeginQuorumEpochRequest(
                cluster_id=cluster_id,
                topics=[
                    wire.BeginQuorumEpochTopicRequest(
                        topic_name=topic,
                        partitions=[
                            wire.BeginQuorumEpochPartitionRequest(
                                partition_index=0,
                                leader_id=message.leader_id,
                                leader_epoch=message.leader_epoch,
                            )
                        ],
                    )
                ],
            )
        if isinstance(message, core.EndQuorumEpochRequest):
            return wire.EndQuorumEpochRequest(
                cluster_id=cluster_id,
                topics=[
                    wire.EndQuorumEpochTopicRequest(
                        topic_name=topic,
                        partitions=[
                            wire.EndQuorumEpochPartitionRequest(
                                partition_index=0,
                                leader_id=message.leader_id,
                                leader_epoch=message.leader_epoch,
                                preferred_successors=list(message.preferred_successors),
                            )
                        ],
                    )
                ],
            )
        if isinstance(message, (core.BeginQuorumEpochResponse, core.EndQuorumEpochResponse)):
            cls = (
                wire.BeginQuorumEpochResponse
                if isinstance(message, core.BeginQuorumEpochResponse)
                else wire.EndQuorumEpochResponse
            )
            return cls(
                topics=[
                    wire.QuorumEpochTopicResponse(
                        topic_name=topic,
                        partitions=[
                            wire.QuorumEpochPartitionResponse(
                                partition_index=0,
                                error_code=message.error_code,
                                leader_id=message.leader_id,
                                leader_epoch=message.leader_epoch,
                            )
                        ],
                    )
                ]
            )
        if isinstance(message, core.FetchRequest):
            return wire_fetch.FetchRequest(
                cluster_id=cluster_id,
                replica_id=message.replica_id,
                max_wait_ms=0,
                min_bytes=0,
                topics=[
                    wire_fetch.FetchTopic(
                        topic=topic,
                        partitions=[
                            wire_fetch.FetchPartition(
                                partition=0,
                                current_leader_epoch=message.current_leader_epoch,
                                fetch_offset=message.fetch_offset,
                                last_fetched_epoch=message.last_fetched_epoch,
                            )
                        ],
                    )
                ],
            )
        if isinstance(message, core.FetchResponse):
            diverging = message.diverging_epoch or NO_OFFSET_AND_EPOCH
            snapshot_id = message.snapshot_id or NO_OFFSET_AND_EPOCH
            return wire_fetch.FetchResponse(
                responses=[
                    wire_fetch.FetchTopicResponse(
                        topic=topic,
                        partitions=[
                            wire_fetch.FetchPartitionData(
                                partition_index=0,
                                error_code=message.error_code,
                                high_watermark=message.high_watermark,
                                diverging_epoch=wire_fetch.EpochEndOffset(
                                    epoch=diverging.epoch, end_offset=diverging.offset
                                ),
                                current_leader=wire_fetch.LeaderIdAndEpoch(
                                    leader_id=message.leader_id, leader_epoch=message.leader_epoch
                                ),
                                snapshot_id=wire_fetch.FetchSnapshotId(
                                    end_offset=snapshot_id.offset, epoch=snapshot_id.epoch
                                ),
                                records=self.encode_entries(message.entries),
                            )
                        ],
                    )
                ]
            )
        if isinstance(message, core.FetchSnapshotRequest):
            return wire.FetchSnapshotRequest(
                cluster_id=cluster_id,
                replica_id=message.replica_id,
                max_bytes=message.max_bytes,
                topics=[
                    wire.FetchSnapshotTopicRequest(
                        name=topic,
                        partitions=[
                            wire.FetchSnapshotPartitionRequest(
                                partition=0,
                                current_leader_epoch=message.current_leader_epoch,
                                snapshot_id=_snapshot_id(message.snapshot_id),
                                position=message.position,
                            )
                        ],
                    )
                ],
            )
        if isinstance(message, core.FetchSnapshotResponse):
            return wire.FetchSnapshotResponse(
                topics=[
                    wire.FetchSnapshotTopicResponse(
                        name=topic,
                        partitions=[
                            wire.FetchSnapshotPartitionResponse(
                                index=0,
                                error_code=message.error_code,
                                snapshot_id=_snapshot_id(message.snapshot_id),
                                current_leader=wire.LeaderIdAndEpoch(
                                    leader_id=message.leader_id, leader_epoch=message.leader_epoch
                                ),
                                size=message.size,
                                position=message.position,
                                unaligned_records=message.unaligned_records,
                            )
                        ],
                    )
                ]
            )
        raise TypeError(f"not a Raft message: {type(message).__name__}")

    def from_wire(self, message: Any, source: int = -1, correlation_id: int = 0) -> tuple[int, Any]:
        """``(source node id, core message)`` for a protocol struct.

        Args:
            message: a decoded request or response.
            source: the node a response came from (requests name their sender).
            correlation_id: the frame's correlation id (a Fetch's ``correlation_id``).

        Raises:
            ValueError: another partition than ``__cluster_metadata-0``, or malformed entries.
            TypeError: not a quorum message.
        """
        if isinstance(message, wire.VoteRequest):
            p = _only_partition(message.topics, "topic_name")
            return p.replica_id, core.VoteRequest(
                p.replica_epoch, p.replica_id, p.last_offset_epoch, p.last_offset
            )
        if isinstance(message, wire.VoteResponse):
            p = _only_partition(message.topics, "topic_name")
            return source, core.VoteResponse(
                message.error_code or p.error_code, p.leader_id, p.leader_epoch, p.vote_granted
            )
        if isinstance(message, wire.BeginQuorumEpochRequest):
            p = _only_partition(message.topics, "topic_name")
            return p.leader_id, core.BeginQuorumEpochRequest(p.leader_id, p.leader_epoch)
        if isinstance(message, wire.EndQuorumEpochRequest):
            p = _only_partition(message.topics, "topic_name")
            return p.leader_id, core.EndQuorumEpochRequest(
                p.leader_id, p.leader_epoch, tuple(p.preferred_successors)
            )
        if isinstance(message, (wire.BeginQuorumEpochResponse, wire.EndQuorumEpochResponse)):
            p = _only_partition(message.topics, "topic_name")
            cls = (
                core.BeginQuorumEpochResponse
                if isinstance(message, wire.BeginQuorumEpochResponse)
                else core.EndQuorumEpochResponse
            )
            return source, cls(message.error_code or p.error_code, p.leader_id, p.leader_epoch)
        if isinstance(message, wire_fetch.FetchRequest):
            p = _only_partition(message.topics, "topic")
            return message.replica_id, core.FetchRequest(
                message.replica_id,
                p.current_leader_epoch,
                p.fetch_offset,
                p.last_fetched_epoch,
                correlation_id,
            )
        if isinstance(message, wire_fetch.FetchResponse):
            p = _only_partition(message.responses, "topic")
            diverging = OffsetAndEpoch(p.diverging_epoch.end_offset, p.diverging_epoch.epoch)
            snapshot_id = OffsetAndEpoch(p.snapshot_id.end_offset, p.snapshot_id.epoch)
            return source, core.FetchResponse(
                message.error_code or p.error_code,
                p.current_leader.leader_id,
                p.current_leader.leader_epoch,
                p.high_watermark,
                None if diverging == NO_OFFSET_AND_EPOCH else diverging,
                None if snapshot_id == NO_OFFSET_AND_EPOCH else snapshot_id,
                self.decode_entries(p.records),
                correlation_id,
            )
        if isinstance(message, wire.FetchSnapshotRequest):
            p = _only_partition(message.topics, "name")
            return message.replica_id, core.FetchSnapshotRequest(
                message.replica_id,
                p.current_leader_epoch,
                OffsetAndEpoch(p.snapshot_id.end_offset, p.snapshot_id.epoch),
                p.position,
                message.max_bytes,
                correlation_id,
            )
        if isinstance(message, wire.FetchSnapshotResponse):
            p = _only_partition(message.topics, "name")
            return source, core.FetchSnapshotResponse(
                message.error_code or p.error_code,
                p.current_leader.leader_id,
                p.current_leader.leader_epoch,
                OffsetAndEpoch(p.snapshot_id.end_offset, p.snapshot_id.epoch),
                p.size,
                p.position,
                bytes(p.unaligned_records),
                correlation_id,
            )
        raise TypeError(f"not a quorum message: {type(message).__name__}")
