"""One run of librdkafka's ``test-runner`` against one cluster's Kafka listener, and what each
test came to.

Owns: the run's ``test.conf`` (``bootstrap.servers``, the client security settings of the
security mode, and nothing else a broker would not give every client), its environment
(``TEST_KAFKA_VERSION``, ``TESTS``, ``TEST_REPORT``), the runner's flags per mode (``MODES``), and
reading its report and output into ``Outcome``\\ s (state and first error line per test).
The runner itself is librdkafka's, unchanged; its tests are the ``tests/[08]*-*.c`` programs of
``librdkafka_build``.  Does not own building it nor any broker.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

# librdkafka's runner flags per mode: -L skips the local (broker-less, mock cluster) tests,
# which never reach the broker under test; -Q is its quick mode (less data, fewer iterations);
# -P runs every test with enable.idempotence=true (librdkafka's own "broker_idempotent" target
# runs it as -P -L -Q).
MODES: dict[str, tuple[str, ...]] = {
    "quick": ("-Q", "-L"),
    "full": ("-L",),
    "idempotent": ("-P", "-L", "-Q"),
    # librdkafka's SASL/SSL/ACL tests against SASL_SSL listeners (``security``); its local tests
    # (SSL key and certificate parsing) too.
    "security": (),
    # librdkafka's ACL tests (``kafka-acls.sh`` through ``KAFKA_PATH``) against PLAINTEXT client
    # listeners behind the StandardAuthorizer (``acl``).
    "acl": ("-L",),
}
PARALLEL_TESTS = 3
# The runner's summary table: "|<colour> <name> | <STATE> | <seconds>s <colour>| <reason>"
_SUMMARY_LINE = re.compile(
    r"^\|\s*(?P<name>[0-9]{4}_\S+)\s*\|\s*(?P<state>[A-Z_]+)\s*\|\s*(?P<secs>[0-9.]+)s\s*\|"
    r"(?P<reason>.*)$"
)
# Its progress lines, which a run killed before its summary still has.
_PROGRESS_LINE = re.compile(
    r"=+ (?:Running test (?P<running>\S+)|Test (?P<name>\S+) (?P<state>PASSED|FAILED|SKIPPED))"
)
# A failure: '### Test "<name>[ (<subtest>)]" failed at <file>:<line>:<func>() at <time>: ###', then its
# message.
_FAILURE_HEAD = re.compile(r'### Test "(?P<name>[0-9]{4}_[^" ]+)[^"]*" failed at (?P<where>\S+?:\d+):')
_SKIP_LINE = re.compile(r"^\[(?P<name>[0-9]{4}_\S+)\s*/[^]]*\]\s*(?:WARN:\s*)?SKIPPING TEST: (?P<reason>.*)$")
# The runner itself dying (an assertion of librdkafka's test harness or of the C library).
_RUNNER_ABORT = re.compile(r"^test-runner: .*Assertion .* failed\.$")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
# An entry of the runner's test table in test.c: "    _TEST(0033_regex_subscribe, 0, ...),".
_TEST_ENTRY = re.compile(r"^\s*_TEST\((?P<name>[0-9]{4}_\w+),", re.MULTILINE)
RUNNER_DIED = "the runner died"
# How many times a run whose runner died is resumed after the last test it started.
MAX_RESUMES = 3


@dataclass
class Outcome:
    """What one librdkafka test came to in one run.

    Attributes:
        name: the test (``0001_multiobj``).
        state: the runner's: ``PASSED``, ``FAILED``, ``SKIPPED``, ``RUNNING`` (did not finish in
            time) or ``NOT_STARTED``.
        error: the first error line for a failed test (the runner's reason, else the first line
            of its output naming the failure), the skip reason for a skipped one, else ``""``.
        seconds: its duration (s).
    """

    name: str
    state: str
    error: str
    seconds: float


def write_test_conf(path: Path, bootstrap: str, client_conf: dict[str, str] | None = None) -> Path:
    """A ``test.conf`` for the runner: the cluster's bootstrap servers, IPv4 (the listeners bind
    127.0.0.1), the test timeouts doubled (the machine is shared), then ``client_conf`` (librdkafka
    properties every test client gets: ``security.protocol``, ``sasl.*``, ``ssl.*``), one
    ``name=value`` a line.

    Raises:
        ValueError: a name or value of ``client_conf`` holds a line break or a name holds ``=``
            (the file is line- and ``=``-separated).
    """
    lines = [f"bootstrap.servers={bootstrap}", "broker.address.family=v4", "test.timeout.multiplier=2"]
    for name, value in (client_conf or {}).items():
        if "=" in name or any(c in f"{name}{value}" for c in "\r\n"):
            raise ValueError(f"test.conf property {name!r}={value!r}: no line breaks, no '=' in a name")
        lines.append(f"{name}={value}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def parse_output(
    output: str, report: str | None = None, exit_status: str | None = None
) -> dict[str, Outcome]:
    """The per-test outcomes of a run: its JSON report (``TEST_REPORT``, written before the
    runner exits) where there is one, else its summary table, else its progress lines (a test
    that started and never ended is ``RUNNING``); a failed test's error is its first failure's
    message and where librdkafka's test raised it, a skipped one's its skip reason.

    Args:
        output: the runner's stdout and stderr, colour codes included.
        report: the text of its JSON report, if it wrote one.
        exit_status: how the runner ended when it ended before writing its report and was not
            killed for time (``"killed by signal 11"``): it died, with no last words of its own.

    Returns:
        ``{test name: Outcome}`` for every test the runner started or listed.
    """
    lines = _ANSI.sub("", output).splitlines()
    aborted = next((line.strip() for line in lines if _RUNNER_ABORT.match(line.strip())), exit_status)
    outcomes: dict[str, Outcome] = {}
    first_failure: dict[str, str] = {}
    skip_reason: dict[str, str] = {}
    for i, line in enumerate(lines):
        if (head := _FAILURE_HEAD.search(line)) and head["name"] not in first_failure:
            message = lines[i + 1].strip() if i + 1 < len(lines) else ""
            first_failure[head["name"]] = f"{message} ({head['where']})"
        elif skipped := _SKIP_LINE.match(line.strip()):
            skip_reason.setdefault(skipped["name"], skipped["reason"].strip())
        elif progress := _PROGRESS_LINE.search(line):
            name = progress["running"] or progress["name"]
            outcomes[name] = Outcome(name, progress["state"] or "RUNNING", "", 0.0)
    for line in lines:
        if match := _SUMMARY_LINE.match(line.strip()):
            name = match["name"].strip()
            outcomes[name] = Outcome(name, match["state"], match["reason"].strip(), float(match["secs"]))
    tests = _report_tests(report)
    for name, entry in tests.items():
        if name[:4].isdigit():
            outcomes[name] = Outcome(
                name, str(entry.get("state", "NOT_STARTED")), "", float(entry.get("duration", 0.0))
            )
    for outcome in outcomes.values():
        if outcome.name in first_failure and outcome.state in ("FAILED", "RUNNING"):
            outcome.state = "FAILED"
            outcome.error = first_failure[outcome.name]
        elif outcome.state == "RUNNING":
            outcome.error = f"{RUNNER_DIED}: {aborted}" if aborted else "did not finish before the run ended"
        elif outcome.state == "SKIPPED" and not outcome.error:
            outcome.error = skip_reason.get(outcome.name, "")
    return outcomes


def _report_tests(report: str | None) -> dict[str, dict]:
    if not report:
        return {}
    try:
        return dict(json.loads(report).get("tests", {}))
    except (ValueError, AttributeError):
        return {}


def run(
    tests_dir: Path,
    bootstrap: str,
    mode: str,
    work_dir: Path,
    broker_version: str,
    tests: str | None = None,
    timeout_s: float = 3600.0,
    skip_before: str | None = None,
    client_conf: dict[str, str] | None = None,
    extra_env: dict[str, str] | None = None,
) -> tuple[dict[str, Outcome], Path]:
    """Run librdkafka's test-runner once against ``bootstrap``.

    Args:
        tests_dir: the built ``tests`` directory (``librdkafka_build.build()``).
        bootstrap: the Kafka listeners' ``host:port,...``.
        mode: a key of ``MODES``.
        work_dir: where the run's ``test.conf``, report and log go (made if absent).
        broker_version: ``TEST_KAFKA_VERSION``: which tests apply and which features they use.
        tests: ``TESTS``: a substring a test's name must contain (``None``: every test); a
            comma-separated list of names runs those.
        timeout_s: the whole run's bound (s); the runner is killed after it and the tests it had
            not finished count as ``RUNNING``/``NOT_STARTED``.
        skip_before: ``TESTS_SKIP_BEFORE``: a test number; the tests before it in the runner's
            table are skipped (librdkafka's way to resume a run).
        client_conf: extra ``test.conf`` properties (``write_test_conf``).
        extra_env: extra environment variables of the runner (``KAFKA_PATH``: where its tests
            find Kafka's ``bin/`` scripts).

    Returns:
        The outcomes by test name, and the log of the run (stdout and stderr).
    """
    work_dir.mkdir(parents=True, exist_ok=True)
    conf = write_test_conf(work_dir / "test.conf", bootstrap, client_conf)
    # Tests read key stores and certificates from ./fixtures (0133_ssl_keys), as run in tests/.
    fixtures = work_dir / "fixtures"
    if (tests_dir / "fixtures").is_dir() and not fixtures.exists():
        fixtures.symlink_to(tests_dir / "fixtures", target_is_directory=True)
    log = work_dir / f"test-runner-{mode}.log"
    lib_path = os.pathsep.join(str(tests_dir.parent / d) for d in ("src", "src-cpp"))
    env = {
        **os.environ,
        "RDKAFKA_TEST_CONF": str(conf),
        "TEST_KAFKA_VERSION": broker_version,
        "TEST_REPORT": str(work_dir / f"report-{mode}.json"),
        "RDKAFKA_GITVER": "librdkafka",
        "LD_LIBRARY_PATH": lib_path + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""),
        **(extra_env or {}),
    }
    env.pop("TESTS", None)
    env.pop("TESTS_SKIP_BEFORE", None)
    if tests:
        env["TESTS"] = tests
    if skip_before:
        env["TESTS_SKIP_BEFORE"] = skip_before
    report = work_dir / f"report-{mode}.json"
    report.unlink(missing_ok=True)
    args = [str(tests_dir / "test-runner"), *MODES[mode], f"-p{PARALLEL_TESTS}"]
    with log.open("w", encoding="utf-8") as out:
        process = subprocess.Popen(
            args, cwd=work_dir, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            process.wait(timeout=timeout_s)
            timed_out = False
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)
            timed_out = True
    text = report.read_text(encoding="utf-8", errors="replace") if report.exists() else None
    code = process.returncode
    died = (
        None
        if timed_out or text is not None
        else (f"killed by signal {-code}" if code < 0 else f"exited with status {code} before its report")
    )
    return parse_output(log.read_text(encoding="utf-8", errors="replace"), text, died), log


def declared_tests(test_c: str) -> list[str]:
    """The tests of librdkafka's runner in the order it starts them.

    Args:
        test_c: the text of the suite's ``tests/test.c`` (its ``tests[]`` table of ``_TEST(...)``).

    Returns:
        The test names (``0001_multiobj``, ...) in table order.
    """
    return [match["name"] for match in _TEST_ENTRY.finditer(test_c)]


def resume_point(outcomes: dict[str, Outcome], declared: list[str]) -> str | None:
    """Where to resume a run whose runner itself died: the number of the first test of the table
    after the last one the run started (the runner starts tests in table order).

    Args:
        outcomes: one run's outcomes (``parse_output``).
        declared: ``declared_tests`` of the same suite.

    Returns:
        A 4-digit test number for ``TESTS_SKIP_BEFORE``, or None when the runner did not die or
        had started the table's last test.
    """
    if not any(o.error.startswith(RUNNER_DIED) for o in outcomes.values()):
        return None
    started = [
        declared.index(name) for name, o in outcomes.items() if name in declared and o.state != "SKIPPED"
    ]
    after = max(started, default=-1) + 1
    return declared[after][:4] if after < len(declared) else None


def run_to_the_end(
    tests_dir: Path,
    bootstrap: str,
    mode: str,
    work_dir: Path,
    broker_version: str,
    tests: str | None = None,
    timeout_s: float = 3600.0,
    client_conf: dict[str, str] | None = None,
    extra_env: dict[str, str] | None = None,
) -> tuple[dict[str, Outcome], Path]:
    """``run``, resumed (up to ``MAX_RESUMES`` times, within the same ``timeout_s``) after the
    last test it started when the runner itself dies (an assertion of librdkafka's harness or of
    the C library): the tests it never reached still get their outcome.  The tests running when
    it died keep ``RUNNING`` with the runner's last words as their error.

    Args and Returns: as ``run``; the log is the first run's (each resumed run writes its own
    under ``work_dir``/``resume-<n>``).
    """
    deadline = time.monotonic() + timeout_s
    outcomes, log = run(
        tests_dir,
        bootstrap,
        mode,
        work_dir,
        broker_version,
        tests,
        timeout_s,
        client_conf=client_conf,
        extra_env=extra_env,
    )
    declared = declared_tests((tests_dir / "test.c").read_text(encoding="utf-8", errors="replace"))
    latest = outcomes
    for attempt in range(1, MAX_RESUMES + 1):
        start_at = resume_point(latest, declared)
        remaining = deadline - time.monotonic()
        if start_at is None or remaining <= 0:
            break
        print(
            f"[{mode}] the runner died; resuming at {start_at} (log {work_dir / f'resume-{attempt}'})",
            flush=True,
        )
        latest, _ = run(
            tests_dir,
            bootstrap,
            mode,
            work_dir / f"resume-{attempt}",
            broker_version,
            tests,
            remaining,
            skip_before=start_at,
            client_conf=client_conf,
            extra_env=extra_env,
        )
        for name, outcome in latest.items():
            if name not in outcomes or outcomes[name].state == "NOT_STARTED":
                outcomes[name] = outcome
    return outcomes, log
