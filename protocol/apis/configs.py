"""DescribeConfigs (key 32, versions 1-4) and IncrementalAlterConfigs (key 44, versions 0-1): topic,
broker and group configs, declared once, in Kafka's versions, for both listeners.

Resource types use Kafka's numbers (TOPIC = 2, BROKER = 4, BROKER_LOGGER = 8, GROUP = 32); config
sources too (DYNAMIC_TOPIC_CONFIG = 1, DYNAMIC_BROKER_CONFIG = 2, DYNAMIC_BROKER_LOGGER_CONFIG = 3,
STATIC_BROKER_CONFIG = 4, DEFAULT_CONFIG = 5, GROUP_CONFIG = 8); operations SET = 0, DELETE = 1,
APPEND = 2, SUBTRACT = 3.
``TopicConfigOverride`` is one ``{name, value}`` topic override of the controller's
LeaderAndIsr and UpdateMetadata requests.  Kafka concept: KIP-133 / KIP-339.
"""

from kafkette.protocol.schema import Array, Bool, Field, Int8, Int16, Int32, String, Struct

RESOURCE_TOPIC = 2
RESOURCE_BROKER = 4
RESOURCE_BROKER_LOGGER = 8  # KIP-412's broker loggers
RESOURCE_GROUP = 32  # KIP-848's group configs

SOURCE_DYNAMIC_TOPIC_CONFIG = 1
SOURCE_DYNAMIC_BROKER_CONFIG = 2
SOURCE_DYNAMIC_BROKER_LOGGER_CONFIG = 3
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
        Field("configuration_keys", Array(String), nullable="1+"),
    )


class DescribeConfigsRequest(Struct):
    FIELDS = (
        Field("resources", Array(DescribeConfigsResource)),
        Field("include_synonyms", Bool),
        Field("include_documentation", Bool, "3+"),
    )


class DescribeConfigsSynonym(Struct):
    """One place a config's value may come from, most specific first (KIP-226)."""

    FIELDS = (
        Field("name", String),
        Field("value", String, nullable="1+"),
        Field("source", Int8),
    )


class DescribeConfigsResourceResult(Struct):
    FIELDS = (
        Field("name", String),
        Field("value", String, nullable="1+"),
        Field("read_only", Bool),
        Field("config_source", Int8, default=-1),
        Field("is_sensitive", Bool),
        Field("synonyms", Array(DescribeConfigsSynonym)),  # with include_synonyms only
        Field(
            "config_type", Int8, "3+"
        ),  # KIP-569: 1 BOOLEAN, 2 STRING, 3 INT, 4 SHORT, 5 LONG, 6 DOUBLE, 7 LIST
        Field(
            "documentation", String, "3+", default="", nullable="1+"
        ),  # KIP-569; the Kafka listener's answer
    )


class DescribeConfigsResult(Struct):
    FIELDS = (
        Field("error_code", Int16),
        Field("error_message", String, nullable="1+"),
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
        Field("config_operation", Int8),  # OP_SET (0) unless given
        Field("value", String, nullable="0+"),
    )


class AlterConfigsResource(Struct):
    FIELDS = (
        Field("resource_type", Int8),
        Field("resource_name", String),
        Field("configs", Array(AlterableConfig)),
    )


class IncrementalAlterConfigsRequest(Struct):
    """IncrementalAlterConfigs; with ``replace_all`` (set for Kafka's AlterConfigs, API 33, whose
    operations are all SET; only the msgpack protocol carries it), each resource's dynamic configs
    become exactly the ones set: those not named are deleted."""

    FIELDS = (
        Field("resources", Array(AlterConfigsResource)),
        Field("validate_only", Bool),
        Field("replace_all", Bool, default=False, kafka=False),
    )


class AlterConfigsResourceResponse(Struct):
    FIELDS = (
        Field("error_code", Int16),
        Field("error_message", String, nullable="0+"),
        Field("resource_type", Int8),
        Field("resource_name", String),
    )


class IncrementalAlterConfigsResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("responses", Array(AlterConfigsResourceResponse)),
    )
