"""The feature flags (KIP-584) a broker advertises in its ApiVersions answers on the Kafka listener:
which levels of each of Kafka's features it supports, which are finalized in the cluster, and at
which metadata offset.

Owns the table of levels and why each is what it is; not the answer's encoding (``kafka_codec``) nor
the metadata offset, which the controller sends in UpdateMetadata (``MetadataCache``).

Kafka concept: ``BrokerFeatures.supportedFeatures`` and the ``FinalizedFeatures`` of the metadata
image (``KRaftMetadataCache.features``), whose epoch is the image's metadata offset.

The levels, and why (a level promises behaviour clients and tools act on):

- ``metadata.version`` 7 (3.3-IV3) only, finalized: the lowest level Kafka 4.x knows and the one
  Kafkette's metadata log and APIs match (KRaft-style registration with fencing and controlled
  shutdown, topic ids, leader recovery).  Every later level promises what Kafkette lacks: ZooKeeper
  migration (3.4-IV0), tiered storage and the replica epoch in Fetch (3.5), SCRAM (3.5-IV2),
  metadata transactions (3.6-IV1), delegation tokens (3.6-IV2), controller registration (3.7-IV0),
  JBOD directory assignment (3.7-IV2), eligible leader replicas (4.0-IV1) and onwards.
- ``kraft.version`` 0: a static quorum (``controller.quorum.voters``), no KIP-853 voter changes.
- ``group.version`` 1, finalized: KIP-848's consumer group protocol (ConsumerGroupHeartbeat,
  ConsumerGroupDescribe), as Kafka 4.x finalizes it.  As in Kafka, the protocol is served while
  ``group.coordinator.rebalance.protocols`` holds ``consumer`` (its default) and this level is at
  least 1.  Kafka's ``GroupVersion.GV_1`` requires metadata.version 4.0-IV0; Kafkette's log and APIs
  do what the consumer protocol needs at its one metadata.version (topic ids, KIP-516).
- ``transaction.version`` 0: no transactions; Kafka's producer reads this finalized level and at 2
  would use transactions V2 (KIP-890).
- ``eligible.leader.replicas.version``, ``share.version``, ``streams.version`` 0: no eligible leader
  replicas (KIP-966), share groups (KIP-932) nor the streams rebalance protocol (KIP-1071).

A feature at level 0 is not finalized: Kafka's answer leaves it out of ``finalizedFeatures``.
"""

from __future__ import annotations

from kafkette.protocol.kafka_codec import FeatureFlags

METADATA_VERSION = "metadata.version"
METADATA_VERSION_LEVEL = 7
"""``MetadataVersion.IBP_3_3_IV3``: the one ``metadata.version`` level Kafkette supports."""

GROUP_VERSION = "group.version"
GROUP_VERSION_CONSUMER_PROTOCOL = 1
"""``GroupVersion.GV_1``: the level from which the consumer group protocol (KIP-848) is served."""

SUPPORTED_FEATURES: dict[str, tuple[int, int]] = {
    METADATA_VERSION: (METADATA_VERSION_LEVEL, METADATA_VERSION_LEVEL),
    "kraft.version": (0, 0),
    "transaction.version": (0, 0),
    "group.version": (0, GROUP_VERSION_CONSUMER_PROTOCOL),
    "eligible.leader.replicas.version": (0, 0),
    "share.version": (0, 0),
    "streams.version": (0, 0),
}
"""``{feature: (min level, max level)}`` this broker supports (Kafka's production features)."""

FINALIZED_FEATURES: dict[str, int] = {
    name: high for name, (_, high) in SUPPORTED_FEATURES.items() if high > 0
}
"""``{feature: level}`` finalized in a Kafkette cluster: each feature at the one level it supports."""


def feature_flags(metadata_offset: int) -> FeatureFlags:
    """This broker's feature flags as of ``metadata_offset`` (the metadata log offset its
    ``MetadataCache`` last heard of from the controller; -1 before that)."""
    return FeatureFlags(SUPPORTED_FEATURES, FINALIZED_FEATURES, metadata_offset)
