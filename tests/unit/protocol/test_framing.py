"""Framing: request/response envelopes and the errors bad frames raise."""

import msgpack
import pytest

from kafkette.protocol.apis.api_versions import ApiVersionsRequest, ApiVersionsResponse
from kafkette.protocol.apis.fetch import FetchPartitionData, FetchResponse, FetchTopicResponse
from kafkette.protocol.apis.metadata import MetadataRequest
from kafkette.protocol.apis.produce import ProducePartitionData, ProduceRequest, ProduceTopicData
from kafkette.protocol.framing import (
    LENGTH,
    SPLICE_MIN_BYTES,
    FrameError,
    UnsupportedVersionError,
    check_frame_length,
    decode_request,
    decode_response_envelope,
    encode_request,
    encode_request_buffers,
    encode_response,
    encode_response_buffers,
)
from kafkette.protocol.schema import SchemaError


def test_request_round_trips_with_header():
    frame = encode_request(MetadataRequest(topics=None), 1, 42, "me")
    header, spec, req = decode_request(frame[4:])
    assert (header.api_key, header.api_version, header.correlation_id, header.client_id) == (3, 1, 42, "me")
    assert spec.request is MetadataRequest and req.topics is None


def test_response_envelope_carries_correlation_id():
    frame = encode_response(9, ApiVersionsResponse(error_code=0), 0)
    cid, body = decode_response_envelope(frame[4:])
    assert cid == 9 and ApiVersionsResponse.from_wire(body, 0).error_code == 0


def test_garbage_is_a_frame_error():
    with pytest.raises(FrameError):
        decode_request(b"\xc1\xc1\xc1")
    with pytest.raises(FrameError):
        decode_request(msgpack.packb({"not": "a header"}))


def test_unknown_api_and_version_are_unsupported():
    with pytest.raises(UnsupportedVersionError) as info:
        decode_request(msgpack.packb([999, 0, 1, None, []]))
    assert info.value.header.correlation_id == 1
    with pytest.raises(UnsupportedVersionError):
        decode_request(msgpack.packb([18, 7, 1, None, ["a", "b"]]))


def test_wrong_field_types_raise_schema_error_with_header():
    with pytest.raises(SchemaError) as info:
        decode_request(msgpack.packb([18, 0, 5, None, [1, 2]]))
    assert info.value.header.correlation_id == 5


def test_frame_length_bounds():
    check_frame_length(10, 100)
    with pytest.raises(FrameError):
        check_frame_length(101, 100)
    with pytest.raises(FrameError):
        check_frame_length(-1, 100)


def test_api_versions_request_encodes():
    assert decode_request(encode_request(ApiVersionsRequest(), 0, 1, None)[4:])[2] == ApiVersionsRequest()


@pytest.mark.parametrize("size", [0, 100, SPLICE_MIN_BYTES - 1, SPLICE_MIN_BYTES, 70_000])
def test_buffers_encoding_is_byte_identical_and_passes_record_batches_uncopied(size):
    records = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    response = FetchResponse(
        responses=[
            FetchTopicResponse(
                topic="t",
                partitions=[
                    FetchPartitionData(partition_index=0, error_code=0, records=records),
                    FetchPartitionData(partition_index=1, error_code=0, records=None),
                    FetchPartitionData(partition_index=2, error_code=0, records=records),
                ],
            )
        ]
    )
    body = msgpack.packb([5, response.to_wire(0)], use_bin_type=True)
    buffers = encode_response_buffers(5, response, 0)
    assert b"".join(buffers) == LENGTH.pack(len(body)) + body == encode_response(5, response, 0)
    assert sum(1 for b in buffers if b is records) == (2 if size >= SPLICE_MIN_BYTES else 0)
    request = ProduceRequest(
        acks=1,
        timeout_ms=30000,
        topic_data=[
            ProduceTopicData(name="t", partition_data=[ProducePartitionData(index=0, records=records)])
        ],
    )
    request_buffers = encode_request_buffers(request, 9, 9, "me")
    request_body = msgpack.packb([0, 9, 9, "me", request.to_wire(9)], use_bin_type=True)
    assert b"".join(request_buffers) == LENGTH.pack(len(request_body)) + request_body
    assert sum(1 for b in request_buffers if b is records) == (1 if size >= SPLICE_MIN_BYTES else 0)
    assert decode_request(b"".join(request_buffers)[4:])[2] == request
