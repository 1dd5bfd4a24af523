"""A snapshot of the controller's state as metadata records (KIP-630).

Owns: ``encode_snapshot`` / ``decode_snapshot`` (a snapshot's bytes: msgpack of the records'
``[record_type, fields]`` lists) and ``snapshot_records``: the shortest record stream that, replayed into an
empty ``ControllerContext``, rebuilds the given one (brokers with their registration and
fencing, topics with their ids and config overrides, partitions with assignment, leader,
ISR, epochs and offline replicas, topics queued for deletion, the controller epoch,
the next producer id, client quotas, SCRAM credentials and ACLs).  The state machines'
states are not recorded: replay derives them, as it does from the log.  Does not own writing or
fetching snapshots.

Kafka concept: the records a ``SnapshotGenerator`` writes from the controller's image.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgpack

from kafkette.controller.controller_context import ControllerContext
from kafkette.controller.metadata_records import (
    ClientQuotaRecord,
    ConfigRecord,
    ControllerEpochRecord,
    MetadataRecord,
    PartitionChangeRecord,
    PartitionRecord,
    ProducerIdsRecord,
    RegisterBrokerRecord,
    TopicDeletionRecord,
    TopicRecord,
    UnfenceBrokerRecord,
    record_from_wire,
)


def encode_snapshot(records: Sequence[MetadataRecord]) -> bytes:
    """The bytes of a snapshot holding ``records``."""
    return msgpack.packb([record.to_wire() for record in records], use_bin_type=True)


def decode_snapshot(data: bytes) -> list[MetadataRecord]:
    """The records of a snapshot's bytes.

    Raises:
        ValueError: bytes that are no snapshot (undecodable, or not a list of records).
    """
    try:
        rows = msgpack.unpackb(data, raw=False)
    except (msgpack.UnpackException, ValueError) as exc:
        raise ValueError(f"undecodable metadata snapshot: {exc}") from None
    if not isinstance(rows, list):
        raise ValueError(f"a metadata snapshot holds a list of records, not {type(rows).__name__}")
    return [record_from_wire(row) for row in rows]


def snapshot_records(context: ControllerContext) -> list[MetadataRecord]:
    """The records that rebuild ``context`` from nothing, brokers before the partitions on them."""
    records: list[MetadataRecord] = []
    if context.controller_epoch:
        records.append(ControllerEpochRecord(context.controller_epoch))
    for broker_id, broker in sorted(context.brokers.items()):
        records.append(
            RegisterBrokerRecord(
                broker_id, broker.broker_epoch, broker.incarnation_id, broker.host, broker.port, broker.rack
            )
        )
        if not broker.fenced:
            records.append(UnfenceBrokerRecord(broker_id, broker.broker_epoch))
    for name, topic in sorted(context.topics.items()):
        records.append(TopicRecord(name, topic.topic_id))
        records += [ConfigRecord("topic", name, key, value) for key, value in sorted(topic.configs.items())]
    for group_id, configs in sorted(context.group_configs.items()):
        records += [ConfigRecord("group", group_id, key, value) for key, value in sorted(configs.items())]
    for tp, part in sorted(context.partitions.items(), key=lambda item: (item[0].topic, item[0].partition)):
        records.append(
            PartitionRecord(
                tp.topic,
                tp.partition,
                list(part.replicas),
                list(part.isr),
                part.leader,
                part.leader_epoch,
                part.partition_epoch,
            )
        )
        if part.offline_replicas:
            records.append(
                PartitionChangeRecord(
                    tp.topic,
                    tp.partition,
                    part.leader,
                    list(part.isr),
                    part.leader_epoch,
                    part.partition_epoch,
                    list(part.offline_replicas),
                )
            )
    records += [
        TopicDeletionRecord(name, context.topics[name].topic_id)
        for name in sorted(context.topics_to_be_deleted)
    ]
    if context.next_producer_id:
        records.append(ProducerIdsRecord(-1, -1, context.next_producer_id))
    for entity, quotas in sorted(context.client_quotas.items(), key=lambda item: repr(item[0])):
        records += [ClientQuotaRecord([list(p) for p in entity], k, v) for k, v in sorted(quotas.items())]
    for _, mechanisms in sorted(context.scram_credentials.items()):
        records += [mechanisms[m] for m in sorted(mechanisms)]
    records += [context.acls[acl_id] for acl_id in sorted(context.acls)]
    return records
