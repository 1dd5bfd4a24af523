"""The suite's security mode without a broker: the runner's ``test.conf`` with the SASL_SSL login,
the brokers' authorizer settings, the per-variant build marker, and the mode's command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.client_suites import librdkafka_build, run
from tests.client_suites.librdkafka_suite import Outcome, write_test_conf
from tests.client_suites.security import (
    SECURITY_TESTS,
    STANDARD_AUTHORIZER,
    client_conf,
    listener_configs,
    security_broker_configs,
)


@pytest.mark.timeout(10)
def test_test_conf_carries_the_sasl_ssl_login_after_the_bootstrap_servers(tmp_path: Path) -> None:
    path = write_test_conf(tmp_path / "test.conf", "127.0.0.1:9092", client_conf("/certs/ca.crt"))
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "bootstrap.servers=127.0.0.1:9092"
    assert {
        "security.protocol=SASL_SSL",
        "sasl.mechanisms=PLAIN",
        "sasl.username=testuser",
        "sasl.password=testpass",
        "ssl.ca.location=/certs/ca.crt",
    } <= set(lines)


@pytest.mark.timeout(10)
def test_plain_test_conf_has_no_security_properties(tmp_path: Path) -> None:
    text = write_test_conf(tmp_path / "test.conf", "127.0.0.1:9092").read_text(encoding="utf-8")
    assert "security.protocol" not in text and "sasl." not in text


@pytest.mark.timeout(10)
@pytest.mark.parametrize(
    "conf", [{"sasl.password": "a\nsecurity.protocol=PLAINTEXT"}, {"ssl.ca.location=x": "y"}]
)
def test_test_conf_refuses_a_property_that_would_break_its_lines(tmp_path: Path, conf: dict) -> None:
    with pytest.raises(ValueError, match="test.conf property"):
        write_test_conf(tmp_path / "test.conf", "127.0.0.1:9092", conf)


@pytest.mark.timeout(10)
def test_brokers_get_the_standard_authorizer_open_where_no_acl_and_reauthentication() -> None:
    configs = security_broker_configs({"num.partitions": 4})
    assert configs["num.partitions"] == 4
    assert configs["authorizer.class.name"] == STANDARD_AUTHORIZER
    assert configs["super.users"].split(";") == ["User:admin", "User:ANONYMOUS"]
    assert configs["allow.everyone.if.no.acl.found"] == "true"
    assert int(configs["connections.max.reauth.ms"]) > 0


@pytest.mark.timeout(10)
def test_listener_configs_name_the_listener_and_let_the_admin_and_the_test_user_log_in_with_plain() -> None:
    configs = listener_configs("SASL_SSL", "/certs/broker.pem")
    assert configs["listener.name.sasl_ssl.ssl.keystore.location"] == "/certs/broker.pem"
    assert "PLAIN" in configs["listener.name.sasl_ssl.sasl.enabled.mechanisms"].split(",")
    jaas = configs["listener.name.sasl_ssl.plain.sasl.jaas.config"]
    assert 'user_admin="admin-secret"' in jaas and 'user_testuser="testpass"' in jaas


@pytest.mark.timeout(10)
def test_a_build_counts_only_for_the_configure_line_that_made_it(tmp_path: Path) -> None:
    (tmp_path / "test-runner").write_bytes(b"")
    marker = tmp_path / librdkafka_build.BUILT_MARKER
    marker.write_text(librdkafka_build.built_marker("ssl"), encoding="utf-8")
    assert librdkafka_build.is_built(tmp_path, "ssl")
    assert not librdkafka_build.is_built(tmp_path, "plain")
    marker.write_text(librdkafka_build.LIBRDKAFKA_VERSION + "\n", encoding="utf-8")  # an older build
    assert librdkafka_build.is_built(tmp_path, "plain") and not librdkafka_build.is_built(tmp_path, "ssl")
    assert "--enable-ssl" in librdkafka_build.built_marker("ssl")
    assert librdkafka_build.VARIANT_DIRS["ssl"] != librdkafka_build.VARIANT_DIRS["plain"]


@pytest.mark.timeout(10)
def test_security_mode_runs_alone(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        run.main(["--mode", "security", "--mode", "quick"])
    assert exited.value.code == 2
    assert "--mode security runs alone" in capsys.readouterr().err
    assert all(len(t) == 4 and t.isdigit() for t in SECURITY_TESTS)


@pytest.mark.timeout(10)
def test_security_mode_gives_each_test_a_runner_and_the_others_one_runner() -> None:
    assert run.batches("security", "0081, 0142") == ["0081", "0142"]
    assert run.batches("quick", "0081,0142") == ["0081,0142"]
    assert run.batches("full", None) == [None]


@pytest.mark.timeout(10)
def test_merging_runners_keeps_what_a_runner_ran_over_what_another_skipped() -> None:
    into = {"0081_admin": Outcome("0081_admin", "SKIPPED", "not included in TESTS list", 0.0)}
    run.merge(into, {"0081_admin": Outcome("0081_admin", "PASSED", "", 9.0)})
    run.merge(into, {"0081_admin": Outcome("0081_admin", "SKIPPED", "not included in TESTS list", 0.0)})
    assert into["0081_admin"].state == "PASSED"


@pytest.mark.timeout(10)
def test_a_security_run_reports_the_authorizer_and_a_plain_run_does_not() -> None:
    assert run.report_broker_configs({"security"})["authorizer.class.name"] == STANDARD_AUTHORIZER
    assert "authorizer.class.name" not in run.report_broker_configs({"quick", "full"})
