"""ExponentialBackoff: Kafka's formula (KIP-580) with a seeded or fixed jitter, and the reconnect
backoff per address built on it (ClusterConnectionStates, manual clock)."""

from __future__ import annotations

import random

import pytest

from kafkette.client.cluster_connection_states import ClusterConnectionStates
from kafkette.client.exponential_backoff import (
    RETRY_BACKOFF_EXP_BASE,
    RETRY_BACKOFF_JITTER,
    ExponentialBackoff,
)


class FixedJitter(random.Random):
    """``uniform`` always answers ``factor``: the jitter at one end of its range."""

    def __init__(self, factor: float) -> None:
        super().__init__(0)
        self.factor = factor

    def uniform(self, a: float, b: float) -> float:
        assert a <= self.factor <= b
        return self.factor


class ManualClock:
    def __init__(self) -> None:
        self.now_s = 100.0

    def __call__(self) -> float:
        return self.now_s


def test_without_jitter_the_backoff_doubles_from_retry_backoff_ms_to_retry_backoff_max_ms():
    backoff = ExponentialBackoff(100, 2, 1000, 0.0)
    assert [backoff.backoff(n) for n in range(7)] == [100, 200, 400, 800, 1000, 1000, 1000]


def test_jitter_spreads_each_backoff_twenty_percent_either_way_and_never_past_the_maximum():
    assert [ExponentialBackoff(100, 2, 1000, 0.2, FixedJitter(1.2)).backoff(n) for n in range(6)] == [
        120,
        240,
        480,
        960,
        1000,
        1000,
    ]
    # Past the maximum the exponent stops growing: the low end is 80% of the maximum.
    assert [ExponentialBackoff(100, 2, 1000, 0.2, FixedJitter(0.8)).backoff(n) for n in range(6)] == [
        80,
        160,
        320,
        640,
        800,
        800,
    ]


def test_a_seeded_backoff_repeats_and_stays_within_the_jitter_of_kafkas_sequence():
    def sequence(seed: int) -> list[float]:
        backoff = ExponentialBackoff(
            100, RETRY_BACKOFF_EXP_BASE, 1000, RETRY_BACKOFF_JITTER, random.Random(seed)
        )
        return [backoff.backoff(n) for n in range(10)]

    assert sequence(7) == sequence(7)
    for n, wait in enumerate(sequence(7)):
        term = min(100 * 2**n, 1000)
        assert 0.8 * term - 1 <= wait <= min(1.2 * term, 1000), (n, wait)


def test_a_maximum_below_the_initial_interval_is_a_constant_backoff():
    backoff = ExponentialBackoff(500, 2, 200, 0.2)
    assert {backoff.backoff(n) for n in range(5)} == {200}
    assert {ExponentialBackoff(0, 2, 1000, 0.2).backoff(n) for n in range(5)} == {0}


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        ((-1, 2, 1000, 0.2), "intervals"),
        ((100, 2, -1, 0.2), "intervals"),
        ((100, 0.5, 1000, 0.2), "multiplier"),
        ((100, 2, 1000, 1.0), "jitter"),
    ],
)
def test_bad_backoff_settings_are_refused(args, fragment):
    with pytest.raises(ValueError, match=fragment):
        ExponentialBackoff(*args)


def test_reconnect_backoff_grows_per_failed_connect_and_ends_when_a_connection_opens():
    clock = ManualClock()
    states = ClusterConnectionStates(50, 1000, clock=clock, rng=FixedJitter(1.0))
    address = ("127.0.0.1", 9092)
    assert states.connection_delay_ms(address) == 0
    assert [states.connect_failed(address) for _ in range(6)] == [50, 100, 200, 400, 800, 1000]
    assert states.failed_attempts(address) == 6
    assert states.connection_delay_ms(address) == pytest.approx(1000)
    clock.now_s += 0.4
    assert states.connection_delay_ms(address) == pytest.approx(600)
    assert states.connection_delay_ms(("127.0.0.1", 9093)) == 0  # per address
    assert states.connected(address) == 6
    assert states.connection_delay_ms(address) == 0 and states.failed_attempts(address) == 0
    assert states.connect_failed(address) == 50  # starts over
