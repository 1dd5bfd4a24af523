"""Authorization of the admin APIs on the authorization suite's clusters (Kafka's StandardAuthorizer):
``alice`` creating, deleting and growing topics (CREATE, DELETE, ALTER on the topic or CREATE on
the cluster), describing and altering configs (DESCRIBE_CONFIGS, ALTER_CONFIGS on the topic or the
cluster), deleting records, InitProducerId for an idempotent producer (IDEMPOTENT_WRITE on the
cluster or WRITE on any topic), DescribeCluster with its authorized operations (KIP-430), the ACL
APIs themselves, DescribeClientQuotas, DescribeUserScramCredentials, ElectLeaders and
DescribeLogDirs: each without an ACL and with the one Kafka asks for.
"""

from __future__ import annotations

from typing import Any

from kafkette.protocol.apis.acls import (
    AclCreation,
    CreateAclsRequest,
    DeleteAclsFilter,
    DeleteAclsRequest,
    DescribeAclsRequest,
)
from kafkette.protocol.apis.client_quotas import (
    AlterClientQuotasEntry,
    AlterClientQuotasRequest,
    ClientQuotaEntityData,
    ClientQuotaOpData,
    DescribeClientQuotasRequest,
)
from kafkette.protocol.apis.describe_log_dirs import DescribableLogDirTopic, DescribeLogDirsRequest
from kafkette.protocol.apis.elect_leaders import ElectLeadersRequest, ElectLeadersTopicPartitions
from kafkette.protocol.apis.producer_ids import InitProducerIdRequest
from kafkette.protocol.apis.user_scram_credentials import (
    AlterUserScramCredentialsRequest,
    DescribeUserScramCredentialsRequest,
    ScramCredentialDeletion,
    ScramUserName,
)
from kafkette.protocol.kafka_messages.cluster import DescribeClusterRequest
from tests.conformance.catalogue import AUTHORIZATION, scenario
from tests.conformance.scenarios.authorization import (
    ALL,
    ALLOW,
    ALTER,
    ALTER_CONFIGS,
    ANY,
    CLUSTER,
    CLUSTER_NAME,
    CREATE,
    DELETE,
    DESCRIBE,
    DESCRIBE_CONFIGS,
    IDEMPOTENT_WRITE,
    LITERAL,
    PREFIXED,
    TOPIC,
    WRITE,
    admin_topic,
    granted,
    principal_acls,
    refusal,
    revoke,
    without_and_with,
)
from tests.conformance.scenarios.configs import BROKER, SET, alter, describe, legacy_alter
from tests.conformance.scenarios.configs import TOPIC as CONFIG_TOPIC
from tests.conformance.scenarios.produce import delete_records, init_producer_id
from tests.conformance.scenarios.topics import create, create_partitions, delete
from tests.conformance.target import Target, code_name


@scenario("authz/admin/create-delete-grow-topics", suite=AUTHORIZATION)
def _topics(t: Target) -> Any:
    """CreateTopics needs CREATE on the topic or the cluster, DeleteTopics DELETE (DESCRIBE alone
    is not enough), CreatePartitions ALTER; each refused TOPIC_AUTHORIZATION_FAILED otherwise."""
    grown, doomed = admin_topic(t, "az-adm-grow"), admin_topic(t, "az-adm-doomed")
    out = {}
    with granted(
        t, (TOPIC, doomed, LITERAL, DESCRIBE, ALLOW), (TOPIC, grown, LITERAL, DESCRIBE, ALLOW)
    ) as alice:
        out["none"] = {
            "create": create(alice, "az-adm-new-a")["error"],
            "delete": delete(alice, doomed, "az-adm-unknown"),
            "grow": create_partitions(alice, grown, 2),
        }
    with granted(
        t,
        (TOPIC, "az-adm-new-", PREFIXED, CREATE, ALLOW),
        (TOPIC, doomed, LITERAL, DELETE, ALLOW),
        (TOPIC, grown, LITERAL, ALTER, ALLOW),
    ) as alice:
        out["granted"] = {
            "create": create(alice, "az-adm-new-b")["error"],
            "delete": delete(alice, doomed),
            "grow": create_partitions(alice, grown, 2),
        }
        t.wait_topic("az-adm-new-b")
    with granted(t, (CLUSTER, CLUSTER_NAME, LITERAL, CREATE, ALLOW)) as alice:
        out["cluster_create"] = create(alice, "az-adm-other")["error"]
        t.wait_topic("az-adm-other")
    return out


@scenario("authz/admin/configs", suite=AUTHORIZATION)
def _configs(t: Target) -> Any:
    """DescribeConfigs needs DESCRIBE_CONFIGS, IncrementalAlterConfigs and AlterConfigs ALTER_CONFIGS,
    on the topic (TOPIC_AUTHORIZATION_FAILED) or, for a broker, on the cluster
    (CLUSTER_AUTHORIZATION_FAILED)."""
    topic = admin_topic(t, "az-adm-cfg")
    node = str(min(t.addresses))
    keys = ["retention.ms"]

    def attempt(alice: Target) -> dict[str, Any]:
        return {
            "describe_topic": describe(alice, CONFIG_TOPIC, topic, keys),
            "describe_broker": describe(alice, BROKER, node, ["log.retention.ms"]).get("error", "NONE"),
            "alter_topic": alter(alice, CONFIG_TOPIC, topic, [("retention.ms", SET, "3600000")]),
            "alter_broker": alter(
                alice, BROKER, node, [("log.cleaner.threads", SET, "1")], validate_only=True
            ),
            "legacy_alter_topic": legacy_alter(alice, CONFIG_TOPIC, topic, {"retention.ms": "7200000"})[0],
        }

    return without_and_with(
        t,
        attempt,
        (TOPIC, topic, LITERAL, DESCRIBE_CONFIGS, ALLOW),
        (TOPIC, topic, LITERAL, ALTER_CONFIGS, ALLOW),
        (CLUSTER, CLUSTER_NAME, LITERAL, DESCRIBE_CONFIGS, ALLOW),
        (CLUSTER, CLUSTER_NAME, LITERAL, ALTER_CONFIGS, ALLOW),
    )


@scenario("authz/admin/delete-records", suite=AUTHORIZATION)
def _delete_records(t: Target) -> Any:
    """DeleteRecords needs DELETE on the topic: TOPIC_AUTHORIZATION_FAILED without it."""
    topic = admin_topic(t, "az-adm-delrec")
    out = {}
    with granted(t) as alice:
        out["none"] = delete_records(alice, topic, 0, node=min(t.addresses))
    with granted(t, (TOPIC, topic, LITERAL, DELETE, ALLOW)) as alice:
        out["delete"] = delete_records(alice, topic, 0, node=min(t.addresses))
    return out


def _init_producer_id(t: Target) -> str:
    answer = t.call(
        "InitProducerId",
        4,
        InitProducerIdRequest(
            transactional_id=None, transaction_timeout_ms=60000, producer_id=-1, producer_epoch=-1
        ),
    )
    return code_name(answer.error_code)


@scenario("authz/admin/init-producer-id-idempotent", suite=AUTHORIZATION)
def _init_producer(t: Target) -> Any:
    """InitProducerId without a transactional id: CLUSTER_AUTHORIZATION_FAILED without ACLs; allowed
    with IDEMPOTENT_WRITE on the cluster, or with WRITE on any topic (KIP-679)."""
    admin_topic(t, "az-adm-pid")
    init_producer_id(t)  # the admin's first, once the producer id manager serves
    out = {}
    with granted(t) as alice:
        out["none"] = _init_producer_id(alice)
    with granted(t, (CLUSTER, CLUSTER_NAME, LITERAL, IDEMPOTENT_WRITE, ALLOW)) as alice:
        out["idempotent_write"] = _init_producer_id(alice)
    with granted(t, (TOPIC, "az-adm-pid", LITERAL, WRITE, ALLOW)) as alice:
        out["topic_write"] = _init_producer_id(alice)
    return out


def _describe_cluster(t: Target) -> list[Any]:
    answer = t.call("DescribeCluster", 1, DescribeClusterRequest(include_cluster_authorized_operations=True))
    return [code_name(answer.error_code), answer.cluster_authorized_operations]


@scenario("authz/admin/describe-cluster", suite=AUTHORIZATION)
def _cluster(t: Target) -> Any:
    """DescribeCluster with its authorized operations (KIP-430): the admin's, alice's without ACLs,
    with DESCRIBE on the cluster and with ALL on it."""
    out = {"admin": _describe_cluster(t)}
    with granted(t) as alice:
        out["none"] = _describe_cluster(alice)
    with granted(t, (CLUSTER, CLUSTER_NAME, LITERAL, DESCRIBE, ALLOW)) as alice:
        out["describe"] = _describe_cluster(alice)
    with granted(t, (CLUSTER, CLUSTER_NAME, LITERAL, ALL, ALLOW)) as alice:
        out["all"] = _describe_cluster(alice)
    return out


@scenario("authz/admin/acl-apis", suite=AUTHORIZATION)
def _acl_apis(t: Target) -> Any:
    """DescribeAcls needs DESCRIBE on the cluster, CreateAcls and DeleteAcls ALTER on it:
    CLUSTER_AUTHORIZATION_FAILED without."""

    def attempt(alice: Target) -> dict[str, Any]:
        described = alice.call(
            "DescribeAcls",
            3,
            DescribeAclsRequest(
                resource_type_filter=TOPIC,
                resource_name_filter="az-acl-bob",
                pattern_type_filter=ANY,
                principal_filter=None,
                host_filter=None,
                operation=ANY,
                permission_type=ANY,
            ),
        )
        created = alice.call(
            "CreateAcls",
            3,
            CreateAclsRequest(
                creations=[
                    AclCreation(
                        resource_type=TOPIC,
                        resource_name="az-acl-bob",
                        resource_pattern_type=LITERAL,
                        principal="User:bob",
                        host="*",
                        operation=3,
                        permission_type=ALLOW,
                    )
                ]
            ),
        )
        deleted = alice.call(
            "DeleteAcls",
            3,
            DeleteAclsRequest(
                filters=[
                    DeleteAclsFilter(
                        resource_type_filter=TOPIC,
                        resource_name_filter="az-acl-nothing",
                        pattern_type_filter=LITERAL,
                        principal_filter="User:bob",
                        host_filter=None,
                        operation=ANY,
                        permission_type=ANY,
                    )
                ]
            ),
        )
        return {
            "describe": [code_name(described.error_code), len(described.resources)],
            "create": [code_name(r.error_code) for r in created.results],
            "delete": [[code_name(r.error_code), len(r.matching_acls)] for r in deleted.filter_results],
        }

    out = {}
    with granted(t) as alice:
        out["none"] = attempt(alice)
    with granted(t, (CLUSTER, CLUSTER_NAME, LITERAL, DESCRIBE, ALLOW)) as alice:
        out["describe"] = attempt(alice)
    with granted(t, (CLUSTER, CLUSTER_NAME, LITERAL, ALTER, ALLOW)) as alice:
        out["alter"] = attempt(alice)
    out["bob_after"] = sorted(principal_acls(t, "User:bob"))
    revoke(t, "User:bob")
    return out


def _cluster_reads(t: Target) -> dict[str, Any]:
    """DescribeClientQuotas, DescribeUserScramCredentials, ElectLeaders and DescribeLogDirs as ``t``."""
    quotas = t.call("DescribeClientQuotas", 1, DescribeClientQuotasRequest(components=[], strict=False))
    scram = t.call(
        "DescribeUserScramCredentials",
        0,
        DescribeUserScramCredentialsRequest(users=[ScramUserName(name="alice")]),
    )
    elect = t.call(
        "ElectLeaders",
        2,
        ElectLeadersRequest(
            election_type=0,
            topic_partitions=[ElectLeadersTopicPartitions(topic="az-adm-cluster", partitions=[0])],
            timeout_ms=10000,
        ),
    )
    log_dirs = t.call(
        "DescribeLogDirs",
        4,
        DescribeLogDirsRequest(topics=[DescribableLogDirTopic(topic="az-adm-cluster", partitions=[0])]),
    )
    return {
        "client_quotas": [code_name(quotas.error_code), quotas.error_message],
        "scram": [
            code_name(scram.error_code),
            scram.error_message,
            [[r.user, code_name(r.error_code), r.error_message] for r in scram.results],
        ],
        "elect": [
            code_name(elect.error_code),
            [
                [r.topic, [[p.partition_id, code_name(p.error_code)] for p in r.partition_result]]
                for r in elect.replica_election_results
            ],
        ],
        "log_dirs": [
            code_name(log_dirs.error_code),
            [[code_name(r.error_code), [x.name for x in r.topics]] for r in log_dirs.results],
        ],
    }


@scenario("authz/admin/cluster-apis", suite=AUTHORIZATION)
def _cluster_apis(t: Target) -> Any:
    """DescribeClientQuotas (DESCRIBE_CONFIGS on the cluster), DescribeUserScramCredentials
    (DESCRIBE), ElectLeaders (ALTER) and DescribeLogDirs (DESCRIBE): CLUSTER_AUTHORIZATION_FAILED
    without, their answers with."""
    admin_topic(t, "az-adm-cluster")
    return without_and_with(
        t,
        _cluster_reads,
        (CLUSTER, CLUSTER_NAME, LITERAL, DESCRIBE, ALLOW),
        (CLUSTER, CLUSTER_NAME, LITERAL, DESCRIBE_CONFIGS, ALLOW),
        (CLUSTER, CLUSTER_NAME, LITERAL, ALTER, ALLOW),
    )


def _cluster_alters(t: Target) -> dict[str, Any]:
    """AlterClientQuotas (validate only) and AlterUserScramCredentials (deleting a credential no
    user has) as ``t``; each entry's error and message."""
    quotas = t.call(
        "AlterClientQuotas",
        1,
        AlterClientQuotasRequest(
            entries=[
                AlterClientQuotasEntry(
                    entity=[ClientQuotaEntityData(entity_type="user", entity_name="bob")],
                    ops=[ClientQuotaOpData(key="producer_byte_rate", value=1024.0, remove=False)],
                )
            ],
            validate_only=True,
        ),
    )
    scram = t.call(
        "AlterUserScramCredentials",
        0,
        AlterUserScramCredentialsRequest(
            deletions=[ScramCredentialDeletion(name="az-nobody", mechanism=1)], upsertions=[]
        ),
    )
    return {
        "client_quotas": [[code_name(e.error_code), e.error_message] for e in quotas.entries],
        "scram": [[r.user, code_name(r.error_code), refusal(r.error_message)] for r in scram.results],
    }


@scenario("authz/admin/cluster-alter-apis", suite=AUTHORIZATION)
def _cluster_alter_apis(t: Target) -> Any:
    """AlterClientQuotas needs ALTER_CONFIGS on the cluster, AlterUserScramCredentials ALTER:
    CLUSTER_AUTHORIZATION_FAILED per entry without, their answers with."""
    return without_and_with(
        t,
        _cluster_alters,
        (CLUSTER, CLUSTER_NAME, LITERAL, ALTER_CONFIGS, ALLOW),
        (CLUSTER, CLUSTER_NAME, LITERAL, ALTER, ALLOW),
    )
