"""The follower's truncation rule (Kafka's ``getOffsetTruncationState``), one test per case.

Pure: a LeaderEpochFileCache and numbers in, an OffsetTruncationState out.
"""

from __future__ import annotations

from kafkette.broker.fetcher.offset_truncation import OffsetTruncationState, offset_truncation_state
from kafkette.broker.log.leader_epoch_cache import EpochEntry, LeaderEpochFileCache


def _cache(*pairs):
    return LeaderEpochFileCache(EpochEntry(epoch, start) for epoch, start in pairs)


def _decide(leader, cache, log_end_offset, high_watermark):
    leader_epoch, leader_end_offset = leader
    return offset_truncation_state(
        leader_epoch=leader_epoch,
        leader_end_offset=leader_end_offset,
        follower_epochs=cache,
        log_end_offset=log_end_offset,
        high_watermark=high_watermark,
    )


def test_same_epoch_as_the_leader_keeps_records_above_a_lagging_high_watermark():
    # The bug KIP-101 fixes: the follower holds 0..39 in epoch 0, knows high watermark 30;
    # the leader (now in epoch 1 from offset 40) says epoch 0 ends at 40: nothing to drop.
    assert _decide((0, 40), _cache((0, 0)), 40, 30) == OffsetTruncationState(40, True)


def test_same_epoch_truncates_to_the_leader_end_offset_when_the_follower_has_more():
    # The follower wrote 40..47 in epoch 0 that the leader (new since offset 40) never had.
    assert _decide((0, 40), _cache((0, 0)), 48, 30) == OffsetTruncationState(40, True)


def test_same_epoch_never_truncates_past_the_follower_log_end_offset():
    assert _decide((2, 90), _cache((0, 0), (2, 50)), 60, 55) == OffsetTruncationState(60, True)


def test_older_epoch_the_follower_also_has_truncates_to_the_lower_end_offset():
    # The follower asked about epoch 3 (from 50); the leader never had epoch 3: its epoch 1
    # ends at 45.  The follower's epoch 1 ends at 50, so everything from 45 diverged.
    cache = _cache((0, 0), (1, 20), (3, 50))
    assert _decide((1, 45), cache, 70, 40) == OffsetTruncationState(45, True)
    # When the follower's epoch 1 ends first, its end is the bound.
    assert _decide((1, 60), cache, 70, 40) == OffsetTruncationState(50, True)


def test_leader_epoch_unknown_to_the_follower_truncates_part_way_and_asks_again():
    # Leader answers epoch 2 (ends at 35); the follower has no epoch 2: its largest epoch
    # <= 2 is 1, which ends at 50 (where its epoch 3 starts).  Drop from 50, then ask about 1.
    cache = _cache((0, 0), (1, 20), (3, 50))
    assert _decide((2, 35), cache, 70, 40) == OffsetTruncationState(50, False)


def test_leader_epoch_older_than_every_follower_epoch_uses_the_follower_first_start_offset():
    # endOffsetFor(requested older than every entry) = (requested, first start offset).
    assert _decide((3, 80), _cache((5, 100)), 120, 90) == OffsetTruncationState(80, True)
    assert _decide((3, 130), _cache((5, 100)), 120, 90) == OffsetTruncationState(100, True)


def test_undefined_leader_end_offset_falls_back_to_the_high_watermark():
    assert _decide((-1, -1), _cache((0, 0), (4, 30)), 40, 30) == OffsetTruncationState(30, True)


def test_undefined_leader_epoch_with_an_end_offset_truncates_to_it():
    assert _decide((-1, 25), _cache((0, 0)), 40, 30) == OffsetTruncationState(25, True)
    assert _decide((-1, 55), _cache((0, 0)), 40, 30) == OffsetTruncationState(40, True)


def test_follower_without_epochs_truncates_to_the_leader_end_offset():
    assert _decide((2, 25), _cache(), 40, 30) == OffsetTruncationState(25, True)
