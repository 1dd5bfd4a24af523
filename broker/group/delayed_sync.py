"""DelayedSync: the wait for every member's SyncGroup after a join phase, in the join purgatory.

Once a join phase completes, every member of the new generation owes the coordinator a
SyncGroup.  A member that sends none within the group's rebalance timeout (the longest of its
members') is removed and the group rebalances, so that a member which joined and then hung
cannot hold the group's partitions unassigned.  Completes early, doing nothing, once every
member has synced or the generation is over (a new join phase, the group Empty or Dead).

Kafka concept: ``DelayedSync`` (``tryCompletePendingSync`` / ``onExpirePendingSync``), watched
under the group's ``GroupSyncKey``.
"""

from __future__ import annotations

from collections.abc import Callable

from kafkette.broker.group.group_metadata import GroupMetadata, GroupState
from kafkette.broker.purgatory import DelayedOperation


class DelayedSync(DelayedOperation):
    """Expires the members of ``generation_id`` that have not sent SyncGroup within
    ``rebalance_timeout_ms``.

    Args:
        group: the group that completed a join phase.
        generation_id: the generation it began.
        rebalance_timeout_ms: the longest rebalance timeout of its members (ms).
        on_expire: the coordinator's removal of the members still pending (group, generation).
    """

    def __init__(
        self,
        group: GroupMetadata,
        generation_id: int,
        rebalance_timeout_ms: int,
        on_expire: Callable[[GroupMetadata, int], None],
    ) -> None:
        super().__init__(rebalance_timeout_ms)
        self.group = group
        self.generation_id = generation_id
        self._on_expire = on_expire

    @staticmethod
    def key(group_id: str) -> tuple[str, str]:
        """The purgatory key it is watched under (beside the join phase's, the group id)."""
        return ("sync", group_id)

    def try_complete(self) -> bool:
        group = self.group
        if (
            group.generation_id != self.generation_id
            or not group.pending_sync_members
            or group.is_in(GroupState.DEAD, GroupState.EMPTY, GroupState.PREPARING_REBALANCE)
        ):
            return self.force_complete()
        return False

    def on_complete(self) -> None:
        pass

    def on_expiration(self) -> None:
        self._on_expire(self.group, self.generation_id)
