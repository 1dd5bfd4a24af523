"""ClusterMetadata: updates from Metadata responses and refresh bookkeeping."""

from __future__ import annotations

import random

import pytest

from kafkette.client.cluster_metadata import ClusterMetadata
from kafkette.client.kafka_client import parse_bootstrap_servers
from kafkette.protocol.apis.metadata import (
    MetadataResponse,
    MetadataResponseBroker,
    MetadataResponsePartition,
    MetadataResponseTopic,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.topic_partition import TopicPartition


class ManualClock:
    def __init__(self) -> None:
        self.now_s = 50.0

    def __call__(self) -> float:
        return self.now_s


def broker(node_id: int) -> MetadataResponseBroker:
    return MetadataResponseBroker(node_id=node_id, host="127.0.0.1", port=9000 + node_id, rack=None)


def topic(name: str, leaders: list[int], error_code: int = 0) -> MetadataResponseTopic:
    partitions = [
        MetadataResponsePartition(
            error_code=Errors.LEADER_NOT_AVAILABLE if leader < 0 else 0,
            partition_index=i,
            leader_id=leader,
            leader_epoch=3,
            replica_nodes=[1, 2, 3],
            isr_nodes=[1, 2] if leader >= 0 else [],
            offline_replicas=[],
        )
        for i, leader in enumerate(leaders)
    ]
    return MetadataResponseTopic(error_code=error_code, name=name, is_internal=False, partitions=partitions)


def response(brokers=(1, 2, 3), topics=(), controller_id=1) -> MetadataResponse:
    return MetadataResponse(
        throttle_time_ms=0,
        brokers=[broker(b) for b in brokers],
        cluster_id="c1",
        controller_id=controller_id,
        topics=list(topics),
    )


def test_update_caches_brokers_controller_and_partition_leaders():
    cluster = ClusterMetadata(clock=ManualClock())
    cluster.update(response(topics=[topic("t", [1, 2, 3])]), ["t"])
    assert sorted(cluster.brokers()) == [1, 2, 3]
    assert cluster.broker(2).port == 9002
    assert cluster.controller_id == 1 and cluster.cluster_id == "c1"
    assert cluster.partitions_for_topic("t") == [0, 1, 2]
    assert cluster.leader_for(TopicPartition("t", 1)) == 2
    meta = cluster.partition(TopicPartition("t", 0))
    assert meta.replicas == (1, 2, 3) and meta.isr == (1, 2) and meta.leader_epoch == 3
    assert not cluster.need_update


def test_update_for_some_topics_keeps_the_others():
    cluster = ClusterMetadata(clock=ManualClock())
    cluster.update(response(topics=[topic("a", [1]), topic("b", [2])]), None)
    cluster.update(response(topics=[topic("a", [3])]), ["a"])
    assert cluster.leader_for(TopicPartition("a", 0)) == 3
    assert cluster.leader_for(TopicPartition("b", 0)) == 2


def test_update_for_all_topics_drops_topics_no_longer_listed():
    cluster = ClusterMetadata(clock=ManualClock())
    cluster.update(response(topics=[topic("a", [1]), topic("b", [2])]), None)
    cluster.update(response(topics=[topic("a", [1])]), None)
    assert cluster.topics() == {"a"}
    assert cluster.partitions_for_topic("b") is None


def test_unknown_topic_is_recorded_as_a_topic_error():
    cluster = ClusterMetadata(clock=ManualClock())
    cluster.update(response(topics=[topic("gone", [], Errors.UNKNOWN_TOPIC_OR_PARTITION)]), ["gone"])
    assert cluster.partitions_for_topic("gone") is None
    assert cluster.topic_error("gone") == Errors.UNKNOWN_TOPIC_OR_PARTITION


def test_leaderless_partition_has_no_leader_and_asks_for_another_refresh():
    cluster = ClusterMetadata(clock=ManualClock())
    cluster.update(response(topics=[topic("t", [1, -1])]), ["t"])
    assert cluster.leader_for(TopicPartition("t", 1)) is None
    assert cluster.available_partitions_for_topic("t") == [0]
    assert cluster.need_update


def test_partition_led_by_a_broker_that_left_is_not_available():
    cluster = ClusterMetadata(clock=ManualClock())
    cluster.update(response(brokers=(1, 2), topics=[topic("t", [1, 3])]), ["t"])
    assert cluster.available_partitions_for_topic("t") == [0]


def test_partitions_are_routed_to_live_leaders_and_the_rest_reported_leaderless():
    cluster = ClusterMetadata(clock=ManualClock())
    cluster.update(response(brokers=(1, 2), topics=[topic("t", [1, 2, 1, -1, 3])]), ["t"])
    tps = [TopicPartition("t", p) for p in range(5)] + [TopicPartition("unknown", 0)]
    by_leader, no_leader = cluster.partitions_by_leader(tps)
    assert by_leader == {1: [tps[0], tps[2]], 2: [tps[1]]}
    assert no_leader == [tps[3], tps[4], tps[5]]


def test_response_without_brokers_is_ignored():
    cluster = ClusterMetadata(clock=ManualClock())
    cluster.update(response(topics=[topic("t", [1])]), ["t"])
    cluster.update(response(brokers=(), topics=[]), ["t"])
    assert sorted(cluster.brokers()) == [1, 2, 3]
    assert cluster.leader_for(TopicPartition("t", 0)) == 1
    assert cluster.need_update


def test_ttl_follows_max_age_and_requested_updates_respect_the_backoff():
    clock = ManualClock()
    cluster = ClusterMetadata(metadata_max_age_ms=1000, retry_backoff_ms=100, clock=clock)
    assert cluster.ttl_ms() == 0  # never refreshed
    cluster.update(response(), [])
    assert cluster.ttl_ms() == pytest.approx(1000)
    clock.now_s += 0.5
    assert cluster.ttl_ms() == pytest.approx(500)
    cluster.request_update()
    assert cluster.ttl_ms() == 0  # backoff of 100 ms already passed
    cluster.update(response(), [])
    cluster.request_update()
    backoff_ms = cluster.ttl_ms()
    assert 80 <= backoff_ms <= 120  # retry.backoff.ms with 20% jitter
    clock.now_s += backoff_ms / 1000
    assert cluster.ttl_ms() == 0


def test_failed_update_starts_the_backoff():
    clock = ManualClock()
    cluster = ClusterMetadata(retry_backoff_ms=100, clock=clock)
    cluster.failed_update()
    assert 80 <= cluster.backoff_remaining_ms() <= 120
    assert cluster.ttl_ms() == cluster.backoff_remaining_ms()


def test_bootstrap_servers_are_parsed_from_a_string_or_a_list():
    assert parse_bootstrap_servers("127.0.0.1:9092, localhost:9093") == [
        ("127.0.0.1", 9092),
        ("localhost", 9093),
    ]
    assert parse_bootstrap_servers(["h:1"]) == [("h", 1)]


@pytest.mark.parametrize("bad", ["", "host", "host:", ":9092", "host:abc", "host:70000"])
def test_bad_bootstrap_servers_are_rejected(bad):
    with pytest.raises(ValueError):
        parse_bootstrap_servers(bad)


def _waits(cluster: ClusterMetadata, clock: ManualClock, refresh, count: int) -> list[float]:
    """Run ``count`` refreshes, each as soon as the backoff allows; the waits before each (ms)."""
    waits = []
    for _ in range(count):
        wait = cluster.backoff_remaining_ms()
        waits.append(wait)
        clock.now_s += wait / 1000
        refresh()
    return waits


def test_failed_refreshes_back_off_exponentially_to_retry_backoff_max_ms():
    clock = ManualClock()
    cluster = ClusterMetadata(
        retry_backoff_ms=100, retry_backoff_max_ms=1000, clock=clock, rng=random.Random(3)
    )
    cluster.failed_update()
    waits = _waits(cluster, clock, cluster.failed_update, 8)
    for n, wait in enumerate(waits):
        term = min(100 * 2**n, 1000)
        assert 0.8 * term - 1 <= wait <= min(1.2 * term, 1000), waits
    assert waits[-1] >= 800
    cluster.update(response(topics=[topic("t", [1])]), ["t"])  # an answer ends it
    assert 80 <= cluster.backoff_remaining_ms() <= 120


def test_answers_that_bring_no_newer_leader_epoch_back_off_until_one_does():
    clock = ManualClock()
    cluster = ClusterMetadata(
        retry_backoff_ms=100, retry_backoff_max_ms=1000, clock=clock, rng=random.Random(5)
    )
    cluster.update(response(topics=[topic("t", [1, -1])]), ["t"])  # partition 1 has no leader
    assert 80 <= cluster.backoff_remaining_ms() <= 120

    def same_answer() -> None:
        cluster.request_update(reset_backoff=False)  # the producer retrying: it keeps the growth
        cluster.update(response(topics=[topic("t", [1, -1])]), ["t"])

    waits = _waits(cluster, clock, same_answer, 6)
    assert waits[2] >= 160 and waits[-1] >= 800, waits  # backoff(n - 1) after the n-th same answer
    progressed = topic("t", [1, 2])
    progressed.partitions[1].leader_epoch = 4  # a leader elected: a newer epoch
    cluster.update(response(topics=[progressed]), ["t"])
    assert 80 <= cluster.backoff_remaining_ms() <= 120


def test_a_new_topic_is_fetched_at_once_and_a_plain_update_request_resets_the_growth():
    clock = ManualClock()
    cluster = ClusterMetadata(
        retry_backoff_ms=100, retry_backoff_max_ms=1000, clock=clock, rng=random.Random(1)
    )
    for _ in range(5):
        cluster.update(response(topics=[topic("t", [1])]), ["t"])
    assert cluster.backoff_remaining_ms() >= 640
    cluster.request_update()  # new metadata wanted (reset_backoff=True)
    assert 80 <= cluster.backoff_remaining_ms() <= 120
    cluster.request_update_for_new_topics()
    assert cluster.ttl_ms() == 0


def test_the_periodic_refresh_after_metadata_max_age_ms_starts_the_backoff_over():
    clock = ManualClock()
    cluster = ClusterMetadata(
        metadata_max_age_ms=300_000,
        retry_backoff_ms=100,
        retry_backoff_max_ms=1000,
        clock=clock,
        rng=random.Random(2),
    )
    for _ in range(5):
        cluster.update(response(topics=[topic("t", [1])]), ["t"])
    assert cluster.backoff_remaining_ms() >= 640
    clock.now_s += 300  # metadata.max.age.ms passed: the refresh is the periodic one
    assert cluster.ttl_ms() == 0
    cluster.update(response(topics=[topic("t", [1])]), ["t"])  # the same answer as before
    # Kafka's Metadata.timeToAllowUpdate: "Periodic updates based on expiration resets the equivalent
    # response count so exponential backoff is not used".
    assert 80 <= cluster.backoff_remaining_ms() <= 120
