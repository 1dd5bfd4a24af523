"""ACLs at the controller (KIP-140, KIP-801): CreateAcls and DeleteAcls with Kafka's
``AclControlManager`` (and ``AclApis``) rules and messages, ``AccessControlEntryRecord`` /
``RemoveAccessControlEntryRecord`` in the metadata log read back by a new controller and in its
snapshot, and every live broker told the created ACLs and the deleted ids in UpdateMetadata."""

from __future__ import annotations

from controller_fakes import new_controller, register_live_brokers, wire_roundtrip
from test_kafka_controller import replay_log

from kafkette.common.security.acl import AclOperation, AclPermissionType, PatternType, ResourceType
from kafkette.controller.acl_control_manager import MAX_RECORDS_PER_USER_OP, AclControlManager
from kafkette.controller.controller_broker_request_batch import ControllerBrokerRequestBatch
from kafkette.controller.controller_context import ControllerContext
from kafkette.controller.metadata_records import (
    AccessControlEntryRecord,
    RegisterBrokerRecord,
    RemoveAccessControlEntryRecord,
)
from kafkette.controller.metadata_snapshot import decode_snapshot, encode_snapshot, snapshot_records
from kafkette.protocol.apis.acls import AclCreation, CreateAclsRequest, DeleteAclsFilter, DeleteAclsRequest
from kafkette.protocol.errors import Errors

TOPIC, GROUP, CLUSTER = ResourceType.TOPIC, ResourceType.GROUP, ResourceType.CLUSTER
LITERAL, PREFIXED = PatternType.LITERAL, PatternType.PREFIXED
READ, WRITE, ALL = AclOperation.READ, AclOperation.WRITE, AclOperation.ALL
ALLOW, DENY = AclPermissionType.ALLOW, AclPermissionType.DENY


def creation(
    name="orders",
    resource_type=TOPIC,
    pattern_type=LITERAL,
    principal="User:alice",
    host="*",
    operation=READ,
    permission=ALLOW,
):
    return AclCreation(
        resource_type=int(resource_type),
        resource_name=name,
        resource_pattern_type=int(pattern_type),
        principal=principal,
        host=host,
        operation=int(operation),
        permission_type=int(permission),
    )


def delete_filter(
    name=None,
    resource_type=ResourceType.ANY,
    pattern_type=PatternType.ANY,
    principal=None,
    host=None,
    operation=AclOperation.ANY,
    permission=AclPermissionType.ANY,
):
    return DeleteAclsFilter(
        resource_type_filter=int(resource_type),
        resource_name_filter=name,
        pattern_type_filter=int(pattern_type),
        principal_filter=principal,
        host_filter=host,
        operation=int(operation),
        permission_type=int(permission),
    )


async def create(controller, *creations):
    response = wire_roundtrip(await controller.create_acls(CreateAclsRequest(creations=list(creations))))
    return [(r.error_code, r.error_message) for r in response.results]


async def delete(controller, *filters):
    response = wire_roundtrip(await controller.delete_acls(DeleteAclsRequest(filters=list(filters))))
    return [
        (
            r.error_code,
            r.error_message,
            sorted((m.resource_name, m.principal, m.operation) for m in r.matching_acls),
        )
        for r in response.filter_results
    ]


def stored(controller):
    return sorted(
        (
            r.resource_type,
            r.resource_name,
            r.pattern_type,
            r.principal,
            r.host,
            r.operation,
            r.permission_type,
        )
        for r in controller.context.acls.values()
    )


OK = (Errors.NONE, "")


async def test_created_acls_are_records_a_new_controller_reads_back_and_deletes(tmp_path, clock, channel):
    controller = new_controller(tmp_path, clock, channel)
    await controller.start()
    try:
        assert await create(
            controller, creation(), creation("pay-", pattern_type=PREFIXED, permission=DENY)
        ) == [
            OK,
            OK,
        ]
        acls = dict(controller.context.acls)
        assert stored(controller) == [
            (2, "orders", 3, "User:alice", "*", 3, 3),
            (2, "pay-", 4, "User:alice", "*", 3, 2),
        ]
        assert all(len(acl_id) == 22 and record.id == acl_id for acl_id, record in acls.items())
    finally:
        await controller.stop()
    assert set(acls.values()) <= set(replay_log(tmp_path))
    again = new_controller(tmp_path, clock, channel)
    await again.start()
    try:
        assert again.context.acls == acls
        outcome = await delete(again, delete_filter(pattern_type=PREFIXED))
        assert outcome == [(Errors.NONE, None, [("pay-", "User:alice", 3)])]
        assert stored(again) == [(2, "orders", 3, "User:alice", "*", 3, 3)]
    finally:
        await again.stop()
    removed = [r for r in replay_log(tmp_path) if isinstance(r, RemoveAccessControlEntryRecord)]
    assert [acls[r.id].resource_name for r in removed] == ["pay-"]


async def test_an_acl_that_exists_or_repeats_succeeds_without_a_record(controller, tmp_path):
    assert await create(controller, creation()) == [OK]
    assert await create(controller, creation(), creation("other"), creation("other")) == [OK, OK, OK]
    assert stored(controller) == [
        (2, "orders", 3, "User:alice", "*", 3, 3),
        (2, "other", 3, "User:alice", "*", 3, 3),
    ]
    assert sum(isinstance(r, AccessControlEntryRecord) for r in replay_log(tmp_path)) == 2


async def test_each_refused_creation_has_kafkas_code_and_message_and_the_others_are_created(controller):
    outcome = await create(
        controller,
        creation("kafka-cluster", resource_type=CLUSTER),
        creation("my-cluster", resource_type=CLUSTER),
        creation(""),
        creation(resource_type=ResourceType.UNKNOWN),
        creation(pattern_type=PatternType.UNKNOWN),
        creation(operation=AclOperation.UNKNOWN),
        creation(permission=AclPermissionType.UNKNOWN),
        creation(principal="alice"),
        creation("billing", resource_type=GROUP, host="10.0.0.1", operation=ALL),
    )
    assert outcome == [
        OK,
        (Errors.INVALID_REQUEST, "The only valid name for the CLUSTER resource is kafka-cluster"),
        (Errors.INVALID_REQUEST, "Invalid empty resource name"),
        (Errors.INVALID_REQUEST, "Invalid resourceType UNKNOWN"),
        (Errors.INVALID_REQUEST, "Invalid patternType UNKNOWN"),
        (Errors.INVALID_REQUEST, "Invalid operation UNKNOWN"),
        (Errors.INVALID_REQUEST, "Invalid permissionType UNKNOWN"),
        (
            Errors.INVALID_REQUEST,
            "Could not parse principal from `alice` (no colon is present separating the principal type "
            "from the principal name)",
        ),
        OK,
    ]
    assert stored(controller) == [
        (3, "billing", 3, "User:alice", "10.0.0.1", 2, 3),
        (4, "kafka-cluster", 3, "User:alice", "*", 3, 3),
    ]


async def test_a_creation_kafka_cannot_represent_fails_the_whole_request(controller, tmp_path):
    outcome = await create(controller, creation(), creation(pattern_type=PatternType.MATCH))
    assert outcome == [(Errors.UNKNOWN_SERVER_ERROR, None)] * 2
    outcome = await create(controller, creation(), creation(operation=AclOperation.ANY))
    assert outcome == [(Errors.UNKNOWN_SERVER_ERROR, None)] * 2
    assert controller.context.acls == {}
    assert not any(isinstance(r, AccessControlEntryRecord) for r in replay_log(tmp_path))


async def test_delete_filters_each_list_their_matches_and_an_acl_is_removed_once(controller, tmp_path):
    await create(
        controller,
        creation(),
        creation(operation=WRITE),
        creation("orders", principal="User:bob"),
        creation("billing", resource_type=GROUP),
    )
    outcome = await delete(
        controller,
        delete_filter("orders", TOPIC, LITERAL, principal="User:alice"),
        delete_filter(operation=READ, resource_type=TOPIC),
        delete_filter("nothing", TOPIC, LITERAL),
        delete_filter(resource_type=ResourceType.UNKNOWN),
        delete_filter(permission=AclPermissionType.UNKNOWN),
    )
    assert outcome == [
        (Errors.NONE, None, [("orders", "User:alice", 3), ("orders", "User:alice", 4)]),
        (Errors.NONE, None, [("orders", "User:alice", 3), ("orders", "User:bob", 3)]),
        (Errors.NONE, None, []),
        (Errors.INVALID_REQUEST, "Unknown patternFilter.", []),
        (Errors.INVALID_REQUEST, "Unknown entryFilter.", []),
    ]
    assert stored(controller) == [(3, "billing", 3, "User:alice", "*", 3, 3)]
    removed = [r.id for r in replay_log(tmp_path) if isinstance(r, RemoveAccessControlEntryRecord)]
    assert len(removed) == len(set(removed)) == 3


async def test_a_match_filter_deletes_the_literal_wildcard_and_prefixed_acls_of_a_name(controller):
    await create(
        controller,
        creation("payments"),
        creation("*"),
        creation("pay", pattern_type=PREFIXED),
        creation("payroll"),
        creation("paym", resource_type=GROUP, pattern_type=PREFIXED),
    )
    outcome = await delete(controller, delete_filter("payments", TOPIC, PatternType.MATCH))
    assert outcome == [
        (Errors.NONE, None, [("*", "User:alice", 3), ("pay", "User:alice", 3), ("payments", "User:alice", 3)])
    ]
    assert [name for _, name, *_ in stored(controller)] == ["payroll", "paym"]


def test_more_deletions_than_kafkas_limit_delete_nothing_and_fail_every_filter():
    context = ControllerContext(lambda: 0)
    for i in range(MAX_RECORDS_PER_USER_OP + 1):
        context.replay(AccessControlEntryRecord(f"id{i}", 2, f"t{i}", 3, "User:a", "*", 3, 3))
    result = AclControlManager(context).delete_acls(
        DeleteAclsRequest(filters=[delete_filter(), delete_filter()])
    )
    assert result.records == []
    message = "Cannot remove more than 10000 acls in a single delete operation."
    assert [(r.error_code, r.error_message, r.matching_acls) for r in result.response.filter_results] == [
        (Errors.INVALID_REQUEST, message, [])
    ] * 2
    fewer = AclControlManager(context).delete_acls(
        DeleteAclsRequest(filters=[delete_filter("t1", TOPIC, LITERAL), delete_filter("t1", TOPIC, LITERAL)])
    )
    assert [r.id for r in fewer.records] == ["id1"]


def test_more_creations_than_kafkas_limit_fail_the_whole_request():
    context = ControllerContext(lambda: 0)
    request = CreateAclsRequest(creations=[creation(f"t{i}") for i in range(MAX_RECORDS_PER_USER_OP + 1)])
    result = AclControlManager(context).create_acls(request)
    assert result.records == []
    assert {(r.error_code, r.error_message) for r in result.response.results} == {
        (Errors.UNKNOWN_SERVER_ERROR, None)
    }
    request.creations.pop()
    assert len(AclControlManager(context).create_acls(request).records) == MAX_RECORDS_PER_USER_OP


def test_an_id_already_taken_is_drawn_again():
    context = ControllerContext(lambda: 0)
    context.replay(AccessControlEntryRecord("taken", 2, "t", 3, "User:a", "*", 3, 3))
    ids = iter(["taken", "taken", "fresh", "fresh", "other"])
    result = AclControlManager(context, new_id=lambda: next(ids)).create_acls(
        CreateAclsRequest(creations=[creation("a"), creation("b")])
    )
    assert [r.id for r in result.records] == ["fresh", "other"]


def test_replay_refuses_an_unknown_id_and_a_duplicate_one():
    context = ControllerContext(lambda: 0)
    record = AccessControlEntryRecord("x", 2, "t", 3, "User:a", "*", 3, 3)
    context.replay(record)
    for bad in (record, RemoveAccessControlEntryRecord("nope")):
        try:
            context.replay(bad)
        except ValueError as exc:
            assert "Unable to replay" in str(exc)
        else:
            raise AssertionError(f"{bad} was replayed")
    context.replay(RemoveAccessControlEntryRecord("x"))
    assert context.acls == {}


def test_a_snapshot_holds_every_acl_and_rebuilds_them():
    context = ControllerContext(lambda: 0)
    records = [
        AccessControlEntryRecord(f"id{i}", 2 + i % 3, f"r{i}", 3 + i % 2, "User:a", "*", 3 + i % 4, 3)
        for i in range(5)
    ]
    for record in records:
        context.replay(record)
    context.replay(RemoveAccessControlEntryRecord("id2"))
    rebuilt = ControllerContext(lambda: 0)
    for record in decode_snapshot(encode_snapshot(snapshot_records(context))):
        rebuilt.replay(record)
    assert rebuilt.acls == context.acls
    assert sorted(rebuilt.acls) == ["id0", "id1", "id3", "id4"]


async def test_every_live_broker_gets_the_created_acls_and_the_deleted_ids(controller, channel):
    await register_live_brokers(controller, 1, 2)
    channel.clear()
    await create(controller, creation(), creation("pay-", pattern_type=PREFIXED))
    await create(controller, creation())  # exists: nothing written, nothing sent
    await delete(controller, delete_filter(pattern_type=PREFIXED))
    ids = {record.resource_name: acl_id for acl_id, record in controller.context.acls.items()}
    for broker_id in (1, 2):
        requests = channel.update_metadata()[broker_id]
        assert len(requests) == 2
        assert sorted((a.resource_name, a.pattern_type, a.principal) for a in requests[0].acls) == [
            ("orders", 3, "User:alice"),
            ("pay-", 4, "User:alice"),
        ]
        assert requests[0].deleted_acl_ids == []
        assert requests[1].acls == [] and len(requests[1].deleted_acl_ids) == 1
        assert requests[1].deleted_acl_ids[0] not in controller.context.acls
        assert [a.id for a in requests[0].acls if a.resource_name == "orders"] == [ids["orders"]]


async def test_a_refused_request_writes_nothing_and_tells_no_broker(controller, channel, tmp_path):
    await register_live_brokers(controller, 1)
    channel.clear()
    assert (await create(controller, creation("")))[0][0] == Errors.INVALID_REQUEST
    assert await delete(controller, delete_filter()) == [(Errors.NONE, None, [])]
    assert channel.update_metadata() == {}
    assert not any(isinstance(r, AccessControlEntryRecord) for r in replay_log(tmp_path))


async def test_a_full_update_metadata_carries_every_acl_and_no_deleted_ids(channel):
    channel.add_broker(1, "127.0.0.1", 9092)
    context = ControllerContext(lambda: 0)
    context.replay(RegisterBrokerRecord(1, 5, "inc", "127.0.0.1", 9092))
    for i in range(3):
        context.replay(AccessControlEntryRecord(f"id{i}", 2, f"t{i}", 3, "User:a", "*", 3, 3))
    batch = ControllerBrokerRequestBatch(context, 1, channel)
    batch.add_update_metadata_request_for_brokers([1], full=True)
    batch.send_requests_to_brokers()
    (request,) = channel.update_metadata()[1]
    assert [a.id for a in request.acls] == ["id0", "id1", "id2"]
    assert request.deleted_acl_ids == []
