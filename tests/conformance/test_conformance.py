"""The differential conformance suite in the test run: every scenario of the catalogue against a
3-node Apache Kafka 4.3.1 and a 3-broker Kafkette (``run.clusters``), each scenario a test that
fails when Kafkette's answer differs from Kafka's and the difference is not listed as deliberate
(``deliberate.DELIBERATE``, mirrored in README.md).  Needs Java 17 and the Kafka jars (the Apache
Kafka peer, ``tests/peers``); without them every test here fails, saying what is missing.
Every answer of the scenarios' raw connections is also parsed by Apache Kafka's own classes
(``kafka_parser``): it must parse, write back byte-identically, and equal Kafka's answer to the
same request outside the fields of ``masks.MASKS``.
The authorization scenarios (``catalogue.AUTHORIZATION``) run the same way on a second pair of
1-node clusters with Kafka's StandardAuthorizer and SASL/PLAIN users (``run.authorization_clusters``).
``make conformance`` runs the same catalogue and writes its JSON and table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conformance.catalogue import AUTHORIZATION, MAIN, Scenario, load
from tests.conformance.deliberate import DELIBERATE
from tests.conformance.kafka_parser import AnswerCheck, ParserUnavailable
from tests.conformance.run import (
    GOAL,
    SUITES,
    answers_report,
    check_answers,
    run_catalogue,
    summary,
    write_report,
)
from tests.peers.kafka_peer import PeerUnavailable

pytestmark = pytest.mark.timeout(2400)

SCENARIOS = load()
AUTHORIZATION_SCENARIOS = load(AUTHORIZATION)
README = Path(__file__).resolve().parents[2] / "README.md"


def _run(tmp_path_factory: pytest.TempPathFactory, suite: str, scenarios: list[Scenario]):
    """One run of ``scenarios`` on ``suite``'s clusters (``run.SUITES``): ``({scenario id: Result},
    AnswerCheck)`` (the report and the recorded request/answer pairs are written under the test's
    temporary directory)."""
    try:
        with SUITES[suite](tmp_path_factory.mktemp(f"conformance-{suite}")) as targets:
            outcome = run_catalogue(scenarios, targets)
        report_dir = tmp_path_factory.mktemp(f"conformance-{suite}-report")
        answers = check_answers(targets, report_dir / "pairs")
    except (PeerUnavailable, ParserUnavailable) as exc:
        pytest.fail(f"the Apache Kafka peer cannot run here: {exc}")
    path = write_report(outcome, report_dir, suite)
    print(f"conformance report ({suite}): {path} {summary(outcome)}\n{answers_report(answers)}")
    return {r.id: r for r in outcome}, answers


@pytest.fixture(scope="module")
def catalogue_run(tmp_path_factory: pytest.TempPathFactory):
    """One run of the whole main catalogue (PLAINTEXT, no authorizer)."""
    return _run(tmp_path_factory, MAIN, SCENARIOS)


@pytest.fixture(scope="module")
def authorization_run(tmp_path_factory: pytest.TempPathFactory):
    """One run of the authorization scenarios (StandardAuthorizer, SASL/PLAIN users)."""
    return _run(tmp_path_factory, AUTHORIZATION, AUTHORIZATION_SCENARIOS)


@pytest.fixture(scope="module")
def results(catalogue_run):
    """``{scenario id: Result}`` of the catalogue's run."""
    return catalogue_run[0]


@pytest.fixture(scope="module")
def answers(catalogue_run) -> AnswerCheck:
    """What Apache Kafka's own classes made of the run's recorded answers."""
    return catalogue_run[1]


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
        f"  Kafkette:     {json.dumps(r.kafkette, sort_keys=True)[:1500]}"
    )


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


def test_apache_kafka_parses_every_answer_of_kafkette_and_writes_it_back_byte_for_byte(answers):
    assert answers.parsed["kafkette"] > 0, "no answer of Kafkette was recorded"
    assert not answers.failures["kafkette"], "\n".join(answers.failures["kafkette"][:50])


def test_kafkette_answers_equal_apache_kafkas_field_by_field_outside_the_masks(answers):
    assert answers.compared > 0, "no answer of Kafkette could be paired with Apache Kafka's"
    assert not answers.differences, "\n".join(answers.difference_summary())


@pytest.mark.parametrize("scenario_id", [s.id for s in AUTHORIZATION_SCENARIOS])
def test_kafkette_authorizes_as_apache_kafka(authorization_run, scenario_id):
    r = authorization_run[0][scenario_id]
    assert r.same or r.deliberate, (
        f"{scenario_id} ({r.doc}) differs from Apache Kafka:\n"
        f"  Apache Kafka: {json.dumps(r.kafka, sort_keys=True)[:1500]}\n"
        f"  Kafkette:     {json.dumps(r.kafkette, sort_keys=True)[:1500]}"
    )


def test_kafkas_parser_finds_kafkettes_authorization_answers_equal_to_kafkas_outside_the_masks(
    authorization_run,
):
    answers = authorization_run[1]
    assert answers.parsed["kafkette"] > 0 and answers.compared > 0
    assert not answers.failures["kafkette"], "\n".join(answers.failures["kafkette"][:50])
    assert not answers.differences, "\n".join(answers.difference_summary())
