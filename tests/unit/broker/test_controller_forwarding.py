"""at_controller (KIP-590 forwarding): a request this node's active controller answers
NOT_CONTROLLER because it lost its leadership while writing is sent on to the new active
controller through the controller channel, while a request that already came over another
node's channel is answered as it is (one hop).  Pure logic: a controller whose leadership ends
with its first answer and a channel that records what it sends."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from kafkette.broker.apis.controller_forwarding import at_controller
from kafkette.broker.config import KafkaConfig
from kafkette.broker.node_to_controller_channel import CONTROLLER_CHANNEL_CLIENT_SUFFIX
from kafkette.protocol.apis.create_topics import (
    CreatableTopicResult,
    CreateTopicsRequest,
    CreateTopicsResponse,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

pytestmark = pytest.mark.timeout(30)


def _answer(code: int) -> CreateTopicsResponse:
    return CreateTopicsResponse(topics=[CreatableTopicResult(name="t", error_code=code)])


class ResigningController:
    """The active controller that loses its leadership during its first write: it answers
    NOT_CONTROLLER and is a standby from then on."""

    def __init__(self) -> None:
        self.is_active = True
        self.controller = self  # its own current term
        self.asked = 0

    async def create_topics(self, request: CreateTopicsRequest) -> CreateTopicsResponse:
        self.asked += 1
        self.is_active = False
        return _answer(Errors.NOT_CONTROLLER)


class NewControllerChannel:
    """The controller channel, whose voter now is the active controller."""

    def __init__(self) -> None:
        self.sent: list[object] = []

    async def send(self, request: object, timeout_ms: int | None = None) -> CreateTopicsResponse:
        self.sent.append(request)
        return _answer(Errors.NONE)


def _ctx(controller: ResigningController, channel: NewControllerChannel) -> SimpleNamespace:
    config = KafkaConfig(
        {"node.id": "1", "controller.quorum.voters": "1@127.0.0.1:9093", "request.timeout.ms": "2000"}
    )
    return SimpleNamespace(controller=controller, controller_channel=channel, config=config)


async def test_a_request_the_local_controller_fails_as_it_resigns_is_sent_on_to_the_new_controller() -> None:
    controller, channel = ResigningController(), NewControllerChannel()
    request = CreateTopicsRequest(topics=[], timeout_ms=1000)
    response = await at_controller(
        _ctx(controller, channel),
        RequestHeader(19, 7, 1, "client"),
        request,
        lambda c: c.controller.create_topics(request),
        1000,
    )
    assert [t.error_code for t in response.topics] == [Errors.NONE]
    assert (controller.asked, channel.sent) == (1, [request])


async def test_a_forwarded_request_the_local_controller_fails_as_it_resigns_goes_back_as_not_controller() -> (
    None
):
    controller, channel = ResigningController(), NewControllerChannel()
    request = CreateTopicsRequest(topics=[], timeout_ms=1000)
    header = RequestHeader(19, 7, 1, f"broker-2{CONTROLLER_CHANNEL_CLIENT_SUFFIX}")
    response = await at_controller(
        _ctx(controller, channel), header, request, lambda c: c.controller.create_topics(request), 1000
    )
    assert [t.error_code for t in response.topics] == [Errors.NOT_CONTROLLER]
    assert (controller.asked, channel.sent) == (1, [])
