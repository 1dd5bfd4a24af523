"""On real brokers: topic creation (validation, defaults, configs), expansion
(CreatePartitions) and deletion, through the AdminClient and the ``kafkette`` CLI.

One 3-broker cluster per module (``num.partitions=2``, ``default.replication.factor=2``);
every test uses its own topic names.
"""

from __future__ import annotations

import asyncio

import pytest
from click.testing import CliRunner

from kafkette.client import (
    AdminClient,
    ConfigResource,
    ConfigSource,
    Consumer,
    InvalidConfigError,
    InvalidPartitionsError,
    InvalidReplicaAssignmentError,
    InvalidReplicationFactorError,
    InvalidTopicError,
    LocalCluster,
    NewPartitions,
    NewTopic,
    Producer,
    TopicAlreadyExistsError,
    TopicPartition,
    UnknownTopicOrPartitionError,
)
from kafkette.client.cli.main import kafkette
from kafkette.client.kafka_client import KafkaClient
from kafkette.client.producer.sender import PRODUCE_BY_NAME_VERSION
from kafkette.controller.replica_assignment import assign_replicas_to_brokers
from kafkette.protocol.apis.create_topics import (
    CreatableReplicaAssignment,
    CreatableTopic,
    CreateTopicsRequest,
)
from kafkette.protocol.apis.produce import ProducePartitionData, ProduceRequest, ProduceTopicData
from kafkette.protocol.errors import Errors
from kafkette.protocol.record_batch import build_batch
from tests.cluster_helpers import partition_dirs, wait_until

pytestmark = pytest.mark.timeout(120)

FAST_FAILOVER = {
    "broker.session.timeout.ms": 3000,
    "broker.heartbeat.interval.ms": 500,
    "replica.lag.time.max.ms": 3000,
    "replica.fetch.backoff.ms": 200,
}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory):
    props = dict(FAST_FAILOVER, **{"num.partitions": 2, "default.replication.factor": 2})
    with LocalCluster(
        num_brokers=3, data_dir=tmp_path_factory.mktemp("lifecycle"), broker_configs=props
    ) as c:
        yield c


def cli(cluster: LocalCluster, *args: str):
    """Run ``kafkette ARGS --bootstrap-server ...`` in-process; returns click's Result."""
    return CliRunner().invoke(
        kafkette, [*args, "--bootstrap-server", cluster.bootstrap_servers, "--request-timeout-ms", "15000"]
    )


def one_error_line(result) -> str:
    assert result.exit_code != 0, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    return lines[0]


def admin_for(cluster: LocalCluster) -> AdminClient:
    return AdminClient(bootstrap_servers=cluster.bootstrap_servers, request_timeout_ms=15000)


async def create(cluster: LocalCluster, *topics: NewTopic, **kwargs) -> None:
    async with admin_for(cluster) as admin:
        await admin.create_topics(list(topics), **kwargs)


async def describe(cluster: LocalCluster, name: str):
    async with admin_for(cluster) as admin:
        return (await admin.describe_topics([name]))[name].partitions


async def list_topics(cluster: LocalCluster) -> list[str]:
    async with admin_for(cluster) as admin:
        return await admin.list_topics()


# --- creation: validation --------------------------------------------------------------


@pytest.mark.parametrize("name", ["has space", "slash/name", "star*", "x" * 250, ".", ".."])
async def test_illegal_topic_names_are_refused_with_invalid_topic(cluster, name):
    with pytest.raises(InvalidTopicError):
        await create(cluster, NewTopic(name, 1, 1))
    assert name not in await list_topics(cluster)


async def test_a_249_character_name_is_legal(cluster):
    name = "n" * 249
    await create(cluster, NewTopic(name, 1, 1))
    assert name in await list_topics(cluster)


async def test_zero_partitions_is_invalid_partitions(cluster):
    with pytest.raises(InvalidPartitionsError):
        await create(cluster, NewTopic("zero-partitions", 0, 1))


@pytest.mark.parametrize(
    ("replication_factor", "fragment"),
    [
        (0, "must be larger than 0, or -1 to use the default value"),
        (4, r"replication factor of 4 cannot be reached because only 3 broker\(s\) are registered"),
    ],
)
async def test_bad_replication_factors_are_invalid_replication_factor(cluster, replication_factor, fragment):
    with pytest.raises(InvalidReplicationFactorError, match=fragment):
        await create(cluster, NewTopic(f"rf-{replication_factor}", 1, replication_factor))


@pytest.mark.parametrize(
    ("assignment", "fragment"),
    [
        ({0: [1, 1]}, "includes the broker 1 more than once"),
        ({0: [1, 2], 1: [3]}, "not consistent with previous partitions"),
        ({0: [1, 9]}, "broker 9"),
    ],
)
async def test_bad_manual_assignments_are_invalid_replica_assignment(cluster, assignment, fragment):
    with pytest.raises(InvalidReplicaAssignmentError, match=fragment):
        await create(cluster, NewTopic("bad-assignment", replica_assignment=assignment))
    assert "bad-assignment" not in await list_topics(cluster)


async def test_manual_assignment_with_partition_count_is_an_invalid_request_at_the_controller(cluster):
    client = KafkaClient(cluster.bootstrap_servers)
    await client.start()
    try:
        request = CreateTopicsRequest(
            topics=[
                CreatableTopic(
                    name="combined",
                    num_partitions=1,
                    replication_factor=-1,
                    assignments=[CreatableReplicaAssignment(partition_index=0, broker_ids=[1])],
                    configs=[],
                )
            ],
            timeout_ms=10000,
        )
        response = await client.send_to_controller(request)
    finally:
        await client.close()
    assert response.topics[0].error_code == Errors.INVALID_REQUEST
    assert "combined" not in await list_topics(cluster)
    with pytest.raises(ValueError):  # the SDK refuses the combination before sending
        await create(cluster, NewTopic("combined", 2, replica_assignment={0: [1]}))


async def test_validate_only_checks_without_creating(cluster):
    await create(cluster, NewTopic("validated", 3, 2), validate_only=True)
    assert "validated" not in await list_topics(cluster)
    with pytest.raises(InvalidReplicationFactorError):
        await create(cluster, NewTopic("validated", 3, 5), validate_only=True)


async def test_defaults_come_from_the_controllers_config(cluster):
    await create(cluster, NewTopic("defaults"))
    partitions = await describe(cluster, "defaults")
    assert len(partitions) == 2 and all(len(p.replicas) == 2 for p in partitions)


async def test_creating_an_existing_topic_is_topic_already_exists(cluster):
    await create(cluster, NewTopic("exists-once", 1, 1))
    with pytest.raises(TopicAlreadyExistsError):
        await create(cluster, NewTopic("exists-once", 1, 1))


@pytest.mark.parametrize(
    ("configs", "key"),
    [
        ({"min.insync.replicas": "zero"}, "min.insync.replicas"),
        ({"retention.ms": "-5"}, "retention.ms"),
        ({"segment.bytes": "1"}, "segment.bytes"),
        ({"no.such.config": "1"}, "no.such.config"),
    ],
)
async def test_topic_configs_with_bad_values_are_invalid_config_naming_the_key(cluster, configs, key):
    name = f"bad-config-{key.replace('.', '-')}"
    with pytest.raises(InvalidConfigError, match=key.replace(".", r"\.")):
        await create(cluster, NewTopic(name, 1, 1, configs=configs))
    assert name not in await list_topics(cluster)


async def test_min_insync_replicas_above_the_replication_factor_is_stored_and_capped_as_kafka_does(cluster):
    # Kafka's Partition.effectiveMinIsr: an acks=all produce needs min(min.insync.replicas, replicas)
    # in the ISR, so a topic of one replica with min.insync.replicas=2 takes acks=all writes
    await create(
        cluster,
        NewTopic("strict-isr", 1, 1, configs={"min.insync.replicas": "2"}),
        NewTopic("lenient-isr", 1, 1),
    )
    client = KafkaClient(cluster.bootstrap_servers)
    await client.start()
    try:
        codes = {}
        for topic in ("strict-isr", "lenient-isr"):
            leader = (await describe(cluster, topic))[0].leader
            await client.refresh_metadata()
            batch = build_batch([(None, b"v", None, 0)])
            request = ProduceRequest(
                acks=-1,
                timeout_ms=5000,
                topic_data=[
                    ProduceTopicData(
                        name=topic, partition_data=[ProducePartitionData(index=0, records=batch)]
                    )
                ],
            )
            response = await client.send(leader, request, api_version=PRODUCE_BY_NAME_VERSION)
            codes[topic] = response.responses[0].partition_responses[0].error_code
    finally:
        await client.close()
    assert codes == {"strict-isr": Errors.NONE, "lenient-isr": Errors.NONE}
    async with admin_for(cluster) as admin:
        described = await admin.describe_configs([ConfigResource("topic", "strict-isr")])
    entry = described[ConfigResource("topic", "strict-isr")]["min.insync.replicas"]
    assert (entry.value, entry.source) == ("2", ConfigSource.DYNAMIC_TOPIC_CONFIG)


# --- creation through the CLI ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (
            ["bad name", "--partitions", "1", "--replication-factor", "1"],
            "topic name is invalid: 'bad name' contains",
        ),
        (
            [".", "--partitions", "1", "--replication-factor", "1"],
            "topic name is invalid: '.' is not allowed",
        ),
        (
            ["y" * 250, "--partitions", "1", "--replication-factor", "1"],
            "longer than the max allowed length 249",
        ),
        (["cli-rf", "--partitions", "1", "--replication-factor", "4"], "only 3 broker(s) are registered"),
        (["cli-rf", "--partitions", "0"], "partitions must be greater than 0"),
        (["cli-rf", "--replication-factor", "0"], "replication factor"),
        (["cli-assign", "--replica-assignment", "1:9"], "broker 9"),
        (["cli-assign", "--replica-assignment", "1:1"], "duplicate"),
        (["cli-assign", "--replica-assignment", "1:2,3"], "different replication factor"),
        (
            ["cli-assign", "--replica-assignment", "1:2", "--partitions", "1"],
            "can't be used with --partitions",
        ),
        (
            ["cli-assign", "--replica-assignment", "1:2", "--replication-factor", "2"],
            "can't be used with --partitions or --replication-factor",
        ),
        (["cli-config", "--partitions", "1", "--config", "retention.ms=soon"], "retention.ms"),
    ],
)
def test_cli_create_reports_each_validation_error_in_one_line(cluster, args, fragment):
    line = one_error_line(cli(cluster, "topics", "create", *args))
    assert fragment.lower() in line.lower(), line


def test_cli_create_if_not_exists_succeeds_on_an_existing_topic(cluster):
    assert cli(cluster, "topics", "create", "cli-twice", "--partitions", "1").exit_code == 0
    assert "already exists" in one_error_line(
        cli(cluster, "topics", "create", "cli-twice", "--partitions", "1")
    )
    again = cli(cluster, "topics", "create", "cli-twice", "--partitions", "1", "--if-not-exists")
    assert again.exit_code == 0, again.output


def test_cli_create_warns_about_colliding_characters(cluster):
    result = cli(cluster, "topics", "create", "with.period", "--partitions", "1")
    assert result.exit_code == 0, result.output
    assert "could collide" in result.stdout


def test_cli_create_of_a_name_colliding_with_an_existing_topic_warns_and_fails_as_kraft_refuses_it(cluster):
    first = cli(cluster, "topics", "create", "metrics.cpu", "--partitions", "1")
    assert first.exit_code == 0, first.output
    assert "collides with existing topic" not in first.stdout
    second = cli(cluster, "topics", "create", "metrics_cpu", "--partitions", "1")
    assert second.exit_code != 0, second.output
    assert "WARNING: Topic metrics_cpu collides with existing topic metrics.cpu" in second.stdout
    assert (
        "INVALID_TOPIC_EXCEPTION: Topic 'metrics_cpu' collides with existing topic: metrics.cpu"
        in second.output
    )
    topics = set(asyncio.run(list_topics(cluster)))
    assert "metrics.cpu" in topics and "metrics_cpu" not in topics


def test_cli_describe_shows_topic_configs(cluster):
    created = cli(
        cluster,
        "topics",
        "create",
        "described",
        "--partitions",
        "2",
        "--replication-factor",
        "2",
        "--config",
        "min.insync.replicas=2",
        "--config",
        "retention.ms=3600000",
    )
    assert created.exit_code == 0, created.output
    result = cli(cluster, "topics", "describe", "described")
    assert result.exit_code == 0, result.output
    summary = result.stdout.splitlines()[0]
    assert summary.startswith("Topic: described\tPartitionCount: 2\tReplicationFactor: 2\tConfigs: ")
    assert set(summary.split("Configs: ")[1].split(",")) == {"min.insync.replicas=2", "retention.ms=3600000"}
    assert len([line for line in result.stdout.splitlines() if line.startswith("described ")]) == 2


# --- expansion ----------------------------------------------------------------------------


async def test_create_partitions_adds_partitions_that_are_served_at_once(cluster):
    await create(cluster, NewTopic("grow", 1, 2))
    async with admin_for(cluster) as admin:
        await admin.create_partitions({"grow": NewPartitions(3)})
        partitions = (await admin.describe_topics(["grow"]))["grow"].partitions
    assert [p.partition for p in partitions] == [0, 1, 2]
    assert all(
        p.leader >= 0 and len(p.replicas) == 2 and sorted(p.isr) == sorted(p.replicas) for p in partitions
    )
    # Kafka's continuation: start index and shift fixed at partition 0's first replica, ids from 1.
    brokers = sorted(cluster.broker_ids)
    expected = assign_replicas_to_brokers(
        2, 2, brokers, fixed_start_index=brokers.index(partitions[0].replicas[0]), start_partition_id=1
    )
    assert {p.partition: p.replicas for p in partitions[1:]} == expected
    async with Producer(
        bootstrap_servers=cluster.bootstrap_servers, acks="all", request_timeout_ms=10000
    ) as producer:
        metadata = await producer.send_and_wait("grow", b"in-new-partition", partition=2)
    assert (metadata.partition, metadata.offset) == (2, 0)
    async with Consumer(
        bootstrap_servers=cluster.bootstrap_servers, auto_offset_reset="earliest"
    ) as consumer:
        consumer.assign([TopicPartition("grow", 2)])
        records = (await consumer.getmany(timeout_ms=5000)).get(TopicPartition("grow", 2), [])
    assert [r.value for r in records] == [b"in-new-partition"]


async def test_create_partitions_uses_given_assignments_and_refuses_decreases(cluster):
    await create(cluster, NewTopic("grow-manual", replica_assignment={0: [1, 2]}))
    async with admin_for(cluster) as admin:
        await admin.create_partitions({"grow-manual": NewPartitions(3, [[3, 1], [2, 3]])})
        partitions = (await admin.describe_topics(["grow-manual"]))["grow-manual"].partitions
        assert [p.replicas for p in partitions] == [[1, 2], [3, 1], [2, 3]]
        for count in (3, 2):
            with pytest.raises(InvalidPartitionsError):
                await admin.create_partitions({"grow-manual": NewPartitions(count)})
        with pytest.raises(InvalidReplicaAssignmentError):
            await admin.create_partitions({"grow-manual": NewPartitions(4, [[1, 9]])})
        await admin.create_partitions({"grow-manual": NewPartitions(5)}, validate_only=True)
        assert len((await admin.describe_topics(["grow-manual"]))["grow-manual"].partitions) == 3
        with pytest.raises(UnknownTopicOrPartitionError):
            await admin.create_partitions({"no-such-topic": NewPartitions(2)})


def test_cli_alter_adds_partitions_with_kafkas_assignment_syntax(cluster):
    assert cli(cluster, "topics", "create", "cli-grow", "--replica-assignment", "1:2").exit_code == 0
    result = cli(
        cluster, "topics", "alter", "cli-grow", "--partitions", "3", "--replica-assignment", "1:2,2:3,3:1"
    )
    assert result.exit_code == 0, result.output
    partitions = asyncio.run(describe(cluster, "cli-grow"))
    assert [p.replicas for p in partitions] == [[1, 2], [2, 3], [3, 1]]
    assert "INVALID_PARTITIONS" in one_error_line(
        cli(cluster, "topics", "alter", "cli-grow", "--partitions", "2")
    )
    assert "UNKNOWN_TOPIC_OR_PARTITION" in one_error_line(
        cli(cluster, "topics", "alter", "cli-nope", "--partitions", "2")
    )
    assert cli(cluster, "topics", "alter", "cli-nope", "--partitions", "2", "--if-exists").exit_code == 0


# --- deletion -----------------------------------------------------------------------------


async def test_deleted_topic_is_gone_from_metadata_and_every_brokers_disk(cluster):
    await create(cluster, NewTopic("doomed", 3, 3))
    async with Producer(bootstrap_servers=cluster.bootstrap_servers, acks="all") as producer:
        for i in range(10):
            await producer.send("doomed", f"r{i}".encode())
    assert len(partition_dirs(cluster, "doomed")) == 9
    async with admin_for(cluster) as admin:
        await admin.delete_topics(["doomed"])
        assert "doomed" not in await admin.list_topics()
        with pytest.raises(UnknownTopicOrPartitionError):
            await admin.describe_topics(["doomed"])

    async def gone_from_disk() -> bool:
        return not partition_dirs(cluster, "doomed")

    await wait_until(gone_from_disk, "doomed's partition directories to be deleted", timeout_s=10)


async def test_deleting_an_unknown_topic_is_unknown_topic_or_partition(cluster):
    async with admin_for(cluster) as admin:
        with pytest.raises(UnknownTopicOrPartitionError):
            await admin.delete_topics(["never-created"])


async def test_delete_then_recreate_gives_a_fresh_empty_topic(cluster):
    tp = TopicPartition("reborn", 0)
    await create(cluster, NewTopic("reborn", 1, 2))
    async with Producer(bootstrap_servers=cluster.bootstrap_servers, acks="all") as producer:
        for i in range(5):
            await producer.send_and_wait("reborn", f"old-{i}".encode())
    async with admin_for(cluster) as admin:
        await admin.delete_topics(["reborn"])
        await admin.create_topics([NewTopic("reborn", 1, 2)])
    async with Consumer(
        bootstrap_servers=cluster.bootstrap_servers, auto_offset_reset="earliest"
    ) as consumer:
        consumer.assign([tp])
        assert (await consumer.end_offsets([tp]))[tp] == 0
        assert (await consumer.beginning_offsets([tp]))[tp] == 0
    async with Producer(bootstrap_servers=cluster.bootstrap_servers, acks="all") as producer:
        assert (await producer.send_and_wait("reborn", b"new")).offset == 0
    async with Consumer(
        bootstrap_servers=cluster.bootstrap_servers, auto_offset_reset="earliest"
    ) as consumer:
        consumer.assign([tp])
        records = (await consumer.getmany(timeout_ms=5000)).get(tp, [])
    assert [r.value for r in records] == [b"new"]


def test_cli_delete_removes_the_topic_and_reports_unknown_ones(cluster):
    assert cli(cluster, "topics", "create", "cli-doomed", "--partitions", "1").exit_code == 0
    result = cli(cluster, "topics", "delete", "cli-doomed")
    assert result.exit_code == 0, result.output
    assert "cli-doomed" not in asyncio.run(list_topics(cluster))
    line = one_error_line(cli(cluster, "topics", "delete", "cli-doomed"))
    assert "UNKNOWN_TOPIC_OR_PARTITION" in line
    assert cli(cluster, "topics", "delete", "cli-doomed", "--if-exists").exit_code == 0
