"""Kafka's error codes and the exception hierarchy generated from them.

Owns: the `Errors` IntEnum (Kafka's numbers and names), one table saying which codes
are retriable and which invalidate cached metadata, and one exception class per
code (``NOT_LEADER_OR_FOLLOWER`` -> ``NotLeaderOrFollowerError``).  Does not own any
I/O: the broker converts internal exceptions to codes at its handler boundary and the
client raises these classes from codes it receives.

Kafka concept: ``org.apache.kafka.common.protocol.Errors``.
"""

from __future__ import annotations

from enum import IntEnum
from typing import TYPE_CHECKING


class Errors(IntEnum):
    """Error codes sent on the wire, with Kafka's numbers and names."""

    UNKNOWN_SERVER_ERROR = -1
    NONE = 0
    OFFSET_OUT_OF_RANGE = 1
    CORRUPT_MESSAGE = 2
    UNKNOWN_TOPIC_OR_PARTITION = 3
    INVALID_FETCH_SIZE = 4
    LEADER_NOT_AVAILABLE = 5
    NOT_LEADER_OR_FOLLOWER = 6
    REQUEST_TIMED_OUT = 7
    BROKER_NOT_AVAILABLE = 8
    REPLICA_NOT_AVAILABLE = 9
    MESSAGE_TOO_LARGE = 10
    STALE_CONTROLLER_EPOCH = 11
    OFFSET_METADATA_TOO_LARGE = 12
    NETWORK_EXCEPTION = 13
    COORDINATOR_LOAD_IN_PROGRESS = 14
    NOT_COORDINATOR = 16
    INVALID_TOPIC_EXCEPTION = 17
    RECORD_LIST_TOO_LARGE = 18
    NOT_ENOUGH_REPLICAS = 19
    NOT_ENOUGH_REPLICAS_AFTER_APPEND = 20
    INVALID_REQUIRED_ACKS = 21
    ILLEGAL_GENERATION = 22
    INCONSISTENT_GROUP_PROTOCOL = 23
    INVALID_GROUP_ID = 24
    UNKNOWN_MEMBER_ID = 25
    INVALID_SESSION_TIMEOUT = 26
    REBALANCE_IN_PROGRESS = 27
    INVALID_COMMIT_OFFSET_SIZE = 28
    COORDINATOR_NOT_AVAILABLE = 15
    TOPIC_AUTHORIZATION_FAILED = 29
    GROUP_AUTHORIZATION_FAILED = 30
    CLUSTER_AUTHORIZATION_FAILED = 31
    INVALID_TIMESTAMP = 32
    UNSUPPORTED_SASL_MECHANISM = 33
    ILLEGAL_SASL_STATE = 34
    UNSUPPORTED_VERSION = 35
    TOPIC_ALREADY_EXISTS = 36
    INVALID_PARTITIONS = 37
    INVALID_REPLICATION_FACTOR = 38
    INVALID_REPLICA_ASSIGNMENT = 39
    INVALID_CONFIG = 40
    NOT_CONTROLLER = 41
    INVALID_REQUEST = 42
    POLICY_VIOLATION = 44
    OUT_OF_ORDER_SEQUENCE_NUMBER = 45
    DUPLICATE_SEQUENCE_NUMBER = 46
    INVALID_PRODUCER_EPOCH = 47
    INVALID_TXN_STATE = 48
    INVALID_PRODUCER_ID_MAPPING = 49
    INVALID_TRANSACTION_TIMEOUT = 50
    CONCURRENT_TRANSACTIONS = 51
    TRANSACTION_COORDINATOR_FENCED = 52
    TRANSACTIONAL_ID_AUTHORIZATION_FAILED = 53
    SECURITY_DISABLED = 54
    OPERATION_NOT_ATTEMPTED = 55
    KAFKA_STORAGE_ERROR = 56
    SASL_AUTHENTICATION_FAILED = 58
    UNKNOWN_PRODUCER_ID = 59
    PRODUCER_FENCED = 90
    TRANSACTIONAL_ID_NOT_FOUND = 105
    TRANSACTION_ABORTABLE = 120
    FETCH_SESSION_ID_NOT_FOUND = 70
    INVALID_FETCH_SESSION_EPOCH = 71
    TOPIC_DELETION_DISABLED = 73
    NON_EMPTY_GROUP = 68
    GROUP_ID_NOT_FOUND = 69
    GROUP_SUBSCRIBED_TO_TOPIC = 86
    RESOURCE_NOT_FOUND = 91
    DUPLICATE_RESOURCE = 92
    UNACCEPTABLE_CREDENTIAL = 93
    INCONSISTENT_VOTER_SET = 94
    MEMBER_ID_REQUIRED = 79
    GROUP_MAX_SIZE_REACHED = 81
    FENCED_INSTANCE_ID = 82
    FENCED_LEADER_EPOCH = 74
    UNKNOWN_LEADER_EPOCH = 75
    UNSUPPORTED_COMPRESSION_TYPE = 76
    STALE_BROKER_EPOCH = 77
    OFFSET_NOT_AVAILABLE = 78
    PREFERRED_LEADER_NOT_AVAILABLE = 80
    ELIGIBLE_LEADERS_NOT_AVAILABLE = 83
    ELECTION_NOT_NEEDED = 84
    INVALID_RECORD = 87
    UNSTABLE_OFFSET_COMMIT = 88
    THROTTLING_QUOTA_EXCEEDED = 89
    INVALID_UPDATE_VERSION = 95
    SNAPSHOT_NOT_FOUND = 98
    POSITION_OUT_OF_RANGE = 99
    UNKNOWN_TOPIC_ID = 100
    DUPLICATE_BROKER_REGISTRATION = 101
    BROKER_ID_NOT_REGISTERED = 102
    INCONSISTENT_TOPIC_ID = 103
    INCONSISTENT_CLUSTER_ID = 104
    FETCH_SESSION_TOPIC_ID_ERROR = 106
    INELIGIBLE_REPLICA = 107
    NEW_LEADER_ELECTED = 108
    FENCED_MEMBER_EPOCH = 110
    UNRELEASED_INSTANCE_ID = 111
    UNSUPPORTED_ASSIGNOR = 112
    STALE_MEMBER_EPOCH = 113
    MISMATCHED_ENDPOINT_TYPE = 114
    UNSUPPORTED_ENDPOINT_TYPE = 115
    INVALID_REGULAR_EXPRESSION = 128


# code -> (retriable, invalid_metadata, message).  One table, as in Kafka's Errors.
_ERROR_TABLE: dict[Errors, tuple[bool, bool, str]] = {
    Errors.UNKNOWN_SERVER_ERROR: (
        False,
        False,
        "The server experienced an unexpected error when processing the request.",
    ),
    Errors.NONE: (False, False, ""),
    Errors.OFFSET_OUT_OF_RANGE: (
        False,
        False,
        "The requested offset is not within the range of offsets maintained by the server.",
    ),
    Errors.CORRUPT_MESSAGE: (
        True,
        False,
        "This message has failed its CRC checksum, exceeds the valid size, has a null key for a compacted "
        "topic, or is otherwise corrupt.",
    ),
    Errors.UNKNOWN_TOPIC_OR_PARTITION: (True, True, "This server does not host this topic-partition."),
    Errors.INVALID_FETCH_SIZE: (False, False, "The requested fetch size is invalid."),
    Errors.LEADER_NOT_AVAILABLE: (
        True,
        True,
        "There is no leader for this topic-partition as we are in the middle of a leadership election.",
    ),
    Errors.NOT_LEADER_OR_FOLLOWER: (
        True,
        True,
        "For requests intended only for the leader, this error indicates that the broker is not the "
        "current leader. For requests intended for any replica, this error indicates that the broker is not "
        "a replica of the topic partition.",
    ),
    Errors.REQUEST_TIMED_OUT: (True, False, "The request timed out."),
    Errors.BROKER_NOT_AVAILABLE: (False, False, "The broker is not available."),
    Errors.REPLICA_NOT_AVAILABLE: (
        True,
        True,
        "The replica is not available for the requested topic-partition. Produce/Fetch requests and "
        "other requests intended only for the leader or follower return NOT_LEADER_OR_FOLLOWER if the "
        "broker is not a replica of the topic-partition.",
    ),
    Errors.MESSAGE_TOO_LARGE: (
        False,
        False,
        "The request included a message larger than the max message size the server will accept.",
    ),
    Errors.STALE_CONTROLLER_EPOCH: (False, False, "The controller moved to another broker."),
    Errors.OFFSET_METADATA_TOO_LARGE: (
        False,
        False,
        "The metadata field of the offset request was too large.",
    ),
    Errors.NETWORK_EXCEPTION: (True, True, "The server disconnected before a response was received."),
    Errors.INVALID_TOPIC_EXCEPTION: (
        False,
        False,
        "The request attempted to perform an operation on an invalid topic.",
    ),
    Errors.RECORD_LIST_TOO_LARGE: (
        False,
        False,
        "The request included message batch larger than the configured segment size on the server.",
    ),
    Errors.NOT_ENOUGH_REPLICAS: (
        True,
        False,
        "Messages are rejected since there are fewer in-sync replicas than required.",
    ),
    Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND: (
        True,
        False,
        "Messages are written to the log, but to fewer in-sync replicas than required.",
    ),
    Errors.COORDINATOR_LOAD_IN_PROGRESS: (
        True,
        False,
        "The coordinator is loading and hence can't process requests.",
    ),
    Errors.COORDINATOR_NOT_AVAILABLE: (True, False, "The coordinator is not available."),
    Errors.NOT_COORDINATOR: (True, False, "This is not the correct coordinator."),
    Errors.ILLEGAL_GENERATION: (False, False, "Specified group generation id is not valid."),
    Errors.INVALID_GROUP_ID: (False, False, "The group id is invalid."),
    Errors.UNKNOWN_MEMBER_ID: (False, False, "The coordinator is not aware of this member."),
    Errors.INCONSISTENT_GROUP_PROTOCOL: (
        False,
        False,
        "The group member's supported protocols are incompatible with those of existing members or first "
        "group member tried to join with empty protocol type or empty protocol list.",
    ),
    Errors.INVALID_SESSION_TIMEOUT: (
        False,
        False,
        "The session timeout is not within the range allowed by the broker (as configured by "
        "group.min.session.timeout.ms and group.max.session.timeout.ms).",
    ),
    Errors.REBALANCE_IN_PROGRESS: (False, False, "The group is rebalancing, so a rejoin is needed."),
    Errors.MEMBER_ID_REQUIRED: (
        False,
        False,
        "The group member needs to have a valid member id before actually entering a consumer group.",
    ),
    Errors.GROUP_MAX_SIZE_REACHED: (False, False, "The group has reached its maximum size."),
    Errors.NON_EMPTY_GROUP: (False, False, "The group is not empty."),
    Errors.FENCED_INSTANCE_ID: (
        False,
        False,
        "The broker rejected this static consumer since another consumer with the same group.instance.id "
        "has registered with a different member.id.",
    ),
    Errors.GROUP_ID_NOT_FOUND: (False, False, "The group id does not exist."),
    Errors.GROUP_SUBSCRIBED_TO_TOPIC: (
        False,
        False,
        "Deleting offsets of a topic is forbidden while the consumer group is actively subscribed to it.",
    ),
    Errors.INVALID_COMMIT_OFFSET_SIZE: (False, False, "The committing offset data size is not valid."),
    Errors.INVALID_REQUIRED_ACKS: (
        False,
        False,
        "Produce request specified an invalid value for required acks.",
    ),
    Errors.INVALID_TIMESTAMP: (False, False, "The timestamp of the message is out of acceptable range."),
    Errors.UNSUPPORTED_VERSION: (False, False, "The version of API is not supported."),
    Errors.TOPIC_ALREADY_EXISTS: (False, False, "Topic with this name already exists."),
    Errors.INVALID_PARTITIONS: (False, False, "Number of partitions is below 1."),
    Errors.INVALID_REPLICATION_FACTOR: (
        False,
        False,
        "Replication factor is below 1 or larger than the number of available brokers.",
    ),
    Errors.INVALID_REPLICA_ASSIGNMENT: (False, False, "Replica assignment is invalid."),
    Errors.INVALID_CONFIG: (False, False, "Configuration is invalid."),
    Errors.NOT_CONTROLLER: (True, True, "This is not the correct controller for this cluster."),
    Errors.INVALID_REQUEST: (
        False,
        False,
        "This most likely occurs because of a request being malformed by the client library or the message "
        "was sent to an incompatible broker. See the broker logs for more details.",
    ),
    Errors.POLICY_VIOLATION: (False, False, "Request parameters do not satisfy the configured policy."),
    Errors.OUT_OF_ORDER_SEQUENCE_NUMBER: (
        False,
        False,
        "The broker received an out of order sequence number.",
    ),
    Errors.DUPLICATE_SEQUENCE_NUMBER: (False, False, "The broker received a duplicate sequence number."),
    Errors.INVALID_PRODUCER_EPOCH: (False, False, "Producer attempted to produce with an old epoch."),
    Errors.INVALID_TXN_STATE: (
        False,
        False,
        "The producer attempted a transactional operation in an invalid state.",
    ),
    Errors.INVALID_PRODUCER_ID_MAPPING: (
        False,
        False,
        "The producer attempted to use a producer id which is not currently assigned to its transactional "
        "id.",
    ),
    Errors.INVALID_TRANSACTION_TIMEOUT: (
        False,
        False,
        "The transaction timeout is larger than the maximum value allowed by the broker (as configured by "
        "transaction.max.timeout.ms).",
    ),
    Errors.CONCURRENT_TRANSACTIONS: (
        True,
        False,
        "The producer attempted to update a transaction while another concurrent operation on the same "
        "transaction was ongoing.",
    ),
    Errors.TRANSACTION_COORDINATOR_FENCED: (
        False,
        False,
        "Indicates that the transaction coordinator sending a WriteTxnMarker is no longer the current "
        "coordinator for a given producer.",
    ),
    Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED: (False, False, "Transactional Id authorization failed."),
    Errors.PRODUCER_FENCED: (
        False,
        False,
        "There is a newer producer with the same transactionalId which fences the current one.",
    ),
    Errors.TRANSACTIONAL_ID_NOT_FOUND: (False, False, "The transactionalId could not be found."),
    Errors.TRANSACTION_ABORTABLE: (
        False,
        False,
        "The server encountered an error with the transaction. The client can abort the transaction to "
        "continue using this transactional ID.",
    ),
    Errors.UNKNOWN_PRODUCER_ID: (
        False,
        False,
        "This exception is raised by the broker if it could not locate the producer metadata associated with "
        "the producerId in question. This could happen if, for instance, the producer's records were deleted "
        "because their retention time had elapsed. Once the last records of the producerId are removed, the "
        "producer's metadata is removed from the broker, and future appends by the producer will return this "
        "exception.",
    ),
    Errors.OPERATION_NOT_ATTEMPTED: (
        False,
        False,
        "The broker did not attempt to execute this operation. This may happen for batched RPCs where some "
        "operations in the batch failed, causing the broker to respond without trying the rest.",
    ),
    Errors.KAFKA_STORAGE_ERROR: (True, True, "Disk error when trying to access log file on the disk."),
    Errors.TOPIC_DELETION_DISABLED: (False, False, "Topic deletion is disabled."),
    Errors.FENCED_LEADER_EPOCH: (
        True,
        True,
        "The leader epoch in the request is older than the epoch on the broker.",
    ),
    Errors.UNKNOWN_LEADER_EPOCH: (
        True,
        True,
        "The leader epoch in the request is newer than the epoch on the broker.",
    ),
    Errors.UNSUPPORTED_COMPRESSION_TYPE: (
        False,
        False,
        "The requesting client does not support the compression type of given partition.",
    ),
    Errors.STALE_BROKER_EPOCH: (False, False, "Broker epoch has changed."),
    Errors.OFFSET_NOT_AVAILABLE: (
        True,
        False,
        "The leader high watermark has not caught up from a recent leader election so the offsets cannot be "
        "guaranteed to be monotonically increasing.",
    ),
    Errors.TOPIC_AUTHORIZATION_FAILED: (False, False, "Topic authorization failed."),
    Errors.GROUP_AUTHORIZATION_FAILED: (False, False, "Group authorization failed."),
    Errors.CLUSTER_AUTHORIZATION_FAILED: (False, False, "Cluster authorization failed."),
    Errors.SECURITY_DISABLED: (False, False, "Security features are disabled."),
    Errors.RESOURCE_NOT_FOUND: (
        False,
        False,
        "A request illegally referred to a resource that does not exist.",
    ),
    Errors.DUPLICATE_RESOURCE: (
        False,
        False,
        "A request illegally referred to the same resource twice.",
    ),
    Errors.UNACCEPTABLE_CREDENTIAL: (
        False,
        False,
        "Requested credential would not meet criteria for acceptability.",
    ),
    Errors.INCONSISTENT_VOTER_SET: (
        False,
        False,
        "Indicates that the either the sender or recipient of a voter-only request is not one of the "
        "expected voters.",
    ),
    Errors.PREFERRED_LEADER_NOT_AVAILABLE: (True, True, "The preferred leader was not available."),
    Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE: (
        True,
        True,
        "Eligible topic partition leaders are not available.",
    ),
    Errors.ELECTION_NOT_NEEDED: (False, False, "Leader election not needed for topic partition."),
    Errors.INVALID_RECORD: (
        False,
        False,
        "This record has failed the validation on broker and hence will be rejected.",
    ),
    Errors.UNSTABLE_OFFSET_COMMIT: (True, False, "There are unstable offsets that need to be cleared."),
    Errors.THROTTLING_QUOTA_EXCEEDED: (True, False, "The throttling quota has been exceeded."),
    Errors.INVALID_UPDATE_VERSION: (False, False, "The given update version was invalid."),
    Errors.SNAPSHOT_NOT_FOUND: (False, False, "Requested snapshot was not found."),
    Errors.POSITION_OUT_OF_RANGE: (
        False,
        False,
        "Requested position is not greater than or equal to zero, and less than the size of the snapshot.",
    ),
    Errors.UNKNOWN_TOPIC_ID: (True, True, "This server does not host this topic ID."),
    Errors.DUPLICATE_BROKER_REGISTRATION: (False, False, "This broker ID is already in use."),
    Errors.BROKER_ID_NOT_REGISTERED: (False, False, "The given broker ID was not registered."),
    Errors.INCONSISTENT_TOPIC_ID: (
        True,
        True,
        "The log's topic ID did not match the topic ID in the request.",
    ),
    Errors.INCONSISTENT_CLUSTER_ID: (
        False,
        False,
        "The clusterId in the request does not match that found on the server.",
    ),
    Errors.INELIGIBLE_REPLICA: (False, False, "The new ISR contains at least one ineligible replica."),
    Errors.NEW_LEADER_ELECTED: (
        False,
        False,
        "The AlterPartition request successfully updated the partition state but the leader has changed.",
    ),
    Errors.FETCH_SESSION_ID_NOT_FOUND: (True, False, "The fetch session ID was not found."),
    Errors.INVALID_FETCH_SESSION_EPOCH: (True, False, "The fetch session epoch is invalid."),
    Errors.FETCH_SESSION_TOPIC_ID_ERROR: (
        True,
        False,
        "The fetch session encountered inconsistent topic ID usage.",
    ),
    Errors.FENCED_MEMBER_EPOCH: (
        False,
        False,
        "The member epoch is fenced by the group coordinator. The member must abandon all its partitions "
        "and rejoin.",
    ),
    Errors.UNRELEASED_INSTANCE_ID: (
        False,
        False,
        "The instance ID is still used by another member in the consumer group. That member must leave "
        "first.",
    ),
    Errors.UNSUPPORTED_ASSIGNOR: (
        False,
        False,
        "The assignor or its version range is not supported by the consumer group.",
    ),
    Errors.STALE_MEMBER_EPOCH: (
        False,
        False,
        "The member epoch is stale. The member must retry after receiving its updated member epoch via the "
        "ConsumerGroupHeartbeat API.",
    ),
    Errors.MISMATCHED_ENDPOINT_TYPE: (False, False, "The request was sent to an endpoint of the wrong type."),
    Errors.UNSUPPORTED_ENDPOINT_TYPE: (False, False, "This endpoint type is not supported yet."),
    Errors.INVALID_REGULAR_EXPRESSION: (False, False, "The regular expression is not valid."),
    Errors.UNSUPPORTED_SASL_MECHANISM: (
        False,
        False,
        "The broker does not support the requested SASL mechanism.",
    ),
    Errors.ILLEGAL_SASL_STATE: (False, False, "Request is not valid given the current SASL state."),
    Errors.SASL_AUTHENTICATION_FAILED: (False, False, "SASL Authentication failed."),
}


class KafkaError(Exception):
    """Base of every Kafkette error raised to users.

    Attributes:
        errno: the ``Errors`` code, or None for client-side errors with no code.
        retriable: True when the same request may succeed later.
        invalid_metadata: True when the client should refresh its metadata first.
    """

    errno: Errors | None = None
    retriable = False
    invalid_metadata = False
    message = ""

    def __init__(self, *args: object) -> None:
        super().__init__(*(args or ((self.message,) if self.message else ())))

    def __str__(self) -> str:
        text = super().__str__()
        name = self.errno.name if self.errno is not None else type(self).__name__
        return f"[Error {int(self.errno)}] {name}: {text}" if self.errno is not None else f"{name}: {text}"


class KafkaConnectionError(KafkaError, ConnectionError):
    """The connection to a broker failed or was closed with requests in flight."""

    retriable = True
    invalid_metadata = True


class KafkaTimeoutError(KafkaError, TimeoutError):
    """A client-side deadline (request, delivery or metadata timeout) passed."""

    retriable = True


class IllegalStateError(KafkaError):
    """An operation was called in a state that does not allow it (e.g. a closed client)."""


def _class_name(code: Errors) -> str:
    parts = code.name.lower().split("_")
    if parts[-1] in ("error", "exception"):
        parts = parts[:-1]
    return "".join(part.capitalize() for part in parts) + "Error"


if TYPE_CHECKING:
    # The classes the loop below generates, spelled out for type checkers only (one per code of
    # ``_ERROR_TABLE`` but NONE; tests/unit/protocol/test_errors.py checks the two agree).
    class UnknownServerError(KafkaError): ...

    class OffsetOutOfRangeError(KafkaError): ...

    class CorruptMessageError(KafkaError): ...

    class UnknownTopicOrPartitionError(KafkaError): ...

    class InvalidFetchSizeError(KafkaError): ...

    class LeaderNotAvailableError(KafkaError): ...

    class NotLeaderOrFollowerError(KafkaError): ...

    class RequestTimedOutError(KafkaError, TimeoutError): ...

    class BrokerNotAvailableError(KafkaError): ...

    class ReplicaNotAvailableError(KafkaError): ...

    class MessageTooLargeError(KafkaError): ...

    class StaleControllerEpochError(KafkaError): ...

    class OffsetMetadataTooLargeError(KafkaError): ...

    class NetworkError(KafkaError): ...

    class InvalidTopicError(KafkaError): ...

    class RecordListTooLargeError(KafkaError): ...

    class NotEnoughReplicasError(KafkaError): ...

    class NotEnoughReplicasAfterAppendError(KafkaError): ...

    class CoordinatorLoadInProgressError(KafkaError): ...

    class CoordinatorNotAvailableError(KafkaError): ...

    class NotCoordinatorError(KafkaError): ...

    class IllegalGenerationError(KafkaError): ...

    class InvalidGroupIdError(KafkaError): ...

    class UnknownMemberIdError(KafkaError): ...

    class InconsistentGroupProtocolError(KafkaError): ...

    class InvalidSessionTimeoutError(KafkaError): ...

    class RebalanceInProgressError(KafkaError): ...

    class MemberIdRequiredError(KafkaError): ...

    class GroupMaxSizeReachedError(KafkaError): ...

    class NonEmptyGroupError(KafkaError): ...

    class FencedInstanceIdError(KafkaError): ...

    class OperationNotAttemptedError(KafkaError): ...

    class GroupIdNotFoundError(KafkaError): ...

    class GroupSubscribedToTopicError(KafkaError): ...

    class InvalidCommitOffsetSizeError(KafkaError): ...

    class InvalidRequiredAcksError(KafkaError): ...

    class InvalidTimestampError(KafkaError): ...

    class UnsupportedVersionError(KafkaError): ...

    class TopicAlreadyExistsError(KafkaError): ...

    class InvalidPartitionsError(KafkaError): ...

    class InvalidReplicationFactorError(KafkaError): ...

    class InvalidReplicaAssignmentError(KafkaError): ...

    class InvalidConfigError(KafkaError): ...

    class NotControllerError(KafkaError): ...

    class InvalidRequestError(KafkaError): ...

    class PolicyViolationError(KafkaError): ...

    class OutOfOrderSequenceNumberError(KafkaError): ...

    class DuplicateSequenceNumberError(KafkaError): ...

    class InvalidProducerEpochError(KafkaError): ...

    class TransactionalIdAuthorizationFailedError(KafkaError): ...

    class UnknownProducerIdError(KafkaError): ...

    class KafkaStorageError(KafkaError): ...

    class TopicDeletionDisabledError(KafkaError): ...

    class FencedLeaderEpochError(KafkaError): ...

    class UnknownLeaderEpochError(KafkaError): ...

    class UnsupportedCompressionTypeError(KafkaError): ...

    class StaleBrokerEpochError(KafkaError): ...

    class OffsetNotAvailableError(KafkaError): ...

    class TopicAuthorizationFailedError(KafkaError): ...

    class GroupAuthorizationFailedError(KafkaError): ...

    class ClusterAuthorizationFailedError(KafkaError): ...

    class SecurityDisabledError(KafkaError): ...

    class ResourceNotFoundError(KafkaError): ...

    class DuplicateResourceError(KafkaError): ...

    class UnacceptableCredentialError(KafkaError): ...

    class InconsistentVoterSetError(KafkaError): ...

    class PreferredLeaderNotAvailableError(KafkaError): ...

    class EligibleLeadersNotAvailableError(KafkaError): ...

    class ElectionNotNeededError(KafkaError): ...

    class InvalidRecordError(KafkaError): ...

    class InvalidUpdateVersionError(KafkaError): ...

    class SnapshotNotFoundError(KafkaError): ...

    class PositionOutOfRangeError(KafkaError): ...

    class UnknownTopicIdError(KafkaError): ...

    class DuplicateBrokerRegistrationError(KafkaError): ...

    class BrokerIdNotRegisteredError(KafkaError): ...

    class InconsistentTopicIdError(KafkaError): ...

    class InconsistentClusterIdError(KafkaError): ...

    class IneligibleReplicaError(KafkaError): ...

    class NewLeaderElectedError(KafkaError): ...

    class FetchSessionIdNotFoundError(KafkaError): ...

    class InvalidFetchSessionEpochError(KafkaError): ...

    class FetchSessionTopicIdError(KafkaError): ...

    class FencedMemberEpochError(KafkaError): ...

    class UnreleasedInstanceIdError(KafkaError): ...

    class UnsupportedAssignorError(KafkaError): ...

    class StaleMemberEpochError(KafkaError): ...

    class MismatchedEndpointTypeError(KafkaError): ...

    class UnsupportedEndpointTypeError(KafkaError): ...

    class InvalidRegularExpressionError(KafkaError): ...

    class UnsupportedSaslMechanismError(KafkaError): ...

    class UnstableOffsetCommitError(KafkaError): ...

    class ThrottlingQuotaExceededError(KafkaError): ...

    class IllegalSaslStateError(KafkaError): ...

    class SaslAuthenticationFailedError(KafkaError): ...

    class InvalidTxnStateError(KafkaError): ...

    class InvalidProducerIdMappingError(KafkaError): ...

    class InvalidTransactionTimeoutError(KafkaError): ...

    class ConcurrentTransactionsError(KafkaError): ...

    class TransactionCoordinatorFencedError(KafkaError): ...

    class ProducerFencedError(KafkaError): ...

    class TransactionalIdNotFoundError(KafkaError): ...

    class TransactionAbortableError(KafkaError): ...


_BY_CODE: dict[int, type[KafkaError]] = {}

for _code, (_retriable, _invalid_metadata, _message) in _ERROR_TABLE.items():
    if _code == Errors.NONE:
        continue
    _base: tuple[type, ...] = (
        (KafkaError, TimeoutError) if _code == Errors.REQUEST_TIMED_OUT else (KafkaError,)
    )
    _cls = type(
        _class_name(_code),
        _base,
        {
            "errno": _code,
            "retriable": _retriable,
            "invalid_metadata": _invalid_metadata,
            "message": _message,
            "__doc__": f"Kafka error {_code.name} ({int(_code)}): {_message}",
            "__module__": __name__,
        },
    )
    _BY_CODE[int(_code)] = _cls
    globals()[_cls.__name__] = _cls


def error_class(code: int) -> type[KafkaError]:
    """Return the exception class for a wire error code.

    Args:
        code: an error code received on the wire (may be unknown to this version).

    Returns:
        The generated class (e.g. ``NotLeaderOrFollowerError``); unknown codes map to
        ``UnknownServerError``.
    """
    return _BY_CODE.get(int(code), _BY_CODE[int(Errors.UNKNOWN_SERVER_ERROR)])


def error_code_for(exc: BaseException, default: Errors = Errors.UNKNOWN_SERVER_ERROR) -> Errors:
    """The wire error code of an exception: the one mapping from exceptions to codes that the
    broker, the controller and the clients use (Kafka's ``Errors.forException``).

    Args:
        exc: what was raised while serving a request (or while sending one).
        default: the code of an exception that names none; UNKNOWN_SERVER_ERROR unless the
            caller's API documents another (e.g. COORDINATOR_NOT_AVAILABLE).

    Returns:
        The exception's own code (every ``KafkaError`` class of the table, and any exception
        whose class sets ``errno`` to an ``Errors`` member, such as ``CorruptRecordError`` ->
        CORRUPT_MESSAGE); REQUEST_TIMED_OUT for a ``KafkaTimeoutError``; else ``default``.
        An ``OSError``'s ``errno`` (an int) is not a wire code and is ignored.
    """
    errno = getattr(exc, "errno", None)
    if isinstance(errno, Errors):
        return errno
    if isinstance(exc, KafkaTimeoutError):
        return Errors.REQUEST_TIMED_OUT
    return default


def error_message(exc: BaseException) -> str:
    """The message an error answer carries for ``exc``: its first argument, or its class name."""
    return str(exc.args[0]) if exc.args else type(exc).__name__


def default_message(code: Errors) -> str:
    """Kafka's message for ``code`` (``Errors.message()``): what an answer built from ``code.exception()``
    carries (``ApiError.fromThrowable``), e.g. "This is not the correct coordinator."."""
    return _ERROR_TABLE[code][2]


def api_error_message(exc: BaseException, code: Errors) -> str | None:
    """The message Kafka's ``ApiError.fromThrowable`` keeps for ``exc`` answered with ``code``: what a
    request failed as a whole carries where its ``getErrorResponse`` writes ``apiError.message()``.

    Args:
        exc: the exception the request failed with.
        code: its wire code (``error_code_for(exc)``).

    Returns:
        None for UNKNOWN_SERVER_ERROR (no internal detail leaks) and for a message that is the code's
        default (``default_message``); else the exception's message (``error_message``).
    """
    if code == Errors.UNKNOWN_SERVER_ERROR:
        return None
    message = error_message(exc) if exc.args else None
    return None if message is None or message == default_message(code) else message


def error_name(code: int) -> str:
    """The name of a wire error code (``"NOT_LEADER_OR_FOLLOWER"``), or the number for a code
    this version does not know (Kafka's ``Errors.forCode(code).name()``)."""
    try:
        return Errors(code).name
    except ValueError:
        return str(code)


def raise_for_code(code: int, detail: str | None = None) -> None:
    """Raise the exception for ``code`` unless it is NONE (0).

    Args:
        code: wire error code.
        detail: optional error message from the server, preferred over the generic text.

    Raises:
        KafkaError subclass for the code.
    """
    if code == 0:
        return
    cls = error_class(code)
    raise cls(detail) if detail else cls()


def is_retriable(code: int) -> bool:
    """True when the code is retriable per Kafka's table (unknown codes are not)."""
    return error_class(code).retriable


def all_error_classes() -> dict[str, type[KafkaError]]:
    """Return ``{class_name: class}`` for every generated error class (for re-export)."""
    return {cls.__name__: cls for cls in _BY_CODE.values()}
