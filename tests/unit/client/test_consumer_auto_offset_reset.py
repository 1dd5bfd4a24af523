"""Consumer(auto_offset_reset=...): aiokafka's values, checked at construction (no sockets)."""

from __future__ import annotations

import pytest

from kafkette.client import Consumer


@pytest.mark.parametrize("value", ["smallest", "largest", "", "EARLIEST"])
def test_a_bad_auto_offset_reset_is_a_value_error_at_construction(value):
    with pytest.raises(ValueError, match="auto_offset_reset"):
        Consumer(auto_offset_reset=value)


@pytest.mark.parametrize("value", ["earliest", "latest", "none"])
def test_kafka_values_are_accepted(value):
    Consumer(auto_offset_reset=value)
