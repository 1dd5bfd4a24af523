"""LogDirFailureChannel: a log going offline is reported once, on the loop, from any thread;
LogManager lists offline logs (loaded corrupt or taken offline by a read)."""

from __future__ import annotations

import asyncio

from kafkette.broker.config import KafkaConfig
from kafkette.broker.log.log_config import LogConfig
from kafkette.broker.log.log_manager import LogManager
from kafkette.protocol.record_batch import HEADER_SIZE, iter_batches
from kafkette.protocol.topic_partition import TopicPartition

T0 = TopicPartition("t", 0)
T1 = TopicPartition("t", 1)


def _config(log_dir):
    return KafkaConfig({"node.id": 1, "log.dirs": str(log_dir)})


async def test_a_log_taken_offline_in_an_executor_thread_notifies_listeners_on_the_loop_once(
    tmp_path, make_batch
):
    manager = LogManager(_config(tmp_path))
    await manager.start()
    try:
        log = manager.get_or_create_log(T0, LogConfig.from_broker(manager.config))
        manager.get_or_create_log(T1, LogConfig.from_broker(manager.config))
        loop = asyncio.get_running_loop()
        notified: list[tuple[TopicPartition, bool]] = []
        got = asyncio.Event()

        def listener(tp: TopicPartition) -> None:
            notified.append((tp, asyncio.get_running_loop() is loop))
            got.set()

        manager.log_dir_failure_channel.add_listener(listener)
        await loop.run_in_executor(None, log.mark_offline, "test corruption")
        await asyncio.wait_for(got.wait(), 5)
        log.mark_offline("found again")  # already offline: no second report
        await asyncio.sleep(0)
        assert notified == [(T0, True)]
        assert manager.offline_logs() == [T0]
    finally:
        await manager.stop()


async def test_logs_found_corrupt_at_load_are_listed_offline(tmp_path, make_batch):
    config = _config(tmp_path)
    manager = LogManager(config)
    await manager.start()
    log_config = LogConfig(
        segment_bytes=300, index_interval_bytes=0, segment_index_bytes=4096, max_message_bytes=100_000
    )
    log = manager.get_or_create_log(T0, log_config)
    for _ in range(12):
        log.append_as_leader(bytearray(make_batch(3, value_bytes=20)), 1)
    assert len(log.segments) >= 3
    first = log.segments[0].log_path
    await manager.stop()
    # As after kill -9 with nothing flushed: no clean-shutdown marker, recovery point 0.
    (tmp_path / ".kafka_cleanshutdown").unlink()
    (tmp_path / "recovery-point-offset-checkpoint").unlink()
    data = bytearray(first.read_bytes())
    position = list(iter_batches(data))[0][0]
    data[position + HEADER_SIZE + 3] ^= 0x40
    first.write_bytes(data)

    again = LogManager(config)
    await again.start()
    try:
        assert again.offline_logs() == [T0]
    finally:
        await again.stop()
