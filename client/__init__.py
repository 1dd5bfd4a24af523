"""Kafkette's Python SDK: AdminClient, Producer, Consumer, LocalCluster and errors.

Exports the public API (aiokafka-shaped, Kafka's names: AdminClient with NewTopic,
NewPartitions and ConfigResource, ...) and every error class of
``kafkette.protocol.errors`` (``KafkaError``, ``KafkaConnectionError``, ``KafkaTimeoutError``
and one class per Kafka error code, e.g. ``NotLeaderOrFollowerError``).
"""

from kafkette.client.admin import AdminClient, NewPartitions, NewTopic, PartitionInfo, TopicDescription
from kafkette.client.config_resource import (
    AlterConfigOp,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    ConfigResourceType,
    ConfigSource,
)
from kafkette.client.consumer import (
    Consumer,
    ConsumerRebalanceListener,
    ConsumerRecord,
    ListOffsetsResultInfo,
    OffsetAndTimestamp,
    OffsetSpec,
)
from kafkette.client.group_descriptions import (
    ConsumerGroupDescription,
    ConsumerGroupListing,
    MemberDescription,
)
from kafkette.client.local_cluster import LocalCluster, LocalClusterError
from kafkette.client.offset_and_metadata import OffsetAndMetadata
from kafkette.client.producer import Producer, RecordMetadata
from kafkette.protocol import errors as _errors
from kafkette.protocol.errors import IllegalStateError, KafkaConnectionError, KafkaError, KafkaTimeoutError
from kafkette.protocol.topic_partition import TopicPartition

globals().update(_errors.all_error_classes())

__all__ = [
    "AdminClient",
    "AlterConfigOp",
    "AlterConfigOpType",
    "ConfigEntry",
    "ConfigResource",
    "ConfigResourceType",
    "ConfigSource",
    "Consumer",
    "ConsumerGroupDescription",
    "ConsumerGroupListing",
    "ConsumerRebalanceListener",
    "ConsumerRecord",
    "IllegalStateError",
    "KafkaConnectionError",
    "KafkaError",
    "KafkaTimeoutError",
    "LocalCluster",
    "LocalClusterError",
    "MemberDescription",
    "NewPartitions",
    "ListOffsetsResultInfo",
    "NewTopic",
    "OffsetAndMetadata",
    "OffsetAndTimestamp",
    "OffsetSpec",
    "PartitionInfo",
    "Producer",
    "RecordMetadata",
    "TopicDescription",
    "TopicPartition",
    *sorted(_errors.all_error_classes()),
]
