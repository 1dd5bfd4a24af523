"""The leader log's side of transaction verification (KIP-890) on a real log in tmp_path: a
transactional batch of a producer with no open transaction appends only with its outstanding
verification guard, the guard is kept across retries, dropped when the transaction starts or when a
marker lands (so a batch verified before an abort marker cannot start a hanging transaction), and
no guard (None) means no check (Kafka's UnifiedLog.maybeStartTransactionVerification,
VerificationGuard, VerificationStateEntry)."""

from __future__ import annotations

import pytest

from kafkette.broker.log.append_origin import AppendOrigin
from kafkette.broker.log.log_config import LogConfig
from kafkette.broker.log.unified_log import UnifiedLog
from kafkette.broker.log.verification_guard import VerificationGuard
from kafkette.common.clock import MockTime
from kafkette.protocol.control_record import (
    ControlRecordType,
    EndTransactionMarker,
    build_end_txn_marker_batch,
)
from kafkette.protocol.errors import InvalidTxnStateError
from kafkette.protocol.record_batch import build_kafka_batch
from kafkette.protocol.topic_partition import TopicPartition

TP = TopicPartition("orders", 0)
NOW_MS = 1_700_000_000_000
PID = 7


def _open(path) -> UnifiedLog:
    return UnifiedLog.open(
        path / "orders-0", TP, LogConfig(), had_clean_shutdown=True, time=MockTime(wall_ms=NOW_MS)
    )


def _batch(sequence: int, epoch: int = 0) -> bytes:
    return build_kafka_batch(
        [(b"k", b"v", None, NOW_MS)],
        producer_id=PID,
        producer_epoch=epoch,
        base_sequence=sequence,
        transactional=True,
    )


def _abort(log: UnifiedLog) -> None:
    marker = build_end_txn_marker_batch(PID, 0, EndTransactionMarker(ControlRecordType.ABORT, 0), NOW_MS)
    log.append_as_leader(marker, 0, AppendOrigin.COORDINATOR)


def test_a_batch_appends_only_with_its_producers_outstanding_guard(tmp_path):
    log = _open(tmp_path)
    guard = log.maybe_start_transaction_verification(PID, 0, 0)
    assert guard is not VerificationGuard.SENTINEL
    assert log.maybe_start_transaction_verification(PID, 0, 0) is guard  # a retry keeps the guard
    with pytest.raises(InvalidTxnStateError, match="Record was not part of an ongoing transaction"):
        log.append_as_leader(_batch(0), 0, verification_guard=VerificationGuard())
    with pytest.raises(InvalidTxnStateError):
        log.append_as_leader(_batch(0), 0, verification_guard=VerificationGuard.SENTINEL)
    assert log.log_end_offset == 0
    log.append_as_leader(_batch(0), 0, verification_guard=guard)
    assert log.has_ongoing_transaction(PID, 0) and log.log_end_offset == 1
    # the transaction began: the guard is gone and the next batch needs none
    assert PID not in log.producer_state_manager.verification_states
    assert log.maybe_start_transaction_verification(PID, 1, 0) is VerificationGuard.SENTINEL
    log.append_as_leader(_batch(1), 0, verification_guard=VerificationGuard.SENTINEL)
    assert log.log_end_offset == 2


def test_a_batch_verified_before_an_abort_marker_cannot_start_a_transaction_after_it(tmp_path):
    log = _open(tmp_path)
    guard = log.maybe_start_transaction_verification(PID, 0, 0)
    _abort(log)  # the coordinator aborted (a timeout) while the verified batch was on its way
    with pytest.raises(InvalidTxnStateError):
        log.append_as_leader(_batch(0), 0, verification_guard=guard)
    assert not log.has_ongoing_transaction(PID, 0)


def test_a_batch_verified_while_its_transaction_was_open_fails_once_the_marker_closed_it(tmp_path):
    log = _open(tmp_path)
    log.append_as_leader(_batch(0), 0, verification_guard=log.maybe_start_transaction_verification(PID, 0, 0))
    sentinel = log.maybe_start_transaction_verification(PID, 1, 0)  # open: nothing to verify
    assert sentinel is VerificationGuard.SENTINEL
    _abort(log)
    with pytest.raises(InvalidTxnStateError):
        log.append_as_leader(_batch(1), 0, verification_guard=sentinel)


def test_without_a_guard_nothing_is_checked(tmp_path):
    log = _open(tmp_path)
    log.append_as_leader(_batch(0), 0)  # verification off (or a follower's, a coordinator's write)
    assert log.has_ongoing_transaction(PID, 0)
    assert not log.has_ongoing_transaction(PID, 1)  # another epoch has none
