"""ControllerMutationQuotaManager: Kafka's token bucket per quota group, strict and permissive
quotas, and their throttle times (KIP-599)."""

from __future__ import annotations

from kafkette.broker.client_quota_manager import QuotaEntity
from kafkette.broker.controller_mutation_quota_manager import ControllerMutationQuotaManager, TokenBucket


def test_a_new_bucket_is_full_and_refills_at_the_quota_up_to_the_burst():
    bucket = TokenBucket(burst_s=11.0)
    assert bucket.measure(2.0, 0) == 22.0  # 2/s for 11 s
    bucket.record(2.0, 30, 0)
    assert bucket.measure(2.0, 0) == -8.0
    assert bucket.measure(2.0, 3000) == -2.0  # 3 s at 2/s
    assert bucket.measure(2.0, 60_000) == 22.0  # never above the burst


def test_without_a_quota_nothing_is_refused_or_throttled():
    quotas = ControllerMutationQuotaManager()
    quota = quotas.new_quota_for("alice", "app", strict=True)
    assert not quota.enabled
    assert all(quota.record(1000, 0) for _ in range(10))
    assert quota.throttle_time_ms == 0


def test_a_strict_quota_lets_one_topic_overdraw_then_refuses_until_refilled():
    quotas = ControllerMutationQuotaManager(samples=11, window_ms=1000)
    quotas.update_quota(QuotaEntity(client_id="app"), 1.0)  # a burst of 11 partitions
    quota = quotas.new_quota_for("alice", "app", strict=True)
    assert quota.record(10, 0)  # 1 left
    assert quota.record(10, 0)  # overdrawn to -9
    assert not quota.record(1, 0)  # refused, nothing taken
    assert quota.throttle_time_ms == 9000  # -(-9) / 1 per s
    later = quotas.new_quota_for("alice", "app", strict=True)  # the same bucket, 9 s later: at 0
    assert later.record(1, 9000)
    assert quotas.new_quota_for("bob", "other", strict=True).record(100, 0)  # no quota for that id


def test_a_permissive_quota_takes_the_tokens_and_throttles():
    quotas = ControllerMutationQuotaManager(samples=11, window_ms=1000)
    quotas.update_quota(QuotaEntity(client_id="app"), 2.0)  # a burst of 22
    quota = quotas.new_quota_for("alice", "app", strict=False)
    assert quota.record(30, 0) and quota.record(4, 0)  # never refused
    assert quota.throttle_time_ms == 6000  # 12 below zero at 2 per s


def test_given_back_tokens_undo_a_topic_the_controller_refused():
    quotas = ControllerMutationQuotaManager(samples=11, window_ms=1000)
    quotas.update_quota(QuotaEntity(client_id="app"), 1.0)
    quota = quotas.new_quota_for("alice", "app", strict=True)
    assert quota.record(20, 0)
    quota.give_back(20, 0)
    assert quota.record(11, 0) and quota.record(1, 0)  # the whole burst is there again


def test_a_zero_quota_throttles_a_whole_quota_window():
    quotas = ControllerMutationQuotaManager(samples=11, window_ms=1000)
    quotas.update_quota(QuotaEntity(client_id="app"), 0.0)
    quota = quotas.new_quota_for("alice", "app", strict=True)
    assert quota.record(1, 0)  # a full bucket of nothing is not below zero
    assert not quota.record(1, 0)
    assert quota.throttle_time_ms == 11_000
