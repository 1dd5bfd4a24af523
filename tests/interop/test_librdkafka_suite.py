"""A quick subset of librdkafka's own test suite (its unchanged ``test-runner``, quick mode)
against 3 Kafkette brokers with the Kafka listener and the client suites' broker settings; each
chosen test must pass.  ``make client-suites`` runs the whole suite against Apache Kafka too.

The first run fetches and builds librdkafka's tests (``tests/client_suites/librdkafka_build``:
npm, gcc, g++ and make; about 3 minutes on 2 cores), later runs reuse the build.  A missing tool
fails the test with one line naming it.
"""

from __future__ import annotations

import pytest

from kafkette.client import LocalCluster
from tests.client_suites.librdkafka_build import BuildUnavailable, build
from tests.client_suites.librdkafka_suite import Outcome, run
from tests.client_suites.run import BROKER_CONFIGS
from tests.peers.kafka_peer import KAFKA_VERSION

# Producer, consumer, group, offsets (commit, reset when out of range), compression, headers, timestamps and
# admin basics; each passes against Apache Kafka and takes seconds in quick mode.  0103_transactions is
# librdkafka's transactional producer (init, commit, abort, send_offsets_to_transaction, fencing,
# pipelined single-record batches of a new transaction under KIP-890 verification, read_committed
# watermarks): 40 s beside the others, the subset's runner 50 s in all on a loaded 2-core machine.
QUICK_TESTS = (
    "0001_multiobj",
    "0002_unkpart",
    "0012_produce_consume",
    "0017_compression",
    "0022_consume_batch",
    "0030_offset_commit",
    "0034_offset_reset",
    "0039_event_dr",
    "0049_consume_conn_close",
    "0103_transactions",
)
SUBSET_TIMEOUT_S = 300.0


@pytest.fixture(scope="module")
def quick_outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    """The outcomes of ``QUICK_TESTS`` in one quick-mode run against a fresh 3-broker Kafkette."""
    try:
        tests_dir = build()
    except BuildUnavailable as exc:
        pytest.fail(f"librdkafka's test suite cannot be built here: {exc}", pytrace=False)
    work = tmp_path_factory.mktemp("librdkafka")
    with LocalCluster(
        num_brokers=3, data_dir=work / "cluster", kafka_protocol=True, broker_configs=BROKER_CONFIGS
    ) as cluster:
        outcomes, log = run(
            tests_dir,
            cluster.kafka_bootstrap_servers,
            "quick",
            work / "runner",
            KAFKA_VERSION,
            ",".join(t[:4] for t in QUICK_TESTS),
            SUBSET_TIMEOUT_S,
        )
    for outcome in outcomes.values():
        outcome.error = f"{outcome.error} (log {log})"
    return outcomes


@pytest.mark.timeout(900)
@pytest.mark.parametrize("test", QUICK_TESTS)
def test_librdkafka_quick_test_passes_against_kafkette(quick_outcomes: dict[str, Outcome], test: str) -> None:
    outcome = quick_outcomes.get(test)
    assert outcome is not None, f"librdkafka's runner did not run {test}"
    assert outcome.state == "PASSED", f"{test} {outcome.state}: {outcome.error}"
