"""Topic configs Kafkette accepts but does not act on yet (leader.replication.throttled.replicas,
follower.replication.throttled.replicas) are said so: the ``kafkette`` CLI prints one
``WARNING:`` line on stderr per such config set by ``topics create`` or ``configs alter``, and a
broker hosting the topic logs one WARNING per topic and config, not one per partition or update."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(180)

KAFKETTE = Path(sys.executable).parent / "kafkette"
TOPIC = "throttled"
NO_EFFECT = "is accepted but has no effect yet in Kafkette"


def _cli(cluster, *args: str) -> subprocess.CompletedProcess:
    result = subprocess.run(
        [str(KAFKETTE), *args, "--bootstrap-server", cluster.bootstrap_servers],
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert result.returncode == 0, (
        f"exit {result.returncode}\nstdout: {result.stdout}\nstderr: {result.stderr}"
    )
    return result


def _warnings(text: str) -> list[str]:
    return [line for line in text.splitlines() if NO_EFFECT in line]


def _broker_warnings(cluster, name: str) -> list[str]:
    text = cluster.log_path(1).read_text(encoding="utf-8", errors="replace")
    return [line for line in _warnings(text) if f"{name}=" in line and f"of topic {TOPIC} " in line]


async def _wait_for_broker_warning(cluster, name: str, timeout_s: float = 20) -> list[str]:
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not _broker_warnings(cluster, name):
        assert asyncio.get_running_loop().time() < deadline, (
            f"no broker WARNING about {name} of topic {TOPIC}"
        )
        await asyncio.sleep(0.1)
    return _broker_warnings(cluster, name)


async def _wait_for_broker_line(cluster, *parts: str, timeout_s: float = 20) -> None:
    """Wait until the broker logged a line holding every one of ``parts`` (it applied that change)."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not any(
        all(part in line for part in parts)
        for line in cluster.log_path(1).read_text(encoding="utf-8", errors="replace").splitlines()
    ):
        assert asyncio.get_running_loop().time() < deadline, f"no broker line with {parts}"
        await asyncio.sleep(0.1)


async def test_throttled_replicas_configs_are_said_to_have_no_effect_once_by_the_cli_and_the_broker(
    cluster_factory,
):
    cluster = cluster_factory(1)
    created = _cli(
        cluster,
        "topics",
        "create",
        TOPIC,
        "--partitions",
        "3",
        "--replication-factor",
        "1",
        "--config",
        "leader.replication.throttled.replicas=*",
        "--config",
        "retention.ms=60000",
    )
    assert _warnings(created.stderr) == [
        "WARNING: Topic config leader.replication.throttled.replicas is accepted but has no effect yet in "
        "Kafkette (Kafkette has no replication quotas yet)."
    ], created.stderr
    assert NO_EFFECT not in created.stdout
    (logged,) = await _wait_for_broker_warning(cluster, "leader.replication.throttled.replicas")
    assert " WARNING " in logged and "leader.replication.throttled.replicas=* of topic throttled" in logged

    entity = ("--entity-type", "topics", "--entity-name", TOPIC)
    altered = _cli(
        cluster,
        "configs",
        "alter",
        *entity,
        "--add-config",
        "follower.replication.throttled.replicas=[0:1,1:1],leader.replication.throttled.replicas=0:1",
    )
    assert [line.split()[3] for line in _warnings(altered.stderr)] == [
        "follower.replication.throttled.replicas",
        "leader.replication.throttled.replicas",
    ], altered.stderr
    assert len(await _wait_for_broker_warning(cluster, "follower.replication.throttled.replicas")) == 1
    quiet = _cli(cluster, "configs", "alter", *entity, "--add-config", "retention.ms=120000")
    assert _warnings(quiet.stderr) == []
    await _wait_for_broker_line(cluster, f"Updated log config of {TOPIC}-2: ", "'retention.ms': '120000'")
    assert len(_broker_warnings(cluster, "leader.replication.throttled.replicas")) == 1, (
        "once per topic and config"
    )
    assert len(_broker_warnings(cluster, "follower.replication.throttled.replicas")) == 1
