"""ClientQuotaManager: which quota applies to a (user, client id) pair by Kafka's precedence, which
pairs share a rate, Kafka's windowed rate, and the throttle time of a client above its quota."""

from __future__ import annotations

import pytest

from kafkette.broker.client_quota_manager import (
    DEFAULT,
    ClientQuotaManager,
    QuotaEntity,
    WindowedRate,
    principal_name,
    quotas_of_type,
    sanitize,
)


def test_nothing_is_measured_or_throttled_without_a_quota():
    m = ClientQuotaManager("producer_byte_rate")
    assert not m.quotas_enabled
    assert m.record_and_get_throttle_time_ms("alice", "c1", 10**9, 0) == 0


def test_a_client_above_its_quota_is_throttled_until_its_average_is_back_to_the_quota():
    m = ClientQuotaManager("producer_byte_rate")
    m.update_quota(QuotaEntity(None, "c1"), 100.0)
    # at start the rate divides by 10 full windows (quota.window.num - 1 = 10 s)
    assert m.record_and_get_throttle_time_ms("ANONYMOUS", "c1", 500, 0) == 0  # 50 B/s
    assert (
        m.record_and_get_throttle_time_ms("ANONYMOUS", "c1", 1000, 0) == 5000
    )  # 150 B/s: (150-100)/100*10 s
    assert m.record_and_get_throttle_time_ms("ANONYMOUS", "c2", 10**6, 0) == 0  # no quota for c2
    m.update_quota(QuotaEntity(None, DEFAULT), 1000.0)
    # the default applies to c3; c2's bytes above were counted too (every client is measured once
    # any quota of the type exists), so c2 is far over the default now
    assert m.record_and_get_throttle_time_ms("ANONYMOUS", "c3", 20_000, 0) == 10_000  # (2000-1000)/1000*10 s
    assert m.record_and_get_throttle_time_ms("ANONYMOUS", "c2", 0, 0) == 990_000
    m.remove_quota(QuotaEntity(None, DEFAULT))
    m.remove_quota(QuotaEntity(None, "c1"))
    assert not m.quotas_enabled


def test_the_rate_forgets_samples_older_than_the_quota_window():
    rate = WindowedRate(samples=11, window_ms=1000)
    rate.record(11_000, 0)
    assert rate.measure(0) == pytest.approx(1100.0)  # over 10 s
    assert rate.window_size_ms(5_500) == 10_500  # 5.5 s elapsed + the 5 full windows missing
    assert rate.measure(11_000) == 0.0  # every sample expired
    for t in range(0, 22_000, 1000):
        rate.record(100, 11_000 + t)
    assert rate.measure(33_000) == pytest.approx(100.0, rel=0.15)


@pytest.mark.parametrize(
    ("quotas", "user", "client", "tags", "limit"),
    [
        (
            {QuotaEntity("alice", "c1"): 1.0, QuotaEntity("alice", None): 2.0},
            "alice",
            "c1",
            ("alice", "c1"),
            1.0,
        ),
        (
            {QuotaEntity("alice", DEFAULT): 3.0, QuotaEntity(DEFAULT, "c1"): 4.0},
            "alice",
            "c1",
            ("alice", "c1"),
            3.0,
        ),
        ({QuotaEntity("alice", None): 2.0, QuotaEntity(None, "c1"): 5.0}, "alice", "c1", ("alice", ""), 2.0),
        ({QuotaEntity(DEFAULT, "c1"): 4.0, QuotaEntity(None, "c1"): 5.0}, "bob", "c1", ("bob", "c1"), 4.0),
        (
            {QuotaEntity(DEFAULT, DEFAULT): 6.0, QuotaEntity(DEFAULT, None): 7.0},
            "bob",
            "c9",
            ("bob", "c9"),
            6.0,
        ),
        ({QuotaEntity(DEFAULT, None): 7.0, QuotaEntity(None, DEFAULT): 8.0}, "bob", "c9", ("bob", ""), 7.0),
        ({QuotaEntity("alice", None): 2.0, QuotaEntity(None, DEFAULT): 8.0}, "bob", "c9", ("", "c9"), 8.0),
        ({QuotaEntity(None, "c1"): 5.0}, "bob", "c1", ("", "c1"), 5.0),
        ({QuotaEntity("alice", None): 2.0}, "bob", "c1", ("bob", ""), None),
    ],
)
def test_kafkas_precedence_picks_the_quota_and_the_rate_it_is_measured_on(quotas, user, client, tags, limit):
    m = ClientQuotaManager("consumer_byte_rate")
    for entity, value in quotas.items():
        m.update_quota(entity, value)
    assert m.quota_metric_tags(user, client) == tags
    assert m.quota_limit(tags) == limit
    assert m.applies_to(user, client) is (limit is not None)


def test_no_quota_applies_to_anyone_while_none_is_set():
    m = ClientQuotaManager("producer_byte_rate")
    assert not m.applies_to("alice", "c1")
    m.update_quota(QuotaEntity(None, "c1"), 100.0)
    assert m.applies_to("alice", "c1") and not m.applies_to("alice", "c2")


def test_user_names_are_sanitized_as_kafka_does():
    assert sanitize("User 1*+~é") == "User%201%2A%2B%7E%C3%A9"
    m = ClientQuotaManager("producer_byte_rate")
    m.update_quota(QuotaEntity(sanitize("a b"), None), 10.0)
    assert m.quota_metric_tags("a b", "c") == ("a%20b", "")


def test_the_controllers_client_quotas_become_the_quotas_in_force():
    sent = {
        (("user", "alice"),): {"producer_byte_rate": 100.0, "consumer_byte_rate": 5.0},
        (("user", None),): {"producer_byte_rate": 50.0},
        (("client-id", "app"), ("user", "bob smith")): {"producer_byte_rate": 70.0},
        (("client-id", None),): {"request_percentage": 10.0},
        (("ip", "10.0.0.1"),): {"connection_creation_rate": 3.0},
    }
    assert quotas_of_type(sent, "producer_byte_rate") == {
        QuotaEntity("alice", None): 100.0,
        QuotaEntity(DEFAULT, None): 50.0,
        QuotaEntity("bob%20smith", "app"): 70.0,
    }
    manager = ClientQuotaManager("producer_byte_rate")
    manager.update_quota(QuotaEntity(None, "old"), 1.0)
    manager.set_quotas(quotas_of_type(sent, "producer_byte_rate"))
    assert manager.quota_limit(manager.quota_metric_tags("alice", "x")) == 100.0
    assert manager.quota_limit(manager.quota_metric_tags("carol", "x")) == 50.0
    assert manager.quota_limit(manager.quota_metric_tags("bob smith", "app")) == 70.0
    assert manager.quota_limit(("", "old")) is None  # removed: not sent any more
    manager.set_quotas({})
    assert not manager.quotas_enabled
    assert principal_name("User:alice") == "alice" and principal_name("User:ANONYMOUS") == "ANONYMOUS"


def test_request_time_is_a_percentage_of_a_second_and_its_throttle_at_most_one_window():
    from kafkette.broker.client_request_quota_manager import ClientRequestQuotaManager

    quotas = ClientRequestQuotaManager(samples=11, window_ms=1000)
    assert quotas.record_request_time("alice", "app", 10**9, 0) == 0  # no quota: nothing measured
    quotas.update_quota(QuotaEntity(client_id="app"), 10.0)  # 10% of one second per second
    # 0.5 s of handling over a young rate's 10 s: 50% / 10 s = 5% per second, within 10%
    assert quotas.record_request_time("alice", "app", 500_000_000, 0) == 0
    # 1.5 s more: 200% / 10 s = 20%/s, (20 - 10) / 10 * 10 s = 10 s, bounded by one window
    assert quotas.record_request_time("alice", "app", 1_500_000_000, 0) == 1000
    assert quotas.record_request_time("bob", "other", 10**9, 0) == 0  # another client id: no quota


def test_request_quota_throttle_below_the_bound_follows_kafkas_formula():
    from kafkette.broker.client_request_quota_manager import ClientRequestQuotaManager

    quotas = ClientRequestQuotaManager(samples=11, window_ms=1000)
    quotas.update_quota(QuotaEntity(client_id="app"), 100.0)
    # 10.5 s of handling at start: 1050% over 10 s (a young rate counts samples - 1 full windows)
    # = 105%/s; (105 - 100) / 100 * 10000 ms
    assert quotas.record_request_time("u", "app", 10_500_000_000, 0) == 500
