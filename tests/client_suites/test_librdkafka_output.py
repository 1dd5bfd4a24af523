"""Reading librdkafka's test-runner output and the known-failure table (pure logic, no broker)."""

from __future__ import annotations

import json

import pytest

from tests.client_suites import known
from tests.client_suites.librdkafka_suite import declared_tests, parse_output, resume_point

_OUTPUT = """\
\x1b[36m[0001_multiobj               /  0.000s] ================= Running test 0001_multiobj =================
\x1b[36m[0001_multiobj               /  1.500s] \x1b[32m================= Test 0001_multiobj PASSED \
=================\x1b[0m
\x1b[36m[0002_unkpart                /  0.000s] ================= Running test 0002_unkpart =================
\x1b[36m[0002_unkpart                /  2.000s] TEST FAILURE
\x1b[31m### Test "0002_unkpart (do_test_unkpart:42)" failed at 0002-unkpart.c:120:do_test_unkpart() \
at Fri: ###
Expected NO_ERROR, not 41: NOT_CONTROLLER
\x1b[31m### Test "0002_unkpart" failed at 0002-unkpart.c:200:main() at Fri: ###
See 1 previous failures
\x1b[36m[0005_order                  /  0.000s] ================= Running test 0005_order =================
\x1b[36m[0009_mock_cluster           /  0.000s] WARN: SKIPPING TEST: Filtered due to negative test flags
"""


@pytest.mark.timeout(10)
def test_output_gives_each_test_its_state_and_a_failure_its_first_message_and_place() -> None:
    outcomes = parse_output(_OUTPUT)
    assert outcomes["0001_multiobj"].state == "PASSED"
    assert outcomes["0002_unkpart"].state == "FAILED"
    assert outcomes["0002_unkpart"].error == "Expected NO_ERROR, not 41: NOT_CONTROLLER (0002-unkpart.c:120)"
    assert outcomes["0005_order"].state == "RUNNING"


@pytest.mark.timeout(10)
def test_the_json_report_decides_states_and_durations_and_keeps_skip_reasons() -> None:
    report = json.dumps(
        {
            "tests": {
                "<MAIN>": {"state": "PASSED", "duration": 9.0},
                "0001_multiobj": {"state": "PASSED", "duration": 1.5},
                "0002_unkpart": {"state": "FAILED", "duration": 2.0},
                "0005_order": {"state": "PASSED", "duration": 3.25},
                "0009_mock_cluster": {"state": "SKIPPED", "duration": 0.0},
            }
        }
    )
    outcomes = parse_output(_OUTPUT, report)
    assert "<MAIN>" not in outcomes
    assert (outcomes["0005_order"].state, outcomes["0005_order"].seconds) == ("PASSED", 3.25)
    assert outcomes["0002_unkpart"].error.startswith("Expected NO_ERROR")
    assert outcomes["0009_mock_cluster"].error == "Filtered due to negative test flags"


@pytest.mark.timeout(10)
def test_known_reason_takes_the_longest_matching_prefix_and_none_for_an_unlisted_test() -> None:
    assert known.reason("0184_share_consumer_x") == known.NOT_OFFERED["0184_share"]
    assert known.reason("0103_transactions") is None  # transactions are offered
    assert known.reason("0170_share_consumer_subscription") == known.NOT_OFFERED["017"]
    assert known.reason("0135_sasl_credentials") == known.NOT_OFFERED["0135_sasl_credentials"]
    assert known.reason("0081_admin") is None  # passes in --mode security, fails on both elsewhere
    assert known.not_offered("0041_fetch_max_bytes") is None
    assert known.reason("0041_fetch_max_bytes") == known.KNOWN_FAILURES["0041_fetch_max_bytes"]
    assert known.reason("0001_multiobj") is None


@pytest.mark.timeout(10)
def test_a_test_running_when_the_runner_died_names_the_runners_last_words() -> None:
    died = (
        _OUTPUT + "test-runner: tpp.c:83: __pthread_tpp_change_priority: Assertion `new_prio == -1' failed.\n"
    )
    outcome = parse_output(died)["0005_order"]
    assert (outcome.state, outcome.error) == (
        "RUNNING",
        "the runner died: test-runner: tpp.c:83: __pthread_tpp_change_priority: Assertion "
        "`new_prio == -1' failed.",
    )


_TEST_C = """\
struct test tests[] = {
    /* Special MAIN test to hold over-all timings, etc. */
    {.name = "<MAIN>", .flags = TEST_F_LOCAL},
    _TEST(0000_unittests, TEST_F_LOCAL),
    _TEST(0001_multiobj, 0),
    _TEST(0002_unkpart, 0),
    _TEST(0005_order, 0),
    _TEST(0009_mock_cluster,
          TEST_F_LOCAL,
          TEST_BRKVER(1, 0, 0, 0)),
    _TEST(0011_produce_batch, 0),
    _TEST(8000_idle, TEST_F_MANUAL),
"""
_DECLARED = [
    "0000_unittests",
    "0001_multiobj",
    "0002_unkpart",
    "0005_order",
    "0009_mock_cluster",
    "0011_produce_batch",
    "8000_idle",
]
_DIED = _OUTPUT + "test-runner: tpp.c:83: __pthread_tpp_change_priority: Assertion `new_prio == -1' failed.\n"


@pytest.mark.timeout(10)
def test_the_runners_table_gives_every_test_in_the_order_it_starts_them() -> None:
    assert declared_tests(_TEST_C) == _DECLARED


@pytest.mark.timeout(10)
def test_a_run_whose_runner_died_resumes_after_the_last_test_it_started() -> None:
    assert resume_point(parse_output(_DIED), _DECLARED) == "0009"


@pytest.mark.timeout(10)
def test_a_run_whose_runner_did_not_die_or_started_the_last_test_is_not_resumed() -> None:
    assert resume_point(parse_output(_OUTPUT), _DECLARED) is None
    last = _DIED.replace("0005_order", "8000_idle")
    assert resume_point(parse_output(last), _DECLARED) is None


@pytest.mark.timeout(10)
def test_a_runner_killed_by_a_signal_without_last_words_counts_as_died_and_is_resumed() -> None:
    outcomes = parse_output(_OUTPUT, exit_status="killed by signal 11")
    assert outcomes["0005_order"].error == "the runner died: killed by signal 11"
    assert resume_point(outcomes, _DECLARED) == "0009"
