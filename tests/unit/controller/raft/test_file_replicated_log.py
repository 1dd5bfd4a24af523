"""FileReplicatedLog on real files: it answers as the in-memory log does, keeps what was appended
across a reopen, and cuts a torn or corrupt tail."""

from __future__ import annotations

import json
import random

import pytest

from kafkette.controller.raft.file_replicated_log import FileReplicatedLog
from kafkette.controller.raft.replicated_log import LogEntry, MemoryReplicatedLog


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
            offset = rng.randrange(memory.end_offset())
            file_log.truncate_to(offset)
            memory.truncate_to(offset)
        else:
            epoch += rng.random() < 0.2
            start = memory.end_offset()
            entries = [LogEntry(start + i, epoch, {"n": start + i}) for i in range(rng.randint(1, 4))]
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
