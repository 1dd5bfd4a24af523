"""Differences from Apache Kafka that Kafkette keeps on purpose: ``{scenario id: reason}``.

Every entry is also listed in README.md ("Kafkette and Apache Kafka, side by side"); the
conformance test fails when a listed scenario comes out identical (the entry is stale) or an
unlisted one differs.
"""

DELIBERATE: dict[str, str] = {}
