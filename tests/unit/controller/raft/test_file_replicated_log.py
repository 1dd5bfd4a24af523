"""FileReplicatedLog on real files: it answers as the in-memory log does, keeps what was appended
across a reopen, cuts a torn or corrupt tail (and a batch the tail tore), and refuses snapshots."""

from __future__ import annotations

import json
import random

import pytest

from kafkette.controller.raft.file_replicated_log import FileReplicatedLog
from kafkette.controller.raft.replicated_log import LogEntry, MemoryReplicatedLog, OffsetAndEpoch


def _open(path) -> FileReplicatedLog:
    return FileReplicatedLog(path, lambda p: json.dumps(p).encode(), lambda b: json.loads(b))


def _same(file_log: FileReplicatedLog, memory: MemoryReplicatedLog) -> None:
    assert (file_log.end_offset(), file_log.last_epoch()) == (memory.end_offset(), memory.last_epoch())
    assert file_log.read(0, 10_000) == memory.read(0, 10_000)
    for epoch in range(0, memory.last_epoch() + 2):
        assert file_log.end_offset_for_epoch(epoch) == memory.end_offset_for_epoch(epoch), epoch


@pytest.mark.parametrize("seed", range(5))
def test_random_appends_and_truncations_match_the_in_memory_log_and_survive_a_reopen(tmp_path, seed):
    rng = random.Random(seed)
    file_log, memory = _open(tmp_path), MemoryReplicatedLog()
    epoch = 1
    for _ in range(200):
        if rng.random() < 0.15 and memory.end_offset():
            offset = rng.choice([0] + [e.batch_end_offset for e in memory.entries()])
            file_log.truncate_to(offset)
            memory.truncate_to(offset)
        else:
            epoch += rng.random() < 0.2
            start = memory.end_offset()
            size = rng.randint(1, 4)
            entries = [LogEntry(start + i, epoch, {"n": start + i}, start + size) for i in range(size)]
            file_log.append(entries)
            memory.append(entries)
        if rng.random() < 0.3:
            file_log.flush()
        _same(file_log, memory)
    file_log.close()
    _same(_open(tmp_path), memory)


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


def test_snapshots_are_refused_and_the_log_starts_at_zero(tmp_path):
    log = _open(tmp_path)
    log.append([LogEntry(0, 1, "a")])
    assert (log.log_start_offset(), log.latest_snapshot_id()) == (0, None)
    assert log.read_snapshot(OffsetAndEpoch(1, 1)) is None
    with pytest.raises(NotImplementedError, match="keeps no snapshots"):
        log.create_snapshot(OffsetAndEpoch(1, 1), b"state")
