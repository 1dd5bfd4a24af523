"""preallocate: a new segment's .log file is created segment.bytes long, trimmed to its batches
when the log rolls past it and when it is closed; a crash leaves the zeros, which recovery
truncates without losing a record."""

from __future__ import annotations

import os
import shutil

import pytest

from kafkette.broker.config import KafkaConfig
from kafkette.broker.log.log_config import LogConfig
from kafkette.broker.log.unified_log import UnifiedLog
from kafkette.protocol.record_batch import build_batch
from kafkette.protocol.topic_partition import TopicPartition
from tests.unit.broker.log.log_reading import read_all_records

pytestmark = pytest.mark.timeout(30)

TP = TopicPartition("prices", 0)
SEGMENT_BYTES = 64 * 1024


def _config(**overrides):
    return LogConfig(**{"segment_bytes": SEGMENT_BYTES, "preallocate": True, **overrides})


def _open(dir, config, *, clean=True):
    return UnifiedLog.open(dir, TP, config, had_clean_shutdown=clean)


def _append(log, count, first=0):
    for i in range(first, first + count):
        log.append_as_leader(bytearray(build_batch([(b"k%d" % i, b"v" * 200, None, 1_700_000_000_000)])), 0)


def _values(log):
    return [r.key for r in read_all_records(log)]


def _file_length(segment):
    return os.stat(segment.log_path).st_size


def test_a_new_segment_is_preallocated_and_trimmed_when_the_log_rolls_past_it(tmp_path):
    log = _open(tmp_path / str(TP), _config())
    first = log.active_segment
    assert (_file_length(first), first.size, log.size_in_bytes) == (SEGMENT_BYTES, 0, 0)
    _append(log, 10)
    assert _file_length(first) == SEGMENT_BYTES and 0 < first.size < SEGMENT_BYTES
    assert _values(log) == [b"k%d" % i for i in range(10)]

    log.roll()
    assert _file_length(first) == first.size, "trimmed to its batches"
    assert _file_length(log.active_segment) == SEGMENT_BYTES
    _append(log, 500, first=10)  # rolls by segment.bytes: every rolled segment is trimmed
    assert len(log.segments) > 3
    assert all(_file_length(s) == s.size for s in log.segments[:-1])
    assert _values(log) == [b"k%d" % i for i in range(510)]
    log.close()


def test_a_closed_log_is_trimmed_and_reopens_without_recovery(tmp_path):
    log = _open(tmp_path / str(TP), _config())
    _append(log, 10)
    size = log.active_segment.size
    log.close()
    active = sorted((tmp_path / str(TP)).glob("*.log"))[-1]
    assert active.stat().st_size == size
    again = _open(tmp_path / str(TP), _config())
    assert not any(s.needs_recovery for s in again.segments)
    assert _values(again) == [b"k%d" % i for i in range(10)] and again.log_end_offset == 10
    assert _file_length(again.active_segment) == size, "an existing file is not preallocated again"
    again.close()


def test_a_crash_leaves_zeros_that_recovery_truncates_keeping_every_record(tmp_path, caplog):
    live = tmp_path / "live" / str(TP)
    log = _open(live, _config())
    _append(log, 30)
    log.flush_sync()
    crashed = tmp_path / "crashed" / str(TP)
    shutil.copytree(live, crashed)  # the files as a kill -9 leaves them: never trimmed
    log.close()
    assert max(p.stat().st_size for p in crashed.glob("*.log")) == SEGMENT_BYTES

    recovered = _open(crashed, _config(), clean=False)
    assert not recovered.is_offline
    assert "the zeros past the last batch of a preallocated segment" in caplog.text
    assert _values(recovered) == [b"k%d" % i for i in range(30)] and recovered.log_end_offset == 30
    assert _file_length(recovered.active_segment) == recovered.active_segment.size
    _append(recovered, 5, first=30)
    assert _values(recovered)[-5:] == [b"k%d" % i for i in range(30, 35)]
    recovered.close()


def test_without_preallocate_a_segment_file_holds_only_its_batches(tmp_path):
    log = _open(tmp_path / str(TP), _config(preallocate=False))
    assert _file_length(log.active_segment) == 0
    _append(log, 3)
    assert _file_length(log.active_segment) == log.active_segment.size > 0
    log.close()


def test_preallocate_turned_on_applies_from_the_next_segment(tmp_path):
    log = _open(tmp_path / str(TP), _config(preallocate=False))
    _append(log, 3)
    log.update_config(_config(preallocate=True))
    assert _file_length(log.active_segment) == log.active_segment.size
    log.roll()
    assert _file_length(log.active_segment) == SEGMENT_BYTES
    log.close()


def test_log_preallocate_is_the_broker_default_of_preallocate(tmp_path):
    base = {"node.id": 1, "log.dirs": str(tmp_path), "log.segment.bytes": str(SEGMENT_BYTES)}
    assert LogConfig.from_broker(KafkaConfig(base)).init_file_size == 0
    config = LogConfig.from_broker(KafkaConfig({**base, "log.preallocate": "true"}))
    assert (config.preallocate, config.init_file_size) == (True, SEGMENT_BYTES)
    assert LogConfig.from_broker(KafkaConfig(base), {"preallocate": "true"}).init_file_size == SEGMENT_BYTES
