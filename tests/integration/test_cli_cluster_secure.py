"""``kafkette cluster start --security sasl_ssl``: a secure cluster in one command.  It prints
``admin.properties=PATH`` (the admin super user's Kafka client properties, mode 0600); Kafkette's
CLI works with ``--command-config PATH`` (and with ``--data-dir``, which finds the file), Kafka's
own TopicCommand with ``--command-config PATH`` against the Kafka-protocol listener; a plaintext
client is refused; ``cluster status`` and ``stop`` keep working, and ``start`` on the stopped
cluster's data directory brings it back secure, with the same admin login."""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path

import pytest

from kafkette.client.client_properties import read_properties_file
from tests.cli_processes import kill_recorded_brokers, ok_stdout, run_cli
from tests.peers.kafka_peer import KafkaPeer

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def data_dir(tmp_path):
    """A data directory whose recorded brokers are killed at teardown, whatever the test did."""
    directory = tmp_path / "secure"
    yield directory
    kill_recorded_brokers(directory)


def _printed(stdout: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in stdout.splitlines() if "=" in line)


def test_cluster_start_security_sasl_ssl_prints_the_admin_properties_every_tool_uses(data_dir):
    started = run_cli(
        "cluster",
        "start",
        "--daemon",
        "--security",
        "SASL_SSL",
        "--kafka-protocol",
        "--data-dir",
        str(data_dir),
    )
    printed = _printed(ok_stdout(started))
    path = Path(printed["admin.properties"])
    assert path == data_dir / "admin.properties"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    properties = read_properties_file(str(path))
    assert properties["bootstrap.servers"] == printed["bootstrap.servers"]
    assert properties["security.protocol"] == "SASL_SSL" and properties["sasl.mechanism"] == "SCRAM-SHA-512"
    assert properties["sasl.jaas.config"].startswith(
        'org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="'
    )
    assert path.read_text().count("password=") == 1  # written as Kafka's documentation writes it
    assert f"--command-config {path}" in started.stderr

    config = ("--command-config", str(path))
    create = ("topics", "create", "--topic", "secured", "--partitions", "2", "--replication-factor", "3")
    ok_stdout(run_cli(*create, *config))
    assert ok_stdout(run_cli("topics", "list", *config)).split() == ["secured"]
    assert ok_stdout(run_cli("topics", "list", "--data-dir", str(data_dir))).split() == ["secured"]
    plaintext = ("--bootstrap-server", printed["bootstrap.servers"], "--request-timeout-ms", "3000")
    refused = run_cli("topics", "list", *plaintext)
    assert refused.returncode != 0 and "Traceback" not in refused.stderr

    topic_command = KafkaPeer.tool_command("org.apache.kafka.tools.TopicCommand")
    listed = subprocess.run(
        [
            *topic_command,
            "--bootstrap-server",
            printed["kafka.bootstrap.servers"],
            "--command-config",
            str(path),
            "--list",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert listed.returncode == 0, listed.stderr[-1500:]
    assert listed.stdout.split() == ["secured"]

    status = ok_stdout(run_cli("cluster", "status", "--data-dir", str(data_dir)))
    assert "Topics: 1, partitions: 2, under-replicated: 0, offline: 0" in status
    assert "Stopped 3 broker(s)" in ok_stdout(run_cli("cluster", "stop", "--data-dir", str(data_dir)))
    misfit = run_cli("cluster", "start", "--security", "plaintext", "--data-dir", str(data_dir))
    assert misfit.returncode != 0 and "--security plaintext does not fit" in misfit.stderr, misfit.stderr

    restarted = _printed(ok_stdout(run_cli("cluster", "start", "--daemon", "--data-dir", str(data_dir))))
    assert restarted["admin.properties"] == str(path)
    assert read_properties_file(str(path))["sasl.jaas.config"] == properties["sasl.jaas.config"]
    assert ok_stdout(run_cli("topics", "list", *config)).split() == ["secured"]
    ok_stdout(run_cli("cluster", "stop", "--data-dir", str(data_dir)))
