"""KIP-848's consumer group protocol: ConsumerGroupHeartbeat v1 and ConsumerGroupDescribe v0/v1 as
Kafka's group coordinator answers them (``GroupCoordinatorService``'s request checks,
``GroupMetadataManager.consumerGroupHeartbeat``, ``CurrentAssignmentBuilder``'s reconciliation,
the range assignor, static membership), and ListGroups v5's type filter seeing a consumer group.

Every member id is fixed by the scenario (v1 members generate their own, KIP-1082), so answers
compare exactly; topic ids are random per cluster, so assignments are observed by topic name
(through the topic's id from Metadata v12).  Requests go raw to the group's coordinator.  The
target assignment is recomputed at most once per ``group.consumer.assignment.interval.ms``
(1000 ms by default), so a step that needs a new target waits ``ASSIGNMENT_WAIT_S`` first.
"""

from __future__ import annotations

import time
from typing import Any

from kafkette.protocol.apis.consumer_group import (
    ConsumerGroupDescribeRequest,
    ConsumerGroupHeartbeatRequest,
    ConsumerGroupHeartbeatTopicPartitions,
)
from kafkette.protocol.apis.group_admin import ListGroupsRequest
from kafkette.protocol.consumer_protocol import decode_assignment
from tests.conformance.catalogue import register, scenario
from tests.conformance.scenarios.groups import commit, coordinator, describe, members, topic, topic_id_of
from tests.conformance.target import Target, code_name

HEARTBEAT_V = 1
DESCRIBE_VERSIONS = (0, 1)
LIST_V = 5
REBALANCE_MS = 30000
ASSIGNMENT_WAIT_S = 1.5
"""Longer than Kafka's default ``group.consumer.assignment.interval.ms`` (1000 ms)."""

Names = dict[bytes, str]


def heartbeat(
    t: Target,
    node: int,
    group: str,
    member_id: str,
    epoch: int,
    names: list[str] | None = None,
    owned: dict[bytes, list[int]] | None = None,
    rebalance_ms: int = -1,
    **fields: Any,
) -> Any:
    """One ConsumerGroupHeartbeat v1 to ``node``; ``owned`` is ``{topic id: partitions}`` (None: null)."""
    request = ConsumerGroupHeartbeatRequest(
        group_id=group,
        member_id=member_id,
        member_epoch=epoch,
        rebalance_timeout_ms=rebalance_ms,
        subscribed_topic_names=names,
        topic_partitions=None
        if owned is None
        else [ConsumerGroupHeartbeatTopicPartitions(topic_id=i, partitions=p) for i, p in owned.items()],
        **fields,
    )
    return t.call("ConsumerGroupHeartbeat", HEARTBEAT_V, request, node)


def join(t: Target, node: int, group: str, member_id: str, names: list[str], **fields: Any) -> Any:
    """A first heartbeat (epoch 0, a rebalance timeout, no owned partitions)."""
    return heartbeat(t, node, group, member_id, 0, names, owned={}, rebalance_ms=REBALANCE_MS, **fields)


def partitions_by_name(topic_partitions: Any, names: Names) -> list[list[Any]]:
    """``[[topic name, sorted partitions]]`` sorted, a topic id no name is known for as ``"?"``."""
    return sorted([names.get(tp.topic_id, "?"), sorted(tp.partitions)] for tp in topic_partitions)


def shape(answer: Any, names: Names) -> dict[str, Any]:
    """A heartbeat answer as observed: error, message, member id, epoch, interval, assignment."""
    return {
        "error": code_name(answer.error_code),
        "message": answer.error_message,
        "member_id": answer.member_id,
        "epoch": answer.member_epoch,
        "interval_ms": answer.heartbeat_interval_ms,
        "assignment": None
        if answer.assignment is None
        else partitions_by_name(answer.assignment.topic_partitions, names),
    }


def owned_of(answer: Any) -> dict[bytes, list[int]]:
    """The assignment of a heartbeat answer as ``{topic id: partitions}``, to send back as owned."""
    return {tp.topic_id: sorted(tp.partitions) for tp in answer.assignment.topic_partitions}


def described(t: Target, node: int, groups: list[str], version: int, names: Names) -> list[dict[str, Any]]:
    """ConsumerGroupDescribe of ``groups``: per group (sorted by id) its fields and members (by id)."""
    answer = t.call(
        "ConsumerGroupDescribe",
        version,
        ConsumerGroupDescribeRequest(group_ids=groups, include_authorized_operations=False),
        node,
    )
    out = []
    for g in answer.groups:
        out.append(
            {
                "error": code_name(g.error_code),
                "message": g.error_message,
                "group_id": g.group_id,
                "state": g.group_state,
                "group_epoch": g.group_epoch,
                "assignment_epoch": g.assignment_epoch,
                "assignor": g.assignor_name,
                "authorized_operations": g.authorized_operations,
                "members": sorted(
                    (
                        {
                            "member_id": m.member_id,
                            "instance_id": m.instance_id,
                            "rack_id": m.rack_id,
                            "epoch": m.member_epoch,
                            "client_id": m.client_id,
                            "client_host": m.client_host,
                            "names": sorted(m.subscribed_topic_names),
                            "regex": m.subscribed_topic_regex,
                            "assignment": partitions_by_name(m.assignment.topic_partitions, names),
                            "target": partitions_by_name(m.target_assignment.topic_partitions, names),
                            "member_type": m.member_type if version >= 1 else None,
                        }
                        for m in g.members
                    ),
                    key=lambda m: m["member_id"],
                ),
            }
        )
    return sorted(out, key=lambda g: g["group_id"])


COORDINATOR_IMAGE_SETTLE_S = 2.0
"""How long a new topic is given to reach the group coordinators after every broker's Metadata lists it:
Kafka's group coordinator takes each metadata image in its own event loop (``onNewMetadataImage``), a few
ms after the broker's metadata cache (longer on a loaded machine), and a member joining before that is
assigned nothing of the topic."""


def group_topic(t: Target, name: str, partitions: int) -> Names:
    """Create ``name`` with ``partitions`` partitions and let it reach the group coordinators;
    ``{its topic id: name}``."""
    topic(t, name, partitions)
    time.sleep(COORDINATOR_IMAGE_SETTLE_S)
    return {topic_id_of(t, name): name}


# --- request checks (GroupCoordinatorService.throwIfConsumerGroupHeartbeatRequestIsInvalid) -------------

_FULL_JOIN: dict[str, Any] = {
    "group_id": "cg-validate",
    "member_id": "cg-validate-member",
    "member_epoch": 0,
    "rebalance_timeout_ms": REBALANCE_MS,
    "subscribed_topic_names": ["cg-validate-topic"],
    "topic_partitions": [],
}
_INVALID: dict[str, tuple[str, dict[str, Any]]] = {
    "empty-member-id": ("a v1 join with an empty member id: MemberId can't be empty.", {"member_id": ""}),
    "blank-group-id": ("a blank group id: GroupId can't be empty.", {"group_id": "  "}),
    "blank-instance-id": ("a blank instance id: InstanceId can't be empty.", {"instance_id": " "}),
    "blank-rack-id": ("a blank rack id: RackId can't be empty.", {"rack_id": ""}),
    "join-without-rebalance-timeout": (
        "a join with rebalance timeout -1: RebalanceTimeoutMs must be provided in first request.",
        {"rebalance_timeout_ms": -1},
    ),
    "join-with-null-owned": (
        "a join with null owned partitions: TopicPartitions must be empty when (re-)joining.",
        {"topic_partitions": None},
    ),
    "join-with-owned": (
        "a join owning a partition: TopicPartitions must be empty when (re-)joining.",
        {
            "topic_partitions": [
                ConsumerGroupHeartbeatTopicPartitions(topic_id=bytes(range(1, 17)), partitions=[0])
            ]
        },
    ),
    "join-without-subscription": (
        "a join with neither names nor regex: Either SubscribedTopicNames or SubscribedTopicRegex ...",
        {"subscribed_topic_names": None, "subscribed_topic_regex": None},
    ),
    "static-leave-without-instance-id": (
        "epoch -2 without an instance id: InstanceId can't be null.",
        {"member_epoch": -2},
    ),
    "epoch-minus-3": ("epoch -3: MemberEpoch is invalid.", {"member_epoch": -3}),
    "unsupported-assignor": (
        "an unknown server assignor: UNSUPPORTED_ASSIGNOR listing the supported ones",
        {"server_assignor": "no-such-assignor"},
    ),
}


def _invalid(changes: dict[str, Any]) -> Any:
    def run(t: Target) -> Any:
        node = coordinator(t, "cg-validate")
        answer = t.call(
            "ConsumerGroupHeartbeat",
            HEARTBEAT_V,
            ConsumerGroupHeartbeatRequest(**{**_FULL_JOIN, **changes}),
            node,
        )
        return shape(answer, {})

    return run


for _case, (_doc, _changes) in _INVALID.items():
    register(
        f"consumer-groups/heartbeat/invalid/{_case}", f"ConsumerGroupHeartbeat v1, {_doc}", _invalid(_changes)
    )


@scenario("consumer-groups/heartbeat/unknown-group")
def _unknown_group(t: Target) -> Any:
    """Epoch 5 and a -1 leave to a group that does not exist: GROUP_ID_NOT_FOUND with Kafka's messages."""
    node = coordinator(t, "cg-unknown-group")
    return [
        shape(heartbeat(t, node, "cg-unknown-group", "cg-unknown-member", epoch, ["x"]), {})
        for epoch in (5, -1)
    ]


@scenario("consumer-groups/heartbeat/unknown-member")
def _unknown_member(t: Target) -> Any:
    """A known group, a member id it never saw at epoch 1 and at -1: UNKNOWN_MEMBER_ID."""
    names = group_topic(t, "cg-unknown-member-topic", 1)
    node = coordinator(t, "cg-unknown-member")
    first = join(t, node, "cg-unknown-member", "cg-unknown-member-a", ["cg-unknown-member-topic"])
    stranger = [
        shape(heartbeat(t, node, "cg-unknown-member", "cg-unknown-member-b", epoch, None), names)
        for epoch in (1, -1)
    ]
    heartbeat(t, node, "cg-unknown-member", "cg-unknown-member-a", -1)
    return {"first": shape(first, names), "stranger": stranger}


@scenario("consumer-groups/heartbeat/first-join")
def _first_join(t: Target) -> Any:
    """A new group's first member: its epoch, heartbeat interval and whole assignment (uniform by
    default); the next heartbeat (nothing changed) carries no assignment; a -1 leave empties it."""
    names = group_topic(t, "cg-first-topic", 3)
    node = coordinator(t, "cg-first")
    first = join(t, node, "cg-first", "cg-first-member", ["cg-first-topic"])
    again = heartbeat(t, node, "cg-first", "cg-first-member", first.member_epoch)
    full = heartbeat(
        t,
        node,
        "cg-first",
        "cg-first-member",
        first.member_epoch,
        ["cg-first-topic"],
        owned=owned_of(first),
        rebalance_ms=REBALANCE_MS,
    )
    before = described(t, node, ["cg-first"], 1, names)
    left = heartbeat(t, node, "cg-first", "cg-first-member", -1)
    after = described(t, node, ["cg-first"], 1, names)
    return {
        "join": shape(first, names),
        "unchanged": shape(again, names),
        "full": shape(full, names),
        "describe": before,
        "leave": shape(left, names),
        "describe_after_leave": after,
    }


@scenario("consumer-groups/heartbeat/fenced-member-epoch")
def _fenced(t: Target) -> Any:
    """A member's epoch one above its own and one below (not its previous one): FENCED_MEMBER_EPOCH
    with Kafka's "greater" and "smaller" messages; epoch 0 from it rejoins with its assignment."""
    names = group_topic(t, "cg-fenced-topic", 2)
    node = coordinator(t, "cg-fenced")
    first = join(t, node, "cg-fenced", "cg-fenced-member", ["cg-fenced-topic"])
    epoch = first.member_epoch
    greater = heartbeat(t, node, "cg-fenced", "cg-fenced-member", epoch + 1, owned=owned_of(first))
    smaller = (
        heartbeat(t, node, "cg-fenced", "cg-fenced-member", epoch - 1, owned=None) if epoch > 1 else None
    )
    rejoin = join(t, node, "cg-fenced", "cg-fenced-member", ["cg-fenced-topic"])
    heartbeat(t, node, "cg-fenced", "cg-fenced-member", -1)
    return {
        "join": shape(first, names),
        "greater": shape(greater, names),
        "smaller": None if smaller is None else shape(smaller, names),
        "rejoin": shape(rejoin, names),
    }


@scenario("consumer-groups/heartbeat/static-member")
def _static(t: Target) -> Any:
    """A static member leaves with -2 (it keeps its partitions, epoch -2 in the describe), rejoins
    under a new member id with epoch 0 and gets its epoch and partitions back; a second member id
    with the same instance id while it is in the group is UNRELEASED_INSTANCE_ID; -1 leaves."""
    names = group_topic(t, "cg-static-topic", 2)
    node = coordinator(t, "cg-static")
    sub = ["cg-static-topic"]
    first = join(t, node, "cg-static", "cg-static-one", sub, instance_id="cg-static-instance")
    no_instance = heartbeat(t, node, "cg-static", "cg-static-one", -2)
    wrong_member = heartbeat(t, node, "cg-static", "cg-static-other", -2, instance_id="cg-static-instance")
    leave = heartbeat(t, node, "cg-static", "cg-static-one", -2, instance_id="cg-static-instance")
    while_away = described(t, node, ["cg-static"], 1, names)
    back = join(t, node, "cg-static", "cg-static-two", sub, instance_id="cg-static-instance")
    owned = join(t, node, "cg-static", "cg-static-three", sub, instance_id="cg-static-instance")
    after = described(t, node, ["cg-static"], 1, names)
    gone = heartbeat(t, node, "cg-static", "cg-static-two", -1, instance_id="cg-static-instance")
    return {
        "join": shape(first, names),
        "minus_2_without_instance": shape(no_instance, names),
        "minus_2_other_member": shape(wrong_member, names),
        "minus_2": shape(leave, names),
        "described_while_away": while_away,
        "rejoin": shape(back, names),
        "instance_in_use": shape(owned, names),
        "described_after_rejoin": after,
        "leave": shape(gone, names),
    }


def _rebalance(t: Target, group: str, topic_name: str) -> tuple[int, Names, list[Any]]:
    """Two members with the range assignor over a 2-partition topic, step by step: A joins and
    gets both; B joins (after the assignment interval) and waits for A's partition; A revokes it
    and moves to the new epoch; B gets it.  The coordinator, the names and each step's observation."""
    names = group_topic(t, topic_name, 2)
    node = coordinator(t, group)
    sub = [topic_name]
    a = join(t, node, group, f"{group}-a", sub, server_assignor="range")
    steps: list[Any] = [["a joins", shape(a, names)]]
    time.sleep(ASSIGNMENT_WAIT_S)
    b = join(t, node, group, f"{group}-b", sub, server_assignor="range")
    steps.append(["b joins", shape(b, names)])
    steps.append(["state", described(t, node, [group], 1, names)])
    a_owned = owned_of(a)
    a2 = heartbeat(
        t, node, group, f"{group}-a", a.member_epoch, sub, owned=a_owned, rebalance_ms=REBALANCE_MS
    )
    steps.append(["a told to revoke", shape(a2, names)])
    a3 = heartbeat(
        t, node, group, f"{group}-a", a2.member_epoch, sub, owned=owned_of(a2), rebalance_ms=REBALANCE_MS
    )
    steps.append(["a revoked", shape(a3, names)])
    b2 = heartbeat(t, node, group, f"{group}-b", b.member_epoch, sub, owned={}, rebalance_ms=REBALANCE_MS)
    steps.append(["b gets the released partition", shape(b2, names)])
    b3 = heartbeat(t, node, group, f"{group}-b", b2.member_epoch)
    steps.append(["b unchanged", shape(b3, names)])
    stale = heartbeat(t, node, group, f"{group}-a", a2.member_epoch, owned=None)
    steps.append(["a at its previous epoch without owned partitions", shape(stale, names)])
    previous = heartbeat(t, node, group, f"{group}-a", a2.member_epoch, owned=owned_of(a2))
    steps.append(["a at its previous epoch owning a subset", shape(previous, names)])
    return node, names, steps


@scenario("consumer-groups/rebalance/range-two-members")
def _range_two(t: Target) -> Any:
    """Two members, range assignor, 2 partitions: each step's epochs and assignments; the describe
    (v0 and v1) of the Stable group; a -1 leave of one member gives the other both partitions."""
    node, names, steps = _rebalance(t, "cg-range", "cg-range-topic")
    descriptions = {f"v{v}": described(t, node, ["cg-range"], v, names) for v in DESCRIBE_VERSIONS}
    left = heartbeat(t, node, "cg-range", "cg-range-a", -1)
    time.sleep(ASSIGNMENT_WAIT_S)
    b = heartbeat(t, node, "cg-range", "cg-range-b", steps[5][1]["epoch"], owned=None)
    after = described(t, node, ["cg-range"], 1, names)
    heartbeat(t, node, "cg-range", "cg-range-b", -1)
    return {
        "steps": steps,
        "describe": descriptions,
        "a_leaves": shape(left, names),
        "b_after": shape(b, names),
        "describe_after": after,
    }


@scenario("consumer-groups/rebalance/assignment-interval")
def _assignment_interval(t: Target) -> Any:
    """A second member joining right after the first's assignment: whether it joins within
    ``group.consumer.assignment.interval.ms`` (1000 ms) of it, and what it and the describe get."""
    names = group_topic(t, "cg-interval-topic", 2)
    node = coordinator(t, "cg-interval")
    sub = ["cg-interval-topic"]
    started = time.monotonic()
    a = join(t, node, "cg-interval", "cg-interval-a", sub, server_assignor="range")
    b = join(t, node, "cg-interval", "cg-interval-b", sub, server_assignor="range")
    within = time.monotonic() - started < 1.0
    state = described(t, node, ["cg-interval"], 1, names)
    for member in ("cg-interval-a", "cg-interval-b"):
        heartbeat(t, node, "cg-interval", member, -1)
    return {"within_interval": within, "a": shape(a, names), "b": shape(b, names), "describe": state}


# --- ConsumerGroupDescribe and ListGroups ---------------------------------------------------------------


@scenario("consumer-groups/describe/errors")
def _describe_errors(t: Target) -> Any:
    """ConsumerGroupDescribe v0 and v1 of "", an unknown group and a classic group: INVALID_GROUP_ID
    and GROUP_ID_NOT_FOUND with Kafka's messages."""
    topic(t, "cg-describe-classic-topic")
    classic = coordinator(t, "cg-describe-classic")
    unknown = coordinator(t, "cg-describe-unknown")
    commit(t, "cg-describe-classic", "cg-describe-classic-topic", {0: 1}, node=classic)
    out: dict[str, Any] = {}
    for version in DESCRIBE_VERSIONS:
        out[f"v{version}"] = {
            "empty": described(t, min(t.addresses), [""], version, {}),
            "unknown": described(t, unknown, ["cg-describe-unknown"], version, {}),
            "classic": described(t, classic, ["cg-describe-classic"], version, {}),
        }
    return out


@scenario("consumer-groups/list/types-filter")
def _list_types(t: Target) -> Any:
    """ListGroups v5 on every broker with types filters ["consumer"], ["classic"], ["Consumer"] and
    []: a consumer group (one member) and a classic group (a commit), each listed under its type."""
    group_topic(t, "cg-list-topic", 1)
    node = coordinator(t, "cg-list-consumer")
    classic = coordinator(t, "cg-list-classic")
    join(t, node, "cg-list-consumer", "cg-list-member", ["cg-list-topic"])
    commit(t, "cg-list-classic", "cg-list-topic", {0: 1}, node=classic)
    groups = {"cg-list-consumer", "cg-list-classic"}
    out: dict[str, Any] = {}
    for types in (["consumer"], ["classic"], ["Consumer"], []):
        rows = []
        for each in t.addresses:
            answer = t.call(
                "ListGroups", LIST_V, ListGroupsRequest(states_filter=[], types_filter=types), each
            )
            if answer.error_code:
                rows.append(["error", code_name(answer.error_code)])
            rows.extend(
                [g.group_id, g.protocol_type, g.group_state, g.group_type]
                for g in answer.groups
                if g.group_id in groups
            )
        out[",".join(types) or "none"] = sorted(rows)
    heartbeat(t, node, "cg-list-consumer", "cg-list-member", -1)
    return out


@scenario("consumer-groups/upgrade/refused-other-protocol-type")
def _upgrade_refused(t: Target) -> Any:
    """A classic group of protocol type "connect" with one member (JoinGroup): a ConsumerGroupHeartbeat
    joining it (epoch 0) is refused the online upgrade, GROUP_ID_NOT_FOUND with Kafka's
    ``validateOnlineUpgrade`` message; one past the join (epoch 1): "is not a consumer group"."""
    group_topic(t, "cg-upgrade-refused-topic", 1)
    node, (classic,) = members(
        t, "cg-upgrade-refused", 1, topics=("cg-upgrade-refused-topic",), protocol_type="connect"
    )
    joined = classic.join()[-1]
    out: dict[str, Any] = {"classic join": code_name(joined.error_code)}
    answer = join(t, node, "cg-upgrade-refused", "cg-upgrade-member", ["cg-upgrade-refused-topic"])
    out["consumer join"] = [code_name(answer.error_code), answer.error_message]
    answer = heartbeat(t, node, "cg-upgrade-refused", "cg-upgrade-member", 1)
    out["consumer heartbeat"] = [code_name(answer.error_code), answer.error_message]
    return out


def _member_ids(value: Any, ids: dict[str, str]) -> Any:
    """``value`` with each random member id of ``ids`` replaced by its label."""
    if isinstance(value, dict):
        return {k: _member_ids(v, ids) for k, v in value.items()}
    if isinstance(value, list):
        return [_member_ids(v, ids) for v in value]
    return ids.get(value, value) if isinstance(value, str) else value


def _classic_shape(answer: Any) -> dict[str, Any]:
    """A JoinGroup answer to a consumer group: error, generation (the member epoch), protocol, leader and
    members, the member id by its length (a random UUID)."""
    return {
        "error": code_name(answer.error_code),
        "generation_id": answer.generation_id,
        "protocol_type": answer.protocol_type,
        "protocol_name": answer.protocol_name,
        "leader": answer.leader,
        "members": len(answer.members),
        "member_id_length": len(answer.member_id),
    }


def _synced(answer: Any) -> list[Any]:
    """A SyncGroup answer: its error and the assignment's partitions by topic."""
    partitions = decode_assignment(answer.assignment).partitions if answer.assignment else ()
    return [code_name(answer.error_code), sorted([tp.topic, tp.partition] for tp in partitions)]


@scenario("consumer-groups/upgrade/convert")
def _upgrade_convert(t: Target) -> Any:
    """KIP-848's online upgrade (``convertToConsumerGroup``): a Stable classic group of one member holding
    both partitions of a topic; a ConsumerGroupHeartbeat joining it (epoch 0, range) converts it: the
    joiner's answer, the describe (the classic member at the generation with its SyncGroup assignment);
    the classic member's Heartbeat, its rejoin (JoinGroup to the consumer group), SyncGroup and Heartbeat
    while it revokes; then both leave and the group is Empty."""
    group = "cg-upgrade-convert"
    names = group_topic(t, f"{group}-topic", 2)
    node, (classic,) = members(t, group, 1, topics=(f"{group}-topic",))
    out: dict[str, Any] = {"classic": classic.stable({f"{group}-topic": [0, 1]})}
    ids = {classic.member_id: "<classic>"}
    joined = join(t, node, group, f"{group}-consumer", [f"{group}-topic"], server_assignor="range")
    out["consumer joins"] = shape(joined, names)
    out["describe"] = described(t, node, [group], 1, names)
    out["classic heartbeat"] = classic.heartbeat()
    rejoined = classic.join()
    out["classic rejoins"] = [_classic_shape(a) for a in rejoined]
    out["classic syncs"] = _synced(classic.sync())
    out["classic heartbeat after sync"] = classic.heartbeat()
    out["describe after"] = described(t, node, [group], 1, names)
    out["classic leaves"] = classic.leave()
    out["consumer leaves"] = shape(heartbeat(t, node, group, f"{group}-consumer", -1), names)
    out["describe empty"] = described(t, node, [group], 1, names)
    classic.close()
    return _member_ids(out, ids)


@scenario("consumer-groups/mixed/classic-member-joins")
def _classic_member_joins(t: Target) -> Any:
    """A classic member (JoinGroup v5, ``range``) joining a consumer group of one member holding both
    partitions (``classicGroupJoinToConsumerGroup``): MEMBER_ID_REQUIRED, then its join (generation = its
    member epoch), SyncGroup with nothing yet, Heartbeat; the consumer member revokes; the classic member's
    Heartbeat (REBALANCE_IN_PROGRESS), rejoin and SyncGroup with its partition; a wrong generation; the
    describe; then the consumer member leaves, leaving only the classic member: the group becomes a classic
    group again (``convertToClassicGroup``), rebalancing."""
    group = "cg-mixed-join"
    names = group_topic(t, f"{group}-topic", 2)
    node, (classic,) = members(t, group, 1, topics=(f"{group}-topic",))
    sub = [f"{group}-topic"]
    consumer = f"~{group}-consumer"  # after any Kafka Uuid: range gives the classic member 0
    first = join(t, node, group, consumer, sub, server_assignor="range")
    out: dict[str, Any] = {"consumer joins": shape(first, names)}
    time.sleep(ASSIGNMENT_WAIT_S)
    answers = classic.join()
    ids = {classic.member_id: "<classic>"}
    out["classic joins"] = [_classic_shape(a) for a in answers]
    out["classic syncs"] = _synced(classic.sync())
    out["classic heartbeat"] = classic.heartbeat()
    revoke = heartbeat(t, node, group, consumer, first.member_epoch, owned=owned_of(first))
    out["consumer told to revoke"] = shape(revoke, names)
    kept = owned_of(revoke) if revoke.assignment is not None else owned_of(first)
    revoked = heartbeat(t, node, group, consumer, first.member_epoch, owned=kept)
    out["consumer revoked"] = shape(revoked, names)
    out["classic heartbeat after the release"] = classic.heartbeat()
    out["classic rejoins"] = [_classic_shape(a) for a in classic.join()]
    out["classic syncs again"] = _synced(classic.sync())
    out["classic heartbeat, wrong generation"] = classic.heartbeat(generation_id=classic.generation_id + 5)
    out["describe"] = described(t, node, [group], 1, names)
    out["consumer leaves"] = shape(heartbeat(t, node, group, consumer, -1), names)
    out["classic heartbeat after the downgrade"] = classic.heartbeat()
    out["describe after the downgrade"] = described(t, node, [group], 1, names)
    out["classic describe after the downgrade"] = describe(t, node, group)
    out["classic leaves"] = classic.leave()
    classic.close()
    return _member_ids(out, ids)


# --- regex subscriptions (GroupMetadataManager.maybeUpdateRegularExpressions) ----------------------------

REGEX_BATCH_WAIT_S = 11.0
"""Longer than ``REGEX_BATCH_REFRESH_MIN_INTERVAL_MS`` (10 s): Kafka resolves a group's regexes at most
once per 10 s, the first one at once (in the background, a few ms)."""
REGEX_RESOLVE_WAIT_S = 2.0
"""Time given a background resolution (and its epoch bump) before the heartbeat that sees it; more than
the assignment interval."""


@scenario("consumer-groups/regex/resolve-grow-remove")
def _regex_resolve(t: Target) -> Any:
    """A member subscribing with a regex only: no topic until the regex is resolved in the background,
    then the matching topic (full match: a longer name is left out); a matching topic created later joins
    its assignment at the first heartbeat 10 s after the last resolution (which starts a new one); the
    describe shows the regex; removing the regex (names instead) bumps the epoch at once and leaves it the
    named topic only.  Fixed waits, so both clusters see the same heartbeats."""
    group, member = "cg-regex", "cg-regex-member"
    names = group_topic(t, "cgrx-orders-1", 2)
    names |= group_topic(t, "xcgrx-orders-9", 1)
    node = coordinator(t, group)
    first = join(t, node, group, member, None, subscribed_topic_regex="cgrx-orders-.*")
    resolved_at = time.monotonic()
    time.sleep(REGEX_RESOLVE_WAIT_S)
    resolved = heartbeat(t, node, group, member, first.member_epoch, owned={})
    names |= group_topic(t, "cgrx-orders-2", 1)
    time.sleep(max(0.0, resolved_at + REGEX_BATCH_WAIT_S - time.monotonic()))
    trigger = heartbeat(t, node, group, member, resolved.member_epoch, owned=owned_of(resolved))
    time.sleep(REGEX_RESOLVE_WAIT_S)
    grown = heartbeat(t, node, group, member, trigger.member_epoch, owned=owned_of(resolved))
    describe = described(t, node, [group], 1, names)
    removed = heartbeat(
        t,
        node,
        group,
        member,
        grown.member_epoch,
        ["cgrx-orders-2"],
        owned=owned_of(grown),
        subscribed_topic_regex="",
    )
    acked = heartbeat(t, node, group, member, removed.member_epoch, owned=owned_of(removed))
    after = described(t, node, [group], 1, names)
    heartbeat(t, node, group, member, -1)
    return {
        "join": shape(first, names),
        "resolved": shape(resolved, names),
        "trigger": shape(trigger, names),
        "grown": shape(grown, names),
        "describe": describe,
        "removed": shape(removed, names),
        "acked": shape(acked, names),
        "describe_after_removal": after,
    }


@scenario("consumer-groups/regex/invalid")
def _regex_invalid(t: Target) -> Any:
    """A join with a regex RE2 does not compile: INVALID_REGULAR_EXPRESSION with Kafka's message; its
    description is the regex library's own (RE2/J's in Kafka, RE2's here), so the message is compared up
    to it."""
    group = "cg-regex-invalid"
    node = coordinator(t, group)
    answer = join(t, node, group, f"{group}-member", None, subscribed_topic_regex="cgrx-(")
    prefix = "SubscribedTopicRegex `cgrx-(` is not a valid regular expression: "
    message = answer.error_message or ""
    return {
        "error": code_name(answer.error_code),
        "message_prefix": message.startswith(prefix),
        "message_ends_with_period": message.endswith("."),
        "epoch": answer.member_epoch,
        "member_id": answer.member_id,
    }
