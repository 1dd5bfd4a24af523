"""The DescribeTopicPartitions handler called directly over a MetadataCache (KIP-966): topics sorted
and answered once, unknown and illegal names, paging by response_partition_limit and the cursor, every
topic from a cursor, the cursors Kafka refuses, a dead leader."""

from __future__ import annotations

from types import SimpleNamespace

from kafkette.broker.apis import describe_topic_partitions
from kafkette.broker.metadata_cache import MetadataCache
from kafkette.protocol.apis.describe_topic_partitions import (
    Cursor,
    DescribeTopicPartitionsRequest,
    DescribeTopicPartitionsRequestTopic,
)
from kafkette.protocol.apis.metadata import NO_AUTHORIZED_OPERATIONS
from kafkette.protocol.apis.update_metadata import (
    UpdateMetadataBroker,
    UpdateMetadataPartitionState,
    UpdateMetadataRequest,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.kafka_translation import TOPIC_AUTHORIZED_OPERATIONS

TOPICS = {"a": 3, "b": 2}


def _cache(live=(1, 2, 3), leader=1) -> MetadataCache:
    cache = MetadataCache(1, "c")
    cache.update_metadata(
        UpdateMetadataRequest(
            controller_id=1,
            controller_epoch=1,
            full=True,
            partition_states=[
                UpdateMetadataPartitionState(
                    topic_name=topic,
                    partition_index=p,
                    controller_epoch=1,
                    leader=leader,
                    leader_epoch=4,
                    isr=[1, 2],
                    replicas=[1, 2],
                )
                for topic, count in TOPICS.items()
                for p in range(count)
            ],
            live_brokers=[UpdateMetadataBroker(id=i, host="127.0.0.1", port=9000 + i) for i in live],
        )
    )
    return cache


async def _describe(names, limit=2000, cursor=None, cache=None):
    request = DescribeTopicPartitionsRequest(
        topics=[DescribeTopicPartitionsRequestTopic(name=n) for n in names],
        response_partition_limit=limit,
        cursor=None if cursor is None else Cursor(topic_name=cursor[0], partition_index=cursor[1]),
    )
    header = RequestHeader(api_key=75, api_version=0, correlation_id=1, client_id="test")
    ctx = SimpleNamespace(metadata_cache=cache or _cache())
    return await describe_topic_partitions.handle(ctx, header, request)


def _pages(response):
    cursor = response.next_cursor
    return (
        [(t.name, [p.partition_index for p in t.partitions]) for t in response.topics],
        None if cursor is None else (cursor.topic_name, cursor.partition_index),
    )


async def test_topics_are_answered_sorted_once_each_with_unknown_and_illegal_names_as_errors():
    response = await _describe(["b", "no-such", "a", "bad name!", "b"])
    assert [(t.name, t.error_code, len(t.partitions)) for t in response.topics] == [
        ("a", Errors.NONE, 3),
        ("b", Errors.NONE, 2),
        ("bad name!", Errors.INVALID_TOPIC_EXCEPTION, 0),
        ("no-such", Errors.UNKNOWN_TOPIC_OR_PARTITION, 0),
    ]
    assert {t.topic_authorized_operations for t in response.topics} == {TOPIC_AUTHORIZED_OPERATIONS}
    partition = response.topics[0].partitions[0]
    assert (partition.leader_id, partition.leader_epoch, partition.replica_nodes, partition.isr_nodes) == (
        1,
        4,
        [1, 2],
        [1, 2],
    )
    assert (partition.eligible_leader_replicas, partition.last_known_elr, partition.offline_replicas) == (
        [],
        [],
        [],
    )
    assert response.next_cursor is None


async def test_a_small_limit_pages_through_partitions_and_topics_by_the_next_cursor():
    first = await _describe(["a", "b"], limit=2)
    assert _pages(first) == ([("a", [0, 1])], ("a", 2))
    second = await _describe(["a", "b"], limit=2, cursor=("a", 2))
    assert _pages(second) == ([("a", [2]), ("b", [0])], ("b", 1))
    third = await _describe(["a", "b"], limit=2, cursor=("b", 1))
    assert _pages(third) == ([("b", [1])], None)


async def test_a_topic_that_fits_exactly_leaves_the_cursor_at_the_next_topics_first_partition():
    assert _pages(await _describe(["a", "b"], limit=3)) == ([("a", [0, 1, 2])], ("b", 0))


async def test_a_limit_below_one_describes_one_partition():
    assert _pages(await _describe(["a"], limit=0)) == ([("a", [0])], ("a", 1))
    assert _pages(await _describe(["a"], limit=-5)) == ([("a", [0])], ("a", 1))


async def test_every_topic_from_a_cursor_skips_earlier_names_and_a_cursor_past_the_end_has_no_partitions():
    assert _pages(await _describe([], cursor=("a", 1))) == ([("a", [1, 2]), ("b", [0, 1])], None)
    assert _pages(await _describe([], cursor=("a-", 0))) == ([("b", [0, 1])], None)
    assert _pages(await _describe(["a", "b"], cursor=("a", 7))) == ([("a", []), ("b", [0, 1])], None)


async def test_a_cursor_outside_the_named_topics_or_with_a_negative_partition_is_an_invalid_request():
    for cursor in (("c", 0), ("a", -1)):
        response = await _describe(["b", "a"], cursor=cursor)
        assert [(t.name, t.error_code, t.partitions, t.is_internal) for t in response.topics] == [
            ("b", Errors.INVALID_REQUEST, [], False),
            ("a", Errors.INVALID_REQUEST, [], False),
        ]
        assert {t.topic_authorized_operations for t in response.topics} == {NO_AUTHORIZED_OPERATIONS}


async def test_a_dead_leader_is_no_leader_without_an_error_and_its_replica_is_offline():
    response = await _describe(["a"], cache=_cache(live=(2, 3)))
    partition = response.topics[0].partitions[0]
    assert (partition.error_code, partition.leader_id, partition.offline_replicas) == (Errors.NONE, -1, [1])
