"""FileReplicatedLog on real files: it answers as the in-memory log does, keeps what was appended
across a reopen, cuts a torn or corrupt tail (and a batch the tail tore), and keeps snapshots as
files: the log then starts at the snapshot, in a segment named after it, across reopens and crashes."""

from __future__ import annotations

import json
import random

import pytest

from kafkette.controller.raft.file_replicated_log import (
    CorruptSnapshotError,
    FileReplicatedLog,
    fsync_and_close,
)
from kafkette.controller.raft.log_frames import frame
from kafkette.controller.raft.replicated_log import LogEntry, MemoryReplicatedLog, OffsetAndEpoch


def _open(path) -> FileReplicatedLog:
    return FileReplicatedLog(path, lambda p: json.dumps(p).encode(), lambda b: json.loads(b))


def test_appends_that_do_not_continue_the_log_are_refused(tmp_path):
    log = _open(tmp_path)
    log.append([LogEntry(0, 2, "a")])
    with pytest.raises(ValueError, match="does not continue"):
        log.append([LogEntry(2, 2, "b")])
    with pytest.raises(ValueError, match="does not continue"):
        log.append([LogEntry(1, 1, "b")])


def test_flush_marks_the_durable_end(tmp_path):
    log = _open(tmp_path)
    log.append([LogEntry(0, 1, "a"), LogEntry(1, 1, "b")])
    assert log.flushed_offset() == 0
    log.flush()
    assert log.flushed_offset() == 2
    log.truncate_to(1)
    assert log.flushed_offset() == 1


def test_a_flush_whose_fsync_runs_elsewhere_makes_durable_only_what_was_appended_before_it(tmp_path):
    log = _open(tmp_path)
    log.append([LogEntry(0, 1, "a"), LogEntry(1, 1, "b")])
    ticket = log.begin_flush()
    assert ticket is not None and ticket.end_offset == 2
    log.append([LogEntry(2, 1, "c")])  # appended while the fsync runs: not covered by it
    fsync_and_close(ticket.fd)
    log.complete_flush(ticket)
    assert log.flushed_offset() == 2
    ticket = log.begin_flush()
    assert ticket is not None
    fsync_and_close(ticket.fd)
    log.complete_flush(ticket)
    assert log.flushed_offset() == 3 and log.begin_flush() is None


def test_a_truncation_during_a_flush_keeps_the_entries_appended_after_it_not_durable(tmp_path):
    log = _open(tmp_path)
    log.append([LogEntry(i, 1, f"e{i}") for i in range(4)])
    ticket = log.begin_flush()
    assert ticket is not None
    log.truncate_to(1)  # a diverging follower's log cut while its fsync runs
    log.append([LogEntry(1, 2, "x"), LogEntry(2, 2, "y")])
    fsync_and_close(ticket.fd)
    log.complete_flush(ticket)
    assert log.flushed_offset() == 1


def test_a_snapshot_during_a_flush_leaves_the_flush_harmless(tmp_path):
    log = _open(tmp_path)
    log.append([LogEntry(i, 1, f"e{i}") for i in range(4)])
    ticket = log.begin_flush()
    assert ticket is not None
    log.install_snapshot(OffsetAndEpoch(10, 3), b"state")  # replaces (and closes) the segment
    log.append([LogEntry(10, 3, "after")])
    fsync_and_close(ticket.fd)  # its own descriptor: still valid
    log.complete_flush(ticket)
    assert log.flushed_offset() == 10


@pytest.mark.parametrize("damage", ["torn", "crc"])
def test_a_torn_or_corrupt_tail_is_cut_at_the_first_bad_frame(tmp_path, damage, caplog):
    log = _open(tmp_path)
    log.append([LogEntry(i, 1, f"entry-{i}") for i in range(3)])
    log.close()
    data = bytearray(log.path.read_bytes())
    if damage == "torn":
        data = data[:-3]
    else:
        data[-2] ^= 0xFF
    log.path.write_bytes(bytes(data))
    reopened = _open(tmp_path)
    assert [e.payload for e in reopened.read(0, 10)] == ["entry-0", "entry-1"]
    assert "Truncating metadata log" in caplog.text
    reopened.append([LogEntry(2, 1, "again")])
    reopened.close()
    assert [e.payload for e in _open(tmp_path).read(0, 10)] == ["entry-0", "entry-1", "again"]


def test_a_batch_cut_short_by_a_torn_tail_is_dropped_whole(tmp_path, caplog):
    log = _open(tmp_path)
    log.append([LogEntry(0, 1, "alone")])
    log.append([LogEntry(o, 1, f"batch-{o}", 4) for o in (1, 2, 3)])
    log.close()
    data = log.path.read_bytes()
    log.path.write_bytes(data[:-3])  # the last frame of the batch is torn
    reopened = _open(tmp_path)
    assert [e.payload for e in reopened.read(0, 10)] == ["alone"]
    assert "the batch from offset 1 is incomplete" not in caplog.text  # the torn frame is the reason given
    reopened.close()
    assert _open(tmp_path).end_offset() == 1


def test_a_new_log_starts_at_zero_without_a_snapshot(tmp_path):
    log = _open(tmp_path)
    log.append([LogEntry(0, 1, "a")])
    assert (log.log_start_offset(), log.latest_snapshot_id()) == (0, None)
    assert log.read_snapshot(OffsetAndEpoch(1, 1)) is None
    assert [p.name for p in tmp_path.iterdir()] == ["00000000000000000000.log"]


@pytest.mark.parametrize("seed", range(8))
def test_random_appends_truncations_and_snapshots_match_the_in_memory_log_across_reopens(tmp_path, seed):
    rng = random.Random(seed)
    file_log, memory = _open(tmp_path), MemoryReplicatedLog()
    epoch = 1
    for _ in range(300):
        roll = rng.random()
        ends = [
            e.batch_end_offset for e in memory.entries() if e.batch_end_offset > memory.log_start_offset()
        ]
        if roll < 0.1 and ends:
            offset = rng.choice(ends)
            snapshot_id = OffsetAndEpoch(offset, memory.read(offset - 1, 1)[0].epoch)
            file_log.create_snapshot(snapshot_id, f"state@{offset}".encode())
            memory.create_snapshot(snapshot_id, f"state@{offset}".encode())
        elif roll < 0.13:
            epoch += 1
            snapshot_id = OffsetAndEpoch(memory.end_offset() + rng.randint(0, 5), epoch)
            file_log.install_snapshot(snapshot_id, b"fetched")
            memory.install_snapshot(snapshot_id, b"fetched")
        elif roll < 0.25 and memory.end_offset() > memory.log_start_offset():
            offset = rng.choice([memory.log_start_offset()] + ends)
            file_log.truncate_to(offset)
            memory.truncate_to(offset)
        else:
            epoch += rng.random() < 0.2
            start = memory.end_offset()
            size = rng.randint(1, 4)
            entries = [LogEntry(start + i, epoch, {"n": start + i}, start + size) for i in range(size)]
            file_log.append(entries)
            memory.append(entries)
        if rng.random() < 0.1:
            file_log.close()
            memory.flush()
            file_log = _open(tmp_path)
        _same_from_start(file_log, memory)
    file_log.close()
    _same_from_start(_open(tmp_path), memory)
    segments = sorted(p.name for p in tmp_path.iterdir())
    assert len([n for n in segments if n.endswith(".log")]) == 1
    assert len([n for n in segments if n.endswith(".checkpoint")]) == (
        memory.latest_snapshot_id() is not None
    )


def _same_from_start(file_log: FileReplicatedLog, memory: MemoryReplicatedLog) -> None:
    start = memory.log_start_offset()
    assert (file_log.log_start_offset(), file_log.end_offset(), file_log.last_epoch()) == (
        start,
        memory.end_offset(),
        memory.last_epoch(),
    )
    assert file_log.read(start, 10_000) == memory.read(start, 10_000)
    snapshot_id = memory.latest_snapshot_id()
    assert file_log.latest_snapshot_id() == snapshot_id
    if snapshot_id is not None:
        assert file_log.read_snapshot(snapshot_id) == memory.read_snapshot(snapshot_id)
    for epoch in range(0, memory.last_epoch() + 2):
        assert file_log.end_offset_for_epoch(epoch) == memory.end_offset_for_epoch(epoch), epoch


def _five_entries(tmp_path) -> FileReplicatedLog:
    log = _open(tmp_path)
    log.append([LogEntry(0, 1, "a", 2), LogEntry(1, 1, "b", 2)])
    log.append([LogEntry(2, 2, "c", 3)])
    log.append([LogEntry(3, 3, "d", 5), LogEntry(4, 3, "e", 5)])
    return log


def test_a_snapshot_replaces_the_segment_with_one_named_after_the_new_log_start(tmp_path):
    log = _five_entries(tmp_path)
    log.create_snapshot(OffsetAndEpoch(3, 2), b"state of a, b, c")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "00000000000000000003-0000000002.checkpoint",
        "00000000000000000003.log",
    ]
    with pytest.raises(ValueError, match="below the log start offset 3"):
        log.read(2, 1)
    log.append([LogEntry(5, 3, "f", 6)])
    log.close()
    reopened = _open(tmp_path)
    assert [e.payload for e in reopened.read(3, 10)] == ["d", "e", "f"]
    assert reopened.read_snapshot(OffsetAndEpoch(3, 2)) == b"state of a, b, c"
    assert reopened.end_offset_for_epoch(2) == OffsetAndEpoch(3, 2)
    with pytest.raises(ValueError, match="the entry before it has epoch 3"):
        reopened.create_snapshot(OffsetAndEpoch(5, 2), b"wrong epoch")


def test_a_crash_between_the_snapshot_and_the_new_segment_opens_to_the_same_log(tmp_path):
    log = _five_entries(tmp_path)
    log.close()
    (tmp_path / "00000000000000000003-0000000002.checkpoint").write_bytes(frame(b"state"))  # then the crash
    reopened = _open(tmp_path)
    assert (reopened.log_start_offset(), [e.payload for e in reopened.read(3, 10)]) == (3, ["d", "e"])
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "00000000000000000003-0000000002.checkpoint",
        "00000000000000000003.log",
    ]


def test_an_installed_snapshot_empties_the_log_and_survives_a_reopen(tmp_path):
    log = _five_entries(tmp_path)
    log.install_snapshot(OffsetAndEpoch(9, 4), b"the leader's state")
    assert (log.log_start_offset(), log.end_offset(), log.last_epoch()) == (9, 9, 4)
    log.append([LogEntry(9, 4, "g", 10)])
    log.close()
    reopened = _open(tmp_path)
    assert [e.payload for e in reopened.read(9, 10)] == ["g"] and reopened.last_epoch() == 4


def test_a_corrupt_snapshot_stops_the_open_and_deletes_nothing(tmp_path):
    log = _five_entries(tmp_path)
    log.create_snapshot(OffsetAndEpoch(3, 2), b"state of a, b, c")
    log.close()
    path = tmp_path / "00000000000000000003-0000000002.checkpoint"
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(CorruptSnapshotError, match="00000000000000000003-0000000002.checkpoint is corrupt"):
        _open(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == before
