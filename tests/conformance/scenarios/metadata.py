"""Cluster metadata as a client sees it: Metadata (brokers, cluster id, controller id, internal
topics, every version's answer), DescribeCluster, DescribeLogDirs, and what happens to leaders and
ISRs when a broker stops (a controlled shutdown) and comes back (disruptive: run last).
"""

from __future__ import annotations

import time
from typing import Any

from kafkette.protocol.apis.describe_log_dirs import DescribableLogDirTopic, DescribeLogDirsRequest
from kafkette.protocol.apis.elect_leaders import ElectLeadersRequest, ElectLeadersTopicPartitions
from kafkette.protocol.apis.metadata import MetadataRequest, MetadataRequestTopic
from kafkette.protocol.kafka_messages.cluster import DescribeClusterRequest
from tests.conformance.catalogue import register, scenario
from tests.conformance.scenarios.topics import create
from tests.conformance.target import ScenarioError, Target, code_name

INTERNAL_TOPIC = "__consumer_offsets"


@scenario("metadata/brokers")
def _brokers(t: Target) -> Any:
    """Metadata v12 lists every broker (ids 1-3, no racks) and a controller among them."""
    answer = t.metadata([])
    return {
        "brokers": sorted(b.node_id for b in answer.brokers),
        "racks": [b.rack for b in answer.brokers],
        "controller_is_a_broker": answer.controller_id in {b.node_id for b in answer.brokers},
        "cluster_id_length": len(answer.cluster_id or ""),
        "topics": len(answer.topics),
    }


@scenario("metadata/same-answer-on-every-broker")
def _every_broker(t: Target) -> Any:
    """Every broker answers Metadata with the same brokers and cluster id (the controller id a KRaft
    broker answers is any live broker, so it may differ between answers)."""
    answers = [t.metadata([], node) for node in sorted(t.addresses)]
    return len({(tuple(sorted(b.node_id for b in a.brokers)), a.cluster_id) for a in answers})


def _version(t: Target, version: int) -> Any:
    name = f"md-v{version}"
    create(t, name, partitions=2, rf=2)
    t.wait_topic(name)
    topics = None if version == 0 else [MetadataRequestTopic(name=name)]
    request = MetadataRequest(
        topics=[MetadataRequestTopic(name=name)] if version == 0 else topics, allow_auto_topic_creation=False
    )
    answer = t.call("Metadata", version, request)
    mine = [x for x in answer.topics if x.name == name]
    return {
        "topics": [
            [
                code_name(x.error_code),
                x.is_internal,
                len(x.partitions),
                sorted(
                    (
                        p.partition_index,
                        code_name(p.error_code),
                        len(p.replica_nodes),
                        len(p.isr_nodes),
                        p.leader_id in p.replica_nodes,
                        len(p.offline_replicas),
                    )
                    for p in x.partitions
                ),
                x.topic_id != bytes(16) if version >= 10 else None,
            ]
            for x in mine
        ],
        "brokers": len(answer.brokers),
        "has_cluster_id": answer.cluster_id is not None,
        "controller": answer.controller_id in {b.node_id for b in answer.brokers} if version >= 1 else None,
        "error": code_name(answer.error_code) if version >= 13 else None,
    }


for _v in range(0, 14):
    register(
        f"metadata/version-{_v}",
        f"Metadata v{_v} for a 2-partition topic with replication factor 2",
        lambda t, v=_v: _version(t, v),
    )


@scenario("metadata/by-topic-id")
def _by_topic_id(t: Target) -> Any:
    """Metadata v12 and v13 naming topics by id only (KIP-516): a known id is answered under its name,
    an unknown one UNKNOWN_TOPIC_ID with a null name (Kafka's handleTopicMetadataRequest); before v12
    an id is INVALID_REQUEST for every topic asked."""
    name = "md-by-id"
    create(t, name, partitions=2, rf=2)
    t.wait_topic(name)
    topic_id = next(x.topic_id for x in t.metadata([name]).topics if x.name == name)
    unknown = bytes(range(1, 17))
    answers: dict[str, Any] = {}
    for version in (12, 13):
        for label, ids in (("known", [topic_id]), ("unknown", [unknown]), ("both", [unknown, topic_id])):
            request = MetadataRequest(
                topics=[MetadataRequestTopic(name=None, topic_id=i) for i in ids],
                allow_auto_topic_creation=False,
            )
            answer = t.call("Metadata", version, request)
            answers[f"v{version}/{label}"] = sorted(
                (code_name(x.error_code), x.name, x.topic_id == topic_id, len(x.partitions))
                for x in answer.topics
            )
    request = MetadataRequest(
        topics=[MetadataRequestTopic(name=name, topic_id=topic_id)], allow_auto_topic_creation=False
    )
    answers["v11/named-with-id"] = [code_name(x.error_code) for x in t.call("Metadata", 11, request).topics]
    return answers


@scenario("metadata/unknown-topic")
def _unknown(t: Target) -> Any:
    """Metadata for a topic that does not exist, without auto-creation: UNKNOWN_TOPIC_OR_PARTITION."""
    return [code_name(x.error_code) for x in t.metadata(["md-no-such-topic"]).topics]


@scenario("metadata/invalid-name")
def _invalid(t: Target) -> Any:
    """Metadata for an illegal topic name, without auto-creation."""
    return [code_name(x.error_code) for x in t.metadata(["bad name!"]).topics]


@scenario("metadata/internal-topic")
def _internal(t: Target) -> Any:
    """Once a group commits, ``__consumer_offsets`` exists: internal, 50 partitions, replication factor 3."""
    create(t, "md-internal-src")
    t.wait_topic("md-internal-src")
    t.produce_values("md-internal-src", [b"x"])
    consumer = t.consumer("md-internal-group")
    try:
        consumer.subscribe(["md-internal-src"])
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is not None and msg.error() is None:
                consumer.commit(msg, asynchronous=False)
                break
    finally:
        consumer.close()
    view = t.wait_topic(INTERNAL_TOPIC)
    answer = t.metadata([INTERNAL_TOPIC])
    return {
        "is_internal": answer.topics[0].is_internal,
        "partitions": len(view),
        "replication": sorted({len(p.replica_nodes) for p in view}),
    }


@scenario("metadata/all-topics-lists-created")
def _all_topics(t: Target) -> Any:
    """Metadata for all topics (topics=null) lists a topic just created, and never auto-creates."""
    create(t, "md-listed")
    t.wait_topic("md-listed")
    names = {x.name for x in t.metadata(None).topics}
    return {"listed": "md-listed" in names, "no-such": "md-not-created" in names}


@scenario("metadata/describe-cluster")
def _describe_cluster(t: Target) -> Any:
    """DescribeCluster v1 (KIP-700): the brokers, a controller among them, the cluster id of Metadata."""
    answer = t.call("DescribeCluster", 1, DescribeClusterRequest(endpoint_type=1))
    metadata = t.metadata([])
    return {
        "error": code_name(answer.error_code),
        "brokers": sorted(b.broker_id for b in answer.brokers),
        "endpoint_type": answer.endpoint_type,
        "same_cluster_id": answer.cluster_id == metadata.cluster_id,
        "controller_is_a_broker": answer.controller_id in {b.broker_id for b in answer.brokers},
    }


@scenario("metadata/describe-cluster-fenced-brokers")
def _describe_cluster_fenced(t: Target) -> Any:
    """DescribeCluster v2 (KIP-1073) without and with include_fenced_brokers, every broker live: the
    same three brokers, none fenced."""
    out: dict[str, Any] = {}
    for include in (False, True):
        answer = t.call(
            "DescribeCluster", 2, DescribeClusterRequest(endpoint_type=1, include_fenced_brokers=include)
        )
        out[f"include-fenced-{include}"] = {
            "error": code_name(answer.error_code),
            "brokers": sorted((b.broker_id, b.is_fenced) for b in answer.brokers),
        }
    return out


@scenario("metadata/describe-log-dirs")
def _describe_log_dirs(t: Target) -> Any:
    """DescribeLogDirs v4 and v5 (KIP-1066's is_cordoned: no log directory cordoned) of a topic every
    broker holds (replication factor 3) and of a topic that does not exist."""
    create(t, "md-log-dirs", partitions=2, rf=3)
    t.wait_topic("md-log-dirs")
    request = DescribeLogDirsRequest(
        topics=[
            DescribableLogDirTopic(topic="md-log-dirs", partitions=[0, 1]),
            DescribableLogDirTopic(topic="md-log-dirs-no-such-topic", partitions=[0]),
        ]
    )
    # Metadata can name the topic before the answering broker has made both replicas' logs (on either
    # broker): ask until both are there, for at most 30 s, then compare the answers.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        held = t.call("DescribeLogDirs", 4, request)
        if sum(len(x.partitions) for r in held.results for x in r.topics if x.name == "md-log-dirs") >= 2:
            break
        time.sleep(0.1)
    out: dict[str, Any] = {}
    for version in (4, 5):
        answer = t.call("DescribeLogDirs", version, request)
        out[f"v{version}"] = {
            "error": code_name(answer.error_code),
            "results": [
                {
                    "error": code_name(r.error_code),
                    "is_cordoned": r.is_cordoned if version >= 5 else None,
                    "topics": sorted(
                        (
                            x.name,
                            sorted(
                                (p.partition_index, p.partition_size, p.is_future_key) for p in x.partitions
                            ),
                        )
                        for x in r.topics
                    ),
                }
                for r in answer.results
            ],
        }
    return out


# --- a broker stops and comes back (disruptive) -----------------------------------------------------


def _wait(t: Target, topic: str, check: Any, what: str, timeout_s: float = 60) -> list[Any]:
    deadline = time.monotonic() + timeout_s
    while True:
        view = t.partitions(topic)
        if view and check(view):
            return view
        if time.monotonic() > deadline:
            raise ScenarioError(
                f"{t.name}: {what} not within {timeout_s} s: {[(p.leader_id, p.isr_nodes) for p in view]}"
            )
        time.sleep(0.1)


def _stop_and_start(t: Target) -> Any:
    """A topic with replication factor 3 on 3 brokers; broker 3 stops (controlled shutdown): it
    leaves every ISR and leads nothing, producing with acks=all still works, DescribeCluster v2 lists
    it fenced only with include_fenced_brokers (KIP-1073); it comes back and rejoins every ISR."""
    name = "md-isr"
    create(t, name, partitions=3, rf=3)
    t.wait_topic(name)
    t.produce_values(name, [b"before"] * 3, partition=0, acks="all")
    t.drop_raw(3)
    t.stop_node(3)
    try:
        # the ISRs shrink before the stopped broker leaves Metadata: wait for both, so that what
        # is compared is where each broker settles, not how far it got when asked
        down = _wait(
            t,
            name,
            lambda v: all(3 not in p.isr_nodes and p.leader_id != 3 and 3 in p.offline_replicas for p in v),
            "broker 3 left",
        )
        during = t.produce_values(name, [b"during"], partition=0, acks="all")
        answer = t.metadata([name])
        brokers = sorted(b.node_id for b in answer.brokers)
        described = {
            f"include-fenced-{include}": sorted(
                (b.broker_id, b.is_fenced)
                for b in t.call(
                    "DescribeCluster",
                    2,
                    DescribeClusterRequest(endpoint_type=1, include_fenced_brokers=include),
                ).brokers
            )
            for include in (False, True)
        }
    finally:
        t.start_node(3)
    up = _wait(t, name, lambda v: all(len(p.isr_nodes) == 3 for p in v), "broker 3 rejoined", timeout_s=90)
    return {
        "down": {
            "isr": sorted(len(p.isr_nodes) for p in down),
            "offline": sorted(list(p.offline_replicas) for p in down),
            "brokers": brokers,
            "describe_cluster_v2": described,
        },
        "produce_during": during,
        "up": {
            "isr": sorted(len(p.isr_nodes) for p in up),
            "replicas": sorted(len(p.replica_nodes) for p in up),
        },
    }


register(
    "metadata/broker-stops-and-returns",
    (_stop_and_start.__doc__ or "").splitlines()[0],
    _stop_and_start,
    disruptive=True,
)


@scenario("metadata/authorized-operations")
def _authorized_operations(t: Target) -> Any:
    """KIP-430 without an authorizer: Metadata v10 and v12 asking for topic (and v10 cluster) authorized
    operations, and DescribeCluster v1 asking and not asking, answer every operation of the resource."""
    create(t, "md-authorized-ops", partitions=1, rf=1)
    t.wait_topic("md-authorized-ops")
    out: dict[str, Any] = {}
    for version in (10, 12):
        for asked in (False, True):
            answer = t.call(
                "Metadata",
                version,
                MetadataRequest(
                    topics=[MetadataRequestTopic(name="md-authorized-ops")],
                    allow_auto_topic_creation=False,
                    include_cluster_authorized_operations=asked,
                    include_topic_authorized_operations=asked,
                ),
            )
            out[f"metadata-v{version}-asked-{asked}"] = {
                "topic": [tp.topic_authorized_operations for tp in answer.topics],
                "cluster": answer.cluster_authorized_operations if version <= 10 else None,
            }
    for asked in (False, True):
        answer = t.call(
            "DescribeCluster",
            1,
            DescribeClusterRequest(include_cluster_authorized_operations=asked, endpoint_type=1),
        )
        out[f"describe-cluster-asked-{asked}"] = answer.cluster_authorized_operations
    return out


def _elect(t: Target, version: int, election_type: int, partitions: dict[str, list[int]]) -> Any:
    """ElectLeaders of ``partitions``: the top-level error and ``[topic, partition, error, message]``
    sorted."""
    answer = t.call(
        "ElectLeaders",
        version,
        ElectLeadersRequest(
            election_type=election_type,
            timeout_ms=30000,
            topic_partitions=[
                ElectLeadersTopicPartitions(topic=k, partitions=v) for k, v in partitions.items()
            ],
        ),
    )
    return {
        "error": code_name(answer.error_code),
        "results": sorted(
            [r.topic, p.partition_id, code_name(p.error_code), p.error_message]
            for r in answer.replica_election_results
            for p in r.partition_result
        ),
    }


@scenario("metadata/elect-leaders")
def _elect_leaders(t: Target) -> Any:
    """ElectLeaders v0 and v2 (preferred, and v2 unclean) of a partition led by its preferred replica
    (ELECTION_NOT_NEEDED) and of a partition of a topic that does not exist."""
    create(t, "md-elect", partitions=1, rf=1)
    t.wait_topic("md-elect")
    wanted = {"md-elect": [0], "md-elect-no-such-topic": [0]}
    return {
        "v0": _elect(t, 0, 0, wanted),
        "v2-preferred": _elect(t, 2, 0, wanted),
        "v2-unclean": _elect(t, 2, 1, wanted),
    }
