"""The differential conformance suite in the test run: every scenario of the catalogue against a
3-node Apache Kafka 4.3.1 and a 3-broker Kafkette (``run.clusters``), each scenario a test that
fails when Kafkette's answer differs from Kafka's and the difference is not listed as deliberate
(``deliberate.DELIBERATE``, mirrored in README.md).  Needs Java 17 and the Kafka jars (the Apache
Kafka peer, ``tests/peers``); without them every test here fails, saying what is missing.
``make conformance`` runs the same catalogue and writes its JSON and table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conformance.catalogue import load
from tests.conformance.deliberate import DELIBERATE
from tests.conformance.run import GOAL, clusters, run_catalogue, summary, write_report
from tests.peers.kafka_peer import PeerUnavailable

pytestmark = pytest.mark.timeout(2400)

SCENARIOS = load()
README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory):
    """``{scenario id: Result}`` of one run of the whole catalogue (the report is written under
    the test's temporary directory and its path printed)."""
    try:
        with clusters(tmp_path_factory.mktemp("conformance")) as targets:
            outcome = run_catalogue(SCENARIOS, targets)
    except PeerUnavailable as exc:
        pytest.fail(f"the Apache Kafka peer cannot run here: {exc}")
    path = write_report(outcome, tmp_path_factory.mktemp("conformance-report"))
    print(f"conformance report: {path} {summary(outcome)}")
    return {r.id: r for r in outcome}


def test_the_catalogue_has_at_least_200_scenarios_with_unique_ids_and_docs():
    assert len(SCENARIOS) >= 200, len(SCENARIOS)
    assert len({s.id for s in SCENARIOS}) == len(SCENARIOS)
    assert all(s.doc for s in SCENARIOS), [s.id for s in SCENARIOS if not s.doc]


@pytest.mark.parametrize("scenario_id", [s.id for s in SCENARIOS])
def test_kafkette_answers_as_apache_kafka(results, scenario_id):
    r = results[scenario_id]
    assert r.same or r.deliberate, (
        f"{scenario_id} ({r.doc}) differs from Apache Kafka:\n"
        f"  Apache Kafka: {json.dumps(r.kafka, sort_keys=True)[:1500]}\n"
        f"  Kafkette:     {json.dumps(r.kafkette, sort_keys=True)[:1500]}")


def test_at_least_the_goal_share_of_scenarios_is_identical(results):
    counts = summary(list(results.values()))
    assert counts["identical_share"] >= GOAL, counts


def test_every_deliberate_difference_still_differs_and_is_in_the_readme(results):
    readme = README.read_text(encoding="utf-8")
    assert set(DELIBERATE) <= set(results), sorted(set(DELIBERATE) - set(results))
    stale = sorted(i for i in DELIBERATE if results[i].same)
    assert not stale, f"listed as deliberate differences but now identical: {stale}"
    missing = sorted(i for i in DELIBERATE if f"`{i}`" not in readme)
    assert not missing, f"deliberate differences not listed in README.md: {missing}"
