"""Every API's message declarations (``protocol.api_keys.APIS``) against Apache Kafka's own JSON
message specs, read from the pinned kafka-clients jar (``tests/conformance/kafka_specs``).

The Kafka listener's APIs (``KAFKA_APIS``) at every version of its ApiVersions answer; the APIs only
Kafkette's processes speak to each other on msgpack (the KRaft quorum's Vote, BeginQuorumEpoch,
EndQuorumEpoch and FetchSnapshot, the broker lifecycle's BrokerRegistration, BrokerHeartbeat,
AlterPartition and AllocateProducerIds, and the controller-to-broker requests) at every version they
declare.  For each
request and response: field names (Kafka's ``CamelCase`` as ``snake_case``), order, types (structs
and arrays recursively), the versions holding each field, its nullable versions, tag and default, and
the API's flexible versions (``spec_comparison`` says how).  Each difference found must be one of
``KNOWN_DIFFERENCES``, with the reason it is accepted, and each of those must still be found: a new
difference (a declaration changed, a version added to a range) fails the test until it is fixed or
explained here.

The jar comes from ``~/.cache/kafkette/kafka-<version>`` (``tests.peers.kafka_peer.resolve``, which
Maven fills once, as for the conformance and fuzz tests that CI runs): no network once resolved,
and a failure, not a skip, when it cannot be.
"""

from __future__ import annotations

import dataclasses

import pytest

from kafkette.protocol.api_keys import APIS, KAFKA_APIS, ApiSpec
from kafkette.protocol.apis.produce import ProducePartitionResponse
from kafkette.protocol.kafka_codec import api_versions_response
from kafkette.protocol.kafka_schema import INT16, INT32, INT64, STRING, Array, F, KafkaStruct
from tests.conformance.kafka_specs import Field, Spec, message_specs
from tests.peers.kafka_peer import RESOLVE_TIMEOUT_S, PeerUnavailable
from tests.unit.protocol.spec_comparison import compare_api, compare_struct

pytestmark = pytest.mark.timeout(RESOLVE_TIMEOUT_S + 60)  # the first run may resolve the jars (Maven)

ZOOKEEPER_ERA = (
    "Kafka 4.0 removed the ZooKeeper-era requests between the controller and the brokers (KIP-500: "
    "brokers follow the metadata log, BrokerHeartbeat's want_shut_down replaces ControlledShutdown); "
    "Kafkette's controller and brokers still speak them (msgpack only), so their fields are Kafkette's "
    "own and have no Kafka spec to match"
)

ALTER_PARTITION_V0 = (
    "Kafkette's AlterPartition is Kafka's version 0 (partitions named by topic name, the new ISR as broker "
    "ids); Kafka 4 keeps only versions 2-3 (topic ids, leader_recovery_state, new_isr_with_epochs of "
    "KIP-903), which need topic ids in the partition leaders' requests and broker epochs in the ISR"
)

KNOWN_DIFFERENCES = {
    "OffsetCommitRequest.generation_id is Kafka's GenerationIdOrMemberEpoch, named otherwise": (
        "the same int32 (KIP-848 renamed it); the name the group coordinator and the SDK use (a name is "
        "not on the wire)"
    ),
    "OffsetsForLeaderEpochRequest.topics.name is Kafka's Topic, named otherwise": (
        "the same string; the name the broker and its replica fetcher use (a name is not on the wire)"
    ),
    "OffsetsForLeaderEpochResponse.topics.name is Kafka's Topic, named otherwise": (
        "the same string; the name the broker and its replica fetcher use (a name is not on the wire)"
    ),
    "AlterPartition request is offered in versions 0; Kafka's spec has versions 2-3": ALTER_PARTITION_V0,
    "AlterPartition response is offered in versions 0; Kafka's spec has versions 2-3": ALTER_PARTITION_V0,
    "BrokerHeartbeatRequest.offline_log_dirs is not declared (Kafka's OfflineLogDirs: []uuid, versions 1, "
    "tag 0 in versions 1)": (
        "Kafkette's log directories have no ids (KIP-858's directory ids); a broker reports its offline "
        "replicas by partition instead, in its msgpack-only offline_replicas"
    ),
    "LeaderAndIsr request is offered in versions 0; Kafka's spec has versions none": ZOOKEEPER_ERA,
    "LeaderAndIsr response is offered in versions 0; Kafka's spec has versions none": ZOOKEEPER_ERA,
    "StopReplica request is offered in versions 0; Kafka's spec has versions none": ZOOKEEPER_ERA,
    "StopReplica response is offered in versions 0; Kafka's spec has versions none": ZOOKEEPER_ERA,
    "UpdateMetadata request is offered in versions 0; Kafka's spec has versions none": ZOOKEEPER_ERA,
    "UpdateMetadata response is offered in versions 0; Kafka's spec has versions none": ZOOKEEPER_ERA,
    "ControlledShutdown request is offered in versions 0; Kafka's spec has versions none": ZOOKEEPER_ERA,
    "ControlledShutdown response is offered in versions 0; Kafka's spec has versions none": ZOOKEEPER_ERA,
}

OFFERED = [KAFKA_APIS[key.api_key] for key in api_versions_response().api_keys]
INTERNAL = [api for api in APIS if api.key not in KAFKA_APIS]
"""The APIs only Kafkette's own processes speak (msgpack), and those declared for no listener yet
(``NO_LISTENER``: the transaction coordinator's), compared at every version they declare."""
COMPARED = OFFERED + INTERNAL
CASES = [
    pytest.param(api, kind, id=f"{api.name}-{kind}") for api in COMPARED for kind in ("request", "response")
]


@pytest.fixture(scope="module")
def specs() -> dict[str, dict[int, Spec]]:
    """Kafka's request and response specs by API key; a failure when the jar cannot be resolved."""
    try:
        return {kind: message_specs(kind) for kind in ("request", "response")}
    except PeerUnavailable as exc:
        pytest.fail(f"Kafka's message specs need the pinned kafka-clients jar: {exc}")


def _owned(api: ApiSpec, kind: str, sentence: str) -> bool:
    """Whether a difference's sentence is about this API's request or response."""
    message = api.request if kind == "request" else api.response
    return sentence.startswith((f"{message.__name__}.", f"{message.__name__} ", f"{api.name} {kind} "))


@pytest.mark.parametrize(("api", "kind"), CASES)
def test_the_declaration_of_each_version_is_kafkas_spec(specs, api, kind):
    assert api.key in specs[kind], f"Kafka has no {kind} spec of API key {api.key}"
    found = compare_api(api, kind, specs[kind][api.key])
    known = {s for s in KNOWN_DIFFERENCES if _owned(api, kind, s)}
    new = [s for s in found if s not in known]
    gone = sorted(known - set(found))
    assert not new, (
        "declarations that differ from Kafka's spec (fix them or explain them in "
        "KNOWN_DIFFERENCES):\n" + "\n".join(new)
    )
    assert not gone, "KNOWN_DIFFERENCES no longer found (remove them):\n" + "\n".join(gone)


def test_every_known_difference_is_about_a_compared_api():
    orphans = [
        s
        for s in KNOWN_DIFFERENCES
        if not any(_owned(api, kind, s) for api in COMPARED for kind in ("request", "response"))
    ]
    assert not orphans


def test_every_api_the_listener_declares_is_offered_in_api_versions():
    assert sorted(api.key for api in OFFERED) == sorted(KAFKA_APIS)


def test_every_declared_api_is_compared():
    assert sorted(api.key for api in COMPARED) == sorted(api.key for api in APIS)


def _partition_response(specs: dict[str, dict[int, Spec]]) -> tuple[Field, ...]:
    """Kafka's fields of Produce's PartitionProduceResponse."""
    (responses,) = [f for f in specs["response"][0].fields if f.name == "Responses"]
    (partitions,) = [f for f in responses.fields if f.name == "PartitionResponses"]
    return partitions.fields


def _planted(change: str) -> tuple[F, ...]:
    fields = list(ProducePartitionResponse.kafka_fields())
    if change == "type":
        fields[0] = F("index", INT64)
    elif change == "versions":
        fields[4] = F("log_start_offset", INT64, "6+", default=-1)
    elif change == "nullable":
        fields[6] = F("error_message", STRING, "8+", default=None)
    elif change == "tag":
        fields[6] = F("error_message", STRING, "8+", nullable="8+", default=None, tag=0)
    elif change == "default":
        fields[3] = F("log_append_time_ms", INT64, default=0)
    elif change == "order":
        fields[0], fields[1] = fields[1], fields[0]
    elif change == "missing":
        del fields[5]
    elif change == "extra":
        fields.append(F("leader_epoch", INT32, "8+"))
    elif change == "array":
        fields[5] = F("record_errors", Array(INT16), "8+")
    return tuple(fields)


PLANTED = {
    "type": "index is int64; Kafka's is int32",
    "versions": "log_start_offset is in versions 6-9; Kafka's in 5-9",
    "nullable": "error_message is nullable in versions none; Kafka's in 8-9",
    "tag": "error_message is tagged 0 in versions 8-9; Kafka's tagged None in versions none",
    "default": "log_append_time_ms defaults to 0; Kafka's to -1",
    "order": "partition_responses has its fields in the order error_code, index, base_offset",
    "missing": "record_errors is not declared (Kafka's RecordErrors: []struct, versions 8-9)",
    "extra": "leader_epoch is declared in versions 8-9; Kafka's spec has no such field",
    "array": "record_errors is []int16; Kafka's is []struct",
}


@pytest.mark.parametrize("change", sorted(PLANTED))
def test_a_planted_change_to_a_declaration_is_a_difference(specs, change):
    planted = type("PartitionProduceResponse", (KafkaStruct,), {"FIELDS": _planted(change)})
    path = "ProduceResponse.responses.partition_responses"
    assert (
        compare_struct(ProducePartitionResponse, _partition_response(specs), frozenset(range(3, 10)), path)
        == []
    )
    found = compare_struct(planted, _partition_response(specs), frozenset(range(3, 10)), path)
    assert any(PLANTED[change] in s for s in found), found


def test_a_planted_flexible_version_and_an_invalid_version_are_differences(specs):
    api = KAFKA_APIS[0]
    assert compare_api(api, "request", specs["request"][0]) == []
    moved = dataclasses.replace(api, max_version=14, flexible_from=8)
    found = compare_api(moved, "request", specs["request"][0])
    assert "Produce request is flexible in versions 8-14; Kafka's in 9-14" in found
    assert "Produce request is offered in versions 3-14; Kafka's spec has versions 3-13" in found
