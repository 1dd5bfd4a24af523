"""QuorumInfo: what ``AdminClient.describe_metadata_quorum`` answers about the metadata quorum.

Owns: ``QuorumInfo`` (leader, epoch, high watermark, voters, observers) and
``ReplicaState`` (one replica's log end offset and fetch times), built from a
DescribeQuorum response, plus the lag figures ``kafka-metadata-quorum.sh`` prints.
Kafka concept: ``org.apache.kafka.clients.admin.QuorumInfo`` (KIP-836).
"""

from __future__ import annotations

from dataclasses import dataclass

from kafkette.protocol.apis.raft import DescribeQuorumPartitionResponse, QuorumReplicaState


@dataclass(frozen=True)
class ReplicaState:
    """One replica of the metadata log as its leader sees it.

    Attributes:
        replica_id: node id.
        log_end_offset: its log end offset (offsets), -1 when unknown.
        last_fetch_timestamp: when it last fetched (ms since the epoch), -1 when unknown.
        last_caught_up_timestamp: when it last reached the leader's end (ms since the epoch), -1 unknown.
    """

    replica_id: int
    log_end_offset: int
    last_fetch_timestamp: int
    last_caught_up_timestamp: int

    @classmethod
    def from_wire(cls, state: QuorumReplicaState) -> ReplicaState:
        return cls(
            state.replica_id, state.log_end_offset, state.last_fetch_timestamp, state.last_caught_up_timestamp
        )


@dataclass(frozen=True)
class QuorumInfo:
    """The metadata quorum: ``leader_id``, ``leader_epoch``, ``high_watermark`` (offsets),
    ``voters`` and ``observers`` (``ReplicaState``s, leader first among voters)."""

    leader_id: int
    leader_epoch: int
    high_watermark: int
    voters: tuple[ReplicaState, ...]
    observers: tuple[ReplicaState, ...]

    @classmethod
    def from_wire(cls, partition: DescribeQuorumPartitionResponse) -> QuorumInfo:
        return cls(
            partition.leader_id,
            partition.leader_epoch,
            partition.high_watermark,
            tuple(ReplicaState.from_wire(v) for v in partition.current_voters),
            tuple(ReplicaState.from_wire(o) for o in partition.observers),
        )

    @property
    def leader(self) -> ReplicaState | None:
        return next((v for v in self.voters if v.replica_id == self.leader_id), None)

    def lag(self, replica: ReplicaState) -> int:
        """How far ``replica`` is behind the leader's log end offset (offsets)."""
        leader = self.leader
        return max(0, (leader.log_end_offset if leader else self.high_watermark) - replica.log_end_offset)

    def max_follower_lag(self) -> int:
        """The largest lag among the voters other than the leader (offsets), 0 when there are none."""
        return max((self.lag(v) for v in self.voters if v.replica_id != self.leader_id), default=0)

    def max_follower_lag_time_ms(self, now_ms: int) -> int:
        """How long ago the furthest-behind follower voter last caught up (ms), 0 when there are none."""
        followers = [v for v in self.voters if v.replica_id != self.leader_id]
        if not followers:
            return 0
        oldest = min(v.last_caught_up_timestamp for v in followers)
        return now_ms - oldest if oldest >= 0 else now_ms
