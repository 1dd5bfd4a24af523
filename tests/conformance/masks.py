"""The fields of a Kafka answer that legitimately differ between Apache Kafka and Kafkette for the
same request, in one table: the field-by-field comparison of ``kafka_parser`` masks these and
nothing else.

Paths are in the names of Kafka's JSON message schemas, as the generated ``*JsonConverter``
classes write them (``brokers[].nodeId``: the field ``nodeId`` of every element of ``brokers``);
``batches[]...`` are the record batches of a Fetch answer as ``ParseAnswers.java`` lists them.
"""

from __future__ import annotations

from typing import Any, NamedTuple


class Mask(NamedTuple):
    """One masked field.

    Attributes:
        api: the API's name (as ``ApiKeys`` names it, ``Metadata``), or ``*`` for every API.
        path: the field's path in the answer (``[]`` for every element of a list).
        why: why the two clusters may differ there.
        keep_unset: an unset value (null, -1, 0, "", the zero UUID) is kept, not masked, so that
            an id missing where Kafka sets one still shows (ids only).
        where: for a list element path (ending in ``[]``): the elements whose fields have these
            values are left out of the comparison (the rest is compared).
        sort_by: for a list element path: the list is compared sorted by this field (or these
            fields, in turn): its order is not part of the protocol.
        pattern: only values matching this regular expression (in full) are masked.
    """

    api: str
    path: str
    why: str
    keep_unset: bool = False
    where: dict[str, Any] | None = None
    sort_by: str | tuple[str, ...] | None = None
    pattern: str | None = None


PORT = "each broker's listener port is a free port chosen by the OS"
PLACEMENT = "leaders and replicas are placed by each cluster's own assignment"
EPOCH = "leader epochs count elections, which differ by timing"
WALL_CLOCK = "a wall-clock time"
BY_COORDINATOR = (
    "a scenario names these groups by the broker coordinating them (the first of delete-mixed-0, "
    "-1, ... placed apart from another group), which is each cluster's placement"
)
DELIBERATE = "a deliberate difference (deliberate.py)"
MIN_ISR = (
    f"{DELIBERATE}: Kafka's storage format writes min.insync.replicas as a cluster-wide dynamic default "
    "(configs/topic-default/min.insync.replicas); compared there, not in every answer listing it"
)
MEMBER_ID = "member ids are made by the coordinator with a random UUID"
REQUEST_TEXT = (
    "Kafka's refusal of a cluster operation quotes the request's Java toString (processor, connection "
    'id, session, buffer); Kafkette\'s says "Request needs ... permission."'
)
UNORDERED = "Kafka answers these from hash maps, in no order a client may rely on; compared sorted"
PRODUCER_IDS = "producer ids are handed out by each cluster's controller, in blocks of its own"

MASKS: tuple[Mask, ...] = (
    Mask("*", "throttleTimeMs", "quota throttling: a time, not a protocol choice"),
    Mask("*", "clusterId", "each cluster's id is random, made at format time", keep_unset=True),
    Mask(
        "*", "controllerId", "which node is the active controller is an election's outcome", keep_unset=True
    ),
    Mask("*", "topics[].topicId", "topic ids are random UUIDs made at creation", keep_unset=True),
    Mask("*", "responses[].topicId", "topic ids are random UUIDs made at creation", keep_unset=True),
    Mask("*", "brokers[].port", PORT),
    Mask("*", "topics[].partitions[].leaderId", PLACEMENT, keep_unset=True),
    Mask("*", "topics[].partitions[].replicaNodes", PLACEMENT, keep_unset=True),
    Mask("*", "topics[].partitions[].isrNodes", PLACEMENT, keep_unset=True),
    Mask("*", "topics[].partitions[].leaderEpoch", EPOCH),
    Mask(
        "*",
        "responses[].partitions[].recordsSizeInBytes",
        "record batches carry timestamps as varints; their contents are compared batch by batch (batches[])",
    ),
    Mask(
        "Metadata",
        "topics[]",
        "Kafka creates __consumer_offsets at the first FindCoordinator, Kafkette when the cluster starts",
        where={"name": "__consumer_offsets"},
    ),
    Mask("Metadata", "topics[]", "Kafka lists all topics in its metadata image's hash order", sort_by="name"),
    Mask(
        "Metadata",
        "topics[]",
        f"{DELIBERATE} (topics/create/config-segment-bytes-below-1mib: Kafkette creates it)",
        where={"name": "cfg-segment-bytes-below-1mib"},
    ),
    Mask(
        "DescribeTopicPartitions",
        "topics[]",
        f"{DELIBERATE} (topics/create/config-segment-bytes-below-1mib: Kafkette creates it)",
        where={"name": "cfg-segment-bytes-below-1mib"},
    ),
    Mask(
        "DescribeTopicPartitions",
        "topics[]",
        "Kafka creates __consumer_offsets at the first FindCoordinator, Kafkette when the cluster starts",
        where={"name": "__consumer_offsets"},
    ),
    Mask("CreateTopics", "topics[].configs[]", MIN_ISR, where={"name": "min.insync.replicas"}),
    Mask("DescribeConfigs", "results[].configs[]", MIN_ISR, where={"name": "min.insync.replicas"}),
    Mask(
        "ApiVersions",
        "apiKeys",
        "the listener offers a subset of Kafka's APIs (the coverage table lists them)",
    ),
    Mask(
        "ApiVersions",
        "finalizedFeaturesEpoch",
        "the metadata offset at which the features were finalized",
        keep_unset=True,
    ),
    Mask(
        "DescribeLogDirs",
        "results[].logDir",
        "each cluster's data directory is a temporary directory of its own",
    ),
    Mask(
        "DescribeLogDirs",
        "results[].totalBytes",
        "the size of the disk the data directory is on",
        keep_unset=True,
    ),
    Mask(
        "DescribeLogDirs",
        "results[].usableBytes",
        "the free space of that disk, which changes by the second",
        keep_unset=True,
    ),
    Mask(
        "Fetch",
        "sessionId",
        "fetch session ids are random (Kafka's FetchSessionCache.newSessionId)",
        keep_unset=True,
    ),
    Mask("Fetch", "responses[].partitions[].currentLeader.leaderId", PLACEMENT, keep_unset=True),
    Mask("Fetch", "responses[].partitions[].currentLeader.leaderEpoch", EPOCH),
    Mask("Fetch", "nodeEndpoints[].nodeId", PLACEMENT, keep_unset=True),
    Mask("Fetch", "nodeEndpoints[].port", PORT, keep_unset=True),
    Mask("FindCoordinator", "nodeId", PLACEMENT, keep_unset=True),
    Mask("FindCoordinator", "port", PORT, keep_unset=True),
    Mask("FindCoordinator", "coordinators[].nodeId", PLACEMENT, keep_unset=True),
    Mask("FindCoordinator", "coordinators[].port", PORT, keep_unset=True),
    Mask(
        "ListOffsets",
        "topics[].partitions[].timestamp",
        "a record's timestamp: the wall clock when produced",
        keep_unset=True,
    ),
    Mask("Produce", "responses[].partitionResponses[].logAppendTimeMs", WALL_CLOCK, keep_unset=True),
    Mask("Produce", "responses[].partitionResponses[].currentLeader.leaderId", PLACEMENT, keep_unset=True),
    Mask("Produce", "responses[].partitionResponses[].currentLeader.leaderEpoch", EPOCH, keep_unset=True),
    Mask("Produce", "nodeEndpoints[].nodeId", PLACEMENT),
    Mask("Produce", "nodeEndpoints[].port", PORT),
    Mask(
        "Produce",
        "responses[].partitionResponses[].recordErrors[].batchIndexErrorMessage",
        f"{WALL_CLOCK}: a record's timestamp and the bounds around the broker's clock (only this wording is "
        "masked)",
        pattern=r"Timestamp -?[0-9]+ of message with offset [0-9]+ is out of range\. "
        r"The timestamp should be within \[-?[0-9]+, -?[0-9]+\]",
    ),
    Mask("*", "memberId", MEMBER_ID, keep_unset=True),
    Mask("*", "leader", MEMBER_ID, keep_unset=True),
    Mask("*", "members[].memberId", MEMBER_ID, keep_unset=True),
    Mask("*", "groups[].members[].memberId", MEMBER_ID, keep_unset=True),
    Mask(
        "DescribeGroups",
        "groups[].members[]",
        UNORDERED,
        sort_by=("groupInstanceId", "memberMetadata", "memberAssignment"),
    ),
    Mask("JoinGroup", "members[]", UNORDERED, sort_by=("groupInstanceId", "metadata")),
    Mask("DescribeGroups", "groups[]", UNORDERED, sort_by="groupId"),
    Mask(
        "JoinGroup",
        "members",
        "only the leader gets the member list, and the leader is the member that joined "
        "first: a race between a scenario's member threads (the scenarios compare the count)",
    ),
    # v6's answers for topics given by id have no name: their error and message order them (ids are random)
    Mask("DeleteTopics", "responses[]", UNORDERED, sort_by=("name", "errorCode", "errorMessage")),
    Mask("DeleteGroups", "results[]", UNORDERED, sort_by="groupId"),
    *(
        Mask(api, path, REQUEST_TEXT, pattern=r"Request (Request\(.*\) )?needs [A-Z_]+ permission\.")
        for api, path in (
            ("DescribeAcls", "errorMessage"),
            ("CreateAcls", "results[].errorMessage"),
            ("DeleteAcls", "filterResults[].errorMessage"),
            ("ElectLeaders", "replicaElectionResults[].partitionResult[].errorMessage"),
            ("AlterUserScramCredentials", "results[].errorMessage"),
        )
    ),
    Mask(
        "DescribeTopicPartitions",
        "topics[]",
        "Kafka adds the topics refused TOPIC_AUTHORIZATION_FAILED from a HashSet, after the described ones "
        "(sorted by name); compared sorted by error, then name",
        sort_by=("errorCode", "name"),
    ),
    Mask("DescribeAcls", "resources[]", UNORDERED, sort_by=("resourceType", "resourceName", "patternType")),
    Mask(
        "DescribeAcls",
        "resources[].acls[]",
        UNORDERED,
        sort_by=("principal", "host", "operation", "permissionType"),
    ),
    Mask(
        "DeleteAcls",
        "filterResults[].matchingAcls[]",
        "Kafka's controller deletes the matching ACLs in its hash map's order (by random ACL id); "
        "compared sorted",
        sort_by=(
            "resourceType",
            "resourceName",
            "patternType",
            "principal",
            "host",
            "operation",
            "permissionType",
        ),
    ),
    Mask(
        "ListGroups",
        "groups",
        "each broker lists the groups it coordinates: which those are is each cluster's "
        "placement of __consumer_offsets partitions",
    ),
    Mask("DeleteGroups", "results[].groupId", BY_COORDINATOR, pattern=r"delete-mixed-\d+"),
    Mask("OffsetFetch", "groups[].groupId", BY_COORDINATOR, pattern=r"fetch-batch-\d+"),
    Mask(
        "OffsetFetch",
        "groups[].topics[].topicId",
        "topic ids are random UUIDs made at creation",
        keep_unset=True,
    ),
    Mask(
        "ConsumerGroupHeartbeat",
        "assignment.topicPartitions[].topicId",
        "topic ids are random UUIDs made at creation",
        keep_unset=True,
    ),
    Mask(
        "ConsumerGroupDescribe",
        "groups[].members[].assignment.topicPartitions[].topicId",
        "topic ids are random UUIDs made at creation",
        keep_unset=True,
    ),
    Mask(
        "ConsumerGroupDescribe",
        "groups[].members[].targetAssignment.topicPartitions[].topicId",
        "topic ids are random UUIDs made at creation",
        keep_unset=True,
    ),
    Mask("ConsumerGroupDescribe", "groups[].members[]", UNORDERED, sort_by="memberId"),
    Mask(
        "ConsumerGroupDescribe",
        "groups[].members[].assignment.topicPartitions[]",
        UNORDERED,
        sort_by=("topicName", "partitions"),
    ),
    Mask(
        "ConsumerGroupDescribe",
        "groups[].members[].targetAssignment.topicPartitions[]",
        UNORDERED,
        sort_by=("topicName", "partitions"),
    ),
    Mask(
        "ConsumerGroupHeartbeat",
        "assignment.topicPartitions[]",
        f"{UNORDERED} (by partitions: the topic ids are random)",
        sort_by="partitions",
    ),
    Mask(
        "ConsumerGroupHeartbeat",
        "errorMessage",
        f"{DELIBERATE}: an invalid SubscribedTopicRegex's message ends with the regex library's description "
        "of the error, RE2/J's in Kafka, Google RE2's in Kafkette (the rest is Kafka's)",
        pattern=r"SubscribedTopicRegex `.*` is not a valid regular expression: .*\.",
    ),
    Mask("ConsumerGroupDescribe", "groups[]", UNORDERED, sort_by="groupId"),
    Mask(
        "DescribeGroups",
        "groups[].groupId",
        BY_COORDINATOR,
        pattern=r"(delete-mixed|describe-batch-none|fetch-batch)-\d+",
    ),
    Mask("DescribeConfigs", "results[].configs[]", UNORDERED, sort_by="name"),
    Mask("*", "topics[].partitions[]", UNORDERED, sort_by="partitionIndex"),
    Mask("*", "responses[].partitions[]", UNORDERED, sort_by="partitionIndex"),
    Mask("DescribeLogDirs", "results[].topics[]", UNORDERED, sort_by="name"),
    Mask("DescribeLogDirs", "results[].topics[].partitions[]", UNORDERED, sort_by="partitionIndex"),
    Mask("*", "batches[].topic_id", "topic ids are random UUIDs made at creation", keep_unset=True),
    Mask("*", "batches[].max_timestamp", WALL_CLOCK),
    Mask("*", "batches[].records[].timestamp", WALL_CLOCK),
    Mask(
        "DescribeProducers",
        "topics[].partitions[].activeProducers[].producerId",
        PRODUCER_IDS,
        keep_unset=True,
    ),
    Mask("InitProducerId", "producerId", PRODUCER_IDS, keep_unset=True),
    Mask("*", "batches[].producer_id", PRODUCER_IDS, keep_unset=True),
    Mask("Fetch", "responses[].partitions[].abortedTransactions[].producerId", PRODUCER_IDS, keep_unset=True),
    Mask("DescribeTransactions", "transactionStates[].producerId", PRODUCER_IDS, keep_unset=True),
    Mask("DescribeTransactions", "transactionStates[].transactionStartTimeMs", WALL_CLOCK, keep_unset=True),
    Mask(
        "ListTransactions",
        "transactionStates",
        "a node lists the transactional ids it coordinates, and which node coordinates an id is each "
        "cluster's placement of __transaction_state (the txn scenarios compare their own ids' states)",
    ),
    Mask("AddPartitionsToTxn", "resultsByTopicV3AndBelow[]", UNORDERED, sort_by="name"),
    Mask(
        "AddPartitionsToTxn",
        "resultsByTopicV3AndBelow[].resultsByPartition[]",
        UNORDERED,
        sort_by="partitionIndex",
    ),
    Mask(
        "DescribeProducers",
        "topics[].partitions[].activeProducers[].lastTimestamp",
        WALL_CLOCK,
        keep_unset=True,
    ),
    Mask(
        "DescribeQuorum",
        "topics[].partitions[].highWatermark",
        "the metadata log's length: each cluster's own records (registrations, heartbeats' fencing, topics)",
    ),
    Mask("DescribeQuorum", "topics[].partitions[].currentVoters[]", UNORDERED, sort_by="replicaId"),
    Mask(
        "DescribeQuorum",
        "topics[].partitions[].currentVoters[].logEndOffset",
        "each voter's metadata log end offset (see highWatermark)",
    ),
    Mask("DescribeQuorum", "topics[].partitions[].currentVoters[].lastFetchTimestamp", WALL_CLOCK),
    Mask("DescribeQuorum", "topics[].partitions[].currentVoters[].lastCaughtUpTimestamp", WALL_CLOCK),
    Mask(
        "DescribeQuorum",
        "nodes[].listeners[].name",
        "the voters' listener: Kafka's peer has a CONTROLLER listener, Kafkette's local cluster's voters "
        "share the brokers' PLAINTEXT listener (its controller.listener.names is unset)",
    ),
    Mask("DescribeQuorum", "nodes[].listeners[].port", PORT),
)
