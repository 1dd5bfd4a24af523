"""The Kafka listener's own messages: the APIs only that listener speaks (AlterConfigs,
DescribeCluster), declared in Kafka's versions.

Every API both listeners speak is declared once in ``kafkette.protocol.apis``; the table of
APIs, version ranges and listeners is ``kafkette.protocol.api_keys.APIS``.  Kafka concept: the
message definitions of ``clients/src/main/resources/common/message``.
"""
