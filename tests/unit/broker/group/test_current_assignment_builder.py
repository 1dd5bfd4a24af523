"""CurrentAssignmentBuilder: every reconciliation transition of Kafka 4.3.1's CurrentAssignmentBuilder
(ported from Kafka's CurrentAssignmentBuilderTest, with the 4.3.1 subscription filter and KIP-1251
per-partition assignment epochs)."""

from __future__ import annotations

import pytest

from kafkette.broker.group.consumer_group_errors import ConsumerGroupError
from kafkette.broker.group.consumer_group_member import ConsumerGroupMember, MemberState
from kafkette.broker.group.current_assignment_builder import CurrentAssignmentBuilder

T1 = bytes(15) + b"\x01"
T2 = bytes(15) + b"\x02"
TOPICS = {"foo": T1, "bar": T2}


def stamped(epoch: int, **topics: tuple[int, ...]) -> dict[bytes, dict[int, int]]:
    return {TOPICS[name]: dict.fromkeys(parts, epoch) for name, parts in topics.items()}


def target(**topics: tuple[int, ...]) -> dict[bytes, frozenset[int]]:
    return {TOPICS[name]: frozenset(parts) for name, parts in topics.items()}


def member(
    state: MemberState, epoch: int, previous: int, assigned, pending=None, **kw
) -> ConsumerGroupMember:
    kw.setdefault("subscribed_topic_names", frozenset(TOPICS))
    return ConsumerGroupMember(
        "member",
        member_epoch=epoch,
        previous_member_epoch=previous,
        state=state,
        assigned_partitions=assigned,
        partitions_pending_revocation=pending or {},
        **kw,
    )


def build(m: ConsumerGroupMember, epoch: int, tgt, partition_epoch, owned=None, **kw) -> ConsumerGroupMember:
    return CurrentAssignmentBuilder(
        m,
        target_assignment_epoch=epoch,
        target_assignment=tgt,
        current_partition_epoch=partition_epoch
        if callable(partition_epoch)
        else lambda t, p: partition_epoch,
        topic_id_of=TOPICS.get,
        owned_topic_partitions=owned,
        **kw,
    ).build()


def test_stable_to_stable() -> None:
    m = member(MemberState.STABLE, 10, 10, stamped(10, foo=(1, 2, 3), bar=(4, 5, 6)))
    updated = build(m, 11, target(foo=(1, 2, 3), bar=(4, 5, 6)), 10)
    # Kept partitions keep their stamps (KIP-1251).
    assert updated == m.replace(member_epoch=11, previous_member_epoch=10)


def test_stable_to_stable_with_new_partitions_stamped_with_the_target_epoch() -> None:
    m = member(MemberState.STABLE, 10, 10, stamped(10, foo=(1, 2, 3), bar=(4, 5, 6)))
    updated = build(m, 11, target(foo=(1, 2, 3, 4), bar=(4, 5, 6, 7)), -1)
    assert updated.state is MemberState.STABLE
    assert (updated.member_epoch, updated.previous_member_epoch) == (11, 10)
    assert updated.assigned_partitions == {T1: {1: 10, 2: 10, 3: 10, 4: 11}, T2: {4: 10, 5: 10, 6: 10, 7: 11}}


def test_stable_to_unrevoked_partitions() -> None:
    m = member(MemberState.STABLE, 10, 10, stamped(10, foo=(1, 2, 3), bar=(4, 5, 6)))
    updated = build(m, 11, target(foo=(2, 3, 4), bar=(5, 6, 7)), -1)
    assert updated == member(
        MemberState.UNREVOKED_PARTITIONS,
        10,
        10,
        stamped(10, foo=(2, 3), bar=(5, 6)),
        stamped(10, foo=(1,), bar=(4,)),
    )


def test_stable_to_unreleased_partitions() -> None:
    m = member(MemberState.STABLE, 10, 10, stamped(10, foo=(1, 2, 3), bar=(4, 5, 6)))
    updated = build(m, 11, target(foo=(1, 2, 3, 4), bar=(4, 5, 6, 7)), 10)
    assert updated == member(
        MemberState.UNRELEASED_PARTITIONS, 11, 10, stamped(10, foo=(1, 2, 3), bar=(4, 5, 6))
    )


def test_stable_to_unreleased_partitions_with_owned_partitions_not_having_revoked_partitions() -> None:
    m = member(MemberState.STABLE, 10, 10, stamped(10, foo=(1, 2, 3), bar=(4, 5, 6)))
    updated = build(m, 11, target(foo=(1, 2, 3), bar=(4, 5, 7)), lambda t, p: 10 if t == T2 else -1, owned=[])
    assert updated == member(
        MemberState.UNRELEASED_PARTITIONS, 11, 10, stamped(10, foo=(1, 2, 3), bar=(4, 5))
    )


def test_unrevoked_partitions_to_stable() -> None:
    m = member(
        MemberState.UNREVOKED_PARTITIONS,
        10,
        10,
        stamped(10, foo=(2, 3), bar=(5, 6)),
        stamped(10, foo=(1,), bar=(4,)),
    )
    updated = build(m, 11, target(foo=(2, 3), bar=(5, 6)), -1, owned=[(T1, [2, 3]), (T2, [5, 6])])
    assert updated == member(MemberState.STABLE, 11, 10, stamped(10, foo=(2, 3), bar=(5, 6)))


def test_remains_in_unrevoked_partitions() -> None:
    m = member(
        MemberState.UNREVOKED_PARTITIONS,
        10,
        10,
        stamped(10, foo=(2, 3), bar=(5, 6)),
        stamped(10, foo=(1,), bar=(4,)),
    )
    tgt = target(foo=(3,), bar=(6,))
    assert build(m, 12, tgt, -1, owned=None) is m
    assert build(m, 12, tgt, -1, owned=[(T1, [1, 2, 3]), (T2, [5, 6])]) is m
    assert build(m, 12, tgt, -1, owned={T1: [2, 3], T2: [4, 5, 6]}) is m


def test_unrevoked_partitions_to_unrevoked_partitions() -> None:
    m = member(
        MemberState.UNREVOKED_PARTITIONS,
        10,
        10,
        stamped(10, foo=(2, 3), bar=(5, 6)),
        stamped(10, foo=(1,), bar=(4,)),
    )
    updated = build(m, 12, target(foo=(3,), bar=(6,)), -1, owned=[(T1, [2, 3]), (T2, [5, 6])])
    # 4.3.1 stays at the member's epoch (the 2024 builder moved to epoch + 1); updateMemberEpoch with the
    # same epoch copies it to the previous epoch.
    assert updated == member(
        MemberState.UNREVOKED_PARTITIONS,
        10,
        10,
        stamped(10, foo=(3,), bar=(6,)),
        stamped(10, foo=(2,), bar=(5,)),
    )


def test_unrevoked_partitions_to_unreleased_partitions() -> None:
    m = member(MemberState.UNREVOKED_PARTITIONS, 11, 10, stamped(11, foo=(2, 3), bar=(5, 6)))
    updated = build(m, 11, target(foo=(2, 3, 4), bar=(5, 6, 7)), 10, owned=[(T1, [2, 3]), (T2, [5, 6])])
    assert updated == member(MemberState.UNRELEASED_PARTITIONS, 11, 11, stamped(11, foo=(2, 3), bar=(5, 6)))


def test_unreleased_partitions_to_stable() -> None:
    m = member(MemberState.UNRELEASED_PARTITIONS, 11, 11, stamped(11, foo=(2, 3), bar=(5, 6)))
    updated = build(m, 12, target(foo=(2, 3), bar=(5, 6)), 10)
    assert updated == member(MemberState.STABLE, 12, 11, stamped(11, foo=(2, 3), bar=(5, 6)))


def test_unreleased_partitions_to_stable_with_new_partitions() -> None:
    m = member(MemberState.UNRELEASED_PARTITIONS, 11, 11, stamped(11, foo=(2, 3), bar=(5, 6)))
    updated = build(m, 11, target(foo=(2, 3, 4), bar=(5, 6, 7)), -1)
    assert updated == member(MemberState.STABLE, 11, 11, stamped(11, foo=(2, 3, 4), bar=(5, 6, 7)))


def test_unreleased_partitions_to_unreleased_partitions() -> None:
    m = member(MemberState.UNRELEASED_PARTITIONS, 11, 11, stamped(11, foo=(2, 3), bar=(5, 6)))
    assert build(m, 11, target(foo=(2, 3, 4), bar=(5, 6, 7)), 10) == m


def test_unreleased_partitions_to_unrevoked_partitions() -> None:
    m = member(MemberState.UNRELEASED_PARTITIONS, 11, 11, stamped(11, foo=(2, 3), bar=(5, 6)))
    updated = build(m, 12, target(foo=(3,), bar=(6,)), 10)
    assert updated == member(
        MemberState.UNREVOKED_PARTITIONS,
        11,
        11,
        stamped(11, foo=(3,), bar=(6,)),
        stamped(11, foo=(2,), bar=(5,)),
    )


def test_unknown_state_fences_until_the_member_owns_nothing() -> None:
    m = member(MemberState.UNKNOWN, 11, 11, stamped(11, foo=(3,), bar=(6,)), stamped(11, foo=(2,), bar=(5,)))
    tgt = target(foo=(3,), bar=(6,))
    for owned in (None, [(T1, [3])]):
        with pytest.raises(ConsumerGroupError) as raised:
            build(m, 12, tgt, 10, owned=owned)
        assert raised.value.error == "FENCED_MEMBER_EPOCH"
        assert raised.value.message == (
            "The consumer group member is in a unknown state. "
            "The member must abandon all its partitions and rejoin."
        )
    updated = build(m, 12, tgt, 11, owned=[])
    assert updated == member(MemberState.STABLE, 12, 11, stamped(11, foo=(3,), bar=(6,)))


def test_unsubscribed_topic_counts_as_an_empty_target() -> None:
    m = member(
        MemberState.STABLE, 10, 10, stamped(10, foo=(1,), bar=(4,)), subscribed_topic_names=frozenset({"foo"})
    )
    updated = build(m, 11, target(foo=(1,), bar=(4,)), -1)
    assert updated.state is MemberState.UNREVOKED_PARTITIONS
    assert updated.assigned_partitions == {T1: {1: 10}}
    assert updated.partitions_pending_revocation == {T2: {4: 10}}


def test_own_pending_revocation_is_not_unreleased() -> None:
    # The member revoked bar-4 and the target gives it back: it is not waiting on another member.
    m = member(MemberState.UNREVOKED_PARTITIONS, 10, 10, stamped(10, foo=(1,)), stamped(10, bar=(4,)))
    updated = build(m, 11, target(foo=(1,), bar=(4,)), 10, owned=[(T1, [1])])
    assert updated.state is MemberState.STABLE
    assert updated.assigned_partitions == {T1: {1: 10}, T2: {4: 11}}


def test_subscription_change_moves_unsubscribed_topics_to_pending_revocation() -> None:
    m = member(
        MemberState.STABLE, 10, 9, stamped(10, foo=(1,), bar=(4,)), subscribed_topic_names=frozenset({"foo"})
    )
    tgt = target(foo=(1,), bar=(4,))
    still_owned = build(m, 10, tgt, 10, owned=[(T2, [4])], has_subscription_changed=True)
    assert still_owned == m.replace(
        state=MemberState.UNREVOKED_PARTITIONS,
        previous_member_epoch=10,
        assigned_partitions=stamped(10, foo=(1,)),
        partitions_pending_revocation=stamped(10, bar=(4,)),
    )
    already_revoked = build(m, 10, tgt, 10, owned=[(T1, [1])], has_subscription_changed=True)
    assert already_revoked == m.replace(previous_member_epoch=10, assigned_partitions=stamped(10, foo=(1,)))
    # Without the flag a reconciled member is left as is.
    assert build(m, 10, tgt, 10, owned=[(T2, [4])]) is m


def test_subscription_change_to_nothing_revokes_everything() -> None:
    m = member(
        MemberState.STABLE, 10, 10, stamped(10, foo=(1,), bar=(4,)), subscribed_topic_names=frozenset()
    )
    updated = build(m, 10, target(foo=(1,), bar=(4,)), 10, owned=None, has_subscription_changed=True)
    assert updated.state is MemberState.UNREVOKED_PARTITIONS
    assert updated.assigned_partitions == {}
    assert updated.partitions_pending_revocation == stamped(10, foo=(1,), bar=(4,))


def test_subscription_change_without_removed_topics_keeps_the_member() -> None:
    m = member(MemberState.STABLE, 10, 10, stamped(10, foo=(1,)))
    assert build(m, 10, target(foo=(1,)), 10, has_subscription_changed=True) is m


def test_regex_subscription_resolves_through_resolved_regexes() -> None:
    m = member(
        MemberState.STABLE, 10, 10, {}, subscribed_topic_names=frozenset(), subscribed_topic_regex="f.*"
    )
    tgt = target(foo=(1, 2))
    resolved = build(m, 11, tgt, -1, resolved_regexes={"f.*": ["foo"]})
    assert resolved.assigned_partitions == {T1: {1: 11, 2: 11}}
    # An unresolved regex matches no topic.
    unresolved = build(m, 11, tgt, -1)
    assert (unresolved.state, unresolved.member_epoch, unresolved.assigned_partitions) == (
        MemberState.STABLE,
        11,
        {},
    )


def test_missing_topic_is_not_subscribed() -> None:
    m = member(
        MemberState.STABLE, 10, 10, stamped(10, foo=(1,)), subscribed_topic_names=frozenset({"foo", "gone"})
    )
    updated = CurrentAssignmentBuilder(
        m,
        target_assignment_epoch=11,
        target_assignment=target(foo=(1,)),
        current_partition_epoch=lambda t, p: -1,
        topic_id_of=lambda name: None,
        owned_topic_partitions=[(T1, [1])],
    ).build()
    assert updated.state is MemberState.UNREVOKED_PARTITIONS
    assert updated.partitions_pending_revocation == stamped(10, foo=(1,))
