"""Internal topics (Kafka's ``Topic.INTERNAL_TOPICS``: ``__consumer_offsets``, ``__transaction_state``,
``__share_group_state``) and the metadata log's ``__cluster_metadata``: what a client may do to them.

Apache Kafka 4.3 refuses a client's Produce to an internal topic (``ReplicaManager.appendRecords``
without ``internalTopicsAllowed``: INVALID_TOPIC_EXCEPTION, at any broker, with no error message on
the wire; a client whose id is ``__admin_client`` is let through) and its DeleteRecords
(``deleteRecordsOnLocalLog``), and the creation of ``__cluster_metadata`` (``ControllerApis``:
INVALID_REQUEST).  It does not refuse DeleteTopics, CreatePartitions nor IncrementalAlterConfigs of an
internal topic: in KRaft nothing checks for one.  Those run on ``__transaction_state``, created
here as any topic (1 partition, replication factor 1) and deleted at the end of each scenario, so
that the transaction scenarios later find the topic their first FindCoordinator creates (a
transaction coordinator places an id over ``transaction.state.log.num.partitions`` partitions), or
with ``validate_only`` on ``__consumer_offsets``, so that the groups of the other scenarios keep
their offsets topic.

Requests go raw (Produce v9, DeleteTopics v5, CreatePartitions v3, CreateTopics v7, DeleteRecords
v2, IncrementalAlterConfigs v1, Metadata v12), one scenario through confluent-kafka's producer.
"""

from __future__ import annotations

import time
from typing import Any

from kafkette.protocol.apis.create_topics import CreatableTopic, CreateTopicsRequest
from tests.conformance.catalogue import scenario
from tests.conformance.raw_client import RawKafkaClient
from tests.conformance.scenarios.configs import SET, TOPIC, alter
from tests.conformance.scenarios.groups import coordinator
from tests.conformance.scenarios.produce import (
    PRODUCE_V,
    batch,
    delete_records,
    follower,
    new_topic,
    partition_answer,
    produce_request,
)
from tests.conformance.scenarios.topics import CREATE_V, create_partitions, delete
from tests.conformance.target import ScenarioError, Target, code_name

OFFSETS = "__consumer_offsets"
TRANSACTION_STATE = "__transaction_state"
SHARE_GROUP_STATE = "__share_group_state"
CLUSTER_METADATA = "__cluster_metadata"
ADMIN_CLIENT_ID = "__admin_client"


def offsets_topic(t: Target) -> list[Any]:
    """``__consumer_offsets``, created by a FindCoordinator if no group made it yet; its partitions."""
    coordinator(t, "internal-topics-group")
    return t.wait_topic(OFFSETS)


def transaction_state(t: Target) -> list[Any]:
    """``__transaction_state`` as a client creates it (CreateTopics, 1 partition, replication
    factor 1) unless it exists; its partitions, each led by a broker that serves it."""
    if not t.partitions(TRANSACTION_STATE):
        error = new_topic(t, TRANSACTION_STATE)
        if error not in ("NONE", "TOPIC_ALREADY_EXISTS"):
            raise ScenarioError(f"{t.name}: creating {TRANSACTION_STATE} answered {error}")
    return t.wait_topic(TRANSACTION_STATE)


def _delete_client_made_transaction_state(t: Target) -> None:
    """Delete the ``__transaction_state`` a scenario created as a client and wait until it is gone."""
    delete(t, TRANSACTION_STATE)
    t.wait_absent(TRANSACTION_STATE)


def produce_answer(
    t: Target, topic: str, partition: int, node: int, client_id: str | None = None
) -> dict[str, Any]:
    """Produce v9 of one batch to ``topic``-``partition`` at ``node``; the partition's answer
    (``partition_answer``) and its error message."""
    request = produce_request(topic, batch([b"not a group record"]), partition)
    if client_id is None:
        answer = t.call("Produce", PRODUCE_V, request, node)
    else:
        client = RawKafkaClient(*t.addresses[node], client_id=client_id)
        try:
            answer = client.call("Produce", PRODUCE_V, request)
        finally:
            client.close()
    part = answer.responses[0].partition_responses[0]
    return {**partition_answer(part), "error_message": part.error_message}


# --- Produce -------------------------------------------------------------------------------------


@scenario("internal/produce/consumer-offsets")
def _produce_offsets(t: Target) -> Any:
    """A client's Produce to ``__consumer_offsets`` at the partition's leader: INVALID_TOPIC_EXCEPTION,
    nothing appended, no error message on the wire."""
    leader = offsets_topic(t)[0].leader_id
    return produce_answer(t, OFFSETS, 0, leader)


@scenario("internal/produce/consumer-offsets-at-a-follower")
def _produce_offsets_follower(t: Target) -> Any:
    """The same at a follower of the partition: still INVALID_TOPIC_EXCEPTION (the internal topic is
    refused before leadership is looked at), not NOT_LEADER_OR_FOLLOWER."""
    offsets_topic(t)
    return produce_answer(t, OFFSETS, 0, follower(t, OFFSETS, 0))


@scenario("internal/produce/consumer-offsets-unknown-partition")
def _produce_offsets_unknown(t: Target) -> Any:
    """A partition of ``__consumer_offsets`` that does not exist: UNKNOWN_TOPIC_OR_PARTITION (Kafka
    answers unknown partitions before it looks at the topic)."""
    offsets_topic(t)
    return produce_answer(t, OFFSETS, 999, min(t.addresses))


@scenario("internal/produce/consumer-offsets-kafka-producer")
def _produce_offsets_client(t: Target) -> Any:
    """confluent-kafka's producer sending to ``__consumer_offsets``: the delivery fails with the
    broker's INVALID_TOPIC_EXCEPTION (librdkafka's TOPIC_EXCEPTION), not retried."""
    offsets_topic(t)
    return t.produce_values(OFFSETS, [b"x"], partition=0, retries=0)


@scenario("internal/produce/transaction-state")
def _produce_transaction_state(t: Target) -> Any:
    """``__transaction_state`` created by a client is internal too: Metadata says so, and a Produce
    to it is INVALID_TOPIC_EXCEPTION."""
    leader = transaction_state(t)[0].leader_id
    metadata = t.metadata([TRANSACTION_STATE]).topics[0]
    answer = {"is_internal": metadata.is_internal, "produce": produce_answer(t, TRANSACTION_STATE, 0, leader)}
    _delete_client_made_transaction_state(t)
    return answer


@scenario("internal/produce/admin-client-id")
def _produce_admin_client(t: Target) -> Any:
    """A Produce whose client id is ``__admin_client`` may append to an internal topic (Kafka's
    ``internalTopicsAllowed = clientId == AdminUtils.ADMIN_CLIENT_ID``); the topic is deleted after."""
    leader = transaction_state(t)[0].leader_id
    answer = produce_answer(t, TRANSACTION_STATE, 0, leader, client_id=ADMIN_CLIENT_ID)
    answer["base_offset"] = answer["base_offset"] >= 0
    _delete_client_made_transaction_state(t)
    return answer


# --- DeleteTopics, CreatePartitions, CreateTopics --------------------------------------------------


@scenario("internal/delete-topics/transaction-state")
def _delete_transaction_state(t: Target) -> Any:
    """DeleteTopics of an internal topic (``__transaction_state``): deleted, as any topic (KRaft's
    controller has no internal-topic check)."""
    transaction_state(t)
    answer = delete(t, TRANSACTION_STATE)
    t.wait_absent(TRANSACTION_STATE)
    return answer


@scenario("internal/delete-topics/cluster-metadata")
def _delete_cluster_metadata(t: Target) -> Any:
    """DeleteTopics of ``__cluster_metadata``: it is no topic of the cluster's metadata,
    UNKNOWN_TOPIC_OR_PARTITION."""
    return delete(t, CLUSTER_METADATA)


@scenario("internal/create-partitions/consumer-offsets-validate-only")
def _grow_offsets(t: Target) -> Any:
    """CreatePartitions of ``__consumer_offsets`` with validate_only: accepted (Kafka does not refuse
    it), and the partition count stays."""
    count = len(offsets_topic(t))
    error = create_partitions(t, OFFSETS, count + 1, validate_only=True)
    return {"error": error, "partitions_after": len(t.wait_topic(OFFSETS)) - count}


@scenario("internal/create-partitions/transaction-state")
def _grow_transaction_state(t: Target) -> Any:
    """CreatePartitions of an internal topic (``__transaction_state``): it grows, as any topic."""
    count = len(transaction_state(t))
    error = create_partitions(t, TRANSACTION_STATE, count + 1)
    view = t.wait_topic(TRANSACTION_STATE, count + 1) if error == "NONE" else t.partitions(TRANSACTION_STATE)
    _delete_client_made_transaction_state(t)
    return {"error": error, "grew_by": len(view) - count}


@scenario("internal/create-partitions/cluster-metadata")
def _grow_cluster_metadata(t: Target) -> Any:
    """CreatePartitions of ``__cluster_metadata``: UNKNOWN_TOPIC_OR_PARTITION."""
    return create_partitions(t, CLUSTER_METADATA, 2)


def _create_cluster_metadata(t: Target, validate_only: bool) -> Any:
    topic = CreatableTopic(name=CLUSTER_METADATA, num_partitions=1, replication_factor=1)
    answer = t.call(
        "CreateTopics",
        CREATE_V,
        CreateTopicsRequest(topics=[topic], timeout_ms=30000, validate_only=validate_only),
    )
    return [(r.name, code_name(r.error_code), r.error_message) for r in answer.topics]


@scenario("internal/create-topics/cluster-metadata")
def _create_metadata_topic(t: Target) -> Any:
    """CreateTopics of ``__cluster_metadata``: INVALID_REQUEST, "Creation of internal topic
    __cluster_metadata is prohibited." (Kafka's ``ControllerApis.createTopics``)."""
    return _create_cluster_metadata(t, validate_only=False)


@scenario("internal/create-topics/cluster-metadata-validate-only")
def _create_metadata_topic_validate(t: Target) -> Any:
    """The same with validate_only."""
    return _create_cluster_metadata(t, validate_only=True)


@scenario("internal/create-topics/consumer-offsets-exists")
def _create_offsets(t: Target) -> Any:
    """CreateTopics of ``__consumer_offsets`` once it exists: TOPIC_ALREADY_EXISTS, as any topic."""
    offsets_topic(t)
    topic = CreatableTopic(name=OFFSETS, num_partitions=1, replication_factor=1)
    answer = t.call(
        "CreateTopics", CREATE_V, CreateTopicsRequest(topics=[topic], timeout_ms=30000, validate_only=True)
    )
    return [(r.name, code_name(r.error_code)) for r in answer.topics]


# --- DeleteRecords, configs, Metadata ------------------------------------------------------------


@scenario("internal/delete-records/consumer-offsets")
def _delete_records_offsets(t: Target) -> Any:
    """DeleteRecords of ``__consumer_offsets``: INVALID_TOPIC_EXCEPTION (Kafka's
    ``deleteRecordsOnLocalLog``: "Cannot delete records of internal topic")."""
    offsets_topic(t)
    return delete_records(t, OFFSETS, 0)


@scenario("internal/delete-records/unknown-partition")
def _delete_records_unknown(t: Target) -> Any:
    """DeleteRecords of a partition of ``__consumer_offsets`` that does not exist:
    UNKNOWN_TOPIC_OR_PARTITION."""
    offsets_topic(t)
    return delete_records(t, OFFSETS, 0, partition=999, node=min(t.addresses))


@scenario("internal/configs/alter-consumer-offsets-validate-only")
def _alter_offsets(t: Target) -> Any:
    """IncrementalAlterConfigs of ``__consumer_offsets`` (validate_only): accepted, as any topic."""
    offsets_topic(t)
    return alter(t, TOPIC, OFFSETS, [("retention.ms", SET, "86400000")], validate_only=True)


@scenario("internal/configs/alter-transaction-state")
def _alter_transaction_state(t: Target) -> Any:
    """IncrementalAlterConfigs of an internal topic (``__transaction_state``): applied, as any topic."""
    transaction_state(t)
    answer = alter(t, TOPIC, TRANSACTION_STATE, [("retention.ms", SET, "86400000")])
    _delete_client_made_transaction_state(t)
    return answer


@scenario("internal/metadata/unknown-internal-topics")
def _metadata_unknown(t: Target) -> Any:
    """Metadata (no auto-creation) of ``__share_group_state`` and ``__cluster_metadata``, neither
    existing: UNKNOWN_TOPIC_OR_PARTITION, the first marked internal, the second not."""
    answer = t.metadata([SHARE_GROUP_STATE, CLUSTER_METADATA])
    return sorted((x.name, code_name(x.error_code), x.is_internal) for x in answer.topics)


@scenario("internal/metadata/auto-create-cluster-metadata")
def _auto_create_metadata_topic(t: Target) -> Any:
    """Metadata with allow_auto_topic_creation for ``__cluster_metadata``: UNKNOWN_TOPIC_OR_PARTITION
    and nothing created (the controller refuses the creation)."""
    first = [code_name(x.error_code) for x in t.metadata([CLUSTER_METADATA], auto_create=True).topics]
    time.sleep(1.0)  # the creation request goes to the controller after the answer
    return {"first_answer": first, "created": bool(t.partitions(CLUSTER_METADATA))}
