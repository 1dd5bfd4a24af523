"""The transaction coordinator's request logic (InitProducerId with a transactional id,
AddPartitionsToTxn, EndTxn V1 and V2, DescribeTransactions) against Kafka's documented error cases
(``TransactionCoordinatorTest``): each request's error or the transition it writes, the transition
then completed as the log write would."""

import itertools

import pytest

from kafkette.broker.transaction.transaction_coordinator import (
    CoordinatorResult,
    handle_add_partitions_to_transaction,
    handle_describe_transactions,
    handle_end_transaction,
    handle_init_producer_id,
    handle_verify_partitions_in_transaction,
)
from kafkette.broker.transaction.transaction_metadata import SHORT_MAX
from kafkette.broker.transaction.transaction_state import TransactionState, TransactionVersion
from kafkette.broker.transaction.transaction_state_manager import TransactionStateManager
from kafkette.protocol.errors import CoordinatorNotAvailableError, Errors
from kafkette.protocol.topic_partition import TopicPartition

S = TransactionState
TV0, TV2 = TransactionVersion.TV_0, TransactionVersion.TV_2
TID = "my-transactional-id"
TP0, TP1 = TopicPartition("orders", 0), TopicPartition("orders", 1)
E = Errors


class Coordinator:
    """A loaded coordinator of every partition, with a producer id counter and a manual clock."""

    def __init__(self, tv=TV2):
        self.manager = TransactionStateManager(
            50, transactional_id_expiration_ms=1000, transaction_max_timeout_ms=60000
        )
        for partition in range(50):
            self.manager.add_loading_partition(partition, 7)
            self.manager.add_loaded_transactions_to_cache(partition, 7, {}, 0)
        self.ids = itertools.count(1000)
        self.now_ms = 100
        self.tv = tv

    def next_id(self):
        return next(self.ids)

    def md(self, transactional_id=TID):
        return self.manager.get_transaction_state(transactional_id).transaction_metadata

    def written(self, result: CoordinatorResult, transactional_id=TID) -> CoordinatorResult:
        """Complete the transition as a successful log write would."""
        assert result.error is E.NONE and result.writes, result
        assert result.coordinator_epoch == 7
        self.md(transactional_id).complete_transition_to(result.transit)
        return result

    def init(self, expected=None, timeout_ms=30000, transactional_id=TID):
        self.now_ms += 1
        return handle_init_producer_id(
            self.manager, transactional_id, timeout_ms, expected, self.next_id, self.now_ms
        )

    def add(self, pid, epoch, partitions=(TP0,), transactional_id=TID):
        self.now_ms += 1
        return handle_add_partitions_to_transaction(
            self.manager, transactional_id, pid, epoch, partitions, self.tv, self.now_ms
        )

    def end(self, pid, epoch, committed=True, tv=None):
        self.now_ms += 1
        return handle_end_transaction(
            self.manager, TID, pid, epoch, committed, tv or self.tv, self.next_id, self.now_ms
        )

    def complete(self):
        """The markers are written: the transaction completes."""
        md = self.md()
        md.complete_transition_to(md.prepare_complete(self.now_ms))


def test_init_producer_id_creates_the_id_at_epoch_zero_and_bumps_on_each_init():
    c = Coordinator()
    first = c.written(c.init())
    assert (first.transit.producer_id, first.transit.producer_epoch, first.transit.txn_state) == (
        1000,
        0,
        S.EMPTY,
    )
    again = c.written(c.init())
    assert (again.transit.producer_id, again.transit.producer_epoch) == (1000, 1)


@pytest.mark.parametrize(
    ("transactional_id", "timeout_ms", "error"),
    [
        ("", 30000, E.INVALID_REQUEST),
        (TID, 0, E.INVALID_TRANSACTION_TIMEOUT),
        (TID, 60001, E.INVALID_TRANSACTION_TIMEOUT),
    ],
)
def test_init_producer_id_refuses_bad_requests(transactional_id, timeout_ms, error):
    assert Coordinator().init(timeout_ms=timeout_ms, transactional_id=transactional_id).error is error


def test_init_producer_id_answers_the_lookups_errors():
    c = Coordinator()
    partition = c.manager.partition_for(TID)
    c.manager.add_loading_partition(partition, 8)
    assert c.init().error is E.COORDINATOR_LOAD_IN_PROGRESS
    c.manager.remove_transactions_for_txn_topic_partition(partition)
    assert c.init().error is E.NOT_COORDINATOR


def test_init_producer_id_while_a_transition_is_pending_is_concurrent_transactions():
    c = Coordinator()
    c.init()  # not yet written
    assert c.init().error is E.CONCURRENT_TRANSACTIONS


def test_init_producer_id_with_another_producers_id_is_fenced():
    c = Coordinator()
    c.written(c.init())
    assert c.init(expected=(555, 0)).error is E.PRODUCER_FENCED
    assert c.init(expected=(1000, 7)).error is E.PRODUCER_FENCED  # neither the current epoch nor the last
    resumed = c.written(c.init(expected=(1000, 0)))
    assert (resumed.transit.producer_epoch, resumed.transit.last_producer_epoch) == (1, 0)


def test_init_producer_id_during_markers_is_concurrent_transactions():
    c = Coordinator()
    c.written(c.init())
    c.written(c.add(1000, 0))
    c.written(c.end(1000, 0))
    assert c.md().state is S.PREPARE_COMMIT
    assert c.init().error is E.CONCURRENT_TRANSACTIONS


def test_init_producer_id_fences_an_ongoing_transaction():
    c = Coordinator(tv=TV0)
    c.written(c.init())
    c.written(c.add(1000, 0))
    fence = c.init()
    assert (fence.error, fence.transit.txn_state, fence.transit.producer_epoch) == (
        E.NONE,
        S.PREPARE_EPOCH_FENCE,
        1,
    )
    # the coordinator then aborts it itself, with the fenced epoch
    abort = handle_end_transaction(c.manager, TID, 1000, 1, False, TV0, c.next_id, 200, is_from_client=False)
    c.written(abort)
    assert (c.md().state, c.md().producer_epoch, c.md().last_producer_epoch) == (S.PREPARE_ABORT, 1, -1)


def test_init_producer_id_at_an_exhausted_epoch_rotates_the_producer_id():
    c = Coordinator()
    c.written(c.init())
    c.md().producer_epoch = SHORT_MAX - 1
    rotated = c.written(c.init())
    assert (rotated.transit.producer_id, rotated.transit.producer_epoch) == (1001, 0)


def test_init_producer_id_cannot_get_a_producer_id():
    c = Coordinator()

    def none_left():
        raise CoordinatorNotAvailableError("no producer id block")

    result = handle_init_producer_id(c.manager, TID, 30000, None, none_left, 1)
    assert result.error is E.COORDINATOR_NOT_AVAILABLE


@pytest.mark.parametrize(
    ("pid", "epoch", "error"), [(999, 0, E.INVALID_PRODUCER_ID_MAPPING), (1000, 1, E.PRODUCER_FENCED)]
)
def test_add_partitions_checks_the_producer(pid, epoch, error):
    c = Coordinator()
    c.written(c.init())
    assert c.add(pid, epoch).error is error


def test_add_partitions_of_an_unknown_id_is_invalid_producer_id_mapping():
    assert Coordinator().add(1000, 0).error is E.INVALID_PRODUCER_ID_MAPPING
    assert Coordinator().add(1000, 0, transactional_id="").error is E.INVALID_REQUEST


def test_add_partitions_starts_the_transaction_and_answers_none_when_already_added():
    c = Coordinator()
    c.written(c.init())
    first = c.written(c.add(1000, 0, [TP0, TP1]))
    assert (first.transit.txn_state, first.transit.topic_partitions) == (S.ONGOING, {TP0, TP1})
    again = c.add(1000, 0, [TP1])
    assert (again.error, again.writes) == (E.NONE, False)
    c.add(1000, 0, [TopicPartition("other", 0)])
    assert c.add(1000, 0, [TopicPartition("more", 0)]).error is E.CONCURRENT_TRANSACTIONS  # a write pending


def test_add_partitions_while_committing_is_concurrent_transactions():
    c = Coordinator()
    c.written(c.init())
    c.written(c.add(1000, 0))
    c.written(c.end(1000, 0))
    assert c.add(1000, 1).error is E.CONCURRENT_TRANSACTIONS


def test_end_txn_v1_commits_keeping_the_epoch_and_a_retry_answers_none():
    c = Coordinator(tv=TV0)
    c.written(c.init())
    c.written(c.add(1000, 0))
    commit = c.written(c.end(1000, 0))
    assert (commit.transit.txn_state, commit.transit.producer_epoch) == (S.PREPARE_COMMIT, 0)
    assert c.end(1000, 0).error is E.CONCURRENT_TRANSACTIONS  # markers being written
    assert c.end(1000, 0, committed=False).error is E.INVALID_TXN_STATE
    c.complete()
    assert c.end(1000, 0).error is E.NONE  # a retry
    assert c.end(1000, 0, committed=False).error is E.INVALID_TXN_STATE


def test_end_txn_v1_errors():
    c = Coordinator(tv=TV0)
    assert c.end(1000, 0).error is E.INVALID_PRODUCER_ID_MAPPING
    c.written(c.init())
    assert c.end(1000, 0).error is E.INVALID_TXN_STATE  # nothing to commit
    assert c.end(999, 0).error is E.INVALID_PRODUCER_ID_MAPPING
    c.written(c.add(1000, 0))
    assert c.end(1000, 1).error is E.PRODUCER_FENCED


def test_end_txn_v2_bumps_the_epoch_and_a_retry_with_the_old_epoch_answers_the_new_one():
    c = Coordinator()
    c.written(c.init())
    c.written(c.add(1000, 0))
    commit = c.written(c.end(1000, 0))
    assert (commit.transit.producer_epoch, commit.transit.last_producer_epoch) == (1, 0)
    assert c.end(1000, 0).error is E.CONCURRENT_TRANSACTIONS  # a retry while the markers are written
    c.complete()
    retry = c.end(1000, 0)
    assert (retry.error, retry.writes, retry.producer_id, retry.producer_epoch) == (E.NONE, False, 1000, 1)
    assert c.end(1000, 0, committed=False).error is E.INVALID_TXN_STATE
    assert c.end(1000, 5).error is E.PRODUCER_FENCED


def test_end_txn_v2_may_abort_with_no_transaction():
    c = Coordinator()
    c.written(c.init())
    abort = c.written(c.end(1000, 0, committed=False))
    assert (abort.transit.txn_state, abort.transit.producer_epoch) == (S.PREPARE_ABORT, 1)
    assert c.md().txn_start_timestamp == c.now_ms
    c.complete()
    assert c.end(1000, 1).error is E.INVALID_TXN_STATE  # commit of nothing


def test_end_txn_v2_at_the_last_epoch_rotates_the_producer_id_and_a_retry_is_recognised():
    c = Coordinator()
    c.written(c.init())
    c.md().producer_epoch = SHORT_MAX - 1
    c.written(c.add(1000, SHORT_MAX - 1))
    commit = c.written(c.end(1000, SHORT_MAX - 1))
    assert commit.transit.next_producer_id == 1001
    c.complete()
    assert (c.md().producer_id, c.md().producer_epoch, c.md().prev_producer_id) == (1001, 0, 1000)
    retry = c.end(1000, SHORT_MAX - 1)
    assert (retry.error, retry.producer_id, retry.producer_epoch) == (E.NONE, 1001, 0)


def test_describe_transactions():
    c = Coordinator()
    assert handle_describe_transactions(c.manager, TID).error_code == E.TRANSACTIONAL_ID_NOT_FOUND
    assert handle_describe_transactions(c.manager, "").error_code == E.INVALID_REQUEST
    c.written(c.init())
    c.written(c.add(1000, 0, [TP1, TP0, TopicPartition("audit", 2)]))
    described = handle_describe_transactions(c.manager, TID)
    assert (described.error_code, described.transaction_state, described.producer_id) == (
        E.NONE,
        "Ongoing",
        1000,
    )
    assert [(t.topic, t.partitions) for t in described.topics] == [("audit", [2]), ("orders", [0, 1])]
    c.md().state = S.DEAD
    assert handle_describe_transactions(c.manager, TID).error_code == E.TRANSACTIONAL_ID_NOT_FOUND


def test_verify_partitions_answers_per_partition():
    c = Coordinator()
    other = TopicPartition("other", 0)

    def verify(pid, epoch, transactional_id=TID):
        return handle_verify_partitions_in_transaction(c.manager, transactional_id, pid, epoch, [TP0, other])

    assert verify(1000, 0) == {TP0: E.INVALID_PRODUCER_ID_MAPPING, other: E.INVALID_PRODUCER_ID_MAPPING}
    assert verify(1000, 0, transactional_id="") == {TP0: E.INVALID_REQUEST, other: E.INVALID_REQUEST}
    c.written(c.init())
    c.written(c.add(1000, 0, [TP0]))
    assert verify(1000, 0) == {TP0: E.NONE, other: E.TRANSACTION_ABORTABLE}
    assert verify(1000, 1) == {TP0: E.PRODUCER_FENCED, other: E.PRODUCER_FENCED}
    assert verify(999, 0)[TP0] is E.INVALID_PRODUCER_ID_MAPPING
    c.written(c.end(1000, 0))
    assert verify(1000, 1) == {TP0: E.CONCURRENT_TRANSACTIONS, other: E.CONCURRENT_TRANSACTIONS}


def test_init_producer_id_fences_an_ongoing_v2_transaction_with_one_epoch_bump():
    c = Coordinator()
    c.written(c.init())
    c.written(c.add(1000, 0))
    fence = c.init()
    assert fence.transit.txn_state is S.PREPARE_EPOCH_FENCE
    abort = handle_end_transaction(
        c.manager, TID, 1000, fence.transit.producer_epoch, False, TV2, c.next_id, 200, is_from_client=False
    )
    c.written(abort)
    assert (c.md().state, c.md().producer_epoch, c.md().last_producer_epoch) == (S.PREPARE_ABORT, 1, 0)
    c.complete()
    assert c.add(1000, 0).error is E.PRODUCER_FENCED  # the old producer
    again = c.written(c.init())
    assert (again.transit.producer_epoch, again.transit.txn_state) == (2, S.EMPTY)
