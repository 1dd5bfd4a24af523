"""Authorization (Kafka's StandardAuthorizer, KIP-801) on the authorization suite's clusters: the
super user ``admin`` creates topics, groups and ACLs (CreateAcls), then ``alice`` calls each API and
the scenarios record its answers: allowed, denied (TOPIC/GROUP/CLUSTER_AUTHORIZATION_FAILED) and
hidden (Metadata leaves out a topic alice may not describe), DENY winning over ALLOW, PREFIXED
patterns, the auto-creation rule of Metadata, and the authorized operations of KIP-430.

Every scenario removes the ACLs it made before it returns (``granted``), so the next starts from
alice holding none.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

from kafkette.protocol.apis.acls import (
    AclCreation,
    CreateAclsRequest,
    DeleteAclsFilter,
    DeleteAclsRequest,
    DescribeAclsRequest,
)
from kafkette.protocol.apis.find_coordinator import FindCoordinatorRequest
from kafkette.protocol.apis.group_admin import (
    DeleteGroupsRequest,
    DescribeGroupsRequest,
    ListGroupsRequest,
    OffsetDeleteRequest,
    OffsetDeleteRequestPartition,
    OffsetDeleteRequestTopic,
)
from kafkette.protocol.apis.group_membership import JoinGroupRequest, JoinGroupRequestProtocol
from kafkette.protocol.apis.metadata import MetadataRequest, MetadataRequestTopic
from tests.conformance.catalogue import AUTHORIZATION, scenario
from tests.conformance.scenarios.groups import JOIN_V, commit, coordinator, subscription
from tests.conformance.scenarios.groups import fetch as offsets_of
from tests.conformance.scenarios.produce import (
    batch,
    fetch,
    list_offsets,
    produce,
)
from tests.conformance.scenarios.topics import create
from tests.conformance.target import ScenarioError, Target, code_name

# Kafka's AclOperation, ResourceType, PatternType and AclPermissionType codes.
ANY, ALL, READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE = 1, 2, 3, 4, 5, 6, 7, 8
CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE = 9, 10, 11, 12
TOPIC, GROUP, CLUSTER = 2, 3, 4
LITERAL, PREFIXED = 3, 4
DENY, ALLOW = 2, 3
CLUSTER_NAME = "kafka-cluster"
WAIT_S = 30.0

Acl = tuple[int, str, int, int, int]
"""One binding for ``alice``: (resource type, resource name, pattern type, operation, permission)."""


def _creation(acl: Acl, principal: str) -> AclCreation:
    resource_type, name, pattern, operation, permission = acl
    return AclCreation(
        resource_type=resource_type,
        resource_name=name,
        resource_pattern_type=pattern,
        principal=principal,
        host="*",
        operation=operation,
        permission_type=permission,
    )


def refusal(message: str | None) -> str | None:
    """``message`` with the Java toString of the request that Kafka's refusals of a cluster
    operation quote (``Request Request(processor=...) needs ALTER permission.``) left out."""
    if message is None:
        return None
    return re.sub(r"^Request Request\(.*\) needs", "Request needs", message)


def every_acl_of(principal: str) -> dict[str, Any]:
    """The fields of a DescribeAcls request or DeleteAcls filter matching every ACL of ``principal``."""
    return {
        "resource_type_filter": ANY,
        "resource_name_filter": None,
        "pattern_type_filter": ANY,
        "principal_filter": principal,
        "host_filter": None,
        "operation": ANY,
        "permission_type": ANY,
    }


def without_and_with(t: Target, attempt: Callable[[Target], Any], *acls: Acl) -> dict[str, Any]:
    """``attempt`` as alice without ACLs (``"none"``) and with ``acls`` (``"granted"``)."""
    out = {}
    with granted(t) as alice:
        out["none"] = attempt(alice)
    with granted(t, *acls) as alice:
        out["granted"] = attempt(alice)
    return out


def principal_acls(t: Target, principal: str) -> set[tuple[int, str, int, int, int]]:
    answer = t.call(
        "DescribeAcls",
        3,
        DescribeAclsRequest(**every_acl_of(principal)),
    )
    return {
        (r.resource_type, r.resource_name, r.pattern_type, a.operation, a.permission_type)
        for r in answer.resources
        for a in r.acls
    }


def _wait_acls(t: Target, principal: str, expected: set[Acl]) -> None:
    """Wait until the broker's authorizer holds exactly ``expected`` for ``principal``."""
    deadline = time.monotonic() + WAIT_S
    while principal_acls(t, principal) != expected:
        if time.monotonic() > deadline:
            raise ScenarioError(f"{t.name}: the ACLs of {principal} did not become {sorted(expected)}")
        time.sleep(0.05)


def revoke(t: Target, principal: str) -> None:
    """Delete every ACL of ``principal`` (``User:alice``) as admin (DeleteAcls v3) and wait until
    the authorizer holds none."""
    t.call(
        "DeleteAcls",
        3,
        DeleteAclsRequest(filters=[DeleteAclsFilter(**every_acl_of(principal))]),
    )
    _wait_acls(t, principal, set())


@contextlib.contextmanager
def granted(t: Target, *acls: Acl, user: str = "alice") -> Iterator[Target]:
    """Create ``acls`` for ``user`` as admin (CreateAcls v3), wait until the authorizer holds them,
    yield the target as ``user``; then delete them (DeleteAcls v3) and wait until they are gone."""
    principal = f"User:{user}"
    if acls:
        answer = t.call("CreateAcls", 3, CreateAclsRequest(creations=[_creation(a, principal) for a in acls]))
        errors = [code_name(r.error_code) for r in answer.results if r.error_code]
        if errors:
            raise ScenarioError(f"{t.name}: CreateAcls answered {errors}")
    _wait_acls(t, principal, set(acls))
    try:
        yield t.as_user(user)
    finally:
        revoke(t, principal)


def admin_topic(t: Target, name: str, partitions: int = 1) -> str:
    """Create ``name`` as admin and wait for its leader; the name."""
    error = create(t, name, partitions=partitions)["error"]
    if error != "NONE":
        raise ScenarioError(f"{t.name}: creating {name} answered {error}")
    t.wait_topic(name, partitions)
    return name


def _produce(t: Target, topic: str) -> str:
    """One Produce v9 (acks=all) of one record to partition 0; its error's name."""
    return produce(t, topic, batch([b"v"]), node=min(t.addresses))["error"]


def _metadata(t: Target, topics: list[str] | None, auto_create: bool = False) -> list[Any]:
    """Metadata v12 with topic authorized operations; ``[name, error, authorized operations]`` of
    each topic answered whose name starts with ``az-`` (so that all-topics answers are comparable)."""
    answer = t.call(
        "Metadata",
        12,
        MetadataRequest(
            topics=None if topics is None else [MetadataRequestTopic(name=n) for n in topics],
            allow_auto_topic_creation=auto_create,
            include_topic_authorized_operations=True,
        ),
    )
    return sorted(
        [x.name, code_name(x.error_code), x.topic_authorized_operations]
        for x in answer.topics
        if x.name.startswith("az-")
    )


# --- topics: Produce, Fetch, ListOffsets, Metadata -------------------------------------------------


@scenario("authz/topic/produce-write", suite=AUTHORIZATION)
def _produce_write(t: Target) -> Any:
    """Produce without an ACL: TOPIC_AUTHORIZATION_FAILED; with READ only: the same; with WRITE: NONE."""
    topic = admin_topic(t, "az-produce")
    out = {}
    with granted(t) as alice:
        out["none"] = _produce(alice, topic)
    with granted(t, (TOPIC, topic, LITERAL, READ, ALLOW)) as alice:
        out["read"] = _produce(alice, topic)
    with granted(t, (TOPIC, topic, LITERAL, WRITE, ALLOW)) as alice:
        out["write"] = _produce(alice, topic)
    return out


@scenario("authz/topic/fetch-and-list-offsets", suite=AUTHORIZATION)
def _fetch_read(t: Target) -> Any:
    """Fetch and ListOffsets need READ (Fetch) and DESCRIBE (ListOffsets, implied by READ)."""
    topic = admin_topic(t, "az-fetch")
    out = {}
    for label, acls in (
        ("none", ()),
        ("describe", ((TOPIC, topic, LITERAL, DESCRIBE, ALLOW),)),
        ("read", ((TOPIC, topic, LITERAL, READ, ALLOW),)),
    ):
        with granted(t, *acls) as alice:
            out[label] = {
                "fetch": fetch(alice, topic, 0, node=min(t.addresses))["error"],
                "list_offsets": list_offsets(alice, topic, -1, node=min(t.addresses)),
            }
    return out


@scenario("authz/topic/metadata-hidden-and-denied", suite=AUTHORIZATION)
def _metadata_hidden(t: Target) -> Any:
    """Metadata: a named topic without DESCRIBE answers TOPIC_AUTHORIZATION_FAILED; an all-topics
    request leaves it out; a described one shows its authorized operations (KIP-430)."""
    seen, hidden = admin_topic(t, "az-md-seen"), admin_topic(t, "az-md-hidden")
    with granted(t, (TOPIC, seen, LITERAL, DESCRIBE, ALLOW), (TOPIC, seen, LITERAL, WRITE, ALLOW)) as alice:
        return {
            "named": _metadata(alice, [seen, hidden, "az-md-unknown"]),
            "all": _metadata(alice, None),
        }


@scenario("authz/topic/metadata-auto-create", suite=AUTHORIZATION)
def _metadata_auto_create(t: Target) -> Any:
    """Metadata with auto-creation of an unknown topic: without DESCRIBE TOPIC_AUTHORIZATION_FAILED;
    with DESCRIBE but no CREATE the same (Kafka checks CREATE on the cluster or the topic); with
    CREATE on the topic, or on the cluster, it is created."""
    out = {}
    with granted(t) as alice:
        out["none"] = _metadata(alice, ["az-auto-a"], auto_create=True)
    with granted(t, (TOPIC, "az-auto-b", LITERAL, DESCRIBE, ALLOW)) as alice:
        out["describe"] = _metadata(alice, ["az-auto-b"], auto_create=True)
    with granted(
        t, (TOPIC, "az-auto-c", LITERAL, DESCRIBE, ALLOW), (TOPIC, "az-auto-c", LITERAL, CREATE, ALLOW)
    ) as alice:
        answer = _metadata(alice, ["az-auto-c"], auto_create=True)
        out["create"] = [[name, error] for name, error, _ in answer]
        t.wait_topic("az-auto-c")
    with granted(
        t, (TOPIC, "az-auto-d", LITERAL, DESCRIBE, ALLOW), (CLUSTER, CLUSTER_NAME, LITERAL, CREATE, ALLOW)
    ) as alice:
        answer = _metadata(alice, ["az-auto-d"], auto_create=True)
        out["cluster_create"] = [[name, error] for name, error, _ in answer]
        t.wait_topic("az-auto-d")
    return out


@scenario("authz/topic/deny-wins-over-allow", suite=AUTHORIZATION)
def _deny_wins(t: Target) -> Any:
    """A DENY WRITE beside an ALLOW ALL on the same topic: Produce is refused, Metadata describes."""
    topic = admin_topic(t, "az-deny")
    with granted(t, (TOPIC, topic, LITERAL, ALL, ALLOW), (TOPIC, topic, LITERAL, WRITE, DENY)) as alice:
        return {"produce": _produce(alice, topic), "metadata": _metadata(alice, [topic])}


@scenario("authz/topic/prefixed-patterns", suite=AUTHORIZATION)
def _prefixed(t: Target) -> Any:
    """An ALLOW ALL on the PREFIXED pattern ``az-pre-`` with a DENY WRITE on the PREFIXED
    ``az-pre-deny``: produce to ``az-pre-ok`` passes, to ``az-pre-deny-x`` is refused, to
    ``az-other`` is refused; the all-topics Metadata shows the prefixed ones only."""
    ok, denied, other = (
        admin_topic(t, "az-pre-ok"),
        admin_topic(t, "az-pre-deny-x"),
        admin_topic(t, "az-other"),
    )
    with granted(
        t, (TOPIC, "az-pre-", PREFIXED, ALL, ALLOW), (TOPIC, "az-pre-deny", PREFIXED, WRITE, DENY)
    ) as alice:
        return {
            "ok": _produce(alice, ok),
            "deny": _produce(alice, denied),
            "other": _produce(alice, other),
            "all": [name for name, _, _ in _metadata(alice, None)],
        }


# --- groups ----------------------------------------------------------------------------------------


def _find_coordinator(t: Target, group: str) -> str:
    """FindCoordinator v3 for ``group``; the error's name."""
    return code_name(t.call("FindCoordinator", 3, FindCoordinatorRequest(key=group, key_type=0)).error_code)


def _join(t: Target, group: str, topic: str) -> str:
    """A first JoinGroup v5 (no member id) of a consumer; the error's name."""
    request = JoinGroupRequest(
        group_id=group,
        session_timeout_ms=10000,
        rebalance_timeout_ms=10000,
        member_id="",
        group_instance_id=None,
        protocol_type="consumer",
        protocols=[JoinGroupRequestProtocol(name="range", metadata=subscription(topic))],
    )
    return code_name(t.call("JoinGroup", JOIN_V, request).error_code)


def _described(t: Target, group: str) -> dict[str, Any]:
    """DescribeGroups v5 of one group with its authorized operations (KIP-430)."""
    g = t.call(
        "DescribeGroups", 5, DescribeGroupsRequest(groups=[group], include_authorized_operations=True)
    ).groups[0]
    return {"error": code_name(g.error_code), "state": g.group_state, "operations": g.authorized_operations}


def _committed_group(t: Target, group: str, topic: str) -> None:
    """Commit offset 0 of ``topic``-0 for ``group`` as admin (an empty group with an offset)."""
    coordinator(t, group)
    result = commit(t, group, topic, {0: 0})
    if result != [[0, "NONE"]]:
        raise ScenarioError(f"{t.name}: the admin's commit answered {result}")


@scenario("authz/group/find-coordinator-and-join", suite=AUTHORIZATION)
def _find_and_join(t: Target) -> Any:
    """FindCoordinator needs DESCRIBE on the group, JoinGroup READ (then MEMBER_ID_REQUIRED)."""
    topic = admin_topic(t, "az-g-join")
    coordinator(t, "az-g-join")
    out = {}
    for label, acls in (
        ("none", ()),
        ("describe", ((GROUP, "az-g-join", LITERAL, DESCRIBE, ALLOW),)),
        ("read", ((GROUP, "az-g-join", LITERAL, READ, ALLOW),)),
    ):
        with granted(t, *acls) as alice:
            out[label] = {
                "find": _find_coordinator(alice, "az-g-join"),
                "join": _join(alice, "az-g-join", topic),
            }
    return out


@scenario("authz/group/offset-commit-and-fetch", suite=AUTHORIZATION)
def _commit_fetch(t: Target) -> Any:
    """OffsetCommit needs READ on the group and on the topic; OffsetFetch DESCRIBE on the group,
    its named topics answering TOPIC_AUTHORIZATION_FAILED without DESCRIBE and its all-topics form
    leaving them out."""
    topic, other = admin_topic(t, "az-g-commit"), admin_topic(t, "az-g-commit-other")
    group = "az-g-commit"
    _committed_group(t, group, topic)
    commit(t, group, other, {0: 0})
    out = {}
    for label, acls in (
        ("none", ()),
        ("group", ((GROUP, group, LITERAL, READ, ALLOW),)),
        ("group-and-topic", ((GROUP, group, LITERAL, READ, ALLOW), (TOPIC, topic, LITERAL, READ, ALLOW))),
    ):
        with granted(t, *acls) as alice:
            out[label] = {
                "commit": commit(alice, group, topic, {0: 1}),
                "fetch_named": offsets_of(alice, min(t.addresses), group, {topic: [0], other: [0]}),
                "fetch_all": offsets_of(alice, min(t.addresses), group, None),
            }
    return out


@scenario("authz/group/describe-list-delete", suite=AUTHORIZATION)
def _describe_list_delete(t: Target) -> Any:
    """DescribeGroups needs DESCRIBE on the group (its authorized operations then listed); ListGroups
    lists only the groups alice may describe (all of them with DESCRIBE on the cluster);
    DeleteGroups needs DELETE on the group."""
    topic = admin_topic(t, "az-g-desc")
    for group in ("az-g-desc-a", "az-g-desc-b"):
        _committed_group(t, group, topic)
    out: dict[str, Any] = {"admin": _described(t, "az-g-desc-a")}

    def listed(alice: Target) -> list[str]:
        answer = alice.call("ListGroups", 4, ListGroupsRequest(states_filter=[]))
        return [
            code_name(answer.error_code),
            sorted(g.group_id for g in answer.groups if g.group_id.startswith("az-g-desc")),
        ]

    with granted(t) as alice:
        out["none"] = {
            "describe": _described(alice, "az-g-desc-a"),
            "list": listed(alice),
            "delete": _delete_groups(alice, "az-g-desc-a"),
        }
    with granted(t, (GROUP, "az-g-desc-a", LITERAL, DESCRIBE, ALLOW)) as alice:
        out["describe"] = {
            "describe": _described(alice, "az-g-desc-a"),
            "list": listed(alice),
            "delete": _delete_groups(alice, "az-g-desc-a"),
        }
    with granted(t, (CLUSTER, CLUSTER_NAME, LITERAL, DESCRIBE, ALLOW)) as alice:
        out["cluster_describe"] = {"list": listed(alice)}
    with granted(t, (GROUP, "az-g-desc-", PREFIXED, ALL, ALLOW)) as alice:
        out["all"] = {
            "describe": _described(alice, "az-g-desc-b"),
            "delete": _delete_groups(alice, "az-g-desc-a", "az-g-desc-b"),
        }
    return out


def _delete_groups(t: Target, *groups: str) -> list[Any]:
    """DeleteGroups v2; ``[group, error]`` of each, sorted."""
    answer = t.call("DeleteGroups", 2, DeleteGroupsRequest(groups_names=list(groups)))
    return sorted([r.group_id, code_name(r.error_code)] for r in answer.results)


@scenario("authz/group/offset-delete", suite=AUTHORIZATION)
def _offset_delete(t: Target) -> Any:
    """OffsetDelete needs DELETE on the group (else GROUP_AUTHORIZATION_FAILED) and READ on each
    topic (else that partition answers TOPIC_AUTHORIZATION_FAILED)."""
    topic, group = admin_topic(t, "az-g-odel"), "az-g-odel"
    _committed_group(t, group, topic)

    def offset_delete(alice: Target) -> Any:
        answer = alice.call(
            "OffsetDelete",
            0,
            OffsetDeleteRequest(
                group_id=group,
                topics=[
                    OffsetDeleteRequestTopic(
                        name=topic, partitions=[OffsetDeleteRequestPartition(partition_index=0)]
                    )
                ],
            ),
        )
        return [
            code_name(answer.error_code),
            [[p.partition_index, code_name(p.error_code)] for x in answer.topics for p in x.partitions],
        ]

    out = {}
    for label, acls in (
        ("none", ()),
        ("group", ((GROUP, group, LITERAL, DELETE, ALLOW),)),
        ("group-and-topic", ((GROUP, group, LITERAL, DELETE, ALLOW), (TOPIC, topic, LITERAL, READ, ALLOW))),
    ):
        with granted(t, *acls) as alice:
            out[label] = offset_delete(alice)
    return out
