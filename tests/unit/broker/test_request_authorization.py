"""The authorization table and the cluster-level checks, through ``KafkaApis.handle`` and the real
handlers: every API served has a check, an API without one is refused (fail closed), no authorizer
changes nothing, and the CLUSTER_ACTION / InitProducerId / ACL API checks answer as Kafka's."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest
from acl_fakes import ALICE, acl, authorizer, header
from broker_fakes import with_quota_managers

from kafkette.broker.apis import (
    acl_apis_authorization,
    create_acls,
    delete_acls,
    describe_acls,
    request_authorization,
)
from kafkette.broker.apis.auth_helper import CLUSTER_NAME, authorized_operations
from kafkette.broker.apis.kafka_apis import HANDLERS, KafkaApis
from kafkette.broker.node_to_controller_channel import CONTROLLER_CHANNEL_CLIENT_SUFFIX
from kafkette.common.security.acl import AclOperation, AclPermissionType, PatternType, ResourceType
from kafkette.protocol.api_keys import API_REGISTRY, KAFKA_APIS, ApiKey
from kafkette.protocol.apis.acls import (
    AclCreation,
    CreateAclsRequest,
    DeleteAclsFilter,
    DeleteAclsRequest,
    DescribeAclsRequest,
)
from kafkette.protocol.apis.client_quotas import AlterClientQuotasRequest, DescribeClientQuotasRequest
from kafkette.protocol.apis.describe_log_dirs import DescribeLogDirsRequest
from kafkette.protocol.apis.elect_leaders import ElectLeadersRequest
from kafkette.protocol.apis.producer_ids import InitProducerIdRequest
from kafkette.protocol.apis.update_metadata import UpdateMetadataRequest
from kafkette.protocol.apis.user_scram_credentials import (
    AlterUserScramCredentialsRequest,
    DescribeUserScramCredentialsRequest,
)
from kafkette.protocol.apis.write_txn_markers import WriteTxnMarkersRequest
from kafkette.protocol.errors import Errors, error_class
from kafkette.protocol.kafka_translation import TRANSLATIONS

CLUSTER_AUTHZ = error_class(Errors.CLUSTER_AUTHORIZATION_FAILED)


def test_every_api_the_kafka_listener_serves_has_an_authorization():
    missing = []
    for key in KAFKA_APIS:
        internal = TRANSLATIONS[key].internal if key in TRANSLATIONS else key  # AlterConfigs, DescribeCluster
        if internal not in request_authorization.AUTHORIZATIONS:
            missing.append(ApiKey(key).name)
    assert missing == []


def test_every_api_the_broker_dispatches_has_an_authorization():
    assert sorted(ApiKey(k).name for k in HANDLERS if k not in request_authorization.AUTHORIZATIONS) == []


async def test_an_api_without_an_authorization_is_refused_cluster_authorization_failed(monkeypatch):
    monkeypatch.delitem(request_authorization.AUTHORIZATIONS, ApiKey.DESCRIBE_LOG_DIRS)
    ctx = SimpleNamespace(authorizer=authorizer(super_users=(ALICE,)))
    with pytest.raises(CLUSTER_AUTHZ):
        await KafkaApis(with_quota_managers(ctx)).handle(
            header(ApiKey.DESCRIBE_LOG_DIRS, 4),
            API_REGISTRY[ApiKey.DESCRIBE_LOG_DIRS],
            DescribeLogDirsRequest(),
        )


async def test_without_an_authorizer_no_check_runs(monkeypatch):
    monkeypatch.setattr(request_authorization, "AUTHORIZATIONS", {})  # would refuse everything
    ctx = SimpleNamespace(
        authorizer=None,
        replica_manager=SimpleNamespace(log_manager=SimpleNamespace(logs_by_dir=lambda: {})),
    )
    response = await KafkaApis(with_quota_managers(ctx)).handle(
        header(ApiKey.DESCRIBE_LOG_DIRS, 4), API_REGISTRY[ApiKey.DESCRIBE_LOG_DIRS], DescribeLogDirsRequest()
    )
    assert (response.error_code, response.results) == (0, [])


def _log_dirs_ctx(data):
    return SimpleNamespace(
        authorizer=data, replica_manager=SimpleNamespace(log_manager=SimpleNamespace(logs_by_dir=lambda: {}))
    )


async def test_describe_log_dirs_needs_describe_on_the_cluster():
    spec = API_REGISTRY[ApiKey.DESCRIBE_LOG_DIRS]
    denied = await KafkaApis(with_quota_managers(_log_dirs_ctx(authorizer()))).handle(
        header(ApiKey.DESCRIBE_LOG_DIRS, 4), spec, DescribeLogDirsRequest()
    )
    assert (denied.error_code, denied.results) == (Errors.CLUSTER_AUTHORIZATION_FAILED, [])
    # ALTER implies DESCRIBE
    allowed = await KafkaApis(
        with_quota_managers(
            _log_dirs_ctx(authorizer(acl(AclOperation.ALTER, ResourceType.CLUSTER, CLUSTER_NAME)))
        )
    ).handle(header(ApiKey.DESCRIBE_LOG_DIRS, 4), spec, DescribeLogDirsRequest())
    assert allowed.error_code == Errors.NONE


async def test_an_inter_broker_api_needs_cluster_action_super_users_pass():
    spec = API_REGISTRY[ApiKey.UPDATE_METADATA]
    request = UpdateMetadataRequest(controller_epoch=0)
    stale = SimpleNamespace(controller_epoch=5)  # the handler answers STALE_CONTROLLER_EPOCH once let through
    with pytest.raises(CLUSTER_AUTHZ):
        await KafkaApis(
            with_quota_managers(SimpleNamespace(authorizer=authorizer(), metadata_cache=stale))
        ).handle(header(ApiKey.UPDATE_METADATA, 8), spec, request)
    everyone_read = authorizer(acl(AclOperation.READ, ResourceType.CLUSTER, CLUSTER_NAME, principal="User:*"))
    with pytest.raises(CLUSTER_AUTHZ):  # READ does not give CLUSTER_ACTION
        await KafkaApis(
            with_quota_managers(SimpleNamespace(authorizer=everyone_read, metadata_cache=stale))
        ).handle(header(ApiKey.UPDATE_METADATA, 8), spec, request)
    for data in (
        authorizer(super_users=("User:broker",)),
        authorizer(
            acl(AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER, CLUSTER_NAME, principal="User:broker")
        ),
    ):
        response = await KafkaApis(
            with_quota_managers(SimpleNamespace(authorizer=data, metadata_cache=stale))
        ).handle(header(ApiKey.UPDATE_METADATA, 8, principal="User:broker"), spec, request)
        assert response.error_code == Errors.STALE_CONTROLLER_EPOCH


async def _init_producer_id(data, transactional_id=None):
    ctx = SimpleNamespace(
        authorizer=data,
        producer_id_manager=SimpleNamespace(generate_producer_id=_next_id),
    )
    return await KafkaApis(with_quota_managers(ctx)).handle(
        header(ApiKey.INIT_PRODUCER_ID, 4),
        API_REGISTRY[ApiKey.INIT_PRODUCER_ID],
        InitProducerIdRequest(transactional_id=transactional_id, transaction_timeout_ms=60000),
    )


async def _next_id():
    return 1000


async def test_init_producer_id_idempotent_needs_idempotent_write_or_write_on_some_topic():
    with pytest.raises(CLUSTER_AUTHZ):
        await _init_producer_id(authorizer(acl(AclOperation.READ, ResourceType.TOPIC, "orders")))
    prefixed_write = acl(AclOperation.WRITE, ResourceType.TOPIC, "ord", pattern=PatternType.PREFIXED)
    idempotent = acl(AclOperation.IDEMPOTENT_WRITE, ResourceType.CLUSTER, CLUSTER_NAME)
    for data in (authorizer(prefixed_write), authorizer(idempotent)):
        response = await _init_producer_id(data)  # refused: raises
        assert (response.error_code, response.producer_id) == (Errors.NONE, 1000)
    denied_prefix = acl(
        AclOperation.WRITE,
        ResourceType.TOPIC,
        "o",
        pattern=PatternType.PREFIXED,
        permission=AclPermissionType.DENY,
    )
    with pytest.raises(CLUSTER_AUTHZ):  # the only WRITE is dominated by a PREFIXED DENY
        await _init_producer_id(authorizer(prefixed_write, denied_prefix))


async def test_init_producer_id_transactional_needs_write_on_the_transactional_id():
    with pytest.raises(error_class(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)):
        await _init_producer_id(
            authorizer(acl(AclOperation.IDEMPOTENT_WRITE, ResourceType.CLUSTER, CLUSTER_NAME)), "tx-1"
        )
    # let through: this broker has no transaction coordinator and answers COORDINATOR_NOT_AVAILABLE
    allowed = await _init_producer_id(
        authorizer(acl(AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, "tx-1")), "tx-1"
    )
    assert allowed.error_code == Errors.COORDINATOR_NOT_AVAILABLE


@pytest.mark.parametrize(
    ("check", "needed"),
    [
        (acl_apis_authorization.check_create_acls, AclOperation.ALTER),
        (acl_apis_authorization.check_delete_acls, AclOperation.ALTER),
        (acl_apis_authorization.check_describe_acls, AclOperation.DESCRIBE),
    ],
)
def test_the_acl_apis_need_alter_or_describe_on_the_cluster(check, needed):
    hdr = header(ApiKey.API_VERSIONS, 0)
    with pytest.raises(CLUSTER_AUTHZ):
        check(
            SimpleNamespace(
                authorizer=authorizer(acl(AclOperation.CREATE, ResourceType.CLUSTER, CLUSTER_NAME))
            ),
            hdr,
        )
    check(SimpleNamespace(authorizer=authorizer(acl(needed, ResourceType.CLUSTER, CLUSTER_NAME))), hdr)
    check(SimpleNamespace(authorizer=None), hdr)


async def test_the_acl_apis_refused_answer_the_refusal_message_without_the_error_prefix():
    ctx = SimpleNamespace(authorizer=authorizer())
    described = await describe_acls.handle(ctx, header(ApiKey.DESCRIBE_ACLS, 3), DescribeAclsRequest())
    assert (described.error_code, described.error_message) == (
        Errors.CLUSTER_AUTHORIZATION_FAILED,
        "Request needs DESCRIBE permission.",
    )
    creation = AclCreation(
        resource_type=2, resource_name="t", principal="User:bob", host="*", operation=3, permission_type=3
    )
    created = await create_acls.handle(
        ctx, header(ApiKey.CREATE_ACLS, 3), CreateAclsRequest(creations=[creation])
    )
    assert [r.error_message for r in created.results] == ["Request needs ALTER permission."]
    deleted = await delete_acls.handle(
        ctx, header(ApiKey.DELETE_ACLS, 3), DeleteAclsRequest(filters=[DeleteAclsFilter()])
    )
    assert [r.error_message for r in deleted.filter_results] == ["Request needs ALTER permission."]


def test_authorized_operations_are_kafkas_bit_fields():
    hdr = header(ApiKey.METADATA, 12)
    assert authorized_operations(SimpleNamespace(authorizer=None), hdr, ResourceType.TOPIC, "t") == 3576
    assert (
        authorized_operations(SimpleNamespace(authorizer=None), hdr, ResourceType.CLUSTER, CLUSTER_NAME)
        == 8096
    )
    assert authorized_operations(SimpleNamespace(authorizer=None), hdr, ResourceType.GROUP, "g") == 3400
    read = SimpleNamespace(authorizer=authorizer(acl(AclOperation.READ, ResourceType.TOPIC, "t")))
    assert authorized_operations(read, hdr, ResourceType.TOPIC, "t") == (1 << 3) | (
        1 << 8
    )  # READ implies DESCRIBE
    assert authorized_operations(read, hdr, ResourceType.TOPIC, "u") == 0
    superuser = SimpleNamespace(authorizer=authorizer(super_users=(ALICE,)))
    assert authorized_operations(superuser, hdr, ResourceType.TOPIC, "u") == 3576


async def test_a_forwarded_request_needs_cluster_action_from_the_forwarding_broker():
    spec = API_REGISTRY[ApiKey.DESCRIBE_LOG_DIRS]
    forwarded = dataclasses.replace(
        header(ApiKey.DESCRIBE_LOG_DIRS, 4), client_id=f"broker-2{CONTROLLER_CHANNEL_CLIENT_SUFFIX}"
    )
    describe = acl(AclOperation.DESCRIBE, ResourceType.CLUSTER, CLUSTER_NAME)
    with pytest.raises(CLUSTER_AUTHZ):  # what the client may do is no longer asked: the sender's right is
        await KafkaApis(with_quota_managers(_log_dirs_ctx(authorizer(describe)))).handle(
            forwarded, spec, DescribeLogDirsRequest()
        )
    cluster_action = acl(AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER, CLUSTER_NAME)
    response = await KafkaApis(with_quota_managers(_log_dirs_ctx(authorizer(cluster_action)))).handle(
        forwarded, spec, DescribeLogDirsRequest()
    )
    assert response.error_code == Errors.NONE


@pytest.mark.parametrize(
    ("key", "version", "request_", "needed"),
    [
        (
            ApiKey.ELECT_LEADERS,
            2,
            ElectLeadersRequest(election_type=0, topic_partitions=None),
            AclOperation.ALTER,
        ),
        (
            ApiKey.DESCRIBE_CLIENT_QUOTAS,
            1,
            DescribeClientQuotasRequest(components=[]),
            AclOperation.DESCRIBE_CONFIGS,
        ),
        (ApiKey.ALTER_CLIENT_QUOTAS, 1, AlterClientQuotasRequest(entries=[]), AclOperation.ALTER_CONFIGS),
        (
            ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS,
            0,
            DescribeUserScramCredentialsRequest(users=[]),
            AclOperation.DESCRIBE,
        ),
        (ApiKey.ALTER_USER_SCRAM_CREDENTIALS, 0, AlterUserScramCredentialsRequest(), AclOperation.ALTER),
    ],
)
async def test_cluster_apis_refuse_the_whole_request_without_their_cluster_operation(
    key, version, request_, needed
):
    others = [
        op
        for op in (AclOperation.CREATE, AclOperation.CLUSTER_ACTION, AclOperation.IDEMPOTENT_WRITE)
        if op != needed
    ]
    ctx = SimpleNamespace(
        authorizer=authorizer(*(acl(op, ResourceType.CLUSTER, CLUSTER_NAME) for op in others))
    )
    with pytest.raises(CLUSTER_AUTHZ):
        await KafkaApis(with_quota_managers(ctx)).handle(header(key, version), API_REGISTRY[key], request_)
    check = request_authorization.AUTHORIZATIONS[key]
    ctx = SimpleNamespace(authorizer=authorizer(acl(needed, ResourceType.CLUSTER, CLUSTER_NAME)))
    reached: list = []

    async def handler(ctx, header, request):
        reached.append(request)
        return "answered"

    assert await check(ctx, header(key, version), request_, handler) == "answered"


async def test_write_txn_markers_needs_alter_or_cluster_action_on_the_cluster():
    spec = API_REGISTRY[ApiKey.WRITE_TXN_MARKERS]
    request = WriteTxnMarkersRequest(markers=[])

    async def write_markers(data):
        ctx = SimpleNamespace(
            authorizer=data, replica_manager=SimpleNamespace(time=SimpleNamespace(milliseconds=int))
        )
        return await KafkaApis(with_quota_managers(ctx)).handle(
            header(ApiKey.WRITE_TXN_MARKERS, 2, principal="User:coordinator"), spec, request
        )

    with pytest.raises(CLUSTER_AUTHZ):  # WRITE on the cluster is neither
        await write_markers(
            authorizer(
                acl(AclOperation.WRITE, ResourceType.CLUSTER, CLUSTER_NAME, principal="User:coordinator")
            )
        )
    for operation in (AclOperation.ALTER, AclOperation.CLUSTER_ACTION):
        granted = authorizer(acl(operation, ResourceType.CLUSTER, CLUSTER_NAME, principal="User:coordinator"))
        assert (await write_markers(granted)).markers == []
