"""One voter's controller state in the quorum simulation: committed records applied to a ControllerContext.

Owns: ``ControllerReplica`` (a ``ControllerContext`` built only by replaying committed
metadata records in offset order, or by loading a snapshot; the offset applied up to;
the bytes applied since the last snapshot), the snapshot codec (``encode_snapshot`` /
``decode_snapshot``: the records of ``snapshot_records`` as msgpack) and
``context_digest`` (a canonical digest of the state, for comparing voters at equal
offsets).  Does not own the log or deciding what is committed (the Raft core), nor
checking anything (``invariants``).

Kafka concept: what a ``RaftClient.Listener`` does with ``handleCommit`` and
``handleLoadSnapshot`` (the controller's ``QuorumMetaLogListener``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import msgpack

from kafkette.controller.controller_context import ControllerContext
from kafkette.controller.metadata_records import MetadataRecord, record_from_wire
from kafkette.controller.metadata_snapshot import snapshot_records
from kafkette.controller.raft.kafka_raft_client import LeaderChange
from kafkette.controller.raft.replicated_log import LogEntry, OffsetAndEpoch


def encode_snapshot(context: ControllerContext) -> bytes:
    """The records that rebuild ``context``, msgpack-encoded (a snapshot's bytes)."""
    return msgpack.packb([record.to_wire() for record in snapshot_records(context)], use_bin_type=True)


def decode_snapshot(data: bytes) -> list[MetadataRecord]:
    """The records of a snapshot's bytes.

    Raises:
        ValueError: bytes that are no snapshot.
    """
    return [record_from_wire(obj) for obj in msgpack.unpackb(data, raw=False)]


def record_size_bytes(record: MetadataRecord) -> int:
    """The bytes ``record`` takes in the log (its msgpack encoding)."""
    return len(msgpack.packb(record.to_wire(), use_bin_type=True))


def new_context(node_id: int) -> ControllerContext:
    return ControllerContext(lambda: 0, lambda: f"[Simulation node={node_id}]")


def replay_all(context: ControllerContext, records: Iterable[MetadataRecord]) -> None:
    for record in records:
        context.replay(record)


def context_digest(context: ControllerContext) -> str:
    """A canonical digest of the controller state (brokers, topics with configs and deletion
    marks, partitions with leader, ISR, epochs and offline replicas, controller epoch, next
    producer id).  The state machines' states are left out: a snapshot does not record them."""
    brokers = sorted(
        (b.broker_id, b.broker_epoch, b.incarnation_id, b.host, b.port, b.rack, b.fenced)
        for b in context.brokers.values()
    )
    topics = sorted(
        (t.name, t.topic_id, t.num_partitions, tuple(sorted(t.configs.items())))
        for t in context.topics.values()
    )
    partitions = sorted(
        (
            tp.topic,
            tp.partition,
            tuple(p.replicas),
            tuple(p.isr),
            p.leader,
            p.leader_epoch,
            p.partition_epoch,
            tuple(p.offline_replicas),
        )
        for tp, p in context.partitions.items()
    )
    state = (
        brokers,
        topics,
        partitions,
        sorted(context.topics_to_be_deleted),
        context.controller_epoch,
        context.next_producer_id,
    )
    return hashlib.blake2b(repr(state).encode(), digest_size=8).hexdigest()


class ControllerReplica:
    """The controller state of voter ``node_id`` after applying entries below ``applied``.

    Args:
        node_id: the voter.
    """

    def __init__(self, node_id: int) -> None:
        self.node_id = node_id
        self.context = new_context(node_id)
        self.applied = 0
        self.bytes_since_snapshot = 0

    def load_snapshot(self, snapshot_id: OffsetAndEpoch, data: bytes) -> None:
        """Replace the state with the snapshot's (Kafka's ``handleLoadSnapshot``).

        Raises:
            ValueError: undecodable bytes, or records that do not replay.
        """
        self.context = new_context(self.node_id)
        replay_all(self.context, decode_snapshot(data))
        self.applied = snapshot_id.offset
        self.bytes_since_snapshot = 0

    def apply(self, entry: LogEntry) -> None:
        """Apply the committed entry at offset ``applied`` (a ``LeaderChange`` changes nothing).

        Raises:
            ValueError: ``entry`` is not the next one, or its record does not replay.
            IllegalStateTransitionError: its record implies an illegal state transition.
        """
        if entry.offset != self.applied:
            raise ValueError(f"node {self.node_id} applies offset {entry.offset}, expected {self.applied}")
        if not isinstance(entry.payload, LeaderChange):
            self.context.replay(entry.payload)
            self.bytes_since_snapshot += record_size_bytes(entry.payload)
        self.applied += 1
