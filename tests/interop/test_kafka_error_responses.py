"""Kafkette's whole-request error answers (``protocol/kafka_error_responses``, through
``KafkaReply.error_response``) are byte for byte Kafka's ``AbstractRequest.getErrorResponse``.

For every API of ``ERROR_RESPONSES`` and every version the Kafka listener offers, a request naming
a few items (one of them twice where the API allows it) is encoded by Kafkette's codec; Kafka's code,
with the jars of the test peer (``tests/peers/kafka_peer.py``), parses that body with
``AbstractRequest.parseRequest``, answers it with ``getErrorResponse(0, Errors.X.exception())`` and
writes the response body at that version (``tests/peers/kafka/PrintErrorResponses.java``); the
bytes must equal the body Kafkette encodes for ``error_response(X)`` of the request as its codec
decodes it.  The socket server passes the failure's message as Kafka's ``ApiError.fromThrowable``
keeps it (``errors.api_error_message``): none for an exception carrying its error's default message,
as Kafka's ``Errors.X.exception()`` here, so the two are compared unmasked (an API that writes
``Errors.message()`` whatever the exception said, DescribeConfigs, must then write the default message
too).  No Java or Maven
fails the test, naming what is missing.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kafkette.protocol.api_keys import KAFKA_APIS, ApiKey
from kafkette.protocol.apis.client_quotas import (
    AlterClientQuotasEntry,
    AlterClientQuotasRequest,
    ClientQuotaEntityData,
    ClientQuotaFilterComponent,
    ClientQuotaOpData,
    DescribeClientQuotasRequest,
)
from kafkette.protocol.apis.configs import (
    AlterableConfig,
    AlterConfigsResource,
    DescribeConfigsRequest,
    DescribeConfigsResource,
    IncrementalAlterConfigsRequest,
)
from kafkette.protocol.apis.consumer_group import ConsumerGroupDescribeRequest
from kafkette.protocol.apis.create_partitions import CreatePartitionsRequest, CreatePartitionsTopic
from kafkette.protocol.apis.create_topics import CreatableTopic, CreateTopicsRequest
from kafkette.protocol.apis.delete_records import (
    DeleteRecordsPartition,
    DeleteRecordsRequest,
    DeleteRecordsTopic,
)
from kafkette.protocol.apis.delete_topics import DeleteTopicsRequest, DeleteTopicState
from kafkette.protocol.apis.describe_log_dirs import DescribableLogDirTopic, DescribeLogDirsRequest
from kafkette.protocol.apis.describe_producers import DescribeProducersRequest, DescribeProducersRequestTopic
from kafkette.protocol.apis.describe_topic_partitions import (
    DescribeTopicPartitionsRequest,
    DescribeTopicPartitionsRequestTopic,
)
from kafkette.protocol.apis.elect_leaders import ElectLeadersRequest, ElectLeadersTopicPartitions
from kafkette.protocol.apis.fetch import FetchPartition, FetchRequest, FetchTopic
from kafkette.protocol.apis.find_coordinator import FindCoordinatorRequest
from kafkette.protocol.apis.group_admin import DeleteGroupsRequest, DescribeGroupsRequest
from kafkette.protocol.apis.list_offsets import ListOffsetsPartition, ListOffsetsRequest, ListOffsetsTopic
from kafkette.protocol.apis.metadata import MetadataRequest, MetadataRequestTopic
from kafkette.protocol.apis.offsets import (
    OffsetCommitRequest,
    OffsetCommitRequestPartition,
    OffsetCommitRequestTopic,
    OffsetFetchRequest,
    OffsetFetchRequestGroup,
    OffsetFetchRequestTopic,
    OffsetFetchRequestTopics,
)
from kafkette.protocol.apis.offsets_for_leader_epoch import (
    OffsetForLeaderPartition,
    OffsetForLeaderTopic,
    OffsetsForLeaderEpochRequest,
)
from kafkette.protocol.apis.produce import ProducePartitionData, ProduceRequest, ProduceTopicData
from kafkette.protocol.apis.transactions import (
    TxnOffsetCommitRequest,
    TxnOffsetCommitRequestPartition,
    TxnOffsetCommitRequestTopic,
)
from kafkette.protocol.apis.user_scram_credentials import (
    AlterUserScramCredentialsRequest,
    DescribeUserScramCredentialsRequest,
    ScramCredentialDeletion,
    ScramCredentialUpsertion,
    ScramUserName,
)
from kafkette.protocol.apis.write_txn_markers import (
    WritableTxnMarker,
    WritableTxnMarkerTopic,
    WriteTxnMarkersRequest,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.kafka_codec import KafkaReply
from kafkette.protocol.kafka_error_responses import ERROR_RESPONSES
from kafkette.protocol.kafka_messages.configs import (
    AlterConfigsRequest,
    LegacyAlterableConfig,
    LegacyAlterConfigsResource,
)
from tests.peers import kafka_peer

ORACLE = Path(kafka_peer.__file__).parent / "kafka" / "PrintErrorResponses.java"
ORACLE_TIMEOUT_S = 240
CODES = (Errors.UNKNOWN_SERVER_ERROR, Errors.NOT_CONTROLLER)
"""The generic error (whose message Kafka never sends) and another one."""

TOPIC_A = bytes(range(1, 17))
TOPIC_B = bytes(range(17, 33))

pytestmark = pytest.mark.timeout(ORACLE_TIMEOUT_S + 60)


def _produce() -> list[Any]:
    def part(i: int) -> ProducePartitionData:
        return ProducePartitionData(index=i, records=b"")  # Kafka's parser refuses null records

    return [
        ProduceRequest(
            transactional_id=None,
            acks=-1,
            timeout_ms=1000,
            topic_data=[
                ProduceTopicData(name="a", topic_id=TOPIC_A, partition_data=[part(0), part(1), part(0)]),
                ProduceTopicData(name="b", topic_id=TOPIC_B, partition_data=[part(2)]),
                ProduceTopicData(name="a", topic_id=TOPIC_A, partition_data=[part(1), part(3)]),
            ],
        ),
        ProduceRequest(  # more partitions than a 16-bucket HashMap holds: Kafka's order after a resize
            transactional_id=None,
            acks=1,
            timeout_ms=1000,
            topic_data=[
                ProduceTopicData(name=n, topic_id=t, partition_data=[part(i) for i in range(9)])
                for n, t in (("orders", TOPIC_A), ("clicks", TOPIC_B), ("o", bytes(16)))
            ],
        ),
    ]


def _fetch() -> list[Any]:
    def part(i: int) -> FetchPartition:
        return FetchPartition(partition=i, fetch_offset=5, partition_max_bytes=1024)

    return [
        FetchRequest(
            max_wait_ms=100,
            min_bytes=1,
            isolation_level=0,
            session_id=42,
            session_epoch=3,
            topics=[
                FetchTopic(topic="a", topic_id=TOPIC_A, partitions=[part(0), part(1)]),
                FetchTopic(topic="b", topic_id=TOPIC_B, partitions=[part(2)]),
            ],
            forgotten_topics_data=[],
            rack_id="",
        )
    ]


def _list_offsets() -> list[Any]:
    def part(i: int) -> ListOffsetsPartition:
        return ListOffsetsPartition(partition_index=i, timestamp=-1)

    return [
        ListOffsetsRequest(
            replica_id=-1,
            isolation_level=0,
            topics=[
                ListOffsetsTopic(name="a", partitions=[part(0), part(1)]),
                ListOffsetsTopic(name="b", partitions=[part(2)]),
            ],
            timeout_ms=1000,
        )
    ]


def _metadata() -> list[Any]:
    topics = [
        MetadataRequestTopic(name="a", topic_id=bytes(16)),
        MetadataRequestTopic(name="b", topic_id=bytes(16)),
        MetadataRequestTopic(name="a", topic_id=bytes(16)),
    ]
    return [
        MetadataRequest(topics=topics, include_topic_authorized_operations=False),
        MetadataRequest(topics=[], include_topic_authorized_operations=False),
    ]


def _offset_commit() -> list[Any]:
    def part(i: int) -> OffsetCommitRequestPartition:
        return OffsetCommitRequestPartition(partition_index=i, committed_offset=7, committed_metadata="")

    return [
        OffsetCommitRequest(
            group_id="g",
            generation_id=1,
            member_id="m",
            topics=[
                OffsetCommitRequestTopic(name="a", topic_id=TOPIC_A, partitions=[part(0), part(1), part(0)]),
                OffsetCommitRequestTopic(name="b", topic_id=TOPIC_B, partitions=[part(2)]),
            ],
        )
    ]


def _offset_fetch() -> list[Any]:
    return [
        OffsetFetchRequest(
            group_id="g",
            topics=[
                OffsetFetchRequestTopic(name="a", partition_indexes=[0, 1, 0]),
                OffsetFetchRequestTopic(name="b", partition_indexes=[2]),
            ],
            groups=[
                OffsetFetchRequestGroup(
                    group_id="g",
                    topics=[OffsetFetchRequestTopics(name="a", topic_id=TOPIC_A, partition_indexes=[0, 1])],
                ),
                OffsetFetchRequestGroup(group_id="h", topics=None),
            ],
            require_stable=False,
        )
    ]


def _find_coordinator() -> list[Any]:
    return [FindCoordinatorRequest(key="g", key_type=0, coordinator_keys=["g", "h", "g"])]


def _describe_groups() -> list[Any]:
    return [DescribeGroupsRequest(groups=["g", "h", "g"], include_authorized_operations=False)]


def _create_topics() -> list[Any]:
    return [
        CreateTopicsRequest(
            topics=[
                CreatableTopic(name=n, num_partitions=1, replication_factor=1, assignments=[], configs=[])
                for n in ("a", "b", "a")
            ],
            timeout_ms=1000,
            validate_only=False,
        )
    ]


def _delete_topics() -> list[Any]:
    return [
        DeleteTopicsRequest(
            topics=[
                DeleteTopicState(name="a", topic_id=bytes(16)),
                DeleteTopicState(name=None, topic_id=TOPIC_B),
                DeleteTopicState(name="a", topic_id=bytes(16)),
            ],
            topic_names=["a", "b", "a"],
            timeout_ms=1000,
        )
    ]


def _delete_records() -> list[Any]:
    def part(i: int) -> DeleteRecordsPartition:
        return DeleteRecordsPartition(partition_index=i, offset=3)

    return [
        DeleteRecordsRequest(
            topics=[
                DeleteRecordsTopic(name="a", partitions=[part(0), part(1), part(0)]),
                DeleteRecordsTopic(name="b", partitions=[part(2)]),
            ],
            timeout_ms=1000,
        )
    ]


def _offset_for_leader_epoch() -> list[Any]:
    def part(i: int) -> OffsetForLeaderPartition:
        return OffsetForLeaderPartition(partition=i, leader_epoch=2)

    return [
        OffsetsForLeaderEpochRequest(
            topics=[
                OffsetForLeaderTopic(name="a", partitions=[part(0), part(1)]),
                OffsetForLeaderTopic(name="b", partitions=[part(2)]),
            ],
        )
    ]


def _describe_configs() -> list[Any]:
    return [
        DescribeConfigsRequest(
            resources=[
                DescribeConfigsResource(resource_type=2, resource_name="a", configuration_keys=None),
                DescribeConfigsResource(resource_type=4, resource_name="1", configuration_keys=["x"]),
                DescribeConfigsResource(resource_type=2, resource_name="a", configuration_keys=None),
            ],
            include_synonyms=False,
            include_documentation=False,
        )
    ]


def _alter_configs() -> list[Any]:
    config = LegacyAlterableConfig(name="retention.ms", value="1000")
    return [
        AlterConfigsRequest(
            resources=[
                LegacyAlterConfigsResource(resource_type=2, resource_name="a", configs=[config]),
                LegacyAlterConfigsResource(resource_type=4, resource_name="1", configs=[]),
                LegacyAlterConfigsResource(resource_type=2, resource_name="a", configs=[]),
            ],
            validate_only=False,
        )
    ]


def _describe_log_dirs() -> list[Any]:
    return [
        DescribeLogDirsRequest(topics=[DescribableLogDirTopic(topic="a", partitions=[0, 1])]),
        DescribeLogDirsRequest(topics=None),
    ]


def _create_partitions() -> list[Any]:
    return [
        CreatePartitionsRequest(
            topics=[CreatePartitionsTopic(name=n, count=3, assignments=None) for n in ("a", "b", "a")],
            timeout_ms=1000,
            validate_only=False,
        )
    ]


def _delete_groups() -> list[Any]:
    return [DeleteGroupsRequest(groups_names=["g", "h", "g"])]


def _elect_leaders() -> list[Any]:
    return [
        ElectLeadersRequest(
            election_type=0,
            topic_partitions=[
                ElectLeadersTopicPartitions(topic="a", partitions=[0, 1, 0]),
                ElectLeadersTopicPartitions(topic="b", partitions=[2]),
            ],
            timeout_ms=1000,
        ),
        ElectLeadersRequest(election_type=0, topic_partitions=None, timeout_ms=1000),
    ]


def _incremental_alter_configs() -> list[Any]:
    config = AlterableConfig(name="retention.ms", config_operation=0, value="1000")
    return [
        IncrementalAlterConfigsRequest(
            resources=[
                AlterConfigsResource(resource_type=2, resource_name="a", configs=[config]),
                AlterConfigsResource(resource_type=4, resource_name="1", configs=[]),
            ],
            validate_only=False,
        )
    ]


def _describe_producers() -> list[Any]:
    return [
        DescribeProducersRequest(
            topics=[
                DescribeProducersRequestTopic(name="a", partition_indexes=[0, 1, 0]),
                DescribeProducersRequestTopic(name="b", partition_indexes=[2]),
            ]
        )
    ]


def _consumer_group_describe() -> list[Any]:
    return [ConsumerGroupDescribeRequest(group_ids=["g", "h", "g"], include_authorized_operations=True)]


def _describe_topic_partitions() -> list[Any]:
    return [
        DescribeTopicPartitionsRequest(
            topics=[DescribeTopicPartitionsRequestTopic(name=n) for n in ("a", "b", "a")],
            response_partition_limit=2000,
            cursor=None,
        )
    ]


def _describe_client_quotas() -> list[Any]:
    return [
        DescribeClientQuotasRequest(
            components=[ClientQuotaFilterComponent(entity_type="user", match_type=0, match="alice")],
            strict=False,
        ),
        DescribeClientQuotasRequest(components=[], strict=True),
    ]


def _describe_user_scram_credentials() -> list[Any]:
    """Not users=None (every user): Kafka's getErrorResponse throws NullPointerException on it."""
    return [
        DescribeUserScramCredentialsRequest(users=[ScramUserName(name=n) for n in ("alice", "bob", "alice")]),
        DescribeUserScramCredentialsRequest(users=[]),
    ]


def _alter_client_quotas() -> list[Any]:
    return [
        AlterClientQuotasRequest(
            entries=[
                AlterClientQuotasEntry(
                    entity=[
                        ClientQuotaEntityData(entity_type="user", entity_name="alice"),
                        ClientQuotaEntityData(entity_type="client-id", entity_name=None),
                    ],
                    ops=[ClientQuotaOpData(key="producer_byte_rate", value=1024.0, remove=False)],
                ),
                AlterClientQuotasEntry(entity=[], ops=[]),
            ],
            validate_only=False,
        )
    ]


def _alter_user_scram_credentials() -> list[Any]:
    return [
        AlterUserScramCredentialsRequest(
            deletions=[ScramCredentialDeletion(name=n, mechanism=1) for n in ("bob", "alice")],
            upsertions=[
                ScramCredentialUpsertion(
                    name="alice", mechanism=2, iterations=4096, salt=b"s", salted_password=b"p"
                )
            ],
        ),
        AlterUserScramCredentialsRequest(deletions=[], upsertions=[]),
    ]


def _write_txn_markers() -> list[Any]:
    """One marker, one partition per request: Kafka's getErrorResponse regroups markers and topics
    through hash maps (their order is not the request's), so larger requests compare only as sets."""
    return [
        WriteTxnMarkersRequest(
            markers=[
                WritableTxnMarker(
                    producer_id=7,
                    producer_epoch=1,
                    transaction_result=True,
                    topics=[WritableTxnMarkerTopic(name="orders", partition_indexes=[1])],
                    coordinator_epoch=3,
                )
            ]
        ),
        WriteTxnMarkersRequest(
            markers=[
                WritableTxnMarker(
                    producer_id=8, producer_epoch=0, transaction_result=False, topics=[], coordinator_epoch=0
                )
            ]
        ),
    ]


def _txn_offset_commit() -> list[Any]:
    return [
        TxnOffsetCommitRequest(
            transactional_id="txn",
            group_id="g",
            producer_id=7,
            producer_epoch=1,
            member_id="",
            topics=[
                TxnOffsetCommitRequestTopic(
                    name="orders",
                    partitions=[
                        TxnOffsetCommitRequestPartition(
                            partition_index=p, committed_offset=5, committed_metadata=None
                        )
                        for p in (1, 0)
                    ],
                ),
                TxnOffsetCommitRequestTopic(name="audit", partitions=[]),
            ],
        )
    ]


REQUESTS: dict[int, Callable[[], list[Any]]] = {
    ApiKey.PRODUCE: _produce,
    ApiKey.FETCH: _fetch,
    ApiKey.LIST_OFFSETS: _list_offsets,
    ApiKey.METADATA: _metadata,
    ApiKey.OFFSET_COMMIT: _offset_commit,
    ApiKey.OFFSET_FETCH: _offset_fetch,
    ApiKey.FIND_COORDINATOR: _find_coordinator,
    ApiKey.DESCRIBE_GROUPS: _describe_groups,
    ApiKey.CREATE_TOPICS: _create_topics,
    ApiKey.DELETE_TOPICS: _delete_topics,
    ApiKey.DELETE_RECORDS: _delete_records,
    ApiKey.OFFSET_FOR_LEADER_EPOCH: _offset_for_leader_epoch,
    ApiKey.DESCRIBE_CONFIGS: _describe_configs,
    ApiKey.ALTER_CONFIGS: _alter_configs,
    ApiKey.DESCRIBE_LOG_DIRS: _describe_log_dirs,
    ApiKey.CREATE_PARTITIONS: _create_partitions,
    ApiKey.DELETE_GROUPS: _delete_groups,
    ApiKey.ELECT_LEADERS: _elect_leaders,
    ApiKey.INCREMENTAL_ALTER_CONFIGS: _incremental_alter_configs,
    ApiKey.DESCRIBE_PRODUCERS: _describe_producers,
    ApiKey.CONSUMER_GROUP_DESCRIBE: _consumer_group_describe,
    ApiKey.DESCRIBE_TOPIC_PARTITIONS: _describe_topic_partitions,
    ApiKey.DESCRIBE_CLIENT_QUOTAS: _describe_client_quotas,
    ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS: _describe_user_scram_credentials,
    ApiKey.ALTER_CLIENT_QUOTAS: _alter_client_quotas,
    ApiKey.ALTER_USER_SCRAM_CREDENTIALS: _alter_user_scram_credentials,
    ApiKey.WRITE_TXN_MARKERS: _write_txn_markers,
    ApiKey.TXN_OFFSET_COMMIT: _txn_offset_commit,
}
"""Per API, the requests to fail (each encoded at every version the listener offers)."""


KAFKA_LISTENER_ERROR_RESPONSES = {key for key in ERROR_RESPONSES if key in KAFKA_APIS}
"""The APIs whose whole-request error answers are checked: those the Kafka listener offers."""


def _cases() -> list[tuple[str, int, int, int, bytes, bytes]]:
    """(label, api key, version, error code, request body, Kafkette's answer body) for every API of
    ``ERROR_RESPONSES``, version offered, request of ``REQUESTS`` and code of ``CODES``."""
    cases = []
    for key in sorted(KAFKA_LISTENER_ERROR_RESPONSES):
        api = KAFKA_APIS[key]
        for n, request in enumerate(REQUESTS[key]()):
            for version in range(api.min_version, api.max_version + 1):
                flexible = api.flexible(version)
                body = b"".join(request.encode(version, flexible))
                if key == ApiKey.METADATA and version == 0 and not request.topics:
                    continue  # v0 has no null list and an empty one asks for every topic: same answer
                for code in CODES:
                    reply = KafkaReply(0, api, version, api.request.decode(body, version, flexible))
                    answer = reply.error_response(code)
                    assert answer is not None, (api.name, version)
                    ours = b"".join(answer.encode(version, flexible))
                    label = f"{api.name} v{version} request {n} {code.name}"
                    cases.append((label, int(key), version, int(code), body, ours))
    return cases


def _kafkas_answers(cases: list[tuple[str, int, int, int, bytes, bytes]], work: Path) -> list[str]:
    """Kafka's answer line per case (``OK <hex>`` or ``ERR <exception>``); fails the test when Java
    or Maven is missing."""
    inputs = work / "error_requests.txt"
    inputs.write_text(
        "".join(f"{key} {version} {code} {body.hex()}\n" for _, key, version, code, body, _ in cases)
    )
    try:
        libs = kafka_peer.resolve()
        java = kafka_peer.java_binary()
    except kafka_peer.PeerUnavailable as exc:
        pytest.fail(f"the Apache Kafka peer cannot run here: {exc}")
    done = subprocess.run(
        [java, "-Xmx256m", "-cp", f"{libs}/*", str(ORACLE), str(inputs)],
        capture_output=True,
        text=True,
        timeout=ORACLE_TIMEOUT_S,
    )
    assert done.returncode == 0, f"{ORACLE.name} failed ({done.returncode}): {done.stderr.strip()[-2000:]}"
    lines = done.stdout.splitlines()
    assert len(lines) == len(cases), done.stdout[-2000:]
    return lines


def test_every_error_answer_is_kafkas_getErrorResponse(tmp_path: Path) -> None:
    cases = _cases()
    assert {key for _, key, *_ in cases} == KAFKA_LISTENER_ERROR_RESPONSES
    differences = []
    for (label, _, _, _, body, ours), line in zip(cases, _kafkas_answers(cases, tmp_path), strict=True):
        status, _, theirs = line.partition(" ")
        if status != "OK":
            differences.append(f"{label}: Kafka refused the request {body.hex()}: {theirs}")
        elif theirs != ours.hex():
            differences.append(f"{label}: Kafka {theirs} != Kafkette {ours.hex()}")
    assert not differences, "\n".join(differences)
