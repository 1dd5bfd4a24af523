"""The OffsetCommit and OffsetFetch handlers called directly over a GroupCoordinator: topics by topic
id (v10, KIP-848), several groups in one OffsetFetch (v8+, KIP-709) and the v1-7 single-group shape.

Stand-ins: an in-memory ``GroupMetadataManager`` and a metadata cache of two topics, one with a topic
id and one without (a topic created before its controller assigned ids)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from test_group_coordinator import TOPIC, InMemoryGroupMetadataManager

from kafkette.broker.apis import offset_commit, offset_fetch
from kafkette.broker.group.group_coordinator import GroupCoordinator
from kafkette.common.clock import MockTime
from kafkette.common.kafka_scheduler import KafkaScheduler
from kafkette.protocol.apis.offsets import (
    OffsetCommitRequest,
    OffsetCommitRequestPartition,
    OffsetCommitRequestTopic,
    OffsetFetchRequest,
    OffsetFetchRequestGroup,
    OffsetFetchRequestTopic,
    OffsetFetchRequestTopics,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.kafka_schema import ZERO_UUID
from kafkette.protocol.topic_partition import TopicPartition

TOPIC_ID = bytes(range(1, 17))
UNKNOWN_ID = bytes(range(101, 117))
NO_ID_TOPIC = "topic-without-id"


class TopicIdMetadataCache:
    """``TOPIC`` (two partitions, id ``TOPIC_ID``) and ``NO_ID_TOPIC`` (one partition, no id)."""

    def partition_state(self, tp: TopicPartition) -> object | None:
        partitions = {TOPIC: 2, NO_ID_TOPIC: 1}.get(tp.topic, 0)
        return object() if 0 <= tp.partition < partitions else None

    def topic_id(self, topic: str) -> bytes:
        return TOPIC_ID if topic == TOPIC else ZERO_UUID

    def topic_name(self, topic_id: bytes) -> str | None:
        return TOPIC if topic_id == TOPIC_ID else None


@pytest.fixture
async def ctx():
    metadata_cache = TopicIdMetadataCache()
    coordinator = GroupCoordinator(
        InMemoryGroupMetadataManager(),
        metadata_cache,  # type: ignore[arg-type]
        initial_rebalance_delay_ms=0,
        scheduler=KafkaScheduler(time=MockTime()),
    )
    yield SimpleNamespace(metadata_cache=metadata_cache, group_coordinator=coordinator)
    await coordinator.stop()


def _header(api_key: int, version: int) -> RequestHeader:
    return RequestHeader(api_key=api_key, api_version=version, correlation_id=1, client_id="test")


async def _commit(ctx, version: int, group_id: str, topics: dict[object, dict[int, int]]) -> list:
    """OffsetCommit of ``{topic name or topic id: {partition: offset}}``; ``[name, id, partition, error]``."""
    request = OffsetCommitRequest(
        group_id=group_id,
        topics=[
            OffsetCommitRequestTopic(
                **({"topic_id": key} if isinstance(key, bytes) else {"name": key}),
                partitions=[
                    OffsetCommitRequestPartition(partition_index=p, committed_offset=o)
                    for p, o in offsets.items()
                ],
            )
            for key, offsets in topics.items()
        ],
    )
    answer = await offset_commit.handle(ctx, _header(8, version), request)
    return [
        [t.name, t.topic_id, p.partition_index, p.error_code] for t in answer.topics for p in t.partitions
    ]


def _rows(group) -> list:
    return [
        [t.name, t.topic_id, p.partition_index, p.committed_offset, p.error_code]
        for t in group.topics
        for p in t.partitions
    ]


async def test_a_v10_commit_names_topics_by_id_and_answers_an_unknown_id_unknown_topic_id(ctx):
    answered = await _commit(ctx, 10, "g", {UNKNOWN_ID: {0: 1}, TOPIC_ID: {0: 5, 1: 6}})
    assert answered == [
        ["", UNKNOWN_ID, 0, Errors.UNKNOWN_TOPIC_ID],
        [TOPIC, TOPIC_ID, 0, Errors.NONE],
        [TOPIC, TOPIC_ID, 1, Errors.NONE],
    ]
    refused_first = await _commit(ctx, 10, "g", {TOPIC_ID: {0: 5}, UNKNOWN_ID: {0: 1}})
    assert refused_first == [  # as Kafka's OffsetCommitResponse.Builder: refused topics, then merged
        ["", UNKNOWN_ID, 0, Errors.UNKNOWN_TOPIC_ID],
        [TOPIC, TOPIC_ID, 0, Errors.NONE],
    ]
    fetched = await offset_fetch.handle(
        ctx,
        _header(9, 10),
        OffsetFetchRequest(
            groups=[
                OffsetFetchRequestGroup(
                    group_id="g",
                    topics=[
                        OffsetFetchRequestTopics(topic_id=TOPIC_ID, partition_indexes=[1, 0]),
                        OffsetFetchRequestTopics(topic_id=UNKNOWN_ID, partition_indexes=[3]),
                    ],
                )
            ]
        ),
    )
    (group,) = fetched.groups
    assert (group.group_id, group.error_code) == ("g", Errors.NONE)
    assert _rows(group) == [  # partitions in the request's order, as Kafka's OffsetMetadataManager
        [TOPIC, TOPIC_ID, 1, 6, Errors.NONE],
        [TOPIC, TOPIC_ID, 0, 5, Errors.NONE],
        ["", UNKNOWN_ID, 3, -1, Errors.UNKNOWN_TOPIC_ID],
    ]


async def test_an_unknown_topic_id_is_answered_whatever_the_groups_error(ctx):
    # Kafka's KafkaApis answers UNKNOWN_TOPIC_ID before the coordinator looks at the group
    request = OffsetCommitRequest(
        group_id="g",
        generation_id=4,
        member_id="nobody",
        topics=[
            OffsetCommitRequestTopic(
                topic_id=topic_id,
                partitions=[OffsetCommitRequestPartition(partition_index=0, committed_offset=1)],
            )
            for topic_id in (TOPIC_ID, UNKNOWN_ID)
        ],
    )
    answer = await offset_commit.handle(ctx, _header(8, 10), request)
    assert [(t.topic_id, p.error_code) for t in answer.topics for p in t.partitions] == [
        (UNKNOWN_ID, Errors.UNKNOWN_TOPIC_ID),
        (TOPIC_ID, Errors.GROUP_ID_NOT_FOUND),
    ]


async def test_a_v10_fetch_of_every_partition_gives_topic_ids_and_leaves_out_a_topic_without_one(ctx):
    await _commit(ctx, 9, "g", {TOPIC: {1: 3}, NO_ID_TOPIC: {0: 8}})
    request = OffsetFetchRequest(groups=[OffsetFetchRequestGroup(group_id="g", topics=None)])
    (v9,) = (await offset_fetch.handle(ctx, _header(9, 9), request)).groups
    assert [row[0] for row in _rows(v9)] == [TOPIC, NO_ID_TOPIC]
    request = OffsetFetchRequest(groups=[OffsetFetchRequestGroup(group_id="g", topics=None)])
    (v10,) = (await offset_fetch.handle(ctx, _header(9, 10), request)).groups
    assert _rows(v10) == [[TOPIC, TOPIC_ID, 1, 3, Errors.NONE]]


async def test_a_v8_fetch_answers_each_group_on_its_own(ctx):
    await _commit(ctx, 8, "with-offsets", {TOPIC: {0: 4}})
    await _commit(ctx, 8, "other-offsets", {NO_ID_TOPIC: {0: 2}})
    asked = [OffsetFetchRequestTopics(name=TOPIC, partition_indexes=[0])]
    request = OffsetFetchRequest(
        groups=[
            OffsetFetchRequestGroup(group_id="with-offsets", topics=asked),
            OffsetFetchRequestGroup(group_id="no-such-group", topics=asked),
            OffsetFetchRequestGroup(group_id="other-offsets", topics=asked),
            OffsetFetchRequestGroup(group_id="x" * 40000, topics=asked),
        ]
    )
    groups = (await offset_fetch.handle(ctx, _header(9, 8), request)).groups
    assert [(g.group_id[:12], g.error_code, [row[3] for row in _rows(g)]) for g in groups] == [
        ("with-offsets", Errors.NONE, [4]),
        ("no-such-grou", Errors.NONE, [-1]),
        ("other-offset", Errors.NONE, [-1]),
        ("x" * 12, Errors.INVALID_GROUP_ID, []),
    ]


async def test_a_v7_fetch_answers_its_one_group_with_a_top_level_error(ctx):
    await _commit(ctx, 8, "g", {TOPIC: {0: 4}})
    request = OffsetFetchRequest(
        group_id="g", topics=[OffsetFetchRequestTopic(name=TOPIC, partition_indexes=[0])]
    )
    answer = await offset_fetch.handle(ctx, _header(9, 7), request)
    assert (answer.error_code, answer.groups) == (Errors.NONE, [])
    assert [(t.name, p.committed_offset) for t in answer.topics for p in t.partitions] == [(TOPIC, 4)]
    invalid = await offset_fetch.handle(
        ctx, _header(9, 7), OffsetFetchRequest(group_id="x" * 40000, topics=None)
    )
    assert (invalid.error_code, invalid.topics) == (Errors.INVALID_GROUP_ID, [])


async def test_without_a_coordinator_every_group_and_partition_is_not_coordinator(ctx):
    ctx.group_coordinator = None
    request = OffsetFetchRequest(
        groups=[OffsetFetchRequestGroup(group_id=g, topics=None) for g in ("a", "b")]
    )
    groups = (await offset_fetch.handle(ctx, _header(9, 9), request)).groups
    assert [(g.group_id, g.error_code) for g in groups] == [
        ("a", Errors.NOT_COORDINATOR),
        ("b", Errors.NOT_COORDINATOR),
    ]
    assert await _commit(ctx, 10, "a", {TOPIC_ID: {0: 1}, UNKNOWN_ID: {0: 1}}) == [
        ["", UNKNOWN_ID, 0, Errors.UNKNOWN_TOPIC_ID],
        [TOPIC, TOPIC_ID, 0, Errors.NOT_COORDINATOR],
    ]


async def test_a_partition_asked_twice_is_answered_twice_in_the_requests_order(ctx):
    await _commit(ctx, 8, "g", {TOPIC: {0: 4, 1: 7}})
    request = OffsetFetchRequest(
        group_id="g",
        topics=[
            OffsetFetchRequestTopic(name=TOPIC, partition_indexes=[1, 0, 1]),
            OffsetFetchRequestTopic(name=TOPIC, partition_indexes=[0]),
        ],
    )
    answer = await offset_fetch.handle(ctx, _header(9, 7), request)
    assert [[(p.partition_index, p.committed_offset) for p in t.partitions] for t in answer.topics] == [
        [(1, 7), (0, 4), (1, 7)],
        [(0, 4)],
    ]


async def test_a_partition_the_metadata_lacks_is_refused_before_the_group_is_looked_at(ctx):
    # Kafka's KafkaApis answers UNKNOWN_TOPIC_OR_PARTITION before the coordinator checks the member
    answered = await _commit(ctx, 8, "no-such-group", {TOPIC: {0: 1, 7: 1}, "absent-topic": {0: 1}})
    assert answered == [
        [TOPIC, ZERO_UUID, 7, Errors.UNKNOWN_TOPIC_OR_PARTITION],
        [TOPIC, ZERO_UUID, 0, Errors.NONE],  # the coordinator's answer merged into the topic's entry
        ["absent-topic", ZERO_UUID, 0, Errors.UNKNOWN_TOPIC_OR_PARTITION],
    ]
