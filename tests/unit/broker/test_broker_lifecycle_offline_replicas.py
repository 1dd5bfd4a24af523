"""BrokerLifecycleManager reports offline replicas: every heartbeat carries the whole set,
and a log going offline sends the next heartbeat at once instead of after the interval."""

from __future__ import annotations

import asyncio

from lifecycle_fakes import FakeControllerChannel, make_config

from kafkette.broker.broker_lifecycle_manager import BrokerLifecycleManager
from kafkette.protocol.apis.broker_registration import BrokerHeartbeatRequest, BrokerHeartbeatResponse
from kafkette.protocol.topic_partition import TopicPartition

HOUR_MS = 3_600_000


class Heartbeats:
    """Answers heartbeats (unfenced) and lets a test wait for the n-th one."""

    def __init__(self) -> None:
        self.received: list[BrokerHeartbeatRequest] = []
        self.changed = asyncio.Event()

    def __call__(self, request):
        assert isinstance(request, BrokerHeartbeatRequest)
        self.received.append(request)
        self.changed.set()
        return BrokerHeartbeatResponse(error_code=0, is_fenced=False)

    async def wait_for(self, count: int) -> None:
        while len(self.received) < count:
            self.changed.clear()
            await asyncio.wait_for(self.changed.wait(), 5)


def offline_of(request: BrokerHeartbeatRequest) -> list[tuple[str, list[int]]]:
    return [(t.topic_name, t.partitions) for t in request.offline_replicas]


async def test_a_log_going_offline_sends_a_heartbeat_at_once_carrying_every_offline_replica(tmp_path):
    offline: list[TopicPartition] = []
    answers = Heartbeats()
    channel = FakeControllerChannel(answers)
    manager = BrokerLifecycleManager(
        make_config(tmp_path, node_id=2, broker_heartbeat_interval_ms=HOUR_MS),
        channel,  # type: ignore[arg-type]
        offline_replicas=lambda: list(offline),
    )
    manager.broker_epoch = 7  # registered already
    manager.start()
    try:
        await answers.wait_for(1)
        assert offline_of(answers.received[0]) == []
        offline.extend([TopicPartition("b", 0), TopicPartition("a", 3), TopicPartition("a", 1)])
        manager.propagate_offline_replica(TopicPartition("a", 1))
        await answers.wait_for(2)  # the interval is an hour: only the wake-up sends it
        assert offline_of(answers.received[1]) == [("a", [1, 3]), ("b", [0])]
    finally:
        await manager.stop(controlled=True)
    shutdown = channel.requests[-1]
    assert shutdown.want_shut_down and offline_of(shutdown) == [("a", [1, 3]), ("b", [0])]
