"""Reading one offset range on an executor: Arrow conversion, range bounds and
failOnDataLoss, against a fake consumer holding an in-memory log."""

from __future__ import annotations

import datetime

import pytest

from kafkette.client.consumer import ConsumerRecord
from kafkette.client.spark.data_loss import DataLossError
from kafkette.client.spark.offsets import OffsetRange
from kafkette.client.spark.options import SourceOptions
from kafkette.client.spark.partition_reader import OffsetRangeReader, arrow_schema, records_to_arrow
from kafkette.protocol.errors import OffsetOutOfRangeError
from kafkette.protocol.topic_partition import TopicPartition

TP = TopicPartition("t", 0)


def record(offset: int, headers=None) -> ConsumerRecord:
    return ConsumerRecord(
        "t", 0, offset, 1_700_000_000_000 + offset, 0, b"k", f"v{offset}".encode(), headers or []
    )


class FakeLog:
    """The log of partition t-0: records from ``log_start`` to ``high_watermark``; each
    fetch returns at most ``per_fetch`` records.  ``on_fetch`` may change the log."""

    def __init__(self, log_start: int, high_watermark: int, per_fetch: int = 4) -> None:
        self.log_start = log_start
        self.high_watermark = high_watermark
        self.per_fetch = per_fetch
        self.on_fetch = None
        self.stopped = False


class FakeConsumer:
    def __init__(self, log: FakeLog, **settings) -> None:
        self.log = log
        self.settings = settings
        self.pos = 0

    async def start(self) -> None:
        pass

    async def stop(self) -> None:
        self.log.stopped = True

    def assign(self, tps) -> None:
        assert list(tps) == [TP]

    def seek(self, tp, offset) -> None:
        self.pos = offset

    async def position(self, tp) -> int:
        return self.pos

    async def beginning_offsets(self, tps):
        return {TP: self.log.log_start}

    async def end_offsets(self, tps):
        return {TP: self.log.high_watermark}

    async def getmany(self, *tps, timeout_ms=0, max_records=None):
        if self.log.on_fetch is not None:
            self.log.on_fetch(self.log)
        if self.pos < self.log.log_start or self.pos > self.log.high_watermark:
            raise OffsetOutOfRangeError(f"{TP} at {self.pos}")
        end = min(self.log.high_watermark, self.pos + self.log.per_fetch)
        records = [record(o) for o in range(self.pos, end)]
        self.pos = end
        return {TP: records} if records else {}


def read(log: FakeLog, start: int, until: int, fail_on_data_loss: bool = True, poll_timeout_ms: int = 120000):
    options = SourceOptions.parse(
        {
            "kafkette.bootstrap.servers": "h:1",
            "subscribe": "t",
            "failOnDataLoss": str(fail_on_data_loss),
            "kafkaConsumer.pollTimeoutMs": str(poll_timeout_ms),
        },
        streaming=True,
    )
    reader = OffsetRangeReader(
        options, OffsetRange("t", 0, start, until), consumer_factory=lambda **kw: FakeConsumer(log, **kw)
    )
    return [o for batch in reader.read_batches() for o in batch.column("offset").to_pylist()]


def test_reads_exactly_the_range_and_closes_the_consumer():
    log = FakeLog(0, 100)
    assert read(log, 5, 18) == list(range(5, 18))
    assert log.stopped


def test_range_deleted_by_retention_fails_with_fail_on_data_loss():
    with pytest.raises(DataLossError, match=r"offsets 5\.\.19 of t-0.*failOnDataLoss"):
        read(FakeLog(20, 100), 5, 30)


def test_range_deleted_by_retention_is_skipped_without_fail_on_data_loss():
    assert read(FakeLog(20, 100), 5, 30, fail_on_data_loss=False) == list(range(20, 30))
    assert read(FakeLog(40, 100), 5, 30, fail_on_data_loss=False) == []


def test_log_start_passing_the_position_while_reading_is_data_loss():
    log = FakeLog(0, 100)

    def retention(log: FakeLog) -> None:
        log.log_start = 12  # retention deletes 0..11 while the range is being read

    log.on_fetch = retention
    with pytest.raises(DataLossError):
        read(log, 8, 20)
    log.log_start = 0
    assert read(log, 8, 20, fail_on_data_loss=False) == list(range(12, 20))


def test_range_beyond_a_lowered_high_watermark_is_lost_after_the_poll_timeout():
    log = FakeLog(0, 10)  # offsets 10..14 were in the plan but the log ends at 10
    assert read(log, 6, 15, fail_on_data_loss=False, poll_timeout_ms=1) == [6, 7, 8, 9]
    with pytest.raises(DataLossError, match="high watermark is 10"):
        read(log, 6, 15, poll_timeout_ms=1)


def test_records_become_arrow_batches_of_the_source_schema():
    batch = records_to_arrow([record(3, [("h", b"x"), ("n", None)]), record(4)], include_headers=True)
    assert batch.schema == arrow_schema(include_headers=True)
    rows = batch.to_pylist()
    assert rows[0]["headers"] == [{"key": "h", "value": b"x"}, {"key": "n", "value": None}]
    assert rows[1]["headers"] is None
    assert rows[0]["timestamp"] == datetime.datetime(2023, 11, 14, 22, 13, 20, 3000, tzinfo=datetime.UTC)
    assert records_to_arrow([record(3)], include_headers=False).schema.names == [
        "key",
        "value",
        "topic",
        "partition",
        "offset",
        "timestamp",
        "timestampType",
    ]
