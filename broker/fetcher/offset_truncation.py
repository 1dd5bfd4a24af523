"""Where a follower truncates its log, given the leader's OffsetsForLeaderEpoch answer.

Owns the truncation rule only: pure code over numbers and the follower's leader epoch
cache, no I/O and no asyncio.  Does not send the request nor truncate the log (the
``ReplicaFetcherThread`` does both).

The follower asks for the end offset of its latest epoch E.  The leader answers the
largest epoch L <= E it knows and L's end offset in its log.  Then (Kafka's
``AbstractFetcherThread.getOffsetTruncationState``):

    leader end offset undefined (-1)        -> the high watermark; done
    leader epoch undefined (-1)             -> min(leader end offset, LEO); done
    follower knows no epoch <= L            -> min(leader end offset, LEO); done
    follower's largest epoch <= L is L      -> min(leader end offset, follower's end of L, LEO); done
    follower's largest epoch <= L is F < L  -> min(follower's end of F, LEO); ask again
        (the follower never had epoch L: it drops what it wrote after F and asks about F
        in the next round, until both agree on an epoch)

The result never exceeds the follower's log end offset, and, once done, never exceeds
what the leader holds for the agreed epoch: what the leader never had is dropped, what
both have is kept even when it is above the follower's high watermark (KIP-101).

Kafka concept: ``OffsetTruncationState`` / ``getOffsetTruncationState`` (KIP-101, KIP-279).
"""

from __future__ import annotations

from dataclasses import dataclass

from kafkette.broker.log.leader_epoch_cache import (
    UNDEFINED_EPOCH,
    UNDEFINED_EPOCH_OFFSET,
    LeaderEpochFileCache,
)


@dataclass(frozen=True, slots=True)
class OffsetTruncationState:
    """Where to truncate (an offset) and whether truncation is complete.

    Attributes:
        offset: truncate the follower's log to this offset (its new log end offset at most).
        truncation_completed: False when another OffsetsForLeaderEpoch round is needed.
    """

    offset: int
    truncation_completed: bool


def offset_truncation_state(
    *,
    leader_epoch: int,
    leader_end_offset: int,
    follower_epochs: LeaderEpochFileCache,
    log_end_offset: int,
    high_watermark: int,
) -> OffsetTruncationState:
    """The truncation point for one partition (see the module docstring for the table).

    Args:
        leader_epoch: the epoch in the leader's answer (-1: undefined).
        leader_end_offset: its end offset in the leader's log (-1: undefined).
        follower_epochs: the follower's leader epoch cache.
        log_end_offset: the follower's log end offset.
        high_watermark: the follower's high watermark (the fallback).

    Returns:
        The OffsetTruncationState; its offset is at most ``log_end_offset``.
    """
    if leader_end_offset == UNDEFINED_EPOCH_OFFSET:
        return OffsetTruncationState(min(high_watermark, log_end_offset), True)
    if leader_epoch == UNDEFINED_EPOCH:
        return OffsetTruncationState(min(leader_end_offset, log_end_offset), True)
    follower_epoch, follower_end_offset = follower_epochs.end_offset_for(leader_epoch, log_end_offset)
    if follower_end_offset == UNDEFINED_EPOCH_OFFSET:
        return OffsetTruncationState(min(leader_end_offset, log_end_offset), True)
    if follower_epoch != leader_epoch:
        return OffsetTruncationState(min(follower_end_offset, log_end_offset), False)
    return OffsetTruncationState(min(leader_end_offset, follower_end_offset, log_end_offset), True)
