"""The listener's bounds from server.properties: queued.max.request.bytes (-1 by default, else at
least socket.request.max.bytes, as Kafka's KafkaConfig requires), and one set of options for the
broker's and the controller-only node's listeners."""

from __future__ import annotations

import pytest

from kafkette.broker.config import ConfigError, KafkaConfig
from kafkette.broker.server import listener_options
from kafkette.common.network.socket_server import SocketServer


def _config(**props: str) -> KafkaConfig:
    return KafkaConfig({"node.id": "1", "controller.quorum.voters": "1@127.0.0.1:9092", **props})


def test_queued_max_request_bytes_is_unbounded_by_default_and_must_cover_one_request():
    assert _config().queued_max_request_bytes == -1
    assert _config(**{"queued.max.request.bytes": "104857600"}).queued_max_request_bytes == 104857600
    with pytest.raises(
        ConfigError, match="queued.max.request.bytes must be larger or equal to socket.request.max.bytes"
    ):
        _config(**{"queued.max.request.bytes": "1000"})
    assert _config(**{"queued.max.request.bytes": "1000", "socket.request.max.bytes": "1000"})


def test_the_listener_gets_every_bound_and_a_memory_pool_only_when_one_is_set():
    options = listener_options(
        _config(
            **{
                "max.connections": "7",
                "max.connections.per.ip": "3",
                "connections.max.idle.ms": "1234",
                "queued.max.requests": "9",
                "queued.max.request.bytes": "209715200",
            }
        )
    )
    server = SocketServer("127.0.0.1", 0, lambda *a: None, broker_id=1, **options)
    assert (
        server.max_connections,
        server.max_connections_per_ip,
        server.connections_max_idle_ms,
        server.max_queued_requests,
    ) == (7, 3, 1234, 9)
    assert server.memory_pool is not None and server.memory_pool.capacity_bytes == 209715200
    assert (
        SocketServer("127.0.0.1", 0, lambda *a: None, broker_id=1, **listener_options(_config())).memory_pool
        is None
    )
