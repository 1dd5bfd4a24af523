"""DelayedHeartbeat: a member's session, in the heartbeat purgatory.

Each heartbeat (or JoinGroup, SyncGroup, commit) completes the member's pending
DelayedHeartbeat and watches a new one that expires ``session.timeout.ms`` later; one that
expires removes the member (and rebalances its group).  A member waiting for a JoinGroup or
SyncGroup answer is kept alive: the join phase has its own timeout.

Kafka concept: ``DelayedHeartbeat`` (``tryCompleteHeartbeat`` / ``onExpireHeartbeat``).
"""

from __future__ import annotations

from collections.abc import Callable

from kafkette.broker.group.group_metadata import GroupMetadata, MemberMetadata
from kafkette.broker.purgatory import DelayedOperation


class DelayedHeartbeat(DelayedOperation):
    """Expires the member unless it heartbeats (or waits on the join phase) within its session.

    Args:
        group: the member's group.
        member: the member.
        on_expire: the coordinator's removal of an expired member (group, member, this op).
    """

    def __init__(
        self,
        group: GroupMetadata,
        member: MemberMetadata,
        on_expire: Callable[[GroupMetadata, MemberMetadata, DelayedHeartbeat], None],
    ) -> None:
        super().__init__(member.session_timeout_ms)
        self.group = group
        self.member = member
        self._on_expire = on_expire
        self.satisfied = False

    def try_complete(self) -> bool:
        member = self.member
        if (
            self.satisfied
            or member.awaiting_join
            or member.awaiting_sync
            or self.group.members.get(member.member_id) is not member
        ):
            return self.force_complete()
        return False

    def on_complete(self) -> None:
        pass

    def on_expiration(self) -> None:
        self._on_expire(self.group, self.member, self)
