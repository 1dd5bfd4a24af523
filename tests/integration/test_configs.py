"""On real brokers: topic, broker and group configs (DescribeConfigs,
IncrementalAlterConfigs) through the AdminClient and ``kafkette configs``; topic
overrides reach the partitions; topics and topic and group configs survive a controller kill -9.
"""

from __future__ import annotations

import asyncio

import pytest
from click.testing import CliRunner

from kafkette.client import (
    AdminClient,
    BrokerNotAvailableError,
    ConfigResource,
    ConfigResourceType,
    ConfigSource,
    Consumer,
    InvalidConfigError,
    InvalidRequestError,
    LocalCluster,
    NewPartitions,
    NewTopic,
    Producer,
    TopicPartition,
    UnknownTopicOrPartitionError,
)
from kafkette.client.cli.main import kafkette
from kafkette.client.kafka_client import KafkaClient
from kafkette.client.producer.sender import PRODUCE_BY_NAME_VERSION
from kafkette.protocol.apis.produce import ProducePartitionData, ProduceRequest, ProduceTopicData
from kafkette.protocol.errors import Errors
from kafkette.protocol.record_batch import build_batch

pytestmark = pytest.mark.timeout(120)

PROPS = {
    "broker.session.timeout.ms": 3000,
    "broker.heartbeat.interval.ms": 500,
    "replica.fetch.backoff.ms": 200,
    "controlled.shutdown.retry.backoff.ms": 500,
}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory):
    with LocalCluster(num_brokers=3, data_dir=tmp_path_factory.mktemp("configs"), broker_configs=PROPS) as c:
        yield c


def topic(name: str) -> ConfigResource:
    return ConfigResource(ConfigResourceType.TOPIC, name)


def cli(cluster: LocalCluster, *args: str):
    return CliRunner().invoke(kafkette, [*args, "--bootstrap-server", cluster.bootstrap_servers])


def group(name: str) -> ConfigResource:
    return ConfigResource(ConfigResourceType.GROUP, name)


def one_error_line(result) -> str:
    assert result.exit_code != 0, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    return lines[0]


async def test_topic_configs_round_trip(cluster):
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers) as admin:
        await admin.create_topics([NewTopic("cfg", 1, 2, configs={"retention.ms": "86400000"})])
        entries = (await admin.describe_configs([topic("cfg")]))[topic("cfg")]
        assert (entries["retention.ms"].value, entries["retention.ms"].source) == (
            "86400000",
            ConfigSource.DYNAMIC_TOPIC_CONFIG,
        )
        assert entries["min.insync.replicas"].source != ConfigSource.DYNAMIC_TOPIC_CONFIG

        await admin.alter_configs({topic("cfg"): {"min.insync.replicas": "2", "retention.ms": None}})
        entries = (await admin.describe_configs([topic("cfg")]))[topic("cfg")]
        assert (entries["min.insync.replicas"].value, entries["min.insync.replicas"].source) == (
            "2",
            ConfigSource.DYNAMIC_TOPIC_CONFIG,
        )
        assert entries["retention.ms"].source != ConfigSource.DYNAMIC_TOPIC_CONFIG

        await admin.alter_configs({topic("cfg"): [("cleanup.policy", "append", "compact")]})
        only = await admin.describe_configs([topic("cfg")], config_names=["cleanup.policy"])
        assert set(only[topic("cfg")]) == {"cleanup.policy"}
        assert set(only[topic("cfg")]["cleanup.policy"].value.split(",")) == {"delete", "compact"}

        await admin.alter_configs({topic("cfg"): {"segment.bytes": "1048576"}}, validate_only=True)
        entries = (await admin.describe_configs([topic("cfg")]))[topic("cfg")]
        assert entries["segment.bytes"].source != ConfigSource.DYNAMIC_TOPIC_CONFIG


async def test_bad_topic_config_changes_are_refused(cluster):
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers) as admin:
        await admin.create_topics([NewTopic("cfg-bad", 1, 1)])
        with pytest.raises(InvalidConfigError, match=r"retention\.ms"):
            await admin.alter_configs({topic("cfg-bad"): {"retention.ms": "soon"}})
        with pytest.raises(InvalidConfigError, match=r"no\.such\.config"):
            await admin.alter_configs({topic("cfg-bad"): {"no.such.config": "1"}})
        with pytest.raises(UnknownTopicOrPartitionError):
            await admin.alter_configs({topic("cfg-missing"): {"retention.ms": "1000"}})
        with pytest.raises(UnknownTopicOrPartitionError):
            await admin.describe_configs([topic("cfg-missing")])
        entries = (await admin.describe_configs([topic("cfg-bad")]))[topic("cfg-bad")]
        assert all(e.source != ConfigSource.DYNAMIC_TOPIC_CONFIG for e in entries.values())


async def test_an_altered_topic_config_reaches_the_partition(cluster):
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers) as admin:
        await admin.create_topics([NewTopic("cfg-live", 1, 1)])
        leader = (await admin.describe_topics(["cfg-live"]))["cfg-live"].partitions[0].leader
        await admin.alter_configs({topic("cfg-live"): {"max.message.bytes": "200"}})
    client = KafkaClient(cluster.bootstrap_servers)
    await client.start()
    try:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 10
        while True:
            request = ProduceRequest(
                acks=-1,
                timeout_ms=5000,
                topic_data=[
                    ProduceTopicData(
                        name="cfg-live",
                        partition_data=[
                            ProducePartitionData(index=0, records=build_batch([(None, b"v" * 300, None, 0)]))
                        ],
                    )
                ],
            )
            code = (
                (await client.send(leader, request, api_version=PRODUCE_BY_NAME_VERSION))
                .responses[0]
                .partition_responses[0]
                .error_code
            )
            if code == Errors.MESSAGE_TOO_LARGE:
                break
            assert code == Errors.NONE and loop.time() < deadline, (
                f"max.message.bytes=200 never applied (last {code})"
            )
            await asyncio.sleep(0.2)
    finally:
        await client.close()


async def test_broker_configs_round_trip(cluster):
    broker = ConfigResource(ConfigResourceType.BROKER, 2)
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers) as admin:
        await admin.alter_configs({broker: {"log.retention.ms": "3600000"}})
        entries = (await admin.describe_configs([broker]))[broker]
        assert (entries["log.retention.ms"].value, entries["log.retention.ms"].source) == (
            "3600000",
            ConfigSource.DYNAMIC_BROKER_CONFIG,
        )
        assert entries["node.id"].read_only and entries["node.id"].value == "2"
        await admin.alter_configs({broker: {"log.retention.ms": None}})
        entries = (await admin.describe_configs([broker]))[broker]
        assert entries["log.retention.ms"].source != ConfigSource.DYNAMIC_BROKER_CONFIG
        with pytest.raises(
            InvalidRequestError, match=r"Cannot update these configs dynamically: \[num\.partitions\]"
        ):
            await admin.alter_configs({broker: {"num.partitions": "4"}})  # read-only, as in Kafka
        with pytest.raises(BrokerNotAvailableError):
            await admin.describe_configs([ConfigResource("broker", 9)])


async def test_group_configs_round_trip_through_the_admin_client(cluster):
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers) as admin:
        await admin.alter_configs({group("cfg-group"): {"consumer.session.timeout.ms": "50000"}})
        with pytest.raises(InvalidConfigError, match=r"group\.consumer\.max\.session\.timeout\.ms"):
            await admin.alter_configs({group("cfg-group"): {"consumer.session.timeout.ms": "70000"}})
        entries = (await admin.describe_configs([group("cfg-group")]))[group("cfg-group")]
    assert (entries["consumer.session.timeout.ms"].value, entries["consumer.session.timeout.ms"].source) == (
        "50000",
        ConfigSource.GROUP_CONFIG,
    )
    assert (
        entries["consumer.heartbeat.interval.ms"].value,
        entries["consumer.heartbeat.interval.ms"].source,
    ) == ("5000", ConfigSource.DEFAULT_CONFIG)


def test_cli_configs_alter_and_describe_a_group(cluster):
    base = ("--entity-type", "groups", "--entity-name", "cfg-cli-group")
    altered = cli(cluster, "configs", "alter", *base, "--add-config", "share.delivery.count.limit=6")
    assert (
        altered.exit_code == 0 and "Completed updating config for group cfg-cli-group." in altered.stdout
    ), altered.output
    lines = cli(cluster, "configs", "describe", *base).stdout.splitlines()
    assert lines[0] == "Dynamic configs for group cfg-cli-group are:"
    assert [line.split()[0] for line in lines[1:]] == ["share.delivery.count.limit=6"]
    assert (
        "share.delivery.count.limit must be less than or equal to group.share.max.delivery.count.limit"
        in one_error_line(
            cli(cluster, "configs", "alter", *base, "--add-config", "share.delivery.count.limit=11")
        )
    )


def test_cli_configs_alter_and_describe_a_topic(cluster):
    assert cli(cluster, "topics", "create", "cfg-cli", "--partitions", "1").exit_code == 0
    base = ("--entity-type", "topics", "--entity-name", "cfg-cli")
    altered = cli(
        cluster, "configs", "alter", *base, "--add-config", "min.insync.replicas=1,retention.ms=1000"
    )
    assert altered.exit_code == 0 and "Completed updating config for topic cfg-cli." in altered.stdout, (
        altered.output
    )
    described = cli(cluster, "configs", "describe", *base)
    assert described.exit_code == 0, described.output
    lines = described.stdout.splitlines()
    assert lines[0] == "Dynamic configs for topic cfg-cli are:"
    assert sorted(line.split()[0] for line in lines[1:]) == ["min.insync.replicas=1", "retention.ms=1000"]
    assert cli(cluster, "configs", "alter", *base, "--delete-config", "retention.ms").exit_code == 0
    lines = cli(cluster, "configs", "describe", *base).stdout.splitlines()
    assert [line.split()[0] for line in lines[1:]] == ["min.insync.replicas=1"]
    assert "retention.ms" in one_error_line(
        cli(cluster, "configs", "alter", *base, "--add-config", "retention.ms=soon")
    )
    every = cli(cluster, "configs", "describe", *base, "--all")
    assert every.stdout.splitlines()[0] == "All configs for topic cfg-cli are:"
    assert len(every.stdout.splitlines()) > 3


def test_cli_configs_alter_and_describe_a_broker(cluster):
    base = ("--entity-type", "brokers", "--entity-name", "1")
    altered = cli(cluster, "configs", "alter", *base, "--add-config", "log.retention.ms=7200000")
    assert altered.exit_code == 0, altered.output
    lines = cli(cluster, "configs", "describe", *base).stdout.splitlines()
    assert lines[0] == "Dynamic configs for broker 1 are:"
    assert "  log.retention.ms=7200000 sensitive=false source=DYNAMIC_BROKER_CONFIG" in lines
    assert cli(cluster, "configs", "alter", *base, "--delete-config", "log.retention.ms").exit_code == 0
    assert "INVALID_REQUEST" in one_error_line(
        cli(cluster, "configs", "alter", *base, "--add-config", "node.id=7")
    )


async def test_topics_and_configs_survive_a_controller_kill_and_restart(tmp_path):
    cluster = LocalCluster(num_brokers=3, data_dir=tmp_path, broker_configs=PROPS).start()
    try:
        bootstrap = cluster.bootstrap_servers
        async with AdminClient(bootstrap_servers=bootstrap) as admin:
            await admin.create_topics(
                [NewTopic("durable", 2, 3, configs={"retention.ms": "86400000"}), NewTopic("gone", 1, 2)]
            )
            await admin.alter_configs(
                {
                    topic("durable"): {"min.insync.replicas": "2"},
                    group("durable-group"): {"consumer.session.timeout.ms": "50000"},
                }
            )
            await admin.create_partitions({"durable": NewPartitions(3)})
            await admin.delete_topics(["gone"])
            before = (await admin.describe_topics(["durable"]))["durable"].partitions
        async with Producer(bootstrap_servers=bootstrap, acks="all") as producer:
            for p in range(3):
                await producer.send_and_wait("durable", f"before-{p}".encode(), partition=p)

        cluster.stop_broker(1, hard=True)
        cluster.start_broker(1)

        async with AdminClient(bootstrap_servers=bootstrap, request_timeout_ms=30000) as admin:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 30
            while True:
                names = await admin.list_topics()
                after = (
                    (await admin.describe_topics(["durable"]))["durable"].partitions
                    if "durable" in names
                    else []
                )
                if after and all(p.leader >= 0 for p in after):
                    break
                assert loop.time() < deadline, f"durable not back online: {names} {after}"
                await asyncio.sleep(0.2)
            assert "gone" not in names
            assert [p.replicas for p in after] == [p.replicas for p in before]
            entries = (await admin.describe_configs([topic("durable")]))[topic("durable")]
            overrides = {
                n: e.value for n, e in entries.items() if e.source == ConfigSource.DYNAMIC_TOPIC_CONFIG
            }
            assert overrides == {"retention.ms": "86400000", "min.insync.replicas": "2"}
            entries = (await admin.describe_configs([group("durable-group")]))[group("durable-group")]
            overrides = {n: e.value for n, e in entries.items() if e.source == ConfigSource.GROUP_CONFIG}
            assert overrides == {"consumer.session.timeout.ms": "50000"}
        async with Producer(bootstrap_servers=bootstrap, acks="all", delivery_timeout_ms=30000) as producer:
            assert (await producer.send_and_wait("durable", b"after", partition=2)).offset == 1
        tp = TopicPartition("durable", 2)
        async with Consumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest") as consumer:
            consumer.assign([tp])
            records = (await consumer.getmany(timeout_ms=5000)).get(tp, [])
        assert [r.value for r in records] == [b"before-2", b"after"]
    finally:
        cluster.stop()
