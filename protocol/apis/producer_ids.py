"""InitProducerId (key 22) and AllocateProducerIds (key 67): idempotent producer ids.

A producer asks any broker for a producer id (InitProducerId); brokers hand out ids
from blocks the controller allocates to them (AllocateProducerIds), so ids are
unique cluster-wide.  Kafka concept: KIP-98 idempotence, KIP-730 id blocks.
"""

from kafkette.protocol.schema import Field, Int16, Int32, Int64, String, Struct


class InitProducerIdRequest(Struct):
    """InitProducerId, versions 0-5, declared once in Kafka's versions for both listeners.

    v5 has v4's fields: it tells the broker the client knows KIP-890's TRANSACTION_ABORTABLE, an
    error of transactions, which an idempotent producer's InitProducerId never gets.  v6 (KIP-939's
    two-phase commit) is still unstable in Kafka 4.3 (``latestVersionUnstable``) and not offered.
    """

    FIELDS = (
        Field("transactional_id", String, nullable="0+"),
        Field("transaction_timeout_ms", Int32),
        Field("producer_id", Int64, "3+", default=-1),
        Field("producer_epoch", Int16, "3+", default=-1),
    )


class InitProducerIdResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("error_code", Int16),
        Field("producer_id", Int64, default=-1),
        Field("producer_epoch", Int16),
    )


class AllocateProducerIdsRequest(Struct):
    FIELDS = (
        Field("broker_id", Int32),
        Field("broker_epoch", Int64, default=-1),
    )


class AllocateProducerIdsResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("error_code", Int16),
        Field("producer_id_start", Int64),
        Field("producer_id_len", Int32),
    )
