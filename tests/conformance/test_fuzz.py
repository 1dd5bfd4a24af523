"""The byte-level fuzz of the Kafka listener beside Apache Kafka 4.3.1 (``fuzz``) in the test run:
a bounded number of Hypothesis-generated requests of every API and version the listener offers,
drawn from Kafka's own request specs, sent to a 3-node Apache Kafka and a 3-broker Kafkette of
their own (one ``__consumer_offsets`` partition each, fuzz-only topics and groups).  Every answer
must parse with Kafka's classes and write back byte-identically, neither broker may stop serving,
and the error codes and the connection handling must equal Kafka's outside
``fuzz_differences.FUZZ_DIFFERENCES``.

The seed is ``SEED`` (so that every run sends the same requests) unless ``KAFKETTE_FUZZ_SEED``
sets it (``random`` for a new one); it is printed first and in every failure, with the command
that replays the run.  ``KAFKETTE_FUZZ_EXAMPLES`` sets the examples
per API version (default ``EXAMPLES``).
"""

from __future__ import annotations

import os
import random
from collections import Counter

import pytest

from kafkette.protocol.api_keys import KAFKA_APIS
from kafkette.protocol.apis.api_versions import ApiVersionsRequest
from kafkette.protocol.apis.metadata import MetadataRequest, MetadataRequestTopic
from tests.conformance.fuzz import FUZZ_BROKER_CONFIGS, Case, FuzzReport, _difference, fuzz, generate
from tests.conformance.fuzz_differences import FuzzDifference, listed
from tests.conformance.kafka_parser import ParserUnavailable
from tests.conformance.kafka_specs import encode_request, request_specs
from tests.conformance.run import clusters
from tests.peers.kafka_peer import PeerUnavailable

EXAMPLES = 2
SEED = 20261127


@pytest.fixture(scope="module")
def fuzz_run(tmp_path_factory: pytest.TempPathFactory) -> FuzzReport:
    """One fuzz run on clusters of its own; its report (printed, seed first)."""
    chosen = os.environ.get("KAFKETTE_FUZZ_SEED") or str(SEED)
    seed = random.SystemRandom().randrange(1 << 31) if chosen == "random" else int(chosen)
    examples = int(os.environ.get("KAFKETTE_FUZZ_EXAMPLES") or EXAMPLES)
    print(f"fuzz seed {seed} (replay: python -m tests.conformance.fuzz --seed {seed} --examples {examples})")
    work = tmp_path_factory.mktemp("fuzz")
    try:
        with clusters(work, FUZZ_BROKER_CONFIGS) as targets:
            report = fuzz(targets, seed, examples, work)
    except (PeerUnavailable, ParserUnavailable) as exc:
        pytest.fail(f"the Apache Kafka peer cannot run here (fuzz seed {seed}): {exc}")
    print(report.summary())
    return report


@pytest.mark.timeout(120)
def test_the_same_seed_draws_the_same_requests_and_another_seed_others():
    first, _, _ = generate(11, 3)
    again, _, _ = generate(11, 3)
    other, _, _ = generate(12, 3)
    assert [(c.api, c.version, c.mutation, c.body) for c in first] == [
        (c.api, c.version, c.mutation, c.body) for c in again
    ]
    assert [c.body for c in first] != [c.body for c in other]


@pytest.mark.timeout(120)
def test_the_fuzz_draws_the_examples_asked_for_at_every_version_the_listener_offers():
    cases, covered, skipped = generate(5, 2)
    offered = {api.name: list(range(api.min_version, api.max_version + 1)) for api in KAFKA_APIS.values()}
    assert {
        name: sorted(set(covered.get(name, [])) | set(skipped.get(name, []))) for name in offered
    } == offered
    per_version: dict[tuple[str, int], int] = {}
    for c in cases:
        per_version[(c.api, c.version)] = per_version.get((c.api, c.version), 0) + 1
    assert set(per_version.values()) == {2}, per_version
    assert any(c.mutation != "none" for c in cases) and any(c.mutation == "none" for c in cases)


@pytest.mark.timeout(30)
def test_a_listed_fuzz_difference_covers_only_its_api_path_and_codes():
    null_records = listed("Produce", "connection/none")
    assert null_records is not None and "null record set" in null_records.reason
    assert listed("Produce", "connection/flip") is not None
    assert listed("Produce", "connection/truncate") is None
    assert listed("Fetch", "connection/none") is None
    assert listed("Produce", "responses[].partitionResponses[].errorCode", [0], [42]) is None
    # transactions are offered on the Kafka listener: their refusal is no longer a listed difference
    assert listed("FindCoordinator", "errorCode", [0], [42]) is None
    assert listed("InitProducerId", "errorCode", [0], [42]) is None
    listed_codes = FuzzDifference("InitProducerId", "errorCode", frozenset({0, 5}), None, "an example")
    assert listed_codes.covers("InitProducerId", "errorCode", [0, 5], [42])
    assert not listed_codes.covers("InitProducerId", "errorCode", [0, 3], [42])
    assert not listed_codes.covers("InitProducerId", "producerId", [0], [42])


@pytest.mark.timeout(30)
def test_a_broker_missing_a_short_positive_timeout_is_a_timing_race_not_a_difference():
    def case(timeout_ms: int) -> Case:
        values = {"Topics": [], "timeoutMs": timeout_ms, "validateOnly": True}
        return Case(19, "CreateTopics", 3, values, b"", "flip", 0)

    report = FuzzReport(seed=1, examples=1)
    where = "topics[].errorCode"
    _difference(report, case(10), where, "Kafka [7, 7], Kafkette [36]", Counter({7: 2}), Counter({36: 1}))
    _difference(report, case(10), where, "Kafka [36], Kafkette [7]", Counter({36: 1}), Counter({7: 1}))
    assert len(report.raced) == 2 and not report.differences
    _difference(report, case(0), where, "Kafka [7], Kafkette [36]", Counter({7: 1}), Counter({36: 1}))
    _difference(
        report, case(10), where, "Kafka [7, 42], Kafkette [36]", Counter({7: 1, 42: 1}), Counter({36: 1})
    )
    assert len(report.differences) == 2 and len(report.raced) == 2


@pytest.mark.timeout(60)
def test_a_request_encoded_from_kafkas_spec_has_the_bytes_kafkettes_codec_gives_it():
    specs = request_specs()
    metadata = MetadataRequest(topics=[MetadataRequestTopic(name="fuzz-a")], allow_auto_topic_creation=False)
    spec_values = {"Topics": [{"Name": "fuzz-a"}], "AllowAutoTopicCreation": False}
    for version in (1, 4, 9, 12):
        flexible = KAFKA_APIS[3].flexible(version)
        ours = b"".join(bytes(p) for p in metadata.encode(version, flexible))
        assert encode_request(specs[3], spec_values, version) == ours, version
    api_versions = ApiVersionsRequest(client_software_name="fuzz", client_software_version="1")
    ours = b"".join(bytes(p) for p in api_versions.encode(3, True))
    assert encode_request(specs[18], {"ClientSoftwareName": "fuzz", "ClientSoftwareVersion": "1"}, 3) == ours


@pytest.mark.timeout(1200)
def test_apache_kafka_parses_and_writes_back_every_answer_of_kafkette_to_the_fuzz_and_it_keeps_serving(
    fuzz_run,
):
    assert fuzz_run.cases > 0
    assert not fuzz_run.failures, fuzz_run.summary()


@pytest.mark.timeout(1200)
def test_kafkette_closes_answers_and_errs_as_apache_kafka_does_outside_the_listed_fuzz_differences(fuzz_run):
    assert not fuzz_run.differences, fuzz_run.summary()
    assert not fuzz_run.kafka_failures, fuzz_run.summary()
