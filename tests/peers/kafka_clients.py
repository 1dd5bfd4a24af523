"""Apache Kafka's Java clients as a user runs them: kafka-clients (KafkaProducer, KafkaConsumer,
Admin), Kafka Streams and Kafka Connect's standalone worker with the file connectors Kafka ships,
for the tests that run them against Kafkette's Kafka listener and against Apache Kafka.

Owns: resolving the pinned jars (``tests/peers/kafka_clients/pom.xml``, ``mvn
dependency:copy-dependencies``) into a cache outside the repository (``KAFKETTE_JAVA_CLIENTS_CACHE``,
by default ``~/.cache/kafkette/kafka-clients-<version>``, a marker file once complete), compiling
the test programs beside the pom (``*.java``) with ``javac`` into that cache (again when a source
changed), and the command lines that run them or one of Kafka's main classes
(``org.apache.kafka.connect.cli.ConnectStandalone``) on that classpath.  It starts no broker.  A
missing Java, javac or Maven, or a registry that cannot be reached, raises ``PeerUnavailable``
with one line naming what is missing.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

from tests.peers.kafka_peer import (
    KAFKA_VERSION,
    TOOLS_LOG4J_CONFIG,
    PeerUnavailable,
    copy_dependencies,
    java_binary,
)

SOURCES = Path(__file__).parent / "kafka_clients"
POM = SOURCES / "pom.xml"
RESOLVE_TIMEOUT_S = 900
COMPILE_TIMEOUT_S = 180
HEAP_MB = 384


def cache_dir() -> Path:
    """Where the resolved jars and the compiled programs live (``KAFKETTE_JAVA_CLIENTS_CACHE`` or
    ``~/.cache/kafkette/kafka-clients-<version>``)."""
    override = os.environ.get("KAFKETTE_JAVA_CLIENTS_CACHE")
    return (
        Path(override) if override else Path.home() / ".cache" / "kafkette" / f"kafka-clients-{KAFKA_VERSION}"
    )


def resolve() -> Path:
    """The directory of the clients' jars, resolved with Maven on first use (a minute; cached after).

    Raises:
        PeerUnavailable: no Maven, or Maven could not resolve the pom (its first error line).
    """
    libs = cache_dir() / "libs"
    marker = cache_dir() / "resolved"
    if marker.exists() and marker.read_text() == POM.read_text():
        return libs
    copy_dependencies(POM, libs, f"Apache Kafka's Java clients {KAFKA_VERSION}", RESOLVE_TIMEOUT_S)
    marker.write_text(POM.read_text())
    return libs


def compiled() -> Path:
    """The directory of the compiled test programs (``SOURCES/*.java``), compiled against the
    resolved jars on first use and again whenever a source changed.

    Raises:
        PeerUnavailable: no javac, or the jars cannot be resolved.
        RuntimeError: javac failed (its output's tail).
    """
    libs = resolve()
    sources = sorted(SOURCES.glob("*.java"))
    digest = hashlib.sha256(b"".join(s.name.encode() + s.read_bytes() for s in sources)).hexdigest()[:16]
    classes = cache_dir() / f"classes-{digest}"
    if (classes / "compiled").exists():
        return classes
    javac = shutil.which("javac", path=str(Path(java_binary()).parent)) or shutil.which("javac")
    if javac is None:
        raise PeerUnavailable(
            "compiling the Java test programs needs a JDK: no javac beside java nor on the PATH"
        )
    classes.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [javac, "-d", str(classes), "-cp", f"{libs}/*", *map(str, sources)],
        capture_output=True,
        text=True,
        timeout=COMPILE_TIMEOUT_S,
    )
    if done.returncode != 0:
        raise RuntimeError(f"javac failed on {SOURCES}: {(done.stderr or done.stdout).strip()[-2000:]}")
    (classes / "compiled").write_text(digest + "\n")
    return classes


def java_command(main_class: str, heap_mb: int = HEAP_MB) -> list[str]:
    """The command line (without the program's arguments) running ``main_class`` (one of the test
    programs, or a class of Kafka's jars) on the clients' classpath; Kafka's log at WARN on stderr.

    Raises:
        PeerUnavailable: no Java, javac or Maven, or no registry.
        RuntimeError: javac failed.
    """
    classpath = f"{compiled()}{os.pathsep}{resolve()}/*"
    return [
        java_binary(),
        f"-Xmx{heap_mb}m",
        f"-Dlog4j2.configurationFile={TOOLS_LOG4J_CONFIG}",
        "-cp",
        classpath,
        main_class,
    ]
