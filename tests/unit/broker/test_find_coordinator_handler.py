"""The FindCoordinator handler called directly for share-partition keys (key type 2, KIP-932): the
answers of a broker without share groups."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from kafkette.broker.apis import find_coordinator
from kafkette.broker.apis.find_coordinator import is_share_partition_key
from kafkette.protocol.apis.find_coordinator import COORDINATOR_TYPE_SHARE, FindCoordinatorRequest
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

TOPIC_ID = "AAECAwQFBgcICQoLDA0ODw"  # Uuid.toString of bytes 0..15


async def _share(version: int, *keys: str) -> list[tuple[str, int, int, str, int]]:
    request = FindCoordinatorRequest(key_type=COORDINATOR_TYPE_SHARE, coordinator_keys=list(keys))
    header = RequestHeader(api_key=10, api_version=version, correlation_id=1, client_id="c")
    response = await find_coordinator.handle(SimpleNamespace(), header, request)
    return [(c.key, c.node_id, c.port, c.host, c.error_code) for c in response.coordinators]


async def test_a_share_key_before_v6_is_invalid_request():
    key = f"g:{TOPIC_ID}:0"
    assert await _share(5, key) == [(key, -1, -1, "", Errors.INVALID_REQUEST)]


async def test_a_well_formed_share_key_at_v6_has_no_coordinator_available():
    keys = [f"g:{TOPIC_ID}:0", f"a:b:{TOPIC_ID}:-3"]
    assert await _share(6, *keys) == [(k, -1, -1, "", Errors.COORDINATOR_NOT_AVAILABLE) for k in keys]


async def test_a_malformed_share_key_at_v6_is_invalid_request():
    keys = ["group-only", f"g:{TOPIC_ID}:x", "g:not-a-uuid:0"]
    assert [error for *_, error in await _share(6, *keys)] == [Errors.INVALID_REQUEST] * 3


@pytest.mark.parametrize(
    ("key", "valid"),
    [
        (f"g:{TOPIC_ID}:0", True),
        (f"g:{TOPIC_ID}==:0", True),  # padded base64 decodes to the same 16 bytes
        (f"g:{TOPIC_ID}:+7", True),  # Integer.parseInt takes a sign
        (f"g:{TOPIC_ID}:0::", True),  # Java's split drops trailing empty parts
        (f"with:colons:{TOPIC_ID}:1", True),  # the group id is everything before the last two parts
        ("", False),
        (f"{TOPIC_ID}:0", False),  # two parts
        (f" :{TOPIC_ID}:0", False),  # blank group id (String.trim)
        (f"g:{TOPIC_ID[:-1]}:0", False),  # 15 bytes
        (f"g:{TOPIC_ID[:-1]}+:0", False),  # not URL-safe base64
        (f"g:{TOPIC_ID}:2147483648", False),  # beyond int32
        (f"g:{TOPIC_ID}: 1", False),  # parseInt takes no spaces
    ],
)
def test_share_partition_keys_parse_as_kafkas_share_partition_key(key, valid):
    assert is_share_partition_key(key) is valid
