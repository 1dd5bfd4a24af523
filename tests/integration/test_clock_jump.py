"""A broker whose wall clock jumps (libfaketime, its monotonic clock untouched) keeps serving:
LogAppendTime stamps follow the jumped clock and come back with it, offsets stay in order and
nothing is lost (a real broker process; installs Debian's faketime as root when missing)."""

from __future__ import annotations

import asyncio
import time

import pytest

from kafkette.client import AdminClient, LocalCluster, NewTopic, Producer, TopicPartition
from tests.chaos.clock import NodeClocks, find_libfaketime
from tests.cluster_helpers import consume_from_beginning

pytestmark = pytest.mark.timeout(180)

JUMP_S = 600


async def test_log_append_times_follow_a_jumping_wall_clock_and_nothing_is_lost(tmp_path):
    library, problem = find_libfaketime()
    if library is None:
        pytest.fail(f"this test needs libfaketime: {problem}")
    cluster = LocalCluster(num_brokers=1, data_dir=tmp_path / "cluster")
    clocks = NodeClocks(tmp_path / "clocks", cluster.broker_ids, library)
    cluster.node_env[1] = clocks.env(1)
    with cluster:
        async with AdminClient(bootstrap_servers=cluster.bootstrap_servers) as admin:
            await admin.create_topics([NewTopic("ticks", 1, 1, configs={"message.timestamp.type": "LogAppendTime"})])
        async with Producer(bootstrap_servers=cluster.bootstrap_servers, linger_ms=0) as producer:
            phases = [("before", None), ("ahead", JUMP_S), ("behind", -JUMP_S), ("after", None)]
            for label, offset in phases:
                if offset is None:
                    clocks.reset(1)
                else:
                    clocks.jump(1, offset)
                await asyncio.sleep(1.0)  # batches already sent leave under the old clock
                for i in range(5):
                    await (await producer.send("ticks", f"{label}-{i}".encode()))
        records = await consume_from_beginning(cluster.bootstrap_servers, [TopicPartition("ticks", 0)], 20)
    assert [r.offset for r in records] == list(range(20))
    assert [r.value.decode() for r in records] == [f"{label}-{i}" for label, _ in phases for i in range(5)]
    now_ms = time.time() * 1000
    by_phase = {label: [r.timestamp for r in records if r.value.decode().startswith(label)] for label, _ in phases}
    assert all(abs(now_ms - ts) < 120_000 for ts in by_phase["before"] + by_phase["after"])
    assert all(ts - now_ms > (JUMP_S - 120) * 1000 for ts in by_phase["ahead"])
    assert all(now_ms - ts > (JUMP_S - 120) * 1000 for ts in by_phase["behind"])
