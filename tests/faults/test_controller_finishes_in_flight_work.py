"""A controller that died right after writing a new topic to its metadata log
finishes the creation when it restarts (seed 002, "what if the controller dies after
the write").

The crash is reproduced on real processes, with node 1 the metadata quorum's only voter:
it is stopped, the records a CreateTopics would have written (topic, partitions; one
partition with its first leader chosen, one not yet elected) are appended to its metadata
log as a batch of its last epoch, and node 1 is restarted.  No broker was ever told about
the topic; once the new epoch commits and replays it, it must be online and serve produce
and consume.  (With three voters a committed write outlives its leader on the others: see
the controller failover tests.)
"""

from __future__ import annotations

import asyncio
import uuid

from kafkette.client import AdminClient, Consumer, Producer, TopicPartition
from kafkette.controller.metadata_records import PartitionRecord, TopicRecord
from tests.cluster_helpers import append_to_metadata_log

TOPIC = "written-not-online"


async def _wait_online(bootstrap: str, timeout_s: float = 30.0):
    deadline = asyncio.get_running_loop().time() + timeout_s
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        while True:
            if TOPIC in await admin.list_topics():
                parts = (await admin.describe_topics([TOPIC]))[TOPIC].partitions
                if len(parts) == 2 and all(p.leader >= 0 for p in parts):
                    return parts
            assert asyncio.get_running_loop().time() < deadline, "topic never came online after the replay"
            await asyncio.sleep(0.25)


async def test_controller_restart_brings_a_written_but_unannounced_topic_online(cluster_factory):
    cluster = cluster_factory(3, controllers=1)
    controller_id = cluster.broker_ids[0]
    cluster.stop_broker(controller_id, hard=True)
    append_to_metadata_log(
        cluster,
        controller_id,
        [
            TopicRecord(TOPIC, uuid.uuid4().hex),
            PartitionRecord(TOPIC, 0, replicas=[2, 3], isr=[2, 3], leader=2),
            PartitionRecord(TOPIC, 1, replicas=[3, 2], isr=[3, 2], leader=-1),  # not yet elected
        ],
    )

    cluster.start_broker(controller_id)
    bootstrap = cluster.bootstrap_servers
    parts = await _wait_online(bootstrap)
    assert [(p.partition, p.replicas) for p in parts] == [(0, [2, 3]), (1, [3, 2])]
    assert parts[0].leader == 2 and parts[1].leader in (3, 2)

    async with Producer(bootstrap_servers=bootstrap, acks="all") as producer:
        metas = [await producer.send_and_wait(TOPIC, f"v{p}".encode(), partition=p) for p in (0, 1)]
    assert [m.offset for m in metas] == [0, 0]
    tps = [TopicPartition(TOPIC, p) for p in (0, 1)]
    async with Consumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest") as consumer:
        consumer.assign(tps)
        got: dict[int, list[bytes]] = {0: [], 1: []}
        deadline = asyncio.get_running_loop().time() + 20
        while sum(map(len, got.values())) < 2:
            assert asyncio.get_running_loop().time() < deadline
            for tp, records in (await consumer.getmany(timeout_ms=500)).items():
                got[tp.partition].extend(r.value for r in records)
    assert got == {0: [b"v0"], 1: [b"v1"]}
