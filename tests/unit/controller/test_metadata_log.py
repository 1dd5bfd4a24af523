"""MetadataLog: framing, fsynced append, replay, torn/corrupt tail and unfinished transactions."""

from __future__ import annotations

import logging

import pytest
from local_metadata_log import FRAME_HEADER, MetadataLog, MetadataLogError, encode_frame

from kafkette.controller.metadata_records import (
    BeginTransactionRecord,
    ConfigRecord,
    ControllerEpochRecord,
    EndTransactionRecord,
    PartitionRecord,
    RegisterBrokerRecord,
    TopicRecord,
)

RECORDS = [
    ControllerEpochRecord(1),
    RegisterBrokerRecord(1, 1, "inc", "127.0.0.1", 9092, None),
    TopicRecord("t", "abc"),
    ConfigRecord("topic", "t", "retention.ms", "1000"),
    PartitionRecord("t", 0, [1], [1], 1, 0, 0),
]


async def _written(tmp_path, records=RECORDS) -> MetadataLog:
    log = MetadataLog(tmp_path)
    assert log.replay() == []
    assert await log.append(records) == 0
    await log.close()
    return log


async def test_appended_records_replay_in_order_at_the_documented_path(tmp_path):
    log = await _written(tmp_path)
    assert log.path == tmp_path / "__cluster_metadata-0" / "00000000000000000000.log"
    reopened = MetadataLog(tmp_path)
    assert reopened.replay() == RECORDS
    assert reopened.next_offset == len(RECORDS)
    assert await reopened.append([ControllerEpochRecord(2)]) == len(RECORDS)
    await reopened.close()
    again = MetadataLog(tmp_path)
    assert again.replay()[-1] == ControllerEpochRecord(2)
    await again.close()


async def test_frame_is_length_crc_then_msgpack(tmp_path):
    log = await _written(tmp_path, [TopicRecord("t", "abc")])
    data = log.path.read_bytes()
    length, _crc = FRAME_HEADER.unpack_from(data)
    assert len(data) == FRAME_HEADER.size + length
    assert data == encode_frame(TopicRecord("t", "abc"))


@pytest.mark.parametrize("cut", [1, 5, 9])
async def test_torn_tail_is_truncated_with_a_warning(tmp_path, caplog, cut):
    log = await _written(tmp_path)
    full = log.path.read_bytes()
    log.path.write_bytes(full + encode_frame(TopicRecord("u", "def"))[:cut])
    caplog.set_level(logging.WARNING)
    reopened = MetadataLog(tmp_path)
    assert reopened.replay() == RECORDS
    await reopened.close()
    assert log.path.read_bytes() == full
    assert any("Truncating metadata log" in r.getMessage() for r in caplog.records)


async def test_corrupt_record_ends_the_log_there(tmp_path, caplog):
    log = await _written(tmp_path)
    data = bytearray(log.path.read_bytes())
    last = encode_frame(RECORDS[-1])
    data[-2] ^= 0xFF
    log.path.write_bytes(bytes(data))
    caplog.set_level(logging.WARNING)
    reopened = MetadataLog(tmp_path)
    assert reopened.replay() == RECORDS[:-1]
    assert reopened.next_offset == len(RECORDS) - 1
    await reopened.close()
    assert len(log.path.read_bytes()) == len(data) - len(last)
    assert any("CRC mismatch" in r.getMessage() for r in caplog.records)


async def test_unfinished_transaction_at_the_tail_is_dropped(tmp_path):
    log = MetadataLog(tmp_path)
    log.replay()
    await log.append([ControllerEpochRecord(1)])
    await log.append([BeginTransactionRecord("CreateTopics"), TopicRecord("t", "x"), EndTransactionRecord()])
    await log.append([BeginTransactionRecord("CreateTopics"), TopicRecord("u", "y")])
    await log.close()
    reopened = MetadataLog(tmp_path)
    assert reopened.replay() == [ControllerEpochRecord(1), TopicRecord("t", "x")]
    assert reopened.next_offset == 4
    await reopened.close()


async def test_append_before_replay_is_refused(tmp_path):
    log = MetadataLog(tmp_path)
    with pytest.raises(MetadataLogError):
        await log.append([ControllerEpochRecord(1)])
    await log.close()
