"""ReplicationQuotaManager: which partitions a throttled-replicas list names on this broker, and
the throttled bytes' rate against the rate in force (Kafka's SimpleRate), KIP-73."""

from __future__ import annotations

from kafkette.broker.client_quota_manager import WindowedRate
from kafkette.broker.replication_quota_manager import (
    FOLLOWER,
    LEADER,
    ReplicationQuotaManager,
    throttled_partitions,
)
from kafkette.common.config_def import LONG_MAX


def test_a_throttled_replicas_list_names_the_partitions_of_this_broker():
    assert throttled_partitions("*", 1) is None  # every partition
    assert throttled_partitions("0:1,1:2,2:1", 1) == {0, 2}
    assert throttled_partitions("0:1,1:2,2:1", 3) == frozenset()
    assert throttled_partitions("", 1) == frozenset()
    assert throttled_partitions(" 0:1 , junk,3:x", 1) == {0}  # malformed entries skipped


def test_is_throttled_reads_its_sides_topic_config():
    leader = ReplicationQuotaManager(LEADER, broker_id=1)
    follower = ReplicationQuotaManager(FOLLOWER, broker_id=1)
    configs = {"leader.replication.throttled.replicas": "0:1", "follower.replication.throttled.replicas": "*"}
    assert leader.is_throttled(0, configs) and not leader.is_throttled(1, configs)
    assert follower.is_throttled(7, configs)
    assert not leader.is_throttled(0, {}) and not follower.is_throttled(0, {"retention.ms": "1"})


def test_the_quota_is_exceeded_when_the_throttled_bytes_rate_is_above_the_rate():
    quota = ReplicationQuotaManager(LEADER, broker_id=1, samples=11, window_ms=1000)
    quota.record(10**9, 0)
    assert not quota.is_quota_exceeded(0), "unlimited by default"
    quota.update_quota(1000)
    assert quota.is_quota_exceeded(0)
    quota.update_quota(LONG_MAX)
    assert not quota.is_quota_exceeded(0)


def test_a_simple_rate_does_not_count_windows_that_have_not_passed():
    simple = WindowedRate(11, 1000, simple=True)
    usual = WindowedRate(11, 1000)
    for rate in (simple, usual):
        rate.record(5000, 0)
    assert simple.measure(500) == 5000.0  # over one window: a young rate is not diluted
    assert usual.measure(500) == 5000 / 10.5  # 0.5 s plus the 10 windows Kafka's Rate assumes passed
    assert simple.measure(2500) == 2000.0  # since the oldest sample
