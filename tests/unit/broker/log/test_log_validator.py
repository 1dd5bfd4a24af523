"""LogValidator: producer passthrough, recompression to the topic codec, LogAppendTime stamping."""

import struct

import msgpack
import pytest

from kafkette.broker.log.log_config import LogConfig
from kafkette.broker.log.log_validator import validate_messages_and_assign_offsets
from kafkette.broker.log.unified_log import UnifiedLog
from kafkette.common.clock import MockTime
from kafkette.protocol.compression import NAME_BY_CODEC, compress
from kafkette.protocol.errors import (
    InvalidRecordError,
    MessageTooLargeError,
    UnsupportedCompressionTypeError,
)
from kafkette.protocol.record_batch import (
    COMPRESSION_GZIP,
    COMPRESSION_LZ4,
    COMPRESSION_NONE,
    COMPRESSION_SNAPPY,
    COMPRESSION_ZSTD,
    LOG_APPEND_TIME,
    RECORDS_MSGPACK_MASK,
    CorruptRecordError,
    assign_offsets,
    build_batch,
    build_batch_from_payload,
    build_kafka_batch,
    compute_crc,
    decode_records,
    iter_batches,
    validate_batches,
)
from kafkette.protocol.topic_partition import TopicPartition

NOW_MS = 1_700_000_000_000
TP = TopicPartition("t", 0)
CODECS = [COMPRESSION_NONE, COMPRESSION_GZIP, COMPRESSION_SNAPPY, COMPRESSION_LZ4, COMPRESSION_ZSTD]
TOPIC_NAME = {COMPRESSION_NONE: "uncompressed", **{c: NAME_BY_CODEC[c] for c in CODECS[1:]}}


def _rows(n, ts=10_000):
    return [(b"flight-%d" % (i % 7), b"delay=%d;" % i * 30, [("src", b"jfk")], ts + i) for i in range(n)]


def _idempotent_batch(codec, n=20, ts=10_000):
    return build_batch(_rows(n, ts), compression=codec, producer_id=42, producer_epoch=3, base_sequence=17)


def _convert(buf, compression_type="producer", timestamp_type="CreateTime", **config):
    buf = bytearray(buf)
    return validate_messages_and_assign_offsets(
        buf,
        validate_batches(buf),
        tp=TP,
        first_offset=0,
        leader_epoch=-1,
        now_ms=NOW_MS,
        config=LogConfig(compression_type=compression_type, message_timestamp_type=timestamp_type, **config),
    )


def _as_assigned(sent):
    """``sent`` with the offsets the validator writes from offset 0 (the epoch stays -1)."""
    buf = bytearray(sent)
    assign_offsets(buf, validate_batches(buf), 0, -1)
    return bytes(buf)


def _content(buf):
    return [
        (r.offset, r.timestamp, r.key, r.value, r.headers)
        for pos, h in iter_batches(buf)
        for r in decode_records(buf, pos, h)
    ]


@pytest.mark.parametrize("codec", CODECS, ids=lambda c: NAME_BY_CODEC[c])
def test_producer_compression_type_keeps_batches_byte_for_byte(codec):
    sent = _idempotent_batch(codec) + _idempotent_batch(COMPRESSION_GZIP, 3)
    result = _convert(sent)
    assert bytes(result.records) == _as_assigned(sent)
    assert result.recompressed == 0 and result.log_append_time_ms == -1
    assert result.max_timestamp == 10_019


@pytest.mark.parametrize("codec", [COMPRESSION_NONE, COMPRESSION_ZSTD], ids=lambda c: NAME_BY_CODEC[c])
def test_producer_passthrough_never_re_encodes_records(codec):
    # 0xcf: offset delta 0 as a uint64, a valid but non-canonical msgpack encoding that a
    # decode and re-encode would shorten to one byte.
    rows = b"\x91\x95\xcf" + (0).to_bytes(8, "big") + b"\x00\xc0\xc4\x01v\x90"
    assert msgpack.unpackb(rows) == [[0, 0, None, b"v", []]]
    batch = build_batch_from_payload(
        compress(codec, rows),
        record_count=1,
        base_timestamp=5,
        max_timestamp=5,
        attributes=codec | RECORDS_MSGPACK_MASK,
    )
    assert bytes(_convert(batch, compression_type="producer").records) == batch
    assert bytes(_convert(batch, compression_type=TOPIC_NAME[codec]).records) == batch
    assert _content(batch) == [(0, 5, None, b"v", [])]


@pytest.mark.parametrize("source", CODECS, ids=lambda c: "from-" + NAME_BY_CODEC[c])
@pytest.mark.parametrize("target", CODECS, ids=lambda c: "to-" + NAME_BY_CODEC[c])
def test_batches_are_recompressed_to_the_topic_codec_with_records_and_producer_fields_kept(source, target):
    sent = _idempotent_batch(source)
    result = _convert(sent, compression_type=TOPIC_NAME[target])
    ((_, header),) = list(iter_batches(result.records, verify_crc=True))
    before = next(iter_batches(sent))[1]
    assert header.compression == target
    assert result.recompressed == (0 if source == target else 1)
    if source == target:
        assert bytes(result.records) == _as_assigned(sent)
    assert _content(result.records) == _content(_as_assigned(sent))
    assert (header.producer_id, header.producer_epoch, header.base_sequence) == (42, 3, 17)
    assert (header.base_timestamp, header.max_timestamp, header.records_count, header.last_offset_delta) == (
        before.base_timestamp,
        before.max_timestamp,
        before.records_count,
        before.last_offset_delta,
    )
    assert header.timestamp_type == before.timestamp_type == 0


def test_only_batches_with_another_codec_are_rewritten_and_positions_follow_the_new_sizes():
    sent = (
        _idempotent_batch(COMPRESSION_ZSTD, 5)
        + _idempotent_batch(COMPRESSION_NONE, 50)
        + _idempotent_batch(COMPRESSION_ZSTD, 2)
    )
    result = _convert(sent, compression_type="zstd")
    assert result.recompressed == 1
    assert [h.compression for _, h in result.positions] == [COMPRESSION_ZSTD] * 3
    assert [p for p, _ in result.positions] == [p for p, _ in iter_batches(result.records, verify_crc=True)]
    assert len(result.records) < len(sent)
    assert _content(result.records) == _content(_as_assigned(sent))


@pytest.mark.parametrize("codec", [COMPRESSION_NONE, COMPRESSION_LZ4], ids=lambda c: NAME_BY_CODEC[c])
def test_log_append_time_stamps_broker_time_with_the_type_bit_and_a_valid_crc(codec):
    sent = _idempotent_batch(codec, 4) + _idempotent_batch(codec, 2, ts=99)
    result = _convert(sent, timestamp_type="LogAppendTime")
    assert result.log_append_time_ms == result.max_timestamp == NOW_MS
    headers = [h for _, h in iter_batches(result.records, verify_crc=True)]
    assert [(h.timestamp_type, h.max_timestamp) for h in headers] == [(LOG_APPEND_TIME, NOW_MS)] * 2
    assert [r[1] for r in _content(result.records)] == [NOW_MS] * 6


def test_log_append_time_is_stamped_after_recompression():
    result = _convert(
        _idempotent_batch(COMPRESSION_NONE), compression_type="gzip", timestamp_type="LogAppendTime"
    )
    ((_, header),) = list(iter_batches(result.records, verify_crc=True))
    assert (header.compression, header.timestamp_type, header.max_timestamp) == (
        COMPRESSION_GZIP,
        LOG_APPEND_TIME,
        NOW_MS,
    )


def test_create_time_leaves_producer_timestamps():
    sent = _idempotent_batch(COMPRESSION_NONE, 3)
    result = _convert(sent, timestamp_type="CreateTime")
    assert bytes(result.records) == _as_assigned(sent)
    assert [r[1] for r in _content(result.records)] == [10_000, 10_001, 10_002]


@pytest.mark.parametrize("compression_type", ["producer", "zstd"])
def test_a_batch_naming_an_unknown_codec_is_unsupported_compression_type(compression_type):
    payload = msgpack.packb([[0, 0, None, b"v", []]], use_bin_type=True)
    batch = build_batch_from_payload(
        payload, record_count=1, base_timestamp=1, max_timestamp=1, attributes=7 | RECORDS_MSGPACK_MASK
    )
    with pytest.raises(UnsupportedCompressionTypeError, match="7"):
        _convert(batch, compression_type=compression_type)


def test_a_corrupt_payload_that_must_be_recompressed_is_corrupt_record_error():
    batch = build_batch_from_payload(
        b"\x1f\x8b but not gzip",
        record_count=1,
        base_timestamp=1,
        max_timestamp=1,
        attributes=COMPRESSION_GZIP | RECORDS_MSGPACK_MASK,
    )
    with pytest.raises(CorruptRecordError, match="gzip"):
        _convert(batch, compression_type="lz4")


def test_records_with_offset_deltas_out_of_order_are_refused_when_recompressing():
    payload = msgpack.packb([[0, 0, None, b"a", []], [5, 0, None, b"b", []]], use_bin_type=True)
    batch = build_batch_from_payload(
        payload, record_count=2, base_timestamp=1, max_timestamp=1, attributes=RECORDS_MSGPACK_MASK
    )
    with pytest.raises(CorruptRecordError, match="record 1 .* is malformed"):
        _convert(batch, compression_type="zstd")


# --- batches in Kafka's varint record encoding ---------------------------------------------------------


def _kafka_batch(codec, n=20, ts=10_000):
    return build_kafka_batch(
        _rows(n, ts), compression=codec, producer_id=42, producer_epoch=3, base_sequence=17
    )


@pytest.mark.parametrize("codec", CODECS, ids=lambda c: NAME_BY_CODEC[c])
def test_kafka_encoded_batches_are_kept_byte_for_byte_under_producer_compression(codec):
    sent = _kafka_batch(codec) + _idempotent_batch(codec, 3)
    result = _convert(sent)
    assert bytes(result.records) == _as_assigned(sent) and result.recompressed == 0


@pytest.mark.parametrize("source", CODECS, ids=lambda c: "from-" + NAME_BY_CODEC[c])
@pytest.mark.parametrize("target", CODECS, ids=lambda c: "to-" + NAME_BY_CODEC[c])
def test_kafka_encoded_batches_are_recompressed_in_kafkas_encoding_and_framing(source, target):
    sent = _kafka_batch(source)
    result = _convert(sent, compression_type=TOPIC_NAME[target])
    ((pos, header),) = list(iter_batches(result.records, verify_crc=True))
    before = next(iter_batches(sent))[1]
    assert (header.compression, header.msgpack_records) == (target, False)
    assert header.attributes == before.attributes & ~0x07 | target
    assert _content(result.records) == _content(_as_assigned(sent))
    assert (header.producer_id, header.producer_epoch, header.base_sequence, header.last_offset_delta) == (
        42,
        3,
        17,
        19,
    )
    if target == COMPRESSION_SNAPPY:
        assert (
            result.records[pos + 61 : pos + 69] == b"\x82SNAPPY\x00"
        )  # xerial's framing, as Kafka's clients read


def test_record_checks_apply_to_kafka_encoded_batches_too():
    keyless = build_kafka_batch([(b"k", b"v", None, 1), (None, b"v", None, 1)])
    with pytest.raises(InvalidRecordError, match="without key"):
        _convert(keyless, cleanup_policy="compact")
    bad = bytearray(_kafka_batch(COMPRESSION_NONE))
    bad[61:63] = b"\xff\xff"  # the first record's length, then a CRC to match
    struct.pack_into(">I", bad, 17, compute_crc(bad, 0, len(bad)))
    with pytest.raises(CorruptRecordError):
        _convert(bad, compression_type="zstd")


# --- through UnifiedLog.append_as_leader --------------------------------------------------------------


def _log(tmp_path, **config):
    return UnifiedLog.open(
        tmp_path / "t-0", TP, LogConfig(**config), had_clean_shutdown=True, time=MockTime(wall_ms=NOW_MS)
    )


def test_leader_append_stores_the_topic_codec_and_reports_log_append_time(tmp_path):
    log = _log(tmp_path, compression_type="zstd", message_timestamp_type="LogAppendTime")
    info = log.append_as_leader(_idempotent_batch(COMPRESSION_GZIP, 5), 2)
    assert (info.first_offset, info.last_offset, info.log_append_time_ms, info.max_timestamp) == (
        0,
        4,
        NOW_MS,
        NOW_MS,
    )
    stored = log.read(0, 1 << 20).records
    ((_, header),) = list(iter_batches(stored, verify_crc=True))
    assert (header.compression, header.timestamp_type, header.partition_leader_epoch) == (
        COMPRESSION_ZSTD,
        LOG_APPEND_TIME,
        2,
    )
    assert info.valid_bytes == len(stored)
    assert [r.value for r in decode_records(stored)] == [v for _, v, _, _ in _rows(5)]


def test_max_message_bytes_applies_to_the_batch_after_recompression(tmp_path):
    compressed = _idempotent_batch(COMPRESSION_ZSTD, 200)
    plain_size = len(_idempotent_batch(COMPRESSION_NONE, 200))
    assert len(compressed) < plain_size // 4
    log = _log(tmp_path, compression_type="uncompressed", max_message_bytes=plain_size - 1)
    with pytest.raises(MessageTooLargeError, match=str(plain_size)):
        log.append_as_leader(compressed, 0)
    assert log.log_end_offset == 0 and log.size_in_bytes == 0
    shrinking = _log(tmp_path / "z", compression_type="zstd", max_message_bytes=len(compressed))
    assert shrinking.append_as_leader(_idempotent_batch(COMPRESSION_NONE, 200), 0).last_offset == 199


def test_follower_append_copies_compressed_batches_as_they_are(tmp_path):
    leader = _log(tmp_path / "leader", compression_type="lz4")
    leader.append_as_leader(_idempotent_batch(COMPRESSION_NONE, 10), 1)
    data = leader.read(0, 1 << 20).records
    follower = _log(tmp_path / "follower", compression_type="gzip")
    follower.append_as_follower(data)
    assert follower.read(0, 1 << 20).records == data


# --- broker-level defaults -----------------------------------------------------------------------


def test_broker_compression_and_timestamp_type_are_topic_defaults_that_overrides_beat():
    from kafkette.broker.config import ConfigError, KafkaConfig

    broker = KafkaConfig(
        {"node.id": 1, "compression.type": "lz4", "log.message.timestamp.type": "LogAppendTime"}
    )
    default = LogConfig.from_broker(broker)
    assert (default.compression_type, default.message_timestamp_type) == ("lz4", "LogAppendTime")
    topic = LogConfig.from_broker(
        broker, {"compression.type": "producer", "message.timestamp.type": "CreateTime"}
    )
    assert (topic.compression_type, topic.message_timestamp_type) == ("producer", "CreateTime")
    plain = LogConfig.from_broker(KafkaConfig({"node.id": 1}))
    assert (plain.compression_type, plain.message_timestamp_type) == ("producer", "CreateTime")
    with pytest.raises(ConfigError, match="compression.type"):
        KafkaConfig({"node.id": 1, "compression.type": "brotli"})
    with pytest.raises(ConfigError, match="log.message.timestamp.type"):
        KafkaConfig({"node.id": 1, "log.message.timestamp.type": "Now"})
