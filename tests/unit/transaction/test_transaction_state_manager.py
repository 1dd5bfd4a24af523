"""TransactionStateManager's pure parts: placement (Java's hashCode as Kafka uses it), the configs
with Kafka's names and defaults, loading a partition's records, lookups while loading, timed-out
transactions, expiry and ListTransactions' filters."""

import pytest

from kafkette.broker.config import BROKER_CONFIGS, KafkaConfig
from kafkette.broker.kafka_broker_config_defaults import KAFKA_BROKER_CONFIG_DEFAULTS
from kafkette.broker.transaction.transaction_log import key_to_bytes, value_to_bytes
from kafkette.broker.transaction.transaction_metadata import TransactionMetadata, TxnTransitMetadata
from kafkette.broker.transaction.transaction_state import TransactionState, TransactionVersion
from kafkette.broker.transaction.transaction_state_manager import (
    TransactionStateManager,
    load_transaction_metadata,
    partition_for,
)
from kafkette.broker.transaction.transaction_state_manager_config import TRANSACTION_CONFIGS
from kafkette.broker.transaction.transaction_state_topic import transaction_state_topic
from kafkette.common.config_def import ConfigError
from kafkette.protocol.errors import Errors
from kafkette.protocol.topic_partition import TopicPartition

S = TransactionState
TV2 = TransactionVersion.TV_2
DAY_MS = 86_400_000


@pytest.mark.parametrize(
    ("transactional_id", "partition"),
    # Java's String.hashCode and Utils.abs(hash) % 50, printed by Kafka's own classes
    [("hello", 22), ("polygenelubricants", 0), ("my-transactional-id", 46), ("txn-été", 37)],
)
def test_partition_for_is_kafkas(transactional_id, partition):
    assert partition_for(transactional_id, 50) == partition


def test_partition_for_refuses_no_partitions():
    with pytest.raises(ValueError, match="at least 1"):
        partition_for("x", 0)


@pytest.mark.parametrize("key", TRANSACTION_CONFIGS, ids=lambda k: k.name)
def test_each_config_is_a_broker_config_with_kafkas_default(key):
    assert key in BROKER_CONFIGS
    assert key.render(key.default) == KAFKA_BROKER_CONFIG_DEFAULTS[key.name]


def test_configs_are_read_from_server_properties():
    config = KafkaConfig(
        {
            "node.id": "1",
            "transaction.state.log.num.partitions": "7",
            "transactional.id.expiration.ms": "1000",
        }
    )
    assert config.transaction_state_log_num_partitions == 7
    assert config.transactional_id_expiration_ms == 1000
    assert config.transaction_max_timeout_ms == 900000
    with pytest.raises(ConfigError, match="transaction.max.timeout.ms"):
        KafkaConfig({"node.id": "1", "transaction.max.timeout.ms": "0"})


def _transit(pid, epoch, state, partitions=(), start=-1, updated=0):
    return TxnTransitMetadata(
        pid, -1, -1, epoch, -1, 60000, state, frozenset(partitions), start, updated, TV2
    )


def _record(transactional_id, transit):
    return key_to_bytes(transactional_id), value_to_bytes(transit, TV2)


def test_loading_replays_records_last_value_wins_and_tombstones_remove():
    tp = TopicPartition("t", 0)
    records = [
        _record("a", _transit(1, 0, S.EMPTY)),
        _record("b", _transit(2, 0, S.EMPTY)),
        _record("a", _transit(1, 0, S.ONGOING, [tp], start=5, updated=5)),
        (key_to_bytes("b"), None),
        (b"\x00\x09junk", b"ignored"),  # another record type: skipped
        (key_to_bytes("c"), b"\x00\x07"),  # an unknown value version: skipped
    ]
    loaded = load_transaction_metadata(records, partition=3)
    assert sorted(loaded) == ["a"]
    assert (loaded["a"].state, loaded["a"].topic_partitions) == (S.ONGOING, {tp})


def _manager():
    return TransactionStateManager(
        50, transactional_id_expiration_ms=DAY_MS, transaction_max_timeout_ms=900000
    )


def _md(transactional_id, state, start=-1, updated=0, pid=1, timeout_ms=60000):
    partitions = [TopicPartition("t", 0)] if state is S.PREPARE_COMMIT else []
    return TransactionMetadata(
        transactional_id, pid, -1, -1, 3, -1, timeout_ms, state, partitions, start, updated, TV2
    )


def test_lookups_answer_loading_and_not_coordinator_then_the_metadata():
    m = _manager()
    p = m.partition_for("hello")
    assert m.get_transaction_state("hello") is Errors.NOT_COORDINATOR
    m.add_loading_partition(p, 4)
    assert m.get_transaction_state("hello") is Errors.COORDINATOR_LOAD_IN_PROGRESS
    assert m.add_loaded_transactions_to_cache(p, 3, {}, 0) == []  # a stale epoch: still loading
    assert m.get_transaction_state("hello") is Errors.COORDINATOR_LOAD_IN_PROGRESS
    assert m.add_loaded_transactions_to_cache(p, 4, {}, 0) == []
    assert m.get_transaction_state("hello") is None
    created = _md("hello", S.EMPTY)
    found = m.get_transaction_state("hello", created)
    assert (found.coordinator_epoch, found.transaction_metadata) == (4, created)
    assert m.get_transaction_state("hello", _md("hello", S.EMPTY)).transaction_metadata is created
    m.remove_transactions_for_txn_topic_partition(p, 5)
    assert m.get_transaction_state("hello") is Errors.NOT_COORDINATOR


def test_loaded_prepared_transactions_are_returned_for_completion():
    m = _manager()
    m.add_loading_partition(0, 1)
    loaded = {"c": _md("c", S.PREPARE_COMMIT, start=1), "e": _md("e", S.EMPTY)}
    (pending,) = m.add_loaded_transactions_to_cache(0, 1, loaded, now_ms=99)
    assert (pending.transactional_id, pending.committed, pending.coordinator_epoch) == ("c", True, 1)
    assert pending.transit.txn_state is S.COMPLETE_COMMIT
    assert loaded["c"].pending_state is S.COMPLETE_COMMIT


def test_timed_out_transactions_are_the_ongoing_ones_past_their_timeout():
    m = _manager()
    m.add_loading_partition(0, 1)
    loaded = {
        "late": _md("late", S.ONGOING, start=1000, timeout_ms=500),
        "fine": _md("fine", S.ONGOING, start=1000, timeout_ms=5000),
        "done": _md("done", S.COMPLETE_COMMIT, start=1, timeout_ms=1),
    }
    m.add_loaded_transactions_to_cache(0, 1, loaded, 0)
    assert [t.transactional_id for t in m.timed_out_transactions(now_ms=2000)] == ["late"]
    loaded["late"].pending_state = S.PREPARE_ABORT
    assert m.timed_out_transactions(now_ms=2000) == []


def test_expired_ids_are_the_idle_ones_in_states_allowing_expiry():
    m = _manager()
    m.add_loading_partition(0, 1)
    now = 10 * DAY_MS
    loaded = {
        "idle-empty": _md("idle-empty", S.EMPTY, updated=now - DAY_MS),
        "idle-aborted": _md("idle-aborted", S.COMPLETE_ABORT, start=1, updated=now - 2 * DAY_MS),
        "recent": _md("recent", S.EMPTY, updated=now - DAY_MS + 1),
        "idle-ongoing": _md("idle-ongoing", S.ONGOING, start=1, updated=1),
    }
    m.add_loaded_transactions_to_cache(0, 1, loaded, 0)
    expired = m.collect_expired_transactional_ids(now)
    assert sorted(e.transactional_id for e in expired) == ["idle-aborted", "idle-empty"]
    assert all(e.transit.txn_state is S.DEAD for e in expired)
    assert m.collect_expired_transactional_ids(now) == []  # pending DEAD now
    by_id = {e.transactional_id: e for e in expired}
    m.complete_expiration(by_id["idle-empty"], written=True)
    m.complete_expiration(by_id["idle-aborted"], written=False)
    cached = m.transaction_metadata_cache[0].metadata_per_transactional_id
    assert sorted(cached) == ["idle-aborted", "idle-ongoing", "recent"]
    assert cached["idle-aborted"].pending_state is None


def test_list_transactions_filters():
    m = _manager()
    m.add_loading_partition(0, 1)
    assert m.list_transaction_states(set(), set(), -1, None, 0)[0] is Errors.COORDINATOR_LOAD_IN_PROGRESS
    loaded = {
        "app-1": _md("app-1", S.ONGOING, start=1000, pid=10),
        "app-2": _md("app-2", S.EMPTY, pid=20),
        "other": _md("other", S.ONGOING, start=9000, pid=30),
        "dying": _md("dying", S.DEAD, pid=40),
    }
    m.add_loaded_transactions_to_cache(0, 1, loaded, 0)

    def ids(producer_ids=frozenset(), states=frozenset(), duration=-1, pattern=None):
        error, unknown, listed = m.list_transaction_states(
            set(producer_ids), set(states), duration, pattern, 10000
        )
        assert error is Errors.NONE
        return unknown, sorted(t[0] for t in listed)

    assert ids() == ([], ["app-1", "app-2", "other"])
    assert ids(states={"Ongoing", "Nope"}) == (["Nope"], ["app-1", "other"])
    assert ids(producer_ids={20, 30}) == ([], ["app-2", "other"])
    assert ids(states={"Ongoing"}, duration=5000) == ([], ["app-1"])
    assert ids(pattern="app-.") == ([], ["app-1", "app-2"])
    assert ids(pattern="app") == ([], [])  # the whole id must match
    assert m.list_transaction_states(set(), set(), -1, "(", 0)[0] is Errors.INVALID_REGULAR_EXPRESSION


def test_transaction_timeout_validation():
    m = _manager()
    assert m.validate_transaction_timeout_ms(900000)
    assert not m.validate_transaction_timeout_ms(900001)
    assert not m.validate_transaction_timeout_ms(0)


def test_the_transaction_state_topic_is_created_compacted_uncompressed_with_its_min_isr():
    topic = transaction_state_topic(50, 3, 2, 104857600, live_brokers=5)
    assert (topic.name, topic.num_partitions, topic.replication_factor) == ("__transaction_state", 50, 3)
    assert {c.name: c.value for c in topic.configs} == {
        "unclean.leader.election.enable": "false",
        "compression.type": "uncompressed",
        "cleanup.policy": "compact",
        "min.insync.replicas": "2",
        "segment.bytes": "104857600",
    }


def test_on_fewer_brokers_than_its_replication_factor_the_topic_and_its_min_isr_are_capped():
    topic = transaction_state_topic(50, 3, 2, 104857600, live_brokers=1)
    assert topic.replication_factor == 1
    assert {c.name: c.value for c in topic.configs}["min.insync.replicas"] == "1"
