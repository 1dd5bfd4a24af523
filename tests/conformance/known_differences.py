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
    ("CreateTopics", "parsed.topics[].topicId"):
        "a CreateTopics answer carries the zero UUID where Kafka gives the new topic's id (v7)",
    ("DescribeConfigs", "parsed.results[].configs[].documentation"):
        "Kafka answers a null documentation when it was not asked for, Kafkette an empty string",
    ("DescribeConfigs", "parsed.results[].configs"):
        "a broker's DescribeConfigs lists a config Kafkette does not use itself (background.threads, "
        "log.cleaner.threads ...) only once it is set; Kafka lists every broker config with its default",
    ("DescribeConfigs", "parsed.results[].configs[].synonyms"):
        "for the same configs Kafkette gives no DEFAULT_CONFIG synonym beside the dynamic one",
    ("DescribeConfigs", "parsed.results[].errorMessage"):
        "Kafka answers an empty error message on success, Kafkette a null one",
    ("Fetch", "parsed.responses[].partitions[].abortedTransactions"):
        "Kafka answers null aborted transactions to read_uncommitted fetches, Kafkette an empty list",
    ("Produce", "parsed.responses[].partitionResponses[].errorMessage"):
        "Kafka sums up the record errors in the partition's error message, Kafkette sends null",
    ("Produce", "parsed.responses[].partitionResponses[].recordErrors[].batchIndexErrorMessage"):
        "Kafkette ends the record error message with a full stop, Kafka does not",
}


def known(api: str, field_path: str) -> str | None:
    """The reason a difference in ``api``'s ``field_path`` (list indexes as ``[]``) is known, or None."""
    return KNOWN_DIFFERENCES.get((api, field_path))
