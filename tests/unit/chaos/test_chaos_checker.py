"""The chaos checker finds each anomaly, and only those, in hand-made histories."""

import pytest

from tests.chaos.checker import Send, check

SENDS = [Send(0, 0, b"a", 0, 0), Send(0, 1, b"b", 0, 1), Send(1, 0, b"c", 1, 0), Send(1, 1, b"d", 1, None)]
CLEAN = [(0, 0, b"a"), (0, 1, b"b"), (1, 0, b"c")]


def test_a_clean_history_is_valid_and_an_unacknowledged_send_may_be_absent_or_present():
    report = check(SENDS, [CLEAN])
    assert report.valid and (report.acknowledged, report.sent, report.read) == (3, 4, 3)
    assert check(SENDS, [[*CLEAN, (1, 1, b"d")]]).valid


def test_an_acknowledged_value_missing_from_the_final_read_is_lost():
    report = check(SENDS, [CLEAN, [(0, 0, b"a"), (1, 0, b"c")]])
    assert report.lost == [b"b"] and not report.valid


def test_a_value_never_sent_is_unexpected():
    assert check(SENDS, [[*CLEAN, (1, 1, b"zz")]]).unexpected == [b"zz"]


def test_a_value_at_two_offsets_is_duplicated():
    report = check(SENDS, [[*CLEAN, (0, 2, b"a")]])
    assert report.duplicated == [b"a"] and report.reordered == []


def test_acknowledged_values_read_out_of_send_order_are_reordered_and_moved():
    report = check(SENDS, [[(0, 0, b"b"), (0, 1, b"a"), (1, 0, b"c")]])
    assert report.reordered == [b"b"]
    assert report.moved == [b"a", b"b"]


def test_an_offset_holding_two_values_across_reads_is_inconsistent():
    first = [(0, 0, b"a"), (0, 1, b"x")]
    report = check([*SENDS, Send(2, 0, b"x", 0, None)], [first, CLEAN])
    assert report.inconsistent_offsets == [(0, 1)]
    assert "inconsistent offsets 1" in report.summary()


def test_values_must_be_unique_and_a_final_read_is_required():
    with pytest.raises(ValueError, match="sent twice"):
        check([Send(0, 0, b"a", 0, 0), Send(0, 1, b"a", 0, 1)], [CLEAN])
    with pytest.raises(ValueError, match="final read"):
        check(SENDS, [])


def test_offsets_below_the_groups_commit_that_no_member_read_are_skipped_by_the_group():
    group = [(0, 0, b"a"), (1, 0, b"c"), (0, 0, b"a")]  # read twice across a rebalance: fine
    assert check(SENDS, [CLEAN], group_read=group, committed={0: 1, 1: 1}).valid
    report = check(SENDS, [CLEAN], group_read=group, committed={0: 2, 1: 1})
    assert report.skipped_by_group == [(0, 1)] and not report.valid  # committed past b, never read
    report = check(SENDS, [CLEAN], group_read=[*group, (0, 1, b"b")], committed={0: 2, 1: 3})
    assert report.skipped_by_group == [(1, 1)]  # a commit past the end of partition 1's log
    report = check(SENDS, [CLEAN], group_read=[(0, 1, b"y")], committed={})
    assert report.inconsistent_offsets == [(0, 1)] and report.skipped_by_group == []


def test_unavailability_is_the_longest_gap_between_acknowledgements_of_a_partition_after_each_fault():
    from tests.chaos.nemesis import Injected
    from tests.chaos.run import unavailability

    faults = [Injected("kill:leader", 1, 10.0, 5.0), Injected("disk-full:leader", 2, 30.0, 5.0)]
    steady = [t / 2 for t in range(101)]  # an ack every 0.5 s from 0 to 50
    acks = {0: [t for t in steady if not 10 < t < 12], 1: [t for t in steady if not 31 < t < 36]}
    assert unavailability(faults, acks, 2, end_s=50.0) == [2.0, 5.0]  # the second bit a second late
    assert unavailability(faults, acks, 3, end_s=50.0) == [20.0, 20.0]  # partition 2 never acknowledged


def test_a_lagging_replica_is_behind_not_diverged_only_when_the_run_did_not_heal():
    from tests.chaos.run import replicas_differ

    full = [(0, b"k", b"a"), (1, b"k", b"b"), (2, b"k", b"c")]
    behind = full[:2]
    assert not replicas_differ([full, full, full], lagging=False)
    assert replicas_differ(
        [full, behind, full], lagging=False
    )  # healed: every ISR whole, so a short log differs
    assert not replicas_differ([full, behind, full], lagging=True)
    assert replicas_differ(
        [full, [(0, b"k", b"a"), (1, b"k", b"x")], full], lagging=True
    )  # disagree at offset 1
    assert not replicas_differ([], lagging=True)
