"""Kafka's own command-line tools (kafka-tools and kafka core, 4.3.1) against Kafkette's Kafka
listener and against Apache Kafka, unchanged: the commands of Kafka's quickstart and the
TopicCommand, ConfigCommand, ConsumerGroupCommand, MetadataQuorumCommand, ConsoleProducer,
ConsoleConsumer, GetOffsetShell and LogDirsCommand (ConfigCommand on topics and, KIP-412, on
broker-loggers), each run against both, their outputs
compared by shape (ids, sizes, addresses, timestamps and paths made alike; what is left must
be equal); and FeatureCommand against Kafkette alone (the feature levels it implements).  Needs
Java 17 and the Kafka jars (the Apache Kafka peer, ``tests/peers``); without them the tests fail,
saying what is missing."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from kafkette.client import LocalCluster
from tests.peers.kafka_peer import KafkaPeer

pytestmark = pytest.mark.timeout(900)

TOOLS = "org.apache.kafka.tools."
TOPIC = "quickstart-events"
GROUP = "quickstart-group"
EVENTS = "This is my first event\nThis is my second event\n"


@pytest.fixture(scope="module")
def brokers(one_node_each):
    """``(peer, {"kafka": bootstrap, "kafkette": bootstrap})``: one Apache Kafka node and one
    Kafkette broker with its Kafka listener."""
    return one_node_each


def _run(peer: KafkaPeer, main_class: str, *args: str, stdin: str | None = None) -> str:
    """Run a tool; its stdout (the test fails on a non-zero exit, showing stderr)."""
    command = [*peer.tool_command(main_class), *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, input=stdin)
    assert done.returncode == 0, (
        f"{main_class.rsplit('.', 1)[-1]} {' '.join(args)} exited {done.returncode}:\n{done.stderr[-1500:]}"
    )
    return done.stdout


def _both(brokers, main_class: str, *args: str, stdin: str | None = None) -> dict[str, str]:
    """The tool's output against each broker (``{BOOTSTRAP}`` in ``args`` is replaced)."""
    peer, bootstrap = brokers
    return {
        name: _run(peer, main_class, *[a.replace("{BOOTSTRAP}", server) for a in args], stdin=stdin)
        for name, server in bootstrap.items()
    }


def shape(text: str) -> list[str]:
    """``text`` with what legitimately differs between two clusters made alike: topic and
    directory ids, numbers, addresses, paths; blank lines and trailing spaces dropped."""
    text = re.sub(r"\b[A-Za-z0-9_-]{22}\b", "<id>", text)
    # the configs a topic shows are those not at Kafka's default: the peer's server.properties
    # sets some (min.insync.replicas=1) that Kafkette's LocalCluster leaves at the default
    text = re.sub(r"Configs: .*", "Configs: <configs>", text)
    text = re.sub(r"/[^\s\"]+", "<path>", text)
    text = re.sub(r"\b\d+\.\d+\.\d+\.\d+(:\d+)?\b", "<address>", text)
    text = re.sub(r"\d+", "<n>", text)
    return [line.rstrip() for line in text.splitlines() if line.strip()]


def test_quickstart_topic_produce_consume(brokers):
    """Kafka's quickstart, step by step, on both."""
    created = _both(
        brokers, TOOLS + "TopicCommand", "--create", "--topic", TOPIC, "--bootstrap-server", "{BOOTSTRAP}"
    )
    assert created["kafka"] == created["kafkette"] == f"Created topic {TOPIC}.\n"

    described = _both(
        brokers, TOOLS + "TopicCommand", "--describe", "--topic", TOPIC, "--bootstrap-server", "{BOOTSTRAP}"
    )
    assert shape(described["kafkette"]) == shape(described["kafka"]), described

    _both(
        brokers,
        TOOLS + "ConsoleProducer",
        "--topic",
        TOPIC,
        "--bootstrap-server",
        "{BOOTSTRAP}",
        stdin=EVENTS,
    )
    consumed = _both(
        brokers,
        TOOLS + "consumer.ConsoleConsumer",
        "--topic",
        TOPIC,
        "--from-beginning",
        "--max-messages",
        "2",
        "--group",
        GROUP,
        "--bootstrap-server",
        "{BOOTSTRAP}",
    )
    assert consumed["kafka"] == consumed["kafkette"] == EVENTS

    offsets = _both(brokers, TOOLS + "GetOffsetShell", "--topic", TOPIC, "--bootstrap-server", "{BOOTSTRAP}")
    assert offsets["kafka"] == offsets["kafkette"] == f"{TOPIC}:0:2\n"

    listed = _both(
        brokers, TOOLS + "TopicCommand", "--list", "--exclude-internal", "--bootstrap-server", "{BOOTSTRAP}"
    )
    assert listed["kafka"] == listed["kafkette"] == f"{TOPIC}\n"


def test_config_command(brokers):
    _both(
        brokers,
        TOOLS + "TopicCommand",
        "--create",
        "--topic",
        "tools-configs",
        "--partitions",
        "2",
        "--bootstrap-server",
        "{BOOTSTRAP}",
    )
    altered = _both(
        brokers,
        "kafka.admin.ConfigCommand",
        "--bootstrap-server",
        "{BOOTSTRAP}",
        "--entity-type",
        "topics",
        "--entity-name",
        "tools-configs",
        "--alter",
        "--add-config",
        "retention.ms=86400000",
    )
    assert altered["kafka"] == altered["kafkette"] == "Completed updating config for topic tools-configs.\n"
    described = _both(
        brokers,
        "kafka.admin.ConfigCommand",
        "--bootstrap-server",
        "{BOOTSTRAP}",
        "--entity-type",
        "topics",
        "--entity-name",
        "tools-configs",
        "--describe",
    )
    assert shape(described["kafkette"]) == shape(described["kafka"]), described


LOGGER_LINE = re.compile(r"^\s+(\S+)=(\S+) sensitive=false synonyms=\{\}$")


def _broker_logger_command(peer: KafkaPeer, server: str, *args: str) -> str:
    """ConfigCommand on broker 1's broker-loggers (KIP-412) against the broker at ``server``
    (``host:port``), with ``args`` (``--describe``, ``--alter ...``); its stdout."""
    return _run(
        peer,
        "kafka.admin.ConfigCommand",
        "--bootstrap-server",
        server,
        "--entity-type",
        "broker-loggers",
        "--entity-name",
        "1",
        *args,
    )


def _broker_loggers(brokers, *args: str) -> dict[str, str]:
    """``_broker_logger_command`` against both brokers: ``{"kafka": stdout, "kafkette": stdout}``."""
    peer, bootstrap = brokers
    return {name: _broker_logger_command(peer, server, *args) for name, server in bootstrap.items()}


def _logger_levels(output: str) -> tuple[str, dict[str, str]]:
    """A broker-loggers describe: its heading and ``{logger: level}`` (every other line must be
    one logger's)."""
    heading, *lines = [line for line in output.splitlines() if line.strip()]
    levels = {}
    for line in lines:
        found = LOGGER_LINE.match(line)
        assert found, f"not a logger line: {line!r}"
        levels[found.group(1)] = found.group(2)
    return heading, levels


def test_config_command_broker_loggers_describe_alter_delete(brokers):
    """The logger names differ by nature (log4j's against Python's): the shape of each output and
    the changed level are compared."""
    valid = {"TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL", "OFF", "ALL"}
    before = {name: _logger_levels(out) for name, out in _broker_loggers(brokers, "--describe").items()}
    assert before["kafka"][0] == before["kafkette"][0] == "Dynamic configs for broker-logger 1 are:"
    for _, levels in before.values():
        assert "root" in levels and set(levels.values()) <= valid
    # a logger of each broker's own that takes its level from the root logger
    chosen = {
        name: next(n for n, level in sorted(levels.items()) if n != "root" and level == levels["root"])
        for name, (_, levels) in before.items()
    }
    peer, bootstrap = brokers
    for name, server in bootstrap.items():
        for action, config, done in (
            ("--add-config", f"{chosen[name]}=DEBUG", "DEBUG"),
            ("--delete-config", chosen[name], before[name][1]["root"]),
        ):
            out = _broker_logger_command(peer, server, "--alter", action, config)
            assert out == "Completed updating config for broker-logger 1.\n", (name, out)
            described = _broker_logger_command(peer, server, "--describe")
            assert _logger_levels(described)[1][chosen[name]] == done, (name, described)


def test_consumer_group_command(brokers):
    _both(
        brokers,
        TOOLS + "TopicCommand",
        "--create",
        "--topic",
        "tools-groups",
        "--bootstrap-server",
        "{BOOTSTRAP}",
    )
    _both(
        brokers,
        TOOLS + "ConsoleProducer",
        "--topic",
        "tools-groups",
        "--bootstrap-server",
        "{BOOTSTRAP}",
        stdin="a\nb\nc\n",
    )
    _both(
        brokers,
        TOOLS + "consumer.ConsoleConsumer",
        "--topic",
        "tools-groups",
        "--from-beginning",
        "--max-messages",
        "3",
        "--group",
        "tools-group",
        "--bootstrap-server",
        "{BOOTSTRAP}",
    )
    listed = _both(
        brokers, TOOLS + "consumer.group.ConsumerGroupCommand", "--bootstrap-server", "{BOOTSTRAP}", "--list"
    )
    assert "tools-group" in listed["kafka"].split() and "tools-group" in listed["kafkette"].split()
    described = _both(
        brokers,
        TOOLS + "consumer.group.ConsumerGroupCommand",
        "--bootstrap-server",
        "{BOOTSTRAP}",
        "--describe",
        "--group",
        "tools-group",
    )
    assert shape(described["kafkette"]) == shape(described["kafka"]), described


def test_metadata_quorum_and_log_dirs_commands(brokers):
    status = _both(
        brokers, TOOLS + "MetadataQuorumCommand", "--bootstrap-server", "{BOOTSTRAP}", "describe", "--status"
    )
    keys = {
        name: [line.split(":", 1)[0] for line in out.splitlines() if ":" in line]
        for name, out in status.items()
    }
    assert keys["kafkette"] == keys["kafka"], status

    _both(
        brokers,
        TOOLS + "TopicCommand",
        "--create",
        "--topic",
        "tools-dirs",
        "--partitions",
        "2",
        "--bootstrap-server",
        "{BOOTSTRAP}",
    )
    dirs = _both(
        brokers,
        TOOLS + "LogDirsCommand",
        "--bootstrap-server",
        "{BOOTSTRAP}",
        "--describe",
        "--topic-list",
        "tools-dirs",
    )
    answers = {name: json.loads(out.splitlines()[-1]) for name, out in dirs.items()}
    for answer in answers.values():
        (broker,) = answer["brokers"]
        (log_dir,) = broker["logDirs"]
        assert log_dir["error"] is None
        assert sorted(p["partition"] for p in log_dir["partitions"]) == ["tools-dirs-0", "tools-dirs-1"]
        assert all(set(p) == {"partition", "size", "offsetLag", "isFuture"} for p in log_dir["partitions"])
    assert [line for line in dirs["kafka"].splitlines()[:-1]] == [
        line for line in dirs["kafkette"].splitlines()[:-1]
    ]


def _kafkette_features(bootstrap: str) -> list[tuple[str, ...]]:
    """FeatureCommand's ``describe`` against Kafkette: per feature (sorted by name) its supported
    range, finalized level and epoch."""
    command = [*KafkaPeer.tool_command(TOOLS + "FeatureCommand"), "--bootstrap-server", bootstrap, "describe"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-1500:]
    return [
        tuple(
            re.findall(
                r"(?:Feature|SupportedMinVersion|SupportedMaxVersion|FinalizedVersionLevel|Epoch): (\S+)",
                line,
            )
        )
        for line in done.stdout.splitlines()
        if line.strip()
    ]


def test_feature_command_describes_the_features_kafkette_implements_at_the_metadata_offset(tmp_path):
    """Kafka's ``kafka-features.sh describe`` against Kafkette alone (Kafka 4.3 finalizes levels
    Kafkette does not implement, see ``broker_features``): metadata.version 3.3-IV3 and group.version 1
    supported and finalized, the others at 0."""
    with LocalCluster(num_brokers=1, data_dir=tmp_path, kafka_protocol=True) as cluster:
        before = _kafkette_features(cluster.kafka_bootstrap_servers)
        epoch = before[0][-1]
        assert int(epoch) >= 0 and {line[-1] for line in before} == {epoch}, before
        assert [line[:-1] for line in before] == [
            ("eligible.leader.replicas.version", "0", "0", "0"),
            ("group.version", "0", "1", "1"),  # KIP-848's consumer groups, finalized as in Kafka 4.x
            ("kraft.version", "0", "0", "0"),
            ("metadata.version", "3.3-IV3", "3.3-IV3", "3.3-IV3"),
            ("share.version", "0", "0", "0"),
            ("streams.version", "0", "0", "0"),
            ("transaction.version", "0", "0", "0"),
        ]
        created = subprocess.run(
            [
                *KafkaPeer.tool_command(TOOLS + "TopicCommand"),
                "--create",
                "--topic",
                "features-epoch",
                "--bootstrap-server",
                cluster.kafka_bootstrap_servers,
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert created.returncode == 0, created.stderr[-1500:]
        after = _kafkette_features(cluster.kafka_bootstrap_servers)
        assert int(after[0][-1]) > int(epoch), "the epoch follows the metadata log"


def _quota_command(brokers, *args: str) -> dict[str, str]:
    return _both(brokers, "kafka.admin.ConfigCommand", "--bootstrap-server", "{BOOTSTRAP}", *args)


def test_config_command_client_quotas_alter_describe_remove(brokers):
    """Client quotas (KIP-546) with ConfigCommand: per user, per client id, per (user, client id)
    and defaults, set, described and removed, with the same output from both brokers."""
    for entity in (
        ("--entity-type", "users", "--entity-name", "alice"),
        ("--entity-type", "clients", "--entity-name", "app-1"),
        (
            "--entity-type",
            "users",
            "--entity-name",
            "alice",
            "--entity-type",
            "clients",
            "--entity-name",
            "app-1",
        ),
        ("--entity-type", "users", "--entity-default"),
    ):
        altered = _quota_command(
            brokers, *entity, "--alter", "--add-config", "producer_byte_rate=1048576,request_percentage=12.5"
        )
        assert altered["kafka"] == altered["kafkette"], altered
        assert altered["kafka"].startswith("Completed updating "), altered
        described = _quota_command(brokers, *entity, "--describe")
        assert described["kafka"] == described["kafkette"], described
        assert "producer_byte_rate=1048576.0" in described["kafka"], described
    listed = _quota_command(brokers, "--entity-type", "users", "--describe")
    assert sorted(listed["kafka"].splitlines()) == sorted(listed["kafkette"].splitlines()), listed
    removed = _quota_command(
        brokers,
        "--entity-type",
        "users",
        "--entity-name",
        "alice",
        "--alter",
        "--delete-config",
        "request_percentage",
    )
    assert removed["kafka"] == removed["kafkette"], removed
    described = _quota_command(brokers, "--entity-type", "users", "--entity-name", "alice", "--describe")
    assert described["kafka"] == described["kafkette"], described
    assert "request_percentage" not in described["kafkette"], described


def test_config_command_refuses_a_fractional_byte_rate_as_kafka_does(brokers):
    peer, bootstrap = brokers
    outcomes = {}
    for name, server in bootstrap.items():
        done = subprocess.run(
            [
                *peer.tool_command("kafka.admin.ConfigCommand"),
                "--bootstrap-server",
                server,
                "--entity-type",
                "users",
                "--entity-name",
                "bob",
                "--alter",
                "--add-config",
                "consumer_byte_rate=10.5",
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        outcomes[name] = (
            done.returncode,
            [line for line in done.stderr.splitlines() if "Exception" in line][:1],
        )
    assert outcomes["kafka"] == outcomes["kafkette"], outcomes
    assert outcomes["kafka"][0] != 0
