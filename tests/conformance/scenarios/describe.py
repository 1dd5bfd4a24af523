"""Describing topics, producers and the metadata quorum: DescribeTopicPartitions (KIP-966: topics
found and unknown, paging with a small ``response_partition_limit`` and its cursor, every topic from a
cursor, cursors Kafka refuses), DescribeProducers (KIP-664: the producer of an idempotent produce, a
broker holding no replica, unknown topics and partitions) and DescribeQuorum v0-v2 (KIP-853's nodes and
replica directory ids).
"""

from __future__ import annotations

from typing import Any

from kafkette.protocol.apis.describe_producers import DescribeProducersRequest, DescribeProducersRequestTopic
from kafkette.protocol.apis.describe_topic_partitions import (
    Cursor,
    DescribeTopicPartitionsRequest,
    DescribeTopicPartitionsRequestTopic,
)
from kafkette.protocol.apis.raft import (
    DescribeQuorumPartitionRequest,
    DescribeQuorumRequest,
    DescribeQuorumTopicRequest,
)
from tests.conformance.catalogue import register, scenario
from tests.conformance.scenarios.topics import create
from tests.conformance.target import ScenarioError, Target, code_name

PAGE_TOPICS = {"zz-dtp-page-a": 3, "zz-dtp-page-b": 2}
"""The paging scenarios' topics: named to sort after every other scenario's topic, so that a request
for every topic from a cursor among them lists no other."""


def describe_topic_partitions(
    t: Target, topics: list[str], limit: int = 2000, cursor: tuple[str, int] | None = None
) -> Any:
    request = DescribeTopicPartitionsRequest(
        topics=[DescribeTopicPartitionsRequestTopic(name=n) for n in topics],
        response_partition_limit=limit,
        cursor=None if cursor is None else Cursor(topic_name=cursor[0], partition_index=cursor[1]),
    )
    return t.call("DescribeTopicPartitions", 0, request)


def _topics(answer: Any) -> list[Any]:
    """Each topic answered: name, error, internal, authorized operations, has a topic id, and per
    partition its index, error, replica and ISR counts, whether the leader is a replica, ELR, last
    known ELR and offline replicas."""
    return [
        {
            "name": x.name,
            "error": code_name(x.error_code),
            "is_internal": x.is_internal,
            "authorized_operations": x.topic_authorized_operations,
            "has_topic_id": x.topic_id != bytes(16),
            "partitions": [
                [
                    p.partition_index,
                    code_name(p.error_code),
                    len(p.replica_nodes),
                    len(p.isr_nodes),
                    p.leader_id in p.replica_nodes,
                    p.eligible_leader_replicas,
                    p.last_known_elr,
                    p.offline_replicas,
                ]
                for p in x.partitions
            ],
        }
        for x in answer.topics
    ]


def _cursor(answer: Any) -> Any:
    cursor = answer.next_cursor
    return None if cursor is None else [cursor.topic_name, cursor.partition_index]


@scenario("describe-topic-partitions/found-and-unknown")
def _found_and_unknown(t: Target) -> Any:
    """DescribeTopicPartitions v0 of a 3-partition topic (replication factor 2), a topic that does not
    exist, an illegal name and the topic named twice: sorted by name, once each, every topic operation
    authorized (no authorizer), no ELR, no next cursor."""
    create(t, "dtp-found", partitions=3, rf=2)
    t.wait_topic("dtp-found")
    answer = describe_topic_partitions(t, ["dtp-found", "dtp-no-such-topic", "bad name!", "dtp-found"])
    return {"topics": _topics(answer), "next_cursor": _cursor(answer)}


@scenario("describe-topic-partitions/internal-topic")
def _internal(t: Target) -> Any:
    """DescribeTopicPartitions of ``__consumer_offsets`` by name (internal; made by a group's first
    FindCoordinator on Kafka) with a limit of 1: its partition 0 and a cursor at its partition 1."""
    create(t, "dtp-internal-src")
    t.wait_topic("dtp-internal-src")
    t.produce_values("dtp-internal-src", [b"x"])
    consumer = t.consumer("dtp-internal-group")
    try:
        consumer.subscribe(["dtp-internal-src"])
        consumer.poll(5)
    finally:
        consumer.close()
    t.wait_topic("__consumer_offsets")
    answer = describe_topic_partitions(t, ["__consumer_offsets"], limit=1)
    return {
        "topics": [
            [x.name, code_name(x.error_code), x.is_internal, len(x.partitions)] for x in answer.topics
        ],
        "next_cursor": _cursor(answer),
    }


def _page_topics(t: Target) -> None:
    for name, partitions in PAGE_TOPICS.items():
        create(t, name, partitions=partitions, rf=1)
    for name in PAGE_TOPICS:
        t.wait_topic(name)


@scenario("describe-topic-partitions/paging")
def _paging(t: Target) -> Any:
    """DescribeTopicPartitions of two topics (3 and 2 partitions) with response_partition_limit 2, then
    again from each answer's next cursor until there is none: pages of 2, 2 and 1 partitions."""
    _page_topics(t)
    pages = []
    cursor: tuple[str, int] | None = None
    for _ in range(6):
        answer = describe_topic_partitions(t, sorted(PAGE_TOPICS, reverse=True), limit=2, cursor=cursor)
        pages.append(
            {
                "topics": [[x.name, [p.partition_index for p in x.partitions]] for x in answer.topics],
                "next_cursor": _cursor(answer),
            }
        )
        if answer.next_cursor is None:
            return pages
        cursor = (answer.next_cursor.topic_name, answer.next_cursor.partition_index)
    raise ScenarioError(f"no last page in 6: {pages}")


@scenario("describe-topic-partitions/limits")
def _limits(t: Target) -> Any:
    """DescribeTopicPartitions of the paging topics with response_partition_limit 0 and -1 (Kafka
    answers at least one partition), 3 (the first topic whole, a cursor at the second's partition 0),
    and from a cursor past the first topic's last partition (no partitions for it)."""
    _page_topics(t)
    names = sorted(PAGE_TOPICS)
    out = {}
    for label, limit, cursor in (
        ("limit-0", 0, None),
        ("limit-negative", -1, None),
        ("limit-3", 3, None),
        ("cursor-past-the-end", 2000, ("zz-dtp-page-a", 7)),
    ):
        answer = describe_topic_partitions(t, names, limit=limit, cursor=cursor)
        out[label] = {
            "topics": [[x.name, [p.partition_index for p in x.partitions]] for x in answer.topics],
            "next_cursor": _cursor(answer),
        }
    return out


@scenario("describe-topic-partitions/all-topics-from-a-cursor")
def _all_topics(t: Target) -> Any:
    """DescribeTopicPartitions of every topic (an empty list) from a cursor at the first paging topic's
    partition 1, with the default limit and with a limit of 2; and with a cursor naming a topic that
    does not exist (every topic after its name)."""
    _page_topics(t)
    out = {}
    for label, limit, cursor in (
        ("default-limit", 2000, ("zz-dtp-page-a", 1)),
        ("limit-2", 2, ("zz-dtp-page-a", 1)),
        ("cursor-of-no-topic", 2000, ("zz-dtp-page-a-no-such", 0)),
    ):
        answer = describe_topic_partitions(t, [], limit=limit, cursor=cursor)
        out[label] = {
            "topics": [[x.name, [p.partition_index for p in x.partitions]] for x in answer.topics],
            "next_cursor": _cursor(answer),
        }
    return out


@scenario("describe-topic-partitions/invalid-cursor")
def _invalid_cursor(t: Target) -> Any:
    """DescribeTopicPartitions whose cursor names a topic not in the request's list, or a negative
    partition: INVALID_REQUEST for every topic named, without partitions."""
    _page_topics(t)
    out = {}
    for label, cursor in (
        ("topic-not-listed", ("zz-dtp-page-c", 0)),
        ("negative-partition", ("zz-dtp-page-a", -1)),
    ):
        answer = describe_topic_partitions(t, sorted(PAGE_TOPICS), cursor=cursor)
        out[label] = {"topics": _topics(answer), "next_cursor": _cursor(answer)}
    return out


def describe_producers(t: Target, partitions: dict[str, list[int]], node: int | None = None) -> Any:
    """DescribeProducers v0 of ``partitions`` at ``node``: per topic and partition its error, message and
    producers (epoch, last sequence, a last timestamp set, coordinator epoch, transaction start)."""
    request = DescribeProducersRequest(
        topics=[DescribeProducersRequestTopic(name=k, partition_indexes=v) for k, v in partitions.items()]
    )
    answer = t.call("DescribeProducers", 0, request, node)
    return [
        [
            x.name,
            [
                [
                    p.partition_index,
                    code_name(p.error_code),
                    p.error_message,
                    [
                        [
                            s.producer_id >= 0,
                            s.producer_epoch,
                            s.last_sequence,
                            s.last_timestamp > 0,
                            s.coordinator_epoch,
                            s.current_txn_start_offset,
                        ]
                        for s in p.active_producers
                    ],
                ]
                for p in x.partitions
            ],
        ]
        for x in answer.topics
    ]


@scenario("describe-producers/idempotent-produce")
def _idempotent(t: Target) -> Any:
    """DescribeProducers at the leader after an idempotent producer wrote 3 records to partition 0 (one
    producer, epoch 0, last sequence 2, no transaction); partition 1, never written, has none."""
    create(t, "dp-idempotent", partitions=2, rf=2)
    view = t.wait_topic("dp-idempotent")
    outcomes = t.produce_values("dp-idempotent", [b"a", b"b", b"c"], enable_idempotence=True)
    leaders = {p.partition_index: p.leader_id for p in view}
    return {
        "produced": outcomes,
        "partition-0-at-leader": describe_producers(t, {"dp-idempotent": [0]}, leaders[0]),
        "partition-1-at-leader": describe_producers(t, {"dp-idempotent": [1]}, leaders[1]),
    }


@scenario("describe-producers/errors")
def _producer_errors(t: Target) -> Any:
    """DescribeProducers of a partition at a broker holding no replica of it (NOT_LEADER_OR_FOLLOWER), of
    a partition index the topic does not have, of a topic that does not exist and of an illegal name."""
    create(t, "dp-errors", partitions=1, rf=1)
    view = t.wait_topic("dp-errors")
    elsewhere = min(n for n in t.addresses if n != view[0].leader_id)
    return {
        "no-replica-here": describe_producers(t, {"dp-errors": [0]}, elsewhere),
        "unknown": describe_producers(
            t, {"dp-errors": [5], "dp-no-such-topic": [0, 1], "bad name!": [0]}, view[0].leader_id
        ),
    }


def _describe_quorum(t: Target, version: int) -> Any:
    """DescribeQuorum of ``__cluster_metadata-0`` and of a partition the quorum does not have."""
    out = {}
    for label, topic in (("metadata-log", "__cluster_metadata"), ("other-topic", "dq-no-such-topic")):
        answer = t.call(
            "DescribeQuorum",
            version,
            DescribeQuorumRequest(
                topics=[
                    DescribeQuorumTopicRequest(
                        topic_name=topic, partitions=[DescribeQuorumPartitionRequest(partition_index=0)]
                    )
                ]
            ),
        )
        partitions = [p for x in answer.topics for p in x.partitions]
        voters = sorted({v.replica_id for p in partitions for v in p.current_voters})
        out[label] = {
            "error": code_name(answer.error_code),
            "error_message": answer.error_message if version >= 2 else None,
            "partitions": [
                [
                    p.partition_index,
                    code_name(p.error_code),
                    p.error_message if version >= 2 else None,
                    p.leader_id in voters,
                    len(p.observers),
                    (
                        sorted({v.replica_directory_id.hex() for v in p.current_voters})
                        if version >= 2
                        else None
                    ),
                ]
                for p in partitions
            ],
            "voters": voters,
            "nodes": sorted([n.node_id, [[lsn.host] for lsn in n.listeners]] for n in answer.nodes),
        }
    return out


for _v in range(0, 3):
    register(
        f"describe-quorum/version-{_v}",
        f"DescribeQuorum v{_v} of the metadata log (voters 1-3, no observers; from v2 each voter's zero "
        "directory id and its node with one listener) and of a partition the quorum does not have",
        lambda t, v=_v: _describe_quorum(t, v),
    )
