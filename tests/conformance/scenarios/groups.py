"""The classic consumer-group protocol: FindCoordinator, JoinGroup, SyncGroup, Heartbeat,
LeaveGroup, OffsetCommit, OffsetFetch, DescribeGroups, ListGroups, DeleteGroups and OffsetDelete
as Kafka's group coordinator answers them (``GroupMetadataManager``'s classic-group paths and
``ClassicGroup``'s state machine: Empty, PreparingRebalance, CompletingRebalance, Stable, Dead),
then a few of the same through confluent-kafka's consumer and AdminClient.

Group requests go raw to the group's coordinator (found with FindCoordinator).  A member that
must wait for a rebalance joins from a thread of its own with its own connection (``Member``);
rebalance timeouts are kept short so every wait is bounded.  Member ids, coordinator node ids
and hosts vary between clusters and runs, so only their shape is observed (a member id starts
with the client id; a coordinator is one of the cluster's nodes at its listener's address).
"""

from __future__ import annotations

import struct
import threading
import time
from collections.abc import Callable
from typing import Any

from confluent_kafka import ConsumerGroupState, ConsumerGroupTopicPartitions, TopicPartition

from kafkette.protocol.apis.find_coordinator import FindCoordinatorRequest
from kafkette.protocol.apis.group_admin import (
    DeleteGroupsRequest,
    DescribeGroupsRequest,
    ListGroupsRequest,
    OffsetDeleteRequest,
    OffsetDeleteRequestPartition,
    OffsetDeleteRequestTopic,
)
from kafkette.protocol.apis.group_membership import (
    HeartbeatRequest,
    JoinGroupRequest,
    JoinGroupRequestProtocol,
    LeaveGroupRequest,
    MemberIdentity,
    SyncGroupRequest,
    SyncGroupRequestAssignment,
)
from kafkette.protocol.apis.offsets import (
    OffsetCommitRequest,
    OffsetCommitRequestPartition,
    OffsetCommitRequestTopic,
    OffsetFetchRequest,
    OffsetFetchRequestGroup,
    OffsetFetchRequestTopic,
    OffsetFetchRequestTopics,
)
from tests.conformance.catalogue import register, scenario
from tests.conformance.raw_client import RawKafkaClient
from tests.conformance.target import ScenarioError, Target, admin_outcome, code_name

CLIENT_ID = "conformance"
"""The client id every raw request carries; Kafka's member ids start with it and a dash."""
JOIN_V = 5
SYNC_V = 3
HEARTBEAT_V = 3
LEAVE_V = 3
COMMIT_V = 8
FETCH_V = 7
DESCRIBE_V = 5
LIST_V = 4
SESSION_MS = 10000
REBALANCE_MS = 4000
WAIT_S = 20.0
LIVE = {"session_ms": 60000, "rebalance_ms": 30000}
"""The session and rebalance timeouts (ms) of a member whose scenario needs it in the group to the
end without heartbeats: on a loaded machine a scenario can take longer than ``SESSION_MS``."""


# --- the consumer protocol's embedded metadata ---------------------------------------------------


def _string(value: str) -> bytes:
    data = value.encode()
    return struct.pack(">h", len(data)) + data


def subscription(*topics: str) -> bytes:
    """A ConsumerProtocolSubscription v0 (the member metadata of protocol type ``consumer``)."""
    return struct.pack(">hi", 0, len(topics)) + b"".join(_string(t) for t in topics) + struct.pack(">i", -1)


def assignment(partitions: dict[str, list[int]]) -> bytes:
    """A ConsumerProtocolAssignment v0 (what the leader hands a member in SyncGroup)."""
    body = struct.pack(">hi", 0, len(partitions))
    for topic, indexes in partitions.items():
        body += (
            _string(topic) + struct.pack(">i", len(indexes)) + b"".join(struct.pack(">i", i) for i in indexes)
        )
    return body + struct.pack(">i", -1)


# --- coordinator and requests ----------------------------------------------------------------------


def coordinator(t: Target, group: str, via: int | None = None) -> int:
    """The node id coordinating ``group``: FindCoordinator v3, retried until that node answers a
    DescribeGroups of the group as its coordinator (Kafka's coordinator answers NOT_COORDINATOR
    or COORDINATOR_LOAD_IN_PROGRESS for a while after ``__consumer_offsets`` is created).

    Args:
        via: the node asked (default: the lowest).

    Raises:
        ScenarioError: no coordinator within ``WAIT_S``.
    """
    deadline = time.monotonic() + WAIT_S
    while True:
        answer = t.call("FindCoordinator", 3, FindCoordinatorRequest(key=group, key_type=0), via)
        error = code_name(answer.error_code)
        if error == "NONE" and answer.node_id in t.addresses:
            try:
                described = t.call(
                    "DescribeGroups", DESCRIBE_V, DescribeGroupsRequest(groups=[group]), answer.node_id
                )
                error = code_name(described.groups[0].error_code)
            except OSError as exc:  # a node being stopped or started
                error = f"{type(exc).__name__}: {exc}"
            if error == "NONE":
                return answer.node_id
        if time.monotonic() > deadline:
            raise ScenarioError(f"{t.name}: no coordinator for {group!r}: {error}")
        time.sleep(0.1)


class Member:
    """One group member with a connection of its own to the group's coordinator (so that a
    JoinGroup blocked in a rebalance does not hold up anyone else's requests).

    Attributes:
        member_id / generation_id: from the last successful JoinGroup ("" and -1 before).
        joined: the last JoinGroup answer.
    """

    def __init__(
        self,
        t: Target,
        group: str,
        node: int,
        instance_id: str | None = None,
        topics: tuple[str, ...] = ("t",),
        protocols: tuple[str, ...] = ("range",),
        protocol_type: str = "consumer",
        metadata: bytes | None = None,
    ) -> None:
        self.group = group
        self.client = RawKafkaClient(*t.addresses[node])
        self.instance_id = instance_id
        self.topics = topics
        self.metadata = metadata  # each protocol's; None: the subscription of ``topics`` at each JoinGroup
        self.protocols = protocols
        self.protocol_type = protocol_type
        self.member_id = ""
        self.generation_id = -1
        self.joined: Any = None

    def join_once(
        self,
        version: int = JOIN_V,
        session_ms: int = SESSION_MS,
        rebalance_ms: int = REBALANCE_MS,
        member_id: str | None = None,
        reason: str | None = None,
    ) -> Any:
        """One JoinGroup (``reason`` from v8, KIP-800); keeps the member id and generation it gets."""
        metadata = subscription(*self.topics) if self.metadata is None else self.metadata
        request = JoinGroupRequest(
            group_id=self.group,
            session_timeout_ms=session_ms,
            rebalance_timeout_ms=rebalance_ms,
            member_id=self.member_id if member_id is None else member_id,
            group_instance_id=self.instance_id,
            protocol_type=self.protocol_type,
            protocols=[JoinGroupRequestProtocol(name=p, metadata=metadata) for p in self.protocols],
            reason=reason,
        )
        answer = self.client.call("JoinGroup", version, request)
        if answer.member_id:
            self.member_id = answer.member_id
        if answer.error_code == 0:
            self.generation_id = answer.generation_id
        self.joined = answer
        return answer

    def join(self, version: int = JOIN_V, **kwargs: Any) -> list[Any]:
        """JoinGroup, and once more when the coordinator answers MEMBER_ID_REQUIRED; every answer."""
        answers = [self.join_once(version, **kwargs)]
        if code_name(answers[0].error_code) == "MEMBER_ID_REQUIRED":
            answers.append(self.join_once(version, **kwargs))
        return answers

    def sync(
        self,
        assignments: dict[str, bytes] | None = None,
        generation_id: int | None = None,
        member_id: str | None = None,
        version: int = SYNC_V,
        protocol_name: str | None = None,
    ) -> Any:
        """SyncGroup (the leader passes ``assignments``: member id -> assignment bytes)."""
        request = SyncGroupRequest(
            group_id=self.group,
            generation_id=self.generation_id if generation_id is None else generation_id,
            member_id=self.member_id if member_id is None else member_id,
            group_instance_id=self.instance_id,
            protocol_type=self.protocol_type if version >= 5 else None,
            protocol_name=(protocol_name or self.protocols[0]) if version >= 5 else None,
            assignments=[
                SyncGroupRequestAssignment(member_id=m, assignment=a) for m, a in (assignments or {}).items()
            ],
        )
        return self.client.call("SyncGroup", version, request)

    def heartbeat(self, generation_id: int | None = None, member_id: str | None = None) -> str:
        """Heartbeat; the error's name."""
        request = HeartbeatRequest(
            group_id=self.group,
            generation_id=self.generation_id if generation_id is None else generation_id,
            member_id=self.member_id if member_id is None else member_id,
            group_instance_id=self.instance_id,
        )
        return code_name(self.client.call("Heartbeat", HEARTBEAT_V, request).error_code)

    def stable(self, assign: dict[str, list[int]] | None = None, **join: Any) -> list[str]:
        """Join as the only member and sync as its leader; the errors' names (a group now Stable).
        ``join`` goes to ``join`` (``session_ms``, ``rebalance_ms``)."""
        joins = self.join(**join)
        synced = self.sync({self.member_id: assignment(assign or {})})
        return [code_name(a.error_code) for a in joins] + [code_name(synced.error_code)]

    def commit(
        self,
        topic: str,
        offsets: dict[int, int],
        generation_id: int | None = None,
        member_id: str | None = None,
        version: int = COMMIT_V,
    ) -> list[Any]:
        return commit(
            self.client,
            self.group,
            topic,
            offsets,
            self.generation_id if generation_id is None else generation_id,
            self.member_id if member_id is None else member_id,
            version=version,
        )

    def leave(self) -> str:
        answer = self.client.call(
            "LeaveGroup",
            LEAVE_V,
            LeaveGroupRequest(
                group_id=self.group,
                members=[MemberIdentity(member_id=self.member_id, group_instance_id=self.instance_id)],
            ),
        )
        return code_name(answer.error_code)

    def close(self) -> None:
        self.client.close()


class Background:
    """``fn()`` run in a thread of its own; ``result()`` waits for it (bounded) and returns its
    value or raises what it raised."""

    def __init__(self, fn: Callable[[], Any]) -> None:
        self._outcome: dict[str, Any] = {}
        self._thread = threading.Thread(target=self._run, args=(fn,), daemon=True)
        self._thread.start()

    def _run(self, fn: Callable[[], Any]) -> None:
        try:
            self._outcome["value"] = fn()
        except Exception as exc:  # noqa: BLE001 - handed to the waiter
            self._outcome["error"] = exc

    def result(self, timeout_s: float = WAIT_S) -> Any:
        self._thread.join(timeout_s)
        if self._thread.is_alive():
            raise ScenarioError(f"a background request did not finish in {timeout_s} s")
        if "error" in self._outcome:
            raise self._outcome["error"]
        return self._outcome["value"]


def join_shape(answer: Any, member: Member | None = None) -> dict[str, Any]:
    """What a JoinGroup answer says, without its ids: the error, generation, protocol, whether
    the answering member is the leader, and how many members the answer lists."""
    out: dict[str, Any] = {
        "error": code_name(answer.error_code),
        "generation_id": answer.generation_id,
        "protocol_name": answer.protocol_name or "",
        "member_id_prefix": _prefix(answer.member_id),
        "is_leader": bool(answer.leader) and answer.leader == answer.member_id,
        "members": len(answer.members),
    }
    return out


def _prefix(member_id: str) -> str:
    """A member id's shape: ``conformance-`` and the length of the rest, or ``""`` when empty."""
    if not member_id:
        return ""
    head, _, rest = member_id.partition("-")
    return f"{head}-<{len(rest)}>" if rest else head


def commit(
    client: Any,
    group: str,
    topic: str,
    offsets: dict[int, int],
    generation_id: int = -1,
    member_id: str = "",
    metadata: str | None = "",
    leader_epoch: int = -1,
    version: int = COMMIT_V,
    node: int | None = None,
) -> list[Any]:
    """OffsetCommit for one topic; ``[partition, error]`` per partition answered, sorted.  ``client``
    is a ``RawKafkaClient`` or a ``Target`` (then ``node`` is the coordinator)."""
    request = OffsetCommitRequest(
        group_id=group,
        generation_id=generation_id,
        member_id=member_id,
        topics=[
            OffsetCommitRequestTopic(
                name=topic,
                partitions=[
                    OffsetCommitRequestPartition(
                        partition_index=p,
                        committed_offset=o,
                        committed_leader_epoch=leader_epoch,
                        committed_metadata=metadata,
                    )
                    for p, o in offsets.items()
                ],
            )
        ],
    )
    answer = (
        client.call("OffsetCommit", version, request, node)
        if isinstance(client, Target)
        else client.call("OffsetCommit", version, request)
    )
    return sorted([p.partition_index, code_name(p.error_code)] for t in answer.topics for p in t.partitions)


def fetch(
    t: Target, node: int, group: str, topics: dict[str, list[int]] | None, version: int = FETCH_V
) -> Any:
    """OffsetFetch; the top-level error and ``[topic, partition, offset, leader epoch, metadata,
    error]`` per partition answered, sorted."""
    request = OffsetFetchRequest(
        group_id=group,
        require_stable=False,
        topics=None
        if topics is None
        else [OffsetFetchRequestTopic(name=name, partition_indexes=parts) for name, parts in topics.items()],
    )
    answer = t.call("OffsetFetch", version, request, node)
    rows = sorted(
        [
            tp.name,
            p.partition_index,
            p.committed_offset,
            p.committed_leader_epoch,
            p.metadata,
            code_name(p.error_code),
        ]
        for tp in answer.topics
        for p in tp.partitions
    )
    return {"error": code_name(answer.error_code), "partitions": rows}


def describe(t: Target, node: int, group: str, version: int = DESCRIBE_V) -> dict[str, Any]:
    """DescribeGroups for one group: its error, state, protocol type and protocol, and member count."""
    g = t.call(
        "DescribeGroups",
        version,
        DescribeGroupsRequest(groups=[group], include_authorized_operations=False),
        node,
    ).groups[0]
    return {
        "error": code_name(g.error_code),
        "state": g.group_state,
        "protocol_type": g.protocol_type,
        "protocol": g.protocol_data,
        "members": len(g.members),
    }


def wait_state(t: Target, node: int, group: str, state: str) -> str:
    """Wait until DescribeGroups says ``group`` is in ``state``; the state.  (Kafka describes a
    group as its last replicated records leave it, so a change just answered may not show yet.)

    Raises:
        ScenarioError: not within ``WAIT_S``.
    """
    deadline = time.monotonic() + WAIT_S
    while True:
        seen = describe(t, node, group)["state"]
        if seen == state:
            return seen
        if time.monotonic() > deadline:
            raise ScenarioError(f"{t.name}: group {group} stayed {seen}, not {state}")
        time.sleep(0.05)


def topic(t: Target, name: str, partitions: int = 1) -> str:
    """Create a topic (replication factor 1) and wait for its leaders."""
    outcome = t.create_topic(name, partitions=partitions)
    if outcome == "TOPIC_ALREADY_EXISTS":  # a scenario run again on the same cluster
        t.wait_topic(name, partitions)
    elif outcome != "NONE":
        raise ScenarioError(f"{t.name}: could not create {name}: {outcome}")
    return name


def members(t: Target, group: str, count: int, **kwargs: Any) -> tuple[int, list[Member]]:
    """The coordinator of ``group`` and ``count`` members of it (not yet joined)."""
    node = coordinator(t, group)
    return node, [Member(t, group, node, **kwargs) for _ in range(count)]


def two_member_group(
    t: Target, group: str, rebalance_ms: int = REBALANCE_MS, **kwargs: Any
) -> tuple[int, Member, Member, list[Any]]:
    """A Stable group of one member A, then B joins (in a thread) and A rejoins: both in
    generation 2 (CompletingRebalance); the coordinator, A, B and their two JoinGroup answers."""
    node, (a, b) = members(t, group, 2, **kwargs)
    a.join(rebalance_ms=rebalance_ms)
    a.sync({a.member_id: b""})
    joining = Background(lambda: b.join(rebalance_ms=rebalance_ms))
    wait_state(t, node, group, "PreparingRebalance")
    a_answer = a.join(rebalance_ms=rebalance_ms)[-1]
    b_answer = joining.result()[-1]
    return node, a, b, [a_answer, b_answer]


# --- FindCoordinator ---------------------------------------------------------------------------------


def _find(t: Target, version: int, group: str) -> Any:
    """FindCoordinator at ``version`` for a group key; the error and whether the answer names one
    of the cluster's nodes at its own address."""
    coordinator(t, group)  # the coordinator exists (``__consumer_offsets`` is there)
    if version >= 4:
        answer = t.call(
            "FindCoordinator", version, FindCoordinatorRequest(key_type=0, coordinator_keys=[group])
        )
        found = [
            (c.key, c.node_id, c.host, c.port, c.error_code, c.error_message) for c in answer.coordinators
        ]
    else:
        answer = t.call("FindCoordinator", version, FindCoordinatorRequest(key=group, key_type=0))
        found = [
            (
                group,
                answer.node_id,
                answer.host,
                answer.port,
                answer.error_code,
                answer.error_message if version >= 1 else None,
            )
        ]
    return [
        {
            "key": key,
            "error": code_name(error),
            "error_message": message,
            "node_is_a_broker": node in t.addresses,
            "address_matches": t.addresses.get(node) == (host, port),
        }
        for key, node, host, port, error, message in found
    ]


for _v in range(7):
    register(
        f"groups/find-coordinator/v{_v}",
        f"FindCoordinator v{_v} for a group key: NONE and one of the brokers at its listener's address",
        lambda t, v=_v: _find(t, v, f"fc-v{v}"),
    )


@scenario("groups/find-coordinator/v4-batch")
def _find_batch(t: Target) -> Any:
    """FindCoordinator v4 with three group keys: an answer per key, each NONE and a broker."""
    keys = ["fc-batch-a", "fc-batch-b", "fc-batch-c"]
    coordinator(t, keys[0])
    answer = t.call("FindCoordinator", 4, FindCoordinatorRequest(key_type=0, coordinator_keys=keys))
    return sorted([c.key, code_name(c.error_code), c.node_id in t.addresses] for c in answer.coordinators)


@scenario("groups/find-coordinator/unknown-key-type")
def _find_unknown_type(t: Target) -> Any:
    """FindCoordinator v3 with key type 7 (neither group 0 nor transaction 1): INVALID_REQUEST."""
    coordinator(t, "fc-unknown-type")
    answer = t.call("FindCoordinator", 3, FindCoordinatorRequest(key="fc-unknown-type", key_type=7))
    return {"error": code_name(answer.error_code), "node_id": answer.node_id}


SHARE_TOPIC_ID = "AAECAwQFBgcICQoLDA0ODw"
"""A topic id in Kafka's string form (``Uuid.toString`` of bytes 0..15) for share-partition keys."""


@scenario("groups/find-coordinator/share-key-before-v6")
def _find_share_before_v6(t: Target) -> Any:
    """FindCoordinator v5 with key type 2 (share, KIP-932) and a well-formed share-partition key:
    INVALID_REQUEST, no node (share keys need v6)."""
    key = f"fc-share:{SHARE_TOPIC_ID}:0"
    answer = t.call("FindCoordinator", 5, FindCoordinatorRequest(key_type=2, coordinator_keys=[key]))
    return [[c.key, code_name(c.error_code), c.node_id, c.host, c.port] for c in answer.coordinators]


@scenario("groups/find-coordinator/v6-share-malformed-keys")
def _find_share_malformed(t: Target) -> Any:
    """FindCoordinator v6 with key type 2 and keys that are not share-partition keys
    (``groupId:topicId:partition``, Kafka's ``SharePartitionKey``): INVALID_REQUEST for each, no node.
    (A well-formed key makes Kafka create ``__share_group_state``, which the internal-topics scenarios
    expect absent; Kafkette, without share groups, answers it COORDINATOR_NOT_AVAILABLE as Kafka does
    before that topic exists.)"""
    keys = [
        "fc-share-one-part",
        f"{SHARE_TOPIC_ID}:0",
        "fc-share:not-a-topic-id:0",
        f"fc-share:{SHARE_TOPIC_ID}:not-a-partition",
        f" :{SHARE_TOPIC_ID}:0",
    ]
    answer = t.call("FindCoordinator", 6, FindCoordinatorRequest(key_type=2, coordinator_keys=keys))
    return [[c.key, code_name(c.error_code), c.node_id, c.host, c.port] for c in answer.coordinators]


# --- JoinGroup -----------------------------------------------------------------------------------------


@scenario("groups/join/member-id-required")
def _join_member_id_required(t: Target) -> Any:
    """JoinGroup v5, empty member id: MEMBER_ID_REQUIRED; again with that id: NONE, generation 1, leader.

    JoinGroup v5 with an empty member id: MEMBER_ID_REQUIRED and a member id (client id + dash + UUID);
    joining again with it: NONE, generation 1, the member leads and sees itself."""
    node, (a,) = members(t, "join-mid", 1)
    return [join_shape(x) for x in a.join()]


for _v in range(4):
    register(
        f"groups/join/v{_v}-direct",
        f"JoinGroup v{_v} (before KIP-394) with an empty member id: joined at once, generation 1, leader",
        lambda t, v=_v: join_shape(members(t, f"join-direct-v{v}", 1)[1][0].join(version=v)[-1]),
    )


@scenario("groups/join/v7-protocol-type")
def _join_v7(t: Target) -> Any:
    """JoinGroup v7 answers the protocol type as well as the protocol name."""
    node, (a,) = members(t, "join-v7", 1)
    answer = a.join(version=7)[-1]
    return {**join_shape(answer), "protocol_type": answer.protocol_type}


@scenario("groups/join/v8-reason")
def _join_v8_reason(t: Target) -> Any:
    """JoinGroup v8 (KIP-800) with a reason: MEMBER_ID_REQUIRED, then joined as leader (generation
    1); the Stable group's leader rejoining with a reason rebalances it (generation 2), the reason
    changing no answer."""
    node, (a,) = members(t, "join-v8-reason", 1)
    joins = a.join(version=8, reason="initial join")
    a.sync({a.member_id: b""})
    rejoined = a.join_once(version=8, reason="rebalance requested by the application")
    return [join_shape(x) for x in [*joins, rejoined]]


@scenario("groups/join/rebalance-timeout-minus-one")
def _join_rebalance_minus_one(t: Target) -> Any:
    """A v1+ JoinGroup with RebalanceTimeoutMs -1: kept as given (only v0, which has no such field,
    takes the session timeout), so the group's rebalance timeout is 0 and its pending-sync timer fires at
    once: the member, which never syncs, is removed (its heartbeat UNKNOWN_MEMBER_ID, the group Empty)."""
    node, (a,) = members(t, "join-minus-one", 1)
    joins = [code_name(x.error_code) for x in a.join(rebalance_ms=-1)]
    time.sleep(1)
    return {"joins": joins, "heartbeat": a.heartbeat(), "group": describe(t, node, "join-minus-one")}


@scenario("groups/join/session-timeout-too-small")
def _join_small_session(t: Target) -> Any:
    """JoinGroup with a session timeout of 5999 ms (below group.min.session.timeout.ms 6000):
    INVALID_SESSION_TIMEOUT."""
    node, (a,) = members(t, "join-small-session", 1)
    return [join_shape(x) for x in a.join(session_ms=5999)]


@scenario("groups/join/session-timeout-too-large")
def _join_large_session(t: Target) -> Any:
    """JoinGroup with a session timeout of 1800001 ms (above group.max.session.timeout.ms):
    INVALID_SESSION_TIMEOUT."""
    node, (a,) = members(t, "join-large-session", 1)
    return [join_shape(x) for x in a.join(session_ms=1800001)]


@scenario("groups/join/session-timeout-at-minimum")
def _join_min_session(t: Target) -> Any:
    """JoinGroup with a session timeout of exactly 6000 ms: accepted."""
    node, (a,) = members(t, "join-min-session", 1)
    return [join_shape(x) for x in a.join(session_ms=6000)]


@scenario("groups/join/unknown-member-id")
def _join_unknown_member(t: Target) -> Any:
    """JoinGroup naming a member id the group never gave out: UNKNOWN_MEMBER_ID."""
    node, (a, b) = members(t, "join-unknown-member", 2)
    a.stable()
    return join_shape(b.join_once(member_id="conformance-not-a-member"))


@scenario("groups/join/unknown-member-id-new-group")
def _join_unknown_member_new_group(t: Target) -> Any:
    """JoinGroup with a made-up member id to a group that does not exist yet: UNKNOWN_MEMBER_ID."""
    node, (a,) = members(t, "join-unknown-member-new", 1)
    return join_shape(a.join_once(member_id="conformance-not-a-member"))


@scenario("groups/join/protocol-type-mismatch")
def _join_type_mismatch(t: Target) -> Any:
    """A second member with protocol type connect in a consumer group: INCONSISTENT_GROUP_PROTOCOL.

    A second member joining with protocol type ``connect`` where the group's is ``consumer``:
    INCONSISTENT_GROUP_PROTOCOL (the group keeps its one member)."""
    node, (a,) = members(t, "join-type-mismatch", 1)
    b = Member(t, "join-type-mismatch", node, protocol_type="connect")
    a.stable()
    return {"b": [join_shape(x) for x in b.join()], "group": describe(t, node, "join-type-mismatch")}


@scenario("groups/join/no-common-protocol")
def _join_no_common(t: Target) -> Any:
    """A second member with only roundrobin where the member has only range: INCONSISTENT_GROUP_PROTOCOL.

    A second member supporting only ``roundrobin`` where the member has only ``range``:
    INCONSISTENT_GROUP_PROTOCOL."""
    node, (a,) = members(t, "join-no-common", 1)
    b = Member(t, "join-no-common", node, protocols=("roundrobin",))
    a.stable()
    return {"b": [join_shape(x) for x in b.join()], "group": describe(t, node, "join-no-common")}


@scenario("groups/join/empty-protocols")
def _join_empty_protocols(t: Target) -> Any:
    """JoinGroup with no protocols at all: INCONSISTENT_GROUP_PROTOCOL."""
    node, (a,) = members(t, "join-empty-protocols", 1, protocols=())
    return [join_shape(x) for x in a.join()]


@scenario("groups/join/empty-protocol-type")
def _join_empty_type(t: Target) -> Any:
    """JoinGroup with an empty protocol type: INCONSISTENT_GROUP_PROTOCOL."""
    node, (a,) = members(t, "join-empty-type", 1, protocol_type="")
    return [join_shape(x) for x in a.join()]


@scenario("groups/join/empty-group-id")
def _join_empty_group(t: Target) -> Any:
    """JoinGroup, SyncGroup, Heartbeat and LeaveGroup for the group id ``""``: INVALID_GROUP_ID."""
    coordinator(t, "join-empty-group-id")  # the coordinators are up
    a = Member(t, "", _coordinator_node(t, ""))
    leave = a.client.call(
        "LeaveGroup", 3, LeaveGroupRequest(group_id="", members=[MemberIdentity(member_id="m")])
    )
    return {
        "join": join_shape(a.join_once()),
        "sync": code_name(a.sync({}, generation_id=1, member_id="m").error_code),
        "heartbeat": a.heartbeat(generation_id=1, member_id="m"),
        "leave": code_name(leave.error_code),
    }


@scenario("groups/admin/empty-group-id")
def _admin_empty_group(t: Target) -> Any:
    """Group id "": commit, fetch, describe and delete work; OffsetDelete answers INVALID_GROUP_ID.

    The group id ``""`` in the offset and admin requests: Kafka keeps OffsetCommit, OffsetFetch,
    DescribeGroups and DeleteGroups working for it (backwards compatibility) and refuses OffsetDelete with
    INVALID_GROUP_ID."""
    name = topic(t, "empty-group-id-topic")
    coordinator(t, "admin-empty-group-id")
    node = _coordinator_node(t, "")
    return {
        "describe": describe(t, node, ""),
        "fetch_before": fetch(t, node, "", {name: [0]}),
        "commit": commit(t, "", name, {0: 1}, node=node),
        "fetch_after": fetch(t, node, "", {name: [0]}),
        "offset_delete": _offset_delete(t, node, "", {name: [0]}),
        "delete": _delete_groups(t, node, ""),
        "delete_again": _delete_groups(t, node, ""),
    }


@scenario("groups/join/protocol-chosen-by-all")
def _join_common_protocol(t: Target) -> Any:
    """Members preferring [range, roundrobin] and [roundrobin, range]: both get range (the vote).

    Members preferring [range, roundrobin] and [roundrobin, range]: both get the same protocol (the one
    most members vote for, ties to the first candidate)."""
    node, (a,) = members(t, "join-vote", 1, protocols=("range", "roundrobin"))
    b = Member(t, "join-vote", node, protocols=("roundrobin", "range"))
    a.stable()
    joining = Background(lambda: b.join())
    wait_state(t, node, "join-vote", "PreparingRebalance")
    first = a.join()[-1]
    second = joining.result()[-1]
    return {
        "a": first.protocol_name,
        "b": second.protocol_name,
        "same": first.protocol_name == second.protocol_name,
    }


@scenario("groups/join/two-members-leader-and-follower")
def _join_two(t: Target) -> Any:
    """A second member joins a Stable group: generation 2, the leader sees both members, the follower none.

    A second member joins a Stable group: both rejoin into generation 2; the first member stays leader and
    gets the two members' metadata, the follower an empty list and the leader's id."""
    node, a, b, (ja, jb) = two_member_group(t, "join-two")
    return {
        "a": join_shape(ja),
        "b": join_shape(jb),
        "same_leader": ja.leader == jb.leader == a.member_id,
        "leader_sees": sorted(m.member_id == a.member_id for m in ja.members),
        "metadata_round_trip": sorted(m.metadata == subscription("t") for m in ja.members),
        "state": describe(t, node, "join-two"),
    }


@scenario("groups/join/leader-rejoins-stable")
def _join_leader_rejoins(t: Target) -> Any:
    """The only member (the leader) joins again while Stable: a new rebalance, generation 2."""
    node, (a,) = members(t, "join-leader-rejoin", 1)
    setup = a.stable()
    return {"setup": setup, "rejoin": join_shape(a.join()[-1])}


@scenario("groups/join/follower-rejoins-stable")
def _join_follower_rejoins(t: Target) -> Any:
    """A follower rejoins a Stable group: same metadata, same generation at once; new metadata, a rebalance.

    A Stable group's follower rejoins with the same metadata: its current generation at once, no
    rebalance; rejoining with another subscription: a rebalance (the group PreparingRebalance)."""
    node, a, b, _ = two_member_group(t, "join-follower-rejoin")
    a.sync({a.member_id: b"", b.member_id: b""})
    b.sync()
    wait_state(t, node, "join-follower-rejoin", "Stable")
    same = b.join_once()
    state_after_same = describe(t, node, "join-follower-rejoin")["state"]
    b.topics = ("t", "u")
    changing = Background(lambda: b.join_once())
    changed_state = wait_state(t, node, "join-follower-rejoin", "PreparingRebalance")
    a.join()
    changed = changing.result()
    return {
        "same": join_shape(same),
        "state_after_same": state_after_same,
        "changed_state": changed_state,
        "changed": join_shape(changed),
    }


@scenario("groups/join/rejoin-while-completing")
def _join_rejoin_completing(t: Target) -> Any:
    """Rejoining with the same metadata before SyncGroup: the same generation at once, no rebalance.

    The only member joins again before its SyncGroup (CompletingRebalance) with the same metadata: the
    same generation at once; its SyncGroup then completes the group."""
    node, (a,) = members(t, "join-rejoin-completing", 1)
    first = a.join()[-1]
    wait_state(t, node, "join-rejoin-completing", "CompletingRebalance")
    again = a.join_once()
    synced = a.sync({a.member_id: b""})
    return {
        "first": join_shape(first),
        "again": join_shape(again),
        "sync": code_name(synced.error_code),
        "group": describe(t, node, "join-rejoin-completing"),
    }


# --- SyncGroup ------------------------------------------------------------------------------------------


@scenario("groups/sync/leader-assignment")
def _sync_leader(t: Target) -> Any:
    """The leader's SyncGroup v5: NONE, protocol type and name, its assignment back; the group Stable.

    The leader's SyncGroup v5 with its own assignment: NONE, the protocol type and name, and its
    assignment back byte for byte; the group is Stable."""
    node, (a,) = members(t, "sync-leader", 1)
    a.join()
    given = assignment({"t": [0, 1]})
    answer = a.sync({a.member_id: given}, version=5)
    return {
        "error": code_name(answer.error_code),
        "protocol_type": answer.protocol_type,
        "protocol_name": answer.protocol_name,
        "assignment_round_trip": answer.assignment == given,
        "group": describe(t, node, "sync-leader"),
    }


@scenario("groups/sync/wrong-generation")
def _sync_wrong_generation(t: Target) -> Any:
    """SyncGroup with generation 5 where the group is in 1: ILLEGAL_GENERATION."""
    node, (a,) = members(t, "sync-wrong-gen", 1)
    a.join()
    return code_name(a.sync({a.member_id: b""}, generation_id=5).error_code)


@scenario("groups/sync/unknown-member")
def _sync_unknown_member(t: Target) -> Any:
    """SyncGroup from a member id the group does not know: UNKNOWN_MEMBER_ID."""
    node, (a,) = members(t, "sync-unknown-member", 1)
    a.join()
    return code_name(a.sync({}, member_id="conformance-stranger").error_code)


@scenario("groups/sync/unknown-group")
def _sync_unknown_group(t: Target) -> Any:
    """SyncGroup to a group that does not exist: UNKNOWN_MEMBER_ID."""
    node, (a,) = members(t, "sync-unknown-group", 1)
    return code_name(a.sync({}, generation_id=1, member_id="conformance-stranger").error_code)


@scenario("groups/sync/during-preparing-rebalance")
def _sync_before_join_completes(t: Target) -> Any:
    """SyncGroup from a member while another member waits to join (PreparingRebalance): REBALANCE_IN_PROGRESS.

    SyncGroup from a Stable group's member after another member asked to join (the join phase has not
    completed): REBALANCE_IN_PROGRESS."""
    node, (a, b) = members(t, "sync-preparing", 2)
    a.stable()
    joining = Background(lambda: b.join())
    wait_state(t, node, "sync-preparing", "PreparingRebalance")
    during = code_name(a.sync({a.member_id: b""}).error_code)
    a.join()
    joining.result()
    return during


@scenario("groups/sync/follower-waits-for-leader")
def _sync_follower(t: Target) -> Any:
    """A follower's SyncGroup waits for the leader's; both get their assignments, NONE; the group Stable.

    A follower's SyncGroup waits for the leader's; both then get what the leader assigned them and the
    group is Stable."""
    node, a, b, _ = two_member_group(t, "sync-follower")
    before = describe(t, node, "sync-follower")["state"]
    follower = Background(lambda: b.sync())
    time.sleep(0.3)
    given = {a.member_id: assignment({"t": [0]}), b.member_id: assignment({"t": [1]})}
    leader = a.sync(given)
    got = follower.result()
    return {
        "before": before,
        "leader": [code_name(leader.error_code), leader.assignment == given[a.member_id]],
        "follower": [code_name(got.error_code), got.assignment == given[b.member_id]],
        "after": describe(t, node, "sync-follower"),
    }


@scenario("groups/sync/protocol-name-mismatch")
def _sync_protocol_mismatch(t: Target) -> Any:
    """SyncGroup v5 naming protocol ``roundrobin`` where the group chose ``range``:
    INCONSISTENT_GROUP_PROTOCOL."""
    node, (a,) = members(t, "sync-protocol-mismatch", 1)
    a.join()
    return code_name(a.sync({a.member_id: b""}, version=5, protocol_name="roundrobin").error_code)


@scenario("groups/sync/leader-assigns-unknown-member")
def _sync_unknown_assignment(t: Target) -> Any:
    """The leader's SyncGroup also assigning a member id not in the group: NONE, the group Stable.

    The leader's SyncGroup with an assignment for itself and one for a member id that is not in the group:
    NONE, and the group Stable with its one member."""
    node, (a,) = members(t, "sync-extra-assignment", 1)
    a.join()
    answer = a.sync({a.member_id: assignment({"t": [0]}), "conformance-ghost": assignment({"t": [1]})})
    return {
        "error": code_name(answer.error_code),
        "assignment_round_trip": answer.assignment == assignment({"t": [0]}),
        "group": describe(t, node, "sync-extra-assignment"),
    }


@scenario("groups/sync/never-synced-member-is-removed")
def _sync_pending_timeout(t: Target) -> Any:
    """A member that joins but never sends SyncGroup is removed after the rebalance timeout; the group Empty.

    A member that joins (rebalance timeout 2000 ms) and keeps heartbeating but never sends SyncGroup:
    after the rebalance timeout it is removed from the group (Kafka's pending-sync timeout), its
    heartbeats then answered UNKNOWN_MEMBER_ID, and the group Empty."""
    node, (a,) = members(t, "sync-never", 1)
    a.join(rebalance_ms=2000)
    seen: list[str] = []
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        answer = a.heartbeat()
        if not seen or seen[-1] != answer:
            seen.append(answer)
        time.sleep(0.25)
    return {"heartbeats": seen, "group": describe(t, node, "sync-never")}


# --- Heartbeat -------------------------------------------------------------------------------------------


@scenario("groups/heartbeat/stable")
def _heartbeat_stable(t: Target) -> Any:
    """A heartbeat from a member of a Stable group: NONE."""
    node, (a,) = members(t, "hb-stable", 1)
    return {"setup": a.stable(), "heartbeat": a.heartbeat()}


@scenario("groups/heartbeat/completing-rebalance")
def _heartbeat_completing(t: Target) -> Any:
    """A heartbeat between JoinGroup and SyncGroup (CompletingRebalance): NONE."""
    node, (a,) = members(t, "hb-completing", 1)
    a.join()
    return {"state": wait_state(t, node, "hb-completing", "CompletingRebalance"), "heartbeat": a.heartbeat()}


@scenario("groups/heartbeat/rebalance-in-progress")
def _heartbeat_rebalance(t: Target) -> Any:
    """A heartbeat from a Stable group's member after another member asked to join: REBALANCE_IN_PROGRESS."""
    node, (a, b) = members(t, "hb-rebalance", 2)
    a.stable()
    joining = Background(lambda: b.join())
    wait_state(t, node, "hb-rebalance", "PreparingRebalance")
    during = a.heartbeat()
    a.join()
    joining.result()
    return during


@scenario("groups/heartbeat/unknown-member")
def _heartbeat_unknown_member(t: Target) -> Any:
    """A heartbeat naming a member id the group does not know: UNKNOWN_MEMBER_ID."""
    node, (a,) = members(t, "hb-unknown-member", 1)
    a.stable()
    return a.heartbeat(member_id="conformance-stranger")


@scenario("groups/heartbeat/illegal-generation")
def _heartbeat_illegal_generation(t: Target) -> Any:
    """A heartbeat with a generation the group is not in: ILLEGAL_GENERATION."""
    node, (a,) = members(t, "hb-illegal-gen", 1)
    a.stable()
    return [a.heartbeat(generation_id=a.generation_id + 1), a.heartbeat(generation_id=a.generation_id - 1)]


@scenario("groups/heartbeat/unknown-group")
def _heartbeat_unknown_group(t: Target) -> Any:
    """A heartbeat to a group that does not exist: UNKNOWN_MEMBER_ID."""
    node, (a,) = members(t, "hb-unknown-group", 1)
    return a.heartbeat(generation_id=1, member_id="conformance-stranger")


# --- LeaveGroup ---------------------------------------------------------------------------------------------


def _leave_single(t: Target, version: int) -> Any:
    group = f"leave-single-v{version}"
    node, (a,) = members(t, group, 1)
    a.stable()
    answer = t.call("LeaveGroup", version, LeaveGroupRequest(group_id=group, member_id=a.member_id), node)
    return {"error": code_name(answer.error_code), "group": describe(t, node, group)}


for _v in range(3):
    register(
        f"groups/leave/v{_v}-single-member",
        f"LeaveGroup v{_v} from the only member: NONE, and the group is Empty",
        lambda t, v=_v: _leave_single(t, v),
    )


@scenario("groups/leave/v1-unknown-member")
def _leave_unknown_v1(t: Target) -> Any:
    """LeaveGroup v1 naming a member id the group does not know: UNKNOWN_MEMBER_ID."""
    node, (a,) = members(t, "leave-unknown-v1", 1)
    a.stable()
    answer = t.call(
        "LeaveGroup", 1, LeaveGroupRequest(group_id="leave-unknown-v1", member_id="conformance-x"), node
    )
    return {"error": code_name(answer.error_code), "group": describe(t, node, "leave-unknown-v1")}


@scenario("groups/leave/v3-batch-with-unknown")
def _leave_batch(t: Target) -> Any:
    """LeaveGroup v3 for two members and an unknown one: NONE, NONE, UNKNOWN_MEMBER_ID; the group Empty.

    LeaveGroup v3 for two members and an unknown one: top-level NONE, per member NONE, NONE and
    UNKNOWN_MEMBER_ID; the group is Empty."""
    node, a, b, _ = two_member_group(t, "leave-batch")
    answer = t.call(
        "LeaveGroup",
        3,
        LeaveGroupRequest(
            group_id="leave-batch",
            members=[
                MemberIdentity(member_id=a.member_id),
                MemberIdentity(member_id=b.member_id),
                MemberIdentity(member_id="conformance-unknown"),
            ],
        ),
        node,
    )
    per_member = sorted(
        [m.member_id == "conformance-unknown", m.group_instance_id, code_name(m.error_code)]
        for m in answer.members
    )
    return {
        "error": code_name(answer.error_code),
        "members": per_member,
        "group": describe(t, node, "leave-batch"),
    }


@scenario("groups/leave/v3-unknown-group")
def _leave_unknown_group(t: Target) -> Any:
    """LeaveGroup v3 to a group that does not exist: top-level NONE, UNKNOWN_MEMBER_ID for the member."""
    node = coordinator(t, "leave-unknown-group")
    answer = t.call(
        "LeaveGroup",
        3,
        LeaveGroupRequest(
            group_id="leave-unknown-group", members=[MemberIdentity(member_id="conformance-x")]
        ),
        node,
    )
    return {
        "error": code_name(answer.error_code),
        "members": [[m.member_id, code_name(m.error_code)] for m in answer.members],
    }


@scenario("groups/leave/v4-static-member-by-instance-id")
def _leave_static(t: Target) -> Any:
    """LeaveGroup v4 naming a static member by group.instance.id alone: NONE; the group Empty.

    LeaveGroup v4 naming a static member by its group.instance.id alone (member id
    ``JoinGroupRequest.UNKNOWN_MEMBER_ID``): NONE for it and the group is Empty."""
    node, (a,) = members(t, "leave-static", 1, instance_id="instance-1")
    a.stable()
    answer = t.call(
        "LeaveGroup",
        4,
        LeaveGroupRequest(
            group_id="leave-static", members=[MemberIdentity(member_id="", group_instance_id="instance-1")]
        ),
        node,
    )
    return {
        "error": code_name(answer.error_code),
        "members": [[m.group_instance_id, code_name(m.error_code)] for m in answer.members],
        "group": describe(t, node, "leave-static"),
    }


@scenario("groups/leave/v5-reason")
def _leave_reason(t: Target) -> Any:
    """LeaveGroup v5 (KIP-800) with a reason for each member, one of them unknown and one reason
    null: the reason changes no answer (NONE, UNKNOWN_MEMBER_ID); the group is Empty."""
    node, (a,) = members(t, "leave-reason", 1)
    a.stable()
    answer = t.call(
        "LeaveGroup",
        5,
        LeaveGroupRequest(
            group_id="leave-reason",
            members=[
                MemberIdentity(member_id=a.member_id, reason="the consumer is closing"),
                MemberIdentity(member_id="conformance-unknown", reason=None),
            ],
        ),
        node,
    )
    return {
        "error": code_name(answer.error_code),
        "members": [
            [m.member_id == a.member_id, m.group_instance_id, code_name(m.error_code)] for m in answer.members
        ],
        "group": describe(t, node, "leave-reason"),
    }


# --- static membership -------------------------------------------------------------------------------------


@scenario("groups/static/rejoin-same-instance-id")
def _static_rejoin(t: Target) -> Any:
    """A static member rejoins with an empty member id: a new id at once, same generation, no rebalance.

    A static member (group.instance.id) restarts and joins with an empty member id: it gets a new member
    id at once, in the same generation, with no rebalance (the group stays Stable)."""
    node, (a,) = members(t, "static-rejoin", 1, instance_id="instance-1")
    a.stable({"t": [0]})
    b = Member(t, "static-rejoin", node, instance_id="instance-1")
    answer = b.join_once()
    return {
        "rejoin": join_shape(answer),
        "new_member_id": answer.member_id != a.member_id,
        "same_generation": answer.generation_id == a.generation_id,
        "group": describe(t, node, "static-rejoin"),
    }


@scenario("groups/static/leader-rejoins-v9-skip-assignment")
def _static_leader_skip_assignment(t: Target) -> Any:
    """JoinGroup v9 (KIP-814): the static leader of a Stable group restarts and rejoins: a new id
    at once, same generation, no rebalance, answered as the leader with every member (its instance
    id) and skip_assignment true; the same rejoin at v8 names the leader as it was, lists no member
    and does not skip."""
    out = {}
    for version in (8, 9):
        group = f"static-skip-v{version}"
        node, (a, follower) = members(t, group, 2, instance_id="instance-1")
        follower.instance_id = "instance-2"
        a.join(**LIVE)
        a.sync({a.member_id: b""})
        joining = Background(lambda f=follower: f.join(**LIVE))
        wait_state(t, node, group, "PreparingRebalance")
        a.join(**LIVE)
        joining.result()
        a.sync({a.member_id: b"", follower.member_id: b""})
        follower.sync()
        wait_state(t, node, group, "Stable")
        restarted = Member(t, group, node, instance_id="instance-1")
        answer = restarted.join_once(version=version, **LIVE)
        out[f"v{version}"] = {
            **join_shape(answer),
            "leader_is_old_id": answer.leader == a.member_id,
            "skip_assignment": answer.skip_assignment if version >= 9 else None,
            "member_instances": sorted(m.group_instance_id or "" for m in answer.members),
            "same_generation": answer.generation_id == a.generation_id,
            "group": describe(t, node, group),
        }
        for m in (a, follower, restarted):
            m.close()
    return out


@scenario("groups/static/fenced-instance-id")
def _static_fenced(t: Target) -> Any:
    """The replaced static member's old id: FENCED_INSTANCE_ID on Heartbeat, SyncGroup and OffsetCommit.

    After a static member was replaced, the old member id with the same instance id gets
    FENCED_INSTANCE_ID on Heartbeat, SyncGroup and OffsetCommit."""
    topic(t, "static-fenced-topic")
    node, (a,) = members(t, "static-fenced", 1, instance_id="instance-1")
    a.stable()
    b = Member(t, "static-fenced", node, instance_id="instance-1")
    b.join_once()
    request = OffsetCommitRequest(
        group_id="static-fenced",
        generation_id=a.generation_id,
        member_id=a.member_id,
        group_instance_id="instance-1",
        topics=[
            OffsetCommitRequestTopic(
                name="static-fenced-topic",
                partitions=[
                    OffsetCommitRequestPartition(partition_index=0, committed_offset=1, committed_metadata="")
                ],
            )
        ],
    )
    committed = a.client.call("OffsetCommit", COMMIT_V, request)
    return {
        "heartbeat": a.heartbeat(),
        "sync": code_name(a.sync({}).error_code),
        "commit": [code_name(p.error_code) for tp in committed.topics for p in tp.partitions],
        "new_member_heartbeat": b.heartbeat(),
    }


# --- DescribeGroups and ListGroups --------------------------------------------------------------------------


@scenario("groups/describe/dead-unknown-group")
def _describe_dead(t: Target) -> Any:
    """DescribeGroups v5 of a group that does not exist: NONE, state Dead, no protocol, no members."""
    node = coordinator(t, "describe-no-such-group")
    return describe(t, node, "describe-no-such-group")


@scenario("groups/describe/stable")
def _describe_stable(t: Target) -> Any:
    """DescribeGroups v5 of a Stable group: Stable, consumer, range, its member with metadata and assignment.

    DescribeGroups v5 of a Stable one-member group: Stable, consumer, range, one member with the client
    id, its metadata and its assignment."""
    node, (a,) = members(t, "describe-stable", 1)
    a.stable({"t": [0]})
    g = t.call("DescribeGroups", 5, DescribeGroupsRequest(groups=["describe-stable"]), node).groups[0]
    m = g.members[0]
    return {
        **describe(t, node, "describe-stable"),
        "member_is_a": m.member_id == a.member_id,
        "client_id": m.client_id,
        "instance_id": m.group_instance_id,
        "metadata_round_trip": m.member_metadata == subscription("t"),
        "assignment_round_trip": m.member_assignment == assignment({"t": [0]}),
    }


@scenario("groups/describe/static-member-instance-id")
def _describe_static(t: Target) -> Any:
    """DescribeGroups v4+ lists a static member's group.instance.id."""
    node, (a,) = members(t, "describe-static", 1, instance_id="instance-7")
    a.stable()
    g = t.call("DescribeGroups", 4, DescribeGroupsRequest(groups=["describe-static"]), node).groups[0]
    return [[m.group_instance_id, m.client_id] for m in g.members]


@scenario("groups/describe/preparing-rebalance")
def _describe_preparing(t: Target) -> Any:
    """DescribeGroups while a member waits to join: PreparingRebalance, no protocol, both members listed.

    DescribeGroups while a second member waits to join a Stable group: PreparingRebalance, no protocol
    shown, both members listed."""
    node, (a, b) = members(t, "describe-preparing", 2)
    a.stable()
    joining = Background(lambda: b.join())
    wait_state(t, node, "describe-preparing", "PreparingRebalance")
    during = describe(t, node, "describe-preparing")
    a.join()
    joining.result()
    return during


@scenario("groups/describe/completing-rebalance")
def _describe_completing(t: Target) -> Any:
    """DescribeGroups between JoinGroup and SyncGroup: CompletingRebalance, one member, no protocol shown.

    DescribeGroups after JoinGroup but before SyncGroup: CompletingRebalance, consumer, one member and no
    protocol shown (only a Stable group shows it)."""
    node, (a,) = members(t, "describe-completing", 1)
    a.join()
    wait_state(t, node, "describe-completing", "CompletingRebalance")
    return describe(t, node, "describe-completing")


@scenario("groups/describe/empty-after-leave")
def _describe_empty_after_leave(t: Target) -> Any:
    """DescribeGroups of a group whose only member left: Empty, protocol type kept, no protocol, no
    members."""
    node, (a,) = members(t, "describe-empty-leave", 1)
    a.stable()
    a.leave()
    return describe(t, node, "describe-empty-leave")


@scenario("groups/describe/empty-offsets-only")
def _describe_offsets_only(t: Target) -> Any:
    """DescribeGroups of a group that only has committed offsets (a simple consumer's): Empty, no protocol
    type."""
    topic(t, "describe-offsets-topic")
    node = coordinator(t, "describe-offsets-only")
    committed = commit(t, "describe-offsets-only", "describe-offsets-topic", {0: 3}, node=node)
    return {"commit": committed, "group": describe(t, node, "describe-offsets-only")}


@scenario("groups/describe/batch-and-v0")
def _describe_batch(t: Target) -> Any:
    """DescribeGroups v0 of a live and an unknown group (one coordinator): Stable and Dead, both NONE.

    DescribeGroups v0 for a live group and an unknown one of the same coordinator: an answer per group
    (the live one Stable, the unknown one Dead)."""
    node, (a,) = members(t, "describe-batch", 1)
    a.stable()
    unknown = next(
        (
            name
            for name in (f"describe-batch-none-{i}" for i in range(200))
            if _coordinator_node(t, name) == node
        ),
        None,
    )
    if unknown is None:
        raise ScenarioError(f"{t.name}: no group name found coordinated by node {node}")
    answer = t.call("DescribeGroups", 0, DescribeGroupsRequest(groups=["describe-batch", unknown]), node)
    return sorted(
        [g.group_id == unknown, code_name(g.error_code), g.group_state, g.protocol_type, len(g.members)]
        for g in answer.groups
    )


@scenario("groups/describe/v6-unknown-group-not-found")
def _describe_v6(t: Target) -> Any:
    """DescribeGroups v6 (KIP-1043) of a live, an unknown and an offsets-only group, each at its
    coordinator, asking authorized operations: the live one Stable with no error message, the
    unknown one Dead with GROUP_ID_NOT_FOUND and Kafka's message (no operations), the one with
    only committed offsets Empty."""
    node, (a,) = members(t, "describe-v6", 1)
    a.stable()
    topic(t, "describe-v6-topic")
    commit(t, "describe-v6-offsets", "describe-v6-topic", {0: 1}, node=coordinator(t, "describe-v6-offsets"))
    out = []
    for group in ("describe-v6", "describe-v6-nobody", "describe-v6-offsets"):
        g = t.call(
            "DescribeGroups",
            6,
            DescribeGroupsRequest(groups=[group], include_authorized_operations=True),
            coordinator(t, group),
        ).groups[0]
        out.append(
            [
                g.group_id,
                code_name(g.error_code),
                g.error_message,
                g.group_state,
                g.protocol_type,
                len(g.members),
                g.authorized_operations,
            ]
        )
    return out


def _coordinator_node(t: Target, group: str) -> int:
    """FindCoordinator v3's node id for ``group`` (-1 when it answers an error)."""
    answer = t.call("FindCoordinator", 3, FindCoordinatorRequest(key=group, key_type=0))
    return answer.node_id if answer.error_code == 0 else -1


def _listed(t: Target, names: set[str], states: list[str] | None = None, version: int = LIST_V) -> Any:
    """ListGroups from every broker (each lists the groups it coordinates), kept to ``names``:
    ``[group, protocol type, state]`` sorted."""
    rows = []
    for node in t.addresses:
        answer = t.call("ListGroups", version, ListGroupsRequest(states_filter=states or []), node)
        if answer.error_code:
            rows.append(["error", code_name(answer.error_code)])
        rows.extend(
            [g.group_id, g.protocol_type, g.group_state if version >= 4 else None]
            for g in answer.groups
            if g.group_id in names
        )
    return sorted(rows)


@scenario("groups/list/all")
def _list_all(t: Target) -> Any:
    """ListGroups v3 on every broker: each group once, with its protocol type."""
    node, (a,) = members(t, "list-all-a", 1)
    a.stable()
    topic(t, "list-all-topic")
    commit(t, "list-all-b", "list-all-topic", {0: 1}, node=coordinator(t, "list-all-b"))
    return _listed(t, {"list-all-a", "list-all-b"}, version=3)


@scenario("groups/list/states-filter")
def _list_states(t: Target) -> Any:
    """ListGroups v4 states filters [Stable], [Empty], [Stable, Empty] and []: each lists its groups only.

    ListGroups v4 with states filters: [Stable] lists the Stable group only, [Empty] the Empty one,
    [Stable, Empty] both, [] all of them."""
    node, (a,) = members(t, "list-filter-stable", 1)
    a.stable()
    b_node, (b,) = members(t, "list-filter-empty", 1)
    b.stable()
    b.leave()
    names = {"list-filter-stable", "list-filter-empty"}
    return {
        "stable": _listed(t, names, ["Stable"]),
        "empty": _listed(t, names, ["Empty"]),
        "both": _listed(t, names, ["Stable", "Empty"]),
        "none": _listed(t, names, []),
    }


@scenario("groups/list/states-filter-case-and-unknown")
def _list_states_odd(t: Target) -> Any:
    """ListGroups v4 with the filter [stable] (lower case: matches Stable) and [NoSuchState] (matches
    nothing)."""
    node, (a,) = members(t, "list-filter-odd", 1)
    a.stable()
    names = {"list-filter-odd"}
    return {"lower": _listed(t, names, ["stable"]), "unknown": _listed(t, names, ["NoSuchState"])}


def _listed_v5(t: Target, names: set[str], types: list[str]) -> Any:
    """ListGroups v5 with a types filter from every broker, kept to ``names``: ``[group, protocol
    type, state, group type]`` sorted."""
    rows = []
    for node in t.addresses:
        answer = t.call("ListGroups", 5, ListGroupsRequest(states_filter=[], types_filter=types), node)
        if answer.error_code:
            rows.append(["error", code_name(answer.error_code)])
        rows.extend(
            [g.group_id, g.protocol_type, g.group_state, g.group_type]
            for g in answer.groups
            if g.group_id in names
        )
    return sorted(rows)


@scenario("groups/list/types-filter")
def _list_types(t: Target) -> Any:
    """ListGroups v5 types filters [], [classic], [Classic], [consumer], [share], [consumer, classic],
    [nosuch].

    A group joined with JoinGroup/SyncGroup and one with committed offsets only are both of type
    classic (KIP-848's GroupType); a filter lists the types it names, case-insensitively."""
    node, (a,) = members(t, "list-types-a", 1)
    a.stable()
    topic(t, "list-types-topic")
    commit(t, "list-types-b", "list-types-topic", {0: 1}, node=coordinator(t, "list-types-b"))
    names = {"list-types-a", "list-types-b"}
    return {
        str(types): _listed_v5(t, names, types)
        for types in (
            [],
            ["classic"],
            ["Classic"],
            ["consumer"],
            ["share"],
            ["consumer", "classic"],
            ["nosuch"],
        )
    }


# --- OffsetCommit and OffsetFetch ---------------------------------------------------------------------------


@scenario("groups/commit/simple-generation-minus-1")
def _commit_simple(t: Target) -> Any:
    """OffsetCommit v8 with generation -1 and no member (simple consumer): NONE; OffsetFetch reads it back.

    OffsetCommit v8 with generation -1 and no member id (a simple consumer) to a new group: NONE;
    OffsetFetch gives back offset, leader epoch and metadata."""
    topic(t, "commit-simple-topic", 2)
    node = coordinator(t, "commit-simple")
    committed = commit(
        t, "commit-simple", "commit-simple-topic", {0: 5, 1: 7}, metadata="meta-1", leader_epoch=0, node=node
    )
    return {"commit": committed, "fetch": fetch(t, node, "commit-simple", {"commit-simple-topic": [0, 1]})}


@scenario("groups/commit/v2-simple")
def _commit_v2(t: Target) -> Any:
    """OffsetCommit v2 (retention time field) and OffsetFetch v1 of a simple consumer's offsets."""
    topic(t, "commit-v2-topic")
    node = coordinator(t, "commit-v2")
    committed = commit(t, "commit-v2", "commit-v2-topic", {0: 11}, metadata="m", version=2, node=node)
    return {"commit": committed, "fetch": fetch(t, node, "commit-v2", {"commit-v2-topic": [0]}, version=1)}


@scenario("groups/commit/unknown-topic")
def _commit_unknown_topic(t: Target) -> Any:
    """OffsetCommit for a topic that does not exist: UNKNOWN_TOPIC_OR_PARTITION."""
    node = coordinator(t, "commit-unknown-topic")
    return commit(t, "commit-unknown-topic", "commit-no-such-topic", {0: 1}, node=node)


@scenario("groups/commit/unknown-partition")
def _commit_unknown_partition(t: Target) -> Any:
    """OffsetCommit for partition 3 of a one-partition topic (and 0): UNKNOWN_TOPIC_OR_PARTITION for 3, NONE
    for 0."""
    topic(t, "commit-unknown-partition-topic")
    node = coordinator(t, "commit-unknown-partition")
    return commit(t, "commit-unknown-partition", "commit-unknown-partition-topic", {0: 1, 3: 1}, node=node)


@scenario("groups/commit/illegal-generation")
def _commit_illegal_generation(t: Target) -> Any:
    """OffsetCommit from a Stable group's member with the wrong generation: ILLEGAL_GENERATION."""
    topic(t, "commit-illegal-gen-topic")
    node, (a,) = members(t, "commit-illegal-gen", 1)
    a.stable()
    return {
        "wrong": a.commit("commit-illegal-gen-topic", {0: 1}, generation_id=a.generation_id + 1),
        "right": a.commit("commit-illegal-gen-topic", {0: 2}),
    }


@scenario("groups/commit/unknown-member")
def _commit_unknown_member(t: Target) -> Any:
    """OffsetCommit naming a member id the Stable group does not know: UNKNOWN_MEMBER_ID."""
    topic(t, "commit-unknown-member-topic")
    node, (a,) = members(t, "commit-unknown-member", 1)
    a.stable()
    return a.commit("commit-unknown-member-topic", {0: 1}, member_id="conformance-stranger")


@scenario("groups/commit/simple-to-non-empty-group")
def _commit_simple_non_empty(t: Target) -> Any:
    """OffsetCommit with generation -1 and no member id to a group that has members: UNKNOWN_MEMBER_ID."""
    topic(t, "commit-simple-busy-topic")
    node, (a,) = members(t, "commit-simple-busy", 1)
    a.stable()
    return commit(t, "commit-simple-busy", "commit-simple-busy-topic", {0: 1}, node=node)


@scenario("groups/commit/during-rebalance")
def _commit_during_rebalance(t: Target) -> Any:
    """OffsetCommit from a member while another waits to join (PreparingRebalance): NONE, accepted.

    OffsetCommit from a member with its generation while another member waits to join
    (PreparingRebalance): accepted, NONE (only CompletingRebalance refuses commits)."""
    topic(t, "commit-rebalance-topic")
    node, (a, b) = members(t, "commit-rebalance", 2)
    a.stable()
    joining = Background(lambda: b.join())
    wait_state(t, node, "commit-rebalance", "PreparingRebalance")
    during = a.commit("commit-rebalance-topic", {0: 1})
    a.join()
    joining.result()
    return during


@scenario("groups/commit/metadata-null-and-overwrite")
def _commit_metadata(t: Target) -> Any:
    """A commit with null metadata reads back as ""; a second commit overwrites offset and metadata."""
    topic(t, "commit-meta-topic")
    node = coordinator(t, "commit-meta")
    first = commit(t, "commit-meta", "commit-meta-topic", {0: 1}, metadata=None, node=node)
    after_first = fetch(t, node, "commit-meta", {"commit-meta-topic": [0]})
    second = commit(
        t, "commit-meta", "commit-meta-topic", {0: 9}, metadata="x" * 100, leader_epoch=3, node=node
    )
    return [first, after_first, second, fetch(t, node, "commit-meta", {"commit-meta-topic": [0]})]


@scenario("groups/fetch/never-committed")
def _fetch_never(t: Target) -> Any:
    """OffsetFetch of a partition never committed, in a known or unknown group: -1, metadata "", NONE.

    OffsetFetch of a partition never committed (in a group that has offsets elsewhere): offset -1,
    metadata "", NONE; of a group that does not exist: the same."""
    topic(t, "fetch-never-topic", 2)
    node = coordinator(t, "fetch-never")
    commit(t, "fetch-never", "fetch-never-topic", {0: 4}, node=node)
    other = coordinator(t, "fetch-never-no-group")
    return {
        "known_group": fetch(t, node, "fetch-never", {"fetch-never-topic": [0, 1]}),
        "unknown_group": fetch(t, other, "fetch-never-no-group", {"fetch-never-topic": [0]}),
    }


@scenario("groups/fetch/all-partitions")
def _fetch_all(t: Target) -> Any:
    """OffsetFetch with topics=null: every committed partition of the group and nothing else."""
    topic(t, "fetch-all-a", 3)
    topic(t, "fetch-all-b")
    node = coordinator(t, "fetch-all")
    commit(t, "fetch-all", "fetch-all-a", {0: 1, 2: 3}, metadata="a", node=node)
    commit(t, "fetch-all", "fetch-all-b", {0: 8}, node=node)
    return {"v7": fetch(t, node, "fetch-all", None), "v2": fetch(t, node, "fetch-all", None, version=2)}


@scenario("groups/fetch/unknown-topic")
def _fetch_unknown_topic(t: Target) -> Any:
    """OffsetFetch of a topic that does not exist: offset -1 for the partition asked."""
    node = coordinator(t, "fetch-unknown-topic")
    return fetch(t, node, "fetch-unknown-topic", {"fetch-no-such-topic": [0]})


# --- OffsetCommit v9-10 and OffsetFetch v8-10 (KIP-709 batches, KIP-848 member fields and topic ids) ------


def topic_id_of(t: Target, name: str) -> bytes:
    """The topic id Metadata v12 gives ``name``."""
    return next(x.topic_id for x in t.metadata([name], auto_create=False, version=12).topics)


UNKNOWN_TOPIC_ID = bytes(range(1, 17))
"""A topic id no topic has (topic ids are random UUIDs)."""


def commit_by_id(
    t: Target, node: int, group: str, topics: list[tuple[bytes, dict[int, int]]], version: int = 10
) -> list[Any]:
    """OffsetCommit v10 of ``[(topic id, {partition: offset})]`` by a simple consumer; ``[topic id,
    partition, error]`` per partition answered, topics in the answer's order, each one's partitions
    sorted (Kafka lists a partition its ``KafkaApis`` refused before those its coordinator answered)."""
    request = OffsetCommitRequest(
        group_id=group,
        generation_id=-1,
        member_id="",
        topics=[
            OffsetCommitRequestTopic(
                topic_id=topic_id,
                partitions=[
                    OffsetCommitRequestPartition(
                        partition_index=p, committed_offset=o, committed_metadata="m"
                    )
                    for p, o in offsets.items()
                ],
            )
            for topic_id, offsets in topics
        ],
    )
    answer = t.call("OffsetCommit", version, request, node)
    return [
        row
        for tp in answer.topics
        for row in sorted([tp.topic_id, p.partition_index, code_name(p.error_code)] for p in tp.partitions)
    ]


def fetch_groups(t: Target, node: int, version: int, groups: list[OffsetFetchRequestGroup]) -> list[Any]:
    """OffsetFetch v8+ of several groups; per group its id, error and ``[topic name or id, partition,
    offset, leader epoch, metadata, error]`` per partition, in the answer's order."""
    answer = t.call("OffsetFetch", version, OffsetFetchRequest(groups=groups, require_stable=False), node)
    return [
        {
            "group": g.group_id,
            "error": code_name(g.error_code),
            "partitions": [
                [
                    tp.topic_id if version >= 10 else tp.name,
                    p.partition_index,
                    p.committed_offset,
                    p.committed_leader_epoch,
                    p.metadata,
                    code_name(p.error_code),
                ]
                for tp in g.topics
                for p in tp.partitions
            ],
        }
        for g in answer.groups
    ]


def _named_ids(value: Any, ids: dict[bytes, str]) -> Any:
    """``value`` with each topic id in ``ids`` replaced by its label (ids are random per cluster)."""
    if isinstance(value, bytes):
        return ids.get(value, "zero" if value == bytes(16) else "other")
    if isinstance(value, list):
        return [_named_ids(v, ids) for v in value]
    if isinstance(value, dict):
        return {k: _named_ids(v, ids) for k, v in value.items()}
    return value


@scenario("groups/fetch/v8-several-groups")
def _fetch_v8_groups(t: Target) -> Any:
    """OffsetFetch v8 of four groups at once: offsets, an Empty group, an unknown one, another coordinator's.

    One OffsetFetch v8 (KIP-709) at a coordinator for four groups: one with committed offsets, one with a
    Stable member and no offsets, one that does not exist (all three of this coordinator: -1 and NONE
    where there is no offset) and one another broker coordinates (NOT_COORDINATOR, no partitions); then
    v8 with topics null for the group with offsets."""
    name = topic(t, "fetch-batch-topic", 2)
    node = coordinator(t, "fetch-batch-offsets")
    ours = [n for n in (f"fetch-batch-{i}" for i in range(400)) if _coordinator_node(t, n) == node][:2]
    theirs = next(
        n for n in (f"fetch-batch-{i}" for i in range(400)) if _coordinator_node(t, n) not in (node, -1)
    )
    if len(ours) < 2:
        raise ScenarioError(f"{t.name}: no two group names found coordinated by node {node}")
    commit(t, "fetch-batch-offsets", name, {0: 3, 1: 4}, metadata="b", node=node)
    coordinator(t, ours[0])
    member = Member(t, ours[0], node)
    member.stable({name: [0, 1]}, **LIVE)
    asked = [OffsetFetchRequestTopics(name=name, partition_indexes=[0, 1])]
    label = {"fetch-batch-offsets": "offsets", ours[0]: "no-offsets", ours[1]: "unknown", theirs: "elsewhere"}
    groups = [OffsetFetchRequestGroup(group_id=g, topics=asked) for g in label]
    answered = fetch_groups(t, node, 8, groups)
    every = fetch_groups(t, node, 8, [OffsetFetchRequestGroup(group_id="fetch-batch-offsets", topics=None)])
    member.close()
    return {"groups": [{**g, "group": label[g["group"]]} for g in answered], "all": every}


@scenario("groups/fetch/v9-classic-group-member-fields")
def _fetch_v9_member(t: Target) -> Any:
    """OffsetFetch v9 of a classic group with member ids and epochs: checked by none, all answered.

    OffsetFetch v9 (KIP-848's member_id and member_epoch) of a Stable classic group: no member (null, -1),
    the member and its generation, the member and another epoch, an unknown member id and epoch; Kafka's
    classic group checks neither, so each answers the committed offset; so does an unknown group."""
    name = topic(t, "fetch-v9-topic")
    node, (a,) = members(t, "fetch-v9", 1)
    a.stable({name: [0]}, **LIVE)
    committed = a.commit(name, {0: 6})
    asked = [OffsetFetchRequestTopics(name=name, partition_indexes=[0])]
    out = {"commit": committed}
    for label, member_id, epoch in (
        ("none", None, -1),
        ("member", a.member_id, a.generation_id),
        ("member-other-epoch", a.member_id, a.generation_id + 5),
        ("unknown-member", "conformance-stranger", 3),
        ("empty-member", "", 0),
    ):
        group = OffsetFetchRequestGroup(
            group_id="fetch-v9", member_id=member_id, member_epoch=epoch, topics=asked
        )
        out[label] = fetch_groups(t, node, 9, [group])
    unknown = OffsetFetchRequestGroup(
        group_id="fetch-v9-none", member_id="conformance-x", member_epoch=1, topics=asked
    )
    out["unknown-group"] = fetch_groups(t, coordinator(t, "fetch-v9-none"), 9, [unknown])
    a.close()
    return out


@scenario("groups/commit/v9-classic-group")
def _commit_v9_classic(t: Target) -> Any:
    """OffsetCommit v9 to a classic group: generation_id_or_member_epoch is the generation.

    OffsetCommit v9 from a Stable classic group's member: its generation NONE, another ILLEGAL_GENERATION,
    an unknown member UNKNOWN_MEMBER_ID, a simple commit (-1, no member) UNKNOWN_MEMBER_ID."""
    name = topic(t, "commit-v9-topic")
    node, (a,) = members(t, "commit-v9", 1)
    a.stable({name: [0]}, **LIVE)
    out = {
        "member": a.commit(name, {0: 1}, version=9),
        "other-generation": a.commit(name, {0: 2}, generation_id=a.generation_id + 1, version=9),
        "unknown-member": a.commit(name, {0: 3}, member_id="conformance-stranger", version=9),
        "simple": commit(t, "commit-v9", name, {0: 4}, version=9, node=node),
        "fetch": fetch(t, node, "commit-v9", {name: [0]}),
    }
    a.close()
    return out


@scenario("groups/commit/v9-unknown-group")
def _commit_v9_unknown_group(t: Target) -> Any:
    """A commit with a generation to a group that is not there: v8 ILLEGAL_GENERATION, v9 GROUP_ID_NOT_FOUND.

    OffsetCommit naming generation 2 and a member to a group that does not exist: ILLEGAL_GENERATION at
    v8, GROUP_ID_NOT_FOUND from v9 (KIP-848); at v9 a simple commit (generation -1) makes the group
    (NONE), and a generation then names a member it does not have (UNKNOWN_MEMBER_ID)."""
    name = topic(t, "commit-v9-unknown-topic")
    node = coordinator(t, "commit-v9-unknown")
    generation = {"generation_id": 2, "member_id": "conformance-x", "node": node}
    return {
        "v8": commit(t, "commit-v9-unknown", name, {0: 1}, version=8, **generation),
        "v9": commit(t, "commit-v9-unknown", name, {0: 1}, version=9, **generation),
        "simple-v9": commit(t, "commit-v9-unknown", name, {0: 1}, version=9, node=node),
        "v9-after": commit(t, "commit-v9-unknown", name, {0: 1}, version=9, **generation),
    }


@scenario("groups/commit/v10-by-topic-id")
def _commit_v10(t: Target) -> Any:
    """OffsetCommit v10 names topics by id: a known id commits, an unknown id is UNKNOWN_TOPIC_ID.

    OffsetCommit v10 (KIP-848) of a topic by its id (two partitions and one it does not have:
    NONE, NONE, UNKNOWN_TOPIC_OR_PARTITION) and of an id no topic has (UNKNOWN_TOPIC_ID), then of the
    unknown id alone; OffsetFetch v10 by id and v9 by name read the offsets back."""
    name = topic(t, "commit-v10-topic", 2)
    node = coordinator(t, "commit-v10")
    ids = {topic_id_of(t, name): "topic", UNKNOWN_TOPIC_ID: "unknown"}
    (known,) = [i for i, label in ids.items() if label == "topic"]
    mixed = commit_by_id(t, node, "commit-v10", [(known, {0: 5, 1: 6, 4: 1}), (UNKNOWN_TOPIC_ID, {0: 1})])
    alone = commit_by_id(t, node, "commit-v10", [(UNKNOWN_TOPIC_ID, {0: 1, 1: 2})])
    by_id = OffsetFetchRequestGroup(
        group_id="commit-v10", topics=[OffsetFetchRequestTopics(topic_id=known, partition_indexes=[0, 1])]
    )
    by_name = OffsetFetchRequestGroup(
        group_id="commit-v10", topics=[OffsetFetchRequestTopics(name=name, partition_indexes=[0, 1])]
    )
    return _named_ids(
        {
            "mixed": mixed,
            "alone": alone,
            "fetch-v10": fetch_groups(t, node, 10, [by_id]),
            "fetch-v9": fetch_groups(t, node, 9, [by_name]),
        },
        ids,
    )


@scenario("groups/fetch/v10-by-topic-id")
def _fetch_v10(t: Target) -> Any:
    """OffsetFetch v10 names topics by id: known ids answered, an unknown id UNKNOWN_TOPIC_ID, null topics.

    OffsetFetch v10 (KIP-848) of a group with offsets in one of two topics: both topics by id (offsets,
    and -1 where none) with an id no topic has (UNKNOWN_TOPIC_ID); topics null (every committed
    partition, each topic by id); and of a group that does not exist (-1, and UNKNOWN_TOPIC_ID)."""
    first = topic(t, "fetch-v10-a", 2)
    second = topic(t, "fetch-v10-b")
    node = coordinator(t, "fetch-v10")
    commit(t, "fetch-v10", first, {1: 9}, metadata="v10", leader_epoch=0, node=node)
    ids = {topic_id_of(t, first): "a", topic_id_of(t, second): "b", UNKNOWN_TOPIC_ID: "unknown"}
    asked = [
        OffsetFetchRequestTopics(topic_id=i, partition_indexes=[0, 1] if label == "a" else [0])
        for i, label in ids.items()
    ]
    other = coordinator(t, "fetch-v10-none")
    return _named_ids(
        {
            "asked": fetch_groups(t, node, 10, [OffsetFetchRequestGroup(group_id="fetch-v10", topics=asked)]),
            "all": fetch_groups(t, node, 10, [OffsetFetchRequestGroup(group_id="fetch-v10", topics=None)]),
            "unknown-group": fetch_groups(
                t, other, 10, [OffsetFetchRequestGroup(group_id="fetch-v10-none", topics=asked)]
            ),
        },
        ids,
    )


# --- DeleteGroups and OffsetDelete --------------------------------------------------------------------------


def _delete_groups(t: Target, node: int, *groups: str) -> list[Any]:
    answer = t.call("DeleteGroups", 2, DeleteGroupsRequest(groups_names=list(groups)), node)
    return sorted([r.group_id, code_name(r.error_code)] for r in answer.results)


@scenario("groups/delete-groups/non-empty")
def _delete_non_empty(t: Target) -> Any:
    """DeleteGroups of a group with a member: NON_EMPTY_GROUP (the group stays Stable)."""
    node, (a,) = members(t, "delete-non-empty", 1)
    a.stable()
    return {
        "delete": _delete_groups(t, node, "delete-non-empty"),
        "group": describe(t, node, "delete-non-empty"),
    }


@scenario("groups/delete-groups/unknown")
def _delete_unknown(t: Target) -> Any:
    """DeleteGroups of a group that does not exist: GROUP_ID_NOT_FOUND."""
    return _delete_groups(t, coordinator(t, "delete-unknown"), "delete-unknown")


@scenario("groups/delete-groups/empty")
def _delete_empty(t: Target) -> Any:
    """DeleteGroups of an Empty group: NONE; it is Dead, its offsets gone; again: GROUP_ID_NOT_FOUND.

    DeleteGroups of an Empty group with offsets: NONE; afterwards it is Dead, its offsets gone, and a
    second delete answers GROUP_ID_NOT_FOUND."""
    topic(t, "delete-empty-topic")
    node, (a,) = members(t, "delete-empty", 1)
    a.stable()
    a.commit("delete-empty-topic", {0: 6})
    a.leave()
    return {
        "delete": _delete_groups(t, node, "delete-empty"),
        "group": describe(t, node, "delete-empty"),
        "fetch": fetch(t, node, "delete-empty", {"delete-empty-topic": [0]}),
        "again": _delete_groups(t, node, "delete-empty"),
    }


def _offset_delete(t: Target, node: int, group: str, topics: dict[str, list[int]]) -> Any:
    answer = t.call(
        "OffsetDelete",
        0,
        OffsetDeleteRequest(
            group_id=group,
            topics=[
                OffsetDeleteRequestTopic(
                    name=name, partitions=[OffsetDeleteRequestPartition(partition_index=p) for p in parts]
                )
                for name, parts in topics.items()
            ],
        ),
        node,
    )
    return {
        "error": code_name(answer.error_code),
        "partitions": sorted(
            [tp.name, p.partition_index, code_name(p.error_code)]
            for tp in answer.topics
            for p in tp.partitions
        ),
    }


@scenario("groups/offset-delete/subscribed")
def _offset_delete_subscribed(t: Target) -> Any:
    """OffsetDelete in a Stable group: subscribed topic GROUP_SUBSCRIBED_TO_TOPIC, another topic NONE.

    OffsetDelete of a topic the Stable group's member subscribes to: GROUP_SUBSCRIBED_TO_TOPIC for its
    partition; of a topic it does not subscribe to: NONE."""
    topic(t, "od-sub-topic")
    topic(t, "od-other-topic")
    node, (a,) = members(t, "od-subscribed", 1, topics=("od-sub-topic",))
    a.stable({"od-sub-topic": [0]}, **LIVE)
    a.commit("od-sub-topic", {0: 2})
    a.commit("od-other-topic", {0: 3})
    return {
        "delete": _offset_delete(t, node, "od-subscribed", {"od-sub-topic": [0], "od-other-topic": [0]}),
        "fetch": fetch(t, node, "od-subscribed", None),
    }


@scenario("groups/offset-delete/other-protocol-type")
def _offset_delete_other_protocol_type(t: Target) -> Any:
    """OffsetDelete in a Stable group whose member is not a consumer (protocol type connect): NON_EMPTY_GROUP.

    OffsetDelete in a Stable group of protocol type ``connect``: the coordinator cannot know what its
    members use, so the whole request is refused with NON_EMPTY_GROUP and the offset stays."""
    topic(t, "od-connect-topic")
    node, (a,) = members(t, "od-connect", 1, topics=("od-connect-topic",), protocol_type="connect")
    stable = a.stable(**LIVE)
    committed = a.commit("od-connect-topic", {0: 2})
    return {
        "stable": stable,
        "commit": committed,
        "delete": _offset_delete(t, node, "od-connect", {"od-connect-topic": [0]}),
        "fetch": fetch(t, node, "od-connect", None),
    }


@scenario("groups/offset-delete/subscription-not-decodable")
def _offset_delete_undecodable(t: Target) -> Any:
    """OffsetDelete in a Stable consumer group whose member's metadata is not a subscription: subscribed.

    A consumer group's only member sent metadata that is not a ConsumerProtocolSubscription: the
    coordinator does not know the subscribed topics, so OffsetDelete answers GROUP_SUBSCRIBED_TO_TOPIC
    for every topic."""
    topic(t, "od-garbled-topic")
    node, (a,) = members(t, "od-garbled", 1, metadata=b"\x00")
    stable = a.stable(**LIVE)
    committed = a.commit("od-garbled-topic", {0: 2})
    return {
        "stable": stable,
        "commit": committed,
        "delete": _offset_delete(t, node, "od-garbled", {"od-garbled-topic": [0]}),
    }


@scenario("groups/offset-delete/after-session-expiry")
def _offset_delete_after_session(t: Target) -> Any:
    """OffsetDelete of a topic whose subscriber's session expired: NONE once the group is Empty.

    A Stable group's only member subscribes to the topic (GROUP_SUBSCRIBED_TO_TOPIC), then stops
    heartbeating: after its session (6000 ms) it is removed, the group is Empty, and the same
    OffsetDelete deletes the offset."""
    topic(t, "od-expired-topic")
    node, (a,) = members(t, "od-expired", 1, topics=("od-expired-topic",))
    a.join(session_ms=6000)
    a.sync({a.member_id: assignment({"od-expired-topic": [0]})})
    a.commit("od-expired-topic", {0: 2})
    before = _offset_delete(t, node, "od-expired", {"od-expired-topic": [0]})
    emptied = wait_state(t, node, "od-expired", "Empty")
    return {
        "before": before,
        "group": emptied,
        "after": _offset_delete(t, node, "od-expired", {"od-expired-topic": [0]}),
        "fetch": fetch(t, node, "od-expired", {"od-expired-topic": [0]}),
    }


@scenario("groups/offset-delete/during-rebalance")
def _offset_delete_during_rebalance(t: Target) -> Any:
    """OffsetDelete while a rebalance waits: the topics of the current generation stay subscribed.

    Members A (topic a) and B (topic b) are Stable; A leaves, and while the group waits for B to
    rejoin, A's topic is still subscribed (the subscribed topics are the generation's, Kafka's
    ``subscribedTopics``); once B rejoins alone, the new generation no longer subscribes to it."""
    topic(t, "od-rebalance-a")
    topic(t, "od-rebalance-b")
    node, (a, b) = members(t, "od-rebalance", 2)
    a.topics, b.topics = ("od-rebalance-a",), ("od-rebalance-b",)
    a.join(**LIVE)
    a.sync({a.member_id: b""})
    joining = Background(lambda: b.join(**LIVE))
    wait_state(t, node, "od-rebalance", "PreparingRebalance")
    a.join(**LIVE)
    joining.result()
    a.sync({a.member_id: b"", b.member_id: b""})
    b.sync()
    wait_state(t, node, "od-rebalance", "Stable")
    a.commit("od-rebalance-a", {0: 1})
    left = a.leave()
    waiting = wait_state(t, node, "od-rebalance", "PreparingRebalance")
    during = _offset_delete(t, node, "od-rebalance", {"od-rebalance-a": [0], "od-rebalance-b": [0]})
    rejoined = join_shape(b.join(**LIVE)[-1])
    return {
        "left": left,
        "waiting": waiting,
        "during": during,
        "rejoined": rejoined,
        "after": _offset_delete(t, node, "od-rebalance", {"od-rebalance-a": [0], "od-rebalance-b": [0]}),
    }


@scenario("groups/offset-delete/empty-group")
def _offset_delete_empty(t: Target) -> Any:
    """OffsetDelete from an Empty group (a simple consumer's offsets): NONE; the offset reads back -1."""
    topic(t, "od-empty-topic", 2)
    node = coordinator(t, "od-empty")
    commit(t, "od-empty", "od-empty-topic", {0: 2, 1: 3}, node=node)
    return {
        "delete": _offset_delete(t, node, "od-empty", {"od-empty-topic": [0]}),
        "fetch": fetch(t, node, "od-empty", {"od-empty-topic": [0, 1]}),
    }


@scenario("groups/offset-delete/unknown-group")
def _offset_delete_unknown_group(t: Target) -> Any:
    """OffsetDelete for a group that does not exist: GROUP_ID_NOT_FOUND."""
    topic(t, "od-unknown-topic")
    node = coordinator(t, "od-unknown-group")
    return _offset_delete(t, node, "od-unknown-group", {"od-unknown-topic": [0]})


@scenario("groups/offset-delete/unknown-topic")
def _offset_delete_unknown_topic(t: Target) -> Any:
    """OffsetDelete naming a topic that does not exist in a group that does: UNKNOWN_TOPIC_OR_PARTITION for
    it."""
    topic(t, "od-known-topic")
    node = coordinator(t, "od-unknown-topic-group")
    commit(t, "od-unknown-topic-group", "od-known-topic", {0: 1}, node=node)
    return _offset_delete(t, node, "od-unknown-topic-group", {"od-no-such-topic": [0]})


# --- timeouts and more states -------------------------------------------------------------------------------


@scenario("groups/timeout/member-not-rejoining-is-removed")
def _timeout_not_rejoining(t: Target) -> Any:
    """A member that does not rejoin a rebalance is removed after the rebalance timeout: UNKNOWN_MEMBER_ID.

    A rebalance in a group of two where only one member rejoins: after the rebalance timeout the other is
    removed, the rejoined member alone is in the next generation, and the removed one's heartbeat gets
    UNKNOWN_MEMBER_ID."""
    node, a, b, _ = two_member_group(t, "timeout-not-rejoining", rebalance_ms=3000)
    a.sync({a.member_id: b"", b.member_id: b""})
    b.sync()
    wait_state(t, node, "timeout-not-rejoining", "Stable")
    rejoined = a.join(rebalance_ms=3000)[-1]  # the leader rejoins: a rebalance b never answers
    return {
        "a": join_shape(rejoined),
        "b_heartbeat": b.heartbeat(),
        "group": describe(t, node, "timeout-not-rejoining"),
    }


@scenario("groups/timeout/session-expiry")
def _timeout_session(t: Target) -> Any:
    """A member that stops heartbeating is removed after its session (6000 ms): the group Empty.

    A Stable group's only member stops heartbeating (session 6000 ms): it is removed, the group is Empty,
    and its late heartbeat gets UNKNOWN_MEMBER_ID."""
    node, (a,) = members(t, "timeout-session", 1)
    a.join(session_ms=6000)
    a.sync({a.member_id: b""})
    deadline = time.monotonic() + WAIT_S
    while describe(t, node, "timeout-session")["state"] != "Empty" and time.monotonic() < deadline:
        time.sleep(0.5)
    return {"group": describe(t, node, "timeout-session"), "heartbeat": a.heartbeat()}


@scenario("groups/heartbeat/after-leave")
def _heartbeat_after_leave(t: Target) -> Any:
    """A member that left heartbeats again: UNKNOWN_MEMBER_ID."""
    node, (a,) = members(t, "hb-after-leave", 1)
    a.stable()
    return {"leave": a.leave(), "heartbeat": a.heartbeat()}


@scenario("groups/commit/completing-rebalance")
def _commit_completing(t: Target) -> Any:
    """OffsetCommit between JoinGroup and SyncGroup (CompletingRebalance): REBALANCE_IN_PROGRESS.

    OffsetCommit from a member with its new generation between JoinGroup and SyncGroup
    (CompletingRebalance): REBALANCE_IN_PROGRESS."""
    topic(t, "commit-completing-topic")
    node, (a,) = members(t, "commit-completing", 1)
    a.join()
    wait_state(t, node, "commit-completing", "CompletingRebalance")
    return a.commit("commit-completing-topic", {0: 1})


@scenario("groups/commit/metadata-too-large")
def _commit_metadata_large(t: Target) -> Any:
    """OffsetCommit with 4097 bytes of metadata: OFFSET_METADATA_TOO_LARGE; 4096 bytes: NONE.

    OffsetCommit with 4097 bytes of metadata (offset.metadata.max.bytes is 4096):
    OFFSET_METADATA_TOO_LARGE; 4096 bytes are accepted."""
    topic(t, "commit-large-meta-topic", 2)
    node = coordinator(t, "commit-large-meta")
    return {
        "4097": commit(
            t, "commit-large-meta", "commit-large-meta-topic", {0: 1}, metadata="m" * 4097, node=node
        ),
        "4096": commit(
            t, "commit-large-meta", "commit-large-meta-topic", {1: 1}, metadata="m" * 4096, node=node
        ),
        "fetch": [
            row[:3] + [len(row[4] or "")] + row[5:]
            for row in fetch(t, node, "commit-large-meta", {"commit-large-meta-topic": [0, 1]})["partitions"]
        ],
    }


@scenario("groups/commit/generation-minus-1-with-member-id")
def _commit_simple_with_member(t: Target) -> Any:
    """OffsetCommit with generation -1 but a made-up member id to a group with no members: NONE."""
    topic(t, "commit-gen-minus-1-topic")
    node = coordinator(t, "commit-gen-minus-1")
    return commit(
        t, "commit-gen-minus-1", "commit-gen-minus-1-topic", {0: 1}, member_id="conformance-x", node=node
    )


@scenario("groups/commit/member-commit-to-empty-group")
def _commit_stale_member(t: Target) -> Any:
    """After the only member left, a commit with its old member id and generation: UNKNOWN_MEMBER_ID."""
    topic(t, "commit-stale-topic")
    node, (a,) = members(t, "commit-stale", 1)
    a.stable()
    a.leave()
    return a.commit("commit-stale-topic", {0: 1})


@scenario("groups/leave/v3-static-member-wrong-member-id")
def _leave_static_wrong(t: Target) -> Any:
    """LeaveGroup v3 naming a static member's instance id with another member id: FENCED_INSTANCE_ID."""
    node, (a,) = members(t, "leave-static-wrong", 1, instance_id="instance-1")
    a.stable()
    answer = t.call(
        "LeaveGroup",
        3,
        LeaveGroupRequest(
            group_id="leave-static-wrong",
            members=[MemberIdentity(member_id="instance-1-not-the-one", group_instance_id="instance-1")],
        ),
        node,
    )
    return {
        "error": code_name(answer.error_code),
        "members": [[m.group_instance_id, code_name(m.error_code)] for m in answer.members],
        "group": describe(t, node, "leave-static-wrong"),
    }


@scenario("groups/static/new-instance-joins-stable-group")
def _static_second(t: Target) -> Any:
    """A second static member joins a Stable group: a member id at once (no MEMBER_ID_REQUIRED), generation 2.

    A second static member (another instance id) joins a Stable group: MEMBER_ID_REQUIRED is not asked of
    it; it gets a member id at once and the group rebalances into generation 2."""
    node, (a,) = members(t, "static-second", 1, instance_id="instance-a")
    a.stable()
    b = Member(t, "static-second", node, instance_id="instance-b")
    joining = Background(lambda: b.join())
    wait_state(t, node, "static-second", "PreparingRebalance")
    first = a.join()[-1]
    second = joining.result()
    return {"a": join_shape(first), "b": [join_shape(x) for x in second]}


@scenario("groups/describe/authorized-operations")
def _describe_authorized(t: Target) -> Any:
    """DescribeGroups v5 asking authorized operations, no authorizer: every group operation (3400).

    DescribeGroups v5 with include_authorized_operations on a cluster without an authorizer: every group
    operation (READ, DELETE, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS = 3400)."""
    node, (a,) = members(t, "describe-authz", 1)
    a.stable()
    g = t.call(
        "DescribeGroups",
        5,
        DescribeGroupsRequest(groups=["describe-authz"], include_authorized_operations=True),
        node,
    ).groups[0]
    return g.authorized_operations


@scenario("groups/join/v4-member-id-required")
def _join_v4(t: Target) -> Any:
    """JoinGroup v4 (the first with KIP-394) with an empty member id: MEMBER_ID_REQUIRED, then joined."""
    node, (a,) = members(t, "join-v4", 1)
    return [join_shape(x) for x in a.join(version=4)]


@scenario("groups/leave/pending-member")
def _leave_pending(t: Target) -> Any:
    """LeaveGroup of a member id given by MEMBER_ID_REQUIRED, never joined: NONE; the group rebalances.

    LeaveGroup v3 for a member id the coordinator handed out with MEMBER_ID_REQUIRED that never joined
    with it: NONE for it; the group stays as it was."""
    node, (a, b) = members(t, "leave-pending", 2)
    a.stable()
    first = b.join_once()
    answer = t.call(
        "LeaveGroup",
        3,
        LeaveGroupRequest(group_id="leave-pending", members=[MemberIdentity(member_id=b.member_id)]),
        node,
    )
    return {
        "join": code_name(first.error_code),
        "leave": code_name(answer.error_code),
        "members": [code_name(m.error_code) for m in answer.members],
        "group": describe(t, node, "leave-pending"),
    }


@scenario("groups/flexible-versions")
def _flexible(t: Target) -> Any:
    """A member's life at the flexible versions (JoinGroup v6, SyncGroup v4, Heartbeat v4, ...): all NONE.

    A member's whole life at the flexible versions (JoinGroup v6, SyncGroup v4, Heartbeat v4, LeaveGroup
    v4, DescribeGroups v5, ListGroups v3): every answer NONE."""
    node, (a,) = members(t, "flexible", 1)
    joined = a.join(version=6)
    synced = a.sync({a.member_id: assignment({"t": [0]})}, version=4)
    beat = a.client.call(
        "Heartbeat",
        4,
        HeartbeatRequest(group_id="flexible", generation_id=a.generation_id, member_id=a.member_id),
    )
    listed = [
        g.group_id
        for g in t.call("ListGroups", 3, ListGroupsRequest(), node).groups
        if g.group_id == "flexible"
    ]
    left = a.client.call(
        "LeaveGroup",
        4,
        LeaveGroupRequest(group_id="flexible", members=[MemberIdentity(member_id=a.member_id)]),
    )
    return {
        "join": [join_shape(x) for x in joined],
        "sync": [code_name(synced.error_code), synced.assignment.hex()],
        "heartbeat": code_name(beat.error_code),
        "listed": listed,
        "leave": [code_name(left.error_code)] + [code_name(m.error_code) for m in left.members],
        "group": describe(t, node, "flexible"),
    }


@scenario("groups/delete-groups/mixed-batch")
def _delete_mixed(t: Target) -> Any:
    """DeleteGroups of a busy, an Empty and an unknown group: NON_EMPTY_GROUP, NONE, GROUP_ID_NOT_FOUND.

    One DeleteGroups for a group with a member, an Empty group with offsets and an unknown group, all of
    one coordinator: NON_EMPTY_GROUP, NONE and GROUP_ID_NOT_FOUND."""
    name = topic(t, "delete-mixed-topic")
    node, (a,) = members(t, "delete-mixed-busy", 1)
    a.stable()
    names = [n for n in (f"delete-mixed-{i}" for i in range(400)) if _coordinator_node(t, n) == node][:2]
    if len(names) < 2:
        raise ScenarioError(f"{t.name}: no two group names found coordinated by node {node}")
    coordinator(t, names[0])
    commit(t, names[0], name, {0: 1}, node=node)
    answer = t.call("DeleteGroups", 2, DeleteGroupsRequest(groups_names=["delete-mixed-busy", *names]), node)
    label = {"delete-mixed-busy": "busy", names[0]: "empty", names[1]: "unknown"}
    return sorted([label[r.group_id], code_name(r.error_code)] for r in answer.results)


@scenario("groups/commit/negative-offset")
def _commit_negative(t: Target) -> Any:
    """OffsetCommit of offset -1 and -5 by a simple consumer: both NONE, and read back as committed."""
    topic(t, "commit-negative-topic", 2)
    node = coordinator(t, "commit-negative")
    committed = commit(t, "commit-negative", "commit-negative-topic", {0: -1, 1: -5}, node=node)
    return {
        "commit": committed,
        "fetch": fetch(t, node, "commit-negative", {"commit-negative-topic": [0, 1]}),
    }


@scenario("groups/fetch/after-topic-deleted")
def _fetch_after_delete(t: Target) -> Any:
    """Offsets committed for a topic that is then deleted go with it: OffsetFetch answers -1.

    A group's committed offset of a topic that is then deleted goes with it: OffsetFetch of it answers -1,
    and the group's partitions (topics=null) no longer list it."""
    topic(t, "fetch-deleted-topic")
    topic(t, "fetch-kept-topic")
    node = coordinator(t, "fetch-deleted")
    commit(t, "fetch-deleted", "fetch-deleted-topic", {0: 4}, node=node)
    commit(t, "fetch-deleted", "fetch-kept-topic", {0: 2}, node=node)
    admin_outcome(
        t.admin().delete_topics(["fetch-deleted-topic"], operation_timeout=30)["fetch-deleted-topic"]
    )
    t.wait_absent("fetch-deleted-topic")
    deadline = time.monotonic() + 5  # Kafka drops the deleted topic's offsets once the deletion reaches it
    while time.monotonic() < deadline and len(fetch(t, node, "fetch-deleted", None)["partitions"]) > 1:
        time.sleep(0.2)
    return {
        "asked": fetch(t, node, "fetch-deleted", {"fetch-deleted-topic": [0]}),
        "all": fetch(t, node, "fetch-deleted", None),
    }


@scenario("groups/commit/generation-to-offsets-only-group")
def _commit_generation_simple_group(t: Target) -> Any:
    """A commit naming generation 3 and a member id: to an unknown group, and to a group with only offsets."""
    name = topic(t, "commit-gen-simple-topic")
    node = coordinator(t, "commit-gen-simple")
    unknown = commit(
        t, "commit-gen-simple", name, {0: 1}, generation_id=3, member_id="conformance-x", node=node
    )
    commit(t, "commit-gen-simple", name, {0: 1}, node=node)
    known = commit(
        t, "commit-gen-simple", name, {0: 2}, generation_id=3, member_id="conformance-x", node=node
    )
    return {"unknown_group": unknown, "offsets_only_group": known}


@scenario("groups/commit/wrong-generation-while-completing")
def _commit_wrong_gen_completing(t: Target) -> Any:
    """OffsetCommit with a wrong generation between JoinGroup and SyncGroup: the generation is checked
    first."""
    name = topic(t, "commit-wrong-completing-topic")
    node, (a,) = members(t, "commit-wrong-completing", 1)
    a.join()
    wait_state(t, node, "commit-wrong-completing", "CompletingRebalance")
    return {
        "wrong": a.commit(name, {0: 1}, generation_id=a.generation_id + 5),
        "right": a.commit(name, {0: 1}),
    }


@scenario("groups/static/empty-instance-id")
def _static_empty_instance(t: Target) -> Any:
    """JoinGroup v5 with group.instance.id "" and "bad id!": both accepted; the first, not rejoining,
    stays."""
    node, (a,) = members(t, "static-empty-instance", 1, instance_id="")
    b = Member(t, "static-empty-instance", node, instance_id="bad id!")
    return {"empty": [join_shape(x) for x in a.join()], "illegal": [join_shape(x) for x in b.join()]}


@scenario("groups/static/unknown-instance-id-of-dynamic-member")
def _static_unknown_instance(t: Target) -> Any:
    """A dynamic member naming an unknown group.instance.id: UNKNOWN_MEMBER_ID on every request.

    Heartbeat, SyncGroup, OffsetCommit and LeaveGroup (for the member) all answer UNKNOWN_MEMBER_ID
    (Kafka's ``validateMember``) and the member stays in the group."""
    name = topic(t, "static-unknown-instance-topic")
    node, (a,) = members(t, "static-unknown-instance", 1)
    a.stable()
    a.instance_id = "instance-x"
    request = OffsetCommitRequest(
        group_id="static-unknown-instance",
        generation_id=a.generation_id,
        member_id=a.member_id,
        group_instance_id="instance-x",
        topics=[
            OffsetCommitRequestTopic(
                name=name,
                partitions=[
                    OffsetCommitRequestPartition(partition_index=0, committed_offset=1, committed_metadata="")
                ],
            )
        ],
    )
    committed = a.client.call("OffsetCommit", COMMIT_V, request)
    out = {
        "heartbeat": a.heartbeat(),
        "sync": code_name(a.sync({}).error_code),
        "commit": [code_name(p.error_code) for tp in committed.topics for p in tp.partitions],
    }
    left = a.client.call(
        "LeaveGroup",
        3,
        LeaveGroupRequest(
            group_id="static-unknown-instance",
            members=[MemberIdentity(member_id=a.member_id, group_instance_id="instance-x")],
        ),
    )
    out["leave"] = [code_name(left.error_code)] + [code_name(m.error_code) for m in left.members]
    out["group"] = describe(t, node, "static-unknown-instance")
    return out


# --- through confluent-kafka --------------------------------------------------------------------------------


def _two_consumers(t: Target, group: str, name: str, strategy: str) -> Any:
    """Two confluent-kafka consumers of a 4-partition topic in one group; the sizes of their
    assignments once both have partitions and together hold all four."""
    topic(t, name, 4)
    consumers = [t.consumer(group, partition_assignment_strategy=strategy) for _ in range(2)]
    try:
        for c in consumers:
            c.subscribe([name])
        deadline = time.monotonic() + 60
        while True:
            for c in consumers:
                c.poll(0.2)
            held = [sorted(p.partition for p in c.assignment()) for c in consumers]
            if all(held) and sorted(sum(held, [])) == [0, 1, 2, 3]:
                break
            if time.monotonic() > deadline:
                raise ScenarioError(f"{t.name}: two consumers did not share {name}: {held}")
        return {"sizes": sorted(len(h) for h in held), "union": sorted(sum(held, []))}
    finally:
        for c in consumers:
            c.close()


@scenario("groups/client/range-two-consumers")
def _client_range(t: Target) -> Any:
    """Two confluent-kafka consumers (range) of a 4-partition topic: two partitions each."""
    return _two_consumers(t, "client-range", "client-range-topic", "range")


@scenario("groups/client/roundrobin-two-consumers")
def _client_roundrobin(t: Target) -> Any:
    """Two confluent-kafka consumers (roundrobin) of a 4-partition topic: two partitions each."""
    return _two_consumers(t, "client-roundrobin", "client-roundrobin-topic", "roundrobin")


@scenario("groups/client/committed-offsets-and-lag")
def _client_offsets(t: Target) -> Any:
    """A consumer commits offset 3 of 5 records: list_consumer_group_offsets says 3, the lag is 2.

    A consumer reads 3 of 5 records and commits; AdminClient list_consumer_group_offsets gives offset 3
    and the lag (high watermark minus committed) is 2."""
    name = topic(t, "client-lag-topic")
    t.produce_values(name, [b"%d" % i for i in range(5)])
    consumer = t.consumer("client-lag")
    try:
        consumer.assign([TopicPartition(name, 0, 0)])
        got = 0
        deadline = time.monotonic() + 30
        while got < 3 and time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is not None and msg.error() is None:
                got += 1
        consumer.commit(offsets=[TopicPartition(name, 0, 3)], asynchronous=False)
        high = consumer.get_watermark_offsets(TopicPartition(name, 0), timeout=10)[1]
    finally:
        consumer.close()
    listed = admin_outcome(
        t.admin().list_consumer_group_offsets([ConsumerGroupTopicPartitions("client-lag")])["client-lag"]
    )
    offsets = {p.partition: p.offset for p in listed.topic_partitions if p.topic == name}
    return {"read": got, "offsets": offsets, "high_watermark": high, "lag": high - offsets[0]}


@scenario("groups/client/describe-and-list")
def _client_describe(t: Target) -> Any:
    """describe_consumer_groups of one live consumer: STABLE, range, one member with both partitions.

    AdminClient describe_consumer_groups of a group with one subscribed consumer: STABLE, one member
    holding both partitions, protocol range; list_consumer_groups lists it as STABLE."""
    name = topic(t, "client-describe-topic", 2)
    consumer = t.consumer("client-describe", partition_assignment_strategy="range")
    try:
        consumer.subscribe([name])
        deadline = time.monotonic() + 60
        while not consumer.assignment() and time.monotonic() < deadline:
            consumer.poll(0.2)
        consumer.poll(0.5)
        described = admin_outcome(t.admin().describe_consumer_groups(["client-describe"])["client-describe"])
        listed = admin_outcome(t.admin().list_consumer_groups(request_timeout=10))
        mine = [
            [g.group_id, g.is_simple_consumer_group, g.state.name]
            for g in listed.valid
            if g.group_id == "client-describe"
        ]
        return {
            "state": described.state.name,
            "protocol_type": getattr(described, "protocol_type", None),
            "assignor": described.partition_assignor,
            "simple": described.is_simple_consumer_group,
            "members": [
                sorted(p.partition for p in m.assignment.topic_partitions) for m in described.members
            ],
            "listed": mine,
        }
    finally:
        consumer.close()


@scenario("groups/client/describe-after-close")
def _client_describe_after_close(t: Target) -> Any:
    """After the only consumer closes (it leaves the group): describe_consumer_groups says EMPTY with no
    members."""
    name = topic(t, "client-closed-topic")
    consumer = t.consumer("client-closed")
    consumer.subscribe([name])
    deadline = time.monotonic() + 60
    while not consumer.assignment() and time.monotonic() < deadline:
        consumer.poll(0.2)
    consumer.close()
    described = admin_outcome(t.admin().describe_consumer_groups(["client-closed"])["client-closed"])
    return {"state": described.state.name, "members": len(described.members)}


@scenario("groups/client/cooperative-sticky-two-consumers")
def _client_cooperative(t: Target) -> Any:
    """Two confluent-kafka consumers (cooperative-sticky) of a 4-partition topic: two partitions each.

    Two confluent-kafka consumers (cooperative-sticky, incremental rebalances) of a 4-partition topic: two
    partitions each."""
    return _two_consumers(t, "client-cooperative", "client-cooperative-topic", "cooperative-sticky")


@scenario("groups/client/admin-alter-and-delete-offsets")
def _client_alter_offsets(t: Target) -> Any:
    """AdminClient alter, list, then delete_consumer_groups: offsets 7 and 9, NONE, then none (-1001).

    AdminClient alter_consumer_group_offsets on a group without members, then list_consumer_group_offsets,
    then delete_consumer_groups and list again."""
    name = topic(t, "client-alter-topic", 2)
    admin = t.admin()
    request = ConsumerGroupTopicPartitions(
        "client-alter", [TopicPartition(name, 0, 7), TopicPartition(name, 1, 9)]
    )
    altered = admin_outcome(admin.alter_consumer_group_offsets([request])["client-alter"])
    listed = admin_outcome(
        admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions("client-alter")])["client-alter"]
    )
    deleted = admin_outcome(
        admin.delete_consumer_groups(["client-alter"], request_timeout=10)["client-alter"]
    )
    again = admin_outcome(
        admin.list_consumer_group_offsets(
            [ConsumerGroupTopicPartitions("client-alter", [TopicPartition(name, 0)])]
        )["client-alter"]
    )

    def offsets(result: Any) -> Any:
        if isinstance(result, str):
            return result
        return sorted(
            [p.partition, p.offset, p.error.name() if p.error else None] for p in result.topic_partitions
        )

    return {
        "altered": offsets(altered),
        "listed": offsets(listed),
        "deleted": deleted,
        "again": offsets(again),
    }


@scenario("groups/client/list-groups-by-state")
def _client_list_by_state(t: Target) -> Any:
    """list_consumer_groups with states {STABLE} / {EMPTY}: the live group, the offsets-only group.

    AdminClient list_consumer_groups with a states filter: a group with only offsets is EMPTY, one with a
    live consumer STABLE, each listed under its state only."""
    name = topic(t, "client-states-topic")
    commit(t, "client-states-empty", name, {0: 1}, node=coordinator(t, "client-states-empty"))
    consumer = t.consumer("client-states-stable")
    try:
        consumer.subscribe([name])
        deadline = time.monotonic() + 60
        while not consumer.assignment() and time.monotonic() < deadline:
            consumer.poll(0.2)
        consumer.poll(0.5)
        mine = {"client-states-empty", "client-states-stable"}
        out = {}
        for label, state in (("stable", ConsumerGroupState.STABLE), ("empty", ConsumerGroupState.EMPTY)):
            listed = admin_outcome(t.admin().list_consumer_groups(request_timeout=10, states={state}))
            out[label] = sorted(g.group_id for g in listed.valid if g.group_id in mine)
        return out
    finally:
        consumer.close()


# --- coordinator failover (disruptive: stops and restarts a broker) ---------------------------------------


@scenario("groups/failover/coordinator-restart", disruptive=True)
def _failover(t: Target) -> Any:
    """The coordinator stops: another broker has the Stable group and its offsets; the heartbeat is NONE.

    The coordinator of a Stable group with committed offsets shuts down: another broker becomes
    coordinator and has the group (Stable, its member and generation) and its offsets; the member's
    heartbeat there is NONE. The broker is started again afterwards."""
    name = topic(t, "failover-topic")
    node, (a,) = members(t, "failover", 1)
    a.stable({name: [0]})
    committed = a.commit(name, {0: 42})
    a.close()
    t.stop_node(node)
    try:
        others = [n for n in t.addresses if n != node]
        for other in others:
            t.drop_raw(other)
        new_node = coordinator(t, "failover", via=others[0])
        moved = Member(t, "failover", new_node)
        moved.member_id, moved.generation_id = a.member_id, a.generation_id
        out = {
            "commit": committed,
            "moved": new_node != node,
            "fetch": fetch(t, new_node, "failover", {name: [0]}),
            "group": describe(t, new_node, "failover"),
            "heartbeat": moved.heartbeat(),
        }
        moved.close()
        return out
    finally:
        t.drop_raw(node)
        t.start_node(node)
