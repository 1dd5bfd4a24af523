from __future__ import annotations

import pytest

from kafkette.broker.config import ConfigError, KafkaConfig
from kafkette.broker.log.checkpoint import OffsetCheckpointFile
from kafkette.broker.log.leader_epoch_cache import EpochEntry, LeaderEpochCheckpointFile
from kafkette.broker.log.log_config import LogConfig
from kafkette.broker.log.log_manager import CLEAN_SHUTDOWN_FILE, LogManager
from kafkette.common.clock import MockTime
from kafkette.common.kafka_scheduler import KafkaScheduler
from kafkette.protocol.record_batch import iter_batches
from kafkette.protocol.topic_partition import TopicPartition
from tests.clock_helpers import advance

T0 = TopicPartition("flights", 0)
T1 = TopicPartition("flights", 1)
T2 = TopicPartition("planes", 0)


def _config(*dirs, node_id=1, **props):
    return KafkaConfig(
        {
            "node.id": node_id,
            "log.dirs": ",".join(str(d) for d in dirs),
            "log.flush.offset.checkpoint.interval.ms": "1000",
            **props,
        }
    )


def _append(log, make_batch, batches=1):
    for _ in range(batches):
        log.append_as_leader(bytearray(make_batch(5)), 1)


async def _write_and_stop(config, make_batch, batches):
    """Start a LogManager on ``config``, append ``batches`` batches of 5 records to T0, stop it cleanly."""
    async with LogManager(config) as manager:
        _append(manager.get_or_create_log(T0, LogConfig.from_broker(config)), make_batch, batches=batches)


async def test_start_stop_round_trip_with_clean_shutdown_marker_and_high_watermarks(tmp_path, make_batch):
    config = _config(tmp_path / "d1")
    async with LogManager(config) as manager:
        assert (tmp_path / "d1" / "meta.properties").exists()
        log = manager.get_or_create_log(T0, LogConfig.from_broker(config))
        _append(log, make_batch, batches=3)
        await manager.write_high_watermarks({T0: 10, T2: 99})
    assert (tmp_path / "d1" / CLEAN_SHUTDOWN_FILE).exists()
    assert OffsetCheckpointFile(tmp_path / "d1" / "recovery-point-offset-checkpoint").read() == {T0: 15}
    assert OffsetCheckpointFile(tmp_path / "d1" / "log-start-offset-checkpoint").read() == {T0: 0}

    async with LogManager(config) as again:
        assert not (tmp_path / "d1" / CLEAN_SHUTDOWN_FILE).exists()
        assert set(again.all_logs()) == {T0}
        reopened = again.get_log(T0)
        assert reopened.log_end_offset == 15 and reopened.recovery_point == 15
        assert again.read_high_watermarks() == {T0: 10}


async def test_clean_shutdown_marker_makes_start_up_skip_the_recovery_scan(tmp_path, make_batch, flip_byte):
    config = _config(tmp_path / "d1")
    await _write_and_stop(config, make_batch, batches=3)
    segment = tmp_path / "d1" / "flights-0" / "00000000000000000000.log"
    data = flip_byte(
        segment, -2, 0x10
    )  # a CRC failure the scan would truncate; with the marker nothing scans it

    async with LogManager(config) as again:
        reopened = again.get_log(T0)
        assert reopened.log_end_offset == 15 and not reopened.is_offline
        assert segment.stat().st_size == len(data)


async def test_unclean_restart_recovers_from_the_recovery_point_checkpoint(tmp_path, make_batch, flip_byte):
    config = _config(tmp_path / "d1")
    await _write_and_stop(config, make_batch, batches=3)
    (tmp_path / "d1" / CLEAN_SHUTDOWN_FILE).unlink()
    OffsetCheckpointFile(tmp_path / "d1" / "recovery-point-offset-checkpoint").write({T0: 0})
    flip_byte(tmp_path / "d1" / "flights-0" / "00000000000000000000.log", -2, 0x10)

    async with LogManager(config) as again:
        assert again.get_log(T0).log_end_offset == 10


async def test_node_id_mismatch_in_meta_properties_raises_config_error(tmp_path):
    async with LogManager(_config(tmp_path / "d1", node_id=1)):
        pass
    with pytest.raises(ConfigError, match="node.id"):
        await LogManager(_config(tmp_path / "d1", node_id=2)).start()


async def test_a_log_dir_that_is_a_file_is_named_as_such(tmp_path):
    (tmp_path / "d1").write_text("not a directory")
    with pytest.raises(OSError) as raised:
        await LogManager(_config(tmp_path / "d1")).start()
    assert str(raised.value) == f"log.dirs entry {tmp_path / 'd1'} is a file, not a directory"
    with pytest.raises(OSError, match=r"^log.dirs entry .*/d1/sub cannot be created: not a directory$"):
        await LogManager(_config(tmp_path / "d1" / "sub")).start()


async def test_new_logs_go_to_the_log_dir_with_fewest_partitions(tmp_path):
    config = _config(tmp_path / "d1", tmp_path / "d2")
    async with LogManager(config) as manager:
        log_config = LogConfig.from_broker(config)
        dirs = [manager.get_or_create_log(tp, log_config).dir.parent.name for tp in (T0, T1, T2)]
        assert dirs == ["d1", "d2", "d1"]
        assert manager.get_or_create_log(T0, log_config).dir.parent.name == "d1"


async def test_high_watermark_checkpoint_holds_only_the_logs_of_its_dir(tmp_path):
    config = _config(tmp_path / "d1", tmp_path / "d2")
    async with LogManager(config) as manager:
        for tp in (T0, T1):
            manager.get_or_create_log(tp, LogConfig.from_broker(config))
        await manager.write_high_watermarks({T0: 3, T1: 4})
        assert OffsetCheckpointFile(tmp_path / "d1" / "replication-offset-checkpoint").read() == {T0: 3}
        assert OffsetCheckpointFile(tmp_path / "d2" / "replication-offset-checkpoint").read() == {T1: 4}
        assert manager.read_high_watermarks() == {T0: 3, T1: 4}


async def test_existing_log_gets_the_new_config(tmp_path):
    config = _config(tmp_path / "d1")
    async with LogManager(config) as manager:
        log = manager.get_or_create_log(T0, LogConfig.from_broker(config))
        updated = LogConfig.from_broker(config, {"segment.bytes": "4096"})
        assert manager.get_or_create_log(T0, updated) is log
        assert log.config.segment_bytes == 4096


async def test_scheduled_jobs_flush_after_flush_ms_and_checkpoint_after_the_interval(tmp_path, make_batch):
    config = _config(tmp_path / "d1", **{"log.flush.offset.checkpoint.interval.ms": "1000"})
    time = MockTime()
    async with LogManager(config, scheduler=KafkaScheduler(time)) as manager:
        log = manager.get_or_create_log(T0, LogConfig.from_broker(config, {"flush.ms": "100"}))
        _append(log, make_batch, batches=2)
        await advance(time, 50)
        assert log.recovery_point == 0
        for _ in range(
            10
        ):  # kafka-log-flusher looks every second until it meets flush.ms 100, then every 100 ms
            await advance(time, 100)
        assert log.recovery_point == 10
        await advance(time, 1_000)  # the next kafka-recovery-point-checkpoint writes it
        assert OffsetCheckpointFile(tmp_path / "d1" / "recovery-point-offset-checkpoint").read() == {T0: 10}


async def test_an_append_reaching_flush_messages_starts_the_logs_own_flush(tmp_path, make_batch):
    config = _config(tmp_path / "d1")
    async with LogManager(config) as manager:
        log = manager.get_or_create_log(T0, LogConfig.from_broker(config, {"flush.messages": "8"}))
        _append(log, make_batch)  # the first epoch: only its leader epoch checkpoint is written
        await log.pending_flush
        assert log.recovery_point == 0 and not log.leader_epoch_checkpoint_dirty
        assert log.pending_flush is None
        _append(log, make_batch)  # 10 unflushed offsets >= flush.messages 8
        task = log.pending_flush
        assert task is not None
        _append(log, make_batch, batches=1)  # one flush at a time
        assert log.pending_flush is task
        await task
        assert log.recovery_point == 10 and log.log_end_offset == 15


async def test_new_leader_epoch_gets_its_checkpoint_written_in_the_background(tmp_path, make_batch):
    config = _config(tmp_path / "d1")
    async with LogManager(config) as manager:
        log = manager.get_or_create_log(T0, LogConfig.from_broker(config))
        _append(log, make_batch)
        await log.pending_flush
        log.append_as_leader(bytearray(make_batch(5)), 4)
        assert log.pending_flush is not None
        await log.pending_flush
        assert LeaderEpochCheckpointFile(log.dir / "leader-epoch-checkpoint").read() == [
            EpochEntry(1, 0),
            EpochEntry(4, 5),
        ]
        assert log.recovery_point == 0  # flush.messages not reached: no data fsync


async def test_offline_log_dir_gets_no_clean_shutdown_marker(tmp_path, make_batch):
    config = _config(tmp_path / "d1")
    async with LogManager(config) as manager:
        log = manager.get_or_create_log(T0, LogConfig.from_broker(config))
        _append(log, make_batch)
        log.mark_offline("test corruption")
    assert not (tmp_path / "d1" / ".kafka_cleanshutdown").exists()
    assert OffsetCheckpointFile(tmp_path / "d1" / "recovery-point-offset-checkpoint").read() == {T0: 0}


async def test_async_delete_renames_the_log_dir_and_removes_it_after_the_delete_delay(tmp_path, make_batch):
    clock = MockTime()
    config = _config(tmp_path / "d1", **{"log.segment.delete.delay.ms": "5000"})
    async with LogManager(config, scheduler=KafkaScheduler(clock)) as manager:
        _append(manager.get_or_create_log(T0, LogConfig.from_broker(config)), make_batch)
        manager.assign_topic_id(T0, "old-topic-id")
        manager.get_or_create_log(T1, LogConfig.from_broker(config))
        renamed = await manager.async_delete(T0)
        assert manager.get_log(T0) is None and manager.topic_id(T0) is None
        assert not (tmp_path / "d1" / "flights-0").exists()
        assert renamed.parent == tmp_path / "d1" and renamed.name.startswith("flights-0.")
        assert renamed.name.endswith("-delete") and renamed.is_dir()
        fresh = manager.get_or_create_log(T0, LogConfig.from_broker(config))  # the name is free at once
        assert fresh.log_end_offset == 0
        await advance(clock, 4000)
        await manager.delete_due_files()
        assert renamed.exists()
        await advance(clock, 1001)
        await manager.delete_due_files()
        assert not renamed.exists()
    assert OffsetCheckpointFile(tmp_path / "d1" / "recovery-point-offset-checkpoint").read() == {T0: 0, T1: 0}


async def test_a_delete_dir_left_by_a_restart_is_removed_after_the_delay_and_never_loaded(
    tmp_path, make_batch
):
    config = _config(tmp_path / "d1", **{"log.segment.delete.delay.ms": "0"})
    async with LogManager(config) as manager:
        _append(manager.get_or_create_log(T0, LogConfig.from_broker(config)), make_batch)
    leftover = tmp_path / "d1" / "flights-0.0123456789abcdef-delete"
    (tmp_path / "d1" / "flights-0").rename(leftover)
    async with LogManager(config) as again:
        assert again.all_logs() == {}
        assert again.pending_file_deletions == [leftover]
        await again.delete_due_files()
        assert not leftover.exists()


async def test_stray_replicas_are_logs_of_unknown_topics_or_of_another_topic_id(tmp_path):
    config = _config(tmp_path / "d1")
    async with LogManager(config) as manager:
        for tp in (T0, T1, T2):
            manager.get_or_create_log(tp, LogConfig.from_broker(config))
        manager.assign_topic_id(T0, "id-of-flights")
        manager.assign_topic_id(T1, "id-of-old-flights")
        everywhere = {T0, T1, T2}
        assert manager.find_stray_replicas(
            {"flights": "id-of-flights", "planes": "id-of-planes"}, everywhere
        ) == [T1]
        assert manager.find_stray_replicas({"flights": "id-of-flights"}, everywhere) == [T1, T2]
        assert manager.find_stray_replicas({"flights": "", "planes": ""}, {T0, T1}) == [
            T2
        ]  # not assigned here
    async with LogManager(config) as again:  # partition.metadata keeps the ids across restarts
        assert again.topic_id(T0) == "id-of-flights" and again.topic_id(T2) is None
        assert (tmp_path / "d1" / "flights-0" / "partition.metadata").read_text() == (
            "version: 0\ntopic_id: id-of-flights\n"
        )


async def test_corrupt_recovery_checkpoint_is_ignored_and_logs_still_load(tmp_path, make_batch):
    config = _config(tmp_path / "d1")
    await _write_and_stop(config, make_batch, batches=2)
    (tmp_path / "d1" / "recovery-point-offset-checkpoint").write_text("garbage")
    (tmp_path / "d1" / CLEAN_SHUTDOWN_FILE).unlink()
    async with LogManager(config) as again:
        log = again.get_log(T0)
        assert log.log_end_offset == 10
        assert [h.base_offset for _, h in iter_batches(log.read(0, 1 << 20).records)] == [0, 5]


async def test_async_context_manager_starts_and_stops(tmp_path):
    async with LogManager(_config(tmp_path / "d1")) as manager:
        assert manager.all_logs() == {}
    assert (tmp_path / "d1" / CLEAN_SHUTDOWN_FILE).exists()


async def test_same_partition_in_two_log_dirs_raises_config_error(tmp_path):
    for name in ("d1", "d2"):
        (tmp_path / name / "flights-0").mkdir(parents=True)
    with pytest.raises(ConfigError, match="Duplicate"):
        await LogManager(_config(tmp_path / "d1", tmp_path / "d2")).start()
