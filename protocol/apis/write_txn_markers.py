"""WriteTxnMarkers (key 27): the transaction coordinator asks partition leaders to append
COMMIT/ABORT markers (KIP-98).

Declared once, in Kafka's versions 1-2 (flexible from 1; version 2 adds ``transaction_version``,
ignorable), for both listeners.  Each marker names one producer, its epoch, the result
(``transaction_result``: False = ABORT, True = COMMIT), the coordinator epoch and the partitions;
the answer gives an error code per partition, grouped by producer id then topic.

Kafka concept: ``WriteTxnMarkersRequest``/``WriteTxnMarkersResponse``
(``KafkaApis.handleWriteTxnMarkersRequest``).
"""

from kafkette.protocol.schema import Array, Bool, Field, Int8, Int16, Int32, Int64, String, Struct


class WritableTxnMarkerTopic(Struct):
    FIELDS = (
        Field("name", String),
        Field("partition_indexes", Array(Int32)),
    )


class WritableTxnMarker(Struct):
    FIELDS = (
        Field("producer_id", Int64),
        Field("producer_epoch", Int16),
        Field("transaction_result", Bool),
        Field("topics", Array(WritableTxnMarkerTopic)),
        Field("coordinator_epoch", Int32),
        Field("transaction_version", Int8, "2+"),
    )


class WriteTxnMarkersRequest(Struct):
    FIELDS = (Field("markers", Array(WritableTxnMarker)),)


class WritableTxnMarkerPartitionResult(Struct):
    FIELDS = (
        Field("partition_index", Int32),
        Field("error_code", Int16),
    )


class WritableTxnMarkerTopicResult(Struct):
    FIELDS = (
        Field("name", String),
        Field("partitions", Array(WritableTxnMarkerPartitionResult)),
    )


class WritableTxnMarkerResult(Struct):
    FIELDS = (
        Field("producer_id", Int64),
        Field("topics", Array(WritableTxnMarkerTopicResult)),
    )


class WriteTxnMarkersResponse(Struct):
    FIELDS = (Field("markers", Array(WritableTxnMarkerResult)),)


def write_txn_markers_response(errors: dict[int, dict[tuple[str, int], int]]) -> WriteTxnMarkersResponse:
    """The answer for ``{producer id: {(topic, partition): error code}}``, partitions grouped by
    topic in the order given (Kafka's ``WriteTxnMarkersResponse(Map<Long, Map<TopicPartition,
    Errors>>)`` constructor)."""
    markers = []
    for producer_id, by_partition in errors.items():
        topics: dict[str, list[WritableTxnMarkerPartitionResult]] = {}
        for (topic, partition), code in by_partition.items():
            topics.setdefault(topic, []).append(
                WritableTxnMarkerPartitionResult(partition_index=partition, error_code=code)
            )
        markers.append(
            WritableTxnMarkerResult(
                producer_id=producer_id,
                topics=[
                    WritableTxnMarkerTopicResult(name=name, partitions=parts)
                    for name, parts in topics.items()
                ],
            )
        )
    return WriteTxnMarkersResponse(markers=markers)
