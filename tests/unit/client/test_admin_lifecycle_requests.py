"""AdminClient requests of the topic lifecycle, against a fake KafkaClient (no sockets).

NewPartitions and ConfigResource shapes, the NOT_CONTROLLER retry, per-topic and
per-resource errors, and routing of broker configs to the broker they name.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from kafkette.client import (
    AdminClient,
    AlterConfigOp,
    AlterConfigOpType,
    ConfigResource,
    ConfigResourceType,
    ConfigSource,
    InvalidConfigError,
    InvalidPartitionsError,
    KafkaTimeoutError,
    NewPartitions,
    TopicDeletionDisabledError,
    TopicPartition,
)
from kafkette.client.config_resource import normalize_alter_ops
from kafkette.protocol.apis.configs import (
    AlterConfigsResourceResponse,
    DescribeConfigsResourceResult,
    DescribeConfigsResponse,
    DescribeConfigsResult,
    IncrementalAlterConfigsRequest,
    IncrementalAlterConfigsResponse,
)
from kafkette.protocol.apis.create_partitions import CreatePartitionsResponse, CreatePartitionsTopicResult
from kafkette.protocol.apis.delete_topics import DeletableTopicResult, DeleteTopicsResponse
from kafkette.protocol.apis.elect_leaders import (
    ELECTION_UNCLEAN,
    ElectLeadersPartitionResult,
    ElectLeadersReplicaElectionResult,
    ElectLeadersResponse,
)
from kafkette.protocol.errors import Errors


class FakeClient:
    """Stands in for KafkaClient: answers controller requests from a script."""

    def __init__(self, *controller_answers, broker_answers=None):
        self.controller_answers = list(controller_answers)
        self.broker_answers = dict(broker_answers or {})
        self.sent: list = []
        self.sent_to_broker: list = []
        self.refreshes = 0
        self.cluster = SimpleNamespace(
            controller_id=1, broker=lambda node_id: object() if node_id in (1, 2) else None
        )

    async def send_to_controller(self, request, timeout_ms=None):
        self.sent.append(request)
        answer = self.controller_answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return answer

    async def send(self, node_id, request, timeout_ms=None, expect_response=True):
        self.sent_to_broker.append((node_id, request))
        return self.broker_answers[node_id]

    async def refresh_metadata(self):
        self.refreshes += 1

    def request_metadata_update(self):
        pass


def admin_with(client: FakeClient, request_timeout_ms: int = 30000) -> AdminClient:
    admin = AdminClient(
        bootstrap_servers="127.0.0.1:1", retry_backoff_ms=0, request_timeout_ms=request_timeout_ms
    )
    admin._client = client  # type: ignore[assignment]
    return admin


def partitions_answer(code: int, message: str | None = None) -> CreatePartitionsResponse:
    return CreatePartitionsResponse(
        results=[CreatePartitionsTopicResult(name="t", error_code=code, error_message=message)]
    )


def test_new_partitions_becomes_a_create_partitions_entry():
    entry = NewPartitions(4, [[1, 2], [2, 3]]).to_request_topic("t")
    assert (entry.name, entry.count) == ("t", 4)
    assert [a.broker_ids for a in entry.assignments] == [[1, 2], [2, 3]]
    assert NewPartitions(3).to_request_topic("t").assignments is None


@pytest.mark.parametrize(
    "bad",
    [
        NewPartitions(0),
        NewPartitions("3"),
        NewPartitions(3, [[]]),  # type: ignore[arg-type]
        NewPartitions(3, "1:2"),
        NewPartitions(3, [["1"]]),
        NewPartitions(3, []),
    ],
)  # type: ignore[arg-type]
def test_malformed_new_partitions_are_refused(bad):
    with pytest.raises((TypeError, ValueError)):
        bad.to_request_topic("t")


async def test_create_partitions_retries_after_not_controller():
    client = FakeClient(partitions_answer(Errors.NOT_CONTROLLER), partitions_answer(Errors.NONE))
    await admin_with(client).create_partitions({"t": NewPartitions(3)}, timeout_ms=1000)
    assert len(client.sent) == 2 and client.refreshes == 1
    assert client.sent[1].topics[0].count == 3 and client.sent[1].timeout_ms == 1000


async def test_create_partitions_raises_the_topic_error_with_the_server_message():
    client = FakeClient(partitions_answer(Errors.INVALID_PARTITIONS, "Topic currently has 3 partitions"))
    with pytest.raises(InvalidPartitionsError, match="currently has 3 partitions"):
        await admin_with(client).create_partitions({"t": NewPartitions(2)})


async def test_a_controller_that_never_answers_ends_in_a_timeout():
    client = FakeClient(*[partitions_answer(Errors.NOT_CONTROLLER)] * 10000)
    with pytest.raises(KafkaTimeoutError, match="CreatePartitions"):
        await admin_with(client, request_timeout_ms=1).create_partitions(
            {"t": NewPartitions(2)}, timeout_ms=0
        )


async def test_delete_topics_raises_topic_deletion_disabled():
    answer = DeleteTopicsResponse(
        responses=[
            DeletableTopicResult(name="a", error_code=Errors.NONE),
            DeletableTopicResult(name="b", error_code=Errors.TOPIC_DELETION_DISABLED, error_message=None),
        ]
    )
    client = FakeClient(answer)
    with pytest.raises(TopicDeletionDisabledError, match="'b'"):
        await admin_with(client).delete_topics(["a", "b"])
    assert client.sent[0].topic_names == ["a", "b"]


async def test_delete_topics_refuses_a_single_string():
    with pytest.raises(TypeError):
        await admin_with(FakeClient()).delete_topics("topic")


async def test_elect_leaders_returns_per_partition_results():
    answer = ElectLeadersResponse(
        error_code=0,
        replica_election_results=[
            ElectLeadersReplicaElectionResult(
                topic="t",
                partition_result=[
                    ElectLeadersPartitionResult(partition_id=1, error_code=Errors.ELECTION_NOT_NEEDED),
                    ElectLeadersPartitionResult(partition_id=0, error_code=Errors.NONE),
                ],
            ),
        ],
    )
    client = FakeClient(answer)
    results = await admin_with(client).elect_leaders(
        [TopicPartition("t", 0), TopicPartition("t", 1)], election_type="unclean"
    )
    assert list(results) == [TopicPartition("t", 0), TopicPartition("t", 1)]
    assert results[TopicPartition("t", 0)] is None
    assert results[TopicPartition("t", 1)].errno == Errors.ELECTION_NOT_NEEDED
    request = client.sent[0]
    assert request.election_type == ELECTION_UNCLEAN
    assert [(t.topic, t.partitions) for t in request.topic_partitions] == [("t", [0, 1])]


async def test_elect_leaders_for_all_topics_sends_null_partitions():
    client = FakeClient(ElectLeadersResponse(error_code=0, replica_election_results=[]))
    assert await admin_with(client).elect_leaders() == {}
    assert client.sent[0].topic_partitions is None


async def test_elect_leaders_refuses_an_unknown_election_type():
    with pytest.raises(ValueError, match="preferred"):
        await admin_with(FakeClient()).elect_leaders(election_type="random")


def test_config_resource_accepts_kafka_names_and_is_hashable():
    assert ConfigResource("topics", "t") == ConfigResource(ConfigResourceType.TOPIC, "t")
    assert ConfigResource("BROKER", 2).name == "2"
    assert ConfigResource(4, "1").resource_type is ConfigResourceType.BROKER
    assert len({ConfigResource("topic", "t"), ConfigResource(2, "t")}) == 1
    assert ConfigResource("groups", "g") == ConfigResource(32, "g")
    with pytest.raises(ValueError):
        ConfigResource("user", "u")
    with pytest.raises(ValueError):
        ConfigResource("broker", "one")


def test_alter_shapes_become_incremental_operations():
    assert normalize_alter_ops({"retention.ms": 1000, "cleanup.policy": None}) == [
        AlterConfigOp("retention.ms", "1000", AlterConfigOpType.SET),
        AlterConfigOp("cleanup.policy", None, AlterConfigOpType.DELETE),
    ]
    assert (
        normalize_alter_ops([("a", "set", 1), ("b", "delete", None)])[1].op_type is AlterConfigOpType.DELETE
    )
    for bad in (
        {},
        [("a", "set", 1), ("a", "delete", None)],
        [("a", "set", None)],
        [("a", "replace", 1)],
        "a=1",
    ):
        with pytest.raises((TypeError, ValueError)):
            normalize_alter_ops(bad)


async def test_describe_configs_sends_topics_to_the_controller_and_brokers_to_themselves():
    topic = ConfigResource("topic", "t")
    broker = ConfigResource("broker", 2)
    topic_answer = DescribeConfigsResponse(
        results=[
            DescribeConfigsResult(
                error_code=0,
                resource_type=2,
                resource_name="t",
                configs=[
                    DescribeConfigsResourceResult(name="min.insync.replicas", value="2", config_source=1),
                    DescribeConfigsResourceResult(name="cleanup.policy", value="delete", config_source=5),
                ],
            )
        ]
    )
    broker_answer = DescribeConfigsResponse(
        results=[
            DescribeConfigsResult(
                error_code=0,
                resource_type=4,
                resource_name="2",
                configs=[
                    DescribeConfigsResourceResult(
                        name="broker.rack", value="r2", read_only=True, config_source=4
                    )
                ],
            )
        ]
    )
    client = FakeClient(topic_answer, broker_answers={2: broker_answer})
    described = await admin_with(client).describe_configs([topic, broker])
    assert list(described) == [topic, broker]
    assert list(described[topic]) == ["cleanup.policy", "min.insync.replicas"]
    assert described[topic]["min.insync.replicas"].source is ConfigSource.DYNAMIC_TOPIC_CONFIG
    assert described[topic]["cleanup.policy"].is_default
    assert described[broker]["broker.rack"].read_only
    assert [r.resource_name for r in client.sent[0].resources] == ["t"]
    assert client.sent_to_broker[0][0] == 2


async def test_alter_configs_raises_invalid_config_naming_the_key():
    answer = IncrementalAlterConfigsResponse(
        responses=[
            AlterConfigsResourceResponse(
                error_code=Errors.INVALID_CONFIG,
                error_message="Invalid value -5 for configuration retention.ms",
                resource_type=2,
                resource_name="t",
            )
        ]
    )
    client = FakeClient(answer)
    with pytest.raises(InvalidConfigError, match="retention.ms"):
        await admin_with(client).alter_configs({ConfigResource("topic", "t"): {"retention.ms": -5}})
    sent = client.sent[0].resources[0]
    assert [(c.name, c.config_operation, c.value) for c in sent.configs] == [("retention.ms", 0, "-5")]


async def test_broker_config_alter_goes_to_the_controller_when_the_broker_is_not_it():
    not_controller = IncrementalAlterConfigsResponse(
        responses=[
            AlterConfigsResourceResponse(error_code=Errors.NOT_CONTROLLER, resource_type=4, resource_name="2")
        ]
    )
    done = IncrementalAlterConfigsResponse(
        responses=[AlterConfigsResourceResponse(error_code=0, resource_type=4, resource_name="2")]
    )
    client = FakeClient(done, broker_answers={2: not_controller})
    await admin_with(client).alter_configs({ConfigResource("broker", 2): [("log.retention.ms", "set", 5000)]})
    assert isinstance(client.sent[0], IncrementalAlterConfigsRequest)
    assert client.sent_to_broker[0][0] == 2
