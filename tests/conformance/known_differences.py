"""Differences that Apache Kafka's own parser found between Kafkette's answers and Kafka's, and
that are still to be fixed in the Kafka listener: one table, each entry an API's field (its path
in Kafka's JSON message schema, list indexes as ``[]``) and what differs.

Unlike ``masks.MASKS`` (fields that legitimately vary) and ``deliberate.DELIBERATE`` (differences
kept on purpose), every entry here is a gap: ``kafka_parser.check`` reports these as known and the
conformance test fails on any other difference, so a new one cannot slip in while these are fixed.
"""

from __future__ import annotations

KNOWN_DIFFERENCES: dict[tuple[str, str], str] = {
    ("ApiVersions", "parsed.supportedFeatures"):
        "Kafkette sends no feature flags (KIP-584): Kafka lists metadata.version 7-30",
    ("ApiVersions", "parsed.finalizedFeatures"):
        "no finalized features (metadata.version, group.version, transaction.version ...)",
    ("ApiVersions", "parsed.finalizedFeaturesEpoch"): "no finalized features, so no epoch either",
    ("CreatePartitions", "parsed.results[].errorMessage"):
        "wording: Kafka says 'Topic already has 2 partition(s).'",
    ("CreateTopics", "parsed.topics[].errorMessage"):
        "wording: Kafka says 'Topic name is invalid: the empty string is not allowed'",
    ("CreateTopics", "parsed.topics[].topicId"):
        "a CreateTopics answer carries the zero UUID where Kafka gives the new topic's id (v7)",
    ("DeleteTopics", "parsed.responses[].errorCode"):
        "DeleteTopics of an unknown topic beside a known one: Kafka answers both names in its order",
    ("DeleteTopics", "parsed.responses[].errorMessage"):
        "wording: Kafka says 'This server does not host this topic-partition.'",
    ("DeleteTopics", "parsed.responses[].name"):
        "the order of the answers of a DeleteTopics naming several topics",
    ("DescribeGroups", "parsed.groups[].members[].memberAssignment"):
        "during a rebalance Kafka lists a member's assignment as an encoded empty ConsumerProtocol "
        "assignment, Kafkette as empty bytes",
    ("Fetch", "parsed.responses[].partitions[].abortedTransactions"):
        "Kafka answers null aborted transactions to read_uncommitted fetches, Kafkette an empty list",
    ("IncrementalAlterConfigs", "parsed.responses[].errorMessage"):
        "wording: Kafka says \"Can't APPEND to key retention.ms because its type is not LIST.\"",
    ("LeaveGroup", "parsed.members[].memberId"):
        "LeaveGroup v4 by group.instance.id: Kafka echoes the request's empty member id",
    ("Produce", "parsed.responses[].partitionResponses[].errorMessage"):
        "Kafka sums up the record errors in the partition's error message, Kafkette sends null",
    ("Produce", "parsed.responses[].partitionResponses[].recordErrors[].batchIndexErrorMessage"):
        "Kafkette ends the record error message with a full stop, Kafka does not",
    ("SyncGroup", "parsed.errorCode"):
        "SyncGroup v5 of an unknown member with null protocol type and name: Kafka checks the "
        "protocol first (INCONSISTENT_GROUP_PROTOCOL), Kafkette the member (UNKNOWN_MEMBER_ID)",
}


def known(api: str, field_path: str) -> str | None:
    """The reason a difference in ``api``'s ``field_path`` (list indexes as ``[]``) is known, or None."""
    return KNOWN_DIFFERENCES.get((api, field_path))
