"""DescribeConfigs (32) 1-4, AlterConfigs (33) 0-2 and IncrementalAlterConfigs (44) 0-1: topic and
broker configs.

Field names are Kafka's in snake_case (the same as the msgpack schemas' where both have the
field); tagged fields are left out (see ``kafka_schema``).  Kafka concept: the message specs
of the same names in ``clients/src/main/resources/common/message``.
"""

from kafkette.protocol.kafka_schema import BOOL, INT8, INT16, INT32, STRING, Array, F, KafkaStruct


class DescribeConfigsResource(KafkaStruct):
    FIELDS = (
        F("resource_type", INT8),
        F("resource_name", STRING),
        F("configuration_keys", Array(STRING), nullable="1+"),
    )


class DescribeConfigsRequest(KafkaStruct):
    FIELDS = (
        F("resources", Array(DescribeConfigsResource)),
        F("include_synonyms", BOOL),
        F("include_documentation", BOOL, "3+"),
    )


class DescribeConfigsSynonym(KafkaStruct):
    FIELDS = (
        F("name", STRING),
        F("value", STRING, nullable="1+"),
        F("source", INT8),
    )


class DescribeConfigsResourceResult(KafkaStruct):
    FIELDS = (
        F("name", STRING),
        F("value", STRING, nullable="1+"),
        F("read_only", BOOL),
        F("config_source", INT8, default=-1),
        F("is_sensitive", BOOL),
        F("synonyms", Array(DescribeConfigsSynonym)),
        F("config_type", INT8, "3+"),
        F("documentation", STRING, "3+", nullable="1+"),
    )


class DescribeConfigsResult(KafkaStruct):
    FIELDS = (
        F("error_code", INT16),
        F("error_message", STRING, nullable="1+"),
        F("resource_type", INT8),
        F("resource_name", STRING),
        F("configs", Array(DescribeConfigsResourceResult)),
    )


class DescribeConfigsResponse(KafkaStruct):
    FIELDS = (
        F("throttle_time_ms", INT32),
        F("results", Array(DescribeConfigsResult)),
    )


class AlterableConfig(KafkaStruct):
    FIELDS = (
        F("name", STRING),
        F("config_operation", INT8),
        F("value", STRING, nullable="0+"),
    )


class AlterConfigsResource(KafkaStruct):
    FIELDS = (
        F("resource_type", INT8),
        F("resource_name", STRING),
        F("configs", Array(AlterableConfig)),
    )


class IncrementalAlterConfigsRequest(KafkaStruct):
    FIELDS = (
        F("resources", Array(AlterConfigsResource)),
        F("validate_only", BOOL),
    )


class AlterConfigsResourceResponse(KafkaStruct):
    FIELDS = (
        F("error_code", INT16),
        F("error_message", STRING, nullable="0+"),
        F("resource_type", INT8),
        F("resource_name", STRING),
    )


class IncrementalAlterConfigsResponse(KafkaStruct):
    FIELDS = (
        F("throttle_time_ms", INT32),
        F("responses", Array(AlterConfigsResourceResponse)),
    )


class LegacyAlterableConfig(KafkaStruct):
    """One config of an AlterConfigs (33) resource: its name and new value."""

    FIELDS = (
        F("name", STRING),
        F("value", STRING, nullable="0+"),
    )


class LegacyAlterConfigsResource(KafkaStruct):
    FIELDS = (
        F("resource_type", INT8),
        F("resource_name", STRING),
        F("configs", Array(LegacyAlterableConfig)),
    )


class AlterConfigsRequest(KafkaStruct):
    """AlterConfigs (33): each resource's dynamic configs become exactly the ones listed."""

    FIELDS = (
        F("resources", Array(LegacyAlterConfigsResource)),
        F("validate_only", BOOL),
    )


class AlterConfigsResponse(KafkaStruct):
    FIELDS = (
        F("throttle_time_ms", INT32),
        F("responses", Array(AlterConfigsResourceResponse)),
    )
