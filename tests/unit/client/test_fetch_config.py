"""FetchConfig: Kafka's consumer fetch defaults and the rejection of impossible bounds."""

from __future__ import annotations

import pytest

from kafkette.client.consumer.consumer import Consumer
from kafkette.client.consumer.fetch_config import FetchConfig


def test_defaults_are_kafkas_consumer_defaults():
    config = FetchConfig()
    assert (config.fetch_max_wait_ms, config.fetch_min_bytes) == (500, 1)
    assert (config.fetch_max_bytes, config.max_partition_fetch_bytes) == (52428800, 1048576)


@pytest.mark.parametrize(
    "bad",
    [
        {"fetch_max_wait_ms": -1},
        {"fetch_min_bytes": -1},
        {"fetch_max_bytes": 0},
        {"max_partition_fetch_bytes": 0},
    ],
)
def test_impossible_bounds_are_rejected_by_the_config_and_the_consumer(bad):
    with pytest.raises(ValueError, match="fetch sizes must be positive"):
        FetchConfig(**bad)
    with pytest.raises(ValueError, match="fetch sizes must be positive"):
        Consumer(**bad)
