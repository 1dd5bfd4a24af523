"""The in-memory ReplicatedLog (crash, snapshots, epoch lookups), whole-batch reads, and what a
leader answers a fetch position (valid, diverging, or fetch the snapshot)."""

from __future__ import annotations

import pytest

from kafkette.controller.raft.replicated_log import (
    Kind,
    LogEntry,
    MemoryReplicatedLog,
    OffsetAndEpoch,
    read_whole_batches,
    validate_offset_and_epoch,
)


def _log(*epochs: int) -> MemoryReplicatedLog:
    """One entry per epoch given, at offsets 0, 1, ..."""
    log = MemoryReplicatedLog()
    log.append([LogEntry(offset, epoch, f"entry-{offset}") for offset, epoch in enumerate(epochs)])
    return log


def test_a_crash_keeps_the_flushed_prefix_only():
    log = _log(1, 1, 2)
    log.flush()
    log.append([LogEntry(3, 2, "unflushed")])
    log.crash()
    assert (log.end_offset(), log.flushed_offset()) == (3, 3)
    log.truncate_to(1)
    assert (log.end_offset(), log.flushed_offset(), log.last_epoch()) == (1, 1, 1)


def test_appends_that_do_not_continue_the_log_are_refused():
    log = _log(2)
    with pytest.raises(ValueError, match="does not continue"):
        log.append([LogEntry(2, 2, "gap")])
    with pytest.raises(ValueError, match="does not continue"):
        log.append([LogEntry(1, 1, "older epoch")])


def test_end_offset_for_epoch_is_the_end_of_the_largest_epoch_not_above_it():
    log = _log(1, 1, 3, 3, 4)
    assert log.end_offset_for_epoch(0) == OffsetAndEpoch(0, 0)
    assert log.end_offset_for_epoch(1) == OffsetAndEpoch(2, 1)
    assert log.end_offset_for_epoch(2) == OffsetAndEpoch(2, 1)
    assert log.end_offset_for_epoch(3) == OffsetAndEpoch(4, 3)
    assert log.end_offset_for_epoch(9) == OffsetAndEpoch(5, 4)


def test_a_snapshot_moves_the_log_start_and_stands_for_the_entries_before_it():
    log = _log(1, 1, 2, 2, 3)
    log.create_snapshot(OffsetAndEpoch(3, 2), b"state@3")
    assert (log.log_start_offset(), log.end_offset(), [e.offset for e in log.entries()]) == (3, 5, [3, 4])
    assert log.latest_snapshot_id() == OffsetAndEpoch(3, 2)
    assert log.read_snapshot(OffsetAndEpoch(3, 2)) == b"state@3"
    assert log.read_snapshot(OffsetAndEpoch(3, 1)) is None
    assert log.end_offset_for_epoch(2) == OffsetAndEpoch(4, 2)
    with pytest.raises(ValueError, match="below the log start offset"):
        log.read(2, 1)
    log.crash()  # nothing was flushed after the snapshot: the snapshot and the start stay
    assert (log.log_start_offset(), log.end_offset(), log.last_epoch()) == (3, 3, 2)
    assert log.end_offset_for_epoch(2) == OffsetAndEpoch(3, 2)
    assert log.end_offset_for_epoch(1) == OffsetAndEpoch(0, 0)


@pytest.mark.parametrize(
    ("snapshot_id", "message"),
    [
        (OffsetAndEpoch(0, 0), "not within"),
        (OffsetAndEpoch(6, 3), "not within"),
        (OffsetAndEpoch(2, 2), "epoch 1"),
    ],
)
def test_a_snapshot_must_end_inside_the_log_on_its_entrys_epoch(snapshot_id, message):
    with pytest.raises(ValueError, match=message):
        _log(1, 1, 2, 2, 3).create_snapshot(snapshot_id, b"")


def test_an_installed_snapshot_replaces_the_whole_log():
    log = _log(1, 1, 1)
    log.install_snapshot(OffsetAndEpoch(10, 4), b"leader state")
    assert (log.log_start_offset(), log.end_offset()) == (10, 10)
    assert (log.last_epoch(), log.flushed_offset()) == (4, 10)
    log.append([LogEntry(10, 5, "next")])
    assert [e.offset for e in log.read(10, 5)] == [10]


def test_reads_for_a_fetch_end_on_a_batch_boundary():
    log = MemoryReplicatedLog()
    log.append([LogEntry(0, 1, "leader change")])
    log.append([LogEntry(o, 1, o, batch_end_offset=5) for o in range(1, 5)])
    assert [e.offset for e in read_whole_batches(log, 0, 2)] == [0, 1, 2, 3, 4]
    assert [e.offset for e in read_whole_batches(log, 0, 1)] == [0]
    assert LogEntry(3, 1, "x") == LogEntry(3, 1, "x", batch_end_offset=4)
    with pytest.raises(ValueError, match="not after it"):
        LogEntry(3, 1, "x", batch_end_offset=3)


@pytest.mark.parametrize(
    ("offset", "epoch", "kind", "answer"),
    [
        (0, 0, Kind.SNAPSHOT, (4, 2)),  # an empty follower: the snapshot at once
        (2, 1, Kind.SNAPSHOT, (4, 2)),  # below the log start offset
        (4, 1, Kind.SNAPSHOT, (4, 2)),  # at the log start, with another epoch than the snapshot's
        (6, 1, Kind.SNAPSHOT, (4, 2)),  # a last epoch older than the snapshot's
        (4, 2, Kind.VALID, (4, 2)),
        (6, 3, Kind.VALID, (6, 3)),
        (7, 3, Kind.DIVERGING, (6, 3)),  # longer than the leader's epoch 3
        (6, 4, Kind.DIVERGING, (6, 3)),  # an epoch the leader never had
    ],
)
def test_a_leader_answers_a_fetch_position_valid_diverging_or_snapshot(offset, epoch, kind, answer):
    log = _log(1, 1, 2, 2, 3, 3, 5)
    log.create_snapshot(OffsetAndEpoch(4, 2), b"")
    verdict = validate_offset_and_epoch(log, offset, epoch)
    assert (verdict.kind, verdict.offset_and_epoch) == (kind, answer)


def test_without_a_snapshot_an_empty_follower_is_valid_and_a_stranger_diverges():
    log = _log(1, 2)
    assert validate_offset_and_epoch(log, 0, 0).kind is Kind.VALID
    assert validate_offset_and_epoch(log, 2, 2).kind is Kind.VALID
    assert validate_offset_and_epoch(log, 2, 1) == (Kind.DIVERGING, OffsetAndEpoch(1, 1))
