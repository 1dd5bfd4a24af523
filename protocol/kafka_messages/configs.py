"""AlterConfigs (33) 0-2: the listener's only message answered by another API's handler
(IncrementalAlterConfigs'), so declared for Kafka's wire alone.  Its answer's resources are
IncrementalAlterConfigs' (the same fields).  DescribeConfigs (32) and IncrementalAlterConfigs (44)
are declared once, for both listeners, in ``kafkette.protocol.apis.configs``.  Kafka concept: the
``AlterConfigsRequest`` / ``AlterConfigsResponse`` message specs.
"""

from kafkette.protocol.apis.configs import AlterConfigsResourceResponse
from kafkette.protocol.kafka_schema import BOOL, INT8, INT32, STRING, Array, F, KafkaStruct


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
