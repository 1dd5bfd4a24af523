"""The differential conformance suite: every scenario of the catalogue against Apache Kafka and
against Kafkette, side by side, and a report of where the answers differ.

``python -m tests.conformance.run`` (``make conformance``) starts a 3-node Apache Kafka
(``tests/peers/kafka_peer.py``) and a 3-broker Kafkette with its Kafka listener, runs the
catalogue against both at once (one thread per cluster; each runs the scenarios in order, the
disruptive ones last), and writes ``conformance-<UTC time>.json`` (scenario, doc, Kafka's answer,
Kafkette's, same or different, the reason of a deliberate difference) and a Markdown table to
``--out``.  After the scenarios each cluster gets the blank-request sweep of ``sweep`` (every
API and version the listener offers) for Kafka's parser.  It exits 1 when fewer than ``GOAL`` of the scenarios
are identical or a difference is not listed in ``deliberate.DELIBERATE``; 2 when Apache Kafka cannot run here.
Every answer of the scenarios' raw connections is also parsed by Apache Kafka's own classes
(``kafka_parser``): the run exits 1 as well when one of Kafkette's does not parse, does not write
back byte-identically, or differs from Kafka's outside ``masks.MASKS``; the recorded pairs go to
``--out``/pairs/<UTC time>/.
``--only PREFIX`` runs the scenarios whose id starts with it (repeatable).
``--suite authorization`` runs the authorization scenarios instead, on a 1-node Apache Kafka and a
1-broker Kafkette with Kafka's StandardAuthorizer and a SASL_PLAINTEXT listener
(``authorization_clusters``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from confluent_kafka import KafkaException

from kafkette.client import LocalCluster
from kafkette.protocol.apis.api_versions import ApiVersionsRequest
from kafkette.protocol.kafka_schema import KafkaSchemaError
from tests.conformance.catalogue import AUTHORIZATION, MAIN, SUITE_NAMES, Scenario, load
from tests.conformance.deliberate import DELIBERATE
from tests.conformance.kafka_parser import COVERAGE_SCENARIO, AnswerCheck, ParserUnavailable
from tests.conformance.kafka_parser import check as check_kafka_answers
from tests.conformance.sweep import sweep
from tests.conformance.target import CLUSTER_NODES, SHARED_BROKER_CONFIGS, ScenarioError, Target
from tests.peers.kafka_peer import KAFKA_VERSION, KafkaPeer, PeerUnavailable

GOAL = 0.95
SCENARIO_TIMEOUT_S = 120.0
RESULTS_DIR = Path(__file__).parent / "results"
PEER_HEAP_MB = 384


@dataclass
class Result:
    """One scenario's answers on both clusters.

    Attributes:
        id / doc: the scenario's.
        kafka / kafkette: the observables (JSON data; ``{"exception": ...}`` when it raised).
        same: the two are equal.
        deliberate: the reason given in ``deliberate.DELIBERATE`` for a known difference, else None.
    """

    id: str
    doc: str
    kafka: Any
    kafkette: Any
    same: bool
    deliberate: str | None


def observe(scenario: Scenario, target: Target) -> Any:
    """Run one scenario on one target; its observable as JSON data, or ``{"exception": ...}``
    naming what it raised (a Kafka error's name, else the exception's type and message)."""
    outcome: dict[str, Any] = {}

    def body() -> None:
        try:
            outcome["value"] = json.loads(json.dumps(scenario.run(target), sort_keys=True, default=str))
        except KafkaException as exc:
            outcome["value"] = {"exception": exc.args[0].name()}
        except Exception as exc:  # noqa: BLE001 - reported as the scenario's answer
            outcome["value"] = {"exception": f"{type(exc).__name__}: {exc}"[:300]}
            outcome["trace"] = traceback.format_exc()

    worker = threading.Thread(target=body, name=f"{target.name}:{scenario.id}", daemon=True)
    worker.start()
    worker.join(SCENARIO_TIMEOUT_S)
    if worker.is_alive():
        return {"exception": f"timed out after {SCENARIO_TIMEOUT_S:.0f} s"}
    if "trace" in outcome:
        print(f"[{target.name}] {scenario.id} raised:\n{outcome['trace']}", file=sys.stderr, flush=True)
    return outcome["value"]


def run_catalogue(scenarios: Sequence[Scenario], targets: dict[str, Target]) -> list[Result]:
    """Every scenario against both targets at once (one thread per target, scenarios in order).

    Args:
        scenarios: in run order.
        targets: ``{"kafka": ..., "kafkette": ...}``.

    Returns:
        One ``Result`` per scenario, in the same order.
    """
    answers: dict[str, dict[str, Any]] = {name: {} for name in targets}

    def run_all(name: str) -> None:
        for s in scenarios:
            targets[name].recorder.scenario = s.id
            answers[name][s.id] = observe(s, targets[name])
        sweep(targets[name])
        ask_api_versions(targets[name])

    threads = [threading.Thread(target=run_all, args=(name,), name=f"conformance-{name}") for name in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    results = []
    for s in scenarios:
        kafka, ours = answers["kafka"][s.id], answers["kafkette"][s.id]
        same = kafka == ours
        results.append(Result(s.id, s.doc, kafka, ours, same, None if same else DELIBERATE.get(s.id)))
    return results


def ask_api_versions(target: Target) -> None:
    """One ApiVersions v3 request to the lowest node, recorded as the scenario
    ``kafka_parser.COVERAGE_SCENARIO``: the APIs and versions the listener offers, for the
    coverage table (an unanswered request is left out of it)."""
    target.recorder.scenario = COVERAGE_SCENARIO
    with contextlib.suppress(OSError, KafkaSchemaError):
        target.call(
            "ApiVersions",
            3,
            ApiVersionsRequest(client_software_name="conformance", client_software_version="1"),
        )


def check_answers(targets: dict[str, Target], pairs_dir: Path) -> AnswerCheck:
    """Write each target's recorded pairs to ``pairs_dir/<target>.jsonl`` and have Kafka's own
    classes parse and compare them (``kafka_parser.check``).

    Raises:
        ParserUnavailable: the Java parser could not be compiled or run.
    """
    files = {name: t.recorder.write(pairs_dir / f"{name}.jsonl", name) for name, t in targets.items()}
    return check_kafka_answers(files)


def answers_report(outcome: AnswerCheck) -> str:
    """The Java parser's verdict as text: counts, each failure, each difference, the coverage."""
    lines = [
        f"Kafka's parser: {outcome.parsed.get('kafkette', 0)} Kafkette answers parsed and written back "
        f"byte-identically, {len(outcome.failures.get('kafkette', []))} failed; "
        f"{outcome.parsed.get('kafka', 0)} Apache Kafka answers, {len(outcome.failures.get('kafka', []))} "
        f"failed; {outcome.compared} pairs compared field by field, {len(outcome.differences)} differences "
        f"(and {len(outcome.deliberate)} in deliberately different scenarios, {len(outcome.known)} known, in "
        f"known_differences.KNOWN_DIFFERENCES), {outcome.unpaired} Kafkette answers unpaired"
    ]
    lines += [f"PARSE FAILURE kafkette {f}" for f in outcome.failures.get("kafkette", [])]
    lines += [f"PARSE FAILURE kafka {f}" for f in outcome.failures.get("kafka", [])]
    lines += [f"FIELD DIFFERENCE {d}" for d in outcome.difference_summary()]
    lines += [f"deliberate field difference {d}" for d in outcome.difference_summary(deliberate=True)]
    lines += [f"known field difference {d}" for d in outcome.difference_summary(known=True)]
    lines.append(outcome.coverage_table())
    return "\n".join(lines)


@contextlib.contextmanager
def _closing(kafka: Target, ours: Target) -> Iterator[dict[str, Target]]:
    """``{"kafka": kafka, "kafkette": ours}``, their connections closed on the way out."""
    try:
        yield {"kafka": kafka, "kafkette": ours}
    finally:
        kafka.close()
        ours.close()


@contextlib.contextmanager
def clusters(
    work_dir: Path,
    broker_configs: dict[str, object] | None = None,
    security_protocol: str = "PLAINTEXT",
    listener_configs: Callable[[str], dict[str, str]] | None = None,
) -> Iterator[dict[str, Target]]:
    """A 3-node Apache Kafka and a 3-broker Kafkette (Kafka listener on), both with
    ``broker_configs`` (default ``SHARED_BROKER_CONFIGS``), as targets.

    Args:
        security_protocol: the targets' listener's (``SASL_SSL``...): other than ``PLAINTEXT``,
            Apache Kafka gets a third listener named after it and Kafkette's Kafka listener
            (``KAFKA``) is of it; the nodes keep talking to each other over PLAINTEXT.
        listener_configs: the ``listener.name.<name>.*`` settings of such a listener, given its
            name.

    Raises:
        PeerUnavailable: Apache Kafka cannot run here (no Java, Maven or registry).
        RuntimeError, LocalClusterError: a cluster did not start.
    """
    broker_configs = SHARED_BROKER_CONFIGS if broker_configs is None else broker_configs
    peer = KafkaPeer(
        work_dir / "kafka", nodes=CLUSTER_NODES, heap_mb=PEER_HEAP_MB, broker_configs=broker_configs
    )
    bootstrap, ours_configs = peer.bootstrap_servers, dict(broker_configs)
    if security_protocol != "PLAINTEXT":
        configs = listener_configs or (lambda name: {})
        bootstrap = peer.add_listener(security_protocol, security_protocol, configs(security_protocol))
        ours_configs |= {
            "listener.security.protocol.map": f"PLAINTEXT:PLAINTEXT,KAFKA:{security_protocol}",
            **configs("KAFKA"),
        }
    kafka_ports = dict(
        zip(peer.node_ids, (int(a.rsplit(":", 1)[1]) for a in bootstrap.split(",")), strict=True)
    )
    with beside_the_peer(peer, work_dir / "kafkette", ours_configs) as cluster:
        kafka = Target(
            "kafka",
            bootstrap,
            {n: ("127.0.0.1", p) for n, p in kafka_ports.items()},
            stop_node=peer.stop_node,
            start_node=peer.start_node,
        )
        ours = Target(
            "kafkette",
            cluster.kafka_bootstrap_servers,
            {n: ("127.0.0.1", p) for n, p in cluster.kafka_ports.items()},
            stop_node=lambda n: cluster.stop_broker(n, hard=False),
            start_node=cluster.start_broker,
        )
        with _closing(kafka, ours) as targets:
            yield targets


@contextlib.contextmanager
def beside_the_peer(
    peer: KafkaPeer, data_dir: Path, broker_configs: dict[str, object], num_brokers: int = CLUSTER_NODES
) -> Iterator[LocalCluster]:
    """Start ``peer`` (an Apache Kafka, not yet started), then ``num_brokers`` Kafkette brokers
    with their Kafka listener on and ``broker_configs``, in ``data_dir``; both are stopped on the
    way out.

    Raises:
        PeerUnavailable: Apache Kafka cannot run here.
        RuntimeError, LocalClusterError: a cluster did not start.
    """
    peer.start()
    try:
        with LocalCluster(
            num_brokers=num_brokers, data_dir=data_dir, kafka_protocol=True, broker_configs=broker_configs
        ) as cluster:
            yield cluster
    finally:
        peer.stop()


AUTHORIZATION_NODES = 1
AUTHORIZATION_USERS = {"admin": "admin-secret", "alice": "alice-secret", "bob": "bob-secret"}
"""The SASL/PLAIN users of the authorization clusters; ``admin`` is a super user."""
AUTHORIZATION_CONFIGS: dict[str, object] = {
    **SHARED_BROKER_CONFIGS,
    "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
    "super.users": "User:admin;User:ANONYMOUS",  # ANONYMOUS: the nodes' own PLAINTEXT/CONTROLLER
    "allow.everyone.if.no.acl.found": "false",
}


def _plain_listener(listener: str) -> dict[str, object]:
    """``listener``'s SASL/PLAIN settings (``listener.name.<l>.*``) with ``AUTHORIZATION_USERS``."""
    users = " ".join(f'user_{u}="{p}"' for u, p in AUTHORIZATION_USERS.items())
    jaas = (
        "org.apache.kafka.common.security.plain.PlainLoginModule required "
        f'username="admin" password="{AUTHORIZATION_USERS["admin"]}" {users};'
    )
    prefix = f"listener.name.{listener.lower()}."
    return {prefix + "sasl.enabled.mechanisms": "PLAIN", prefix + "plain.sasl.jaas.config": jaas}


@contextlib.contextmanager
def authorization_clusters(work_dir: Path) -> Iterator[dict[str, Target]]:
    """A 1-node Apache Kafka and a 1-broker Kafkette, both with ``AUTHORIZATION_CONFIGS`` and a
    SASL_PLAINTEXT listener whose PLAIN users are ``AUTHORIZATION_USERS``, as targets logged in as
    ``admin`` (``Target.as_user`` for the others).  Nodes are not stopped in this suite.

    Raises:
        PeerUnavailable: Apache Kafka cannot run here (no Java, Maven or registry).
        RuntimeError, LocalClusterError: a cluster did not start.
    """
    peer = KafkaPeer(
        work_dir / "kafka",
        nodes=AUTHORIZATION_NODES,
        heap_mb=PEER_HEAP_MB,
        broker_configs=AUTHORIZATION_CONFIGS,
    )
    bootstrap = peer.add_listener("SASL_PLAINTEXT", "SASL_PLAINTEXT", _plain_listener("SASL_PLAINTEXT"))
    ours_configs = {
        **AUTHORIZATION_CONFIGS,
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,KAFKA:SASL_PLAINTEXT",
        **_plain_listener("KAFKA"),
    }

    def fixed(node: int) -> None:
        raise ScenarioError("the authorization suite does not stop or start nodes")

    with beside_the_peer(peer, work_dir / "kafkette", ours_configs, AUTHORIZATION_NODES) as cluster:
        addresses = [a.rsplit(":", 1) for a in bootstrap.split(",")]
        kafka = Target(
            "kafka",
            bootstrap,
            {n: (h, int(p)) for n, (h, p) in zip(peer.node_ids, addresses, strict=True)},
            stop_node=fixed,
            start_node=fixed,
            users=dict(AUTHORIZATION_USERS),
            user="admin",
        )
        ours = Target(
            "kafkette",
            cluster.kafka_bootstrap_servers,
            {n: ("127.0.0.1", p) for n, p in cluster.kafka_ports.items()},
            stop_node=fixed,
            start_node=fixed,
            users=dict(AUTHORIZATION_USERS),
            user="admin",
        )
        with _closing(kafka, ours) as targets:
            yield targets


SUITES = {MAIN: clusters, AUTHORIZATION: authorization_clusters}
"""Each suite's pair of clusters: ``SUITES[suite](work_dir)`` is a context manager of the targets."""


def summary(results: Sequence[Result]) -> dict[str, Any]:
    """Counts: total, identical, deliberate differences, undeclared differences, and the share
    identical (0..1)."""
    same = sum(r.same for r in results)
    deliberate = sum(1 for r in results if not r.same and r.deliberate)
    return {
        "scenarios": len(results),
        "identical": same,
        "deliberate": deliberate,
        "undeclared": len(results) - same - deliberate,
        "identical_share": round(same / len(results), 4) if results else 0.0,
    }


def table(results: Sequence[Result]) -> str:
    """The results as a Markdown table (answers cut to 120 characters)."""

    def cell(value: Any) -> str:
        text = json.dumps(value, sort_keys=True)
        return (text if len(text) <= 120 else text[:117] + "...").replace("|", "\\|")

    lines = ["| scenario | Apache Kafka | Kafkette | same |", "|---|---|---|---|"]
    for r in results:
        verdict = "same" if r.same else ("deliberate" if r.deliberate else "**different**")
        lines.append(f"| `{r.id}` | {cell(r.kafka)} | {cell(r.kafkette)} | {verdict} |")
    return "\n".join(lines)


def write_report(results: Sequence[Result], out_dir: Path, suite: str = MAIN) -> Path:
    """Write ``conformance-<UTC>.json`` and ``.md`` under ``out_dir``; the JSON's path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    path = out_dir / f"conformance-{stamp}.json"
    document = {
        "kafka_version": KAFKA_VERSION,
        "suite": suite,
        "nodes": CLUSTER_NODES if suite == MAIN else AUTHORIZATION_NODES,
        "shared_broker_configs": SHARED_BROKER_CONFIGS if suite == MAIN else AUTHORIZATION_CONFIGS,
        "summary": summary(results),
        "results": [asdict(r) for r in results],
    }
    path.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    path.with_suffix(".md").write_text(table(results) + "\n", encoding="utf-8")
    return path


def select(scenarios: Sequence[Scenario], prefixes: Sequence[str]) -> list[Scenario]:
    """The scenarios whose id starts with one of ``prefixes`` (all when none)."""
    return [s for s in scenarios if not prefixes or any(s.id.startswith(p) for p in prefixes)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="PREFIX",
        help="run the scenarios whose id starts with PREFIX (repeatable)",
    )
    parser.add_argument(
        "--suite", choices=SUITE_NAMES, default=MAIN, help="the scenarios and clusters (default main)"
    )
    parser.add_argument("--list", action="store_true", help="list the scenarios and exit")
    parser.add_argument(
        "--out", type=Path, default=RESULTS_DIR, help=f"where the report goes (default {RESULTS_DIR})"
    )
    args = parser.parse_args(argv)
    chosen = select(load(args.suite), args.only)
    if args.list:
        for s in chosen:
            print(f"{s.id}\t{s.doc}")
        return 0
    if not chosen:
        parser.error(f"no scenario id starts with {args.only}")
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="conformance-") as work:
        try:
            with SUITES[args.suite](Path(work)) as targets:
                results = run_catalogue(chosen, targets)
            answers = check_answers(
                targets, args.out / "pairs" / datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
            )
        except (PeerUnavailable, ParserUnavailable) as exc:
            print(f"Error: {exc}", file=sys.stderr)
            return 2
    path = write_report(results, args.out, args.suite)
    print(answers_report(answers))
    counts = summary(results)
    for r in results:
        if not r.same and not r.deliberate:
            print(
                f"DIFFERENT {r.id}\n  kafka:    {json.dumps(r.kafka, sort_keys=True)[:400]}\n"
                f"  kafkette: {json.dumps(r.kafkette, sort_keys=True)[:400]}"
            )
    print(
        f"{counts['identical']}/{counts['scenarios']} identical ({counts['identical_share']:.1%}), "
        f"{counts['deliberate']} deliberate, {counts['undeclared']} undeclared differences; "
        f"{time.monotonic() - started:.0f} s; report {path}"
    )
    parsed_all = not answers.failures["kafkette"] and not answers.differences
    return 0 if counts["identical_share"] >= GOAL and counts["undeclared"] == 0 and parsed_all else 1


if __name__ == "__main__":
    sys.exit(main())
