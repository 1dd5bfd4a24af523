"""The metadata hash of a consumer group's subscribed topics (KIP-848, KIP-1101).

Owns: one 64-bit number per group that changes whenever a subscribed topic appears, disappears, changes
id, or changes its partition count or its replicas' racks, so that the coordinator bumps the group epoch
(and computes a new target assignment) exactly then.  Kafka hashes each topic with XXH3 and combines the
topics sorted by name; only Kafkette reads Kafkette's hash back, so it uses BLAKE2b (``hashlib``) over the
same inputs.  Does not own when the hash is recomputed.

Kafka concept: ``ModernGroup.computeMetadataHash``, ``Utils.computeTopicHash`` and
``Utils.computeGroupHash``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Protocol

from kafkette.broker.group.assignors.api import TopicId

_MAGIC = b"\x00"


class _Topics(Protocol):
    def topic_id_of(self, name: str) -> TopicId | None: ...

    def number_of_partitions(self, topic_id: TopicId) -> int: ...

    def racks_for_partition(self, topic_id: TopicId, partition: int) -> frozenset[str]: ...


def topic_hash(name: str, topics: _Topics) -> bytes:
    """A topic's 8-byte digest of its id, name, partition count and sorted racks per partition; empty for
    a topic that does not exist (it contributes nothing, as Kafka's hash 0 is skipped)."""
    topic_id = topics.topic_id_of(name)
    if topic_id is None:
        return b""
    digest = hashlib.blake2b(digest_size=8)
    count = topics.number_of_partitions(topic_id)
    digest.update(_MAGIC + topic_id + name.encode() + b"\x00" + count.to_bytes(4, "big", signed=True))
    for partition in range(max(count, 0)):
        for rack in sorted(topics.racks_for_partition(topic_id, partition)):
            digest.update(partition.to_bytes(4, "big") + rack.encode() + b"\x00")
    return digest.digest()


def metadata_hash(subscribed_topic_names: Iterable[str], topics: _Topics) -> int:
    """The group's hash over its subscribed topics (a signed 64-bit int, as the ConsumerGroupMetadata
    record's ``MetadataHash`` holds it); 0 when none of them exists."""
    digests = [(name, topic_hash(name, topics)) for name in sorted(subscribed_topic_names)]
    digests = [(name, d) for name, d in digests if d]
    if not digests:
        return 0
    combined = hashlib.blake2b(b"".join(d for _, d in digests), digest_size=8).digest()
    return int.from_bytes(combined, "big", signed=True)
