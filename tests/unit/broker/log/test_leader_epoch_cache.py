"""LeaderEpochFileCache rules, its checkpoint file, and the UnifiedLog's epoch hooks."""

from __future__ import annotations

import pytest

from kafkette.broker.log.checkpoint import CorruptCheckpointError
from kafkette.broker.log.leader_epoch_cache import (
    EpochEntry,
    LeaderEpochCheckpointFile,
    LeaderEpochFileCache,
)
from kafkette.broker.log.log_config import LogConfig
from kafkette.broker.log.unified_log import UnifiedLog
from kafkette.protocol.topic_partition import TopicPartition

TP = TopicPartition("flights", 0)


def _cache(*pairs):
    return LeaderEpochFileCache(EpochEntry(e, s) for e, s in pairs)


def _pairs(cache):
    return [(e.epoch, e.start_offset) for e in cache.entries]


def test_assign_appends_only_when_the_epoch_grows():
    cache = _cache()
    assert cache.assign(1, 0)
    assert not cache.assign(1, 10)  # same epoch, later offset: nothing new
    assert cache.assign(3, 10)
    assert not cache.assign(2, 12)  # an older epoch's batch inside epoch 3
    assert _pairs(cache) == [(1, 0), (3, 10)]
    assert cache.latest_epoch == 3


def test_assign_removes_conflicting_entries_of_a_diverged_log():
    cache = _cache((1, 0), (3, 10), (4, 20))
    assert cache.assign(5, 15)
    assert _pairs(cache) == [(1, 0), (3, 10), (5, 15)]


def test_truncate_from_end_drops_entries_at_or_after_the_new_end():
    cache = _cache((1, 0), (3, 10), (4, 20))
    cache.truncate_from_end(20)
    assert _pairs(cache) == [(1, 0), (3, 10)]
    cache.truncate_from_end(25)
    assert _pairs(cache) == [(1, 0), (3, 10)]


def test_truncate_from_start_keeps_the_covering_entry_moved_to_the_start():
    cache = _cache((1, 0), (3, 10), (4, 20))
    cache.truncate_from_start(15)
    assert _pairs(cache) == [(3, 15), (4, 20)]
    cache.truncate_from_start(20)
    assert _pairs(cache) == [(4, 20)]


def test_epoch_for_offset_and_end_offset_for_follow_kafka():
    cache = _cache((1, 5), (3, 10), (4, 20))
    assert [cache.epoch_for_offset(o) for o in (0, 5, 9, 10, 19, 20, 99)] == [-1, 1, 1, 3, 3, 4, 4]
    assert cache.end_offset_for(4, 30) == (4, 30)  # latest epoch: the log end offset
    assert cache.end_offset_for(3, 30) == (3, 20)
    assert cache.end_offset_for(2, 30) == (1, 10)  # unknown epoch: the largest below it
    assert cache.end_offset_for(0, 30) == (0, 5)  # older than every entry
    assert cache.end_offset_for(5, 30) == (-1, -1)
    assert cache.end_offset_for(-1, 30) == (-1, -1)
    assert _cache().end_offset_for(1, 30) == (-1, -1)


def test_checkpoint_file_round_trips_kafka_format(tmp_path):
    path = tmp_path / "leader-epoch-checkpoint"
    LeaderEpochCheckpointFile(path).write([EpochEntry(0, 0), EpochEntry(3, 1200)])
    assert path.read_text() == "0\n2\n0 0\n3 1200\n"
    assert LeaderEpochCheckpointFile(path).read() == [EpochEntry(0, 0), EpochEntry(3, 1200)]
    assert LeaderEpochCheckpointFile(tmp_path / "missing").read() is None


@pytest.mark.parametrize(
    "text", ["", "1\n0\n", "0\n2\n0 0\n", "0\n1\nx 0\n", "0\n2\n3 0\n1 5\n", "0\n1\n1 2 3\n"]
)
def test_malformed_checkpoint_raises(tmp_path, text):
    path = tmp_path / "leader-epoch-checkpoint"
    path.write_text(text)
    with pytest.raises(CorruptCheckpointError, match="leader-epoch-checkpoint"):
        LeaderEpochCheckpointFile(path).read()


def _open(tmp_path, *, clean=True, recovery_point=0, log_start_offset=0, config=None):
    return UnifiedLog.open(
        tmp_path / "flights-0",
        TP,
        config or LogConfig(),
        recovery_point=recovery_point,
        log_start_offset=log_start_offset,
        had_clean_shutdown=clean,
    )


def _checkpoint(tmp_path):
    return [
        (e.epoch, e.start_offset)
        for e in LeaderEpochCheckpointFile(tmp_path / "flights-0" / "leader-epoch-checkpoint").read()
    ]


def test_leader_appends_assign_epochs_and_shutdown_writes_the_checkpoint(tmp_path, make_batch):
    log = _open(tmp_path)
    log.append_as_leader(bytearray(make_batch(5)), 2)
    log.append_as_leader(bytearray(make_batch(5)), 2)
    log.append_as_leader(bytearray(make_batch(5)), 7)
    assert _pairs(log.leader_epoch_cache) == [(2, 0), (7, 10)]
    assert log.leader_epoch_checkpoint_dirty
    log.flush_sync()
    log.close()
    assert _checkpoint(tmp_path) == [(2, 0), (7, 10)]
    assert _pairs(_open(tmp_path).leader_epoch_cache) == [(2, 0), (7, 10)]


async def test_flush_writes_the_epoch_checkpoint_before_moving_the_recovery_point(tmp_path, make_batch):
    log = _open(tmp_path)
    log.append_as_leader(bytearray(make_batch(5)), 2)
    await log.flush()
    assert log.recovery_point == 5 and _checkpoint(tmp_path) == [(2, 0)]
    log.close()


def test_follower_learns_epochs_from_batch_headers(tmp_path, make_batch):
    log = _open(tmp_path)
    log.append_as_follower(
        make_batch(3, base_offset=0, leader_epoch=1)
        + make_batch(2, base_offset=3, leader_epoch=1)
        + make_batch(2, base_offset=5, leader_epoch=4)
    )
    log.append_as_follower(make_batch(1, base_offset=7, leader_epoch=6))
    assert _pairs(log.leader_epoch_cache) == [(1, 0), (4, 5), (6, 7)]


def test_truncation_and_full_truncation_update_the_cache(tmp_path, make_batch):
    log = _open(tmp_path)
    for epoch in (1, 2, 3):
        log.append_as_leader(bytearray(make_batch(5)), epoch)
    log.truncate_to(10)
    assert _pairs(log.leader_epoch_cache) == [(1, 0), (2, 5)]
    log.truncate_fully_and_start_at(50)
    assert _pairs(log.leader_epoch_cache) == []


def test_missing_or_corrupt_checkpoint_is_rebuilt_from_batch_headers(tmp_path, make_batch):
    config = LogConfig(segment_bytes=len(make_batch(5)) * 2)
    log = _open(tmp_path, config=config)
    for epoch in (1, 1, 2, 5, 5):
        log.append_as_leader(bytearray(make_batch(5)), epoch)
    log.flush_sync()
    log.close()
    path = tmp_path / "flights-0" / "leader-epoch-checkpoint"
    path.unlink()
    assert _pairs(_open(tmp_path, config=config).leader_epoch_cache) == [(1, 0), (2, 10), (5, 15)]
    assert _checkpoint(tmp_path) == [(1, 0), (2, 10), (5, 15)]
    path.write_text("garbage")
    reopened = _open(tmp_path, config=config, log_start_offset=12)
    assert _pairs(reopened.leader_epoch_cache) == [(2, 12), (5, 15)]


def test_unclean_start_relearns_epochs_past_the_recovery_point_and_drops_entries_past_the_end(
    tmp_path, make_batch
):
    log = _open(tmp_path)
    log.append_as_leader(bytearray(make_batch(5)), 1)
    log.flush_sync()  # checkpoint [(1, 0)], recovery point 5
    log.append_as_leader(bytearray(make_batch(5)), 3)  # crash before the epoch 3 checkpoint
    log.close()
    reopened = _open(tmp_path, clean=False, recovery_point=5)
    assert _pairs(reopened.leader_epoch_cache) == [(1, 0), (3, 5)]
    assert _checkpoint(tmp_path) == [(1, 0), (3, 5)]
    LeaderEpochCheckpointFile(tmp_path / "flights-0" / "leader-epoch-checkpoint").write(
        [EpochEntry(1, 0), EpochEntry(3, 5), EpochEntry(9, 40)]
    )  # an entry the log no longer has
    assert _pairs(_open(tmp_path, clean=True).leader_epoch_cache) == [(1, 0), (3, 5)]


def test_a_new_empty_log_writes_no_epoch_checkpoint_on_open(tmp_path):
    log = _open(tmp_path)
    assert not (tmp_path / "flights-0" / "leader-epoch-checkpoint").exists()
    assert not log.leader_epoch_checkpoint_dirty
