"""FileReplicatedLog with ``defer_rewrites``: a snapshot moves the log in memory at once and
leaves its file work to the driver (``take_rewrite``, run elsewhere, ``complete_rewrite``);
appends and truncations meanwhile land where they belong, nothing counts as durable before it
is, and every state the files pass through opens to a consistent log."""

from __future__ import annotations

import json

import pytest

from kafkette.controller.raft.file_replicated_log import FileReplicatedLog
from kafkette.controller.raft.replicated_log import LogEntry, OffsetAndEpoch


def _open(path, defer: bool = True) -> FileReplicatedLog:
    return FileReplicatedLog(
        path, lambda p: json.dumps(p).encode(), lambda b: json.loads(b), defer_rewrites=defer
    )


def _filled(path, n: int = 6) -> FileReplicatedLog:
    log = _open(path)
    log.append([LogEntry(i, 1, f"e{i}") for i in range(n)])
    log.flush()
    return log


def _payloads(log: FileReplicatedLog) -> list:
    return [e.payload for e in log.read(log.log_start_offset(), 1000)]


def test_a_snapshot_moves_the_log_at_once_and_leaves_the_files_to_the_driver(tmp_path):
    log = _filled(tmp_path)
    log.create_snapshot(OffsetAndEpoch(4, 1), b"state-up-to-4")
    assert log.log_start_offset() == 4 and _payloads(log) == ["e4", "e5"]
    assert log.rewrite_pending and log.begin_flush() is None
    assert not list(tmp_path.glob("*.checkpoint")), "the driver writes the snapshot file"
    assert (tmp_path / "00000000000000000000.log").exists()

    rewrite = log.take_rewrite()
    assert rewrite is not None and log.take_rewrite() is None  # one at a time
    log.complete_rewrite(rewrite, rewrite.run())
    assert not log.rewrite_pending
    assert [p.name for p in tmp_path.glob("*.checkpoint")] == ["00000000000000000004-0000000001.checkpoint"]
    assert sorted(p.name for p in tmp_path.glob("*.log")) == ["00000000000000000004.log"]
    log.close()
    again = _open(tmp_path)
    assert again.log_start_offset() == 4 and _payloads(again) == ["e4", "e5"]
    assert again.read_snapshot(OffsetAndEpoch(4, 1)) == b"state-up-to-4"


def test_appends_during_the_rewrite_go_to_the_new_segment_and_become_durable_after_it(tmp_path):
    log = _filled(tmp_path)
    log.create_snapshot(OffsetAndEpoch(3, 1), b"s")
    rewrite = log.take_rewrite()
    log.append([LogEntry(6, 2, "e6"), LogEntry(7, 2, "e7")])  # while the rewrite runs elsewhere
    segment = rewrite.run()
    log.complete_rewrite(rewrite, segment)
    assert log.flushed_offset() == 6, "what the new segment holds fsynced is durable; e6, e7 are not yet"
    ticket = log.begin_flush()
    assert ticket is not None and ticket.end_offset == 8
    log.flush()
    log.close()
    assert _payloads(_open(tmp_path)) == ["e3", "e4", "e5", "e6", "e7"]


@pytest.mark.parametrize("cut", [7, 4])  # into the appended frames, into the kept entries
def test_a_truncation_during_the_rewrite_is_applied_to_the_new_segment(tmp_path, cut):
    log = _filled(tmp_path)
    log.create_snapshot(OffsetAndEpoch(3, 1), b"s")
    rewrite = log.take_rewrite()
    log.append([LogEntry(6, 2, "e6"), LogEntry(7, 2, "e7"), LogEntry(8, 2, "e8")])
    log.truncate_to(cut)
    log.append([LogEntry(cut, 3, "new")])
    log.complete_rewrite(rewrite, rewrite.run())
    assert log.flushed_offset() <= cut
    log.flush()
    expected = [f"e{i}" for i in range(3, cut)] + ["new"]
    assert _payloads(log) == expected
    log.close()
    assert _payloads(_open(tmp_path)) == expected


def test_a_snapshot_planned_while_another_is_written_follows_it(tmp_path):
    log = _filled(tmp_path, 10)
    log.create_snapshot(OffsetAndEpoch(3, 1), b"first")
    first = log.take_rewrite()
    log.append([LogEntry(10, 1, "e10")])
    log.create_snapshot(OffsetAndEpoch(8, 1), b"second")
    log.append([LogEntry(11, 1, "e11")])
    log.complete_rewrite(first, first.run())
    second = log.take_rewrite()
    assert second is not None and second.old_segment == first.segment_path
    log.complete_rewrite(second, second.run())
    log.close()
    again = _open(tmp_path)
    assert again.log_start_offset() == 8 and _payloads(again) == ["e8", "e9", "e10", "e11"]
    assert [p.name for p in tmp_path.glob("*.checkpoint")] == ["00000000000000000008-0000000001.checkpoint"]


def test_a_crash_before_the_rewrite_ran_reopens_the_log_as_it_was(tmp_path):
    log = _filled(tmp_path)
    log.create_snapshot(OffsetAndEpoch(4, 1), b"s")
    log._file.close()  # killed: the planned file work never ran
    again = _open(tmp_path)
    assert again.log_start_offset() == 0 and _payloads(again) == [f"e{i}" for i in range(6)]


def test_close_runs_a_rewrite_no_driver_took(tmp_path):
    log = _filled(tmp_path)
    log.create_snapshot(OffsetAndEpoch(5, 1), b"s")
    log.close()
    assert _open(tmp_path).log_start_offset() == 5


def test_a_synchronous_flush_refuses_while_a_driver_runs_the_rewrite(tmp_path):
    log = _filled(tmp_path)
    log.create_snapshot(OffsetAndEpoch(5, 1), b"s")
    rewrite = log.take_rewrite()
    with pytest.raises(RuntimeError, match="running elsewhere"):
        log.flush()
    log.complete_rewrite(rewrite, rewrite.run())
    log.close()
