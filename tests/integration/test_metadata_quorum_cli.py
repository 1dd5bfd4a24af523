"""``kafkette metadata-quorum describe`` against a real cluster of three voters: the active
controller leads the metadata quorum, the two others follow it, and its high watermark moves
with every metadata change."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(120)

KAFKETTE = Path(sys.executable).parent / "kafkette"


def _cli(*args: str) -> str:
    done = subprocess.run([str(KAFKETTE), *args], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"exit {done.returncode}\nstdout: {done.stdout}\nstderr: {done.stderr}"
    return done.stdout


def _status(bootstrap: str) -> dict[str, str]:
    lines = _cli("metadata-quorum", "describe", "--status", "--bootstrap-server", bootstrap).splitlines()
    return {name: value.strip() for name, value in (line.split(":", 1) for line in lines)}


def test_status_and_replication_of_the_metadata_quorum(shared_cluster):
    bootstrap = shared_cluster.bootstrap_servers.split(",")[2]
    before = _status(bootstrap)
    assert list(before) == [
        "ClusterId",
        "LeaderId",
        "LeaderEpoch",
        "HighWatermark",
        "MaxFollowerLag",
        "MaxFollowerLagTimeMs",
        "CurrentVoters",
        "CurrentObservers",
    ]
    leader = before["LeaderId"]
    assert (
        leader in ("1", "2", "3") and before["CurrentVoters"] == "[1,2,3]" and int(before["LeaderEpoch"]) >= 1
    )
    _cli(
        "topics",
        "create",
        "--topic",
        "quorum-moves",
        "--partitions",
        "2",
        "--replication-factor",
        "3",
        "--bootstrap-server",
        bootstrap,
    )
    after = _status(bootstrap)
    assert int(after["HighWatermark"]) > int(before["HighWatermark"])
    rows = _cli("metadata-quorum", "describe", "--replication", "--bootstrap-server", bootstrap).splitlines()
    assert rows[0].split() == [
        "NodeId",
        "LogEndOffset",
        "Lag",
        "LastFetchTimestamp",
        "LastCaughtUpTimestamp",
        "Status",
    ]
    node, end_offset, lag, *_, status = rows[1].split()
    assert (node, lag, status) == (leader, "0", "Leader") and int(end_offset) >= int(after["HighWatermark"])
    followers = [row.split() for row in rows[2:]]
    assert sorted(row[0] for row in followers) == sorted({"1", "2", "3"} - {leader})
    assert all(row[-1] == "Follower" for row in followers)
