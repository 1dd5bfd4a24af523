"""Authorization of the describing APIs on the authorization suite's clusters (Kafka's
StandardAuthorizer): DescribeTopicPartitions (KIP-966: refused named topics, hidden ones in an
all-topics answer, authorized operations), DescribeProducers (READ on the topic),
OffsetForLeaderEpoch (DESCRIBE on the topic) and ConsumerGroupDescribe (KIP-848: DESCRIBE on the
group, its authorized operations).
"""

from __future__ import annotations

from typing import Any

from kafkette.protocol.apis.consumer_group import ConsumerGroupDescribeRequest
from kafkette.protocol.apis.offsets_for_leader_epoch import (
    OffsetForLeaderPartition,
    OffsetForLeaderTopic,
    OffsetsForLeaderEpochRequest,
)
from tests.conformance.catalogue import AUTHORIZATION, scenario
from tests.conformance.scenarios.authorization import (
    ALLOW,
    DESCRIBE,
    GROUP,
    LITERAL,
    PREFIXED,
    READ,
    TOPIC,
    admin_topic,
    granted,
)
from tests.conformance.scenarios.describe import describe_producers, describe_topic_partitions
from tests.conformance.target import Target, code_name


def _described_topics(t: Target, names: list[str]) -> list[Any]:
    """DescribeTopicPartitions v0 of ``names`` (all topics when empty); ``[name, error, authorized
    operations, partitions]`` of each ``az-`` topic answered."""
    answer = describe_topic_partitions(t, names)
    return sorted(
        [x.name, code_name(x.error_code), x.topic_authorized_operations, len(x.partitions)]
        for x in answer.topics
        if x.name and x.name.startswith("az-")
    )


def _epochs(t: Target, topic: str) -> list[Any]:
    """OffsetForLeaderEpoch v4 (a consumer's, replica id -1) for partition 0 at leader epoch 0."""
    answer = t.call(
        "OffsetForLeaderEpoch",
        4,
        OffsetsForLeaderEpochRequest(
            replica_id=-1,
            topics=[
                OffsetForLeaderTopic(
                    name=topic,
                    partitions=[
                        OffsetForLeaderPartition(partition=0, current_leader_epoch=-1, leader_epoch=0)
                    ],
                )
            ],
        ),
    )
    return [[p.partition, code_name(p.error_code), p.end_offset] for x in answer.topics for p in x.partitions]


@scenario("authz/describe/topics", suite=AUTHORIZATION)
def _topics(t: Target) -> Any:
    """DescribeTopicPartitions, DescribeProducers and OffsetForLeaderEpoch as alice without ACLs,
    with DESCRIBE on a PREFIXED pattern, and with READ."""
    seen, other = admin_topic(t, "az-dsc-seen"), admin_topic(t, "az-dsc-other")
    node = min(t.addresses)

    def attempt(alice: Target) -> dict[str, Any]:
        return {
            "named": _described_topics(alice, [seen, other]),
            "all": _described_topics(alice, []),
            "producers": describe_producers(alice, {seen: [0]}, node),
            "epochs": _epochs(alice, seen),
        }

    out = {}
    with granted(t) as alice:
        out["none"] = attempt(alice)
    with granted(t, (TOPIC, "az-dsc-se", PREFIXED, DESCRIBE, ALLOW)) as alice:
        out["describe"] = attempt(alice)
    with granted(t, (TOPIC, seen, LITERAL, READ, ALLOW)) as alice:
        out["read"] = attempt(alice)
    return out


def _consumer_groups(t: Target, groups: list[str]) -> list[Any]:
    """ConsumerGroupDescribe v0 with authorized operations; ``[group, error, state, operations]``."""
    answer = t.call(
        "ConsumerGroupDescribe",
        0,
        ConsumerGroupDescribeRequest(group_ids=groups, include_authorized_operations=True),
    )
    return sorted(
        [g.group_id, code_name(g.error_code), g.error_message, g.group_state, g.authorized_operations]
        for g in answer.groups
    )


@scenario("authz/describe/consumer-groups", suite=AUTHORIZATION)
def _consumer_group_describe(t: Target) -> Any:
    """ConsumerGroupDescribe (KIP-848) needs DESCRIBE on each group: GROUP_AUTHORIZATION_FAILED
    without it, the group (or GROUP_ID_NOT_FOUND) and its authorized operations with it."""
    groups = ["az-cgd-a", "az-cgd-unknown"]
    out = {"admin": _consumer_groups(t, groups)}
    with granted(t) as alice:
        out["none"] = _consumer_groups(alice, groups)
    with granted(t, (GROUP, "az-cgd-", PREFIXED, DESCRIBE, ALLOW)) as alice:
        out["describe"] = _consumer_groups(alice, groups)
    return out
