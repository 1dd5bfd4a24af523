"""CreateTopics validation: names, partitions, replication factor, manual assignment, configs."""

from __future__ import annotations

import pytest

from kafkette.common.topic_names import validate_topic_name
from kafkette.controller.topic_validation import (
    resolve_num_partitions,
    resolve_replication_factor,
    validate_manual_assignment,
    validate_topic_configs,
)
from kafkette.protocol.apis.create_topics import CreatableReplicaAssignment, CreatableTopicConfig
from kafkette.protocol.errors import (
    Errors,
    InvalidConfigError,
    InvalidPartitionsError,
    InvalidReplicaAssignmentError,
    InvalidReplicationFactorError,
    InvalidRequestError,
    InvalidTopicError,
)


@pytest.mark.parametrize("name", ["flights", "a.b_c-D9", "x" * 249, "_internal"])
def test_legal_topic_names_pass(name):
    validate_topic_name(name)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", "Topic name is invalid: the empty string is not allowed"),
        (".", "Topic name is invalid: '.' is not allowed"),
        ("..", "Topic name is invalid: '..' is not allowed"),
        (
            "x" * 250,
            f"Topic name is invalid: the length of '{'x' * 250}' is longer than the max allowed length 249",
        ),
        (
            "bad name",
            "Topic name is invalid: 'bad name' contains one or more characters other than ASCII "
            "alphanumerics, '.', '_' and '-'",
        ),
        (
            "tópico",
            "Topic name is invalid: 'tópico' contains one or more characters other than ASCII "
            "alphanumerics, '.', '_' and '-'",
        ),
        (
            "a/b",
            "Topic name is invalid: 'a/b' contains one or more characters other than ASCII "
            "alphanumerics, '.', '_' and '-'",
        ),
    ],
)
def test_illegal_topic_names_raise_invalid_topic_exception_in_kafkas_words(name, message):
    with pytest.raises(InvalidTopicError) as info:
        validate_topic_name(name)
    assert info.value.errno == Errors.INVALID_TOPIC_EXCEPTION
    assert info.value.args[0] == message


def test_minus_one_partitions_means_num_partitions_default():
    assert resolve_num_partitions(-1, 6) == 6
    assert resolve_num_partitions(3, 6) == 3


@pytest.mark.parametrize("n", [0, -2])
def test_non_positive_partitions_are_invalid_partitions(n):
    with pytest.raises(InvalidPartitionsError) as info:
        resolve_num_partitions(n, 1)
    assert info.value.errno == Errors.INVALID_PARTITIONS


def test_minus_one_replication_factor_means_default_replication_factor():
    assert resolve_replication_factor(-1, 2, 3) == 2


@pytest.mark.parametrize("rf", [0, -2, 32768])
def test_replication_factor_outside_1_to_32767_is_invalid(rf):
    with pytest.raises(InvalidReplicationFactorError):
        resolve_replication_factor(rf, 1, 100000)


@pytest.mark.parametrize("rf", [0, -2])
def test_a_replication_factor_below_one_other_than_minus_one_is_refused_in_kafkas_words(rf):
    with pytest.raises(InvalidReplicationFactorError) as info:
        resolve_replication_factor(rf, 1, 3)
    assert info.value.args[0] == "Replication factor must be larger than 0, or -1 to use the default value."


def test_replication_factor_above_live_brokers_names_both_numbers():
    with pytest.raises(InvalidReplicationFactorError) as info:
        resolve_replication_factor(4, 1, 3)
    assert info.value.args[0] == (
        "Unable to replicate the partition 4 time(s): The target replication factor of 4 cannot be reached "
        "because only 3 broker(s) are registered or some brokers have all their log directories cordoned."
    )


def _assignment(*lists):
    return [CreatableReplicaAssignment(partition_index=i, broker_ids=list(b)) for i, b in enumerate(lists)]


def test_valid_manual_assignment_is_returned_as_a_map():
    result = validate_manual_assignment(_assignment([1, 2], [2, 3], [3, 1]), -1, -1, {1, 2, 3})
    assert result == {0: [1, 2], 1: [2, 3], 2: [3, 1]}


def test_manual_assignment_with_num_partitions_is_invalid_request():
    with pytest.raises(InvalidRequestError, match="numPartitions was not set to -1"):
        validate_manual_assignment(_assignment([1]), 1, -1, {1})


def test_manual_assignment_with_replication_factor_is_invalid_request():
    with pytest.raises(InvalidRequestError, match="replication factor was not set to -1"):
        validate_manual_assignment(_assignment([1]), -1, 1, {1})


def test_manual_assignment_with_gap_in_partition_ids_is_invalid():
    entries = [
        CreatableReplicaAssignment(partition_index=0, broker_ids=[1]),
        CreatableReplicaAssignment(partition_index=2, broker_ids=[1]),
    ]
    with pytest.raises(
        InvalidReplicaAssignmentError, match=": partitions should be a consecutive 0-based integer sequence$"
    ):
        validate_manual_assignment(entries, -1, -1, {1})


def test_a_partition_assigned_twice_is_refused_before_the_gap_it_leaves():
    entries = [
        CreatableReplicaAssignment(partition_index=0, broker_ids=[1]),
        CreatableReplicaAssignment(partition_index=0, broker_ids=[1]),
    ]
    with pytest.raises(InvalidReplicaAssignmentError) as info:
        validate_manual_assignment(entries, -1, -1, {1})
    assert info.value.args[0] == "Found multiple manual partition assignments for partition 0"


def test_a_manual_assignment_with_both_counts_set_names_the_replication_factor_first():
    with pytest.raises(InvalidRequestError, match="replication factor was not set to -1"):
        validate_manual_assignment(_assignment([1]), 1, 1, {1})


def test_manual_assignment_with_duplicate_broker_in_a_partition_is_invalid():
    with pytest.raises(InvalidReplicaAssignmentError, match="includes the broker 2 more than once") as info:
        validate_manual_assignment(_assignment([2, 2]), -1, -1, {1, 2})
    assert info.value.errno == Errors.INVALID_REPLICA_ASSIGNMENT


def test_manual_assignment_with_different_replication_factors_is_invalid():
    with pytest.raises(
        InvalidReplicaAssignmentError,
        match=(
            "a partition with 1 replica.s., but this is not consistent with previous partitions, which have 2"
        ),
    ):
        validate_manual_assignment(_assignment([1, 2], [1]), -1, -1, {1, 2})


def test_manual_assignment_with_unknown_broker_is_invalid():
    with pytest.raises(InvalidReplicaAssignmentError, match="broker 9, but no such broker is registered"):
        validate_manual_assignment(_assignment([1, 9]), -1, -1, {1, 2})


def test_manual_assignment_with_empty_replica_list_is_invalid():
    with pytest.raises(
        InvalidReplicaAssignmentError,
        match=": The manual partition assignment includes an empty replica list.$",
    ):
        validate_manual_assignment(_assignment([]), -1, -1, {1})


def _configs(**kwargs):
    return [CreatableTopicConfig(name=k.replace("_", "."), value=v) for k, v in kwargs.items()]


def test_known_topic_configs_are_accepted():
    assert validate_topic_configs(_configs(retention_ms="1000", min_insync_replicas="2")) == {
        "retention.ms": "1000",
        "min.insync.replicas": "2",
    }


def test_unknown_topic_config_is_invalid_config_naming_the_key():
    with pytest.raises(InvalidConfigError, match="Unknown topic config name: log.retention.ms") as info:
        validate_topic_configs(_configs(log_retention_ms="1000"))
    assert info.value.errno == Errors.INVALID_CONFIG


@pytest.mark.parametrize("value", ["0", "-1", "two", "1.5"])
def test_min_insync_replicas_must_be_an_integer_at_least_one(value):
    with pytest.raises(InvalidConfigError, match="min.insync.replicas"):
        validate_topic_configs(_configs(min_insync_replicas=value))


def test_invalid_value_of_a_known_config_is_invalid_config():
    with pytest.raises(InvalidConfigError, match="segment.bytes"):
        validate_topic_configs(_configs(segment_bytes="tiny"))


def test_null_config_value_is_invalid_config_as_kafka_answers():
    with pytest.raises(InvalidConfigError, match="Null value"):
        validate_topic_configs([CreatableTopicConfig(name="retention.ms", value=None)])
