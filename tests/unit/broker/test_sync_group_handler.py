"""The SyncGroup handler called directly: from version 5 the protocol type and name are mandatory
(Kafka's ``SyncGroupRequest.areMandatoryProtocolTypeAndNamePresent``), checked before the group."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from kafkette.broker.apis import sync_group
from kafkette.protocol.apis.group_membership import SyncGroupRequest, SyncGroupResponse
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader


class _Coordinator:
    def __init__(self) -> None:
        self.asked: list[SyncGroupRequest] = []

    async def handle_sync_group(self, request: SyncGroupRequest) -> SyncGroupResponse:
        self.asked.append(request)
        return SyncGroupResponse(error_code=Errors.UNKNOWN_MEMBER_ID)


async def _sync(version: int, protocol_type: str | None, protocol_name: str | None) -> tuple[int, int]:
    coordinator = _Coordinator()
    request = SyncGroupRequest(
        group_id="", generation_id=1, member_id="m", protocol_type=protocol_type, protocol_name=protocol_name
    )
    header = RequestHeader(api_key=14, api_version=version, correlation_id=1, client_id="c")
    response = await sync_group.handle(SimpleNamespace(group_coordinator=coordinator), header, request)
    return response.error_code, len(coordinator.asked)


@pytest.mark.parametrize(
    ("protocol_type", "protocol_name"), [(None, "range"), ("consumer", None), (None, None)]
)
async def test_a_v5_request_without_protocol_type_or_name_is_inconsistent_group_protocol(
    protocol_type, protocol_name
):
    assert await _sync(5, protocol_type, protocol_name) == (Errors.INCONSISTENT_GROUP_PROTOCOL, 0)


async def test_a_v5_request_with_both_and_an_older_one_without_reach_the_coordinator():
    assert await _sync(5, "consumer", "range") == (Errors.UNKNOWN_MEMBER_ID, 1)
    assert await _sync(4, None, None) == (Errors.UNKNOWN_MEMBER_ID, 1)
