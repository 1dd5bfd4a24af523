"""GroupMetadata: Kafka's state transitions, protocol choice, join bookkeeping and subscribed topics."""

from __future__ import annotations

import asyncio

import pytest

from kafkette.broker.group.group_metadata import GroupMetadata, GroupState, MemberMetadata
from kafkette.protocol.consumer_protocol import Subscription, encode_subscription
from kafkette.protocol.errors import IllegalStateError


def member(member_id: str, *protocols: str) -> MemberMetadata:
    return MemberMetadata(member_id, "client", "", 10000, 10000, "consumer", [(p, b"") for p in protocols])


def test_transitions_follow_kafkas_valid_previous_states() -> None:
    group = GroupMetadata("g")
    with pytest.raises(
        IllegalStateError,
        match="should be in one of \\['CompletingRebalance'\\] before moving to Stable, but is Empty",
    ):
        group.transition_to(GroupState.STABLE)
    group.transition_to(GroupState.PREPARING_REBALANCE)
    group.transition_to(GroupState.COMPLETING_REBALANCE)
    group.transition_to(GroupState.STABLE)
    group.transition_to(GroupState.PREPARING_REBALANCE)
    group.transition_to(GroupState.EMPTY)
    group.transition_to(GroupState.DEAD)


def test_protocol_is_the_common_one_most_members_prefer() -> None:
    group = GroupMetadata("g")
    group.add(member("a", "roundrobin", "range"))
    group.add(member("b", "range", "roundrobin"))
    group.add(member("c", "range"))
    assert group.candidate_protocols() == {"range"}
    assert group.select_protocol() == "range"
    assert group.supports("consumer", [("range", b"")])
    assert not group.supports("consumer", [("roundrobin", b"")])  # c does not support it
    assert not group.supports("connect", [("range", b"")])
    assert not GroupMetadata("empty").supports("consumer", [])


def test_leader_moves_to_the_next_member_and_generation_bumps() -> None:
    group = GroupMetadata("g")
    group.add(member("a", "range"))
    group.add(member("b", "range"))
    assert group.leader_id == "a"
    group.remove("a")
    assert group.leader_id == "b"
    group.transition_to(GroupState.PREPARING_REBALANCE)
    group.init_next_generation()
    assert (group.generation_id, group.state, group.protocol_name) == (
        1,
        GroupState.COMPLETING_REBALANCE,
        "range",
    )
    group.transition_to(GroupState.PREPARING_REBALANCE)
    group.remove("b")
    group.init_next_generation()
    # an emptied group keeps its protocol type and loses its protocol name (Kafka's initNextGeneration)
    assert (group.generation_id, group.state, group.protocol_type, group.protocol_name) == (
        2,
        GroupState.EMPTY,
        "consumer",
        None,
    )


async def test_all_members_joined_needs_every_member_waiting_and_no_pending_id() -> None:
    group = GroupMetadata("g")
    a, b = member("a", "range"), member("b", "range")
    group.add(a)
    group.add(b)
    loop = asyncio.get_running_loop()
    a.join_future = loop.create_future()
    assert not group.all_members_joined()
    b.join_future = loop.create_future()
    assert group.all_members_joined()
    group.pending_members.add("c")
    assert not group.all_members_joined()


def test_a_static_member_is_replaced_in_place_and_its_old_id_fenced() -> None:
    group = GroupMetadata("g")
    a = member("a-1", "range")
    a.group_instance_id = "worker-a"
    a.assignment = b"partitions"
    group.add(a)
    group.add(member("b", "range"))
    assert group.static_members == {"worker-a": "a-1"} and group.leader_id == "a-1"
    replaced = group.replace_static_member("worker-a", "a-2")
    assert replaced is a and a.member_id == "a-2" and a.assignment == b"partitions"
    assert list(group.members) == ["a-2", "b"] and group.leader_id == "a-2"
    assert group.is_static_member_fenced("worker-a", "a-1")
    assert not group.is_static_member_fenced("worker-a", "a-2")
    assert not group.is_static_member_fenced(None, "anything")
    group.remove("a-2")
    assert group.static_members == {} and group.leader_id == "b"
    with pytest.raises(IllegalStateError, match="no static member worker-a"):
        group.replace_static_member("worker-a", "a-3")


def test_subscribed_topics_are_read_from_the_metadata_of_the_chosen_protocol() -> None:
    def subscribing(member_id: str, *protocols: tuple[str, tuple[str, ...]]) -> MemberMetadata:
        return MemberMetadata(
            member_id,
            "client",
            "",
            10000,
            10000,
            "consumer",
            [(name, encode_subscription(Subscription(topics))) for name, topics in protocols],
        )

    group = GroupMetadata("g")
    assert not group.is_subscribed_to_topic("orders")  # no protocol type yet: not a consumer group
    group.add(subscribing("a", ("roundrobin", ("first-choice",)), ("range", ("orders",))))
    group.add(subscribing("b", ("range", ("payments",))))
    assert group.is_subscribed_to_topic("orders")  # a consumer group before its first generation: every topic
    group.transition_to(GroupState.PREPARING_REBALANCE)
    group.init_next_generation()
    assert (group.protocol_name, group.subscribed_topics) == ("range", {"orders", "payments"})
    assert not group.is_subscribed_to_topic("first-choice")
    group.remove("a")
    group.remove("b")
    assert group.is_subscribed_to_topic("orders")  # until the next generation
    group.transition_to(GroupState.PREPARING_REBALANCE)
    group.init_next_generation()
    assert (group.state, group.subscribed_topics) == (GroupState.EMPTY, frozenset())
