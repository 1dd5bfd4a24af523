"""The msgpack listener's answer to a request it cannot decode (``protocol.wire_codec``)."""

import msgpack
import pytest

from kafkette.protocol.api_keys import API_REGISTRY, ApiKey
from kafkette.protocol.errors import Errors
from kafkette.protocol.wire_codec import MsgpackCodec, MsgpackReply, RequestDecodeError


@pytest.mark.parametrize(
    ("key", "version", "answered"),
    [
        (ApiKey.METADATA, 1, False),  # Metadata's top-level error_code is v13+ (KIP-1102)
        (ApiKey.METADATA, 13, True),
        (ApiKey.DESCRIBE_LOG_DIRS, 2, False),  # DescribeLogDirs' is v3+
        (ApiKey.DESCRIBE_LOG_DIRS, 3, True),
        (ApiKey.API_VERSIONS, 0, True),
    ],
)
def test_an_error_answer_exists_only_where_the_version_has_a_top_level_error_code(key, version, answered):
    reply = MsgpackReply(7, version, API_REGISTRY[key])
    answer = reply.error_response(Errors.INVALID_REQUEST)
    assert (answer is not None) == answered
    if answered:
        assert answer.error_code == Errors.INVALID_REQUEST


def test_a_malformed_metadata_request_before_v13_is_not_answered_as_a_success():
    with pytest.raises(RequestDecodeError) as caught:
        MsgpackCodec().decode(msgpack.packb([3, 1, 78, None, ["x", 1]]))
    assert caught.value.code == Errors.INVALID_REQUEST
    assert caught.value.reply is not None
    assert caught.value.reply.error_response(caught.value.code) is None
