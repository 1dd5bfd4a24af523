"""TransactionState's table and TransactionMetadata's two-step transitions (Kafka's
``TransactionMetadataTest`` cases: epoch bumps, KIP-890 V2 bumps and producer id rotation, the
pending state guard)."""

import pytest

from kafkette.broker.transaction.transaction_metadata import (
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    SHORT_MAX,
    IllegalTransactionStateError,
    TransactionMetadata,
)
from kafkette.broker.transaction.transaction_state import TransactionState, TransactionVersion
from kafkette.protocol.errors import ProducerFencedError
from kafkette.protocol.topic_partition import TopicPartition

S = TransactionState
TV0, TV2 = TransactionVersion.TV_0, TransactionVersion.TV_2
TP0, TP1 = TopicPartition("t", 0), TopicPartition("t", 1)


def _metadata(state=S.EMPTY, epoch=0, last_epoch=NO_PRODUCER_EPOCH, partitions=(), version=TV0, start=-1):
    return TransactionMetadata("txn", 1000, NO_PRODUCER_ID, NO_PRODUCER_ID, epoch, last_epoch, 60000, state,
                               partitions, start, 0, version)  # fmt: skip


def _step(md, transit):
    md.complete_transition_to(transit)
    return md


def test_states_have_kafkas_ids_names_and_expiry():
    assert [(s.id, s.state_name, s.expiration_allowed) for s in S] == [
        (0, "Empty", True),
        (1, "Ongoing", False),
        (2, "PrepareCommit", False),
        (3, "PrepareAbort", False),
        (4, "CompleteCommit", True),
        (5, "CompleteAbort", True),
        (6, "Dead", False),
        (7, "PrepareEpochFence", False),
    ]
    assert S.from_id(3) is S.PREPARE_ABORT
    assert S.from_name("Ongoing") is S.ONGOING
    assert S.from_name("Nope") is None
    with pytest.raises(ValueError, match="Unknown transaction state id 9"):
        S.from_id(9)


def test_valid_previous_states_are_kafkas():
    assert S.PREPARE_COMMIT.valid_previous_states == {S.ONGOING}
    assert S.PREPARE_ABORT.valid_previous_states == {
        S.ONGOING,
        S.PREPARE_EPOCH_FENCE,
        S.EMPTY,
        S.COMPLETE_COMMIT,
        S.COMPLETE_ABORT,
    }
    assert S.DEAD.valid_previous_states == {S.EMPTY, S.COMPLETE_ABORT, S.COMPLETE_COMMIT}
    assert S.COMPLETE_ABORT.valid_previous_states == {S.PREPARE_ABORT}


def test_transaction_version_levels():
    assert [v.transaction_log_value_version for v in TransactionVersion] == [0, 1, 1]
    assert [v.supports_epoch_bump for v in TransactionVersion] == [False, False, True]
    assert TransactionVersion.for_add_partitions_to_txn(3) is TV0
    assert TransactionVersion.for_add_partitions_to_txn(4) is TV2
    assert TransactionVersion.for_end_txn(4) is TV0
    assert TransactionVersion.for_end_txn(5) is TV2


def test_new_producer_gets_epoch_zero_and_a_new_producer_fences_the_old():
    md = _metadata(epoch=NO_PRODUCER_EPOCH)
    _step(md, md.prepare_increment_producer_epoch(30000, None, 5))
    assert (md.producer_epoch, md.last_producer_epoch, md.txn_timeout_ms, md.state) == (0, -1, 30000, S.EMPTY)
    _step(md, md.prepare_increment_producer_epoch(30000, None, 6))
    assert (md.producer_epoch, md.last_producer_epoch) == (1, -1)


def test_expected_epoch_bumps_a_retry_keeps_it_and_another_is_fenced():
    md = _metadata(epoch=5)
    _step(md, md.prepare_increment_producer_epoch(30000, 5, 1))
    assert (md.producer_epoch, md.last_producer_epoch) == (6, 5)
    _step(md, md.prepare_increment_producer_epoch(30000, 5, 2))  # a retry of the call that bumped
    assert (md.producer_epoch, md.last_producer_epoch) == (6, 5)
    with pytest.raises(ProducerFencedError):
        md.prepare_increment_producer_epoch(30000, 3, 3)
    assert md.pending_state is None


def test_exhausted_epoch_cannot_be_incremented_but_rotates_the_producer_id():
    md = _metadata(epoch=SHORT_MAX - 1)
    assert md.is_producer_epoch_exhausted
    with pytest.raises(IllegalTransactionStateError, match="Cannot allocate any more producer epochs"):
        md.prepare_increment_producer_epoch(30000, None, 1)
    _step(md, md.prepare_producer_id_rotation(2000, 30000, 1, record_last_epoch=True))
    assert (md.producer_id, md.prev_producer_id, md.producer_epoch, md.last_producer_epoch) == (
        2000,
        1000,
        0,
        SHORT_MAX - 1,
    )


def test_rotation_is_refused_while_a_transaction_is_open():
    md = _metadata(state=S.ONGOING, partitions=[TP0], start=1)
    with pytest.raises(IllegalTransactionStateError, match="still pending"):
        md.prepare_producer_id_rotation(2000, 30000, 1, record_last_epoch=False)


def test_v0_transaction_commits_keeping_the_epoch():
    md = _metadata()
    _step(md, md.prepare_add_partitions([TP0], 10, TV0))
    _step(md, md.prepare_add_partitions([TP1], 20, TV0))
    assert (md.state, md.topic_partitions, md.txn_start_timestamp) == (S.ONGOING, {TP0, TP1}, 10)
    _step(md, md.prepare_abort_or_commit(S.PREPARE_COMMIT, TV0, NO_PRODUCER_ID, 30, False))
    assert (md.state, md.producer_epoch) == (S.PREPARE_COMMIT, 0)
    _step(md, md.prepare_complete(40))
    assert (md.state, md.producer_epoch, md.topic_partitions, md.txn_last_update_timestamp) == (
        S.COMPLETE_COMMIT,
        0,
        set(),
        40,
    )


def test_v2_end_txn_bumps_the_epoch_every_time():
    md = _metadata(epoch=3, version=TV2)
    _step(md, md.prepare_add_partitions([TP0], 10, TV2))
    _step(md, md.prepare_abort_or_commit(S.PREPARE_ABORT, TV2, NO_PRODUCER_ID, 30, False))
    assert (md.producer_epoch, md.last_producer_epoch) == (4, 3)
    _step(md, md.prepare_complete(40))
    assert (md.state, md.producer_id, md.producer_epoch) == (S.COMPLETE_ABORT, 1000, 4)


def test_v2_end_txn_at_the_last_epoch_rotates_to_the_next_producer_id_on_completion():
    md = _metadata(epoch=SHORT_MAX - 1, version=TV2)
    _step(md, md.prepare_add_partitions([TP0], 10, TV2))
    _step(md, md.prepare_abort_or_commit(S.PREPARE_COMMIT, TV2, 2000, 30, False))
    assert (md.producer_epoch, md.next_producer_id) == (SHORT_MAX, 2000)
    _step(md, md.prepare_complete(40))
    assert (md.producer_id, md.prev_producer_id, md.next_producer_id, md.producer_epoch) == (
        2000,
        1000,
        -1,
        0,
    )
    assert md.last_producer_epoch == SHORT_MAX - 1


def test_v2_may_abort_with_no_transaction_open():
    md = _metadata(state=S.COMPLETE_COMMIT, version=TV2, start=5)
    _step(md, md.prepare_abort_or_commit(S.PREPARE_ABORT, TV2, NO_PRODUCER_ID, 50, True))
    assert (md.state, md.txn_start_timestamp, md.producer_epoch) == (S.PREPARE_ABORT, 50, 1)


def test_a_second_transition_while_one_is_pending_is_refused():
    md = _metadata()
    transit = md.prepare_add_partitions([TP0], 10, TV0)
    assert md.pending_transition_in_progress
    with pytest.raises(IllegalTransactionStateError, match="pending state ONGOING"):
        md.prepare_add_partitions([TP1], 11, TV0)
    _step(md, transit)
    assert not md.pending_transition_in_progress


def test_commit_from_empty_is_an_invalid_transition():
    md = _metadata()
    with pytest.raises(IllegalTransactionStateError, match="not a valid previous state"):
        md.prepare_abort_or_commit(S.PREPARE_COMMIT, TV0, NO_PRODUCER_ID, 1, False)


def test_completing_a_transition_that_was_not_prepared_fails():
    md = _metadata()
    with pytest.raises(IllegalTransactionStateError, match="does not have a pending state"):
        md.complete_transition_to(md.prepare_no_transit())
    other = _metadata(state=S.ONGOING, partitions=[TP0], start=1)
    transit = other.prepare_abort_or_commit(S.PREPARE_COMMIT, TV0, NO_PRODUCER_ID, 2, False)
    md.prepare_add_partitions([TP0], 1, TV0)
    with pytest.raises(IllegalTransactionStateError, match="unexpected metadata"):
        md.complete_transition_to(transit)


def test_fence_bumps_the_epoch_once_and_not_again_after_a_failed_write():
    md = _metadata(state=S.ONGOING, epoch=4, partitions=[TP0], start=1)
    assert md.prepare_fence_producer_epoch().producer_epoch == 5
    md.pending_state = None
    md.has_failed_epoch_fence = True
    assert md.prepare_fence_producer_epoch().producer_epoch == 4
    md.pending_state = None
    md.producer_epoch = SHORT_MAX
    with pytest.raises(IllegalTransactionStateError, match="overflow"):
        md.prepare_fence_producer_epoch()


def test_dead_is_prepared_but_never_completed():
    md = _metadata(state=S.COMPLETE_ABORT, start=1)
    transit = md.prepare_dead()
    assert transit.txn_state is S.DEAD
    with pytest.raises(IllegalTransactionStateError, match="being expired"):
        md.complete_transition_to(transit)


def test_remove_partition_only_while_preparing():
    md = _metadata(state=S.PREPARE_COMMIT, partitions=[TP0, TP1], start=1)
    md.remove_partition(TP0)
    assert md.topic_partitions == {TP1}
    with pytest.raises(IllegalTransactionStateError):
        _metadata(state=S.ONGOING, partitions=[TP0]).remove_partition(TP0)
