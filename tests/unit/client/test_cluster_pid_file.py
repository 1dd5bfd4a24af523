"""The local cluster's pid file: written and read back, a recycled pid is not a broker, a corrupt
file is named (real processes stand in for brokers)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from kafkette.client.cluster_pid_file import (
    BrokerProcess,
    is_alive,
    process_start_time,
    read_pid_file,
    remove_pid_file,
    running_brokers,
    write_pid_file,
)


def _process(code: str = "import time; print('ready', flush=True); time.sleep(60)") -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc


def test_written_file_reads_back_with_start_times(tmp_path):
    proc = _process()
    try:
        record = write_pid_file(tmp_path, "127.0.0.1:1,127.0.0.1:2", (1,), {1: proc.pid}, {1: 9092})
        assert read_pid_file(tmp_path) == record
        assert record.brokers[0].start_time == process_start_time(proc.pid) > 0
        assert json.loads((tmp_path / "cluster.json").read_text())["voter_ids"] == [1]
        assert running_brokers(record) == list(record.brokers)
    finally:
        proc.kill()
        proc.wait()
    assert running_brokers(record) == []
    remove_pid_file(tmp_path)
    assert read_pid_file(tmp_path) is None
    remove_pid_file(tmp_path)  # already gone: no error


def test_a_recycled_pid_is_not_the_broker(tmp_path):
    proc = _process()
    try:
        real = BrokerProcess(1, proc.pid, 9092, process_start_time(proc.pid) or -1)
        assert is_alive(real)
        assert not is_alive(BrokerProcess(1, proc.pid, 9092, real.start_time + 1))
    finally:
        proc.kill()
        proc.wait()


def test_a_corrupt_pid_file_is_named(tmp_path):
    (tmp_path / "cluster.json").write_text("{not json")
    with pytest.raises(ValueError, match="is not a kafkette cluster pid file"):
        read_pid_file(tmp_path)


def test_a_pid_file_of_the_previous_version_reads_without_kafka_listeners(tmp_path):
    (tmp_path / "cluster.json").write_text(
        json.dumps(
            {
                "bootstrap_servers": "127.0.0.1:9092",
                "voter_ids": [1],
                "brokers": [{"id": 1, "pid": 4242, "port": 9092, "start_time": 77}],
            }
        )
    )
    record = read_pid_file(tmp_path)
    assert record.bootstrap_servers == "127.0.0.1:9092" and record.kafka_bootstrap_servers == ""
    assert record.brokers == (BrokerProcess(1, 4242, 9092, 77, None),)


def test_kafka_listener_ports_are_written_and_read_back(tmp_path):
    proc = _process()
    try:
        record = write_pid_file(
            tmp_path,
            "127.0.0.1:1",
            (1,),
            {1: proc.pid},
            {1: 1},
            kafka_ports={1: 2},
            kafka_bootstrap_servers="127.0.0.1:2",
        )
        assert read_pid_file(tmp_path) == record
        assert record.kafka_bootstrap_servers == "127.0.0.1:2" and record.brokers[0].kafka_port == 2
        raw = json.loads((tmp_path / "cluster.json").read_text())
        assert raw["kafka_bootstrap_servers"] == "127.0.0.1:2" and raw["brokers"][0]["kafka_port"] == 2
    finally:
        proc.kill()
        proc.wait()
