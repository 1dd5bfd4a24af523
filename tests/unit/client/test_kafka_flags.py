"""A flag of Kafka's tools that kafkette does not take is one line naming what to use
(``kafkette.client.cli.kafka_flags`` consulted by ``KafketteGroup``); a mistyped flag keeps
click's "Did you mean"; bad ``--property`` keys and client properties are one line each
(in-process, no broker)."""

from __future__ import annotations

import re

import click
import pytest
from cli_runner import run

from kafkette.client.cli.kafka_flags import COMMAND_FLAG_ADVICE, KAFKA_FLAG_ADVICE, advice_for
from kafkette.client.cli.main import kafkette


def _commands(group: click.Group, path: str = "kafkette"):
    for name, command in group.commands.items():
        yield f"{path} {name}", command
        if isinstance(command, click.Group):
            yield from _commands(command, f"{path} {name}")


COMMANDS = dict(_commands(kafkette))


def _options(command: click.Command) -> set[str]:
    return {opt for param in command.params for opt in param.opts}


def test_the_table_holds_kafka_flags_and_one_line_of_advice_each():
    for flag, advice in [*KAFKA_FLAG_ADVICE.items(), *((f, a) for (_, f), a in COMMAND_FLAG_ADVICE.items())]:
        assert re.fullmatch(r"--[a-z][a-z.-]+", flag), flag
        assert advice and "\n" not in advice and not advice.endswith("."), flag
    for path, _ in COMMAND_FLAG_ADVICE:
        assert f"kafkette {path}" in COMMANDS, path


def test_advice_names_the_command_and_the_flag():
    assert advice_for("--zookeeper", "kafkette topics list") == (
        "kafkette topics list does not take Kafka's --zookeeper: "
        "ZooKeeper is gone (as in Kafka 4); use --bootstrap-server HOST:PORT"
    )
    assert advice_for("--topc", "kafkette topics create") is None


def test_the_longest_matching_command_path_chooses_the_advice():
    assert advice_for("--group", "kafkette perf consume").endswith(
        ": perf consume reads every partition without a group; kafkette consume takes --group"
    )
    assert advice_for("--group", "kafkette configs alter").endswith(
        ": only topic and broker configs exist (group configs are not supported yet)"
    )
    assert advice_for("--group", "kafkette topics list").endswith(
        ": kafkette consume and kafkette consumer-groups take --group"
    )
    assert advice_for("--timeout", "kafkette produce").endswith(": use --linger-ms")
    assert advice_for("--timeout", "kafkette topics describe").endswith(": use --request-timeout-ms")


def test_timeout_advice_names_a_flag_the_client_command_takes():
    clients = {
        path: command for path, command in COMMANDS.items() if "--bootstrap-server" in _options(command)
    }
    assert len(clients) >= 15
    for path, command in clients.items():
        advice = advice_for("--timeout", path)
        named = re.findall(r"use (--[a-z-]+)", advice or "")
        assert named and named[-1] in _options(command), (path, advice)


def test_only_the_console_perf_group_acl_and_config_tools_take_a_flag_the_table_gives_advice_for():
    taken = {
        (path, flag)
        for path, command in COMMANDS.items()
        for flag in _options(command) & set(KAFKA_FLAG_ADVICE)
    }
    assert taken == {
        ("kafkette produce", "--producer.config"),
        ("kafkette produce", "--producer-property"),
        ("kafkette consume", "--consumer.config"),
        ("kafkette consume", "--consumer-property"),
        ("kafkette consume", "--group"),
        ("kafkette consumer-groups", "--group"),
        ("kafkette consumer-groups", "--list"),
        ("kafkette consumer-groups", "--describe"),
        ("kafkette consumer-groups", "--delete"),
        ("kafkette perf produce", "--producer.config"),
        ("kafkette perf consume", "--consumer.config"),
        ("kafkette acls", "--group"),
        ("kafkette acls", "--list"),
        ("kafkette acls", "--transactional-id"),
        ("kafkette produce", "--transactional-id"),
        ("kafkette transactions describe", "--transactional-id"),
        ("kafkette configs alter", "--client"),
        ("kafkette configs alter", "--entity-default"),
        ("kafkette configs alter", "--user"),
        ("kafkette configs describe", "--client"),
        ("kafkette configs describe", "--entity-default"),
        ("kafkette configs describe", "--user"),
    }
    assert "--producer.config" in _options(COMMANDS["kafkette produce"])
    assert "--producer.config" in _options(COMMANDS["kafkette perf produce"])
    assert "--consumer.config" in _options(COMMANDS["kafkette consume"])
    assert "--consumer.config" in _options(COMMANDS["kafkette perf consume"])


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["topics", "list", "--zookeeper", "zk:2181"],
            "Error: kafkette topics list does not take Kafka's --zookeeper: "
            "ZooKeeper is gone (as in Kafka 4); use --bootstrap-server HOST:PORT",
        ),
        (
            ["topics", "--create", "--topic", "t"],
            "Error: kafkette topics does not take Kafka's --create: "
            "kafka-topics.sh's action flags are subcommands: kafkette topics create --topic NAME",
        ),
        (
            ["topics", "--list"],
            "Error: kafkette topics does not take Kafka's --list: "
            "kafka-topics.sh's action flags are subcommands: kafkette topics list",
        ),
        (
            ["topics", "--describe", "--topic", "t"],
            "Error: kafkette topics does not take Kafka's --describe: "
            "action flags are subcommands: kafkette topics describe or kafkette configs describe",
        ),
        (
            ["topics", "--alter"],
            "Error: kafkette topics does not take Kafka's --alter: "
            "action flags are subcommands: kafkette topics alter or kafkette configs alter",
        ),
        (
            ["topics", "--delete", "--topic", "t"],
            "Error: kafkette topics does not take Kafka's --delete: "
            "action flags are subcommands: kafkette topics delete --topic NAME",
        ),
        (
            ["perf", "consume", "--topic", "t", "--group", "g"],
            "Error: kafkette perf consume does not take Kafka's "
            "--group: perf consume reads every partition without a group; kafkette consume takes --group",
        ),
        (
            ["perf", "produce", "--topic", "t", "--transactional-id", "x"],
            "Error: kafkette perf produce does not take Kafka's --transactional-id: "
            "kafkette perf does not run transactions; kafkette produce takes --transactional-id",
        ),
        (
            ["consume", "--topic", "t", "--formatter", "kafka.tools.LoggingMessageFormatter"],
            "Error: kafkette consume does not take Kafka's --formatter: "
            "only Kafka's DefaultMessageFormatter exists; choose fields with --property print.*=true",
        ),
        (
            ["consume", "--topic", "t", "--timeout", "5000"],
            "Error: kafkette consume does not take Kafka's --timeout: use --timeout-ms",
        ),
        (
            ["produce", "--topic", "t", "--timeout", "5"],
            "Error: kafkette produce does not take Kafka's --timeout: "
            "kafka-console-producer.sh's --timeout is how long a batch waits: use --linger-ms",
        ),
        (
            ["perf", "produce", "--topic", "t", "--reporting-interval", "5000"],
            "Error: kafkette perf produce does not take Kafka's --reporting-interval: "
            "kafkette perf prints one summary at the end (and a progress line on a terminal)",
        ),
        (
            ["topics", "create", "--topic", "t", "--producer.config", "p.properties"],
            "Error: kafkette topics create does not take Kafka's --producer.config: "
            "use --command-config FILE (kafkette produce and perf produce also take --producer.config)",
        ),
        (
            [
                "configs",
                "alter",
                "--ip",
                "10.0.0.1",
                "--add-config",
                "connection_creation_rate=1",
            ],
            "Error: kafkette configs alter does not take Kafka's --ip: "
            "IP quotas are not supported by kafkette configs yet: --user NAME or --client CLIENT_ID",
        ),
        (
            ["topics", "elect-leaders", "--all-topic-partitions"],
            "Error: kafkette topics elect-leaders does not take Kafka's --all-topic-partitions: "
            "kafkette topics elect-leaders without --topic elects every partition",
        ),
        (
            ["topics", "list", "--zookeeper=zk:2181"],
            "Error: kafkette topics list does not take Kafka's --zookeeper: "
            "ZooKeeper is gone (as in Kafka 4); use --bootstrap-server HOST:PORT",
        ),
    ],
)
def test_a_kafka_flag_we_do_not_take_is_one_line_naming_what_to_use(args, line):
    result = run(*args)
    assert (result.exit_code, result.stderr, result.stdout) == (2, line + "\n", "")


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["topics", "create", "--topc", "t"], "Error: No such option '--topc'. Did you mean '--topic'?"),
        (
            ["consume", "--topic", "t", "--max-mesages", "2"],
            "Error: No such option '--max-mesages'. Did you mean '--max-messages'?",
        ),
        (
            ["produce", "--topic", "t", "--producer-propety", "acks=1"],
            "Error: No such option '--producer-propety'. "
            "(Did you mean one of: '--producer-property', '--producer.config', '--property'?)",
        ),
    ],
)
def test_a_mistyped_flag_keeps_clicks_did_you_mean(args, line):
    result = run(*args)
    assert (result.exit_code, result.stderr) == (2, line + "\n")


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["produce", "--topic", "t", "--property", "parse.headers=true"],
            "Error: Unknown --property 'parse.headers' (supported: parse.key, key.separator)",
        ),
        (
            ["consume", "--topic", "t", "--property", "print.delivery=true"],
            "Error: Unknown --property 'print.delivery' (supported: print.timestamp, print.partition, "
            "print.offset, print.headers, print.key, print.value, key.separator, line.separator, "
            "headers.separator, null.literal)",
        ),
        (
            ["consume", "--topic", "t", "--property", "print.key=yes"],
            "Error: --property print.key must be true or false, got 'yes'",
        ),
        (
            ["consume", "--topic", "t", "--consumer-property", "isolation.level=read_whatever"],
            "Error: Bad Consumer properties in --consumer-property: isolation_level must be "
            "'read_uncommitted' or 'read_committed', not 'read_whatever'",
        ),
        (
            ["consume", "--topic", "t", "--group", "g", "--partition", "0"],
            "Error: Options group and partition cannot be specified together.",
        ),
        (
            ["produce", "--topic", "t", "--producer-property", "acks=2"],
            "Error: Bad Producer properties in --producer-property: acks must be one of 'all', -1, 0, 1; "
            "got 2",
        ),
    ],
)
def test_bad_properties_are_one_line_each(args, line):
    result = run(*args)
    assert (result.exit_code, result.stderr) == (2, line + "\n")
