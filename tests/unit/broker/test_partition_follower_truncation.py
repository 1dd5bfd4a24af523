"""Partition, follower side: becoming a follower never truncates (the fetcher decides, by
leader epoch), and ``truncate_to`` drops leader epoch cache entries the log no longer covers.

Real Partition and Log on tmp_path.
"""

from __future__ import annotations

from broker_fakes import make_batch, make_state, new_partition


def _epochs(partition):
    return [(e.epoch, e.start_offset) for e in partition.log.leader_epoch_cache.entries]


async def test_make_follower_with_a_new_leader_epoch_keeps_records_above_the_high_watermark(log_manager):
    partition = new_partition(log_manager)
    partition.make_follower(make_state(leader=3, leader_epoch=0, replicas=[3, 1, 2]))
    partition.append_records_to_follower(
        b"".join(make_batch(10, base_offset=o, leader_epoch=0) for o in (0, 10))
    )
    partition.update_follower_high_watermark(10)
    assert partition.make_follower(make_state(leader=3, leader_epoch=1, replicas=[3, 1, 2], isr=[3, 1]))
    assert (partition.log.log_end_offset, partition.high_watermark) == (20, 10)


async def test_truncate_to_the_log_end_offset_drops_an_epoch_this_broker_started_but_never_wrote(log_manager):
    partition = new_partition(log_manager)
    partition.make_leader(make_state(leader=1, leader_epoch=2, replicas=[1, 2]))
    partition.append_records_to_leader(bytearray(make_batch(4)), required_acks=1)
    partition.make_leader(
        make_state(leader=1, leader_epoch=5, replicas=[1, 2])
    )  # epoch 5 from 4, nothing written
    partition.make_follower(make_state(leader=2, leader_epoch=6, replicas=[1, 2]))
    assert _epochs(partition) == [(2, 0), (5, 4)]
    partition.truncate_to(4)
    assert partition.log.log_end_offset == 4
    assert _epochs(partition) == [(2, 0)]


async def test_truncate_to_below_the_log_end_offset_drops_later_epochs_with_the_records(log_manager):
    partition = new_partition(log_manager)
    partition.make_follower(make_state(leader=2, leader_epoch=3, replicas=[2, 1]))
    partition.append_records_to_follower(
        make_batch(5, base_offset=0, leader_epoch=1) + make_batch(5, base_offset=5, leader_epoch=3)
    )
    partition.update_follower_high_watermark(8)
    partition.truncate_to(5)
    assert (partition.log.log_end_offset, partition.high_watermark, _epochs(partition)) == (5, 5, [(1, 0)])
