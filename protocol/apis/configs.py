"""DescribeConfigs (key 32) and IncrementalAlterConfigs (key 44): topic and broker configs.

Resource types use Kafka's numbers (TOPIC = 2, BROKER = 4, GROUP = 32); config sources too
(DYNAMIC_TOPIC_CONFIG = 1, DYNAMIC_BROKER_CONFIG = 2, STATIC_BROKER_CONFIG = 4,
DEFAULT_CONFIG = 5, GROUP_CONFIG = 8); operations SET = 0, DELETE = 1, APPEND = 2, SUBTRACT = 3.
``TopicConfigOverride`` is one ``{name, value}`` topic override of the controller's
LeaderAndIsr and UpdateMetadata requests.  Kafka concept: KIP-133 / KIP-339.
"""

from kafkette.protocol.schema import Array, Bool, Field, Int8, Int16, Int32, Nullable, String, Struct

RESOURCE_TOPIC = 2
RESOURCE_BROKER = 4
RESOURCE_GROUP = 32  # KIP-848's group configs

SOURCE_DYNAMIC_TOPIC_CONFIG = 1
SOURCE_DYNAMIC_BROKER_CONFIG = 2
SOURCE_STATIC_BROKER_CONFIG = 4
SOURCE_DEFAULT_CONFIG = 5
SOURCE_GROUP_CONFIG = 8

OP_SET = 0
OP_DELETE = 1
OP_APPEND = 2
OP_SUBTRACT = 3


class TopicConfigOverride(Struct):
    """One topic config override as the controller sends it to brokers in LeaderAndIsr and
    UpdateMetadata: the config's name and its value as set (a string, parsed by the broker's
    ``LogConfig``)."""

    FIELDS = (
        Field("name", String),
        Field("value", String),
    )


class DescribeConfigsResource(Struct):
    FIELDS = (
        Field("resource_type", Int8),
        Field("resource_name", String),
        Field("configuration_keys", Nullable(Array(String))),
    )


class DescribeConfigsRequest(Struct):
    FIELDS = (
        Field("resources", Array(DescribeConfigsResource)),
        Field("include_synonyms", Bool),
    )


class DescribeConfigsSynonym(Struct):
    """One place a config's value may come from, most specific first (KIP-226)."""

    FIELDS = (
        Field("name", String),
        Field("value", Nullable(String)),
        Field("source", Int8),
    )


class DescribeConfigsResourceResult(Struct):
    FIELDS = (
        Field("name", String),
        Field("value", Nullable(String)),
        Field("read_only", Bool),
        Field("config_source", Int8, default=SOURCE_DEFAULT_CONFIG),
        Field("is_sensitive", Bool),
        Field("config_type", Int8),  # KIP-569: 1 BOOLEAN, 2 STRING, 3 INT, 4 SHORT, 5 LONG, 6 DOUBLE, 7 LIST
        Field("synonyms", Array(DescribeConfigsSynonym)),  # with include_synonyms only
    )


class DescribeConfigsResult(Struct):
    FIELDS = (
        Field("error_code", Int16),
        Field("error_message", Nullable(String)),
        Field("resource_type", Int8),
        Field("resource_name", String),
        Field("configs", Array(DescribeConfigsResourceResult)),
    )


class DescribeConfigsResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("results", Array(DescribeConfigsResult)),
    )


class AlterableConfig(Struct):
    FIELDS = (
        Field("name", String),
        Field("config_operation", Int8, default=OP_SET),
        Field("value", Nullable(String)),
    )


class AlterConfigsResource(Struct):
    FIELDS = (
        Field("resource_type", Int8),
        Field("resource_name", String),
        Field("configs", Array(AlterableConfig)),
    )


class IncrementalAlterConfigsRequest(Struct):
    """IncrementalAlterConfigs; with ``replace_all`` (set for Kafka's AlterConfigs, API 33, whose
    operations are all SET), each resource's dynamic configs become exactly the ones set: those not
    named are deleted."""

    FIELDS = (
        Field("resources", Array(AlterConfigsResource)),
        Field("validate_only", Bool),
        Field("replace_all", Bool, default=False),
    )


class AlterConfigsResourceResponse(Struct):
    FIELDS = (
        Field("error_code", Int16),
        Field("error_message", Nullable(String)),
        Field("resource_type", Int8),
        Field("resource_name", String),
    )


class IncrementalAlterConfigsResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("responses", Array(AlterConfigsResourceResponse)),
    )
