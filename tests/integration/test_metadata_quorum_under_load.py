"""On real brokers, on a loaded machine: the metadata quorum keeps its leader through a metadata
storm.

Three combined nodes (broker and controller, Kafka's default timeouts:
``controller.quorum.election.timeout.ms`` 1000, ``controller.quorum.fetch.timeout.ms`` 2000)
run while two busy-looping processes per core compete for the CPU, and an AdminClient creates
topics, adds partitions, alters topic configs and deletes topics in a loop bounded in count and
time.  The quorum's leader and leader epoch (DescribeQuorum) must stay what they were before the
storm: a leader change here means the event loop of a voter stalled (a blocking fsync of the
metadata log, say) long enough for a follower's fetch timeout or the leader's check-quorum
timeout to fire.  The storm's seed is printed.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import subprocess
import sys
import time

import pytest

from kafkette.client import AdminClient, ConfigResource, LocalCluster, NewPartitions, NewTopic
from kafkette.protocol.errors import KafkaError

pytestmark = pytest.mark.timeout(300)

STORM_S = 90  # the storm's length (s)
STORM_MAX_OPS = 2000  # and its bound in operations
SAMPLE_S = 1.0  # how often the quorum is described during the storm
HOGS_PER_CORE = 2  # busy-looping processes per core


@pytest.fixture
def cluster(tmp_path):
    made = LocalCluster(
        num_brokers=3, data_dir=tmp_path, broker_configs={"auto.leader.rebalance.enable": False}
    )
    for node_id in made.node_ids:
        made.node_env[node_id] = {"PYTHONASYNCIODEBUG": "1"}  # slower callbacks; each over 100 ms logged
    started = made.start()
    try:
        yield started
    finally:
        started.stop()


@pytest.fixture
def cpu_hogs():
    """``HOGS_PER_CORE`` busy-looping processes per core, killed at teardown."""
    hogs = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"])
        for _ in range(HOGS_PER_CORE * (os.cpu_count() or 2))
    ]
    try:
        yield hogs
    finally:
        for hog in hogs:
            hog.kill()
        for hog in hogs:
            hog.wait(timeout=10)


DISK_HOGS = 2  # processes writing and fsyncing in a loop
DISK_HOG_CHUNK = 8 * 1024 * 1024  # bytes each writes before its fsync


@pytest.fixture
def disk_hogs(tmp_path):
    """``DISK_HOGS`` processes that write ``DISK_HOG_CHUNK`` bytes, fsync and start over, on the disk
    the brokers' logs are on, killed at teardown."""
    code = (
        "import os, sys\n"
        "chunk = os.urandom(int(sys.argv[2]))\n"
        "fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)\n"
        "while True:\n"
        "    os.lseek(fd, 0, 0)\n"
        "    os.write(fd, chunk)\n"
        "    os.fsync(fd)\n"
    )
    hogs = [
        subprocess.Popen([sys.executable, "-c", code, str(tmp_path / f"disk-hog-{i}"), str(DISK_HOG_CHUNK)])
        for i in range(DISK_HOGS)
    ]
    try:
        yield hogs
    finally:
        for hog in hogs:
            hog.kill()
        for hog in hogs:
            hog.wait(timeout=10)


async def _storm(admin: AdminClient, rng: random.Random, stop_at: float) -> dict[str, int]:
    outcomes: dict[str, int] = {}
    for i in range(STORM_MAX_OPS // 4):
        if time.monotonic() >= stop_at:
            break
        topic = f"storm-{i}"
        steps = (
            (
                "create",
                lambda topic=topic: admin.create_topics(
                    [NewTopic(topic, num_partitions=rng.randint(1, 4), replication_factor=3)]
                ),
            ),
            ("partitions", lambda topic=topic: admin.create_partitions({topic: NewPartitions(6)})),
            (
                "configs",
                lambda topic=topic: admin.alter_configs(
                    {
                        ConfigResource("topic", topic): {
                            "retention.ms": str(rng.randint(60_000, 600_000)),
                            "cleanup.policy": "delete",
                        }
                    }
                ),
            ),
            ("delete", lambda topic=topic: admin.delete_topics([topic])),
        )
        for name, step in steps:
            try:
                await step()
                outcomes[name] = outcomes.get(name, 0) + 1
            except KafkaError as exc:
                key = f"{name}:{type(exc).__name__}"
                outcomes[key] = outcomes.get(key, 0) + 1
    return outcomes


async def test_the_metadata_quorum_keeps_its_leader_through_a_metadata_storm_on_a_loaded_machine(
    cluster, cpu_hogs
):
    await _storm_keeps_the_leader(cluster)


async def test_the_metadata_quorum_keeps_its_leader_through_a_metadata_storm_with_the_disk_busy(
    cluster, disk_hogs
):
    """The same storm while other processes keep the disk busy with writes and fsyncs: every fsync of
    the metadata log, quorum-state file and snapshots waits behind theirs."""
    await _storm_keeps_the_leader(cluster)


async def _storm_keeps_the_leader(cluster: LocalCluster) -> None:
    seed = random.randrange(2**32)
    print(f"seed={seed}")
    rng = random.Random(seed)
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers, request_timeout_ms=30_000) as admin:
        before = await admin.describe_metadata_quorum(timeout_ms=30_000)
        assert before.leader_id in (1, 2, 3)
        seen: list[tuple[float, int, int]] = []
        started = time.monotonic()

        async def sample() -> None:
            while True:
                try:
                    quorum = await admin.describe_metadata_quorum(timeout_ms=5000)
                    seen.append((time.monotonic() - started, quorum.leader_id, quorum.leader_epoch))
                except KafkaError:
                    pass
                await asyncio.sleep(SAMPLE_S)

        sampler = asyncio.create_task(sample())
        try:
            outcomes = await _storm(admin, rng, started + STORM_S)
        finally:
            sampler.cancel()
            await asyncio.gather(sampler, return_exceptions=True)
        after = await admin.describe_metadata_quorum(timeout_ms=30_000)
    stalls = sorted(
        float(m[1])
        for node_id in cluster.node_ids
        for m in re.finditer(
            r"took (\d+\.\d+) seconds", cluster.log_path(node_id).read_text(errors="replace")
        )
    )
    print(
        f"event loop stalls of 100 ms or more: {len(stalls)}, longest {stalls[-1] if stalls else 0:.3f} s, "
        f"{sum(s >= 0.5 for s in stalls)} of 500 ms or more"
    )
    changes = [
        (round(t, 1), leader, epoch)
        for t, leader, epoch in seen
        if (leader, epoch) != (before.leader_id, before.leader_epoch)
    ]
    print(
        f"storm of {time.monotonic() - started:.0f} s: {outcomes}; leader {before.leader_id} epoch "
        f"{before.leader_epoch} before, leader {after.leader_id} epoch {after.leader_epoch} after; "
        f"samples off the first leader: {changes[:10]}"
    )
    assert sum(n for name, n in outcomes.items() if ":" not in name) > 20, outcomes  # the storm ran
    assert (after.leader_id, after.leader_epoch) == (before.leader_id, before.leader_epoch), (
        f"the quorum changed leader {after.leader_epoch - before.leader_epoch} epoch(s) during the storm: "
        f"{changes[:10]}"
    )
