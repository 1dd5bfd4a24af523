"""MetadataCache: UpdateMetadata in, Metadata responses out."""

from kafkette.broker.metadata_cache import MetadataCache
from kafkette.protocol.apis.update_metadata import (
    UpdateMetadataBroker,
    UpdateMetadataPartitionState,
    UpdateMetadataRequest,
    UpdateMetadataTopicConfigs,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.kafka_schema import ZERO_UUID
from kafkette.protocol.kafka_uuid import uuid_to_string
from kafkette.protocol.topic_partition import TopicPartition


def _state(p, leader, isr, replicas=(1, 2, 3)):
    return UpdateMetadataPartitionState(
        topic_name="t",
        partition_index=p,
        controller_epoch=1,
        leader=leader,
        leader_epoch=0,
        isr=list(isr),
        replicas=list(replicas),
    )


def _brokers(*ids):
    return [UpdateMetadataBroker(id=i, host="127.0.0.1", port=9000 + i) for i in ids]


def test_update_then_describe_topic():
    cache = MetadataCache(1, "c")
    cache.update_metadata(
        UpdateMetadataRequest(
            controller_id=1,
            controller_epoch=1,
            full=True,
            partition_states=[_state(0, 1, [1, 2, 3]), _state(1, 2, [2, 3])],
            live_brokers=_brokers(1, 2, 3),
        )
    )
    resp = cache.metadata_response(["t", "missing"])
    assert resp.controller_id == 1 and [b.node_id for b in resp.brokers] == [1, 2, 3]
    topic, missing = resp.topics
    assert missing.error_code == Errors.UNKNOWN_TOPIC_OR_PARTITION
    assert [(p.partition_index, p.leader_id, p.isr_nodes) for p in topic.partitions] == [
        (0, 1, [1, 2, 3]),
        (1, 2, [2, 3]),
    ]


def test_dead_leader_reports_leader_not_available_and_offline_replicas():
    cache = MetadataCache(1, "c")
    cache.update_metadata(
        UpdateMetadataRequest(
            controller_id=1,
            controller_epoch=1,
            full=True,
            partition_states=[_state(0, 3, [3])],
            live_brokers=_brokers(1, 2),
        )
    )
    (p,) = cache.metadata_response(["t"]).topics[0].partitions
    assert p.error_code == Errors.LEADER_NOT_AVAILABLE and p.leader_id == -1 and p.offline_replicas == [3]


def test_incremental_update_keeps_other_partitions_and_deletes_topics():
    cache = MetadataCache(1, "c")
    cache.update_metadata(
        UpdateMetadataRequest(
            controller_id=1,
            controller_epoch=1,
            full=True,
            partition_states=[_state(0, 1, [1]), _state(1, 1, [1])],
            live_brokers=_brokers(1),
        )
    )
    cache.update_metadata(
        UpdateMetadataRequest(
            controller_id=1,
            controller_epoch=1,
            partition_states=[_state(1, 2, [2])],
            live_brokers=_brokers(1, 2),
        )
    )
    assert cache.num_partitions("t") == 2
    assert cache.partition_state(TopicPartition("t", 1)).leader == 2
    assert [p.leader_id for p in cache.metadata_response(["t"]).topics[0].partitions] == [1, 2]
    deleted = cache.update_metadata(
        UpdateMetadataRequest(
            controller_id=1, controller_epoch=1, live_brokers=_brokers(1, 2), deleted_topics=["t"]
        )
    )
    assert len(deleted) == 2 and not cache.contains_topic("t")


def test_replicas_the_controller_marked_offline_are_listed_though_their_broker_is_live():
    cache = MetadataCache(1, "c")
    state = _state(0, 2, [2, 3])
    state.offline_replicas = [1]  # broker 1 is live but its log of t-0 is offline
    cache.update_metadata(
        UpdateMetadataRequest(
            controller_id=1,
            controller_epoch=1,
            full=True,
            partition_states=[state],
            live_brokers=_brokers(1, 2, 3),
        )
    )
    (p,) = cache.metadata_response(["t"]).topics[0].partitions
    assert (p.error_code, p.leader_id, p.isr_nodes, p.offline_replicas) == (Errors.NONE, 2, [2, 3], [1])


def test_a_kafka_protocol_listener_names_this_broker_as_controller_as_a_kraft_broker_does():
    cache = MetadataCache(2, "c")
    cache.update_metadata(
        UpdateMetadataRequest(
            controller_id=1,
            controller_epoch=1,
            full=True,
            partition_states=[_state(0, 1, [1, 2, 3])],
            live_brokers=_brokers(1, 2, 3),
        )
    )
    assert cache.metadata_response(["t"]).controller_id == 1  # the SDK's admin client sends to the controller
    # Kafka clients get a live broker that forwards (KIP-590), never a controller that may have died
    assert cache.metadata_response(["t"], "PLAINTEXT").controller_id == 2


def test_a_topic_id_names_its_topic_until_the_topic_is_deleted():
    topic_id = bytes(range(16))
    cache = MetadataCache(1, "c")
    cache.update_metadata(
        UpdateMetadataRequest(
            controller_id=1,
            controller_epoch=1,
            full=True,
            partition_states=[_state(0, 1, [1])],
            live_brokers=_brokers(1),
            topic_configs=[UpdateMetadataTopicConfigs(topic_name="t", topic_id=uuid_to_string(topic_id))],
        )
    )
    assert (cache.topic_id("t"), cache.topic_name(topic_id)) == (topic_id, "t")
    assert (cache.topic_id("missing"), cache.topic_name(bytes(range(1, 17)))) == (ZERO_UUID, None)
    assert cache.topic_name(ZERO_UUID) is None
    cache.update_metadata(
        UpdateMetadataRequest(
            controller_id=1, controller_epoch=1, live_brokers=_brokers(1), deleted_topics=["t"]
        )
    )
    assert (cache.topic_id("t"), cache.topic_name(topic_id)) == (ZERO_UUID, None)
