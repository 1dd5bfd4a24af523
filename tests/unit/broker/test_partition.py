"""Partition: leader and follower roles, high watermark, ISR proposals, idempotent appends.

Real LogManager and Log on tmp_path; the AlterPartitionManager is a recorder and the
clock is manual.
"""

from __future__ import annotations

import pytest
from broker_fakes import (
    TP0,
    AlterPartitionRecorder,
    ManualClock,
    base_offsets,
    make_batch,
    make_state,
    new_partition,
)

from kafkette.protocol.apis.alter_partition import AlterPartitionResponsePartition
from kafkette.protocol.errors import (
    Errors,
    FencedLeaderEpochError,
    NotEnoughReplicasError,
    NotLeaderOrFollowerError,
    OffsetOutOfRangeError,
    OutOfOrderSequenceNumberError,
    UnknownLeaderEpochError,
)

LAG_MS = 10_000


@pytest.fixture
def clock():
    return ManualClock()


@pytest.fixture
def recorder():
    return AlterPartitionRecorder()


@pytest.fixture
def hw_advanced():
    return []


@pytest.fixture
def partition(log_manager, recorder, clock, hw_advanced):
    return new_partition(
        log_manager, recorder=recorder, clock=clock, replica_lag_time_max_ms=LAG_MS, hw_advanced=hw_advanced
    )


def leader_of_three(partition, isr=(1, 2, 3), **kwargs):
    partition.make_leader(make_state(replicas=[1, 2, 3], isr=list(isr), **kwargs))
    return partition


# ----- leader: role ---------------------------------------------------------------------


async def test_make_leader_sets_leader_state_and_creates_the_log(partition, log_manager):
    assert partition.make_leader(
        make_state(leader_epoch=4, partition_epoch=7, replicas=[1, 2, 3], isr=[1, 2])
    )
    assert partition.is_leader
    assert (partition.leader_id, partition.leader_epoch, partition.partition_epoch) == (1, 4, 7)
    assert partition.isr == [1, 2] and partition.assigned_replicas == [1, 2, 3]
    assert sorted(partition.remote_replicas) == [2, 3]
    assert partition.log is log_manager.get_log(TP0)
    assert partition.log.dir.is_dir()


async def test_make_leader_again_with_the_same_epoch_reports_no_change(partition):
    assert partition.make_leader(make_state(leader_epoch=4))
    assert not partition.make_leader(make_state(leader_epoch=4, partition_epoch=1))
    assert partition.make_leader(make_state(leader_epoch=5))


async def test_make_leader_applies_topic_config_overrides(partition):
    partition.make_leader(
        make_state(replicas=[1, 2, 3], configs={"min.insync.replicas": "2", "segment.bytes": "4096"})
    )
    assert partition.min_insync_replicas == 2
    assert partition.log.config.segment_bytes == 4096


async def test_min_insync_replicas_is_capped_at_the_replication_factor(partition):
    partition.make_leader(make_state(replicas=[1], configs={"min.insync.replicas": "2"}))
    assert partition.log.config.min_insync_replicas == 2
    assert partition.min_insync_replicas == 1, "Kafka's effectiveMinIsr"


# ----- leader: produce ------------------------------------------------------------------


async def test_leader_append_assigns_offsets_from_the_log_end_offset(partition):
    partition.make_leader(make_state(leader_epoch=3))
    first = partition.append_records_to_leader(bytearray(make_batch(3)), required_acks=1)
    second = partition.append_records_to_leader(bytearray(make_batch(2) + make_batch(4)), required_acks=1)
    assert (first.first_offset, first.last_offset) == (0, 2)
    assert (second.first_offset, second.last_offset, second.num_records) == (3, 8, 6)
    assert partition.log.log_end_offset == 9
    assert base_offsets(partition.log.read(0, 1 << 20).records) == [0, 3, 5]


async def test_append_on_a_follower_raises_not_leader_or_follower(partition):
    partition.make_follower(make_state(leader=2, replicas=[1, 2]))
    with pytest.raises(NotLeaderOrFollowerError):
        partition.append_records_to_leader(bytearray(make_batch(1)), required_acks=1)
    assert partition.log.log_end_offset == 0


async def test_single_replica_leader_advances_high_watermark_on_append(partition, hw_advanced):
    partition.make_leader(make_state())
    partition.append_records_to_leader(bytearray(make_batch(3)), required_acks=1)
    assert partition.high_watermark == 3
    assert hw_advanced == [TP0]


async def test_high_watermark_is_the_minimum_log_end_offset_of_the_isr(partition, hw_advanced):
    leader_of_three(partition)
    partition.append_records_to_leader(bytearray(make_batch(5)), required_acks=1)
    assert partition.high_watermark == 0, "followers have not fetched yet"
    partition.update_follower_fetch_state(2, 5)
    assert partition.high_watermark == 0, "follower 3 is still unknown"
    partition.update_follower_fetch_state(3, 3)
    assert partition.high_watermark == 3
    partition.update_follower_fetch_state(3, 5)
    assert partition.high_watermark == 5
    assert hw_advanced == [TP0, TP0]


async def test_high_watermark_never_moves_back_when_a_follower_reports_a_lower_offset(partition):
    leader_of_three(partition)
    partition.append_records_to_leader(bytearray(make_batch(5)), required_acks=1)
    partition.update_follower_fetch_state(2, 5)
    partition.update_follower_fetch_state(3, 5)
    assert partition.high_watermark == 5
    partition.update_follower_fetch_state(3, 2)
    assert partition.high_watermark == 5


async def test_high_watermark_ignores_followers_outside_the_isr(partition):
    leader_of_three(partition, isr=[1, 2])
    partition.append_records_to_leader(bytearray(make_batch(4)), required_acks=1)
    partition.update_follower_fetch_state(2, 4)
    assert partition.high_watermark == 4


async def test_fetch_from_a_broker_that_is_not_a_replica_is_refused(partition):
    leader_of_three(partition)
    with pytest.raises(NotLeaderOrFollowerError):
        partition.update_follower_fetch_state(9, 0)


async def test_acks_all_with_isr_below_min_insync_replicas_raises_not_enough_replicas(partition):
    leader_of_three(partition, isr=[1], configs={"min.insync.replicas": "2"})
    with pytest.raises(NotEnoughReplicasError):
        partition.append_records_to_leader(bytearray(make_batch(2)), required_acks=-1)
    assert partition.log.log_end_offset == 0
    info = partition.append_records_to_leader(bytearray(make_batch(2)), required_acks=1)
    assert info.first_offset == 0, "acks=1 does not need min.insync.replicas"


async def test_acks_all_with_isr_at_min_insync_replicas_is_appended(partition):
    leader_of_three(partition, isr=[1, 2], configs={"min.insync.replicas": "2"})
    info = partition.append_records_to_leader(bytearray(make_batch(2)), required_acks=-1)
    assert (info.first_offset, info.last_offset) == (0, 1)


# ----- leader: ISR expand and shrink ----------------------------------------------------


async def test_follower_catching_up_to_high_watermark_triggers_one_isr_expand_proposal(partition, recorder):
    leader_of_three(partition, isr=[1, 2], leader_epoch=3, partition_epoch=8)
    partition.append_records_to_leader(bytearray(make_batch(5)), required_acks=1)
    partition.update_follower_fetch_state(2, 5)
    assert partition.high_watermark == 5
    partition.update_follower_fetch_state(3, 4)
    assert recorder.proposals == [], "follower 3 is below the high watermark"
    partition.update_follower_fetch_state(3, 5)
    assert [(p.leader_epoch, p.new_isr, p.partition_epoch) for p in recorder.proposals] == [(3, [1, 2, 3], 8)]
    partition.update_follower_fetch_state(3, 5)
    assert len(recorder.proposals) == 1, "only one proposal while one is pending"
    assert partition.isr == [1, 2], "the ISR changes only when the controller commits"


async def test_follower_is_not_added_to_the_isr_before_it_reaches_the_leader_epoch_start_offset(
    partition, recorder
):
    # A new leader's high watermark may lag its log end offset (it learnt the HW as a
    # follower).  Kafka's isFollowerInSync also requires the follower's LEO to reach the
    # leader epoch start offset (the LEO when this leader epoch began): offsets 0..4 may
    # be committed, and a replica without them must not join the ISR.
    partition.make_follower(make_state(leader=2, leader_epoch=1, replicas=[1, 2, 3], isr=[1, 2]))
    partition.append_records_to_follower(make_batch(5, base_offset=0, leader_epoch=1))
    partition.make_leader(make_state(leader=1, leader_epoch=2, replicas=[1, 2, 3], isr=[1, 2]))
    assert partition.high_watermark == 0
    partition.update_follower_fetch_state(3, 0)
    assert recorder.proposals == []
    partition.update_follower_fetch_state(3, 5)
    assert [p.new_isr for p in recorder.proposals] == [[1, 2, 3]]


async def test_pending_expansion_holds_the_high_watermark_to_the_maximal_isr(partition, recorder):
    leader_of_three(partition, isr=[1, 2])
    partition.append_records_to_leader(bytearray(make_batch(5)), required_acks=1)
    partition.update_follower_fetch_state(2, 5)
    partition.update_follower_fetch_state(3, 5)
    assert recorder.proposals[-1].new_isr == [1, 2, 3]
    partition.append_records_to_leader(bytearray(make_batch(3)), required_acks=1)
    partition.update_follower_fetch_state(2, 8)
    assert partition.high_watermark == 5, "follower 3 (in the proposed ISR) is at 5"
    partition.update_follower_fetch_state(3, 8)
    assert partition.high_watermark == 8


async def test_committed_expansion_is_applied(partition, recorder):
    leader_of_three(partition, isr=[1, 2], partition_epoch=4)
    partition.update_follower_fetch_state(3, 0)
    recorder.commit_last()
    assert partition.isr == [1, 2, 3]
    assert partition.partition_epoch == 5
    assert partition.pending_isr is None


async def test_follower_lagging_longer_than_replica_lag_time_max_triggers_a_shrink_proposal(
    partition, recorder, clock, hw_advanced
):
    leader_of_three(partition, leader_epoch=2, partition_epoch=3)
    partition.append_records_to_leader(bytearray(make_batch(5)), required_acks=1)
    clock.advance(1_000)
    partition.update_follower_fetch_state(2, 5)
    clock.advance(LAG_MS - 1_000)
    partition.maybe_shrink_isr()
    assert recorder.proposals == [], "exactly replica.lag.time.max.ms is not over the limit"
    clock.advance(1)
    partition.maybe_shrink_isr()
    assert [(p.leader_epoch, p.new_isr, p.partition_epoch) for p in recorder.proposals] == [(2, [1, 2], 3)]
    partition.maybe_shrink_isr()
    assert len(recorder.proposals) == 1, "only one proposal while one is pending"
    assert partition.high_watermark == 0, "follower 3 still counts until the shrink is committed"
    recorder.commit_last()
    assert partition.isr == [1, 2]
    assert partition.high_watermark == 5
    assert hw_advanced == [TP0]


async def test_follower_at_the_log_end_offset_is_not_shrunk_however_long_it_is_idle(
    partition, recorder, clock
):
    leader_of_three(partition)
    partition.append_records_to_leader(bytearray(make_batch(5)), required_acks=1)
    partition.update_follower_fetch_state(2, 5)
    partition.update_follower_fetch_state(3, 5)
    clock.advance(LAG_MS * 10)
    partition.maybe_shrink_isr()
    assert recorder.proposals == []


async def test_follower_that_fetched_the_previous_log_end_offset_counts_as_caught_up_then(
    partition, recorder, clock
):
    leader_of_three(partition, isr=[1, 2])
    partition.append_records_to_leader(bytearray(make_batch(5)), required_acks=1)
    partition.update_follower_fetch_state(2, 5)  # caught up at t0
    clock.advance(LAG_MS)
    partition.append_records_to_leader(bytearray(make_batch(1)), required_acks=1)
    partition.update_follower_fetch_state(2, 5)  # fetch at t0+lag: leader LEO then was 6
    clock.advance(LAG_MS)
    partition.update_follower_fetch_state(2, 6)  # got everything known at the previous fetch
    partition.append_records_to_leader(bytearray(make_batch(1)), required_acks=1)
    clock.advance(LAG_MS - 1)
    partition.maybe_shrink_isr()
    assert recorder.proposals == []
    clock.advance(2)
    partition.maybe_shrink_isr()
    assert recorder.proposals[-1].new_isr == [1]


async def test_alter_partition_result_for_an_old_leader_epoch_is_ignored(partition, recorder):
    leader_of_three(partition, isr=[1, 2], leader_epoch=1)
    partition.update_follower_fetch_state(3, 0)
    assert recorder.proposals[-1].new_isr == [1, 2, 3]
    partition.make_leader(make_state(replicas=[1, 2, 3], isr=[1, 2], leader_epoch=2, partition_epoch=1))
    recorder.commit_last(partition_epoch=9)
    assert partition.isr == [1, 2]
    assert partition.partition_epoch == 1


async def test_alter_partition_result_with_another_leader_epoch_in_the_response_is_ignored(partition):
    leader_of_three(partition, isr=[1, 2], leader_epoch=1)
    partition.update_follower_fetch_state(3, 0)
    partition.handle_alter_partition_result(
        1,
        AlterPartitionResponsePartition(
            partition_index=0,
            error_code=Errors.NONE,
            leader_id=1,
            leader_epoch=2,
            isr=[1, 2, 3],
            partition_epoch=5,
        ),
    )
    assert partition.isr == [1, 2]
    assert partition.pending_isr is None


async def test_failed_alter_partition_clears_the_pending_change_so_it_can_be_proposed_again(
    partition, recorder
):
    leader_of_three(partition, isr=[1, 2])
    partition.update_follower_fetch_state(3, 0)
    partition.handle_alter_partition_result(
        1, AlterPartitionResponsePartition(partition_index=0, error_code=Errors.INVALID_UPDATE_VERSION)
    )
    assert partition.isr == [1, 2] and partition.pending_isr is None
    partition.update_follower_fetch_state(3, 0)
    partition.handle_alter_partition_result(1, None)  # the send itself failed
    assert partition.pending_isr is None
    partition.update_follower_fetch_state(3, 0)
    assert len(recorder.proposals) == 3


async def test_check_enough_replicas_reach_offset_waits_for_the_high_watermark(partition):
    leader_of_three(partition, isr=[1, 2], configs={"min.insync.replicas": "2"})
    partition.append_records_to_leader(bytearray(make_batch(5)), required_acks=-1)
    assert partition.check_enough_replicas_reach_offset(5) == (False, Errors.NONE)
    partition.update_follower_fetch_state(2, 3)
    assert partition.check_enough_replicas_reach_offset(5) == (False, Errors.NONE)
    assert partition.check_enough_replicas_reach_offset(3) == (True, Errors.NONE)
    partition.update_follower_fetch_state(2, 5)
    assert partition.check_enough_replicas_reach_offset(5) == (True, Errors.NONE)


async def test_check_enough_replicas_reach_offset_reports_isr_shrunk_below_min_after_append(
    partition, recorder
):
    leader_of_three(partition, isr=[1, 2], configs={"min.insync.replicas": "2"})
    partition.append_records_to_leader(bytearray(make_batch(5)), required_acks=-1)
    partition.handle_alter_partition_result(
        1,
        AlterPartitionResponsePartition(
            partition_index=0, error_code=Errors.NONE, leader_id=1, leader_epoch=1, isr=[1], partition_epoch=1
        ),
    )
    assert partition.high_watermark == 5
    assert partition.check_enough_replicas_reach_offset(5) == (True, Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND)


async def test_check_enough_replicas_reach_offset_reports_lost_leadership(partition):
    leader_of_three(partition, isr=[1, 2])
    partition.append_records_to_leader(bytearray(make_batch(5)), required_acks=-1)
    partition.make_follower(make_state(leader=2, leader_epoch=2, replicas=[1, 2, 3], isr=[2]))
    assert partition.check_enough_replicas_reach_offset(5) == (True, Errors.NOT_LEADER_OR_FOLLOWER)


# ----- leader: reads --------------------------------------------------------------------


async def test_consumer_read_stops_at_the_high_watermark_and_follower_read_at_the_log_end_offset(partition):
    leader_of_three(partition, isr=[1, 2])
    partition.append_records_to_leader(bytearray(make_batch(3)), required_acks=1)
    partition.append_records_to_leader(bytearray(make_batch(2)), required_acks=1)
    partition.update_follower_fetch_state(2, 3)
    assert partition.high_watermark == 3
    assert base_offsets(partition.read_records(0, 1 << 20, is_follower_fetch=False)) == [0]
    assert partition.read_records(3, 1 << 20, is_follower_fetch=False) == b""
    assert base_offsets(partition.read_records(0, 1 << 20, is_follower_fetch=True)) == [0, 3]
    assert base_offsets(partition.read_records(3, 1 << 20, is_follower_fetch=True)) == [3]
    assert partition.read_records(5, 1 << 20, is_follower_fetch=True) == b""
    assert partition.end_offset_for(False) == 3 and partition.end_offset_for(True) == 5


async def test_read_beyond_the_log_end_offset_raises_offset_out_of_range(partition):
    partition.make_leader(make_state())
    partition.append_records_to_leader(bytearray(make_batch(3)), required_acks=1)
    with pytest.raises(OffsetOutOfRangeError):
        partition.read_records(4, 1 << 20, is_follower_fetch=True)
    with pytest.raises(OffsetOutOfRangeError):
        partition.read_records(4, 1 << 20, is_follower_fetch=False)


async def test_read_with_a_stale_leader_epoch_raises_fenced_and_with_a_newer_one_unknown(partition):
    partition.make_leader(make_state(leader_epoch=5))
    partition.append_records_to_leader(bytearray(make_batch(1)), required_acks=1)
    with pytest.raises(FencedLeaderEpochError):
        partition.read_records(0, 1 << 20, is_follower_fetch=False, current_leader_epoch=4)
    with pytest.raises(UnknownLeaderEpochError):
        partition.read_records(0, 1 << 20, is_follower_fetch=False, current_leader_epoch=6)
    assert base_offsets(
        partition.read_records(0, 1 << 20, is_follower_fetch=False, current_leader_epoch=5)
    ) == [0]
    assert base_offsets(
        partition.read_records(0, 1 << 20, is_follower_fetch=False, current_leader_epoch=-1)
    ) == [0]


async def test_read_on_a_follower_raises_not_leader_or_follower(partition):
    partition.make_follower(make_state(leader=2, replicas=[1, 2]))
    with pytest.raises(NotLeaderOrFollowerError):
        partition.read_records(0, 1 << 20, is_follower_fetch=False)


# ----- leader: idempotent producer ------------------------------------------------------


async def test_duplicate_idempotent_batch_returns_the_original_offsets_and_is_not_appended(partition):
    partition.make_leader(make_state())
    original = make_batch(3, producer_id=7, producer_epoch=0, base_sequence=0)
    first = partition.append_records_to_leader(bytearray(original), required_acks=1)
    partition.append_records_to_leader(
        bytearray(make_batch(2, producer_id=7, producer_epoch=0, base_sequence=3)), 1
    )
    retry = partition.append_records_to_leader(bytearray(original), required_acks=1)
    assert (retry.first_offset, retry.last_offset) == (first.first_offset, first.last_offset) == (0, 2)
    assert partition.log.log_end_offset == 5
    assert base_offsets(partition.log.read(0, 1 << 20).records) == [0, 3]


async def test_out_of_order_sequence_raises_and_appends_nothing(partition):
    partition.make_leader(make_state())
    partition.append_records_to_leader(
        bytearray(make_batch(3, producer_id=7, producer_epoch=0, base_sequence=0)), 1
    )
    with pytest.raises(OutOfOrderSequenceNumberError):
        partition.append_records_to_leader(
            bytearray(make_batch(1, producer_id=7, producer_epoch=0, base_sequence=5)), required_acks=1
        )
    assert partition.log.log_end_offset == 3


async def test_consecutive_idempotent_batches_in_one_request_are_all_appended(partition):
    # The produce contract allows several batches per partition in one request; Kafka
    # validates each against the state left by the previous one (ProducerAppendInfo).
    partition.make_leader(make_state())
    partition.append_records_to_leader(
        bytearray(make_batch(2, producer_id=7, producer_epoch=0, base_sequence=0)), 1
    )
    records = make_batch(2, producer_id=7, producer_epoch=0, base_sequence=2) + make_batch(
        2, producer_id=7, producer_epoch=0, base_sequence=4
    )
    info = partition.append_records_to_leader(bytearray(records), required_acks=1)
    assert (info.first_offset, info.last_offset) == (2, 5)


# ----- follower -------------------------------------------------------------------------


async def test_make_follower_returns_true_only_when_leader_or_leader_epoch_changes(partition):
    assert partition.make_follower(make_state(leader=2, leader_epoch=1, replicas=[1, 2, 3]))
    assert not partition.is_leader and partition.leader_id == 2
    assert not partition.make_follower(
        make_state(leader=2, leader_epoch=1, replicas=[1, 2, 3], partition_epoch=1)
    )
    assert partition.make_follower(make_state(leader=2, leader_epoch=2, replicas=[1, 2, 3]))
    assert partition.make_follower(make_state(leader=3, leader_epoch=2, replicas=[1, 2, 3]))
    assert partition.remote_replicas == {}


async def test_leader_becoming_follower_forgets_follower_state_and_pending_isr(partition):
    leader_of_three(partition, isr=[1, 2])
    partition.update_follower_fetch_state(3, 0)
    assert partition.pending_isr is not None
    partition.make_follower(make_state(leader=2, leader_epoch=2, replicas=[1, 2, 3]))
    assert partition.pending_isr is None and partition.remote_replicas == {}


async def test_follower_appends_leader_batches_and_takes_the_leaders_high_watermark_up_to_its_leo(partition):
    partition.make_follower(make_state(leader=2, replicas=[1, 2]))
    info = partition.append_records_to_follower(
        make_batch(3, base_offset=0, leader_epoch=1) + make_batch(2, base_offset=3, leader_epoch=1)
    )
    assert (info.first_offset, info.last_offset) == (0, 4)
    assert partition.log.log_end_offset == 5
    partition.update_follower_high_watermark(10)
    assert partition.high_watermark == 5, "never above the follower's own log end offset"
    partition.update_follower_high_watermark(3)
    assert partition.high_watermark == 5, "never moves back"


async def test_follower_append_skips_batches_it_already_has(partition):
    partition.make_follower(make_state(leader=2, replicas=[1, 2]))
    first = make_batch(3, base_offset=0)
    partition.append_records_to_follower(first)
    info = partition.append_records_to_follower(first + make_batch(2, base_offset=3))
    assert (info.first_offset, info.last_offset) == (3, 4)
    assert partition.append_records_to_follower(first) is None


async def test_truncate_to_lowers_the_log_end_offset_and_the_high_watermark(partition):
    partition.make_follower(make_state(leader=2, replicas=[1, 2]))
    partition.append_records_to_follower(make_batch(3, base_offset=0) + make_batch(2, base_offset=3))
    partition.update_follower_high_watermark(5)
    partition.truncate_to(3)
    assert partition.log.log_end_offset == 3
    assert partition.high_watermark == 3
    partition.truncate_to(10)
    assert partition.log.log_end_offset == 3, "truncating past the end is a no-op"


async def test_truncate_fully_and_start_at_restarts_the_log_and_high_watermark(partition):
    partition.make_follower(make_state(leader=2, replicas=[1, 2]))
    partition.append_records_to_follower(make_batch(3, base_offset=0))
    partition.truncate_fully_and_start_at(20)
    assert (partition.log.log_start_offset, partition.log.log_end_offset, partition.high_watermark) == (
        20,
        20,
        20,
    )


async def test_follower_replays_producer_state_so_a_new_leader_dedupes_retries(partition):
    partition.make_follower(make_state(leader=2, replicas=[1, 2]))
    retried = make_batch(2, producer_id=9, producer_epoch=0, base_sequence=0)
    partition.append_records_to_follower(
        make_batch(2, base_offset=0, producer_id=9, producer_epoch=0, base_sequence=0)
    )
    partition.make_leader(make_state(leader=1, leader_epoch=2, replicas=[1, 2], isr=[1]))
    retry = partition.append_records_to_leader(bytearray(retried), required_acks=1)
    assert (retry.first_offset, retry.last_offset) == (0, 1)
    assert partition.log.log_end_offset == 2


async def test_producer_state_is_rebuilt_after_truncation(partition):
    partition.make_follower(make_state(leader=2, replicas=[1, 2]))
    partition.append_records_to_follower(
        make_batch(1, base_offset=0, producer_id=9, producer_epoch=0, base_sequence=0)
        + make_batch(1, base_offset=1, producer_id=9, producer_epoch=0, base_sequence=1)
    )
    partition.truncate_to(1)
    partition.make_leader(make_state(leader=1, leader_epoch=2, replicas=[1, 2], isr=[1]))
    info = partition.append_records_to_leader(
        bytearray(make_batch(1, producer_id=9, producer_epoch=0, base_sequence=1)), required_acks=1
    )
    assert (info.first_offset, partition.log.log_end_offset) == (1, 2), (
        "sequence 1 was truncated away: not a duplicate"
    )


async def test_partition_reloads_producer_state_and_high_watermark_from_an_existing_log(
    log_manager, partition
):
    partition.make_leader(make_state())
    partition.append_records_to_leader(
        bytearray(make_batch(2, producer_id=4, producer_epoch=1, base_sequence=0)), 1
    )
    reopened = new_partition(log_manager)
    assert reopened.high_watermark == 0, "no checkpointed high watermark given"
    assert reopened.log.producer_state_manager.entries[4].last_seq == 1
