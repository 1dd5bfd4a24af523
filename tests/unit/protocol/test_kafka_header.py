"""Kafka's request and response headers: bytes for each header version, the client id's int16
length kept in v2, which version a message uses (ApiVersions' response always v0), and
malformed headers refused."""

from __future__ import annotations

import pytest

from kafkette.protocol.kafka_binary import BinaryReader
from kafkette.protocol.kafka_header import (
    KafkaHeaderError,
    KafkaRequestHeader,
    decode_request_header,
    decode_response_header,
    encode_request_header,
    encode_response_header,
    peek_api,
    request_header_version,
    response_header_version,
)

HEADER = KafkaRequestHeader(api_key=3, api_version=12, correlation_id=7, client_id="ab")


def _reader(data: bytes) -> BinaryReader:
    return BinaryReader(data, KafkaHeaderError, "request header")


@pytest.mark.parametrize(
    ("version", "encoded"),
    [
        (0, b"\x00\x03\x00\x0c\x00\x00\x00\x07"),
        (1, b"\x00\x03\x00\x0c\x00\x00\x00\x07\x00\x02ab"),
        (2, b"\x00\x03\x00\x0c\x00\x00\x00\x07\x00\x02ab\x00"),  # the client id keeps its int16 length
    ],
)
def test_request_headers_at_each_version(version, encoded):
    assert encode_request_header(HEADER, version) == encoded
    reader = _reader(encoded + b"body")
    decoded = decode_request_header(reader, version)
    assert decoded == (HEADER if version else KafkaRequestHeader(3, 12, 7))
    assert reader.take(reader.remaining()) == b"body"
    assert peek_api(encoded) == (3, 12)


def test_a_null_client_id_and_tagged_fields_round_trip():
    header = KafkaRequestHeader(18, 3, -5, None, {0: b"x"})
    assert decode_request_header(_reader(encode_request_header(header, 2)), 2) == header


def test_response_headers_and_which_version_a_message_uses():
    assert encode_response_header(9, 0) == b"\x00\x00\x00\x09"
    assert encode_response_header(9, 1) == b"\x00\x00\x00\x09\x00"
    assert decode_response_header(_reader(b"\x00\x00\x00\x09\x00"), 1) == 9
    assert (request_header_version(True), request_header_version(False)) == (2, 1)
    assert (response_header_version(3, True), response_header_version(3, False)) == (1, 0)
    assert response_header_version(18, True) == 0  # ApiVersions: readable by any client


def test_malformed_headers_are_refused():
    with pytest.raises(KafkaHeaderError, match="no api key"):
        peek_api(b"\x00\x03")
    with pytest.raises(KafkaHeaderError, match="truncated"):
        decode_request_header(_reader(b"\x00\x03\x00\x0c\x00\x00\x00\x07\x00\x05ab"), 1)
    with pytest.raises(ValueError, match="does not exist"):
        encode_request_header(HEADER, 3)
    with pytest.raises(ValueError, match="does not exist"):
        encode_response_header(1, 2)
