"""Every error code's default message is the one Apache Kafka 4.3.1 gives it.

The table below was copied from the second argument of each constant of Kafka's
``org.apache.kafka.common.protocol.Errors`` (the message of the exception Kafka builds when no
message is given: ``Errors.message()``, ``ApiError.fromThrowable`` of ``code.exception()``), so an
answer whose error message Kafkette fills with ``default_message`` reads as Kafka's does.
"""

from kafkette.protocol.errors import Errors, default_message, error_class, error_message

KAFKA_DEFAULT_MESSAGES: dict[Errors, str] = {
    Errors.UNKNOWN_SERVER_ERROR: "The server experienced an unexpected error when processing the request.",
    Errors.OFFSET_OUT_OF_RANGE: (
        "The requested offset is not within the range of offsets maintained by the server."
    ),
    Errors.CORRUPT_MESSAGE: (
        "This message has failed its CRC checksum, exceeds the valid size, has a null key for a "
        "compacted topic, or is otherwise corrupt."
    ),
    Errors.UNKNOWN_TOPIC_OR_PARTITION: "This server does not host this topic-partition.",
    Errors.INVALID_FETCH_SIZE: "The requested fetch size is invalid.",
    Errors.LEADER_NOT_AVAILABLE: (
        "There is no leader for this topic-partition as we are in the middle of a leadership election."
    ),
    Errors.NOT_LEADER_OR_FOLLOWER: (
        "For requests intended only for the leader, this error indicates that the broker is not the "
        "current leader. For requests intended for any replica, this error indicates that the broker is "
        "not a replica of the topic partition."
    ),
    Errors.REQUEST_TIMED_OUT: "The request timed out.",
    Errors.BROKER_NOT_AVAILABLE: "The broker is not available.",
    Errors.REPLICA_NOT_AVAILABLE: (
        "The replica is not available for the requested topic-partition. Produce/Fetch requests and "
        "other requests intended only for the leader or follower return NOT_LEADER_OR_FOLLOWER if the "
        "broker is not a replica of the topic-partition."
    ),
    Errors.MESSAGE_TOO_LARGE: (
        "The request included a message larger than the max message size the server will accept."
    ),
    Errors.STALE_CONTROLLER_EPOCH: "The controller moved to another broker.",
    Errors.TOPIC_AUTHORIZATION_FAILED: "Topic authorization failed.",
    Errors.GROUP_AUTHORIZATION_FAILED: "Group authorization failed.",
    Errors.CLUSTER_AUTHORIZATION_FAILED: "Cluster authorization failed.",
    Errors.SECURITY_DISABLED: "Security features are disabled.",
    Errors.RESOURCE_NOT_FOUND: "A request illegally referred to a resource that does not exist.",
    Errors.DUPLICATE_RESOURCE: "A request illegally referred to the same resource twice.",
    Errors.UNACCEPTABLE_CREDENTIAL: "Requested credential would not meet criteria for acceptability.",
    Errors.OFFSET_METADATA_TOO_LARGE: "The metadata field of the offset request was too large.",
    Errors.NETWORK_EXCEPTION: "The server disconnected before a response was received.",
    Errors.COORDINATOR_LOAD_IN_PROGRESS: "The coordinator is loading and hence can't process requests.",
    Errors.COORDINATOR_NOT_AVAILABLE: "The coordinator is not available.",
    Errors.NOT_COORDINATOR: "This is not the correct coordinator.",
    Errors.INVALID_TOPIC_EXCEPTION: "The request attempted to perform an operation on an invalid topic.",
    Errors.RECORD_LIST_TOO_LARGE: (
        "The request included message batch larger than the configured segment size on the server."
    ),
    Errors.NOT_ENOUGH_REPLICAS: "Messages are rejected since there are fewer in-sync replicas than required.",
    Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND: (
        "Messages are written to the log, but to fewer in-sync replicas than required."
    ),
    Errors.INVALID_REQUIRED_ACKS: "Produce request specified an invalid value for required acks.",
    Errors.ILLEGAL_GENERATION: "Specified group generation id is not valid.",
    Errors.INCONSISTENT_GROUP_PROTOCOL: (
        "The group member's supported protocols are incompatible with those of existing members or first "
        "group member tried to join with empty protocol type or empty protocol list."
    ),
    Errors.INVALID_GROUP_ID: "The group id is invalid.",
    Errors.UNKNOWN_MEMBER_ID: "The coordinator is not aware of this member.",
    Errors.INVALID_SESSION_TIMEOUT: (
        "The session timeout is not within the range allowed by the broker (as configured by "
        "group.min.session.timeout.ms and group.max.session.timeout.ms)."
    ),
    Errors.REBALANCE_IN_PROGRESS: "The group is rebalancing, so a rejoin is needed.",
    Errors.INVALID_COMMIT_OFFSET_SIZE: "The committing offset data size is not valid.",
    Errors.INVALID_TIMESTAMP: "The timestamp of the message is out of acceptable range.",
    Errors.UNSUPPORTED_VERSION: "The version of API is not supported.",
    Errors.TOPIC_ALREADY_EXISTS: "Topic with this name already exists.",
    Errors.INVALID_PARTITIONS: "Number of partitions is below 1.",
    Errors.INVALID_REPLICATION_FACTOR: (
        "Replication factor is below 1 or larger than the number of available brokers."
    ),
    Errors.INVALID_REPLICA_ASSIGNMENT: "Replica assignment is invalid.",
    Errors.INVALID_CONFIG: "Configuration is invalid.",
    Errors.NOT_CONTROLLER: "This is not the correct controller for this cluster.",
    Errors.INVALID_REQUEST: (
        "This most likely occurs because of a request being malformed by the client library or the "
        "message was sent to an incompatible broker. See the broker logs for more details."
    ),
    Errors.POLICY_VIOLATION: "Request parameters do not satisfy the configured policy.",
    Errors.OUT_OF_ORDER_SEQUENCE_NUMBER: "The broker received an out of order sequence number.",
    Errors.DUPLICATE_SEQUENCE_NUMBER: "The broker received a duplicate sequence number.",
    Errors.INVALID_PRODUCER_EPOCH: "Producer attempted to produce with an old epoch.",
    Errors.INVALID_TXN_STATE: "The producer attempted a transactional operation in an invalid state.",
    Errors.INVALID_PRODUCER_ID_MAPPING: (
        "The producer attempted to use a producer id which is not currently assigned to its transactional id."
    ),
    Errors.INVALID_TRANSACTION_TIMEOUT: (
        "The transaction timeout is larger than the maximum value allowed by the broker (as configured by "
        "transaction.max.timeout.ms)."
    ),
    Errors.CONCURRENT_TRANSACTIONS: (
        "The producer attempted to update a transaction while another concurrent operation on the same "
        "transaction was ongoing."
    ),
    Errors.TRANSACTION_COORDINATOR_FENCED: (
        "Indicates that the transaction coordinator sending a WriteTxnMarker is no longer the current "
        "coordinator for a given producer."
    ),
    Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED: "Transactional Id authorization failed.",
    Errors.OPERATION_NOT_ATTEMPTED: (
        "The broker did not attempt to execute this operation. This may happen for batched RPCs where some "
        "operations in the batch failed, causing the broker to respond without trying the rest."
    ),
    Errors.PRODUCER_FENCED: (
        "There is a newer producer with the same transactionalId which fences the current one."
    ),
    Errors.TRANSACTIONAL_ID_NOT_FOUND: "The transactionalId could not be found.",
    Errors.TRANSACTION_ABORTABLE: (
        "The server encountered an error with the transaction. The client can abort the transaction to "
        "continue using this transactional ID."
    ),
    Errors.KAFKA_STORAGE_ERROR: "Disk error when trying to access log file on the disk.",
    Errors.UNKNOWN_PRODUCER_ID: (
        "This exception is raised by the broker if it could not locate the producer metadata associated "
        "with the producerId in question. This could happen if, for instance, the producer's records "
        "were deleted because their retention time had elapsed. Once the last records of the producerId "
        "are removed, the producer's metadata is removed from the broker, and future appends by the "
        "producer will return this exception."
    ),
    Errors.NON_EMPTY_GROUP: "The group is not empty.",
    Errors.GROUP_ID_NOT_FOUND: "The group id does not exist.",
    Errors.FETCH_SESSION_ID_NOT_FOUND: "The fetch session ID was not found.",
    Errors.INVALID_FETCH_SESSION_EPOCH: "The fetch session epoch is invalid.",
    Errors.TOPIC_DELETION_DISABLED: "Topic deletion is disabled.",
    Errors.FENCED_LEADER_EPOCH: "The leader epoch in the request is older than the epoch on the broker.",
    Errors.UNKNOWN_LEADER_EPOCH: "The leader epoch in the request is newer than the epoch on the broker.",
    Errors.UNSUPPORTED_COMPRESSION_TYPE: (
        "The requesting client does not support the compression type of given partition."
    ),
    Errors.STALE_BROKER_EPOCH: "Broker epoch has changed.",
    Errors.OFFSET_NOT_AVAILABLE: (
        "The leader high watermark has not caught up from a recent leader election so the offsets cannot "
        "be guaranteed to be monotonically increasing."
    ),
    Errors.MEMBER_ID_REQUIRED: (
        "The group member needs to have a valid member id before actually entering a consumer group."
    ),
    Errors.PREFERRED_LEADER_NOT_AVAILABLE: "The preferred leader was not available.",
    Errors.GROUP_MAX_SIZE_REACHED: "The group has reached its maximum size.",
    Errors.FENCED_INSTANCE_ID: (
        "The broker rejected this static consumer since another consumer with the same group.instance.id "
        "has registered with a different member.id."
    ),
    Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE: "Eligible topic partition leaders are not available.",
    Errors.ELECTION_NOT_NEEDED: "Leader election not needed for topic partition.",
    Errors.GROUP_SUBSCRIBED_TO_TOPIC: (
        "Deleting offsets of a topic is forbidden while the consumer group is actively subscribed to it."
    ),
    Errors.INVALID_RECORD: "This record has failed the validation on broker and hence will be rejected.",
    Errors.UNSTABLE_OFFSET_COMMIT: "There are unstable offsets that need to be cleared.",
    Errors.THROTTLING_QUOTA_EXCEEDED: "The throttling quota has been exceeded.",
    Errors.INCONSISTENT_VOTER_SET: (
        "Indicates that the either the sender or recipient of a voter-only request is not one of the "
        "expected voters."
    ),
    Errors.INVALID_UPDATE_VERSION: "The given update version was invalid.",
    Errors.SNAPSHOT_NOT_FOUND: "Requested snapshot was not found.",
    Errors.POSITION_OUT_OF_RANGE: (
        "Requested position is not greater than or equal to zero, and less than the size of the snapshot."
    ),
    Errors.UNKNOWN_TOPIC_ID: "This server does not host this topic ID.",
    Errors.DUPLICATE_BROKER_REGISTRATION: "This broker ID is already in use.",
    Errors.BROKER_ID_NOT_REGISTERED: "The given broker ID was not registered.",
    Errors.INCONSISTENT_TOPIC_ID: "The log's topic ID did not match the topic ID in the request.",
    Errors.INCONSISTENT_CLUSTER_ID: "The clusterId in the request does not match that found on the server.",
    Errors.FETCH_SESSION_TOPIC_ID_ERROR: "The fetch session encountered inconsistent topic ID usage.",
    Errors.INELIGIBLE_REPLICA: "The new ISR contains at least one ineligible replica.",
    Errors.NEW_LEADER_ELECTED: (
        "The AlterPartition request successfully updated the partition state but the leader has changed."
    ),
    Errors.FENCED_MEMBER_EPOCH: (
        "The member epoch is fenced by the group coordinator. The member must abandon all its partitions "
        "and rejoin."
    ),
    Errors.UNRELEASED_INSTANCE_ID: (
        "The instance ID is still used by another member in the consumer group. That member must leave first."
    ),
    Errors.UNSUPPORTED_ASSIGNOR: "The assignor or its version range is not supported by the consumer group.",
    Errors.STALE_MEMBER_EPOCH: (
        "The member epoch is stale. The member must retry after receiving its updated member epoch via "
        "the ConsumerGroupHeartbeat API."
    ),
    Errors.MISMATCHED_ENDPOINT_TYPE: "The request was sent to an endpoint of the wrong type.",
    Errors.UNSUPPORTED_ENDPOINT_TYPE: "This endpoint type is not supported yet.",
    Errors.INVALID_REGULAR_EXPRESSION: "The regular expression is not valid.",
    Errors.UNSUPPORTED_SASL_MECHANISM: "The broker does not support the requested SASL mechanism.",
    Errors.ILLEGAL_SASL_STATE: "Request is not valid given the current SASL state.",
    Errors.SASL_AUTHENTICATION_FAILED: "SASL Authentication failed.",
}


def test_every_code_has_kafkas_default_message():
    assert set(KAFKA_DEFAULT_MESSAGES) == set(Errors) - {Errors.NONE}
    differing = {
        code.name: (default_message(code), message)
        for code, message in KAFKA_DEFAULT_MESSAGES.items()
        if default_message(code) != message
    }
    assert differing == {}


def test_an_exception_raised_without_a_message_carries_kafkas_default_message():
    for code in (Errors.CORRUPT_MESSAGE, Errors.NOT_LEADER_OR_FOLLOWER, Errors.GROUP_SUBSCRIBED_TO_TOPIC):
        assert error_message(error_class(code)()) == KAFKA_DEFAULT_MESSAGES[code]
