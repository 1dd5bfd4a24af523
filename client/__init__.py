"""Kafkette's Python SDK: AdminClient, Producer, Consumer, LocalCluster and errors.

Exports the public API (aiokafka-shaped, Kafka's names: AdminClient with NewTopic,
NewPartitions and ConfigResource, Kafka's ACL, SCRAM, client quota and transaction value
types, ...)
and every error class of
``kafkette.protocol.errors`` (``KafkaError``, ``KafkaConnectionError``, ``KafkaTimeoutError``
and one class per Kafka error code, e.g. ``NotLeaderOrFollowerError``).
"""

import importlib
from typing import Any

from kafkette.protocol import errors as _errors
from kafkette.protocol.errors import IllegalStateError, KafkaConnectionError, KafkaError, KafkaTimeoutError
from kafkette.protocol.topic_partition import TopicPartition

# The SDK's classes are imported on first use (PEP 562), so that a process that needs one
# submodule (a broker reading ``kafkette.common.topic_config``) does not import them all.
_LAZY: dict[str, str] = {
    **dict.fromkeys(
        ("AdminClient", "NewPartitions", "NewTopic", "PartitionInfo", "TopicDescription"),
        "kafkette.client.admin",
    ),
    **dict.fromkeys(
        (
            "AccessControlEntry",
            "AccessControlEntryFilter",
            "AclBinding",
            "AclBindingFilter",
            "AclOperation",
            "AclPermissionType",
            "PatternType",
            "ResourcePattern",
            "ResourcePatternFilter",
            "ResourceType",
        ),
        "kafkette.client.admin_acls",
    ),
    **dict.fromkeys(
        (
            "ScramCredentialInfo",
            "ScramMechanism",
            "UserScramCredentialDeletion",
            "UserScramCredentialUpsertion",
        ),
        "kafkette.client.admin_scram",
    ),
    **dict.fromkeys(
        ("ClientQuotaAlteration", "ClientQuotaFilter", "ClientQuotaFilterComponent"),
        "kafkette.client.admin_quotas",
    ),
    **dict.fromkeys(
        (
            "AbortTransactionSpec",
            "PartitionProducerState",
            "ProducerState",
            "TransactionDescription",
            "TransactionListing",
        ),
        "kafkette.client.admin_transactions",
    ),
    **dict.fromkeys(
        (
            "AlterConfigOp",
            "AlterConfigOpType",
            "ConfigEntry",
            "ConfigResource",
            "ConfigResourceType",
            "ConfigSource",
        ),
        "kafkette.client.config_resource",
    ),
    **dict.fromkeys(
        (
            "Consumer",
            "ConsumerRebalanceListener",
            "ConsumerRecord",
            "ListOffsetsResultInfo",
            "OffsetAndTimestamp",
            "OffsetSpec",
        ),
        "kafkette.client.consumer",
    ),
    **dict.fromkeys(
        ("ConsumerGroupDescription", "ConsumerGroupListing", "MemberDescription"),
        "kafkette.client.group_descriptions",
    ),
    **dict.fromkeys(("LocalCluster", "LocalClusterError"), "kafkette.client.local_cluster"),
    "OffsetAndMetadata": "kafkette.client.offset_and_metadata",
    **dict.fromkeys(("Producer", "RecordMetadata"), "kafkette.client.producer"),
    "create_ssl_context": "kafkette.client.ssl_context",
}
_SECURITY_ADMIN_MODULES = (
    "kafkette.client.admin_acls",
    "kafkette.client.admin_quotas",
    "kafkette.client.admin_scram",
)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'kafkette.client' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


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
    *sorted(n for n, m in _LAZY.items() if m in _SECURITY_ADMIN_MODULES),
    *sorted(n for n, m in _LAZY.items() if m == "kafkette.client.admin_transactions"),
    *sorted(_errors.all_error_classes()),
]
