"""kafka-metadata-quorum.sh's output from a QuorumInfo: lag figures, --status lines, --replication rows."""

from __future__ import annotations

from kafkette.client.cli.metadata_quorum import replication_rows, status_lines
from kafkette.client.quorum_info import QuorumInfo, ReplicaState

INFO = QuorumInfo(
    leader_id=2,
    leader_epoch=7,
    high_watermark=95,
    voters=(
        ReplicaState(1, 90, 1_000, 900),
        ReplicaState(2, 100, 1_100, 1_100),
        ReplicaState(3, 100, 1_050, 1_050),
    ),
    observers=(ReplicaState(4, 80, 1_000, 800),),
)


def test_lag_is_behind_the_leaders_log_end_offset():
    assert [INFO.lag(v) for v in INFO.voters] == [10, 0, 0]
    assert INFO.max_follower_lag() == 10
    assert INFO.max_follower_lag_time_ms(now_ms=2_000) == 1_100


def test_status_lines_are_kafkas_fields_aligned():
    assert status_lines("c1", INFO, now_ms=2_000) == [
        "ClusterId:              c1",
        "LeaderId:               2",
        "LeaderEpoch:            7",
        "HighWatermark:          95",
        "MaxFollowerLag:         10",
        "MaxFollowerLagTimeMs:   1100",
        "CurrentVoters:          [1,2,3]",
        "CurrentObservers:       [4]",
    ]


def test_replication_rows_put_the_leader_first_then_followers_then_observers():
    assert replication_rows(INFO) == [
        [2, 100, 0, 1_100, 1_100, "Leader"],
        [1, 90, 10, 1_000, 900, "Follower"],
        [3, 100, 0, 1_050, 1_050, "Follower"],
        [4, 80, 20, 1_000, 800, "Observer"],
    ]


def test_a_lone_leader_has_no_follower_lag():
    alone = QuorumInfo(1, 1, 7, (ReplicaState(1, 7, 5, 5),), ())
    assert (alone.max_follower_lag(), alone.max_follower_lag_time_ms(now_ms=10)) == (0, 0)
