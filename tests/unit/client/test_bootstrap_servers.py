"""Where a client's bootstrap servers come from: the SDK's default (``KAFKETTE_BOOTSTRAP_SERVERS``,
then 127.0.0.1:9092) and the CLI's order (``--bootstrap-server`` or ``--data-dir``, then
``--command-config``'s ``bootstrap.servers``, the variable, the default).  No sockets: the
commands here stop before connecting, and the check of refused addresses gets its DNS answers
from a stand-in resolver."""

from __future__ import annotations

import asyncio
import json
import os
import socket

import click
import pytest
from click.testing import CliRunner

from kafkette.client import AdminClient, Consumer, Producer
from kafkette.client.bootstrap_servers import (
    BOOTSTRAP_SERVERS_ENV,
    bootstrap_servers_from_environment,
    default_bootstrap_servers,
)
from kafkette.client.cli.bootstrap import (
    DEFAULT_SOURCE,
    HOW_TO_GIVE_OTHERS,
    BootstrapServers,
    check_a_bootstrap_server_listens,
    resolve_bootstrap_servers,
)
from kafkette.client.cli.shared_options import bootstrap_server_option, sdk_settings
from kafkette.client.cluster_pid_file import write_pid_file
from tests.unit.client.cli_runner import assert_one_line_error, run

pytestmark = pytest.mark.timeout(30)


@pytest.fixture(autouse=True)
def no_variable(monkeypatch):
    """Each test starts without ``KAFKETTE_BOOTSTRAP_SERVERS`` (the developer's shell may set it)."""
    monkeypatch.delenv(BOOTSTRAP_SERVERS_ENV, raising=False)


def _data_dir(tmp_path, servers: str = "127.0.0.1:7001,127.0.0.1:7002"):
    directory = tmp_path / "cluster"
    directory.mkdir()
    write_pid_file(directory, servers, (1,), {1: os.getpid()}, {1: 7001})
    return directory


def _properties(tmp_path, servers: str = "file:9092"):
    path = tmp_path / "admin.properties"
    path.write_text(f"bootstrap.servers={servers}\nrequest.timeout.ms=5000\n")
    return str(path)


def test_the_sdk_takes_the_servers_given_then_the_variable_then_loopback_9092():
    assert default_bootstrap_servers("given:1", {BOOTSTRAP_SERVERS_ENV: "env:2"}) == "given:1"
    assert default_bootstrap_servers(None, {BOOTSTRAP_SERVERS_ENV: " env:2,env:3 "}) == "env:2,env:3"
    assert default_bootstrap_servers(None, {}) == "127.0.0.1:9092"
    assert default_bootstrap_servers(None, {BOOTSTRAP_SERVERS_ENV: "  "}) == "127.0.0.1:9092"  # blank = unset
    assert bootstrap_servers_from_environment({}) is None


@pytest.mark.parametrize("sdk_class", [AdminClient, Producer, Consumer])
def test_the_sdk_classes_refuse_a_malformed_variable_naming_it(sdk_class, monkeypatch):
    monkeypatch.setenv(BOOTSTRAP_SERVERS_ENV, "127.0.0.1")
    with pytest.raises(ValueError) as raised:
        sdk_class()
    assert str(raised.value) == (
        f"Invalid bootstrap servers '127.0.0.1' in {BOOTSTRAP_SERVERS_ENV}: expected HOST:PORT[,HOST:PORT...]"
    )
    sdk_class(bootstrap_servers="127.0.0.1:1")  # given servers: the variable is not read


def test_the_cli_order_is_typed_flag_then_data_dir_then_the_file_then_the_variable_then_the_default(tmp_path):
    data_dir = _data_dir(tmp_path)
    properties = _properties(tmp_path)
    env = {BOOTSTRAP_SERVERS_ENV: "env:9092"}

    def resolve(bootstrap_server=None, data_dir=None, command_config=None, environ=env) -> BootstrapServers:
        return resolve_bootstrap_servers(
            bootstrap_server=bootstrap_server,
            data_dir=data_dir,
            command_config=command_config,
            environ=environ,
        )

    assert resolve("typed:9092", None, properties) == BootstrapServers("typed:9092", "--bootstrap-server")
    assert resolve(None, data_dir, properties) == BootstrapServers(
        "127.0.0.1:7001,127.0.0.1:7002", str(data_dir / "cluster.json")
    )
    assert resolve(None, None, properties) == BootstrapServers(
        "file:9092", f"bootstrap.servers in {properties}"
    )
    assert resolve(None, None, None) == BootstrapServers("env:9092", BOOTSTRAP_SERVERS_ENV)
    no_servers = tmp_path / "no-servers.properties"
    no_servers.write_text("client.id=x\n")
    assert resolve(None, None, str(no_servers)) == BootstrapServers("env:9092", BOOTSTRAP_SERVERS_ENV)
    assert resolve(None, None, None, {}) == BootstrapServers("127.0.0.1:9092", DEFAULT_SOURCE)


def test_the_cli_refuses_both_flags_and_names_the_source_of_a_malformed_list(tmp_path):
    with pytest.raises(click.UsageError) as raised:
        resolve_bootstrap_servers(bootstrap_server="a:1", data_dir=tmp_path, command_config=None, environ={})
    assert raised.value.message == "Give one of --bootstrap-server and --data-dir, not both"
    bad = _properties(tmp_path, "file")
    for kwargs, source in [
        ({"bootstrap_server": "x"}, "--bootstrap-server"),
        ({"command_config": bad}, bad),
        ({"environ": {BOOTSTRAP_SERVERS_ENV: "x"}}, BOOTSTRAP_SERVERS_ENV),
    ]:
        arguments = {
            "bootstrap_server": None,
            "data_dir": None,
            "command_config": None,
            "environ": {},
            **kwargs,
        }
        with pytest.raises(click.UsageError) as raised:
            resolve_bootstrap_servers(**arguments)
        assert source in raised.value.message and "expected HOST:PORT[,HOST:PORT...]" in raised.value.message


def test_a_malformed_variable_is_one_line_naming_it(monkeypatch):
    monkeypatch.setenv(BOOTSTRAP_SERVERS_ENV, "broker-without-port")
    result = run("topics", "list")
    assert result.exit_code == 2
    assert_one_line_error(
        result, f"Invalid bootstrap servers 'broker-without-port' in {BOOTSTRAP_SERVERS_ENV}"
    )
    assert (
        run("topics", "list", "--data-dir", "/nonexistent").exit_code == 1
    )  # a flag wins: the variable unread


def test_a_host_that_is_no_host_name_is_one_line_naming_the_flag():
    result = run("topics", "list", "--bootstrap-server", "broker..example:9092")
    assert result.exit_code == 2
    assert_one_line_error(result, "Invalid bootstrap servers 'broker..example:9092' in --bootstrap-server")


def test_a_data_dir_without_cluster_json_is_one_line_naming_it_and_how_to_start_a_cluster(tmp_path):
    for command in (
        ["topics", "list"],
        ["produce", "--topic", "t"],
        ["consume", "--topic", "t"],
        ["cluster", "status"],
        ["consumer-groups", "--list"],
        ["metadata-quorum", "describe", "--status"],
    ):
        result = run(*command, "--data-dir", str(tmp_path))
        assert result.exit_code == 1
        assert_one_line_error(
            result,
            f"No cluster was started in {tmp_path} (no {tmp_path / 'cluster.json'}); "
            f"start one with: kafkette cluster start --daemon --data-dir {tmp_path}",
        )


def test_bootstrap_server_and_data_dir_together_are_a_usage_error(tmp_path):
    result = run("topics", "list", "--bootstrap-server", "127.0.0.1:1", "--data-dir", str(tmp_path))
    assert result.exit_code == 2
    assert_one_line_error(result, "Give one of --bootstrap-server and --data-dir, not both")


def test_help_shows_where_the_default_bootstrap_servers_come_from(monkeypatch):
    def bootstrap_help(*command: str) -> str:
        text = " ".join(run(*command, "--help").stdout.split())
        return text[text.index("--bootstrap-server") : text.index("--data-dir DIR")]

    assert "[default: 127.0.0.1:9092 (KAFKETTE_BOOTSTRAP_SERVERS is not set)]" in bootstrap_help(
        "topics", "list"
    )
    monkeypatch.setenv(BOOTSTRAP_SERVERS_ENV, "127.0.0.1:4001,127.0.0.1:4002")
    for command in (
        ("topics", "list"),
        ("produce",),
        ("consume",),
        ("perf", "produce"),
        ("cluster", "status"),
        ("configs", "describe"),
        ("consumer-groups",),
        ("delete-records",),
        ("metadata-quorum", "describe"),
    ):
        text = bootstrap_help(*command)
        assert "[default: 127.0.0.1:4001,127.0.0.1:4002 from KAFKETTE_BOOTSTRAP_SERVERS]" in text, command
        assert "Without it: --data-dir's cluster, else bootstrap.servers of --command-config" in text


@click.command()
@bootstrap_server_option
def admin_probe(bootstrap_server: str) -> None:
    """Print the AdminClient settings ``sdk_settings`` gives, as JSON."""
    click.echo(
        json.dumps(
            sdk_settings(AdminClient, flags={"bootstrap_servers": ("bootstrap_server", bootstrap_server)}),
            sort_keys=True,
        )
    )


def test_the_sdk_settings_of_a_command_follow_the_cli_order(tmp_path, monkeypatch):
    def servers(*args: str) -> str:
        result = CliRunner().invoke(admin_probe, list(args))
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)["bootstrap_servers"]

    properties = _properties(tmp_path)
    data_dir = _data_dir(tmp_path)
    assert servers() == "127.0.0.1:9092"
    monkeypatch.setenv(BOOTSTRAP_SERVERS_ENV, "env:9092")
    assert servers() == "env:9092"
    assert servers("--command-config", properties) == "file:9092"
    assert (
        servers("--command-config", properties, "--data-dir", str(data_dir))
        == "127.0.0.1:7001,127.0.0.1:7002"
    )
    assert servers("--command-config", properties, "--bootstrap-server", "typed:9092") == "typed:9092"


def _check(servers: str) -> str | None:
    """Run ``check_a_bootstrap_server_listens`` on ``servers``; its error message, or None."""
    try:
        asyncio.run(check_a_bootstrap_server_listens(BootstrapServers(servers, "--bootstrap-server")))
    except click.ClickException as exc:
        return exc.message
    return None


def test_an_unknown_host_counts_as_nothing_listening_but_a_dns_server_not_answering_does_not(monkeypatch):
    def getaddrinfo(host, *args, **kwargs):  # the resolver's answers, without a DNS server
        raise socket.gaierror(socket.EAI_NONAME if host == "gone.invalid" else socket.EAI_AGAIN, "resolver")

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    assert _check("gone.invalid:9092") == (
        "No broker of gone.invalid:9092 answers: unknown host (bootstrap servers from --bootstrap-server); "
        f"{HOW_TO_GIVE_OTHERS}"
    )
    assert _check("gone.invalid:9092,slow-dns.example:9092") is None  # may answer on retry: left to the SDK
