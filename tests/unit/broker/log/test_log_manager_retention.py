"""LogManager retention checks and delayed deletion of segment files, with manual clocks."""

from __future__ import annotations

from kafkette.broker.config import KafkaConfig
from kafkette.broker.log.checkpoint import OffsetCheckpointFile
from kafkette.broker.log.log_config import LogConfig
from kafkette.broker.log.log_manager import LogManager
from kafkette.common.clock import MockTime
from kafkette.common.kafka_scheduler import KafkaScheduler
from kafkette.protocol.topic_partition import TopicPartition
from tests.clock_helpers import advance

T0 = TopicPartition("flights", 0)
T1 = TopicPartition("planes", 0)


def _config(log_dir, **props):
    return KafkaConfig({"node.id": 1, "log.dirs": str(log_dir), **props})


def _fill(log, make_batch, segments, timestamp_ms=1_000):
    for _ in range(segments):
        log.append_as_leader(bytearray(make_batch(5, timestamp_ms=timestamp_ms)), 1)
        log.roll("test")
    log.update_high_watermark(log.log_end_offset)


async def test_retention_check_runs_every_interval_and_deletes_files_after_the_delay(tmp_path, make_batch):
    config = _config(
        tmp_path,
        **{
            "log.retention.check.interval.ms": "1000",
            "log.retention.ms": "60000",
            "log.segment.delete.delay.ms": "5000",
        },
    )
    time = MockTime(wall_ms=1_000)
    manager = LogManager(config, scheduler=KafkaScheduler(time))
    await manager.start()
    try:
        log = manager.get_or_create_log(T0, LogConfig.from_broker(config))
        _fill(log, make_batch, segments=2)  # records stamped 1,000
        await advance(time, 500)
        assert log.log_start_offset == 0  # no check yet, and the records are young
        await advance(time, 60_000)  # one check, with the records now older than 60 s
        assert log.log_start_offset == 10 and [s.base_offset for s in log.segments] == [10]
        deleted = sorted(p.name for p in log.dir.iterdir() if p.name.endswith(".deleted"))
        assert deleted == [
            f"{base:020d}.{kind}.deleted" for base in (0, 5) for kind in ("index", "log", "timeindex")
        ]
        for _ in range(4):  # kafka-delete-logs looks every second: not due for 5 s
            await advance(time, 1_000)
        assert len(manager.pending_file_deletions) == 6
        await advance(time, 1_000)
        assert manager.pending_file_deletions == []
        assert not any(p.name.endswith(".deleted") for p in log.dir.iterdir())
        await advance(time, 60_000)  # kafka-recovery-point-checkpoint (every 60 s)
        assert OffsetCheckpointFile(tmp_path / "log-start-offset-checkpoint").read() == {T0: 10}
    finally:
        await manager.stop()


async def test_cleanup_logs_applies_each_topics_own_retention(tmp_path, make_batch):
    config = _config(tmp_path)
    time = MockTime(wall_ms=10**9)
    manager = LogManager(config, scheduler=KafkaScheduler(time))
    await manager.start()
    try:
        kept = manager.get_or_create_log(T0, LogConfig.from_broker(config))  # broker default: 7 days
        trimmed = manager.get_or_create_log(
            T1, LogConfig.from_broker(config, {"retention.ms": "1000", "file.delete.delay.ms": "0"})
        )
        _fill(kept, make_batch, segments=2, timestamp_ms=time.milliseconds() - 10_000)
        _fill(trimmed, make_batch, segments=2, timestamp_ms=time.milliseconds() - 10_000)
        assert await manager.cleanup_logs() == 6  # .log, .index, .timeindex of 2 segments
        assert (kept.log_start_offset, trimmed.log_start_offset) == (0, 10)
        await manager.delete_due_files()  # due at once (the background scheduler may have been first)
        assert manager.pending_file_deletions == []
        assert not any(p.name.endswith(".deleted") for p in trimmed.dir.iterdir())
        assert len(list(kept.dir.glob("*.log"))) == 3
    finally:
        await manager.stop()


async def test_leftover_deleted_files_are_removed_at_the_next_start(tmp_path, make_batch):
    config = _config(tmp_path, **{"log.retention.bytes": "0"})
    manager = LogManager(config)
    await manager.start()
    log = manager.get_or_create_log(T0, LogConfig.from_broker(config))
    _fill(log, make_batch, segments=2)
    await manager.cleanup_logs()
    assert len(manager.pending_file_deletions) == 6
    await manager.stop()
    again = LogManager(config)
    await again.start()
    try:
        reopened = again.get_log(T0)
        assert reopened.log_start_offset == 10
        assert not any(p.name.endswith(".deleted") for p in reopened.dir.iterdir())
    finally:
        await again.stop()


def test_broker_retention_falls_back_from_ms_to_minutes_to_hours(tmp_path):
    assert _config(tmp_path).retention_ms == 168 * 3600 * 1000
    assert _config(tmp_path, **{"log.retention.minutes": "5"}).retention_ms == 300_000
    assert _config(tmp_path, **{"log.retention.minutes": "5", "log.retention.ms": "7"}).retention_ms == 7
    config = _config(tmp_path, **{"log.segment.delete.delay.ms": "10"})
    assert LogConfig.from_broker(config).file_delete_delay_ms == 10
    assert LogConfig.from_broker(_config(tmp_path)).file_delete_delay_ms == 60000
