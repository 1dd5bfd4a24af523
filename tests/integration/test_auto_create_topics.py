"""Automatic topic creation from Metadata requests, on real brokers.

With ``auto.create.topics.enable=true`` (the default) a Metadata request naming an
unknown topic with ``allow_auto_topic_creation`` creates it with the controller's
defaults (forwarded by a broker that is not the controller), answering
UNKNOWN_TOPIC_OR_PARTITION (as Apache Kafka 4.x) until it exists; the producer's ``send`` to a new topic just
works; a consumer with ``allow_auto_create_topics=False`` creates nothing; invalid
names get INVALID_TOPIC_EXCEPTION; requests for all topics never create; and with
``auto.create.topics.enable=false`` nothing is created.
"""

from __future__ import annotations

import asyncio

import pytest

from kafkette.client import (
    AdminClient,
    Consumer,
    InvalidTopicError,
    KafkaError,
    LocalCluster,
    Producer,
    UnknownTopicOrPartitionError,
)
from kafkette.common.network.connection import BrokerConnection
from kafkette.protocol.apis.metadata import MetadataRequest, MetadataRequestTopic, MetadataResponse
from kafkette.protocol.errors import Errors

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory):
    props = {
        "broker.session.timeout.ms": 3000,
        "broker.heartbeat.interval.ms": 500,
        "num.partitions": 2,
        "default.replication.factor": 2,
    }
    with LocalCluster(
        num_brokers=3, data_dir=tmp_path_factory.mktemp("autocreate"), broker_configs=props
    ) as c:
        yield c


async def metadata(
    cluster: LocalCluster, broker_id: int, topics: list[str] | None, allow: bool
) -> MetadataResponse:
    """One raw Metadata v1 request to ``broker_id``."""
    async with BrokerConnection("127.0.0.1", cluster.ports[broker_id], client_id="auto-create-test") as conn:
        request = MetadataRequest(
            topics=None if topics is None else [MetadataRequestTopic(name=t) for t in topics],
            allow_auto_topic_creation=allow,
        )
        return await conn.send(request, timeout_ms=10000)


async def list_topics(cluster: LocalCluster) -> list[str]:
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers) as admin:
        return await admin.list_topics()


async def test_producer_send_to_a_new_topic_creates_it_with_the_defaults(cluster):
    async with Producer(
        bootstrap_servers=cluster.bootstrap_servers, acks="all", request_timeout_ms=15000
    ) as producer:
        first = await producer.send_and_wait("auto-produced", b"first", key=b"k")
        assert first.offset == 0
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers) as admin:
        partitions = (await admin.describe_topics(["auto-produced"]))["auto-produced"].partitions
    assert len(partitions) == 2 and all(len(p.replicas) == 2 for p in partitions)


async def test_a_broker_that_is_not_the_controller_forwards_the_creation(cluster):
    controller_id = (await metadata(cluster, 1, [], allow=False)).controller_id
    other = next(b for b in cluster.broker_ids if b != controller_id)
    first = await metadata(cluster, other, ["auto-forwarded"], allow=True)
    assert first.controller_id == controller_id
    assert first.topics[0].error_code in (Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.NONE)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 15
    while True:
        answer = await metadata(cluster, other, ["auto-forwarded"], allow=False)
        topic = answer.topics[0]
        if topic.error_code == Errors.NONE and all(p.leader_id >= 0 for p in topic.partitions):
            break
        assert loop.time() < deadline, f"auto-forwarded never came online: {topic}"
        await asyncio.sleep(0.2)
    assert len(topic.partitions) == 2


async def test_first_answer_for_a_new_topic_is_unknown_topic_or_partition_as_kafka_4_answers(cluster):
    first = await metadata(cluster, 1, ["auto-first-answer"], allow=True)
    assert first.topics[0].error_code == Errors.UNKNOWN_TOPIC_OR_PARTITION


async def test_consumer_without_auto_create_does_not_create(cluster):
    async with Consumer(
        bootstrap_servers=cluster.bootstrap_servers, allow_auto_create_topics=False, request_timeout_ms=2000
    ) as consumer:
        with pytest.raises(UnknownTopicOrPartitionError):
            await consumer.partitions_for_topic("never-auto-created")
    assert "never-auto-created" not in await list_topics(cluster)


async def test_consumer_with_auto_create_by_default_creates(cluster):
    async with Consumer(bootstrap_servers=cluster.bootstrap_servers, request_timeout_ms=15000) as consumer:
        assert await consumer.partitions_for_topic("consumer-created") == {0, 1}


async def test_metadata_without_the_allow_flag_does_not_create(cluster):
    answer = await metadata(cluster, 2, ["not-allowed"], allow=False)
    assert answer.topics[0].error_code == Errors.UNKNOWN_TOPIC_OR_PARTITION
    assert "not-allowed" not in await list_topics(cluster)


async def test_invalid_names_get_invalid_topic_exception(cluster):
    answer = await metadata(cluster, 2, ["bad name!", ".."], allow=True)
    assert [(t.name, t.error_code) for t in answer.topics] == [
        ("bad name!", Errors.INVALID_TOPIC_EXCEPTION),
        ("..", Errors.INVALID_TOPIC_EXCEPTION),
    ]
    async with Producer(bootstrap_servers=cluster.bootstrap_servers, request_timeout_ms=5000) as producer:
        with pytest.raises(InvalidTopicError):
            await producer.send_and_wait("bad name!", b"x")
    assert not {"bad name!", ".."} & set(await list_topics(cluster))


async def test_metadata_for_all_topics_never_creates(cluster):
    before = await list_topics(cluster)
    everything = await metadata(cluster, 1, None, allow=True)
    nothing = await metadata(cluster, 2, [], allow=True)
    assert sorted(t.name for t in everything.topics) == before
    assert nothing.topics == []
    await asyncio.sleep(1)  # a wrongly triggered creation would have been applied by now
    assert await list_topics(cluster) == before


async def test_auto_create_disabled_on_the_brokers_creates_nothing(cluster_factory):
    disabled = cluster_factory(1, auto_create_topics_enable=False)
    answer = await metadata(disabled, 1, ["not-auto"], allow=True)
    assert answer.topics[0].error_code == Errors.UNKNOWN_TOPIC_OR_PARTITION
    async with Producer(bootstrap_servers=disabled.bootstrap_servers, request_timeout_ms=2000) as producer:
        with pytest.raises(KafkaError) as refused:
            await producer.send_and_wait("not-auto", b"x")
    assert isinstance(refused.value, (UnknownTopicOrPartitionError, TimeoutError)), refused.value
    assert "not-auto" not in await list_topics(disabled)
