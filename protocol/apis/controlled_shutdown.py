"""ControlledShutdown (key 7): a stopping broker asks the controller to move its leaderships.

The controller elects new leaders for the partitions the broker leads (from the live
ISR, the broker excluded), removes it from ISRs, and answers with the partitions it
could not move yet (``remaining_partitions``); the broker retries until none remain
or it gives up.  Kafka concept: ``ControlledShutdownRequest``
(``controlled.shutdown.enable``, ``controlled.shutdown.max.retries``).
"""

from kafkette.protocol.schema import Array, Field, Int16, Int32, Int64, String, Struct


class ControlledShutdownRequest(Struct):
    FIELDS = (
        Field("broker_id", Int32),
        Field("broker_epoch", Int64, default=-1),
    )


class RemainingPartition(Struct):
    FIELDS = (
        Field("topic_name", String),
        Field("partition_index", Int32),
    )


class ControlledShutdownResponse(Struct):
    FIELDS = (
        Field("error_code", Int16),
        Field("remaining_partitions", Array(RemainingPartition)),
    )
