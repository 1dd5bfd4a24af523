"""ConsumerGroup: state, indexes kept by the replay mutators, partition epochs, offset validation and
describe, after Kafka 4.3.1's ConsumerGroup (and ConsumerGroupTest)."""

from __future__ import annotations

import pytest

from kafkette.broker.group.assignors.api import SubscriptionType
from kafkette.broker.group.consumer_group import (
    CommitPartitionValidator,
    ConsumerGroup,
    ConsumerGroupState,
    SubscriptionCount,
)
from kafkette.broker.group.consumer_group_describe import describe_consumer_group
from kafkette.broker.group.consumer_group_errors import ConsumerGroupError
from kafkette.broker.group.consumer_group_member import ConsumerGroupMember, MemberState
from kafkette.protocol.errors import IllegalStateError

T1 = bytes(15) + b"\x01"
T2 = bytes(15) + b"\x02"
NAMES = {T1: "foo", T2: "bar"}


def member(member_id: str, epoch: int = 1, **kw) -> ConsumerGroupMember:
    return ConsumerGroupMember(member_id, member_epoch=epoch, **kw)


def error_of(call) -> tuple[str, str]:
    with pytest.raises(ConsumerGroupError) as raised:
        call()
    return raised.value.error, raised.value.message


# ---- state ----------------------------------------------------------------------------------------------


def test_new_group_starts_empty_at_epoch_one() -> None:
    group = ConsumerGroup("g")
    assert (group.group_epoch, group.assignment_epoch, group.assignment_timestamp_ms) == (1, 1, 0)
    assert group.state() is ConsumerGroupState.EMPTY
    assert group.state().value == "Empty"


def test_state_transitions() -> None:
    group = ConsumerGroup("g")
    group.update_member(member("m1", epoch=1))
    assert group.state() is ConsumerGroupState.STABLE
    group.set_group_epoch(2, 0)
    assert group.state() is ConsumerGroupState.ASSIGNING
    group.set_target_assignment_metadata(2, 1000)
    assert group.state() is ConsumerGroupState.RECONCILING
    group.update_member(member("m1", epoch=2, state=MemberState.UNREVOKED_PARTITIONS))
    assert group.state() is ConsumerGroupState.RECONCILING
    group.update_member(member("m1", epoch=2))
    assert group.state() is ConsumerGroupState.STABLE
    # A static member that left (-2) is not reconciled.
    group.update_member(member("m2", epoch=-2, instance_id="i2"))
    assert group.state() is ConsumerGroupState.RECONCILING
    group.remove_member("m2")
    group.remove_member("m1")
    assert group.state() is ConsumerGroupState.EMPTY
    group.validate_delete_group()


def test_delete_group_needs_an_empty_group() -> None:
    group = ConsumerGroup("g")
    group.update_member(member("m1"))
    assert error_of(group.validate_delete_group)[0] == "NON_EMPTY_GROUP"


# ---- indexes --------------------------------------------------------------------------------------------


def test_static_members_follow_updates_and_removals() -> None:
    group = ConsumerGroup("g")
    group.update_member(member("m1", instance_id="i"))
    assert group.static_member_id("i") == "m1"
    assert group.static_member("i") == group.members["m1"]
    assert group.has_static_member("i") and not group.has_static_member(None)
    # A replacement: old member's tombstones, then the new member under the same instance id.
    group.remove_member("m1")
    group.update_member(member("m2", instance_id="i"))
    assert group.static_members == {"i": "m2"}
    assert error_of(lambda: group.get_or_maybe_create_member("m1", False)) == (
        "UNKNOWN_MEMBER_ID",
        "Member m1 is not a member of group g.",
    )
    assert group.get_or_maybe_create_member("m3", True) == ConsumerGroupMember("m3")
    assert not group.has_member("m3")


def test_subscribed_topic_counts_and_subscription_type() -> None:
    group = ConsumerGroup("g")
    group.update_member(member("m1", subscribed_topic_names=frozenset({"foo", "bar"})))
    group.update_member(member("m2", subscribed_topic_names=frozenset({"foo", "bar"})))
    assert group.subscription_type() is SubscriptionType.HOMOGENEOUS
    group.update_member(member("m2", subscribed_topic_names=frozenset({"foo"})))
    assert group.subscribed_topic_names() == {"foo": SubscriptionCount(2, 0), "bar": SubscriptionCount(1, 0)}
    assert group.subscription_type() is SubscriptionType.HETEROGENEOUS
    assert group.is_subscribed_to_topic("bar") and not group.is_subscribed_to_topic("baz")
    group.remove_member("m1")
    assert group.subscribed_topic_names() == {"foo": SubscriptionCount(1, 0)}
    assert group.subscription_type() is SubscriptionType.HOMOGENEOUS


def test_regex_subscriptions() -> None:
    group = ConsumerGroup("g")
    group.update_member(member("m1", subscribed_topic_regex="f.*"))
    group.update_member(member("m2", subscribed_topic_regex="f.*"))
    group.set_resolved_regex("f.*", ["foo", "fuu"], 7, 1234)
    assert group.subscribed_regexes == {"f.*": 2}
    assert group.subscribed_topic_names() == {"foo": SubscriptionCount(0, 1), "fuu": SubscriptionCount(0, 1)}
    assert group.subscription_type() is SubscriptionType.HOMOGENEOUS  # one regex for all members
    assert group.resolved_regex_topics() == {"f.*": frozenset({"foo", "fuu"})}
    assert group.subscribed_topic_ids(group.members["m1"], {"foo": T1}.get) == {T1}
    # Kafka recomputes the subscription type on member updates only.
    group.update_member(member("m2", subscribed_topic_regex="f.*", subscribed_topic_names=frozenset({"foo"})))
    assert group.subscription_type() is SubscriptionType.HETEROGENEOUS
    # What the heartbeat computes before writing: m1 leaves the regex, which others still use.
    new_m1 = member("m1", subscribed_topic_names=frozenset({"bar"}))
    assert group.compute_subscribed_regexes(group.members["m1"], new_m1) == {"f.*": 1}
    assert group.compute_subscribed_topic_names(group.members["m2"], None) == {
        "foo": SubscriptionCount(0, 1),
        "fuu": SubscriptionCount(0, 1),
    }
    group.remove_member("m1")
    assert group.compute_subscribed_topic_names(group.members["m2"], None) == {}
    group.remove_resolved_regex("f.*")
    assert group.subscribed_topic_names() == {"foo": SubscriptionCount(1, 0)}


def test_preferred_server_assignor() -> None:
    group = ConsumerGroup("g")
    assert group.preferred_server_assignor("uniform") == "uniform"
    group.update_member(member("m1", server_assignor_name="range"))
    group.update_member(member("m2", server_assignor_name="uniform"))
    group.update_member(member("m3", server_assignor_name="range"))
    assert group.preferred_server_assignor("uniform") == "range"
    new_m1 = member("m1", server_assignor_name="uniform")
    assert group.compute_preferred_server_assignor(group.members["m1"], new_m1, "x") == "uniform"
    group.remove_member("m1")
    group.remove_member("m3")
    assert group.preferred_server_assignor("x") == "uniform"


def test_target_assignment_and_its_inverse() -> None:
    group = ConsumerGroup("g")
    group.set_target_assignment("m1", {T1: [0, 1], T2: []})
    group.set_target_assignment("m2", {T1: [2]})
    assert group.target_assignment == {"m1": {T1: frozenset({0, 1})}, "m2": {T1: frozenset({2})}}
    assert group.inverted_target_assignment == {(T1, 0): "m1", (T1, 1): "m1", (T1, 2): "m2"}
    # m2 takes 1 before m1's record drops it: the inverse keeps m2.
    group.set_target_assignment("m2", {T1: [1, 2]})
    group.set_target_assignment("m1", {T1: [0]})
    assert group.inverted_target_assignment == {(T1, 0): "m1", (T1, 1): "m2", (T1, 2): "m2"}
    group.remove_target_assignment("m2")
    assert group.inverted_target_assignment == {(T1, 0): "m1"}
    assert group.target_assignment_of("m2") == {}
    group.update_member(member("m1", instance_id="i"))
    assert group.target_assignment_of("new", "i") == {T1: frozenset({0})}
    assert group.target_assignment_of("new", "unknown") == {}


def test_tombstone_checks() -> None:
    group = ConsumerGroup("g")
    group.update_member(member("m1", epoch=3, assigned_partitions={T1: {0: 3}}))
    group.set_target_assignment("m1", {T1: [0]})
    with pytest.raises(IllegalStateError, match="did not receive ConsumerGroupCurrentMemberAssignmentValue"):
        group.replay_member_metadata_tombstone("m1")
    group.replay_current_assignment_tombstone("m1")
    assert (group.members["m1"].member_epoch, group.members["m1"].assigned_partitions) == (-1, {})
    assert group.current_partition_epoch(T1, 0) == -1
    with pytest.raises(IllegalStateError, match="TargetAssignmentMetadataValue tombstone"):
        group.replay_member_metadata_tombstone("m1")
    with pytest.raises(IllegalStateError, match="still has 1 members"):
        group.replay_target_assignment_metadata_tombstone()
    group.remove_target_assignment("m1")
    group.replay_member_metadata_tombstone("m1")
    group.replay_member_metadata_tombstone("unknown")
    with pytest.raises(IllegalStateError, match="did not receive ConsumerGroupTargetAssignmentMetadataValue"):
        group.check_group_tombstone()
    group.replay_target_assignment_metadata_tombstone()
    assert (group.assignment_epoch, group.assignment_timestamp_ms) == (-1, 0)
    group.check_group_tombstone()


# ---- partition epochs -------------------------------------------------------------------------------------


def test_partition_epochs_follow_assigned_and_pending_partitions() -> None:
    group = ConsumerGroup("g")
    group.update_member(
        member(
            "m1",
            epoch=10,
            assigned_partitions={T1: {0: 10, 1: 9}},
            partitions_pending_revocation={T2: {3: 8}},
        )
    )
    assert [group.current_partition_epoch(T1, 0), group.current_partition_epoch(T2, 3)] == [10, 10]
    assert group.current_partition_epoch(T1, 5) == -1
    # The old member's epochs are removed before the new one's are added.
    group.update_member(member("m1", epoch=11, assigned_partitions={T1: {0: 10}}))
    assert group.current_partition_epoch(T1, 0) == 11
    assert group.current_partition_epoch(T1, 1) == -1
    assert group.current_partition_epoch(T2, 3) == -1
    group.remove_member("m1")
    assert group.current_partition_epoch(T1, 0) == -1


def test_a_partition_held_at_an_equal_or_newer_epoch_is_refused_without_changes() -> None:
    group = ConsumerGroup("g")
    group.update_member(member("m1", epoch=10, assigned_partitions={T1: {0: 10}}))
    before = dict(group.members)
    for epoch in (10, 9):
        with pytest.raises(IllegalStateError, match="because the partition is still owned at epoch 10"):
            group.update_member(member("m2", epoch=epoch, assigned_partitions={T2: {0: 1}, T1: {0: epoch}}))
        assert dict(group.members) == before
        assert group.current_partition_epoch(T2, 0) == -1
    # A newer epoch takes it over; removing the older owner then leaves the newer epoch in place.
    group.update_member(member("m2", epoch=11, assigned_partitions={T1: {0: 11}}))
    group.remove_member("m1")
    assert group.current_partition_epoch(T1, 0) == 11


def test_waiting_on_unreleased_partition() -> None:
    group = ConsumerGroup("g")
    group.update_member(member("m1", epoch=5, assigned_partitions={T1: {0: 5}}))
    waiting = member("m2", epoch=6, state=MemberState.UNRELEASED_PARTITIONS)
    group.update_member(waiting)
    group.set_target_assignment("m2", {T1: [0]})
    assert group.waiting_on_unreleased_partition(waiting)
    group.remove_member("m1")
    assert not group.waiting_on_unreleased_partition(waiting)
    assert not group.waiting_on_unreleased_partition(member("m2", epoch=6))


# ---- offsets ----------------------------------------------------------------------------------------------


def test_offset_commit_validation_matrix() -> None:
    group = ConsumerGroup("g")
    no_op = CommitPartitionValidator.NO_OP
    assert group.validate_offset_commit("", -1, api_version=9) is no_op
    group.update_member(member("m1", epoch=10, assigned_partitions={T1: {0: 8, 1: 10}}))
    group.update_member(member("c1", epoch=10, classic_member_metadata=object()))
    assert group.validate_offset_commit("", -1, api_version=8, is_transactional=True) is no_op
    assert error_of(lambda: group.validate_offset_commit("x", 10, api_version=9)) == (
        "UNKNOWN_MEMBER_ID",
        "Member x is not a member of group g.",
    )
    assert error_of(lambda: group.validate_offset_commit("m1", 10, api_version=8)) == (
        "UNSUPPORTED_VERSION",
        "OffsetCommit version 9 or above must be used by members using the consumer group protocol",
    )
    assert group.validate_offset_commit("m1", 10, api_version=8, is_transactional=True) is no_op
    assert group.validate_offset_commit("c1", 10, api_version=8) is no_op
    assert group.validate_offset_commit("m1", 10, api_version=9) is no_op
    assert error_of(lambda: group.validate_offset_commit("m1", 11, api_version=9)) == (
        "STALE_MEMBER_EPOCH",
        "Received member epoch 11 is newer than current member epoch 10.",
    )
    assert error_of(lambda: group.validate_offset_commit("c1", 11, api_version=9)) == (
        "ILLEGAL_GENERATION",
        "Received generation id 11 is newer than current member epoch 10.",
    )


def test_older_epoch_commits_are_checked_per_partition() -> None:
    group = ConsumerGroup("g")
    group.update_member(
        member(
            "m1",
            epoch=10,
            assigned_partitions={T1: {0: 8, 1: 10}},
            partitions_pending_revocation={T2: {0: 7}},
        )
    )
    validator = group.validate_offset_commit("m1", 9, api_version=10)
    validator.validate("foo", T1, 0)
    validator.validate("bar", T2, 0)
    assert error_of(lambda: validator.validate("foo", T1, 1)) == (
        "STALE_MEMBER_EPOCH",
        "Received member epoch 9 is older than assignment epoch 10 for partition foo-1.",
    )
    assert error_of(lambda: validator.validate("foo", T1, 2)) == (
        "STALE_MEMBER_EPOCH",
        "Partition foo-2 is not assigned or pending revocation for member.",
    )
    group.update_member(
        member("c1", epoch=10, classic_member_metadata=object(), assigned_partitions={T2: {1: 10}})
    )
    classic = group.validate_offset_commit("c1", 9, api_version=8)
    assert error_of(lambda: classic.validate("bar", T2, 1)) == (
        "ILLEGAL_GENERATION",
        "Received generation id 9 is older than assignment epoch 10 for partition bar-1.",
    )
    assert error_of(lambda: classic.validate("bar", T2, 2))[0] == "ILLEGAL_GENERATION"


def test_offset_fetch_validation() -> None:
    group = ConsumerGroup("g")
    group.validate_offset_fetch(None, -1)
    assert error_of(lambda: group.validate_offset_fetch("x", 1))[0] == "UNKNOWN_MEMBER_ID"
    group.update_member(member("m1", epoch=10))
    group.update_member(member("c1", epoch=10, classic_member_metadata=object()))
    group.validate_offset_fetch("m1", 10)
    assert error_of(lambda: group.validate_offset_fetch("m1", 9)) == (
        "STALE_MEMBER_EPOCH",
        "The received member epoch 9 does not match the expected member epoch 10.",
    )
    assert error_of(lambda: group.validate_offset_fetch("c1", 11)) == (
        "ILLEGAL_GENERATION",
        "The received generation id 11 does not match the expected member epoch 10.",
    )


# ---- describe ---------------------------------------------------------------------------------------------


def test_describe_reports_owned_and_target_assignments() -> None:
    group = ConsumerGroup("g")
    group.set_group_epoch(3, 42)
    group.set_target_assignment_metadata(3, 100)
    group.update_member(
        member(
            "m1",
            epoch=3,
            state=MemberState.UNREVOKED_PARTITIONS,
            client_id="c",
            client_host="/127.0.0.1",
            subscribed_topic_names=frozenset({"foo", "bar"}),
            server_assignor_name="range",
            assigned_partitions={T1: {2: 3, 0: 3}},
            partitions_pending_revocation={T1: {1: 2}, b"\xff" * 16: {0: 1}},
        )
    )
    group.set_target_assignment("m1", {T1: [0, 2], T2: [5]})
    described = describe_consumer_group(group, "uniform", NAMES.get)
    assert (described.group_state, described.group_epoch, described.assignment_epoch) == ("Reconciling", 3, 3)
    assert described.assignor_name == "range"
    (m1,) = described.members

    def parts(assignment):
        return [(tp.topic_id, tp.topic_name, tp.partitions) for tp in assignment.topic_partitions]

    assert parts(m1.assignment) == [(T1, "foo", [0, 1, 2])]
    assert parts(m1.target_assignment) == [(T1, "foo", [0, 2]), (T2, "bar", [5])]
    assert (m1.member_type, m1.subscribed_topic_names, m1.client_host) == (1, ["bar", "foo"], "/127.0.0.1")


# ---- record-shaped replay ---------------------------------------------------------------------------------


def test_replay_member_metadata_and_current_assignment() -> None:
    group = ConsumerGroup("g")
    group.replay_member_metadata(
        "m1",
        instance_id=None,
        rack_id="r",
        client_id="c",
        client_host="/h",
        subscribed_topic_names=["foo"],
        subscribed_topic_regex="",
        rebalance_timeout_ms=1000,
        server_assignor_name=None,
    )
    assert group.members["m1"] == ConsumerGroupMember(
        "m1",
        rack_id="r",
        client_id="c",
        client_host="/h",
        subscribed_topic_names=frozenset({"foo"}),
        rebalance_timeout_ms=1000,
    )
    assert group.is_subscribed_to_topic("foo")
    group.replay_current_assignment(
        "m1",
        member_epoch=2,
        previous_member_epoch=1,
        state=2,
        assigned_partitions={T1: {0: 2}},
        partitions_pending_revocation={},
    )
    m1 = group.members["m1"]
    assert (m1.member_epoch, m1.state, m1.client_id) == (2, MemberState.UNRELEASED_PARTITIONS, "c")
    assert group.current_partition_epoch(T1, 0) == 2
    # A CurrentAssignment record may come first after compaction: it creates the member too.
    group.replay_current_assignment(
        "m2",
        member_epoch=3,
        previous_member_epoch=2,
        state=0,
        assigned_partitions={T1: {1: 3}},
        partitions_pending_revocation={},
    )
    assert group.members["m2"].client_id == ""
    with pytest.raises(IllegalStateError):
        group.replay_current_assignment(
            "m2",
            member_epoch=1,
            previous_member_epoch=0,
            state=0,
            assigned_partitions={T1: {0: 1}},
            partitions_pending_revocation={},
        )
    assert group.members["m2"].member_epoch == 3


def test_resolved_regex_refresh_bookkeeping() -> None:
    group = ConsumerGroup("g")
    assert (group.last_resolved_regex_refresh_time_ms(), group.last_resolved_regex_version()) == (None, 0)
    group.set_resolved_regex("a.*", ["a1"], 5, 1000)
    assert (group.last_resolved_regex_refresh_time_ms(), group.last_resolved_regex_version()) == (1000, 5)
    assert group.resolved_regexes["a.*"].topics == {"a1"}
