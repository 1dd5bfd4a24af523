"""Differences from Apache Kafka that Kafkette keeps on purpose: ``{scenario id: reason}``.

Every entry is also listed in README.md ("Kafkette and Apache Kafka, side by side"); the
conformance test fails when a listed scenario comes out identical (the entry is stale) or an
unlisted one differs.
"""

_CLUSTER_DEFAULT_MIN_ISR = (
    "Kafka 4.x formats storage with a cluster-wide dynamic default min.insync.replicas=1 (written for "
    "eligible leader replicas, KIP-966), so the same value 1 shows as DYNAMIC_DEFAULT_BROKER_CONFIG; "
    "Kafkette has neither ELR nor cluster-wide dynamic broker configs and shows it as DEFAULT_CONFIG"
)

DELIBERATE: dict[str, str] = {
    "configs/topic-default/min.insync.replicas": _CLUSTER_DEFAULT_MIN_ISR,
    "configs/topic-override/min.insync.replicas": _CLUSTER_DEFAULT_MIN_ISR,
    "configs/broker/min.insync.replicas": _CLUSTER_DEFAULT_MIN_ISR,
    "configs/alter/min-isr-zero": _CLUSTER_DEFAULT_MIN_ISR,
    "configs/describe/broker-default-resource": (
        "Kafkette has no cluster-wide dynamic broker configs (the broker resource with an empty name): it "
        "answers INVALID_REQUEST where Kafka lists its one default, min.insync.replicas"
    ),
    "configs/alter/unknown-operation": (
        "Kafka answers an IncrementalAlterConfigs operation it does not know with UNKNOWN_SERVER_ERROR (a "
        "NullPointerException on the broker); Kafkette answers INVALID_REQUEST naming the operation"
    ),
    "produce/unknown-codec": (
        "A batch whose attributes name codec 6 (none exists): Kafka answers UNKNOWN_SERVER_ERROR (an "
        "exception it does not handle); Kafkette answers UNSUPPORTED_COMPRESSION_TYPE, which names the "
        "problem (non-retriable either way)"
    ),
    "topics/create/config-segment-bytes-below-1mib": (
        "segment.bytes keeps Kafka 3.x's lower bound (14 bytes) instead of 4.0's 1 MiB (KIP-1030): "
        "Kafkette's tests, demos and users roll small segments to watch retention and compaction work "
        "(Kafka keeps internal.segment.bytes for its own tests)"
    ),
}
