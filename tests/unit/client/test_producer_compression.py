"""Producer ``compression_type``: checked at construction, applied per batch; CLI options."""

from __future__ import annotations

import click
import pytest

from kafkette.client.cli.perf import produce as perf_produce
from kafkette.client.cli.produce import produce as console_produce
from kafkette.client.producer import Producer
from kafkette.client.producer.producer_batch import record_size_in_bytes
from kafkette.client.producer.record_accumulator import RecordAccumulator
from kafkette.protocol.record_batch import COMPRESSION_NONE, COMPRESSION_ZSTD, decode_records, read_header
from kafkette.protocol.topic_partition import TopicPartition

TP = TopicPartition("t", 0)


@pytest.mark.parametrize("bad", ["brotli", "", "uncompressed", "producer", 4])
async def test_an_unknown_compression_type_is_a_value_error_at_construction(bad):
    with pytest.raises(ValueError, match="compression type"):
        Producer(compression_type=bad)


@pytest.mark.parametrize("name", [None, "none", "gzip", "snappy", "lz4", "zstd"])
async def test_every_kafka_codec_name_is_accepted(name):
    assert Producer(compression_type=name).compression_type == name


async def test_accumulator_batches_are_encoded_with_the_producer_codec():
    acc = RecordAccumulator(compression=COMPRESSION_ZSTD)
    values = [b"delayed %d" % i * 40 for i in range(30)]
    for value in values:
        acc.append(TP, None, value, [("h", b"1")], 1_700_000_000_000, record_size_in_bytes(None, value, None))
    batch = acc.drain(TP)
    encoded = batch.encoded()
    assert read_header(encoded).compression == COMPRESSION_ZSTD
    assert len(encoded) < sum(len(v) for v in values) // 4
    assert [r.value for r in decode_records(encoded)] == values


async def test_accumulator_defaults_to_uncompressed_batches():
    acc = RecordAccumulator()
    acc.append(TP, b"k", b"v", None, 1, record_size_in_bytes(b"k", b"v", None))
    assert read_header(acc.drain(TP).encoded()).compression == COMPRESSION_NONE


@pytest.mark.parametrize(
    "args, expected",
    [
        ([], "none"),
        (["--compression-codec", "zstd"], "zstd"),
        (["--compression-codec"], "gzip"),  # kafka-console-producer: the flag alone means gzip
        (["--compression-codec", "--acks", "1"], "gzip"),
    ],
)
def test_console_producer_compression_codec_option(args, expected):
    ctx = console_produce.make_context("produce", ["--topic", "t", *args])
    assert ctx.params["compression_codec"] == expected


def test_compression_options_refuse_unknown_codecs():
    with pytest.raises(click.BadParameter):
        console_produce.make_context("produce", ["--topic", "t", "--compression-codec", "brotli"])
    with pytest.raises(click.BadParameter):
        perf_produce.make_context(
            "produce",
            ["--topic", "t", "--num-records", "1", "--record-size", "1", "--compression-type", "brotli"],
        )
    ctx = perf_produce.make_context(
        "produce", ["--topic", "t", "--num-records", "1", "--record-size", "1", "--compression-type", "lz4"]
    )
    assert ctx.params["compression_type"] == "lz4"
