"""The CLI takes Kafka users' flags: --topic, --command-config, console tool properties, and names
what to use instead of a Kafka flag it does not take (in-process, no broker)."""

from __future__ import annotations

import click
import pytest
from cli_runner import assert_one_line_error, run

from kafkette.client.admin import AdminClient
from kafkette.client.cli.configs import resolve_entity
from kafkette.client.cli.consume import parse_offset
from kafkette.client.cli.kafka_flags import KAFKA_FLAG_ADVICE, advice_for
from kafkette.client.cli.message_formatter import DefaultMessageFormatter
from kafkette.client.cli.topics import resolve_topic_name
from kafkette.client.client_properties import client_settings
from kafkette.client.consumer import Consumer, ConsumerRecord
from kafkette.client.producer import Producer


def _record(**fields) -> ConsumerRecord:
    values = dict(
        topic="t",
        partition=2,
        offset=7,
        timestamp=1700000000000,
        timestamp_type=0,
        key=b"k",
        value=b"v",
        headers=[],
    )
    values.update(fields)
    return ConsumerRecord(**values)


def test_topic_name_positional_or_option_but_not_two_different_ones():
    assert resolve_topic_name("t1", None, required=True) == "t1"
    assert resolve_topic_name(None, "t1", required=True) == "t1"
    assert resolve_topic_name("t1", "t1", required=True) == "t1"
    assert resolve_topic_name(None, None, required=False) is None
    with pytest.raises(click.UsageError, match="given twice"):
        resolve_topic_name("t1", "t2", required=True)
    with pytest.raises(click.UsageError, match="--topic"):
        resolve_topic_name(None, None, required=True)


def test_configs_topic_and_broker_shorthands():
    assert resolve_entity(None, None, "t1", None) == ("topics", "t1")
    assert resolve_entity(None, None, None, "2") == ("brokers", "2")
    assert resolve_entity("topics", "t1", "t1", None) == ("topics", "t1")
    assert resolve_entity("brokers", None, None, None) == ("brokers", None)
    with pytest.raises(click.UsageError, match="contradicts"):
        resolve_entity("brokers", None, "t1", None)
    with pytest.raises(click.UsageError, match="--entity-type is required"):
        resolve_entity(None, None, None, None)


def test_client_properties_become_typed_sdk_keywords():
    assert client_settings({"request.timeout.ms": "5000", "client.id": "me"}, AdminClient) == {
        "request_timeout_ms": 5000,
        "client_id": "me",
    }
    assert client_settings({"acks": "1", "batch.size": "65536", "enable.idempotence": "false"}, Producer) == {
        "acks": 1,
        "max_batch_size": 65536,
        "enable_idempotence": False,
    }
    assert client_settings({"auto.offset.reset": "earliest", "bootstrap.servers": "h:1"}, Consumer) == {
        "auto_offset_reset": "earliest",
        "bootstrap_servers": "h:1",
    }


@pytest.mark.parametrize(
    ("properties", "message"),
    [
        ({"no.such.property": "1"}, "Unknown AdminClient property 'no.such.property' in admin.properties"),
        (
            {"request.timeout.ms": "soon"},
            "Invalid value 'soon' for property 'request.timeout.ms' in admin.properties",
        ),
    ],
)
def test_bad_client_properties_name_the_property_and_the_file(properties, message):
    with pytest.raises(ValueError, match=message):
        client_settings(properties, AdminClient, source="admin.properties")


def test_offset_needs_a_partition_and_excludes_from_beginning():
    assert parse_offset(None, None, False) is None
    assert parse_offset("42", 0, False) == 42
    assert parse_offset("earliest", 1, False) == "earliest"
    assert parse_offset("LATEST", 1, False) == "latest"
    with pytest.raises(click.UsageError, match="The partition is required when offset is specified"):
        parse_offset("5", None, False)
    with pytest.raises(click.UsageError, match="from-beginning and offset cannot be specified together"):
        parse_offset("5", 0, True)
    with pytest.raises(click.UsageError, match="non-negative"):
        parse_offset("-3", 0, False)


def test_formatter_prints_kafkas_fields_in_kafkas_order():
    formatter = DefaultMessageFormatter.from_properties(
        {
            "print.timestamp": "true",
            "print.partition": "true",
            "print.offset": "true",
            "print.headers": "true",
            "print.key": "true",
        }
    )
    assert (
        formatter.format(_record(headers=[("h1", b"a"), ("h2", None)]))
        == b"CreateTime:1700000000000\tPartition:2\tOffset:7\th1:a,h2:null\tk\tv\n"
    )
    assert (
        formatter.format(_record(timestamp_type=1, key=None))
        == b"LogAppendTime:1700000000000\tPartition:2\tOffset:7\tNO_HEADERS\tnull\tv\n"
    )


def test_formatter_defaults_and_separators():
    assert DefaultMessageFormatter().format(_record()) == b"v\n"
    formatter = DefaultMessageFormatter.from_properties(
        {"print.key": "true", "key.separator": ":", "line.separator": "\\n\\n", "null.literal": "-"}
    )
    assert formatter.format(_record(value=None)) == b"k:-\n\n"
    assert (
        DefaultMessageFormatter.from_properties({"print.value": "false", "print.key": "true"}).format(
            _record()
        )
        == b"k\n"
    )


def test_a_kafka_flag_we_do_not_take_names_what_to_use():
    assert advice_for("--zookeeper", "kafkette topics list").startswith(
        "kafkette topics list does not take Kafka's --zookeeper: "
    )
    assert advice_for("--no-such-flag", "kafkette topics list") is None
    assert all(flag.startswith("--") and advice for flag, advice in KAFKA_FLAG_ADVICE.items())
    assert_one_line_error(run("topics", "--create", "--topic", "t"), "kafkette topics create --topic NAME")
    assert_one_line_error(run("topics", "list", "--zookeeper", "zk:2181"), "use --bootstrap-server")
    assert_one_line_error(
        run("perf", "consume", "--topic", "t", "--group", "g"), "kafkette consume takes --group"
    )


def test_a_mistyped_flag_gets_did_you_mean():
    assert_one_line_error(run("topics", "create", "--topc", "t"), "Did you mean '--topic'?")
    assert_one_line_error(
        run("consume", "--topic", "t", "--max-mesages", "2"), "Did you mean '--max-messages'?"
    )


def test_command_line_mistakes_in_the_new_flags_are_one_line_errors(tmp_path):
    bad = tmp_path / "client.properties"
    bad.write_text("request.timeout.ms=soon\n")
    assert_one_line_error(
        run("topics", "list", "--command-config", str(bad)),
        f"Invalid value 'soon' for property 'request.timeout.ms' in {bad}",
    )
    assert_one_line_error(
        run("produce", "--topic", "t", "--producer-property", "lingr.ms=5"),
        "Unknown Producer property 'lingr.ms' in --producer-property",
    )
    assert_one_line_error(run("consume", "--topic", "t", "--consumer-property", "oops"), "key=value")
    assert_one_line_error(run("consume", "--topic", "t", "--offset", "3"), "partition is required")
    assert_one_line_error(
        run("produce", "--topic", "t", "--request-required-acks", "2"), "--request-required-acks"
    )
    assert_one_line_error(run("topics", "delete", "a", "--topic", "b"), "given twice")


def test_produce_takes_the_console_producers_retry_flags_and_kafkas_retry_properties():
    # --message-send-max-retries is --retries (Kafka's retries): 0 with idempotence asked for is refused
    # by the Producer, before any connection.
    for flag in ("--retries", "--message-send-max-retries"):
        assert_one_line_error(
            run(
                "produce",
                "--topic",
                "t",
                flag,
                "0",
                "--producer-property",
                "enable.idempotence=true",
                stdin="",
            ),
            "Must set retries to non-zero when using the idempotent producer",
        )
    assert_one_line_error(run("produce", "--topic", "t", "--retries", "-1"), "--retries")
    assert_one_line_error(
        run("produce", "--topic", "t", "--delivery-timeout-ms", "0"), "--delivery-timeout-ms"
    )
    assert_one_line_error(run("produce", "--topic", "t", "--retry-backoff-ms", "-5"), "--retry-backoff-ms")
    assert_one_line_error(
        run("produce", "--topic", "t", "--producer-property", "retry.backoff.max.ms=-1"),
        "retry_backoff_max_ms must be >= 0",
    )
    assert advice_for("--message-send-max-retries", "kafkette produce") is None
    assert advice_for("--retry-backoff-ms", "kafkette produce") is None


def _commands(group: click.Group, path: str = "kafkette"):
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            yield from _commands(command, f"{path} {name}")
        else:
            yield f"{path} {name}", command


def test_every_client_command_takes_command_config():
    from kafkette.client.cli.main import kafkette

    clients = {
        path: {o for p in cmd.params for o in p.opts}
        for path, cmd in _commands(kafkette)
        if any("--bootstrap-server" in p.opts for p in cmd.params)
    }
    assert len(clients) >= 15, sorted(clients)
    assert [path for path, opts in clients.items() if "--command-config" not in opts] == []
