"""Transactions through a log's lifecycle on real files in tmp_path: the producer state snapshot
taken at each segment roll (Kafka's ``UnifiedLog.roll`` -> ``takeSnapshot``), the recovery after an
unclean shutdown rebuilding the ongoing transactions, the LSO and the ``.txnindex`` from the last
snapshot plus the log (``LogSegment.recover``), and retention removing the ``.txnindex`` files and
snapshots of deleted segments while the LSO stays at or above the log start offset."""

from __future__ import annotations

from dataclasses import replace

from kafkette.broker.log.log_config import LogConfig
from kafkette.broker.log.producer_state_snapshot import read_snapshot, snapshot_offsets
from kafkette.broker.log.transaction_index import AbortedTxn
from kafkette.broker.log.unified_log import UnifiedLog
from kafkette.common.clock import MockTime
from kafkette.protocol.control_record import ControlRecordType
from kafkette.protocol.topic_partition import TopicPartition
from tests.unit.broker.log.transactional_batches import NOW_MS, append_marker, txn_batch

TP = TopicPartition("payments", 0)


def _open(path, clean=True, config=None, **kwargs) -> UnifiedLog:
    return UnifiedLog.open(
        path / "payments-0",
        TP,
        config or LogConfig(),
        had_clean_shutdown=clean,
        time=MockTime(wall_ms=NOW_MS),
        **kwargs,
    )


def _state(log):
    """What a READ_COMMITTED reader and the producer state see: (LSO, ongoing transactions, aborted
    transactions of the whole log, each segment's txnindex entries)."""
    log.update_high_watermark(log.log_end_offset)
    return (
        log.last_stable_offset,
        dict(log.producer_state_manager.ongoing_txns),
        log.collect_aborted_transactions(log.log_start_offset, log.log_end_offset),
        {segment.base_offset: list(segment.txn_index.entries) for segment in log.segments},
    )


def _write_transactions(log):
    """Five segments: aborted, committed and open transactions, some spanning segments."""
    log.append_as_leader(txn_batch(7, 0), 0)  # 0-1: producer 7 opens, left open to the end
    log.append_as_leader(txn_batch(8, 0), 0)  # 2-3: producer 8 opens
    log.roll()
    log.append_as_leader(txn_batch(9, 0), 0)  # 4-5: producer 9 opens
    append_marker(log, 8, ControlRecordType.ABORT)  # 6: aborts 2-3 across a segment boundary
    log.roll()
    append_marker(log, 9, ControlRecordType.COMMIT)  # 7
    log.append_as_leader(txn_batch(10, 0), 0)  # 8-9: producer 10 opens
    log.roll()
    append_marker(log, 10, ControlRecordType.ABORT)  # 10
    log.append_as_leader(txn_batch(11, 0), 0)  # 11-12: producer 11 opens, left open
    log.roll()
    log.append_as_leader(txn_batch(-1, -1, transactional=False), 0)  # 13-14


def test_each_roll_snapshots_the_producer_state_at_the_new_segments_base_offset(tmp_path):
    log = _open(tmp_path)
    log.append_as_leader(txn_batch(7, 0), 0)  # 0-1
    log.roll()
    assert snapshot_offsets(log.dir) == [2]
    [entry] = read_snapshot(log.dir / "00000000000000000002.snapshot")
    assert (entry.producer_id, entry.current_txn_first_offset, entry.last_offset) == (7, 0, 1)
    append_marker(log, 7, ControlRecordType.COMMIT)  # 2
    log.append_as_leader(txn_batch(7, 2), 0)  # 3-4
    log.roll()
    assert snapshot_offsets(log.dir) == [2, 5]  # older snapshots stay (as Kafka's)
    [entry] = read_snapshot(log.dir / "00000000000000000005.snapshot")
    assert (entry.current_txn_first_offset, entry.last_offset) == (3, 4)
    log.close()


def test_a_read_committed_fetch_finds_an_abort_indexed_two_segments_later(tmp_path):
    log = _open(tmp_path)
    log.append_as_leader(txn_batch(7, 0), 0)  # 0-1
    log.roll()
    log.append_as_leader(txn_batch(-1, -1, transactional=False), 0)  # 2-3
    log.roll()
    append_marker(log, 7, ControlRecordType.ABORT)  # 4, indexed in the segment at 4
    log.update_high_watermark(5)
    assert log.segments[0].txn_index.entries == [] and not log.segments[0].txn_index_path.exists()
    assert log.collect_aborted_transactions(0, 2) == [AbortedTxn(7, 0, 4, 5)]
    first_segment = bytes(log.read(0, 1 << 20).records)
    assert log.aborted_transactions_in(0, first_segment) == [AbortedTxn(7, 0, 4, 5)]
    assert log.collect_aborted_transactions(2, 4) == [AbortedTxn(7, 0, 4, 5)]  # its marker is ahead
    log.close()


def test_an_unclean_shutdown_rebuilds_the_transactions_lso_and_txnindex(tmp_path):
    log = _open(tmp_path)
    _write_transactions(log)
    before = _state(log)
    assert before[0] == 0  # producer 7's transaction holds the LSO
    assert before[1] == {0: 7, 11: 11}
    assert before[2] == [AbortedTxn(8, 2, 6, 0), AbortedTxn(10, 8, 10, 0)]  # LSO held by producer 7
    log.flush_sync()
    txn_indexes = [segment.txn_index_path for segment in log.segments if segment.txn_index.entries]
    active_log = log.active_segment.log_path
    # kill -9: no close (so no snapshot at the log end), a torn batch at the end, the txnindex lost
    with open(active_log, "ab") as torn:
        torn.write(txn_batch(11, 2)[:30])
    for path in txn_indexes:
        path.unlink()
    reopened = _open(tmp_path, clean=False, recovery_point=0)
    assert reopened.log_end_offset == 15
    assert _state(reopened) == before
    assert [p.stat().st_size for p in txn_indexes] == [34, 34]  # rebuilt in Kafka's format
    reopened.close()


def test_an_unclean_shutdown_without_snapshots_past_the_recovery_point_replays_from_the_last_one(tmp_path):
    log = _open(tmp_path)
    _write_transactions(log)
    before = _state(log)
    log.flush_sync()
    for offset in snapshot_offsets(log.dir)[1:]:  # only the snapshot at 4 survives
        (log.dir / f"{offset:020d}.snapshot").unlink()
    reopened = _open(tmp_path, clean=False, recovery_point=4)
    assert _state(reopened) == before
    reopened.close()


def test_recovery_drops_the_txnindex_entry_of_a_marker_truncated_away(tmp_path):
    log = _open(tmp_path)
    log.append_as_leader(txn_batch(7, 0), 0)  # 0-1
    log.append_as_leader(txn_batch(8, 0), 0)  # 2-3
    log.roll()
    append_marker(log, 7, ControlRecordType.ABORT)  # 4
    end_of_first_marker = log.active_segment.size
    append_marker(log, 8, ControlRecordType.ABORT)  # 5
    log.flush_sync()
    assert len(log.active_segment.txn_index.entries) == 2
    active = log.active_segment.log_path
    with open(active, "r+b") as segment:  # the second marker torn by the crash
        segment.truncate(end_of_first_marker + 20)
    reopened = _open(tmp_path, clean=False, recovery_point=0)
    assert reopened.log_end_offset == 5
    assert reopened.active_segment.txn_index.entries == [AbortedTxn(7, 0, 4, 2)]
    assert reopened.active_segment.txn_index_path.stat().st_size == 34
    reopened.update_high_watermark(5)
    assert reopened.producer_state_manager.ongoing_txns == {2: 8}
    assert reopened.last_stable_offset == 2
    reopened.close()


def test_retention_removes_the_txnindex_and_snapshots_of_deleted_segments(tmp_path):
    log = _open(tmp_path, config=replace(LogConfig(), retention_ms=-1))
    _write_transactions(log)
    _state(log)
    aborted_index = log.segments[1].txn_index_path  # the abort at 6, in the segment at 4
    assert aborted_index.exists()
    log.update_config(replace(log.config, retention_ms=0))
    renamed = log.delete_old_segments(now_ms=NOW_MS + 1)
    assert log.log_start_offset == 13  # every segment below the active one
    assert aborted_index.with_name(aborted_index.name + ".deleted") in renamed
    assert not aborted_index.exists()
    assert all(offset >= 13 for offset in snapshot_offsets(log.dir))
    assert log.collect_aborted_transactions(13, 15) == []
    # producer 7's and 11's transactions are still open below the log start: the LSO stays at it
    log.update_high_watermark(15)
    assert log.producer_state_manager.first_unstable_offset() == 0
    assert log.last_stable_offset == 13
    log.close()


def test_delete_records_past_an_open_transaction_keeps_the_lso_at_the_log_start(tmp_path):
    log = _open(tmp_path)
    log.append_as_leader(txn_batch(7, 0), 0)  # 0-1, open
    log.roll()
    log.append_as_leader(txn_batch(-1, -1, transactional=False), 0)  # 2-3
    log.update_high_watermark(4)
    assert log.last_stable_offset == 0
    assert log.maybe_increment_log_start_offset(3, "client delete records")
    assert log.last_stable_offset == 3
    log.delete_old_segments(now_ms=NOW_MS)
    assert [s.base_offset for s in log.segments] == [2]
    assert snapshot_offsets(log.dir) == [2]
    log.close()
    reopened = _open(tmp_path, log_start_offset=3)
    reopened.update_high_watermark(4)
    assert reopened.producer_state_manager.ongoing_txns == {0: 7}
    assert reopened.last_stable_offset == 3
    reopened.close()


def test_a_torn_roll_snapshot_falls_back_to_the_one_before_it(tmp_path):
    log = _open(tmp_path)
    _write_transactions(log)
    before = _state(log)
    log.flush_sync()
    assert snapshot_offsets(log.dir) == [4, 7, 10, 13]
    (log.dir / f"{13:020d}.snapshot").write_bytes(b"")  # the roll's snapshot is not fsynced
    reopened = _open(tmp_path, clean=False, recovery_point=13)
    assert _state(reopened) == before
    assert snapshot_offsets(reopened.dir) == [4, 7, 10]
    reopened.close()


def test_opening_removes_the_snapshots_of_segments_gone_but_the_last(tmp_path):
    log = _open(tmp_path)
    _write_transactions(log)
    log.close()  # snapshots at the four rolls and at the log end offset, 15
    for stray in (3, 12):  # as a cleaner merging segments leaves them
        log.producer_state_manager.take_snapshot(log.dir, stray)
    reopened = _open(tmp_path)
    assert snapshot_offsets(reopened.dir) == [4, 7, 10, 13, 15]
    reopened.close()
