"""``group.consumer.assignors``: names (and Kafka's class names) to the built-in server-side assignors."""

from __future__ import annotations

import pytest

from kafkette.broker.group.assignors.range import RangeAssignor
from kafkette.broker.group.assignors.registry import (
    CONSUMER_GROUP_ASSIGNORS_DEFAULT,
    consumer_group_assignors,
)
from kafkette.broker.group.assignors.uniform import UniformAssignor
from kafkette.common.config_def import ConfigError


def test_kafka_default_list_gives_uniform_first_then_range():
    assignors = consumer_group_assignors(",".join(CONSUMER_GROUP_ASSIGNORS_DEFAULT))
    assert [type(a) for a in assignors] == [UniformAssignor, RangeAssignor]
    assert [a.name for a in assignors] == ["uniform", "range"]


def test_order_is_kept_so_the_first_is_the_default():
    assert [a.name for a in consumer_group_assignors(["range", "uniform"])] == ["range", "uniform"]
    assert [a.name for a in consumer_group_assignors(" range ")] == ["range"]


def test_kafka_class_names_are_aliases():
    assignors = consumer_group_assignors(
        "org.apache.kafka.coordinator.group.assignor.RangeAssignor,"
        "org.apache.kafka.coordinator.group.assignor.UniformAssignor"
    )
    assert [a.name for a in assignors] == ["range", "uniform"]


def test_an_unknown_assignor_is_a_config_error_naming_it():
    with pytest.raises(ConfigError, match="Class com.example.Sticky cannot be found"):
        consumer_group_assignors("uniform,com.example.Sticky")


@pytest.mark.parametrize("value", ["", " , ", []])
def test_an_empty_list_is_a_config_error(value):
    with pytest.raises(ConfigError, match="must not be empty"):
        consumer_group_assignors(value)


def test_a_duplicated_entry_is_a_config_error():
    with pytest.raises(ConfigError, match="duplicated"):
        consumer_group_assignors("uniform,range,uniform")
