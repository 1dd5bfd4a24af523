"""librdkafka's own test suite against Apache Kafka and against Kafkette's Kafka listener.

Every test of librdkafka's suite runs against a 3-node Apache Kafka and against 3 Kafkette
brokers, side by side.

``python -m tests.client_suites.run`` (``make client-suites``) builds librdkafka's test programs
(``librdkafka_build``: librdkafka ``LIBRDKAFKA_VERSION`` from a registry, cached), starts both
clusters with the same broker settings (``BROKER_CONFIGS``: those of the conformance suite, plus
topic auto-creation with 4 partitions and replication factor 3), runs librdkafka's unchanged
``test-runner`` in each chosen mode (``--mode quick|full|idempotent``, repeatable; default all
three) against both at once, re-runs alone each test that failed only on Kafkette and needs nothing
``known.NOT_OFFERED`` names (a shared machine makes timing tests flaky; a rerun that passes is
recorded as such; it runs on the same cluster, so what the failed run left behind stays), and writes
``librdkafka-<UTC time>.json`` and ``.md`` (mode, test, Kafka, Kafkette, first error) to
``--out``.  ``--mode security`` (alone) runs librdkafka's SASL, SSL and ACL tests
(``security.SECURITY_TESTS``) with a test-runner built with OpenSSL, against both clusters
serving a SASL_SSL listener behind Kafka's StandardAuthorizer (``security.secure_clusters``);
``--mode acl`` (alone) runs the tests that add ACLs with Kafka's ``kafka-acls.sh``
(``acl.ACL_TESTS``) against PLAINTEXT client listeners behind the authorizer, the nodes logging in
to each other (``acl.acl_clusters``).
Exit 1 when a test passes on Kafka and fails on Kafkette and ``known.reason`` names no reason for
it; 2 when Apache Kafka cannot run here or the tests cannot be built.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from tests.client_suites import known
from tests.client_suites.acl import ACL_TESTS, acl_broker_configs, acl_clusters
from tests.client_suites.librdkafka_build import LIBRDKAFKA_VERSION, BuildUnavailable, build
from tests.client_suites.librdkafka_suite import MODES, Outcome, run_to_the_end
from tests.client_suites.librdkafka_suite import run as run_suite
from tests.client_suites.security import (
    SECURITY_TESTS,
    client_conf,
    secure_clusters,
    security_broker_configs,
)
from tests.conformance.run import clusters
from tests.conformance.target import CLUSTER_NODES, SHARED_BROKER_CONFIGS
from tests.peers.kafka_peer import KAFKA_VERSION, PeerUnavailable

BROKER_CONFIGS: dict[str, object] = {
    **SHARED_BROKER_CONFIGS,
    "auto.create.topics.enable": True,
    "num.partitions": 4,
    "default.replication.factor": 3,
}
RESULTS_DIR = Path(__file__).parent / "results"
# Bounds of one mode's whole run (s); librdkafka's tests carry their own, shorter, timeouts.
MODE_TIMEOUT_S = {"quick": 2400.0, "full": 5400.0, "idempotent": 2400.0, "security": 1800.0, "acl": 1200.0}
RERUN_TIMEOUT_S = 600.0
# Modes whose tests each get a runner of their own: a test that overruns its timeout ends
# librdkafka's whole runner, and the security mode's share consumer sub-tests (0135, 0142) wait
# out theirs on a broker without share groups.
ONE_TEST_A_RUNNER = frozenset({"security"})


def batches(mode: str, tests: str | None) -> list[str | None]:
    """The ``TESTS`` of each runner a mode starts: ``tests`` split at its commas for a mode of
    ``ONE_TEST_A_RUNNER``, else ``tests`` whole (one runner; None: every test)."""
    if mode in ONE_TEST_A_RUNNER and tests:
        return [t.strip() for t in tests.split(",") if t.strip()]
    return [tests]


def merge(into: dict[str, Outcome], found: dict[str, Outcome]) -> None:
    """Add one runner's outcomes to those of the runners before it: a test one runner ran wins
    over its ``SKIPPED`` (not in that runner's ``TESTS``) in another."""
    for name, outcome in found.items():
        if name not in into or into[name].state == "SKIPPED":
            into[name] = outcome


@dataclass
class Row:
    """One test in one mode on both clusters.

    Attributes:
        mode: a key of ``librdkafka_suite.MODES``.
        test: librdkafka's test name.
        kafka / kafkette: the runner's state (``PASSED``, ``FAILED``, ``SKIPPED``, ...).
        error: Kafkette's first error line when it did not pass, else Kafka's, else ``""``.
        rerun: Kafkette's state when re-run alone (only for a test that failed only there).
        reason: ``known.reason`` for a test that passes on Kafka and not on Kafkette.
    """

    mode: str
    test: str
    kafka: str
    kafkette: str
    error: str
    rerun: str | None = None
    reason: str | None = None

    @property
    def kafkette_only_failure(self) -> bool:
        """Passed on Kafka and not on Kafkette (a rerun that passed clears it)."""
        return self.kafka == "PASSED" and self.kafkette != "PASSED" and self.rerun != "PASSED"


def rows(mode: str, kafka: dict[str, Outcome], ours: dict[str, Outcome]) -> list[Row]:
    """The two runs of one mode side by side, by test name (a test absent from a run is
    ``NOT_RUN``)."""
    out = []
    for name in sorted(set(kafka) | set(ours)):
        k, o = kafka.get(name), ours.get(name)
        k_state, o_state = (k.state if k else "NOT_RUN"), (o.state if o else "NOT_RUN")
        if o and o_state != "PASSED" and o.error:
            error = o.error
        else:
            error = k.error if k and k_state != "PASSED" else ""
        row = Row(mode, name, k_state, o_state, error)
        if row.kafkette_only_failure:
            row.reason = known.reason(name)
        out.append(row)
    return out


def run_mode(
    tests_dir: Path,
    targets: dict[str, str],
    mode: str,
    work: Path,
    tests: str | None,
    conf: dict[str, str] | None = None,
    env: dict[str, str] | None = None,
) -> list[Row]:
    """One mode against both clusters at once, then each Kafkette-only failure again alone.

    Args:
        tests_dir: the built ``tests`` directory.
        targets: ``{"kafka": bootstrap, "kafkette": bootstrap}``.
        mode: a key of ``MODES``.
        work: the mode's work directory.
        tests: ``TESTS`` for the runner (None: all).
        conf: extra ``test.conf`` properties for both runners (the security mode's login).
        env: extra environment variables for both runners (the ACL mode's ``KAFKA_PATH``).

    Returns:
        One ``Row`` per test.
    """
    outcomes: dict[str, dict[str, Outcome]] = {}

    def one(name: str) -> None:
        deadline = time.monotonic() + MODE_TIMEOUT_S[mode]
        outcomes[name] = {}
        for batch in batches(mode, tests):
            found, log = run_to_the_end(
                tests_dir,
                targets[name],
                mode,
                work / name / (batch or "all") if mode in ONE_TEST_A_RUNNER else work / name,
                KAFKA_VERSION,
                batch,
                max(deadline - time.monotonic(), 1.0),
                conf,
                env,
            )
            merge(outcomes[name], found)
        print(
            f"[{mode}] {name}: {sum(o.state == 'PASSED' for o in outcomes[name].values())} passed, "
            f"{sum(o.state == 'FAILED' for o in outcomes[name].values())} failed (log {log})",
            flush=True,
        )

    threads = [
        threading.Thread(target=one, args=(name,), name=f"librdkafka-{mode}-{name}") for name in targets
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    result = rows(mode, outcomes.get("kafka", {}), outcomes.get("kafkette", {}))
    for row in result:
        if row.kafkette_only_failure and not known.not_offered(row.test):
            again, _ = run_suite(
                tests_dir,
                targets["kafkette"],
                mode,
                work / "rerun" / row.test,
                KAFKA_VERSION,
                row.test[:4],
                RERUN_TIMEOUT_S,
                client_conf=conf,
                extra_env=env,
            )
            row.rerun = again[row.test].state if row.test in again else "NOT_RUN"
            if row.rerun == "PASSED":
                row.reason = None
            print(f"[{mode}] kafkette rerun of {row.test}: {row.rerun}", flush=True)
    return result


def counts(result: Sequence[Row]) -> dict[str, dict[str, dict[str, int]]]:
    """``{mode: {"kafka"|"kafkette": {state: count}}}`` (a Kafkette rerun that passed counts as
    passed)."""
    out: dict[str, dict[str, dict[str, int]]] = {}
    for row in result:
        per_mode = out.setdefault(row.mode, {"kafka": {}, "kafkette": {}})
        ours = "PASSED" if row.rerun == "PASSED" else row.kafkette
        for side, state in (("kafka", row.kafka), ("kafkette", ours)):
            per_mode[side][state] = per_mode[side].get(state, 0) + 1
    return out


def table(result: Sequence[Row]) -> str:
    """The rows as a Markdown table (errors cut to 160 characters), skipped-on-both rows left out."""

    def cell(text: str | None) -> str:
        text = text or ""
        return (text if len(text) <= 160 else text[:157] + "...").replace("|", "\\|")

    lines = ["| mode | test | Kafka | Kafkette | first error | note |", "|---|---|---|---|---|---|"]
    for r in result:
        if r.kafka == r.kafkette == "SKIPPED":
            continue
        ours = r.kafkette + (f" (rerun alone: {r.rerun})" if r.rerun else "")
        note = r.reason or ("**Kafkette only**" if r.kafkette_only_failure else "")
        lines.append(f"| {r.mode} | `{r.test}` | {r.kafka} | {ours} | {cell(r.error)} | {cell(note)} |")
    return "\n".join(lines)


def report_broker_configs(modes: set[str]) -> dict[str, object]:
    """The broker settings a report names: ``BROKER_CONFIGS``, with the security mode's
    authorizer and re-authentication settings when ``modes`` holds it, or the ACL mode's
    authorizer and node login settings (listeners' own ``listener.name.*`` settings, key store
    paths and passwords included, are left out)."""
    if "security" in modes:
        return security_broker_configs(BROKER_CONFIGS)
    return acl_broker_configs(BROKER_CONFIGS) if "acl" in modes else BROKER_CONFIGS


def write_report(result: Sequence[Row], out_dir: Path, seconds: float) -> Path:
    """Write ``librdkafka-<UTC>.json`` and ``.md`` under ``out_dir``; the JSON's path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    broker_configs = report_broker_configs({r.mode for r in result})
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    path = out_dir / f"librdkafka-{stamp}.json"
    document = {
        "librdkafka_version": LIBRDKAFKA_VERSION,
        "kafka_version": KAFKA_VERSION,
        "nodes": CLUSTER_NODES,
        "broker_configs": broker_configs,
        "modes": {m: list(MODES[m]) for m in {r.mode for r in result}},
        "seconds": round(seconds),
        "counts": counts(result),
        "rows": [asdict(r) for r in result],
    }
    path.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    summary = [
        f"librdkafka {LIBRDKAFKA_VERSION} tests, Apache Kafka {KAFKA_VERSION} vs Kafkette "
        f"({CLUSTER_NODES} brokers each, {broker_configs}), {seconds:.0f} s",
        "",
    ]
    summary += ["| mode | Kafka passed/failed/skipped | Kafkette passed/failed/skipped |", "|---|---|---|"]
    for mode, sides in counts(result).items():
        cells = [
            f"{s.get('PASSED', 0)}/{s.get('FAILED', 0) + s.get('RUNNING', 0)}/{s.get('SKIPPED', 0)}"
            for s in (sides["kafka"], sides["kafkette"])
        ]
        summary.append(f"| {mode} | {cells[0]} | {cells[1]} |")
    path.with_suffix(".md").write_text("\n".join(summary) + "\n\n" + table(result) + "\n", encoding="utf-8")
    return path


@contextlib.contextmanager
def _clusters(
    work: Path, kind: str
) -> Iterator[tuple[dict[str, str], dict[str, str] | None, dict[str, str] | None]]:
    """Both clusters' bootstrap servers, the runners' extra ``test.conf`` and extra environment:
    PLAINTEXT listeners and neither (``kind`` ``plain``), SASL_SSL ones and the test user's login
    (``security``), or PLAINTEXT ones behind the authorizer and ``KAFKA_PATH`` (``acl``)."""
    if kind == "security":
        with secure_clusters(work, BROKER_CONFIGS) as (bootstraps, ca):
            yield bootstraps, client_conf(ca), None
        return
    if kind == "acl":
        with acl_clusters(work, BROKER_CONFIGS) as (bootstraps, kafka_path):
            yield bootstraps, None, {"KAFKA_PATH": str(kafka_path)}
        return
    with clusters(work, BROKER_CONFIGS) as targets:
        yield {name: target.bootstrap for name, target in targets.items()}, None, None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--mode",
        action="append",
        choices=sorted(MODES),
        default=[],
        help="quick, full or idempotent (repeatable; default: quick, idempotent, full), security "
        "(alone: the SASL/SSL/ACL tests against SASL_SSL listeners) or acl (alone: the kafka-acls.sh "
        "tests against PLAINTEXT listeners behind the authorizer)",
    )
    parser.add_argument(
        "--tests", default=None, help="librdkafka's TESTS: test numbers to run (0001,0002,...)"
    )
    parser.add_argument(
        "--out", type=Path, default=RESULTS_DIR, help=f"where the report goes (default {RESULTS_DIR})"
    )
    parser.add_argument(
        "--keep-logs",
        type=Path,
        default=None,
        metavar="DIR",
        help="keep the runners' logs and the brokers' data in DIR (default: a temporary "
        "directory, removed at the end)",
    )
    args = parser.parse_args(argv)
    modes = args.mode or ["quick", "idempotent", "full"]
    kind = next((m for m in ("security", "acl") if m in modes), "plain")
    if kind != "plain" and len(set(modes)) > 1:
        parser.error(f"--mode {kind} runs alone (its clusters are set up for it only)")
    tests = args.tests or {"security": ",".join(SECURITY_TESTS), "acl": ",".join(ACL_TESTS)}.get(kind)
    started = time.monotonic()
    try:
        tests_dir = build(variant="ssl" if kind == "security" else "plain")
    except BuildUnavailable as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 2
    print(
        f"librdkafka {LIBRDKAFKA_VERSION} tests built in {tests_dir} ({time.monotonic() - started:.0f} s)",
        flush=True,
    )
    result: list[Row] = []
    if args.keep_logs is not None:
        if args.keep_logs.exists() and any(args.keep_logs.iterdir()):
            parser.error(f"--keep-logs {args.keep_logs}: not empty (the brokers' data would be mixed)")
        args.keep_logs.mkdir(parents=True, exist_ok=True)
    with (
        contextlib.nullcontext(str(args.keep_logs))
        if args.keep_logs is not None
        else tempfile.TemporaryDirectory(prefix="client-suites-") as work
    ):
        try:
            with _clusters(Path(work) / "clusters", kind) as (bootstraps, conf, env):
                for mode in modes:
                    result += run_mode(tests_dir, bootstraps, mode, Path(work) / mode, tests, conf, env)
        except PeerUnavailable as exc:
            print(f"Error: {exc}", file=sys.stderr)
            return 2
    path = write_report(result, args.out, time.monotonic() - started)
    undeclared = [r for r in result if r.kafkette_only_failure and r.reason is None]
    for r in result:
        if r.kafkette_only_failure:
            print(
                f"KAFKETTE ONLY [{r.mode}] {r.test}: {r.error}"
                + (f" (known: {r.reason})" if r.reason else "")
            )
    for mode, sides in counts(result).items():
        print(f"{mode}: kafka {sides['kafka']}, kafkette {sides['kafkette']}")
    print(
        f"{len(undeclared)} undeclared Kafkette-only failures; {time.monotonic() - started:.0f} s; report "
        f"{path}"
    )
    return 1 if undeclared else 0


if __name__ == "__main__":
    sys.exit(main())
