"""Apache Kafka's own classes as the judge of every recorded answer: ``java/ParseAnswers.java``
(compiled against the peer's kafka-clients jar) parses each response with
``AbstractResponse.parseResponse`` for its API and version, checks that writing it back gives
the same bytes and that every record batch of a Fetch answer passes ``RecordBatch.ensureValid``;
then the parsed answers of Kafkette are compared field by field with Apache Kafka's answers to
the same requests, with only the fields of ``masks.MASKS`` masked.

Owns the compile and run of the Java parser (one JVM for all pairs), the pairing of the two
targets' answers and the coverage of the listener's APIs; not the recording (``recorder``).

Pairing, within a scenario and connection by connection (the target's kept connections, to
whichever node, count as one: which node leads differs between the clusters; the group members'
own connections are the n-th one their scenario opened, the same on both clusters even when
members answer from several threads at once): first each run of equal consecutive requests of a target (a wait
polling until the cluster settles, as many times as its timing needs) is reduced to its last
answer, the settled one; then the two targets' answers are paired in order when they asked the
same APIs at the same versions in the same order, else per API and version from the last one
backwards, the rest counted as unpaired.  Request bodies are compared only within one target:
across the clusters they legitimately differ (topic ids in Fetch v13+).
"""

from __future__ import annotations

import json
import re
import subprocess
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.conformance.deliberate import DELIBERATE
from tests.conformance.known_differences import known
from tests.conformance.masks import MASKS, Mask
from tests.peers.kafka_peer import cache_dir, java_binary, resolve

SOURCE = Path(__file__).parent / "java" / "ParseAnswers.java"
MASKED = "<masked>"
UNSET: tuple[Any, ...] = (None, 0, -1, "", "AAAAAAAAAAAAAAAAAAAAAA")
PARSE_TIMEOUT_S = 600


class ParserUnavailable(RuntimeError):
    """The Java parser could not be compiled or run; the message says why."""


def compile_parser() -> Path:
    """Compile ``ParseAnswers.java`` into the peer cache (again only when the source changed);
    the classes directory.

    Raises:
        ParserUnavailable: javac failed or is missing.
        PeerUnavailable: the Kafka jars cannot be resolved.
    """
    libs = resolve()
    classes = cache_dir() / "parse-answers"
    target = classes / "ParseAnswers.class"
    if target.exists() and target.stat().st_mtime >= SOURCE.stat().st_mtime:
        return classes
    classes.mkdir(parents=True, exist_ok=True)
    javac = str(Path(java_binary()).with_name("javac"))
    try:
        done = subprocess.run(
            [javac, "-d", str(classes), "-cp", f"{libs}/*", str(SOURCE)],
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
    except OSError as exc:
        raise ParserUnavailable(f"cannot run javac: {exc}") from exc
    if done.returncode != 0:
        raise ParserUnavailable(f"javac failed: {done.stderr[-2000:]}")
    return classes


def parse(files: Sequence[Path]) -> list[dict[str, Any]]:
    """Run the Java parser over the JSON-lines pair files (one JVM); one result per pair.

    Raises:
        ParserUnavailable: it could not be compiled or did not finish.
    """
    classes = compile_parser()
    command = [java_binary(), "-Xmx512m", "-cp", f"{classes}:{resolve()}/*", "ParseAnswers", *map(str, files)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=PARSE_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ParserUnavailable(f"the Java parser did not run: {exc}") from exc
    if done.returncode != 0:
        raise ParserUnavailable(f"the Java parser exited {done.returncode}: {done.stderr[-2000:]}")
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def api_name(key: int) -> str:
    """Kafka's name of an API key (``Metadata``), from Kafkette's table of every API it declares."""
    from kafkette.protocol.api_keys import APIS

    api = next((a for a in APIS if a.key == key), None)
    return api.name if api is not None else f"api{key}"


def _masks(api: str) -> dict[str, list[Mask]]:
    """The masks of ``api`` by the path they apply to."""
    out: dict[str, list[Mask]] = defaultdict(list)
    for m in MASKS:
        if m.api in ("*", api):
            out[m.path].append(m)
    return out


def _mask_leaf(value: Any, mask: Mask) -> Any:
    """A masked field's value: ``"<masked>"`` (element by element for a list of ids), except an
    unset value when the mask keeps those, or a value not matching its pattern."""
    if isinstance(value, list) and mask.keep_unset:
        return [_mask_leaf(v, mask) for v in value]
    if mask.keep_unset and value in UNSET:
        return value
    if mask.pattern is not None and re.fullmatch(mask.pattern, str(value)) is None:
        return value
    return MASKED


def _left_out(element: Any, masks: list[Mask]) -> bool:
    return isinstance(element, dict) and any(
        m.where is not None and all(element.get(k) == v for k, v in m.where.items()) for m in masks
    )


def _sort_key(value: Any, mask: Mask) -> str:
    keys = (mask.sort_by,) if isinstance(mask.sort_by, str) else tuple(mask.sort_by or ())
    return json.dumps([value.get(k) for k in keys] if isinstance(value, dict) else value)


def masked(value: Any, api: str, path: str = "", masks: dict[str, list[Mask]] | None = None) -> Any:
    """``value`` (a parsed answer as JSON data) with the fields of ``MASKS`` for ``api`` masked
    (``"<masked>"``, see ``_mask_leaf``), the list elements they leave out removed and the lists
    they sort sorted; ``path`` is where ``value`` sits in the answer."""
    masks = _masks(api) if masks is None else masks
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            child = f"{path}.{k}" if path else k
            leaf = [m for m in masks.get(child, ()) if m.where is None and m.sort_by is None]
            out[k] = _mask_leaf(v, leaf[0]) if leaf else masked(v, api, child, masks)
        return out
    if isinstance(value, list):
        element = masks.get(f"{path}[]", [])
        value = [v for v in value if not _left_out(v, element)]
        for m in element:
            if m.sort_by is not None:
                value = sorted(value, key=lambda v, m=m: _sort_key(v, m))
        return [masked(v, api, path + "[]", masks) for v in value]
    return value


def differences(kafka: Any, ours: Any, path: str = "") -> list[str]:
    """Where two JSON values differ, one line per differing leaf (``path: kafka != kafkette``)."""
    if isinstance(kafka, dict) and isinstance(ours, dict):
        out = []
        for k in sorted(set(kafka) | set(ours)):
            child = f"{path}.{k}" if path else k
            if k not in kafka or k not in ours:
                out.append(
                    f"{child}: {json.dumps(kafka.get(k, '<absent>'))} != "
                    f"{json.dumps(ours.get(k, '<absent>'))}"
                )
            else:
                out.extend(differences(kafka[k], ours[k], child))
        return out
    if isinstance(kafka, list) and isinstance(ours, list) and len(kafka) == len(ours):
        out = []
        for i, (a, b) in enumerate(zip(kafka, ours, strict=True)):
            out.extend(differences(a, b, f"{path}[{i}]"))
        return out
    if kafka != ours:
        return [f"{path}: {json.dumps(kafka)[:300]} != {json.dumps(ours)[:300]}"]
    return []


@dataclass
class AnswerCheck:
    """What Kafka's parser made of one run's answers.

    Attributes:
        parsed: per target, how many answers parsed and wrote back byte-identically.
        failures: per target, ``scenario #seq Api vN: why`` for each answer that did not.
        compared: how many answer pairs (Kafka's, Kafkette's) were compared field by field.
        unpaired: Kafkette's answers with no Kafka answer to compare with.
        differences: ``scenario #seq Api vN: path: kafka != kafkette`` for each difference left
            after the masks.
        deliberate: the same for the scenarios of ``deliberate.DELIBERATE`` (known, not failing).
        known: the same for the fields of ``known_differences.KNOWN_DIFFERENCES`` (gaps still to
            fix, not failing).
        seen: ``{(api key, version)}`` of Kafkette's answers that parsed.
        offered: ``{api key: (min, max)}`` of Kafkette's ApiVersions answer.
    """

    parsed: dict[str, int] = field(default_factory=dict)
    failures: dict[str, list[str]] = field(default_factory=dict)
    compared: int = 0
    unpaired: int = 0
    differences: list[str] = field(default_factory=list)
    deliberate: list[str] = field(default_factory=list)
    known: list[str] = field(default_factory=list)
    seen: set[tuple[int, int]] = field(default_factory=set)
    offered: dict[int, tuple[int, int]] = field(default_factory=dict)

    def difference_summary(self, deliberate: bool = False, known: bool = False) -> list[str]:
        """The differences (or, with ``deliberate`` or ``known``, those ones) grouped by API,
        version and field path (list indexes dropped): one line each, ``count x Api vN path:
        example (first scenario)``."""
        groups: dict[str, list[str]] = defaultdict(list)
        for line in self.deliberate if deliberate else self.known if known else self.differences:
            scenario, rest = line.split(" #", 1)
            _, api, version_and_path = rest.split(" ", 2)
            version, where = version_and_path.split(": ", 1)
            path, example = where.split(": ", 1)
            field_path = re.sub(r"\[[0-9]+\]", "[]", path)
            groups[f"{api} {version.rstrip(':')} {field_path}"].append(f"{example} ({scenario})")
        return [f"{len(v)} x {k}: {v[0]}" for k, v in sorted(groups.items())]

    def coverage_table(self) -> str:
        """A Markdown table: per API the listener offers, its versions and the ones an answer
        was parsed at."""
        lines = ["| API | key | offered | seen | not seen |", "|---|---|---|---|---|"]
        for key in sorted(set(self.offered) | {k for k, _ in self.seen}):
            low, high = self.offered.get(key, (0, -1))
            seen = sorted(v for k, v in self.seen if k == key)
            missing = [v for v in range(low, high + 1) if v not in seen]
            offered = f"{low}-{high}" if high >= low else "-"
            lines.append(
                f"| {api_name(key)} | {key} | {offered} | {','.join(map(str, seen)) or '-'} | "
                f"{','.join(map(str, missing)) or '-'} |"
            )
        return "\n".join(lines)


def _label(r: dict[str, Any]) -> str:
    return f"{r['scenario']} #{r['seq']} {api_name(r['api_key'])} v{r['api_version']}"


def _comparable(r: dict[str, Any]) -> Any:
    api = api_name(r["api_key"])
    return {
        "parsed": masked(r.get("parsed"), api),
        "batches": masked({"batches": r.get("batches", [])}, api)["batches"],
    }


def settled(answers: list[dict[str, Any]], requests: dict[tuple[str, str, int], str]) -> list[dict[str, Any]]:
    """One scenario's answers of one target, each run of equal consecutive requests (a wait
    polling the same request, possibly to each broker in turn) reduced to its last answer, the
    one the wait settled on.  ``requests`` maps (target, scenario, seq) to the request body."""
    out: list[dict[str, Any]] = []
    last_key: tuple[Any, ...] | None = None
    for r in sorted(answers, key=lambda r: r["seq"]):
        key = (r["api_key"], r["api_version"], requests[(r["target"], r["scenario"], r["seq"])])
        if key == last_key:
            out[-1] = r
        else:
            out.append(r)
        last_key = key
    return out


def pair_up(
    kafka: list[dict[str, Any]], ours: list[dict[str, Any]], requests: dict[tuple[str, str, int], str]
) -> tuple[list[tuple[dict, dict]], int]:
    """Pair the answers of one scenario (see the module's docstring): connection by connection
    when both targets used the same connections, else over the whole scenario; the pairs and
    how many of Kafkette's settled answers stayed unpaired.  ``requests`` maps (target,
    scenario, seq) to the request body (base64)."""

    def by_conn(answers: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
        out: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for r in answers:
            out[r.get("conn", "")].append(r)
        return out

    theirs, mine = by_conn(kafka), by_conn(ours)
    if set(theirs) != set(mine):
        return _pair_sequences(kafka, ours, requests)
    pairs, unpaired = [], 0
    for conn, answers in mine.items():
        found, left = _pair_sequences(theirs[conn], answers, requests)
        pairs.extend(found)
        unpaired += left
    return pairs, unpaired


def _pair_sequences(
    kafka: list[dict[str, Any]], ours: list[dict[str, Any]], requests: dict[tuple[str, str, int], str]
) -> tuple[list[tuple[dict, dict]], int]:
    theirs, mine = settled(kafka, requests), settled(ours, requests)
    if [(r["api_key"], r["api_version"]) for r in theirs] == [(r["api_key"], r["api_version"]) for r in mine]:
        return list(zip(theirs, mine, strict=True)), 0
    by_api: dict[tuple[int, int], tuple[list, list]] = defaultdict(lambda: ([], []))
    for r in theirs:
        by_api[(r["api_key"], r["api_version"])][0].append(r)
    for r in mine:
        by_api[(r["api_key"], r["api_version"])][1].append(r)
    pairs, unpaired = [], 0
    for a, b in by_api.values():
        n = min(len(a), len(b))
        pairs.extend(zip(a[len(a) - n :], b[len(b) - n :], strict=True))
        unpaired += len(b) - n
    return pairs, unpaired


def check(pair_files: dict[str, Path]) -> AnswerCheck:
    """Parse both targets' recorded answers with Kafka's classes and compare them.

    Args:
        pair_files: ``{"kafka": path, "kafkette": path}`` of ``AnswerRecorder.write``'s files.

    Returns:
        The ``AnswerCheck``.

    Raises:
        ParserUnavailable: the Java parser could not be compiled or run.
    """
    results = parse([pair_files["kafka"], pair_files["kafkette"]])
    requests: dict[tuple[str, str, int], str] = {}
    for name, path in pair_files.items():
        for line in path.read_text(encoding="utf-8").splitlines():
            pair = json.loads(line)
            requests[(name, pair["scenario"], pair["seq"])] = pair["request"]
    outcome = AnswerCheck(parsed={n: 0 for n in pair_files}, failures={n: [] for n in pair_files})
    by_scenario: dict[str, tuple[list, list]] = defaultdict(lambda: ([], []))
    for r in results:
        name = r["target"]
        if not r["ok"]:
            outcome.failures[name].append(f"{_label(r)}: {r['error']}")
            continue
        outcome.parsed[name] += 1
        if name == "kafkette":
            outcome.seen.add((r["api_key"], r["api_version"]))
            if r["api_key"] == 18 and r["scenario"] == COVERAGE_SCENARIO:
                outcome.offered = {
                    a["apiKey"]: (a["minVersion"], a["maxVersion"]) for a in r["parsed"]["apiKeys"]
                }
        by_scenario[r["scenario"]][0 if name == "kafka" else 1].append(r)
    for kafka, ours in by_scenario.values():
        pairs, unpaired = pair_up(kafka, ours, requests)
        outcome.unpaired += unpaired
        for theirs, mine in pairs:
            outcome.compared += 1
            for d in differences(_comparable(theirs), _comparable(mine)):
                if mine["scenario"] in DELIBERATE:
                    found = outcome.deliberate
                elif known(api_name(mine["api_key"]), re.sub(r"\[[0-9]+\]", "[]", d.split(": ", 1)[0])):
                    found = outcome.known
                else:
                    found = outcome.differences
                found.append(f"{_label(mine)}: {d}")
    return outcome


COVERAGE_SCENARIO = "_listener/api-versions"
