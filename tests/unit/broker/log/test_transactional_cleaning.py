"""Compaction of a log holding transactions, on real segment files: the records of aborted
transactions go, committed ones follow the key rule, a marker stays while data of its transaction
does and goes in a pass after its delete horizon (KIP-534), a producer's last data batch is kept
empty (Kafka's ``RETAIN_EMPTY``), and nothing from the first unstable offset on is cleaned
(Kafka's ``Cleaner``/``CleanedTransactionMetadata``)."""

from __future__ import annotations

from kafkette.broker.log.log_cleaner import LogCleaner
from kafkette.broker.log.log_config import LogConfig
from kafkette.broker.log.log_loader import complete_swaps
from kafkette.broker.log.transaction_index import AbortedTxn
from kafkette.broker.log.unified_log import UnifiedLog
from kafkette.protocol.control_record import ControlRecordType, read_end_txn_marker
from kafkette.protocol.record_batch import (
    CONTROL_MASK,
    DELETE_HORIZON_MASK,
    build_batch,
    decode_records,
)
from kafkette.protocol.topic_partition import TopicPartition
from tests.unit.broker.log.log_reading import START_MS, ManualClock, iter_log_batches
from tests.unit.broker.log.transactional_batches import append_marker, txn_batch

TP = TopicPartition("balances", 0)
RETENTION_MS = 10_000
ABORT, COMMIT = ControlRecordType.ABORT, ControlRecordType.COMMIT


def _open(tmp_path, clean=True) -> UnifiedLog:
    config = LogConfig(
        cleanup_policy="compact", min_cleanable_dirty_ratio=0.0, delete_retention_ms=RETENTION_MS
    )
    return UnifiedLog.open(tmp_path / str(TP), TP, config, had_clean_shutdown=clean)


def _cleaner(tmp_path, log, clock) -> LogCleaner:
    return LogCleaner([tmp_path], lambda: {TP: log}, backoff_ms=10, offset_map_capacity=10_000, now_ms=clock)


def _plain(log, key):
    log.append_as_leader(bytearray(build_batch([(key, b"plain", None, START_MS)])), 0)


async def _next_pass(log, cleaner, clock, advance_ms=1):
    """Move the clock, make the log dirty again (a record of its own key) and clean it."""
    clock.now_ms += advance_ms
    _plain(log, b"filler")
    log.roll()
    assert await cleaner.clean_once()


def _batches(log):
    """Every batch as (base offset, last offset, what, producer id, keys of a data batch); what is
    "data", "ABORT" or "COMMIT" ("+horizon" when its delete horizon is set)."""
    out = []
    for data, position, header in iter_log_batches(log):
        what = "data"
        if header.attributes & CONTROL_MASK:
            what = read_end_txn_marker(data, position, header).control_type.name
        if header.attributes & DELETE_HORIZON_MASK:
            what += "+horizon"
        keys = [] if what != "data" else [r.key for r in decode_records(data, position, header)]
        out.append((header.base_offset, header.last_offset, what, header.producer_id, keys))
    return out


async def test_aborted_records_go_committed_ones_follow_the_key_rule_and_markers_outlive_their_data(tmp_path):
    clock = ManualClock()
    log = _open(tmp_path)
    log.append_as_leader(txn_batch(7, 0, keys=[b"a", b"b"]), 0)  # 0-1
    append_marker(log, 7, ABORT)  # 2
    log.append_as_leader(txn_batch(8, 0, keys=[b"a", b"c"]), 0)  # 3-4
    append_marker(log, 8, COMMIT)  # 5
    log.append_as_leader(txn_batch(7, 2, keys=[b"d"], records=1), 0)  # 6, producer 7's next
    append_marker(log, 7, COMMIT)  # 7
    _plain(log, b"c")  # 8 supersedes c@4
    _plain(log, b"a")  # 9 supersedes a@3: producer 8's batch is left empty
    log.roll()
    log.update_high_watermark(log.log_end_offset)
    cleaner = _cleaner(tmp_path, log, clock)
    assert await cleaner.clean_once()
    assert _batches(log)[:6] == [
        (2, 2, "ABORT", 7, []),  # its data went in this pass: kept, still indexed
        (3, 4, "data", 8, []),  # producer 8's last data batch: kept empty
        (5, 5, "COMMIT", 8, []),  # data of its transaction was seen in this pass
        (6, 6, "data", 7, [b"d"]),
        (7, 7, "COMMIT", 7, []),
        (8, 8, "data", -1, [b"c"]),
    ]
    assert log.collect_aborted_transactions(0, 10) == [AbortedTxn(7, 0, 2, 3)]
    assert log.segments[0].txn_index_path.stat().st_size == 34  # swapped in from .txnindex.cleaned

    await _next_pass(log, cleaner, clock)  # no data of the abort left: its delete horizon is set
    horizon_ms = clock.now_ms + RETENTION_MS
    batches = _batches(log)
    assert batches[0] == (2, 2, "ABORT+horizon", 7, [])
    assert batches[2] == (5, 5, "COMMIT", 8, [])  # the empty batch still counts as its data
    assert log.collect_aborted_transactions(0, 10) == []  # nothing left to abort
    await _next_pass(log, cleaner, clock, advance_ms=horizon_ms - clock.now_ms - 1)
    assert _batches(log)[0] == (2, 2, "ABORT+horizon", 7, [])  # the horizon is not passed yet
    await _next_pass(log, cleaner, clock, advance_ms=2)
    assert [b[:3] for b in _batches(log)[:4]] == [
        (3, 4, "data"),
        (5, 5, "COMMIT"),
        (6, 6, "data"),
        (7, 7, "COMMIT"),
    ]


async def test_a_commit_marker_whose_records_are_all_superseded_goes_after_its_delete_horizon(tmp_path):
    clock = ManualClock()
    log = _open(tmp_path)
    log.append_as_leader(txn_batch(8, 0, keys=[b"a"], records=1), 0)  # 0
    append_marker(log, 8, COMMIT)  # 1
    log.append_as_leader(txn_batch(8, 1, keys=[b"b"], records=1), 0)  # 2: producer 8's last data batch
    append_marker(log, 8, COMMIT)  # 3
    _plain(log, b"a")  # 4
    log.roll()
    log.update_high_watermark(log.log_end_offset)  # until then the transactions are unstable
    cleaner = _cleaner(tmp_path, log, clock)
    assert await cleaner.clean_once()  # a@0 goes: its batch is not the producer's last
    assert [b[:3] for b in _batches(log)[:3]] == [(1, 1, "COMMIT"), (2, 2, "data"), (3, 3, "COMMIT")]
    await _next_pass(log, cleaner, clock)
    assert _batches(log)[0][:3] == (1, 1, "COMMIT+horizon")
    assert _batches(log)[2][:3] == (3, 3, "COMMIT")  # its transaction still holds b@2
    await _next_pass(log, cleaner, clock, advance_ms=RETENTION_MS + 1)
    assert [b[:3] for b in _batches(log)[:3]] == [(2, 2, "data"), (3, 3, "COMMIT"), (4, 4, "data")]


async def test_an_open_transaction_and_everything_after_it_are_never_cleaned(tmp_path):
    clock = ManualClock()
    log = _open(tmp_path)
    _plain(log, b"x")  # 0
    _plain(log, b"x")  # 1
    log.roll()
    log.append_as_leader(txn_batch(9, 0, keys=[b"x", b"y"]), 0)  # 2-3, left open
    log.roll()
    _plain(log, b"y")  # 4
    _plain(log, b"x")  # 5
    log.roll()
    log.update_high_watermark(log.log_end_offset)
    assert log.last_stable_offset == 2
    cleaner = _cleaner(tmp_path, log, clock)
    assert await cleaner.clean_once()
    assert cleaner.manager.checkpoint(TP) == 2  # the cleanable range ends at the first unstable offset
    assert [b[:2] + b[4:] for b in _batches(log)] == [
        (1, 1, [b"x"]),
        (2, 3, [b"x", b"y"]),
        (4, 4, [b"y"]),
        (5, 5, [b"x"]),
    ]
    append_marker(log, 9, ABORT)  # 6: the transaction ends; its records go at the next pass
    log.roll()
    log.update_high_watermark(log.log_end_offset)
    assert await cleaner.clean_once()
    assert [b[:3] + b[4:] for b in _batches(log)] == [
        (2, 3, "data", []),  # producer 9's last data batch, emptied
        (4, 4, "data", [b"y"]),
        (5, 5, "data", [b"x"]),
        (6, 6, "ABORT", []),
    ]


async def test_a_cleaned_log_with_an_empty_batch_replicates_and_reopens_after_a_crash(tmp_path):
    clock = ManualClock()
    log = _open(tmp_path)
    log.append_as_leader(txn_batch(7, 0, keys=[b"a", b"b"]), 0)  # 0-1
    append_marker(log, 7, ABORT)  # 2
    log.roll()
    log.update_high_watermark(log.log_end_offset)
    assert await _cleaner(tmp_path, log, clock).clean_once()
    assert _batches(log)[0] == (0, 1, "data", 7, [])
    follower = UnifiedLog.open(tmp_path / "follower", TP, log.config, had_clean_shutdown=True)
    follower.append_as_follower(bytes(log.read(0, 1 << 20).records))  # a replica catching up from 0
    assert follower.log_end_offset == 3 and follower.producer_state_manager.entries[7].last_seq == 1
    assert follower.collect_aborted_transactions(0, 3) == [AbortedTxn(7, 0, 2, 3)]
    follower.close()
    log.flush_sync()
    reopened = _open(tmp_path, clean=False)  # every segment recovered, the empty batch valid
    assert reopened.log_end_offset == 3
    assert reopened.producer_state_manager.entries[7].last_seq == 1
    assert reopened.collect_aborted_transactions(0, 3) == [AbortedTxn(7, 0, 2, 3)]
    reopened.update_high_watermark(3)
    assert reopened.last_stable_offset == 3
    reopened.close()


def test_a_swap_interrupted_after_the_log_keeps_the_cleaned_txnindex(tmp_path):
    directory = tmp_path / str(TP)
    directory.mkdir()
    (directory / "00000000000000000000.log").write_bytes(b"old")
    (directory / "00000000000000000000.txnindex").write_bytes(b"\x00" * 68)
    (directory / "00000000000000000000.log.swap").write_bytes(b"")
    (directory / "00000000000000000000.txnindex.cleaned").write_bytes(b"\x00" * 34)
    complete_swaps(directory, "test")
    assert (directory / "00000000000000000000.txnindex").stat().st_size == 34
    assert not (directory / "00000000000000000000.log").read_bytes()
    assert sorted(p.name for p in directory.iterdir()) == [
        "00000000000000000000.log",
        "00000000000000000000.txnindex",
    ]
