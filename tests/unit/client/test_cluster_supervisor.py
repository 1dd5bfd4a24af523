"""The foreground ``kafkette cluster start``'s supervisor deciding why its cluster ended: ``cluster
stop`` (which removes ``cluster.json`` just after its last broker exits) or brokers that all exited
by themselves.  Polled by hand, no processes started: a recorded pid whose start time is not its
process's is a broker that has exited."""

from __future__ import annotations

import json
import os
import threading

import pytest

from kafkette.client.cli.cluster_supervisor import EXITED_GRACE_POLLS, ClusterSupervisor
from kafkette.client.cluster_pid_file import read_pid_file, remove_pid_file
from kafkette.client.local_cluster import LocalCluster

pytestmark = pytest.mark.timeout(30)


@pytest.fixture
def supervisor(tmp_path):
    """A supervisor of a one-broker cluster (never started) whose ``cluster.json`` names an exited broker,
    and the lines it says."""
    local = LocalCluster(1, tmp_path, base_port=27000)
    (tmp_path / "cluster.json").write_text(
        json.dumps(
            {
                "bootstrap_servers": "127.0.0.1:27000",
                "voter_ids": [1],
                "brokers": [{"id": 1, "pid": os.getpid(), "port": 27000, "start_time": 1}],
            }
        )
    )
    lines: list[str] = []
    return ClusterSupervisor(local, read_pid_file(tmp_path), lines.append), lines


def test_cluster_json_removed_just_after_the_last_broker_exits_is_a_cluster_stop(supervisor, tmp_path):
    watcher, lines = supervisor
    assert watcher._poll() is None  # every broker gone, cluster.json still there: cluster stop may remove it
    assert lines == [f"Broker 1 (pid {os.getpid()}) exited (log: {tmp_path}/broker-1/broker.log)"]
    remove_pid_file(tmp_path)
    assert watcher._poll() == 0
    assert lines[-1] == f"The brokers of {tmp_path} were stopped (kafkette cluster stop); exiting"


def test_brokers_that_all_exited_with_cluster_json_left_end_the_supervisor_with_1(supervisor, tmp_path):
    watcher, lines = supervisor
    assert [watcher._poll() for _ in range(EXITED_GRACE_POLLS)] == [None] * (EXITED_GRACE_POLLS - 1) + [1]
    assert lines[-1] == f"Every broker of {tmp_path} has exited; exiting"
    stop = threading.Event()
    stop.set()
    assert watcher.run(stop) == 0  # asked to stop: nothing runs, cluster.json is removed
    assert not (tmp_path / "cluster.json").exists()
