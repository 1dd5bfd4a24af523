"""Kafka client properties -> SDK keyword arguments (``kafkette.client.client_properties``) and the
CLI's precedence between ``--command-config``, ``--producer-property`` and typed flags
(``sdk_settings``), in-process with no broker."""

from __future__ import annotations

import json

import click
import pytest
from click.testing import CliRunner

from kafkette.client.admin import AdminClient
from kafkette.client.cli.shared_options import (
    bootstrap_server_option,
    command_config_alias_option,
    sdk_settings,
)
from kafkette.client.client_properties import (
    client_settings,
    keyword_for,
    read_properties_file,
    takes_property,
)
from kafkette.client.consumer import Consumer
from kafkette.client.producer import Producer


def test_property_names_become_keywords_with_kafkas_two_aliases():
    assert keyword_for("request.timeout.ms") == "request_timeout_ms"
    assert keyword_for("batch.size") == "max_batch_size"
    assert keyword_for("buffer.memory") == "max_buffer_size"
    assert takes_property(Producer, "linger.ms") and not takes_property(Consumer, "linger.ms")
    assert takes_property(Consumer, "fetch.max.wait.ms") and not takes_property(Producer, "fetch.max.wait.ms")
    assert not takes_property(AdminClient, "no.such.property")


def test_values_take_the_type_of_the_keywords_default():
    assert client_settings(
        {
            "linger.ms": "10",
            "buffer.memory": "1048576",
            "compression.type": "zstd",
            "acks": "all",
            "delivery.timeout.ms": "60000",
            "client.id": "me",
        },
        Producer,
    ) == {
        "linger_ms": 10,
        "max_buffer_size": 1048576,
        "compression_type": "zstd",
        "acks": "all",
        "delivery_timeout_ms": 60000,
        "client_id": "me",
    }
    assert client_settings({"acks": "-1", "enable.idempotence": "TRUE"}, Producer) == {
        "acks": -1,
        "enable_idempotence": True,
    }
    assert client_settings(
        {"allow.auto.create.topics": "false", "fetch.max.wait.ms": "100", "auto.offset.reset": "earliest"},
        Consumer,
    ) == {"allow_auto_create_topics": False, "fetch_max_wait_ms": 100, "auto_offset_reset": "earliest"}
    assert client_settings({}, AdminClient) == {}


@pytest.mark.parametrize(
    ("target", "properties", "message"),
    [
        (AdminClient, {"linger.ms": "5"}, "Unknown AdminClient property 'linger.ms' in client.properties"),
        (
            Producer,
            {"enable.idempotence": "yes"},
            "Invalid value 'yes' for property 'enable.idempotence' in client.properties",
        ),
        (
            Consumer,
            {"fetch.max.wait.ms": "1.5"},
            "Invalid value '1.5' for property 'fetch.max.wait.ms' in client.properties",
        ),
        (Producer, {"acks": "2"}, "Bad Producer properties in client.properties: "),
    ],
)
def test_a_bad_property_is_one_message_naming_it_and_its_source(target, properties, message):
    with pytest.raises(ValueError) as raised:
        client_settings(properties, target, source="client.properties")
    assert str(raised.value).startswith(message), str(raised.value)
    assert "\n" not in str(raised.value)


def test_the_spark_prefix_is_kept_in_messages():
    with pytest.raises(ValueError) as raised:
        client_settings({"lingr.ms": "5"}, Producer, source="the Spark options", prefix="kafkette.")
    assert str(raised.value) == "Unknown Producer property 'kafkette.lingr.ms' in the Spark options"


def test_a_properties_file_is_read_as_java_reads_it(tmp_path):
    path = tmp_path / "client.properties"
    path.write_text(
        "# comment\n! also a comment\nrequest.timeout.ms = 5000\nclient.id: ops\n"
        "bootstrap.servers=h1:9092,\\\n    h2:9092\n"
    )
    assert read_properties_file(str(path)) == {
        "request.timeout.ms": "5000",
        "client.id": "ops",
        "bootstrap.servers": "h1:9092,h2:9092",
    }


def test_an_unreadable_properties_file_is_named(tmp_path):
    binary = tmp_path / "binary.properties"
    binary.write_bytes(b"client.id=\xff\xfe\n")
    with pytest.raises(ValueError) as raised:
        read_properties_file(str(binary))
    assert str(raised.value) == f"Properties file {binary} is not UTF-8 text (byte 10)"
    with pytest.raises(ValueError) as raised:
        read_properties_file(str(tmp_path))
    assert str(raised.value) == f"Cannot read properties file {tmp_path}: Is a directory"


@click.command()
@click.option("--linger-ms", type=int, default=5)
@click.option("--acks", default="all")
@click.option("--producer-property", "producer_properties", multiple=True)
@command_config_alias_option("--producer.config")
@bootstrap_server_option
def producer_probe(
    linger_ms: int, acks: str, producer_properties: tuple[str, ...], bootstrap_server: str
) -> None:
    """Print the Producer settings ``sdk_settings`` gives, as JSON."""
    click.echo(
        json.dumps(
            sdk_settings(
                Producer,
                properties=producer_properties,
                property_flag="--producer-property",
                flags={
                    "bootstrap_servers": ("bootstrap_server", bootstrap_server),
                    "linger_ms": ("linger_ms", linger_ms),
                    "acks": ("acks", acks),
                    "client_id": (None, "probe"),
                },
            ),
            sort_keys=True,
        )
    )


@click.command()
@bootstrap_server_option
def consumer_probe(bootstrap_server: str) -> None:
    """Print the Consumer settings of a command that also builds a Producer from the same file."""
    click.echo(
        json.dumps(
            sdk_settings(
                Consumer,
                flags={"bootstrap_servers": ("bootstrap_server", bootstrap_server)},
                shared_with=(Producer,),
            ),
            sort_keys=True,
        )
    )


def _settings(command: click.Command, *args: str) -> dict:
    result = CliRunner().invoke(command, list(args))
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_typed_flags_beat_properties_which_beat_the_file_which_beats_flag_defaults(tmp_path):
    path = tmp_path / "producer.properties"
    path.write_text(
        "bootstrap.servers=file:9092\nlinger.ms=50\nacks=1\nclient.id=from-file\nbatch.size=1024\n"
    )
    assert _settings(producer_probe) == {
        "bootstrap_servers": "127.0.0.1:9092",
        "linger_ms": 5,
        "acks": "all",
        "client_id": "probe",
    }
    assert _settings(producer_probe, "--command-config", str(path)) == {
        "bootstrap_servers": "file:9092",
        "linger_ms": 50,
        "acks": 1,
        "client_id": "from-file",
        "max_batch_size": 1024,
    }
    assert _settings(
        producer_probe,
        "--producer.config",
        str(path),
        "--producer-property",
        "linger.ms=70",
        "--acks",
        "0",
        "--bootstrap-server",
        "typed:9092",
    ) == {
        "bootstrap_servers": "typed:9092",
        "linger_ms": 70,
        "acks": "0",
        "client_id": "from-file",
        "max_batch_size": 1024,
    }
    assert (
        _settings(
            producer_probe,
            "--producer.config",
            str(path),
            "--producer-property",
            "linger.ms=70",
            "--linger-ms",
            "90",
        )["linger_ms"]
        == 90
    )


def test_two_different_properties_files_are_refused(tmp_path):
    one, two = tmp_path / "one.properties", tmp_path / "two.properties"
    one.write_text("linger.ms=1\n")
    two.write_text("linger.ms=2\n")
    assert (
        _settings(producer_probe, "--command-config", str(one), "--producer.config", str(one))["linger_ms"]
        == 1
    )
    result = CliRunner().invoke(producer_probe, ["--command-config", str(one), "--producer.config", str(two)])
    assert result.exit_code == 2
    assert result.output.splitlines()[-1] == (
        f"Error: --command-config {one} and --producer.config {two} are two client properties files; give one"
    )


def test_bad_properties_are_usage_errors_naming_where_they_came_from(tmp_path):
    path = tmp_path / "producer.properties"
    path.write_text("lingr.ms=5\n")
    result = CliRunner().invoke(producer_probe, ["--command-config", str(path)])
    assert result.exit_code == 2
    assert result.output.splitlines()[-1] == f"Error: Unknown Producer property 'lingr.ms' in {path}"
    result = CliRunner().invoke(producer_probe, ["--producer-property", "linger.ms=soon"])
    assert (
        result.output.splitlines()[-1]
        == "Error: Invalid value 'soon' for property 'linger.ms' in --producer-property"
    )
    result = CliRunner().invoke(producer_probe, ["--producer-property", "linger.ms"])
    assert (
        result.output.splitlines()[-1] == "Error: Invalid --producer-property 'linger.ms': expected key=value"
    )


def test_a_file_shared_by_two_clients_gives_each_its_own_properties(tmp_path):
    path = tmp_path / "client.properties"
    path.write_text("acks=all\nlinger.ms=0\nfetch.max.wait.ms=100\nclient.id=e2e\n")
    assert _settings(consumer_probe, "--command-config", str(path)) == {
        "bootstrap_servers": "127.0.0.1:9092",
        "fetch_max_wait_ms": 100,
        "client_id": "e2e",
    }
    path.write_text("acks=all\nno.such.property=1\n")
    result = CliRunner().invoke(consumer_probe, ["--command-config", str(path)])
    assert result.output.splitlines()[-1] == f"Error: Unknown Consumer property 'no.such.property' in {path}"


def test_retry_and_reconnect_backoff_properties_are_taken_by_every_client_and_retries_by_the_producer():
    backoffs = {
        "retry.backoff.ms": "50",
        "retry.backoff.max.ms": "2000",
        "reconnect.backoff.ms": "10",
        "reconnect.backoff.max.ms": "500",
    }
    expected = {
        "retry_backoff_ms": 50,
        "retry_backoff_max_ms": 2000,
        "reconnect_backoff_ms": 10,
        "reconnect_backoff_max_ms": 500,
    }
    for target in (Producer, Consumer, AdminClient):
        assert client_settings(backoffs, target) == expected
    assert client_settings({"retries": "3"}, Producer) == {"retries": 3}
    assert not takes_property(Consumer, "retries")


def test_retries_zero_turns_the_default_idempotence_off_and_is_refused_with_idempotence_asked_for():
    assert Producer(retries=0).enable_idempotence is False
    assert Producer(retries=1).enable_idempotence is True
    with pytest.raises(ValueError, match="Must set retries to non-zero when using the idempotent producer"):
        Producer(retries=0, enable_idempotence=True)
    with pytest.raises(ValueError, match="retries"):
        client_settings({"retries": "-1"}, Producer)
