"""ConsumerCoordinator taking a new assignment (Kafka's ``onJoinComplete``): a partition added to
the member shows only once it starts at the group's committed offset, and the rebalance listener
is told before the application runs again; an OffsetFetch that fails leaves the assignment as it
was and the member joins again.

The OffsetFetch round trip (``committed``) is replaced by one the test releases, so the test
sees the consumer's state while the request is in flight; no sockets, no sleeps.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

from kafkette.client.consumer.assignors import RangeAssignor
from kafkette.client.consumer.consumer_coordinator import ConsumerCoordinator, ConsumerRebalanceListener
from kafkette.client.consumer.subscription_state import SubscriptionState
from kafkette.client.offset_and_metadata import OffsetAndMetadata
from kafkette.protocol.consumer_protocol import Assignment
from kafkette.protocol.errors import CoordinatorNotAvailableError
from kafkette.protocol.topic_partition import TopicPartition

pytestmark = pytest.mark.timeout(10)

OWNED = TopicPartition("orders", 0)
ADDED = TopicPartition("orders", 1)


class HeldOffsetFetch(ConsumerCoordinator):
    """A ConsumerCoordinator whose OffsetFetch answers when the test says (``answer``) with
    ``offsets``, or raises ``error``."""

    def __init__(self, subscriptions: SubscriptionState) -> None:
        super().__init__(
            None,
            subscriptions,
            lambda: None,
            group_id="g",  # type: ignore[arg-type]
            session_timeout_ms=10000,
            rebalance_timeout_ms=10000,
            heartbeat_interval_ms=3000,
            max_poll_interval_ms=300000,
            enable_auto_commit=False,
            auto_commit_interval_ms=5000,
            assignors=[RangeAssignor()],
            request_timeout_ms=30000,
            retry_backoff_ms=100,
        )
        self.answer = asyncio.Event()
        self.asked = asyncio.Event()
        self.offsets: dict[TopicPartition, OffsetAndMetadata] = {}
        self.error: Exception | None = None

    async def committed(
        self, partitions: Sequence[TopicPartition]
    ) -> dict[TopicPartition, OffsetAndMetadata | None]:
        self.asked.set()
        await self.answer.wait()
        if self.error is not None:
            raise self.error
        return {tp: self.offsets.get(tp) for tp in partitions}


class Recorder(ConsumerRebalanceListener):
    """What the consumer looked like each time the listener was told of added partitions."""

    def __init__(self, subscriptions: SubscriptionState) -> None:
        self.subscriptions = subscriptions
        self.calls: list[tuple[set[TopicPartition], set[TopicPartition], Any]] = []

    def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
        self.calls.append((assigned, self.subscriptions.assignment(), self.subscriptions.position(ADDED)))


def member_owning_one_partition(
    auto_offset_reset: str,
) -> tuple[SubscriptionState, HeldOffsetFetch, Recorder]:
    subscriptions = SubscriptionState(auto_offset_reset)
    subscriptions.assign([OWNED])
    subscriptions.seek(OWNED, 5)
    coordinator = HeldOffsetFetch(subscriptions)
    listener = coordinator._listener = Recorder(subscriptions)
    return subscriptions, coordinator, listener


async def test_an_added_partition_shows_only_once_it_starts_at_its_committed_offset():
    subscriptions, coordinator, listener = member_owning_one_partition("earliest")
    taking = asyncio.ensure_future(coordinator._on_assigned(Assignment((OWNED, ADDED))))
    await asyncio.wait_for(coordinator.asked.wait(), 1)
    # the OffsetFetch is in flight: the fetcher must not see the partition yet (it would reset it
    # to the earliest offset and hand out records the group has already consumed)
    assert subscriptions.assignment() == {OWNED}
    assert subscriptions.partitions_needing_reset() == {}
    assert listener.calls == []
    coordinator.offsets = {ADDED: OffsetAndMetadata(7)}
    coordinator.answer.set()
    await asyncio.wait_for(taking, 1)
    assert subscriptions.assignment() == {OWNED, ADDED}
    assert (subscriptions.position(OWNED), subscriptions.position(ADDED)) == (5, 7)
    assert listener.calls == [({ADDED}, {OWNED, ADDED}, 7)]  # told once the partition starts at its commit


async def test_an_offset_fetch_that_fails_leaves_the_assignment_and_the_member_joins_again():
    subscriptions, coordinator, listener = member_owning_one_partition("latest")
    coordinator.error = CoordinatorNotAvailableError("the coordinator moved")
    coordinator.answer.set()
    with pytest.raises(CoordinatorNotAvailableError):
        await coordinator._on_assigned(Assignment((OWNED, ADDED)))
    assert subscriptions.assignment() == {OWNED} and subscriptions.position(OWNED) == 5
    assert listener.calls == []
    assert coordinator._need_rejoin
