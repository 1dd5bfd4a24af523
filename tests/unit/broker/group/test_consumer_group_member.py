"""ConsumerGroupMember: Kafka's defaults, epoch updates, record-shaped updates and KIP-1251 stamps."""

from __future__ import annotations

from kafkette.broker.group.consumer_group_member import (
    ConsumerGroupMember,
    MemberState,
    assignment_from_topic_partitions,
    has_assigned_partitions_changed,
    subscribed_topic_names,
    topic_ids,
    with_epochs,
)

T1 = bytes(15) + b"\x01"
T2 = bytes(15) + b"\x02"


def test_defaults_are_kafkas_builder_defaults() -> None:
    member = ConsumerGroupMember("m")
    assert (member.member_epoch, member.previous_member_epoch, member.state) == (0, -1, MemberState.STABLE)
    assert (member.rebalance_timeout_ms, member.client_id, member.client_host) == (-1, "", "")
    assert member.subscribed_topic_names == frozenset()
    assert member.subscribed_topic_regex == ""
    assert member.subscribed_topic_regex_or_none() is None
    assert member.server_assignor_name is None
    assert not member.use_classic_protocol()


def test_member_state_values_and_unknown_bytes() -> None:
    assert [int(s) for s in MemberState] == [0, 1, 2, 127]
    assert MemberState.from_value(2) is MemberState.UNRELEASED_PARTITIONS
    assert MemberState.from_value(5) is MemberState.UNKNOWN


def test_update_member_epoch_moves_the_old_epoch_to_previous() -> None:
    member = ConsumerGroupMember("m", member_epoch=5, previous_member_epoch=4)
    updated = member.update_member_epoch(7, state=MemberState.UNRELEASED_PARTITIONS)
    assert (updated.member_epoch, updated.previous_member_epoch, updated.state) == (
        7,
        5,
        MemberState.UNRELEASED_PARTITIONS,
    )
    assert (member.member_epoch, member.previous_member_epoch) == (5, 4)


def test_is_reconciled_to_needs_stable_and_the_epoch() -> None:
    member = ConsumerGroupMember("m", member_epoch=3)
    assert member.is_reconciled_to(3)
    assert not member.is_reconciled_to(4)
    assert not member.replace(state=MemberState.UNREVOKED_PARTITIONS).is_reconciled_to(3)


def test_values_are_copied_and_compared_by_value() -> None:
    assigned = {T1: {0: 1}}
    member = ConsumerGroupMember("m", assigned_partitions=assigned)
    assigned[T1][1] = 1
    assert member.assigned_partitions == {T1: {0: 1}}
    assert member == ConsumerGroupMember("m", assigned_partitions={T1: {0: 1}, T2: {}})
    assert has_assigned_partitions_changed(member, member.replace(assigned_partitions={T1: {0: 2}}))
    assert not has_assigned_partitions_changed(member, member.replace(member_epoch=9))


def test_partition_sets_and_stamps() -> None:
    member = ConsumerGroupMember(
        "m", assigned_partitions={T1: {0: 3, 1: 5}}, partitions_pending_revocation={T1: {2: 1}, T2: {0: 2}}
    )
    assert member.assigned_partition_set() == {T1: frozenset({0, 1})}
    assert member.pending_revocation_partition_set() == {T1: frozenset({2}), T2: frozenset({0})}
    assert member.owned_partition_set() == {T1: frozenset({0, 1, 2}), T2: frozenset({0})}
    assert member.assignment_epoch(T1, 1) == 5
    assert member.assignment_epoch(T1, 2) is None
    assert member.pending_revocation_epoch(T1, 2) == 1
    assert member.reset_assigned_partitions_epochs_to_zero().assigned_partitions == {T1: {0: 0, 1: 0}}


def test_record_shaped_updates() -> None:
    member = ConsumerGroupMember("m").update_with_metadata(
        instance_id="i",
        rack_id=None,
        client_id="c",
        client_host="/1.2.3.4",
        subscribed_topic_names=["a", "b", "a"],
        subscribed_topic_regex=None,
        rebalance_timeout_ms=300000,
        server_assignor_name="range",
    )
    assert (member.instance_id, member.client_host, member.subscribed_topic_names) == (
        "i",
        "/1.2.3.4",
        frozenset({"a", "b"}),
    )
    updated = member.update_with_current_assignment(
        member_epoch=4,
        previous_member_epoch=3,
        state=1,
        assigned_partitions={T1: {0: 4}},
        partitions_pending_revocation={},
    )
    assert (updated.member_epoch, updated.previous_member_epoch, updated.state) == (
        4,
        3,
        MemberState.UNREVOKED_PARTITIONS,
    )
    assert updated.client_id == "c"
    assert updated.with_member_id("n").member_id == "n"


def test_assignment_from_topic_partitions_defaults_to_non_negative_member_epoch() -> None:
    entries = [(T1, [0, 1], [3, 4]), (T2, [5], None)]
    assert assignment_from_topic_partitions(entries, 6) == {T1: {0: 3, 1: 4}, T2: {5: 6}}
    # A -2 static member's record without stamps gets 0; a mismatched list is ignored.
    assert assignment_from_topic_partitions([(T1, [0, 1], [9])], -2) == {T1: {0: 0, 1: 0}}
    assert with_epochs({T1: [1, 2], T2: []}, 7) == {T1: {1: 7, 2: 7}}


def test_subscription_resolution() -> None:
    member = ConsumerGroupMember("m", subscribed_topic_names=frozenset({"a"}), subscribed_topic_regex="b.*")
    assert subscribed_topic_names(member) == {"a"}
    assert subscribed_topic_names(member, {"b.*": ["b1", "b2"]}) == {"a", "b1", "b2"}
    assert topic_ids({"a", "missing"}, {"a": T1}.get) == {T1}
