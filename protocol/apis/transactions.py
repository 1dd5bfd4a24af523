"""The transaction coordinator's APIs (KIP-98, KIP-664, KIP-890, KIP-994, KIP-1152).

Owns the request and response declarations, once each, in Kafka 4.3.1's versions:
AddPartitionsToTxn (key 24, v0-5: one transaction per request up to v3, KIP-890's batch of
transactions with ``verify_only`` from v4, sent by brokers to verify a partition is in a
transaction), AddOffsetsToTxn (key 25, v0-4), EndTxn (key 26, v0-5: v5 answers the producer id
and epoch the transaction ended with, KIP-890's epoch bump on every EndTxn), TxnOffsetCommit
(key 28, v0-5), DescribeTransactions (key 65, v0) and ListTransactions (key 66, v0-2: v1's
``duration_filter``, KIP-994, v2's ``transactional_id_pattern``, KIP-1152).  InitProducerId's
transactional fields live with the idempotent producer's in ``producer_ids``.
Does not own: the transaction coordinator answering them, nor the ApiSpec entries
(``protocol.api_keys``).
Kafka concept: ``AddPartitionsToTxnRequest`` ... ``ListTransactionsResponse``.
"""

from kafkette.protocol.schema import Array, Bool, Field, Int16, Int32, Int64, String, Struct


class AddPartitionsToTxnTopic(Struct):
    """One topic's partitions to add to (or, with ``verify_only``, find in) a transaction."""

    FIELDS = (
        Field("name", String),
        Field("partitions", Array(Int32)),
    )


class AddPartitionsToTxnTransaction(Struct):
    """One transaction of a v4+ batch (KIP-890): sent by brokers, ``verify_only`` checks without adding."""

    FIELDS = (
        Field("transactional_id", String),
        Field("producer_id", Int64),
        Field("producer_epoch", Int16),
        Field("verify_only", Bool),
        Field("topics", Array(AddPartitionsToTxnTopic)),
    )


class AddPartitionsToTxnRequest(Struct):
    """v0-3: one producer's transaction (the ``v3_and_below_*`` fields); v4+: a batch (``transactions``)."""

    FIELDS = (
        Field("transactions", Array(AddPartitionsToTxnTransaction), "4+"),
        Field("v3_and_below_transactional_id", String, "0-3"),
        Field("v3_and_below_producer_id", Int64, "0-3"),
        Field("v3_and_below_producer_epoch", Int16, "0-3"),
        Field("v3_and_below_topics", Array(AddPartitionsToTxnTopic), "0-3"),
    )


class AddPartitionsToTxnPartitionResult(Struct):
    FIELDS = (
        Field("partition_index", Int32),
        Field("partition_error_code", Int16),
    )


class AddPartitionsToTxnTopicResult(Struct):
    FIELDS = (
        Field("name", String),
        Field("results_by_partition", Array(AddPartitionsToTxnPartitionResult)),
    )


class AddPartitionsToTxnResult(Struct):
    """One transaction's results in a v4+ answer."""

    FIELDS = (
        Field("transactional_id", String),
        Field("topic_results", Array(AddPartitionsToTxnTopicResult)),
    )


class AddPartitionsToTxnResponse(Struct):
    """v0-3: per-partition errors; v4+: a top-level error and per-transaction results."""

    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("error_code", Int16, "4+"),
        Field("results_by_transaction", Array(AddPartitionsToTxnResult), "4+"),
        Field("results_by_topic_v3_and_below", Array(AddPartitionsToTxnTopicResult), "0-3"),
    )


class AddOffsetsToTxnRequest(Struct):
    """Adds the group's ``__consumer_offsets`` partition to the transaction (before TxnOffsetCommit)."""

    FIELDS = (
        Field("transactional_id", String),
        Field("producer_id", Int64),
        Field("producer_epoch", Int16),
        Field("group_id", String),
    )


class AddOffsetsToTxnResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("error_code", Int16),
    )


class EndTxnRequest(Struct):
    """Commits (``committed`` true) or aborts the producer's ongoing transaction."""

    FIELDS = (
        Field("transactional_id", String),
        Field("producer_id", Int64),
        Field("producer_epoch", Int16),
        Field("committed", Bool),
    )


class EndTxnResponse(Struct):
    """v5 (KIP-890, transaction version 2) answers the producer id and the epoch bumped by EndTxn."""

    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("error_code", Int16),
        Field("producer_id", Int64, "5+", default=-1),
        Field("producer_epoch", Int16, "5+", default=-1),
    )


class TxnOffsetCommitRequestPartition(Struct):
    FIELDS = (
        Field("partition_index", Int32),
        Field("committed_offset", Int64),
        Field("committed_leader_epoch", Int32, "2+", default=-1),
        Field("committed_metadata", String, nullable="0+"),
    )


class TxnOffsetCommitRequestTopic(Struct):
    FIELDS = (
        Field("name", String),
        Field("partitions", Array(TxnOffsetCommitRequestPartition)),
    )


class TxnOffsetCommitRequest(Struct):
    """Offsets committed inside a transaction, sent to the group coordinator (v3+: KIP-447's member)."""

    FIELDS = (
        Field("transactional_id", String),
        Field("group_id", String),
        Field("producer_id", Int64),
        Field("producer_epoch", Int16),
        Field("generation_id", Int32, "3+", default=-1),
        Field("member_id", String, "3+"),
        Field("group_instance_id", String, "3+", nullable="3+", default=None),
        Field("topics", Array(TxnOffsetCommitRequestTopic)),
    )


class TxnOffsetCommitResponsePartition(Struct):
    FIELDS = (
        Field("partition_index", Int32),
        Field("error_code", Int16),
    )


class TxnOffsetCommitResponseTopic(Struct):
    FIELDS = (
        Field("name", String),
        Field("partitions", Array(TxnOffsetCommitResponsePartition)),
    )


class TxnOffsetCommitResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("topics", Array(TxnOffsetCommitResponseTopic)),
    )


class DescribeTransactionsRequest(Struct):
    FIELDS = (Field("transactional_ids", Array(String)),)


class DescribeTransactionsTopicData(Struct):
    """One topic's partitions in a described transaction (Kafka's ``TopicData``)."""

    FIELDS = (
        Field("topic", String),
        Field("partitions", Array(Int32)),
    )


class DescribeTransactionsState(Struct):
    """One transactional id's state (``TransactionState.name``: ``Ongoing``, ``CompleteCommit`` ...)."""

    FIELDS = (
        Field("error_code", Int16),
        Field("transactional_id", String),
        Field("transaction_state", String),
        Field("transaction_timeout_ms", Int32),
        Field("transaction_start_time_ms", Int64),
        Field("producer_id", Int64),
        Field("producer_epoch", Int16),
        Field("topics", Array(DescribeTransactionsTopicData)),
    )


class DescribeTransactionsResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("transaction_states", Array(DescribeTransactionsState)),
    )


class ListTransactionsRequest(Struct):
    """Filters (all must match): states, producer ids, v1's minimum running time in ms (-1: any,
    KIP-994), v2's transactional id regular expression (null: any, KIP-1152)."""

    FIELDS = (
        Field("state_filters", Array(String)),
        Field("producer_id_filters", Array(Int64)),
        Field("duration_filter", Int64, "1+", default=-1),
        Field("transactional_id_pattern", String, "2+", nullable="2+", default=None),
    )


class ListTransactionsState(Struct):
    FIELDS = (
        Field("transactional_id", String),
        Field("producer_id", Int64),
        Field("transaction_state", String),
    )


class ListTransactionsResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("error_code", Int16),
        Field("unknown_state_filters", Array(String)),
        Field("transaction_states", Array(ListTransactionsState)),
    )
