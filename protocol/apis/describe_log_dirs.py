"""DescribeLogDirs (key 35), versions 1-5: a broker's log directories, each with the partitions it
holds (size in bytes, offset lag 0 for a current replica), its total and usable bytes and, from v5,
whether it is cordoned (KIP-1066; Kafkette does not cordon log directories: always false, as Kafka
answers with none cordoned).

Declared once, in Kafka's versions, for both listeners.  ``topics`` None asks for every
partition.  A log directory that went offline answers KAFKA_STORAGE_ERROR.  Kafka concept:
``DescribeLogDirsRequest``/``DescribeLogDirsResponse`` (KIP-113, KIP-827), answered by
``ReplicaManager.describeLogDirs``.
"""

from kafkette.protocol.schema import Array, Bool, Field, Int16, Int32, Int64, String, Struct


class DescribableLogDirTopic(Struct):
    FIELDS = (
        Field("topic", String),
        Field("partitions", Array(Int32)),
    )


class DescribeLogDirsRequest(Struct):
    FIELDS = (Field("topics", Array(DescribableLogDirTopic), nullable="1+"),)


class DescribeLogDirsPartition(Struct):
    FIELDS = (
        Field("partition_index", Int32),
        Field("partition_size", Int64),
        Field("offset_lag", Int64),
        Field("is_future_key", Bool),
    )


class DescribeLogDirsTopic(Struct):
    FIELDS = (
        Field("name", String),
        Field("partitions", Array(DescribeLogDirsPartition)),
    )


class DescribeLogDirsResult(Struct):
    FIELDS = (
        Field("error_code", Int16),
        Field("log_dir", String),
        Field("topics", Array(DescribeLogDirsTopic)),
        Field("total_bytes", Int64, "4+", default=-1),
        Field("usable_bytes", Int64, "4+", default=-1),
        Field("is_cordoned", Bool, "5+"),
    )


class DescribeLogDirsResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("error_code", Int16, "3+"),
        Field("results", Array(DescribeLogDirsResult)),
    )
