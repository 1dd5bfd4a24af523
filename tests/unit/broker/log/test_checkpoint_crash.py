"""Checkpoints survive a crash at any moment of their atomic write.

A crash is simulated by an exception raised from one step of
``write_file_atomically`` (creating the temp file, half of its write, its fsync, the
rename, the directory fsync), leaving the files exactly as a process killed there
would.  For every checkpoint kind (recovery point, log start offset, high watermark,
leader epoch) the reader then sees the old contents or the new ones, never a mix, and
the next write succeeds over the leftover temp file.
"""

from __future__ import annotations

import os

import pytest

from kafkette.broker.config import KafkaConfig
from kafkette.broker.log.checkpoint import OffsetCheckpointFile
from kafkette.broker.log.leader_epoch_cache import EpochEntry, LeaderEpochCheckpointFile
from kafkette.broker.log.log_manager import (
    HIGH_WATERMARK_CHECKPOINT_FILE,
    LOG_START_OFFSET_CHECKPOINT_FILE,
    RECOVERY_POINT_CHECKPOINT_FILE,
    LogManager,
)
from kafkette.protocol.topic_partition import TopicPartition

T0, T1 = TopicPartition("flights", 0), TopicPartition("flights", 1)


class Crash(BaseException):
    """The process dies here (BaseException: no cleanup handler catches it)."""


def _offsets(name):
    return (
        lambda d: OffsetCheckpointFile(d / name),
        {T0: 10, T1: 20},
        {T0: 1000, T1: 2000, TopicPartition("hotels", 0): 5},
    )


KINDS = {
    "recovery point": _offsets(RECOVERY_POINT_CHECKPOINT_FILE),
    "log start offset": _offsets(LOG_START_OFFSET_CHECKPOINT_FILE),
    "high watermark": _offsets(HIGH_WATERMARK_CHECKPOINT_FILE),
    "leader epoch": (
        lambda d: LeaderEpochCheckpointFile(d / "leader-epoch-checkpoint"),
        [EpochEntry(0, 0), EpochEntry(2, 40)],
        [EpochEntry(0, 0), EpochEntry(2, 40), EpochEntry(5, 9000), EpochEntry(6, 12000)],
    ),
}


def _crash_at(monkeypatch, step):
    """Make ``step`` of the next atomic write raise Crash, leaving the disk as it is then."""
    real_open, real_write, real_fsync, real_replace = os.open, os.write, os.fsync, os.replace
    fsyncs = []

    def crashing_open(path, flags, *args):
        if step == "create temp file" and str(path).endswith(".tmp"):
            raise Crash
        return real_open(path, flags, *args)

    def crashing_write(fd, data):
        if step == "half written":
            real_write(fd, bytes(data[: len(data) // 2]))
            raise Crash
        return real_write(fd, data)

    def crashing_fsync(fd):
        fsyncs.append(fd)
        if (step == "fsync temp file" and len(fsyncs) == 1) or (
            step == "fsync directory" and len(fsyncs) == 2
        ):
            raise Crash
        return real_fsync(fd)

    def crashing_replace(src, dst):
        if step == "rename":
            raise Crash
        return real_replace(src, dst)

    monkeypatch.setattr(os, "open", crashing_open)
    monkeypatch.setattr(os, "write", crashing_write)
    monkeypatch.setattr(os, "fsync", crashing_fsync)
    monkeypatch.setattr(os, "replace", crashing_replace)


STEPS = ["create temp file", "half written", "fsync temp file", "rename", "fsync directory"]


@pytest.mark.parametrize("step", STEPS)
@pytest.mark.parametrize("kind", list(KINDS))
def test_crash_during_a_checkpoint_write_leaves_the_old_or_the_new_contents(
    tmp_path, monkeypatch, kind, step
):
    make, old, new = KINDS[kind]
    make(tmp_path).write(old)
    _crash_at(monkeypatch, step)
    with pytest.raises(Crash):
        make(tmp_path).write(new)
    monkeypatch.undo()
    expected = new if step == "fsync directory" else old  # renamed already: a process crash keeps it
    assert make(tmp_path).read() == expected
    make(tmp_path).write(new)  # the next write replaces any leftover temp file
    assert make(tmp_path).read() == new
    assert not (tmp_path / (make(tmp_path).path.name + ".tmp")).exists()


@pytest.mark.parametrize("kind", list(KINDS))
def test_crash_during_the_first_write_leaves_no_checkpoint(tmp_path, monkeypatch, kind):
    make, _, new = KINDS[kind]
    _crash_at(monkeypatch, "half written")
    with pytest.raises(Crash):
        make(tmp_path).write(new)
    monkeypatch.undo()
    assert make(tmp_path).read() in ({}, None)  # missing: recovery starts from scratch


@pytest.mark.parametrize("tmp_contents", ["whole", "truncated"])
async def test_log_manager_starts_from_the_old_checkpoints_when_temp_files_were_left_behind(
    tmp_path, tmp_contents
):
    config = KafkaConfig({"node.id": "1", "log.dirs": str(tmp_path)})
    OffsetCheckpointFile(tmp_path / RECOVERY_POINT_CHECKPOINT_FILE).write({T0: 0})
    OffsetCheckpointFile(tmp_path / HIGH_WATERMARK_CHECKPOINT_FILE).write({T0: 7})
    newer = b"0\n1\nflights 0 99\n"
    for name in (RECOVERY_POINT_CHECKPOINT_FILE, HIGH_WATERMARK_CHECKPOINT_FILE):
        (tmp_path / (name + ".tmp")).write_bytes(newer if tmp_contents == "whole" else newer[:9])
    manager = LogManager(config)
    assert manager.read_high_watermarks() == {T0: 7}
    await manager.start()
    await manager.stop()
    assert OffsetCheckpointFile(tmp_path / RECOVERY_POINT_CHECKPOINT_FILE).read() == {}
    assert not (tmp_path / (RECOVERY_POINT_CHECKPOINT_FILE + ".tmp")).exists()
