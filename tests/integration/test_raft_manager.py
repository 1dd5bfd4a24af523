"""Three voters of the metadata quorum over real loopback connections and real files: a leader is
elected, proposals commit on every voter in order, the quorum carries on without its leader, and
a restarted voter catches up from its own log and the new leader's."""

from __future__ import annotations

import asyncio
import random

import pytest

from kafkette.client.local_cluster import free_ports
from kafkette.common.network.connection import BrokerConnection
from kafkette.common.network.socket_server import SocketServer
from kafkette.controller.metadata_record_serde import METADATA_RECORD_SERDE
from kafkette.controller.metadata_records import RegisterBrokerRecord, TopicRecord
from kafkette.controller.raft.kafka_raft_client import LeaderChange
from kafkette.controller.raft.raft_config import RaftConfig
from kafkette.controller.raft.raft_manager import RaftManager
from kafkette.controller.raft.raft_messages import VoteRequest
from kafkette.controller.raft.raft_wire import RaftWire
from kafkette.protocol.errors import Errors, NotLeaderOrFollowerError

pytestmark = pytest.mark.timeout(120)

CONFIG = RaftConfig(
    election_timeout_ms=300, fetch_timeout_ms=600, election_backoff_max_ms=300, request_timeout_ms=300
)


class Voter:
    """A RaftManager behind a SocketServer on 127.0.0.1, recording what it sees committed."""

    def __init__(self, node_id: int, addresses: dict[int, tuple[str, int]], directory: str) -> None:
        self.node_id = node_id
        self.committed: list = []
        self.manager = RaftManager(
            node_id,
            addresses,
            directory,
            cluster_id="c1",
            serde=METADATA_RECORD_SERDE,
            config=CONFIG,
            on_commit=lambda entries: self.committed.extend(e.payload for e in entries),
            rng=random.Random(node_id),
        )

        async def handle(header, spec, request):
            return await self.manager.handle_request(request)

        host, port = addresses[node_id]
        self.server = SocketServer(
            host, port, handle, max_request_bytes=1 << 20, max_queued_requests=100, broker_id=node_id
        )

    async def start(self) -> Voter:
        await self.server.start()
        await self.manager.start()
        return self

    async def stop(self) -> None:
        await self.server.stop()
        await self.manager.stop()

    def records(self) -> list:
        return [p for p in self.committed if not isinstance(p, LeaderChange)]


async def _leader(voters: list[Voter], timeout_s: float = 10) -> Voter:
    deadline = asyncio.get_running_loop().time() + timeout_s
    while asyncio.get_running_loop().time() < deadline:
        leaders = [v for v in voters if v.manager.client is not None and v.manager.client.is_leader()]
        if len(leaders) == 1:
            return leaders[0]
        await asyncio.sleep(0.05)
    raise AssertionError(f"no single leader within {timeout_s} s")


async def _until(predicate, timeout_s: float = 10) -> None:
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not predicate():
        if asyncio.get_running_loop().time() >= deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.05)


@pytest.fixture
async def quorum(tmp_path):
    """Three started voters on free loopback ports (stopped at teardown), and their addresses."""
    addresses = {i + 1: ("127.0.0.1", port) for i, port in enumerate(free_ports(3))}
    voters = [await Voter(i, addresses, str(tmp_path / f"node-{i}")).start() for i in (1, 2, 3)]
    yield voters, addresses
    for voter in voters:
        await voter.stop()


async def test_three_voters_elect_commit_fail_over_and_catch_up(quorum, tmp_path):
    voters, addresses = quorum
    leader = await _leader(voters)
    first = [RegisterBrokerRecord(1, 1, "i1", "127.0.0.1", 9092), TopicRecord("events", "id-1")]
    await leader.manager.propose(first, timeout_ms=5000)
    await _until(lambda: all(v.records() == first for v in voters))

    await leader.stop()
    rest = [v for v in voters if v is not leader]
    new_leader = await _leader(rest)
    assert new_leader.manager.epoch > leader.manager.epoch
    second = [TopicRecord("orders", "id-2")]
    await new_leader.manager.propose(second, timeout_ms=5000)
    await _until(lambda: all(v.records() == first + second for v in rest))

    restarted = await Voter(leader.node_id, addresses, str(tmp_path / f"node-{leader.node_id}")).start()
    voters[voters.index(leader)] = restarted
    await _until(lambda: restarted.records() == first + second)
    assert restarted.manager.epoch == new_leader.manager.epoch


async def test_a_follower_refuses_to_propose(tmp_path):
    ports = free_ports(3)
    addresses = {i + 1: ("127.0.0.1", port) for i, port in enumerate(ports)}
    voters = [await Voter(i, addresses, str(tmp_path / f"node-{i}")).start() for i in (1, 2, 3)]
    try:
        leader = await _leader(voters)
        follower = next(v for v in voters if v is not leader)
        with pytest.raises(NotLeaderOrFollowerError):
            await follower.manager.propose([TopicRecord("x", "id-x")], timeout_ms=1000)
    finally:
        for voter in voters:
            await voter.stop()


async def test_a_request_from_another_cluster_or_an_unknown_voter_is_refused_with_kafkas_code(quorum):
    voters, addresses = quorum
    leader = await _leader(voters)
    host, port = addresses[leader.node_id]
    vote = RaftWire(METADATA_RECORD_SERDE).to_wire(
        VoteRequest(leader.manager.epoch + 5, 2, 0, 0), "another-cluster"
    )
    async with BrokerConnection(host, port, client_id="stranger") as connection:
        answer = await connection.send(vote, timeout_ms=5000)
        assert answer.error_code == Errors.INCONSISTENT_CLUSTER_ID
        stranger = await connection.send(
            RaftWire(METADATA_RECORD_SERDE).to_wire(VoteRequest(leader.manager.epoch + 5, 42, 0, 0), "c1"),
            timeout_ms=5000,
        )
        assert stranger.topics[0].partitions[0].error_code == Errors.INCONSISTENT_VOTER_SET
    assert leader.manager.client is not None and leader.manager.client.is_leader()  # unmoved by either
