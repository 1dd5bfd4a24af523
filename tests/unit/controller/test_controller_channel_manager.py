"""ControllerChannelManager: ordered delivery, retries with backoff, removal, stop (fake connections)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from kafkette.controller.controller_channel_manager import ControllerChannelManager
from kafkette.protocol.apis.update_metadata import UpdateMetadataRequest, UpdateMetadataResponse
from kafkette.protocol.errors import KafkaConnectionError, KafkaTimeoutError


class FakeNetwork:
    """Scripted broker side: connect/send failures to inject, and optional manual replies."""

    def __init__(self) -> None:
        self.connect_failures = 0
        self.send_failures = 0
        self.manual_replies = False
        self.replies: list[asyncio.Future[Any]] = []
        self.received: list[tuple[tuple[str, int], Any]] = []
        self.connections: list[FakeConnection] = []
        self.in_flight = 0
        self.max_in_flight = 0

    def factory(self, host: str, port: int, **kwargs: Any) -> FakeConnection:
        conn = FakeConnection(self, host, port, kwargs)
        self.connections.append(conn)
        return conn


class FakeConnection:
    def __init__(self, net: FakeNetwork, host: str, port: int, kwargs: dict[str, Any]) -> None:
        self.net, self.address, self.kwargs = net, (host, port), kwargs
        self.closed = False

    async def connect(self) -> FakeConnection:
        if self.net.connect_failures:
            self.net.connect_failures -= 1
            raise KafkaConnectionError("connection refused")
        return self

    async def send(self, request: Any, *, timeout_ms: int) -> Any:
        if self.net.send_failures:
            self.net.send_failures -= 1
            raise KafkaTimeoutError("no response")
        self.net.received.append((self.address, request))
        self.net.in_flight += 1
        self.net.max_in_flight = max(self.net.max_in_flight, self.net.in_flight)
        try:
            if self.net.manual_replies:
                reply: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
                self.net.replies.append(reply)
                return await reply
            return UpdateMetadataResponse(error_code=0)
        finally:
            self.net.in_flight -= 1

    async def close(self) -> None:
        self.closed = True


def request(epoch: int) -> UpdateMetadataRequest:
    return UpdateMetadataRequest(controller_id=1, controller_epoch=epoch)


@pytest.fixture
async def network_and_manager():
    net = FakeNetwork()
    manager = ControllerChannelManager(
        1, retry_backoff_ms=0, max_retry_backoff_ms=0, connection_factory=net.factory
    )
    await manager.start()
    yield net, manager
    await manager.stop()


async def test_requests_are_delivered_in_order_and_futures_get_responses(network_and_manager):
    net, manager = network_and_manager
    manager.add_broker(2, "127.0.0.1", 9002)
    futures = [manager.send(2, request(e)) for e in range(5)]
    responses = await asyncio.wait_for(asyncio.gather(*futures), 5)
    assert all(r.error_code == 0 for r in responses)
    assert [r.controller_epoch for _, r in net.received] == [0, 1, 2, 3, 4]
    assert len(net.connections) == 1 and net.connections[0].address == ("127.0.0.1", 9002)
    assert net.connections[0].kwargs["client_id"] == "controller-1"


async def test_only_one_request_is_in_flight_per_broker(network_and_manager):
    net, manager = network_and_manager
    net.manual_replies = True
    manager.add_broker(2, "127.0.0.1", 9002)
    first, second = manager.send(2, request(1)), manager.send(2, request(2))
    while not net.replies:
        await asyncio.sleep(0)
    assert len(net.received) == 1
    net.replies[0].set_result(UpdateMetadataResponse(error_code=0))
    await asyncio.wait_for(first, 5)
    while len(net.replies) < 2:
        await asyncio.sleep(0)
    net.replies[1].set_result(UpdateMetadataResponse(error_code=0))
    await asyncio.wait_for(second, 5)
    assert net.max_in_flight == 1


async def test_connection_errors_are_retried_until_the_send_succeeds(network_and_manager):
    net, manager = network_and_manager
    net.connect_failures = 3
    net.send_failures = 2
    manager.add_broker(2, "127.0.0.1", 9002)
    response = await asyncio.wait_for(manager.send(2, request(7)), 5)
    assert response.error_code == 0
    assert [r.controller_epoch for _, r in net.received] == [7]
    assert len(net.connections) == 6
    assert all(c.closed for c in net.connections[3:5])


async def test_requests_to_a_broker_that_cannot_be_reached_are_reported_until_it_answers(network_and_manager):
    net, manager = network_and_manager
    net.connect_failures = 1_000_000
    manager.add_broker(2, "127.0.0.1", 9002)
    manager.add_broker(3, "127.0.0.1", 9003)
    stuck = manager.send(2, request(7))
    for _ in range(100):
        if manager.awaiting_unreachable_brokers():
            break
        await asyncio.sleep(0.01)
    assert manager.awaiting_unreachable_brokers() == {stuck}
    net.connect_failures = 0
    await asyncio.wait_for(stuck, 5)
    assert manager.awaiting_unreachable_brokers() == set()


async def test_removing_a_broker_fails_its_queued_requests_and_closes_the_connection(network_and_manager):
    net, manager = network_and_manager
    net.manual_replies = True
    manager.add_broker(2, "127.0.0.1", 9002)
    in_flight, queued = manager.send(2, request(1)), manager.send(2, request(2))
    while not net.replies:
        await asyncio.sleep(0)
    manager.remove_broker(2)
    with pytest.raises(KafkaConnectionError):
        await asyncio.wait_for(queued, 5)
    await manager.stop()
    assert in_flight.done() and not in_flight.cancelled()
    assert net.connections[0].closed
    assert manager.broker_ids == []


async def test_send_to_a_broker_without_a_channel_fails_at_once(network_and_manager):
    _, manager = network_and_manager
    future = manager.send(9, request(1))
    assert future.done()
    with pytest.raises(KafkaConnectionError):
        future.result()


async def test_adding_a_broker_at_a_new_address_replaces_its_channel(network_and_manager):
    net, manager = network_and_manager
    manager.add_broker(2, "127.0.0.1", 9002)
    await manager.send(2, request(1))
    manager.add_broker(2, "127.0.0.1", 9002)
    manager.add_broker(2, "127.0.0.1", 9102)
    await asyncio.wait_for(manager.send(2, request(2)), 5)
    assert [addr for addr, _ in net.received] == [("127.0.0.1", 9002), ("127.0.0.1", 9102)]


async def test_full_queue_fails_the_request_instead_of_blocking():
    net = FakeNetwork()
    net.manual_replies = True
    manager = ControllerChannelManager(1, max_queued_requests=1, connection_factory=net.factory)
    manager.add_broker(2, "127.0.0.1", 9002)
    try:
        manager.send(2, request(1))
        while not net.replies:
            await asyncio.sleep(0)
        manager.send(2, request(2))
        overflow = manager.send(2, request(3))
        with pytest.raises(KafkaConnectionError, match="full"):
            overflow.result()
    finally:
        await manager.stop()
