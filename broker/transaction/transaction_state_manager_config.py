"""The broker configs of the transaction coordinator, with Kafka 4.3.1's names, types, defaults and
validation.

Owns: ``TRANSACTION_CONFIGS`` (the ``ConfigKey``s ``broker.config.BROKER_CONFIGS`` includes): the
``__transaction_state`` topic's settings (``transaction.state.log.*``) and the coordinator's
timeouts and cleanup periods (``transaction.max.timeout.ms``, ``transactional.id.expiration.ms``,
``transaction.abort.timed.out.transaction.cleanup.interval.ms``,
``transaction.remove.expired.transaction.cleanup.interval.ms``) and the leaders' transaction
verification (``transaction.partition.verification.enable``,
``add.partitions.to.txn.retry.backoff.*``).  The ``transaction.version`` feature is not a config: its
level is finalized by the controller (``broker.broker_features``).
Does not own: the coordinator that reads them.

Kafka concept: ``TransactionStateManagerConfig`` and ``TransactionLogConfig`` (their ``CONFIG_DEF``).
"""

from __future__ import annotations

from kafkette.common.config_def import ConfigKey, at_least

TRANSACTION_STATE_LOG_NUM_PARTITIONS = "transaction.state.log.num.partitions"

# fmt: off
TRANSACTION_CONFIGS: tuple[ConfigKey, ...] = (
    ConfigKey(TRANSACTION_STATE_LOG_NUM_PARTITIONS, "int", 50,
              "Partitions of __transaction_state (set once, at its creation).", at_least(1)),
    ConfigKey("transaction.state.log.replication.factor", "short", 3,
              "Replication factor of __transaction_state (capped at the live brokers).", at_least(1)),
    ConfigKey("transaction.state.log.min.isr", "int", 2,
              "min.insync.replicas of __transaction_state.", at_least(1)),
    ConfigKey("transaction.state.log.segment.bytes", "int", 104857600,
              "Segment size of __transaction_state (bytes).", at_least(1)),
    ConfigKey("transaction.state.log.load.buffer.size", "int", 5242880,
              "Bytes read at a time while loading __transaction_state into the cache.", at_least(1)),
    ConfigKey("transaction.max.timeout.ms", "int", 900000,
              "Longest transaction.timeout.ms a producer may ask for (ms).", at_least(1)),
    ConfigKey("transactional.id.expiration.ms", "int", 604800000,
              "A transactional id with no transaction and no update this long expires (ms).", at_least(1)),
    ConfigKey("transaction.abort.timed.out.transaction.cleanup.interval.ms", "int", 10000,
              "How often timed-out transactions are looked for and aborted (ms).", at_least(1)),
    ConfigKey("transaction.remove.expired.transaction.cleanup.interval.ms", "int", 3600000,
              "How often expired transactional ids are looked for and removed (ms).", at_least(1)),
    ConfigKey("transaction.partition.verification.enable", "boolean", True,
              "Partition leaders verify a transactional produce with the transaction coordinator "
              "before appending it (KIP-890)."),
    ConfigKey("add.partitions.to.txn.retry.backoff.ms", "int", 20,
              "Pause before a verification answered CONCURRENT_TRANSACTIONS is asked again (ms).",
              at_least(1)),
    ConfigKey("add.partitions.to.txn.retry.backoff.max.ms", "int", 100,
              "How long verifications answered CONCURRENT_TRANSACTIONS are retried (ms).", at_least(0)),
)
# fmt: on
