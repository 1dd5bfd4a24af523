"""DelayedFetch: a fetch waiting for ``min_bytes`` of new data or ``max_wait_ms``.

Completion cases (Kafka's DelayedFetch, checked for each fetched partition):
  A. this broker is no longer the leader of a partition;
  B. a partition is no longer known here;
  C. the fetch offset is no longer readable (log truncated below it, or the log
     start moved past it), so the fetch must answer with an error;
  D. enough bytes are readable across partitions to reach ``min_bytes``;
  E. the timeout (``max_wait_ms``) passed: answer with whatever is readable.
On completion the fetch is read again and the response built from that read.

Kafka concept: ``kafka.server.DelayedFetch`` (parked by ``ReplicaManager.fetchMessages``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from kafkette.broker.partition import Partition
from kafkette.broker.purgatory import DelayedOperation
from kafkette.protocol.topic_partition import TopicPartition


@dataclass(frozen=True, slots=True)
class FetchPartitionInfo:
    """What a fetch asks of one partition."""

    fetch_offset: int
    partition_max_bytes: int
    current_leader_epoch: int
    log_start_offset: int = -1  # a follower's own log start offset (-1 for consumers)
    topic_id: bytes = bytes(16)  # the topic id the fetch named (Fetch v13+, KIP-516); zero: none


class DelayedFetch(DelayedOperation):
    """Completes when the partitions fetched have ``min_bytes`` readable, or on timeout.

    Args:
        delay_ms: the request's ``max_wait_ms``.
        fetch_infos: ``{tp: FetchPartitionInfo}``.
        is_follower_fetch: followers read to the log end offset, consumers to the HW.
        min_bytes: the request's ``min_bytes``.
        get_partition: ``tp -> Partition | None``.
        result: resolved with None on completion; the caller then reads again.
        fetch_only_from_leader: False for a consumer a follower may serve (KIP-392); case A
            then applies only when the replica is gone.
        leader_throttled: ``partition -> True`` when a follower's fetch of it is held back by the
            leader's replication throttle: its new data does not complete the fetch (Kafka's
            ``DelayedFetch`` leaves out ``shouldLeaderThrottle`` partitions).
    """

    def __init__(
        self,
        delay_ms: int,
        fetch_infos: dict[TopicPartition, FetchPartitionInfo],
        *,
        is_follower_fetch: bool,
        min_bytes: int,
        get_partition: Callable[[TopicPartition], Partition | None],
        result: asyncio.Future[None],
        fetch_only_from_leader: bool = True,
        leader_throttled: Callable[[Partition], bool] | None = None,
        read_committed: bool = False,
    ) -> None:
        super().__init__(delay_ms)
        self.fetch_infos = fetch_infos
        self.is_follower_fetch = is_follower_fetch
        self.min_bytes = min_bytes
        self._get_partition = get_partition
        self._result = result
        self.fetch_only_from_leader = fetch_only_from_leader
        self._leader_throttled = leader_throttled
        self.read_committed = read_committed

    def try_complete(self) -> bool:
        accumulated = 0
        for tp, info in self.fetch_infos.items():
            partition = self._get_partition(tp)
            if partition is None or partition.log is None:
                return self.force_complete()  # case B
            if self.fetch_only_from_leader and not partition.is_leader:
                return self.force_complete()  # case A
            log = partition.log
            end_offset = partition.end_offset_for(self.is_follower_fetch, self.read_committed)
            if info.fetch_offset > log.log_end_offset or info.fetch_offset < log.log_start_offset:
                return self.force_complete()  # case C
            if self._leader_throttled is not None and self._leader_throttled(partition):
                continue  # its bytes would not be sent: they count for nothing (KIP-73)
            if end_offset > info.fetch_offset:
                if self.min_bytes <= 1:
                    return self.force_complete()  # case D, any new data is enough
                accumulated += len(
                    log.read(info.fetch_offset, info.partition_max_bytes, end_offset, True).records
                )
                if accumulated >= self.min_bytes:
                    return self.force_complete()  # case D
        return False

    def on_complete(self) -> None:
        if not self._result.done():
            self._result.set_result(None)
