"""The suite's ACL mode without a broker: the brokers' authorizer and node login settings, the
``KAFKA_PATH`` scripts librdkafka's tests run, the mode's command line and what its runner gets."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.client_suites import run
from tests.client_suites.acl import (
    ACL_TESTS,
    acl_broker_configs,
    kafka_node_configs,
    kafkette_node_configs,
    write_kafka_path,
)
from tests.client_suites.security import STANDARD_AUTHORIZER
from tests.peers.kafka_peer import KafkaPeer


@pytest.mark.timeout(10)
def test_only_the_admin_is_a_super_user_and_no_acl_means_allowed() -> None:
    configs = acl_broker_configs({"num.partitions": 4})
    assert configs["num.partitions"] == 4
    assert configs["authorizer.class.name"] == STANDARD_AUTHORIZER
    # The clients' User:ANONYMOUS must not be a super user: the tests' DENY ACLs apply to it.
    assert configs["super.users"] == "User:admin"
    assert configs["allow.everyone.if.no.acl.found"] == "true"
    assert configs["sasl.mechanism.inter.broker.protocol"] == "PLAIN"
    assert configs["sasl.mechanism.controller.protocol"] == "PLAIN"


@pytest.mark.timeout(10)
def test_the_nodes_log_in_to_each_other_as_the_admin_on_both_clusters() -> None:
    kafka = kafka_node_configs()
    for listener in ("plaintext", "controller"):
        jaas = kafka[f"listener.name.{listener}.plain.sasl.jaas.config"]
        assert 'username="admin"' in jaas and 'user_admin="admin-secret"' in jaas
    ours = kafkette_node_configs()
    assert ours["listener.security.protocol.map"] == "PLAINTEXT:SASL_PLAINTEXT,KAFKA:PLAINTEXT"
    assert 'username="admin"' in ours["listener.name.plaintext.plain.sasl.jaas.config"]


@pytest.mark.timeout(10)
def test_the_peer_puts_sasl_on_its_own_listeners_and_keeps_the_client_one_plaintext(tmp_path: Path) -> None:
    peer = KafkaPeer(tmp_path, nodes=2)
    bootstrap = peer.add_listener("CLIENT", "PLAINTEXT", {}, internal_security_protocol="SASL_PLAINTEXT")
    props = peer.properties(1)
    assert props["listener.security.protocol.map"] == (
        "PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT,CLIENT:PLAINTEXT"
    )
    assert props["inter.broker.listener.name"] == "PLAINTEXT"
    assert len(bootstrap.split(",")) == 2 and bootstrap != peer.bootstrap_servers
    assert "CLIENT://127.0.0.1:" in props["advertised.listeners"]


@pytest.mark.timeout(10)
def test_kafka_path_scripts_run_the_tool_with_their_arguments(tmp_path: Path) -> None:
    path = write_kafka_path(tmp_path / "kafka", {"kafka-acls.sh": ["echo", "Acl Command"]})
    done = subprocess.run(
        [str(path / "bin" / "kafka-acls.sh"), "--topic", "it's"], capture_output=True, text=True, timeout=5
    )
    assert done.returncode == 0
    assert done.stdout == "Acl Command --topic it's\n"


@pytest.mark.timeout(10)
@pytest.mark.parametrize("script", ["", "../kafka-acls.sh", ".hidden"])
def test_kafka_path_refuses_a_script_name_that_is_not_a_file_name(tmp_path: Path, script: str) -> None:
    with pytest.raises(ValueError, match="plain file name"):
        write_kafka_path(tmp_path, {script: ["true"]})


@pytest.mark.timeout(10)
def test_acl_mode_runs_alone_and_reports_its_authorizer(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        run.main(["--mode", "acl", "--mode", "quick"])
    assert exited.value.code == 2
    assert "--mode acl runs alone" in capsys.readouterr().err
    assert all(len(t) == 4 and t.isdigit() for t in ACL_TESTS)
    assert run.report_broker_configs({"acl"})["super.users"] == "User:admin"
