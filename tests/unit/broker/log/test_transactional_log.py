"""The partition-log side of transactions on a real log in tmp_path: the producer state opens a
transaction at a transactional batch and a COMMIT/ABORT marker ends it (Kafka's
ProducerAppendInfo/CompletedTxn), the last stable offset, the .txnindex of aborted transactions,
and all of it rebuilt when the log is reopened or truncated."""

from __future__ import annotations

import pytest

from kafkette.broker.log.append_origin import AppendOrigin
from kafkette.broker.log.log_config import LogConfig
from kafkette.broker.log.transaction_index import AbortedTxn
from kafkette.broker.log.unified_log import UnifiedLog
from kafkette.common.clock import MockTime
from kafkette.protocol.control_record import (
    ControlRecordType,
    EndTransactionMarker,
    build_end_txn_marker_batch,
)
from kafkette.protocol.errors import (
    InvalidRecordError,
    InvalidTxnStateError,
    TransactionCoordinatorFencedError,
)
from kafkette.protocol.record_batch import CRC_OFFSET, CorruptRecordError, build_kafka_batch, compute_crc
from kafkette.protocol.topic_partition import TopicPartition
from tests.unit.broker.log.transactional_batches import NOW_MS, append_marker
from tests.unit.broker.log.transactional_batches import txn_batch as _txn_batch

TP = TopicPartition("payments", 0)


def _open(path, clean=True) -> UnifiedLog:
    return UnifiedLog.open(
        path / "payments-0", TP, LogConfig(), had_clean_shutdown=clean, time=MockTime(wall_ms=NOW_MS)
    )


def _marker(log, producer_id, control_type, coordinator_epoch=0):
    return append_marker(log, producer_id, control_type, coordinator_epoch)


def _replicate(log):
    log.update_high_watermark(log.log_end_offset)


def test_an_open_transaction_holds_the_last_stable_offset_until_its_marker_is_replicated(tmp_path):
    log = _open(tmp_path)
    log.append_as_leader(_txn_batch(-1, -1, transactional=False), 0)  # offsets 0-1, no producer
    log.append_as_leader(_txn_batch(7, 0), 0)  # offsets 2-3 open producer 7's transaction
    log.append_as_leader(_txn_batch(8, 0), 0)  # offsets 4-5 open producer 8's
    _replicate(log)
    assert log.high_watermark == 6 and log.last_stable_offset == 2
    assert log.producer_state_manager.entries[7].current_txn_first_offset == 2
    info = _marker(log, 7, ControlRecordType.COMMIT)  # offset 6
    assert info.first_offset == 6
    assert log.last_stable_offset == 2  # the marker is not below the HW yet
    _replicate(log)
    assert log.last_stable_offset == 4  # producer 8's transaction is still open
    _marker(log, 8, ControlRecordType.ABORT)
    _replicate(log)
    assert log.last_stable_offset == log.high_watermark == 8
    assert log.producer_state_manager.entries[8].current_txn_first_offset == -1


def test_an_abort_marker_indexes_the_transaction_and_a_commit_does_not(tmp_path):
    log = _open(tmp_path)
    log.append_as_leader(_txn_batch(7, 0), 0)  # 0-1
    log.append_as_leader(_txn_batch(8, 0), 0)  # 2-3
    _marker(log, 7, ControlRecordType.ABORT)  # 4: producer 8's txn still open at 2
    _marker(log, 8, ControlRecordType.COMMIT)  # 5
    assert log.active_segment.txn_index.entries == [AbortedTxn(7, 0, 4, 2)]
    assert log.active_segment.txn_index_path.exists()
    assert log.collect_aborted_transactions(0, 6) == [AbortedTxn(7, 0, 4, 2)]
    assert log.collect_aborted_transactions(5, 6) == []


def test_a_non_transactional_write_during_a_transaction_is_invalid_txn_state(tmp_path):
    log = _open(tmp_path)
    log.append_as_leader(_txn_batch(7, 0), 0)
    with pytest.raises(InvalidTxnStateError, match="Expected transactional write"):
        log.append_as_leader(_txn_batch(7, 2, transactional=False), 0)


def test_only_the_coordinator_may_append_control_batches(tmp_path):
    log = _open(tmp_path)
    log.append_as_leader(_txn_batch(7, 0), 0)
    marker = build_end_txn_marker_batch(7, 0, EndTransactionMarker(ControlRecordType.COMMIT, 0), NOW_MS)
    with pytest.raises(InvalidRecordError, match="Clients are not allowed to write control records"):
        log.append_as_leader(marker, 0)
    assert log.log_end_offset == 2


def test_a_marker_from_an_older_coordinator_epoch_is_fenced(tmp_path):
    log = _open(tmp_path)
    log.append_as_leader(_txn_batch(7, 0), 0)
    _marker(log, 7, ControlRecordType.COMMIT, coordinator_epoch=5)
    log.append_as_leader(_txn_batch(7, 2), 0)
    with pytest.raises(TransactionCoordinatorFencedError, match="zombie"):
        _marker(log, 7, ControlRecordType.ABORT, coordinator_epoch=4)


def test_a_control_batch_without_a_marker_is_corrupt(tmp_path):
    log = _open(tmp_path)
    bogus = bytearray(build_kafka_batch([(b"\x00\x00\x00\x09", b"", None, NOW_MS)], producer_id=7))
    bogus[22] |= 0x30  # transactional + control bits, the CRC made right again
    bogus[CRC_OFFSET : CRC_OFFSET + 4] = compute_crc(bogus, 0, len(bogus)).to_bytes(4, "big")
    with pytest.raises(CorruptRecordError):
        log.append_as_leader(bogus, 0, AppendOrigin.COORDINATOR)


@pytest.mark.parametrize("clean", [True, False])
def test_reopening_keeps_the_open_transaction_and_the_txnindex(tmp_path, clean):
    log = _open(tmp_path)
    log.append_as_leader(_txn_batch(7, 0), 0)  # 0-1
    _marker(log, 7, ControlRecordType.ABORT)  # 2
    log.append_as_leader(_txn_batch(8, 0), 0)  # 3-4, left open
    index_path = log.active_segment.txn_index_path
    log.flush_sync()
    log.close()
    if not clean:
        index_path.unlink()  # recovery rebuilds it from the markers
    reopened = _open(tmp_path, clean)
    reopened.update_high_watermark(5)
    assert reopened.last_stable_offset == 3
    assert reopened.producer_state_manager.entries[8].current_txn_first_offset == 3
    assert reopened.collect_aborted_transactions(0, 5) == [AbortedTxn(7, 0, 2, 3)]
    assert len(reopened.active_segment.txn_index.entries) == 1  # not indexed twice
    reopened.close()


def test_truncating_below_a_marker_reopens_the_transaction_and_drops_its_index_entry(tmp_path):
    log = _open(tmp_path)
    log.append_as_leader(_txn_batch(7, 0), 0)  # 0-1
    _marker(log, 7, ControlRecordType.ABORT)  # 2
    assert log.truncate_to(2)
    assert log.active_segment.txn_index.entries == []
    assert log.producer_state_manager.entries[7].current_txn_first_offset == 0
    log.update_high_watermark(2)
    assert log.last_stable_offset == 0


def test_a_follower_append_of_the_leaders_batches_tracks_the_same_transactions(tmp_path):
    leader = _open(tmp_path / "leader")
    leader.append_as_leader(_txn_batch(7, 0), 0)
    _marker(leader, 7, ControlRecordType.ABORT)
    follower = _open(tmp_path / "follower")
    data = leader.read(0, 1 << 20).records
    follower.append_as_follower(bytes(data))
    assert follower.collect_aborted_transactions(0, 3) == [AbortedTxn(7, 0, 2, 3)]
    follower.update_high_watermark(3)
    assert follower.last_stable_offset == 3


def test_a_read_committed_read_gets_the_aborted_transactions_overlapping_what_it_read(tmp_path):
    log = _open(tmp_path)
    log.append_as_leader(_txn_batch(7, 0), 0)  # 0-1
    _marker(log, 7, ControlRecordType.ABORT)  # 2
    log.append_as_leader(_txn_batch(-1, -1, transactional=False), 0)  # 3-4
    _replicate(log)
    first_batch = bytes(log.read(0, 1).records)  # min one message: the first batch only
    assert log.aborted_transactions_in(0, first_batch) == [AbortedTxn(7, 0, 2, 3)]
    tail = bytes(log.read(3, 1 << 20).records)
    assert log.aborted_transactions_in(3, tail) == []


def test_an_aborted_transaction_indexed_in_a_later_segment_is_found_for_an_earlier_range(tmp_path):
    log = _open(tmp_path)
    log.append_as_leader(_txn_batch(7, 0), 0)  # 0-1
    log.roll()
    _marker(log, 7, ControlRecordType.ABORT)  # 2, indexed in the segment at 2
    _replicate(log)
    first_segment = bytes(log.read(0, 1 << 20).records)  # a read stops at its segment's end
    assert log.aborted_transactions_in(0, first_segment) == [AbortedTxn(7, 0, 2, 3)]


def test_a_transaction_opened_before_the_last_two_segments_survives_a_clean_restart(tmp_path):
    log = _open(tmp_path)
    log.append_as_leader(_txn_batch(7, 0), 0)  # 0-1: producer 7's transaction opens
    for sequence in range(3):  # three more segments of another producer's batches
        log.roll()
        log.append_as_leader(_txn_batch(8, sequence, records=1, transactional=False), 0)
    log.flush_sync()
    log.close()  # writes the snapshot at the log end offset, after those of the three rolls
    assert sorted(p.name for p in (tmp_path / "payments-0").glob("*.snapshot")) == [
        f"{offset:020d}.snapshot" for offset in (2, 3, 4, 5)
    ]
    reopened = _open(tmp_path)
    reopened.update_high_watermark(5)
    assert reopened.last_stable_offset == 0
    assert reopened.producer_state_manager.entries[8].last_seq == 2
    _marker(reopened, 7, ControlRecordType.ABORT)
    assert reopened.collect_aborted_transactions(0, 6) == [AbortedTxn(7, 0, 5, 6)]
    reopened.close()


def test_a_corrupt_snapshot_is_ignored_and_the_tail_replayed(tmp_path):
    log = _open(tmp_path)
    log.append_as_leader(_txn_batch(7, 0), 0)
    log.flush_sync()
    log.close()
    [snapshot] = (tmp_path / "payments-0").glob("*.snapshot")
    snapshot.write_bytes(snapshot.read_bytes()[:-1] + b"\xff")
    reopened = _open(tmp_path)
    reopened.update_high_watermark(2)
    assert reopened.last_stable_offset == 0  # from the last two segments' headers
    assert not snapshot.exists()
