"""Error codes map to generated exception classes with Kafka's attributes."""

import pytest

from kafkette.protocol import errors
from kafkette.protocol.errors import Errors, error_class, raise_for_code


def test_codes_keep_kafkas_numbers():
    assert Errors.NOT_LEADER_OR_FOLLOWER == 6 and Errors.NOT_ENOUGH_REPLICAS == 19
    assert Errors.TOPIC_ALREADY_EXISTS == 36 and Errors.FENCED_LEADER_EPOCH == 74


def test_generated_classes_carry_retriable_and_invalid_metadata():
    cls = error_class(6)
    assert cls is errors.NotLeaderOrFollowerError
    assert cls.retriable and cls.invalid_metadata
    assert not errors.TopicAlreadyExistsError.retriable
    assert issubclass(errors.RequestTimedOutError, TimeoutError)


def test_raise_for_code_uses_server_message():
    raise_for_code(0)
    with pytest.raises(errors.InvalidReplicationFactorError, match="larger than available"):
        raise_for_code(38, "Replication factor: 4 larger than available brokers: 3.")


def test_unknown_code_maps_to_unknown_server_error():
    assert error_class(12345) is errors.UnknownServerError


def test_kafka_storage_error_is_retriable_and_invalidates_metadata():
    """As in Kafka's client: a replica whose log is offline makes the client look for the new leader."""
    cls = error_class(Errors.KAFKA_STORAGE_ERROR)
    assert Errors.KAFKA_STORAGE_ERROR == 56
    assert cls is errors.KafkaStorageError and cls.retriable and cls.invalid_metadata
