"""DelayedJoin and InitialDelayedJoin: the join phase of a rebalance, in the join purgatory.

A rebalance waits until every member has rejoined (and every member id given out has joined)
or until the longest rebalance timeout of the members passes; members that did not rejoin by
then are removed.  A group that was Empty first waits ``group.initial.rebalance.delay.ms``,
again while new members keep arriving, up to the rebalance timeout (KIP-134), so that a group
starting up rebalances once rather than once per member.

Kafka concept: ``DelayedJoin`` / ``InitialDelayedJoin`` in the ``Rebalance`` purgatory.
"""

from __future__ import annotations

from collections.abc import Callable

from kafkette.broker.group.group_metadata import GroupMetadata
from kafkette.broker.purgatory import DelayedOperation, DelayedOperationPurgatory


class DelayedJoin(DelayedOperation):
    """Completes when every member has joined, or after ``rebalance_timeout_ms``.

    Args:
        group: the rebalancing group.
        rebalance_timeout_ms: the longest rebalance timeout of its members (ms).
        complete_join: the coordinator's completion of the join phase (called once).
    """

    def __init__(
        self, group: GroupMetadata, rebalance_timeout_ms: int, complete_join: Callable[[GroupMetadata], None]
    ) -> None:
        super().__init__(rebalance_timeout_ms)
        self.group = group
        self._complete_join = complete_join

    def try_complete(self) -> bool:
        if self.group.all_members_joined():
            return self.force_complete()
        return False

    def on_complete(self) -> None:
        self._complete_join(self.group)


class InitialDelayedJoin(DelayedOperation):
    """The first join of an Empty group: waits the whole ``group.initial.rebalance.delay.ms`` (even past
    the group's rebalance timeout), then again, up to that timeout, while new members arrive (Kafka's
    ``GroupMetadataManager.prepareRebalance`` and ``tryCompleteInitialRebalanceElseSchedule``).

    Args:
        purgatory: the join purgatory (an extension is watched there).
        group: the group.
        delay_ms: this wait (ms): ``group.initial.rebalance.delay.ms`` first, then cut to what is left.
        remaining_ms: how much longer it may still extend the wait (the rebalance timeout left, ms).
        complete_join: the coordinator's completion of the join phase.
    """

    def __init__(
        self,
        purgatory: DelayedOperationPurgatory,
        group: GroupMetadata,
        delay_ms: int,
        remaining_ms: int,
        complete_join: Callable[[GroupMetadata], None],
    ) -> None:
        super().__init__(delay_ms)
        self._purgatory = purgatory
        self.group = group
        self._remaining_ms = remaining_ms
        self._complete_join = complete_join

    def try_complete(self) -> bool:
        return False  # only time completes it

    def on_complete(self) -> None:
        group = self.group
        if group.new_member_added and self._remaining_ms > 0:
            group.new_member_added = False
            # Kafka's tryCompleteInitialRebalanceElseSchedule: the next wait is the delay, cut to what
            # is left, and what is left shrinks by the wait just over
            delay = min(self.delay_ms, self._remaining_ms)
            remaining = max(self._remaining_ms - self.delay_ms, 0)
            self._purgatory.try_complete_else_watch(
                InitialDelayedJoin(self._purgatory, group, delay, remaining, self._complete_join),
                [group.group_id],
            )
        else:
            self._complete_join(group)
