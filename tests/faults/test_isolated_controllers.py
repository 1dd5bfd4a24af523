"""Controller-only nodes (``process.roles=controller``, Kafka's isolated mode): three voters that
run no broker beside three brokers.

The voters are not in Metadata's broker list, hold no partition, and Metadata names a broker as
the controller (the brokers forward controller requests to the active controller, KIP-590).
Topics are created through any broker, take acks=all writes and are read back; the active
controller is killed with SIGKILL, another voter takes over, CreateTopics and acks=all writes go
on through the brokers, and the killed voter rejoins the quorum when restarted.
"""

from __future__ import annotations

import pytest

from kafkette.client import AdminClient, NewTopic, Producer, TopicPartition
from tests.cluster_helpers import (
    consume_from_beginning,
    wait_for_partitions,
    wait_for_quorum_leader,
    wait_until,
)

pytestmark = pytest.mark.timeout(180)


async def test_three_controller_only_nodes_serve_three_brokers_and_survive_a_kill(cluster_factory):
    cluster = cluster_factory(3, controllers=3, isolated_controllers=True)
    assert cluster.voter_ids == [3001, 3002, 3003]
    bootstrap = cluster.bootstrap_servers
    acked: list[bytes] = []
    async with AdminClient(bootstrap_servers=bootstrap, request_timeout_ms=5000) as admin:
        described = await admin.describe_cluster()
        assert [b.node_id for b in described["brokers"]] == [1, 2, 3]
        assert described["controller_id"] in (1, 2, 3)  # a broker, which forwards
        leader, epoch = await wait_for_quorum_leader(admin)
        assert leader in cluster.voter_ids
        assert (
            sorted(v.replica_id for v in (await admin.describe_metadata_quorum()).voters) == cluster.voter_ids
        )

        await admin.create_topics([NewTopic("isolated", 3, 3, configs={"min.insync.replicas": "2"})])
        await wait_for_partitions(
            bootstrap, "isolated", lambda ps: all(len(p.isr) == 3 for p in ps), "full ISRs"
        )
        async with Producer(bootstrap_servers=bootstrap, acks="all") as producer:
            for i in range(30):
                await producer.send_and_wait("isolated", f"before-{i}".encode(), partition=i % 3)
                acked.append(f"before-{i}".encode())
        for voter in cluster.voter_ids:
            logs = cluster.broker_dir(voter) / "logs"
            assert sorted(p.name for p in logs.iterdir() if p.is_dir()) == ["__cluster_metadata-0"]

        cluster.stop_broker(leader, hard=True)
        new_leader, new_epoch = await wait_for_quorum_leader(admin, leader)
        assert new_leader in cluster.voter_ids and new_epoch > epoch
        await admin.create_topics([NewTopic("after-the-kill", 2, 3)])
        async with Producer(bootstrap_servers=bootstrap, acks="all") as producer:
            for i in range(30):
                await producer.send_and_wait("isolated", f"after-{i}".encode(), partition=i % 3)
                acked.append(f"after-{i}".encode())

        cluster.start_broker(leader)

        async def rejoined() -> bool:
            quorum = await admin.describe_metadata_quorum(timeout_ms=2000)
            return {v.replica_id: v.log_end_offset for v in quorum.voters}.get(
                leader, -1
            ) >= quorum.high_watermark

        await wait_until(rejoined, f"controller {leader} back in the quorum", timeout_s=30)
        assert "after-the-kill" in await admin.list_topics()

    records = await consume_from_beginning(
        bootstrap, [TopicPartition("isolated", p) for p in range(3)], count=len(acked), timeout_s=60
    )
    assert sorted(r.value for r in records) == sorted(acked)
