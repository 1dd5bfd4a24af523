"""A write that fails (a full disk) takes the log offline, as Kafka's ``maybeHandleIOException``
takes the log dir offline: KAFKA_STORAGE_ERROR from then on, the LEO and producer state as
they were, the LogDirFailureChannel told, and the next open recovers the log up to its last
whole batch.  On a real size-capped tmpfs (needs root)."""

from __future__ import annotations

import pytest
from broker_fakes import make_batch

from kafkette.broker.log.log_config import LogConfig
from kafkette.broker.log.unified_log import UnifiedLog
from kafkette.protocol.errors import KafkaStorageError
from kafkette.protocol.topic_partition import TopicPartition
from tests.disk_helpers import fill, free, mount_tmpfs

TP = TopicPartition("flights", 0)
# small indexes: preallocated index files must fit the tmpfs with room to spare
CONFIG = {"segment_index_bytes": 4096}


def test_a_write_to_a_full_disk_takes_the_log_offline_and_loses_nothing_appended_before(tmp_path):
    offline = []
    with mount_tmpfs(tmp_path / "disk", 4 << 20) as disk:
        log = UnifiedLog.open(disk / "flights-0", TP, LogConfig(**CONFIG), had_clean_shutdown=True)
        log.on_offline = offline.append
        for i in range(5):
            log.append_as_leader(
                bytearray(make_batch(1, producer_id=3, producer_epoch=0, base_sequence=i)), 0
            )
        size_before = log.size_in_bytes
        fill(disk)
        big = bytearray(
            make_batch(1, producer_id=3, producer_epoch=0, base_sequence=5, value_bytes=64 * 1024)
        )
        with pytest.raises(KafkaStorageError, match="No space left on device"):
            log.append_as_leader(big, 0)
        assert log.log_end_offset == 5 and log.size_in_bytes == size_before
        assert offline == [TP] and "No space left on device" in log.local_log.offline_reason
        free(disk)
        with pytest.raises(KafkaStorageError, match="is offline"):  # offline until the broker restarts
            log.append_as_leader(big, 0)
        log.close()
        reopened = UnifiedLog.open(disk / "flights-0", TP, LogConfig(**CONFIG), had_clean_shutdown=False)
        try:
            assert not reopened.local_log.is_offline and reopened.log_end_offset == 5
            info = reopened.append_as_leader(big, 0)  # the producer's next sequence is still 5
            assert (info.first_offset, info.last_offset) == (5, 5)
        finally:
            reopened.close()


def test_a_follower_append_to_a_full_disk_takes_the_log_offline(tmp_path):
    with mount_tmpfs(tmp_path / "disk", 4 << 20) as disk:
        leader = UnifiedLog.open(tmp_path / "leader", TP, LogConfig(**CONFIG), had_clean_shutdown=True)
        follower = UnifiedLog.open(disk / "flights-0", TP, LogConfig(**CONFIG), had_clean_shutdown=True)
        try:
            leader.append_as_leader(bytearray(make_batch(1, value_bytes=64 * 1024)), 0)
            fill(disk)
            data = leader.read(0, 1 << 20).records
            with pytest.raises(KafkaStorageError):
                follower.append_as_follower(bytes(data))
            assert follower.local_log.is_offline and follower.log_end_offset == 0
        finally:
            leader.close()
            follower.close()
