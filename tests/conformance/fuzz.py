"""Byte-level fuzz of the Kafka listener beside Apache Kafka: Hypothesis-generated requests of
every API and version the listener offers, drawn from Kafka's own request specs
(``kafka_specs``, ``fuzz_strategies``), some of them mutated at the byte level (truncated, a
byte flipped, a frame length that lies), each sent on a fresh connection to both clusters.

Checks, per request: both brokers do the same kind of thing (answer, close the connection, or
wait for the rest of the frame); every answer of both parses with Kafka's own classes and
writes back byte-identically (``kafka_parser.parse``, the conformance suite's Java parser);
the error codes (top level and per topic, partition, group, member ...) are the same; and after
a malformed request both still answer an ApiVersions on a fresh connection.  Differences listed
in ``fuzz_differences.FUZZ_DIFFERENCES`` are reported apart and do not fail.

``python -m tests.conformance.fuzz --seed N --examples K`` starts a 3-node Apache Kafka and a
3-broker Kafkette (``run.clusters``, with one ``__consumer_offsets`` partition so that every
fuzz group has the same coordinator) and prints the seed first: the same seed and count send
the same requests again.  Exits 1 on a difference not listed, 2 when Apache Kafka cannot run.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import random
import socket
import struct
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from kafkette.protocol.api_keys import KAFKA_APIS
from kafkette.protocol.apis.create_topics import (
    CreatableReplicaAssignment,
    CreatableTopic,
    CreateTopicsRequest,
)
from kafkette.protocol.apis.find_coordinator import FindCoordinatorRequest
from kafkette.protocol.apis.producer_ids import InitProducerIdRequest
from kafkette.protocol.kafka_header import KafkaRequestHeader, encode_request_header, request_header_version
from kafkette.protocol.kafka_schema import KafkaSchemaError
from tests.conformance.fuzz_differences import listed
from tests.conformance.fuzz_strategies import (
    GROUPS,
    TOPIC_PARTITIONS,
    TRANSACTIONAL_IDS,
    mutated,
    pack_length,
    request_values,
)
from tests.conformance.kafka_parser import ParserUnavailable, parse
from tests.conformance.kafka_specs import Spec, encode_request, in_range, request_specs
from tests.conformance.target import SHARED_BROKER_CONFIGS, Target
from tests.peers.kafka_peer import PeerUnavailable

FUZZ_BROKER_CONFIGS: dict[str, object] = {**SHARED_BROKER_CONFIGS, "offsets.topic.num.partitions": 1}
ANSWER_WAIT_S = 3.0
"""How long a request waits for its answer before it counts as waited on (s)."""
GROUP_APIS = frozenset(
    {
        "OffsetCommit",
        "OffsetFetch",
        "JoinGroup",
        "Heartbeat",
        "LeaveGroup",
        "SyncGroup",
        "DescribeGroups",
        "DeleteGroups",
        "OffsetDelete",
        "TxnOffsetCommit",
    }
)
TRANSACTION_APIS = frozenset(
    {"InitProducerId", "AddPartitionsToTxn", "AddOffsetsToTxn", "EndTxn", "DescribeTransactions"}
)
"""Sent to the fuzz transactional id's coordinator (another node answers NOT_COORDINATOR, and which
node coordinates is each cluster's placement)."""
LOADING = frozenset({14, 15, 16})
"""COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR."""
TOPIC_LEADER = 1
"""The node leading every partition of the fuzz topics on both clusters."""


@dataclass
class Case:
    """One fuzz request.

    Attributes:
        api_key / api / version: which API and version (the header always says these).
        values: the values it was encoded from.
        body: the body sent (mutated or not).
        mutation: ``"none"`` or the byte-level mutation (``fuzz_strategies.MUTATIONS``).
        length: the frame length announced minus the header's, or a negative frame length.
    """

    api_key: int
    api: str
    version: int
    values: dict[str, Any]
    body: bytes
    mutation: str
    length: int

    @property
    def label(self) -> str:
        return f"{self.api} v{self.version} ({self.mutation})"


@dataclass
class Outcome:
    """What one broker did with one case: ``kind`` is ``answer``, ``closed`` or ``waited``; the
    answer frame (length prefix excluded); whether the broker still answered an ApiVersions
    on a fresh connection afterwards."""

    kind: str
    frame: bytes = b""
    alive: bool = True


@dataclass
class FuzzReport:
    """The fuzz's figures and findings.

    Attributes:
        seed / examples: as given.
        covered: ``{api: [versions]}`` fuzzed.
        skipped: ``{api: [versions]}`` the listener offers that Kafka 4.3.1 does not.
        cases: requests sent to each cluster; mutated: how many of them were mutated.
        differences: each ``label: what`` not listed in ``FUZZ_DIFFERENCES``.
        listed: the same for the listed ones, with the reason.
        raced: the same for differences where one broker missed a short positive ``TimeoutMs``
            (``_raced``): timing, not behaviour, so reported but never failing.
        failures: Kafkette answers that did not parse or write back, and crashes.
        kafka_failures: the same for Apache Kafka's answers.
        seconds: the wall time of the sending and checking.
    """

    seed: int
    examples: int
    covered: dict[str, list[int]] = field(default_factory=dict)
    skipped: dict[str, list[int]] = field(default_factory=dict)
    cases: int = 0
    mutated: int = 0
    differences: list[str] = field(default_factory=list)
    listed: list[str] = field(default_factory=list)
    raced: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    kafka_failures: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def summary(self) -> str:
        versions = sum(len(v) for v in self.covered.values())

        def grouped(lines: list[str]) -> list[str]:
            return [f"{n} x {line}" for line, n in Counter(lines).most_common()]

        out = [
            f"fuzz seed {self.seed}, {self.examples} examples per API version: {len(self.covered)} APIs, "
            f"{versions} versions, {self.cases} requests to each cluster ({self.mutated} mutated at the byte "
            f"level), {len(self.failures)} Kafkette failures, {len(self.kafka_failures)} Kafka failures, "
            f"{len(self.differences)} new differences, {len(self.listed)} listed ones, "
            f"{len(self.raced)} timing races; {self.seconds:.0f} s; "
            f"replay: python -m tests.conformance.fuzz --seed {self.seed} --examples {self.examples}"
        ]
        out += [f"FAILURE {f}" for f in self.failures]
        out += [f"KAFKA FAILURE {f}" for f in self.kafka_failures]
        out += [f"DIFFERENCE {d}" for d in grouped(self.differences)]
        out += [f"listed {d}" for d in grouped(self.listed)]
        out += [f"timing race {d}" for d in grouped(self.raced)]
        if self.skipped:
            out.append(f"not fuzzed (Kafka 4.3.1 rejects these versions): {self.skipped}")
        return "\n".join(out)


def versions_to_fuzz(specs: dict[int, Spec]) -> tuple[dict[int, list[int]], dict[str, list[int]]]:
    """Per API key the versions the listener offers that Kafka's spec also allows, and per API
    name the offered ones Kafka does not (nothing to compare with)."""
    chosen: dict[int, list[int]] = {}
    skipped: dict[str, list[int]] = {}
    for key, api in sorted(KAFKA_APIS.items()):
        spec = specs[key]
        for version in range(api.min_version, api.max_version + 1):
            if in_range(spec.valid, version):
                chosen.setdefault(key, []).append(version)
            else:
                skipped.setdefault(api.name, []).append(version)
    return chosen, skipped


def generate(seed: int, examples: int, specs: dict[int, Spec] | None = None) -> tuple[list[Case], dict, dict]:
    """The cases of one fuzz run: for each API version, ``examples`` drawn by Hypothesis
    (``@seed`` derived from ``seed``, no example database, so the same seed gives the same
    cases), about half of them mutated at the byte level.

    Returns:
        ``(cases, {api: [versions]} covered, {api: [versions]} skipped)``.
    """
    specs = specs or request_specs()
    chosen, skipped = versions_to_fuzz(specs)
    cases: list[Case] = []
    covered: dict[str, list[int]] = {}
    for key, versions in chosen.items():
        spec, name = specs[key], KAFKA_APIS[key].name
        covered[name] = versions
        for version in versions:
            cases.extend(_draw(spec, key, name, version, seed * 1000 + key * 20 + version, examples))
    return cases, covered, skipped


def _draw(spec: Spec, key: int, name: str, version: int, seed: int, examples: int) -> list[Case]:
    """``examples`` cases of one API version drawn by Hypothesis with ``@seed(seed)``."""
    found: list[Case] = []

    @settings(max_examples=examples, database=None, phases=[Phase.generate], deadline=None)
    @hypothesis_seed(seed)
    @given(values=request_values(spec, version), data=st.data())
    def collect(values: dict[str, Any], data: st.DataObject) -> None:
        try:
            body = encode_request(spec, values, version)
        except struct.error:
            return
        kind, length, sent = data.draw(st.one_of(st.just(("none", len(body), body)), mutated(body)))
        found.append(Case(key, name, version, values, sent, kind, length))

    collect()
    return found


def _read(sock: socket.socket, size: int) -> bytes | None:
    chunks = []
    while size:
        chunk = sock.recv(min(size, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def send(address: tuple[str, int], case: Case, correlation_id: int) -> Outcome:
    """Send one case on a fresh connection; what the broker did (``alive`` not yet checked)."""
    header = encode_request_header(
        KafkaRequestHeader(case.api_key, case.version, correlation_id, "fuzz"),
        request_header_version(KAFKA_APIS[case.api_key].flexible(case.version)),
    )
    length = case.length if case.length < 0 else len(header) + case.length
    try:
        with socket.create_connection(address, timeout=ANSWER_WAIT_S) as sock:
            sock.sendall(pack_length(length) + header + case.body)
            head = _read(sock, 4)
            if head is None:
                return Outcome("closed")
            frame = _read(sock, struct.unpack(">i", head)[0])
            return Outcome("closed") if frame is None else Outcome("answer", frame)
    except TimeoutError:
        return Outcome("waited")
    except ConnectionError:
        return Outcome("closed")


def alive(address: tuple[str, int]) -> bool:
    """Whether the broker answers an ApiVersions v0 on a fresh connection."""
    header = encode_request_header(KafkaRequestHeader(18, 0, 1, "fuzz-alive"), 1)
    try:
        with socket.create_connection(address, timeout=10) as sock:
            sock.sendall(pack_length(len(header)) + header)
            head = _read(sock, 4)
            return head is not None and _read(sock, struct.unpack(">i", head)[0]) is not None
    except OSError:
        return False


def coordinator(target: Target, key: str, key_type: int, timeout_s: float = 60.0) -> int:
    """The node coordinating a group (``key_type`` 0) or a transactional id (1); FindCoordinator
    v1 retried while the cluster has none yet; the lowest node when none answers in time."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError, KafkaSchemaError):
            answer = target.call("FindCoordinator", 1, FindCoordinatorRequest(key=key, key_type=key_type))
            if answer.error_code == 0 and answer.node_id in target.addresses:
                return answer.node_id
        time.sleep(0.2)
    return min(target.addresses)


def prepare(target: Target) -> dict[str, int]:
    """Create the fuzz topics (every partition led by ``TOPIC_LEADER``), put a few records in
    fuzz-a, and find the group and transaction coordinators; the node each kind of API goes to."""
    topics = [
        CreatableTopic(
            name=t,
            num_partitions=-1,
            replication_factor=-1,
            configs=[],
            assignments=[
                CreatableReplicaAssignment(partition_index=p, broker_ids=[TOPIC_LEADER]) for p in range(n)
            ],
        )
        for t, n in TOPIC_PARTITIONS.items()
    ]
    answer = target.call(
        "CreateTopics", 5, CreateTopicsRequest(topics=topics, timeout_ms=30000, validate_only=False)
    )
    failed = [(t.name, t.error_code) for t in answer.topics if t.error_code != 0]
    if failed:
        raise RuntimeError(f"{target.name}: the fuzz topics were not created: {failed}")
    for topic, partitions in TOPIC_PARTITIONS.items():
        target.wait_topic(topic, partitions)
    target.produce_values("fuzz-a", [b"one", b"two", b"three"])
    group = coordinator(target, GROUPS[0], 0)
    transaction = coordinator(target, TRANSACTIONAL_IDS[0], 1)
    settle_transactions(target, transaction)
    return {"group": group, "transaction": transaction, "other": TOPIC_LEADER}


def settle_transactions(target: Target, node: int, timeout_s: float = 60.0) -> None:
    """Wait until the transaction coordinator of the fuzz's transactional id has loaded its
    state: InitProducerId retried while it answers COORDINATOR_LOAD_IN_PROGRESS,
    COORDINATOR_NOT_AVAILABLE or NOT_COORDINATOR (Kafka creates ``__transaction_state`` at the
    first ask), so that the fuzz compares answers, not how far each cluster got in loading."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError, KafkaSchemaError):
            answer = target.call(
                "InitProducerId",
                1,
                InitProducerIdRequest(transactional_id=TRANSACTIONAL_IDS[0], transaction_timeout_ms=60000),
                node,
            )
            if answer.error_code not in LOADING:
                return
        time.sleep(0.2)


def run_cases(target: Target, cases: Sequence[Case], routes: dict[str, int]) -> list[Outcome]:
    """Send every case to ``target`` in order (malformed ones followed by an ApiVersions on a
    fresh connection); one outcome each."""
    outcomes = []
    for i, case in enumerate(cases):
        kind = (
            "group" if case.api in GROUP_APIS else "transaction" if case.api in TRANSACTION_APIS else "other"
        )
        address = target.addresses[routes[kind]]
        outcome = send(address, case, i + 1)
        if case.mutation != "none" or outcome.kind != "answer":
            outcome.alive = alive(address)
        outcomes.append(outcome)
    return outcomes


def _internal(element: Any) -> bool:
    """A list element naming an internal topic (``__consumer_offsets``, ``__transaction_state``):
    which of them exist, with how many partitions, is each cluster's own affair."""
    return isinstance(element, dict) and any(
        isinstance(element.get(k), str) and element[k].startswith("__")
        for k in ("name", "topic", "topicName")
    )


def error_codes(value: Any, path: str = "") -> dict[str, Counter[int]]:
    """Every ``errorCode`` in a parsed answer by its path (list indexes dropped, elements naming
    an internal topic left out), the codes found there counted."""
    found: dict[str, Counter[int]] = {}
    if _internal(value):
        return found
    children: list[tuple[str, Any]] = []
    if isinstance(value, dict):
        for k, v in value.items():
            child = f"{path}.{k}" if path else k
            if k == "errorCode" and isinstance(v, int):
                found.setdefault(child, Counter())[v] += 1
            else:
                children.append((child, v))
    elif isinstance(value, list):
        children = [(f"{path}[]", v) for v in value]
    for child, v in children:
        for where, codes in error_codes(v, child).items():
            found.setdefault(where, Counter()).update(codes)
    return found


def compare(
    cases: Sequence[Case], outcomes: dict[str, list[Outcome]], work: Path, report: FuzzReport
) -> None:
    """Parse both clusters' answers with Kafka's classes and compare kinds, liveness and error
    codes, filling ``report``."""
    files = {}
    for name, outs in outcomes.items():
        lines = [
            json.dumps(
                {
                    "target": name,
                    "scenario": f"fuzz/{c.api}/v{c.version}",
                    "seq": i,
                    "conn": "",
                    "api_key": c.api_key,
                    "api_version": c.version,
                    "response": base64.b64encode(o.frame).decode(),
                }
            )
            for i, (c, o) in enumerate(zip(cases, outs, strict=True))
            if o.kind == "answer"
        ]
        files[name] = work / f"fuzz-{name}.jsonl"
        files[name].write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    parsed: dict[tuple[str, int], dict[str, Any]] = {
        (r["target"], r["seq"]): r for r in parse(list(files.values()))
    }
    for i, case in enumerate(cases):
        kafka, ours = outcomes["kafka"][i], outcomes["kafkette"][i]
        if not ours.alive:
            report.failures.append(f"{case.label}: Kafkette did not answer an ApiVersions after it")
        if not kafka.alive:
            report.kafka_failures.append(f"{case.label}: Kafka did not answer an ApiVersions after it")
        for name, outcome, sink in (
            ("kafka", kafka, report.kafka_failures),
            ("kafkette", ours, report.failures),
        ):
            r = parsed.get((name, i))
            if outcome.kind == "answer" and (r is None or not r["ok"]):
                sink.append(f"{case.label}: {r['error'] if r else 'not parsed'} values={_short(case.values)}")
        if kafka.kind != ours.kind:
            _difference(
                report, case, f"connection/{case.mutation}", f"Kafka {kafka.kind}, Kafkette {ours.kind}"
            )
            continue
        theirs, mine = parsed.get(("kafka", i)), parsed.get(("kafkette", i))
        if kafka.kind != "answer" or not (theirs and mine and theirs["ok"] and mine["ok"]):
            continue
        a, b = error_codes(theirs["parsed"]), error_codes(mine["parsed"])
        for where in sorted(set(a) | set(b)):
            theirs_at, mine_at = a.get(where, Counter()), b.get(where, Counter())
            if theirs_at != mine_at:
                _difference(
                    report,
                    case,
                    where,
                    f"Kafka {sorted(theirs_at.elements())}, Kafkette {sorted(mine_at.elements())}",
                    theirs_at - mine_at,
                    mine_at - theirs_at,
                )


def _short(values: Any) -> str:
    return json.dumps(values, default=lambda v: v.hex() if isinstance(v, bytes) else str(v))[:400]


REQUEST_TIMED_OUT = 7


def _raced(case: Case, kafka: Counter[int] | None, kafkette: Counter[int] | None) -> bool:
    """Whether a difference is one broker missing a short positive ``TimeoutMs`` the request
    gave (a controller API's deadline, KIP-590's forwarding): that side's extra codes are all
    REQUEST_TIMED_OUT, so which side makes it depends on the machine's load, not on behaviour."""
    timeout = next((v for k, v in case.values.items() if k.lower() == "timeoutms"), None)
    if not isinstance(timeout, int) or timeout <= 0:
        return False
    return any(side and set(side) == {REQUEST_TIMED_OUT} for side in (kafka, kafkette))


def _difference(
    report: FuzzReport,
    case: Case,
    where: str,
    what: str,
    kafka: Counter[int] | None = None,
    kafkette: Counter[int] | None = None,
) -> None:
    """Report one difference, apart when ``fuzz_differences`` lists it (``kafka`` / ``kafkette``:
    the codes each side gives at ``where`` that the other does not)."""
    entry = listed(case.api, where, (kafka or Counter()).elements(), (kafkette or Counter()).elements())
    line = f"{case.label} {where}: {what}"
    if entry is not None:
        report.listed.append(line)
    elif _raced(case, kafka, kafkette):
        report.raced.append(line)
    else:
        report.differences.append(f"{line} values={_short(case.values)}")


def fuzz(targets: dict[str, Target], seed: int, examples: int, work: Path) -> FuzzReport:
    """One fuzz run against running clusters (``{"kafka": ..., "kafkette": ...}``, fuzz topics
    not yet created).

    Raises:
        ParserUnavailable: the Java parser could not be compiled or run.
        PeerUnavailable: the Kafka jars cannot be resolved.
    """
    report = FuzzReport(seed, examples)
    cases, report.covered, report.skipped = generate(seed, examples)
    report.cases = len(cases)
    report.mutated = sum(c.mutation != "none" for c in cases)
    started = time.monotonic()
    outcomes: dict[str, list[Outcome]] = {}
    errors: dict[str, BaseException] = {}

    def one(name: str) -> None:
        try:
            outcomes[name] = run_cases(targets[name], cases, prepare(targets[name]))
        except Exception as exc:  # noqa: BLE001 - re-raised in the caller's thread
            errors[name] = exc

    threads = [threading.Thread(target=one, args=(n,), name=f"fuzz-{n}") for n in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        name, exc = next(iter(errors.items()))
        raise RuntimeError(f"the fuzz could not run on {name}: {exc}") from exc
    compare(cases, outcomes, work, report)
    report.seconds = time.monotonic() - started
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=None, help="the seed (default: a random one, printed)")
    parser.add_argument("--examples", type=int, default=4, help="examples per API version (default 4)")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    print(
        f"fuzz seed {seed} (replay: python -m tests.conformance.fuzz --seed {seed} --examples "
        f"{args.examples})",
        flush=True,
    )
    from tests.conformance.run import clusters

    with tempfile.TemporaryDirectory(prefix="fuzz-") as work:
        try:
            with clusters(Path(work), FUZZ_BROKER_CONFIGS) as targets:
                report = fuzz(targets, seed, args.examples, Path(work))
        except (PeerUnavailable, ParserUnavailable) as exc:
            print(f"Error: {exc}", file=sys.stderr)
            return 2
    print(report.summary())
    return 0 if not report.failures and not report.differences and not report.kafka_failures else 1


if __name__ == "__main__":
    sys.exit(main())
