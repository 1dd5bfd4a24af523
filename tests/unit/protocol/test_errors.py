"""Error codes map to generated exception classes with Kafka's attributes."""

import ast
from pathlib import Path

import pytest

from kafkette.protocol import errors
from kafkette.protocol.errors import Errors, default_message, error_class, error_message, raise_for_code


def test_codes_keep_kafkas_numbers():
    assert Errors.NOT_LEADER_OR_FOLLOWER == 6 and Errors.NOT_ENOUGH_REPLICAS == 19
    assert Errors.TOPIC_ALREADY_EXISTS == 36 and Errors.FENCED_LEADER_EPOCH == 74
    # the quorum's and the group coordinator's (68 is NON_EMPTY_GROUP, not INCONSISTENT_VOTER_SET)
    assert (Errors.INCONSISTENT_VOTER_SET, Errors.INCONSISTENT_CLUSTER_ID, Errors.NON_EMPTY_GROUP) == (
        94,
        104,
        68,
    )
    assert (
        Errors.COORDINATOR_LOAD_IN_PROGRESS,
        Errors.COORDINATOR_NOT_AVAILABLE,
        Errors.NOT_COORDINATOR,
    ) == (14, 15, 16)
    assert (
        Errors.ILLEGAL_GENERATION,
        Errors.INCONSISTENT_GROUP_PROTOCOL,
        Errors.INVALID_GROUP_ID,
        Errors.UNKNOWN_MEMBER_ID,
        Errors.INVALID_SESSION_TIMEOUT,
        Errors.REBALANCE_IN_PROGRESS,
        Errors.INVALID_COMMIT_OFFSET_SIZE,
    ) == (22, 23, 24, 25, 26, 27, 28)
    assert (
        Errors.GROUP_ID_NOT_FOUND,
        Errors.MEMBER_ID_REQUIRED,
        Errors.GROUP_MAX_SIZE_REACHED,
        Errors.GROUP_SUBSCRIBED_TO_TOPIC,
    ) == (69, 79, 81, 86)


KIP_848_ERRORS = {
    Errors.FENCED_MEMBER_EPOCH: (
        110,
        "FencedMemberEpochError",
        "The member epoch is fenced by the group coordinator. The member must abandon all its partitions and "
        "rejoin.",
    ),
    Errors.UNRELEASED_INSTANCE_ID: (
        111,
        "UnreleasedInstanceIdError",
        "The instance ID is still used by another member in the consumer group. That member must leave "
        "first.",
    ),
    Errors.UNSUPPORTED_ASSIGNOR: (
        112,
        "UnsupportedAssignorError",
        "The assignor or its version range is not supported by the consumer group.",
    ),
    Errors.STALE_MEMBER_EPOCH: (
        113,
        "StaleMemberEpochError",
        "The member epoch is stale. The member must retry after receiving its updated member epoch via the "
        "ConsumerGroupHeartbeat API.",
    ),
    Errors.INVALID_REGULAR_EXPRESSION: (
        128,
        "InvalidRegularExpressionError",
        "The regular expression is not valid.",
    ),
}
"""KIP-848's consumer group errors as Kafka 4.3.1's ``Errors`` has them: code, class, default message;
none retriable (plain ``ApiException``s), none invalidating metadata."""


@pytest.mark.parametrize("code", sorted(KIP_848_ERRORS), ids=lambda c: c.name)
def test_the_consumer_group_protocols_errors_are_kafkas(code):
    number, name, message = KIP_848_ERRORS[code]
    cls = error_class(number)
    assert (int(code), cls.__name__, cls.message) == (number, name, message)
    assert not cls.retriable and not cls.invalid_metadata
    assert cls is getattr(errors, name)


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


def test_invalid_request_carries_kafkas_default_message():
    # what a Kafka broker answers in an errorMessage field for INVALID_REQUEST without a detail
    assert errors.InvalidRequestError.message == (
        "This most likely occurs because of a request being malformed by the client library or the message "
        "was sent to an incompatible broker. See the broker logs for more details."
    )


def test_unknown_code_maps_to_unknown_server_error():
    assert error_class(12345) is errors.UnknownServerError


def test_kafka_storage_error_is_retriable_and_invalidates_metadata():
    """As in Kafka's client: a replica whose log is offline makes the client look for the new leader."""
    cls = error_class(Errors.KAFKA_STORAGE_ERROR)
    assert Errors.KAFKA_STORAGE_ERROR == 56
    assert cls is errors.KafkaStorageError and cls.retriable and cls.invalid_metadata


def test_error_code_for_maps_exceptions_to_their_wire_codes_in_one_place():
    from kafkette.protocol.compression import CorruptRecordError
    from kafkette.protocol.errors import (
        KafkaError,
        KafkaTimeoutError,
        NotControllerError,
        NotLeaderOrFollowerError,
        error_code_for,
    )

    assert error_code_for(NotLeaderOrFollowerError()) == Errors.NOT_LEADER_OR_FOLLOWER
    assert error_code_for(NotControllerError("stopped")) == Errors.NOT_CONTROLLER
    assert error_code_for(CorruptRecordError("bad CRC")) == Errors.CORRUPT_MESSAGE
    assert error_code_for(KafkaTimeoutError("late")) == Errors.REQUEST_TIMED_OUT
    assert error_code_for(KafkaError("no code")) == Errors.UNKNOWN_SERVER_ERROR
    assert (
        error_code_for(OSError(5, "I/O error")) == Errors.UNKNOWN_SERVER_ERROR
    )  # errno 5 is not a wire code
    assert (
        error_code_for(RuntimeError("bug"), Errors.COORDINATOR_NOT_AVAILABLE)
        == Errors.COORDINATOR_NOT_AVAILABLE
    )


def test_error_name_names_known_codes_and_numbers_unknown_ones():
    from kafkette.protocol.errors import error_name

    assert error_name(6) == "NOT_LEADER_OR_FOLLOWER"
    assert error_name(9999) == "9999"


def _declared_for_type_checkers() -> dict[str, list[str]]:
    tree = ast.parse(Path(errors.__file__).read_text())
    block = next(
        node for node in tree.body if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
    )
    return {
        node.name: [ast.unparse(base) for base in node.bases]
        for node in block.body
        if isinstance(node, ast.ClassDef)
    }


def test_the_classes_spelled_out_for_type_checkers_are_exactly_the_generated_ones():
    generated = {
        name: [base.__name__ for base in cls.__bases__] for name, cls in errors.all_error_classes().items()
    }
    assert _declared_for_type_checkers() == generated


def test_default_message_is_the_message_of_the_codes_exception():
    for code in (Errors.NOT_COORDINATOR, Errors.UNSUPPORTED_VERSION, Errors.STALE_MEMBER_EPOCH):
        assert default_message(code) == error_message(error_class(code)())
    assert default_message(Errors.NOT_COORDINATOR) == "This is not the correct coordinator."


def test_api_error_message_keeps_what_kafkas_api_error_from_throwable_keeps():
    from kafkette.protocol.errors import (
        InvalidRequestError,
        NotCoordinatorError,
        UnknownServerError,
        api_error_message,
    )

    assert api_error_message(InvalidRequestError("bad field"), Errors.INVALID_REQUEST) == "bad field"
    assert api_error_message(NotCoordinatorError(), Errors.NOT_COORDINATOR) is None  # the default message
    assert api_error_message(UnknownServerError("internal"), Errors.UNKNOWN_SERVER_ERROR) is None
    assert api_error_message(RuntimeError(), Errors.INVALID_REQUEST) is None  # no message at all
