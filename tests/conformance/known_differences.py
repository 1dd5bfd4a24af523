"""Differences that Apache Kafka's own parser found between Kafkette's answers and Kafka's, and
that are still to be fixed in the Kafka listener: one table, each entry an API's field (its path
in Kafka's JSON message schema, list indexes as ``[]``) and what differs.

Unlike ``masks.MASKS`` (fields that legitimately vary) and ``deliberate.DELIBERATE`` (differences
kept on purpose), every entry here is a gap: ``kafka_parser.check`` reports these as known and the
conformance test fails on any other difference, so a new one cannot slip in while these are fixed.
"""

from __future__ import annotations

KNOWN_DIFFERENCES: dict[tuple[str, str], str] = {
    (
        "ApiVersions",
        "parsed.supportedFeatures[].maxVersion",
    ): "feature levels Kafkette does not implement (broker.broker_features): it supports metadata.version 7 "
    "(3.3-IV3) only, Kafka 7-30; and transaction.version, kraft.version ... at level 0 only",
    (
        "ApiVersions",
        "parsed.finalizedFeatures",
    ): "the same: Kafkette finalizes metadata.version 7 and group.version 1 (KIP-848); Kafka "
    "metadata.version 30, group.version 1, transaction.version 2 (KIP-890), "
    "eligible.leader.replicas.version, share.version, streams.version 1",
}


def known(api: str, field_path: str) -> str | None:
    """The reason a difference in ``api``'s ``field_path`` (list indexes as ``[]``) is known, or None."""
    return KNOWN_DIFFERENCES.get((api, field_path))
