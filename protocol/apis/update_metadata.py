"""UpdateMetadata (key 6): the controller pushes cluster metadata to every broker.

Carries live brokers and partition states; each broker's MetadataCache replaces what
it holds for the listed partitions and answers Metadata requests from it.  Kafka
concept: ``UpdateMetadataRequest`` (into the broker's ``MetadataCache``).
"""

from kafkette.protocol.apis.client_quotas import DescribeClientQuotasEntry
from kafkette.protocol.apis.configs import TopicConfigOverride
from kafkette.protocol.schema import (
    Array,
    Bool,
    Bytes,
    Field,
    Int8,
    Int16,
    Int32,
    Int64,
    Nullable,
    String,
    Struct,
)


class UpdateMetadataPartitionState(Struct):
    FIELDS = (
        Field("topic_name", String),
        Field("partition_index", Int32),
        Field("controller_epoch", Int32),
        Field("leader", Int32, default=-1),
        Field("leader_epoch", Int32),
        Field("isr", Array(Int32)),
        Field("partition_epoch", Int32),
        Field("replicas", Array(Int32)),
        Field("offline_replicas", Array(Int32)),
    )


class UpdateMetadataEndpoint(Struct):
    """One listener of a live broker: its name (``KAFKA``) and advertised address."""

    FIELDS = (
        Field("listener", String),
        Field("host", String),
        Field("port", Int32),
    )


class UpdateMetadataBroker(Struct):
    FIELDS = (
        Field("id", Int32),
        Field("host", String),
        Field("port", Int32),
        Field("rack", Nullable(String), default=None),
        Field("endpoints", Array(UpdateMetadataEndpoint)),
    )


class UpdateMetadataTopicConfigs(Struct):
    FIELDS = (
        Field("topic_name", String),
        Field("configs", Array(TopicConfigOverride)),  # the topic's overrides, the whole set
        Field("topic_id", String),  # Kafka's Uuid string (22 characters of URL-safe base64); "" unknown
    )


class UpdateMetadataGroupConfigs(Struct):
    """A group's config overrides (KIP-848's group configs), the whole set; empty: none left."""

    FIELDS = (
        Field("group_id", String),
        Field("configs", Array(TopicConfigOverride)),
    )


class UpdateMetadataScramCredential(Struct):
    """One SCRAM credential of a user: Kafka's mechanism type byte, salt, stored key, server key
    and iterations (a ``UserScramCredentialRecord``)."""

    FIELDS = (
        Field("mechanism", Int8),
        Field("salt", Bytes),
        Field("stored_key", Bytes),
        Field("server_key", Bytes),
        Field("iterations", Int32),
    )


class UpdateMetadataScramCredentials(Struct):
    """A user's SCRAM credentials (KIP-554), the whole set; empty: the user has none left."""

    FIELDS = (
        Field("user", String),
        Field("credentials", Array(UpdateMetadataScramCredential)),
    )


class UpdateMetadataAcl(Struct):
    """One ACL as the controller stores it (an ``AccessControlEntryRecord``): its id (Kafka's Uuid
    string) and Kafka's codes of resource type, pattern type, operation and permission type."""

    FIELDS = (
        Field("id", String),
        Field("resource_type", Int8),
        Field("resource_name", String),
        Field("pattern_type", Int8),
        Field("principal", String),
        Field("host", String),
        Field("operation", Int8),
        Field("permission_type", Int8),
    )


class UpdateMetadataRequest(Struct):
    FIELDS = (
        Field("controller_id", Int32),
        Field("controller_epoch", Int32),
        Field("broker_epoch", Int64, default=-1),
        Field("full", Bool),
        Field("partition_states", Array(UpdateMetadataPartitionState)),
        Field("live_brokers", Array(UpdateMetadataBroker)),
        Field("deleted_topics", Array(String)),
        Field("topic_configs", Array(UpdateMetadataTopicConfigs)),
        # the offset of the last metadata log record the controller applied (-1: none): the
        # epoch of the finalized features a broker advertises (KIP-584)
        Field("metadata_offset", Int64, default=-1),
        # the registered brokers the controller fenced (not live: they lead nothing), listed by
        # DescribeCluster v2 with include_fenced_brokers (KIP-1073)
        Field("fenced_brokers", Array(UpdateMetadataBroker)),
        # the groups whose config overrides changed (every group with overrides in a full request), each
        # with its whole set: the broker's group coordinator applies them (Kafka's GroupConfigManager)
        Field("group_configs", Array(UpdateMetadataGroupConfigs)),
        # the users whose SCRAM credentials changed (every user with one in a full request), each with
        # the whole set: the broker's SASL/SCRAM logins read them (Kafka's ScramPublisher -> CredentialCache)
        Field("scram_credentials", Array(UpdateMetadataScramCredentials)),
        # the client quota entities whose quotas changed (every entity with one in a full request), each
        # with its whole set (empty: none left): the broker's ClientQuotaManager enforces them and
        # DescribeClientQuotas reads them (Kafka's DynamicClientQuotaPublisher)
        Field("client_quotas", Array(DescribeClientQuotasEntry)),
        # the ACLs created (every ACL in a full request) and the ids of those deleted since the last
        # request: the broker's AclStore, which answers DescribeAcls and authorizes (KIP-801; Kafka's
        # AclPublisher -> StandardAuthorizer.loadSnapshot / addAcl / removeAcl)
        Field("acls", Array(UpdateMetadataAcl)),
        Field("deleted_acl_ids", Array(String)),
    )


class UpdateMetadataResponse(Struct):
    FIELDS = (Field("error_code", Int16),)
