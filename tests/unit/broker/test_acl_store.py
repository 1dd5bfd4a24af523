"""A broker's ACLs (KIP-140, KIP-801): the ``AclStore`` filled by UpdateMetadata's ``acls`` and
``deleted_acl_ids`` (a full update replaces them all), DescribeAcls answered from it (filters,
grouping by resource pattern), the StandardAuthorizer decision reading it, and the three ACL
handlers without an authorizer answering SECURITY_DISABLED with Kafka's messages."""

from __future__ import annotations

from types import SimpleNamespace

from kafkette.broker.acl_store import AclStore
from kafkette.broker.apis import create_acls, delete_acls, describe_acls
from kafkette.broker.apis import update_metadata as update_metadata_api
from kafkette.broker.client_quota_cache import ClientQuotaCache
from kafkette.broker.client_quota_manager import ClientQuotaManager
from kafkette.broker.client_request_quota_manager import ClientRequestQuotaManager
from kafkette.broker.controller_mutation_quota_manager import ControllerMutationQuotaManager
from kafkette.broker.metadata_cache import MetadataCache
from kafkette.broker.scram_credential_cache import ScramCredentialCache
from kafkette.common.security.acl import (
    AclOperation,
    AclPermissionType,
    KafkaPrincipal,
    PatternType,
    ResourceType,
)
from kafkette.common.security.standard_authorizer import AuthorizationResult, StandardAuthorizerConfig
from kafkette.protocol.apis.acls import (
    AclCreation,
    CreateAclsRequest,
    DeleteAclsFilter,
    DeleteAclsRequest,
    DescribeAclsRequest,
)
from kafkette.protocol.apis.update_metadata import UpdateMetadataAcl, UpdateMetadataRequest
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

ALICE = KafkaPrincipal("User", "alice")
HEADER = RequestHeader(api_key=29, api_version=3, correlation_id=1, client_id="test")


def acl(
    acl_id,
    name="orders",
    pattern=PatternType.LITERAL,
    principal="User:alice",
    operation=AclOperation.READ,
    permission=AclPermissionType.ALLOW,
    resource_type=ResourceType.TOPIC,
    host="*",
):
    return UpdateMetadataAcl(
        id=acl_id,
        resource_type=int(resource_type),
        resource_name=name,
        pattern_type=int(pattern),
        principal=principal,
        host=host,
        operation=int(operation),
        permission_type=int(permission),
    )


def describe_request(name=None, resource_type=ResourceType.ANY, pattern=PatternType.ANY, principal=None):
    return DescribeAclsRequest(
        resource_type_filter=int(resource_type),
        resource_name_filter=name,
        pattern_type_filter=int(pattern),
        principal_filter=principal,
        host_filter=None,
        operation=int(AclOperation.ANY),
        permission_type=int(AclPermissionType.ANY),
    )


def described(store, request=None):
    response = store.describe(request or describe_request())
    assert (response.error_code, response.error_message) == (Errors.NONE, "")
    return [
        (r.resource_type, r.resource_name, r.pattern_type, [(a.principal, a.operation) for a in r.acls])
        for r in response.resources
    ]


def test_updates_add_and_delete_acls_by_id_and_a_full_one_replaces_them_all():
    store = AclStore(StandardAuthorizerConfig())
    store.update(
        [
            acl("a"),
            acl("b", operation=AclOperation.WRITE),
            acl("c", name="pay-", pattern=PatternType.PREFIXED),
        ],
        [],
        full=False,
    )
    store.update([], ["b", "never-held"], full=False)
    assert described(store) == [(2, "orders", 3, [("User:alice", 3)]), (2, "pay-", 4, [("User:alice", 3)])]
    store.update([acl("a")], [], full=False)  # the same update twice leaves one ACL
    assert len(store) == 2
    store.update([acl("d", name="billing", resource_type=ResourceType.GROUP)], [], full=True)
    assert described(store) == [(3, "billing", 3, [("User:alice", 3)])]


def test_describe_groups_entries_by_pattern_and_applies_the_filter():
    store = AclStore(StandardAuthorizerConfig())
    store.update(
        [
            acl("1", principal="User:bob"),
            acl("2"),
            acl("3", name="*"),
            acl("4", name="pay", pattern=PatternType.PREFIXED),
            acl("5", name="payroll"),
        ],
        [],
        full=False,
    )
    assert described(store)[0] == (2, "*", 3, [("User:alice", 3)])
    assert described(store)[1] == (2, "orders", 3, [("User:alice", 3), ("User:bob", 3)])
    match = describe_request("payments", ResourceType.TOPIC, PatternType.MATCH)
    assert [(name, pattern) for _, name, pattern, _ in described(store, match)] == [("*", 3), ("pay", 4)]
    bob = describe_request(principal="User:bob")
    assert described(store, bob) == [(2, "orders", 3, [("User:bob", 3)])]
    literal = describe_request("orders", ResourceType.TOPIC, PatternType.LITERAL)
    assert [name for _, name, _, _ in described(store, literal)] == ["orders"]


def test_authorize_reads_the_acls_the_controller_sent():
    store = AclStore(StandardAuthorizerConfig(super_users=frozenset({"User:admin"})))
    decide = lambda principal, name: store.authorize(  # noqa: E731
        principal, "10.0.0.1", AclOperation.READ, ResourceType.TOPIC, name
    )
    assert decide(ALICE, "orders") is AuthorizationResult.DENIED
    store.update([acl("a")], [], full=False)
    assert decide(ALICE, "orders") is AuthorizationResult.ALLOWED
    assert decide(KafkaPrincipal("User", "bob"), "orders") is AuthorizationResult.DENIED
    assert decide(KafkaPrincipal("User", "admin"), "orders") is AuthorizationResult.ALLOWED
    store.update([], ["a"], full=False)
    assert decide(ALICE, "orders") is AuthorizationResult.DENIED


async def test_without_an_authorizer_the_acl_apis_answer_security_disabled_with_kafkas_messages():
    ctx = SimpleNamespace(authorizer=None)
    response = await describe_acls.handle(ctx, HEADER, describe_request())
    assert (response.error_code, response.error_message, response.resources) == (
        Errors.SECURITY_DISABLED,
        "No Authorizer is configured on the broker",
        [],
    )
    creation = AclCreation(
        resource_type=2, resource_name="t", resource_pattern_type=3, principal="User:a", host="*",
        operation=3, permission_type=3,
    )  # fmt: skip
    response = await create_acls.handle(ctx, HEADER, CreateAclsRequest(creations=[creation, creation]))
    assert [(r.error_code, r.error_message) for r in response.results] == [
        (Errors.SECURITY_DISABLED, "No Authorizer is configured.")
    ] * 2
    any_filter = DeleteAclsFilter(
        resource_type_filter=1, resource_name_filter=None, pattern_type_filter=1, principal_filter=None,
        host_filter=None, operation=1, permission_type=1,
    )  # fmt: skip
    response = await delete_acls.handle(ctx, HEADER, DeleteAclsRequest(filters=[any_filter]))
    assert [(r.error_code, r.error_message, r.matching_acls) for r in response.filter_results] == [
        (Errors.SECURITY_DISABLED, "No Authorizer is configured.", [])
    ]


async def test_update_metadata_fills_the_brokers_store_and_a_full_one_replaces_it():
    async def no_stray_replicas(*args: object) -> None:
        return None

    store = AclStore(StandardAuthorizerConfig())
    ctx = SimpleNamespace(
        metadata_cache=MetadataCache(1, None),
        replica_manager=SimpleNamespace(broker_id=1, delete_stray_replicas=no_stray_replicas),
        group_coordinator=None,
        scram_credentials=ScramCredentialCache(),
        client_quotas=ClientQuotaCache(),
        produce_quotas=ClientQuotaManager("producer_byte_rate"),
        fetch_quotas=ClientQuotaManager("consumer_byte_rate"),
        request_quotas=ClientRequestQuotaManager(),
        controller_mutation_quotas=ControllerMutationQuotaManager(),
        authorizer=store,
    )

    def update(full=False, acls=(), deleted=()):
        return UpdateMetadataRequest(
            controller_id=1, controller_epoch=1, full=full, acls=list(acls), deleted_acl_ids=list(deleted)
        )

    for request in (update(acls=[acl("a"), acl("b", name="other")]), update(deleted=["b"])):
        assert (await update_metadata_api.handle(ctx, HEADER, request)).error_code == Errors.NONE
    assert [name for _, name, _, _ in described(store)] == ["orders"]
    await update_metadata_api.handle(ctx, HEADER, update(full=True))
    assert len(store) == 0
