"""NodeToControllerChannelManager follows the active controller: a voter answering NOT_CONTROLLER
or one that cannot be reached is passed over within the same send, the voter that answered is
asked first next time, the node's own voter's hint wins, and with no active controller the
NOT_CONTROLLER answer comes back to the caller.  Real sockets on 127.0.0.1."""

from __future__ import annotations

import pytest

from kafkette.broker.config import KafkaConfig
from kafkette.broker.node_to_controller_channel import NodeToControllerChannelManager, is_not_controller
from kafkette.client.local_cluster import free_ports
from kafkette.common.network.socket_server import SocketServer
from kafkette.protocol.apis.broker_registration import BrokerHeartbeatRequest, BrokerHeartbeatResponse
from kafkette.protocol.apis.create_partitions import CreatePartitionsResponse, CreatePartitionsTopicResult
from kafkette.protocol.apis.create_topics import CreatableTopicResult, CreateTopicsResponse
from kafkette.protocol.apis.delete_topics import DeletableTopicResult, DeleteTopicsResponse
from kafkette.protocol.errors import Errors, KafkaConnectionError

pytestmark = pytest.mark.timeout(30)


class FakeVoter:
    """A listener answering every BrokerHeartbeat with ``error_code`` and counting them."""

    def __init__(self, port: int, error_code: int) -> None:
        self.error_code = error_code
        self.asked = 0

        async def handle(header, spec, request):
            self.asked += 1
            return BrokerHeartbeatResponse(error_code=self.error_code)

        self.server = SocketServer(
            "127.0.0.1", port, handle, max_request_bytes=1 << 20, max_queued_requests=10, broker_id=port
        )


def _channel(ports: list[int], hint=None) -> NodeToControllerChannelManager:
    voters = ",".join(f"{i + 1}@127.0.0.1:{port}" for i, port in enumerate(ports))
    config = KafkaConfig({"node.id": "9", "controller.quorum.voters": voters, "request.timeout.ms": "2000"})
    return NodeToControllerChannelManager(config, controller_hint=hint)


HEARTBEAT = BrokerHeartbeatRequest(broker_id=9, broker_epoch=1)


@pytest.fixture
async def voters():
    ports = free_ports(3)
    started = [FakeVoter(ports[0], Errors.NOT_CONTROLLER), FakeVoter(ports[2], Errors.NONE)]
    for voter in started:
        await voter.server.start()
    yield ports, started  # nothing listens on ports[1]: voter 2 is down
    for voter in started:
        await voter.server.stop()


async def test_a_send_passes_over_a_standby_and_a_dead_voter_and_remembers_the_controller(voters):
    ports, (standby, active) = voters
    channel = _channel(ports)
    try:
        assert (await channel.send(HEARTBEAT)).error_code == Errors.NONE
        assert (standby.asked, active.asked, channel.controller_id) == (1, 1, 3)
        assert (await channel.send(HEARTBEAT)).error_code == Errors.NONE
        assert (standby.asked, active.asked) == (1, 2)  # straight to voter 3
    finally:
        await channel.close()


async def test_the_local_voters_hint_is_asked_first(voters):
    ports, (standby, active) = voters
    channel = _channel(ports, hint=lambda: 3)
    try:
        assert (await channel.send(HEARTBEAT)).error_code == Errors.NONE
        assert (standby.asked, active.asked) == (0, 1)
    finally:
        await channel.close()


async def test_without_an_active_controller_the_caller_gets_not_controller(voters):
    ports, (standby, active) = voters
    active.error_code = Errors.NOT_CONTROLLER  # an election is going on
    channel = _channel(ports, hint=lambda: 3)  # a stale hint is tried once only
    try:
        assert (await channel.send(HEARTBEAT)).error_code == Errors.NOT_CONTROLLER
        assert (standby.asked, active.asked) == (1, 1)
    finally:
        await channel.close()


async def test_no_voter_reachable_raises_a_connection_error():
    channel = _channel(free_ports(2))
    try:
        with pytest.raises(KafkaConnectionError):
            await channel.send(HEARTBEAT)
    finally:
        await channel.close()


@pytest.mark.parametrize(
    "response, expected",
    [
        (
            CreatePartitionsResponse(
                results=[CreatePartitionsTopicResult(name="t", error_code=Errors.NOT_CONTROLLER)]
            ),
            True,
        ),
        (
            DeleteTopicsResponse(
                responses=[DeletableTopicResult(name="t", error_code=Errors.NOT_CONTROLLER)]
            ),
            True,
        ),
        (
            CreateTopicsResponse(topics=[CreatableTopicResult(name="t", error_code=Errors.NOT_CONTROLLER)]),
            True,
        ),
        (
            CreatePartitionsResponse(
                results=[
                    CreatePartitionsTopicResult(name="t", error_code=Errors.NOT_CONTROLLER),
                    CreatePartitionsTopicResult(name="u", error_code=Errors.NONE),
                ]
            ),
            False,
        ),
        (CreatePartitionsResponse(results=[]), False),
    ],
)
def test_a_per_item_answer_says_not_controller_when_every_item_does(response, expected):
    assert is_not_controller(response) is expected
