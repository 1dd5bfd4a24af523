"""Every decoder, fed generated input, either decodes it or raises its documented error.

Targets: request frames (msgpack envelope, header, then each API's schema), response
envelopes, record batches (length, magic, CRC, then the records in either encoding: valid CRCs
over random payloads, so the decoding behind the CRC is reached; Kafka's varint records and the
conversion for Kafka's fetch path), every compression codec in both framings, the consumer
protocol's subscription and assignment, the ``__consumer_offsets`` records, a broker's
``server.properties`` and the CLI's offset JSON.  Any other exception (IndexError,
TypeError, struct.error, ...) is a bug: a malformed input must get a clear error and lose
nothing.
"""

from __future__ import annotations

import gzip
import json
import string
import struct
import tempfile
from pathlib import Path

import msgpack
from hypothesis import given
from hypothesis import strategies as st

from kafkette.broker.config import KafkaConfig
from kafkette.broker.group import coordinator_records
from kafkette.client.cli.delete_records import parse_offset_json
from kafkette.common.config_def import ConfigError
from kafkette.protocol import compression, consumer_protocol
from kafkette.protocol.api_keys import API_REGISTRY
from kafkette.protocol.compression import CorruptRecordError
from kafkette.protocol.errors import UnsupportedCompressionTypeError
from kafkette.protocol.framing import FrameError, decode_request, decode_response_envelope
from kafkette.protocol.kafka_records import decode_default_records
from kafkette.protocol.record_batch import (
    RECORDS_MSGPACK_MASK,
    build_batch,
    build_batch_from_payload,
    build_kafka_batch,
    decode_records,
    to_kafka_encoding,
    validate_batches,
)
from kafkette.protocol.schema import SchemaError

CODECS = [
    compression.COMPRESSION_NONE,
    compression.COMPRESSION_GZIP,
    compression.COMPRESSION_SNAPPY,
    compression.COMPRESSION_LZ4,
    compression.COMPRESSION_ZSTD,
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.floats(allow_nan=False),
    st.text(max_size=20),
    st.binary(max_size=40),
)
values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=6) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=30,
)


def _mutations(valid: bytes) -> st.SearchStrategy[bytes]:
    """``valid`` truncated, with bytes flipped, or with bytes appended."""
    n = len(valid)
    truncate = st.integers(0, max(n - 1, 0)).map(lambda i: valid[:i])
    flip = st.lists(st.tuples(st.integers(0, n - 1), st.integers(1, 255)), min_size=1, max_size=4).map(
        lambda flips: bytes(b ^ next((x for i, x in flips if i == pos), 0) for pos, b in enumerate(valid))
    )
    append = st.binary(min_size=1, max_size=16).map(lambda tail: valid + tail)
    return st.one_of(truncate, flip, append)


# ----- request frames, each API's schema ----------------------------------------------------

api_versions = st.sampled_from(
    sorted(
        (key, version)
        for key, spec in API_REGISTRY.items()
        for version in range(spec.min_version, spec.max_version + 1)
    )
)


@given(st.binary(max_size=200))
def test_request_frames_of_random_bytes(payload):
    try:
        decode_request(payload)
    except (FrameError, SchemaError):
        pass


@given(api_versions, st.integers(-(2**31), 2**31 - 1), st.one_of(st.none(), st.text(max_size=10)), values)
def test_request_bodies_of_random_structure_against_every_api_schema(
    api_version, correlation_id, client_id, body
):
    (api_key, version) = api_version
    try:
        decode_request(msgpack.packb([api_key, version, correlation_id, client_id, body], use_bin_type=True))
    except (FrameError, SchemaError):
        pass


@given(st.one_of(st.binary(max_size=100), values.map(lambda v: msgpack.packb(v, use_bin_type=True))))
def test_response_envelopes(payload):
    try:
        decode_response_envelope(payload)
    except FrameError:
        pass


# ----- record batches and codecs ------------------------------------------------------------

records = st.lists(
    st.tuples(
        st.one_of(st.none(), st.binary(max_size=8)),
        st.one_of(st.none(), st.binary(max_size=16)),
        st.none(),
        st.integers(0, 2**40),
    ),
    min_size=1,
    max_size=4,
)
VALID_BATCH = build_batch(
    [(b"k", b"value", [("h", b"v")], 1_700_000_000_000), (None, b"x", None, 1_700_000_000_001)]
)


def _decode_all(data: bytes) -> None:
    for position, header in validate_batches(data):
        decode_records(data, position, header)


@given(st.one_of(st.binary(max_size=120), _mutations(VALID_BATCH)))
def test_record_batches_of_random_or_mutated_bytes(data):
    try:
        _decode_all(data)
    except (CorruptRecordError, UnsupportedCompressionTypeError):
        pass


@given(
    st.one_of(st.binary(max_size=80), values.map(lambda v: msgpack.packb(v, use_bin_type=True))),
    st.integers(0, 7),
    st.sampled_from([0, RECORDS_MSGPACK_MASK]),
    st.integers(-1, 5),
)
def test_batches_with_valid_crcs_over_random_record_payloads(payload, codec, encoding, record_count):
    data = build_batch_from_payload(
        payload, record_count=record_count, base_timestamp=0, max_timestamp=0, attributes=codec | encoding
    )
    try:
        _decode_all(data)
    except (CorruptRecordError, UnsupportedCompressionTypeError):
        pass
    try:
        to_kafka_encoding(data)
    except (CorruptRecordError, UnsupportedCompressionTypeError):
        pass


VALID_KAFKA_BATCH = build_kafka_batch(
    [(b"k", b"value", [("h", b"v"), ("n", None)], 1_700_000_000_000), (None, b"x", None, 1_700_000_000_001)]
)


@given(st.one_of(st.binary(max_size=120), _mutations(VALID_KAFKA_BATCH[61:])), st.integers(0, 3))
def test_kafka_record_sections_of_random_or_mutated_bytes(section, record_count):
    try:
        decode_default_records(section, record_count)
    except CorruptRecordError:
        pass


@given(
    st.one_of(
        _mutations(VALID_KAFKA_BATCH), _mutations(VALID_BATCH), _mutations(VALID_BATCH + VALID_KAFKA_BATCH)
    )
)
def test_kafka_fetch_conversion_of_mutated_batches(data):
    try:
        converted = to_kafka_encoding(data)
    except (CorruptRecordError, UnsupportedCompressionTypeError):
        return
    pos = 0
    while len(converted) - pos >= 23:  # every batch, the partial tail too, as far as its attributes show
        length, attributes = struct.unpack_from(">8xi9xh", converted, pos)
        assert not attributes & RECORDS_MSGPACK_MASK
        pos += length + 12


@given(st.sampled_from(CODECS), records, st.sampled_from([build_batch, build_kafka_batch]))
def test_valid_batches_decode_to_what_was_built(codec, rows, build):
    data = build(rows, compression=codec)
    [(position, header)] = validate_batches(data)
    decoded = decode_records(data, position, header)
    assert [(r.key, r.value, r.timestamp) for r in decoded] == [(k, v, ts) for k, v, _, ts in rows]
    converted = to_kafka_encoding(data)
    assert decode_records(converted) == decoded


@given(
    st.sampled_from(CODECS[1:]),
    st.one_of(
        st.binary(max_size=100),
        st.binary(min_size=1, max_size=60).flatmap(lambda raw: _mutations(gzip.compress(raw))),
    ),
)
def test_every_codec_on_random_or_mutated_payloads(codec, data):
    try:
        compression.decompress(codec, data)
    except CorruptRecordError:
        pass


@given(st.sampled_from(CODECS[1:]), st.binary(max_size=200))
def test_every_codec_round_trips(codec, raw):
    assert compression.decompress(codec, compression.compress(codec, raw)) == raw
    assert compression.decompress_kafka(codec, compression.compress_kafka(codec, raw)) == raw


@given(
    st.sampled_from(CODECS[1:]),
    st.one_of(
        st.binary(max_size=100),
        st.binary(min_size=1, max_size=60).flatmap(
            lambda raw: _mutations(compression.compress_kafka(compression.COMPRESSION_SNAPPY, raw))
        ),
    ),
)
def test_every_codec_in_kafkas_framing_on_random_or_mutated_payloads(codec, data):
    try:
        compression.decompress_kafka(codec, data)
    except CorruptRecordError:
        pass


# ----- consumer protocol and __consumer_offsets records -------------------------------------

VALID_SUBSCRIPTION = consumer_protocol.encode_subscription(consumer_protocol.Subscription(["a", "b"], b"ud"))


@given(st.one_of(st.binary(max_size=80), _mutations(VALID_SUBSCRIPTION)))
def test_consumer_protocol_subscriptions_and_assignments(data):
    for decode in (consumer_protocol.decode_subscription, consumer_protocol.decode_assignment):
        try:
            decode(data)
        except ValueError:
            pass


@given(st.binary(max_size=120))
def test_consumer_offsets_records(data):
    for decode in (
        coordinator_records.decode_key,
        coordinator_records.decode_offset_commit_value,
        coordinator_records.decode_group_metadata_value,
    ):
        try:
            decode(data)
        except coordinator_records.CoordinatorRecordError:
            pass
    for record_type in (3, 4, 5, 6, 7, 8, 16):  # KIP-848 consumer group values
        try:
            coordinator_records.decode_consumer_group_value(record_type, b"\x00\x00" + data)
        except coordinator_records.CoordinatorRecordError:
            pass


# ----- config files and CLI inputs ----------------------------------------------------------

property_lines = st.lists(
    st.one_of(
        st.text(alphabet=string.printable, max_size=40),
        st.tuples(
            st.sampled_from(
                [
                    "node.id",
                    "log.dirs",
                    "listeners",
                    "num.partitions",
                    "log.segment.bytes",
                    "process.roles",
                    "controller.quorum.voters",
                    "log.cleanup.policy",
                    "x.unknown",
                ]
            ),
            st.text(max_size=20),
        ).map(lambda kv: f"{kv[0]}={kv[1]}"),
    ),
    max_size=8,
).map(lambda lines: "\n".join(lines).encode("utf-8", "surrogatepass"))


PROPERTIES = Path(tempfile.mkdtemp(prefix="kafkette-fuzz-")) / "server.properties"


@given(st.one_of(st.binary(max_size=200), property_lines))
def test_server_properties_files(content):
    path = PROPERTIES
    path.write_bytes(content)
    try:
        KafkaConfig.from_file(str(path))
    except ConfigError:
        pass


@given(
    st.one_of(
        st.text(max_size=80),
        values.map(lambda v: json.dumps(v, default=repr)),
        st.lists(
            st.fixed_dictionaries({"topic": values, "partition": values, "offset": values}), max_size=3
        ).map(lambda parts: json.dumps({"partitions": parts, "version": 1}, default=repr)),
    )
)
def test_cli_offset_json(text):
    try:
        parse_offset_json(text)
    except ValueError:
        pass
