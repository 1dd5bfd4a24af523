"""Differences the byte-level fuzz (``fuzz``) found between Kafkette's Kafka listener and Apache
Kafka 4.3.1 that are still to fix (or kept): one table, each entry an API, where it differs and
which error codes make it up, with the reason.

``where`` is an error code's path in Kafka's JSON message schema (``responses[].errorCode``, list
indexes as ``[]``; ``errorCode`` at the top level) or ``connection/<mutation>`` (one broker
answered, closed the connection or waited where the other did another).  ``kafka`` and
``kafkette`` are the codes each side gives where the other does not (Kafka's extra codes at that
path must all be in ``kafka``, Kafkette's in ``kafkette``; None: any).  The fuzz reports the
differences an entry covers apart and fails only on the others, so a new one cannot slip in.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

TIMED_OUT = frozenset({7})
_CONTROLLER_DEADLINE = (
    "a controller request with TimeoutMs <= 0: Kafka's QuorumController finds its deadline already past and "
    "answers REQUEST_TIMED_OUT; Kafkette carries the request out (or refuses it for what it asks)"
)
_ISOLATION_LEVEL = (
    "an IsolationLevel other than 0 and 1 in a Fetch: Kafka's IsolationLevel.forId fails only once a "
    "partition is read (UNKNOWN_SERVER_ERROR), after its other checks; Kafkette reads it as READ_UNCOMMITTED"
)


@dataclass(frozen=True)
class FuzzDifference:
    """One listed difference (see the module's docstring)."""

    api: str
    where: str
    kafka: frozenset[int] | None
    kafkette: frozenset[int] | None
    reason: str

    def covers(self, api: str, where: str, kafka: Iterable[int], kafkette: Iterable[int]) -> bool:
        """Whether a difference of ``api`` at ``where``, with these extra codes on each side, is this one."""
        return (
            (api, where) == (self.api, self.where)
            and (self.kafka is None or set(kafka) <= self.kafka)
            and (self.kafkette is None or set(kafkette) <= self.kafkette)
        )


def _f(codes: Iterable[int] | None) -> frozenset[int] | None:
    return None if codes is None else frozenset(codes)


FUZZ_DIFFERENCES: tuple[FuzzDifference, ...] = tuple(
    FuzzDifference(a, w, _f(k), _f(o), r)
    for a, w, k, o, r in (
        ("CreateTopics", "topics[].errorCode", TIMED_OUT, None, _CONTROLLER_DEADLINE),
        ("DeleteTopics", "responses[].errorCode", TIMED_OUT, None, _CONTROLLER_DEADLINE),
        ("CreatePartitions", "results[].errorCode", TIMED_OUT, None, _CONTROLLER_DEADLINE),
        ("ElectLeaders", "errorCode", TIMED_OUT, None, _CONTROLLER_DEADLINE),
        (
            "ElectLeaders",
            "replicaElectionResults[].partitionResult[].errorCode",
            TIMED_OUT,
            (),
            _CONTROLLER_DEADLINE,
        ),
        (
            "InitProducerId",
            "errorCode",
            None,
            {42},
            "Kafkette has no transactions: an InitProducerId naming a transactional id is INVALID_REQUEST",
        ),
        (
            "InitProducerId",
            "errorCode",
            {42},
            {0},
            "an InitProducerId (v3+) with a producer id but no epoch, or an epoch but no id (KIP-360): "
            "Kafka answers INVALID_REQUEST, Kafkette gives a new producer id",
        ),
        ("Fetch", "responses[].partitions[].errorCode", {-1}, None, _ISOLATION_LEVEL),
        ("Fetch", "errorCode", {-1}, {0}, _ISOLATION_LEVEL),
        (
            "ListOffsets",
            "topics[].partitions[].errorCode",
            {42},
            {3},
            "a partition of an unknown topic asked twice in one ListOffsets: Kafka answers INVALID_REQUEST "
            "for the duplicate (its check comes first), Kafkette UNKNOWN_TOPIC_OR_PARTITION",
        ),
        (
            "OffsetCommit",
            "topics[].partitions[].errorCode",
            {3},
            None,
            "an OffsetCommit naming a partition of an unknown topic: Kafka answers it "
            "UNKNOWN_TOPIC_OR_PARTITION before it looks at the group, member and generation; Kafkette "
            "answers the group's error for every partition",
        ),
        (
            "OffsetFetch",
            "topics[].partitions[].errorCode",
            None,
            (),
            "an OffsetFetch (v1-v7) naming a partition twice: Kafka answers it twice, Kafkette once",
        ),
        (
            "OffsetFetch",
            "groups[].topics[].partitions[].errorCode",
            None,
            (),
            "an OffsetFetch (v8-v10) naming a group's partition twice: Kafka answers it twice, Kafkette once",
        ),
        (
            "SyncGroup",
            "errorCode",
            {23},
            {24, 25},
            "a SyncGroup v5 with a protocol type or name the group does not have: Kafka checks the protocol "
            "first (INCONSISTENT_GROUP_PROTOCOL), Kafkette the group id and member (INVALID_GROUP_ID, "
            "UNKNOWN_MEMBER_ID)",
        ),
        (
            "Produce",
            "connection/none",
            None,
            None,
            "a Produce with a null record set for a partition: Kafka leaves the request unanswered (no "
            "answer within fuzz.ANSWER_WAIT_S), Kafkette answers it",
        ),
        (
            "Produce",
            "responses[].partitionResponses[].errorCode",
            {3},
            {42},
            "a Produce to an unknown topic whose record sets are null or not record batches: Kafka answers "
            "UNKNOWN_TOPIC_OR_PARTITION (it looks for the partition first), Kafkette INVALID_REQUEST",
        ),
        (
            "Metadata",
            "topics[].errorCode",
            (),
            None,
            "a topic named twice in one Metadata request: Kafka answers it once, Kafkette once per name",
        ),
        (
            "Metadata",
            "topics[].partitions[].errorCode",
            (),
            None,
            "a topic named twice in one Metadata request: Kafka answers it once, Kafkette once per name",
        ),
        (
            "Metadata",
            "topics[].errorCode",
            {100},
            (),
            "Metadata v10+ naming a topic by id only (KIP-516): Kafka answers UNKNOWN_TOPIC_ID for an id it "
            "lacks, Kafkette leaves the topic out",
        ),
        (
            "FindCoordinator",
            "errorCode",
            {0},
            {42},
            "Kafkette has no transactions: a FindCoordinator for a transactional id (key type 1) is "
            "INVALID_REQUEST",
        ),
        (
            "DescribeConfigs",
            "results[].errorCode",
            {42},
            {0},
            "a DescribeConfigs with a byte flipped that Kafka answers INVALID_REQUEST for a resource and "
            "Kafkette answers (not yet diagnosed)",
        ),
        (
            "AlterConfigs",
            "responses[].errorCode",
            {42},
            {3},
            "an AlterConfigs of an unknown topic with a null config value: Kafka answers INVALID_REQUEST (a "
            "null value) before it looks for the topic, Kafkette UNKNOWN_TOPIC_OR_PARTITION",
        ),
        (
            "IncrementalAlterConfigs",
            "responses[].errorCode",
            {0},
            {42},
            "BROKER_LOGGER resources (KIP-412, the brokers' log4j levels) are not supported: INVALID_REQUEST",
        ),
    )
)


def listed(
    api: str, where: str, kafka: Iterable[int] = (), kafkette: Iterable[int] = ()
) -> FuzzDifference | None:
    """The entry covering a difference of ``api`` at ``where`` with these extra codes on each
    side (Kafka's, Kafkette's), or None."""
    kafka, kafkette = list(kafka), list(kafkette)
    return next((d for d in FUZZ_DIFFERENCES if d.covers(api, where, kafka, kafkette)), None)
