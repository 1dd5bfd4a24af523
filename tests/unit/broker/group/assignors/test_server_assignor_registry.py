"""The assignors ``group.consumer.assignors`` names become, in order; every name the config accepts has
an assignor, and the config's names (Kafka's class names included) reach the right one."""

from __future__ import annotations

import pytest

from kafkette.broker.group.assignors.range import RangeAssignor
from kafkette.broker.group.assignors.registry import ASSIGNOR_FACTORIES, new_assignors
from kafkette.broker.group.assignors.uniform import UniformAssignor
from kafkette.broker.group.group_coordinator_config import BUILTIN_ASSIGNORS, consumer_group_assignors


def test_kafka_default_gives_uniform_first_then_range():
    assignors = new_assignors(consumer_group_assignors(["uniform", "range"]))
    assert list(assignors) == ["uniform", "range"]
    assert isinstance(assignors["uniform"], UniformAssignor) and isinstance(assignors["range"], RangeAssignor)
    assert [a.name for a in assignors.values()] == ["uniform", "range"]


def test_kafka_class_names_reach_the_same_assignors():
    names = consumer_group_assignors(["org.apache.kafka.coordinator.group.assignor.RangeAssignor", "uniform"])
    assert list(new_assignors(names)) == ["range", "uniform"]


def test_every_name_the_config_accepts_has_an_assignor():
    assert set(BUILTIN_ASSIGNORS) == set(ASSIGNOR_FACTORIES)


def test_each_call_gives_new_instances():
    assert new_assignors(["range"])["range"] is not new_assignors(["range"])["range"]


@pytest.mark.parametrize("names", [[], ["sticky"]])
def test_unknown_or_no_names_are_refused(names):
    with pytest.raises(ValueError):
        new_assignors(names)
