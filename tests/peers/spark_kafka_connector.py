"""Spark's own Kafka connector (``spark-sql-kafka-0-10``, ``format("kafka")``) for the tests and the
benchmark that run it against Kafkette's Kafka listener and against Apache Kafka.

Owns: resolving the pinned connector (``tests/peers/spark_kafka/pom.xml``, ``mvn
dependency:copy-dependencies``) into a cache outside the repository
(``KAFKETTE_SPARK_KAFKA_CACHE``, by default ``~/.cache/kafkette/spark-sql-kafka-<version>``,
a marker file once complete) and choosing the jars that go on ``spark.jars``: the connector, its
token provider, ``kafka-clients`` and ``commons-pool2``, never a jar Spark itself ships (Scala,
Hadoop's client, lz4, snappy, slf4j).  It does not start Spark.  A missing Maven, or a registry
that cannot be reached, raises ``PeerUnavailable`` with one line naming what is missing.

The version is 4.2.0 while PySpark is 4.3.0: ``spark-sql-kafka-0-10_2.13`` 4.3.0 is not
published on Maven Central (2026-11-25), and 4.2.0 runs on PySpark 4.3.0.
"""

from __future__ import annotations

import os
from pathlib import Path

from tests.peers.kafka_peer import PeerUnavailable, copy_dependencies

SPARK_KAFKA_VERSION = "4.2.0"
POM = Path(__file__).parent / "spark_kafka" / "pom.xml"
RESOLVE_TIMEOUT_S = 600
# artifactId prefixes of the jars that go on spark.jars (one jar each); the rest of the
# connector's dependencies ship with Spark and are excluded in the pom
CONNECTOR_ARTIFACTS = (
    "spark-sql-kafka-0-10_2.13-",
    "spark-token-provider-kafka-0-10_2.13-",
    "kafka-clients-",
    "commons-pool2-",
)
MAVEN_COORDINATES = f"org.apache.spark:spark-sql-kafka-0-10_2.13:{SPARK_KAFKA_VERSION}"


def cache_dir() -> Path:
    """Where the resolved jars live (``KAFKETTE_SPARK_KAFKA_CACHE`` or
    ``~/.cache/kafkette/spark-sql-kafka-<version>``)."""
    override = os.environ.get("KAFKETTE_SPARK_KAFKA_CACHE")
    return (
        Path(override)
        if override
        else Path.home() / ".cache" / "kafkette" / f"spark-sql-kafka-{SPARK_KAFKA_VERSION}"
    )


def _chosen(libs: Path) -> list[Path] | None:
    """One jar per ``CONNECTOR_ARTIFACTS`` prefix in ``libs``, in that order; None if one is missing."""
    jars = []
    for prefix in CONNECTOR_ARTIFACTS:
        found = sorted(libs.glob(f"{prefix}*.jar"))
        if len(found) != 1:
            return None
        jars.append(found[0])
    return jars


def connector_jars() -> list[Path]:
    """The jars to put on ``spark.jars`` for ``format("kafka")``, resolved with Maven on first use
    (a minute; cached after): ``spark-sql-kafka-0-10_2.13``, ``spark-token-provider-kafka-0-10_2.13``,
    ``kafka-clients`` and ``commons-pool2``, in that order.

    Returns:
        Absolute paths of the four jars.

    Raises:
        PeerUnavailable: no Maven, Maven could not resolve the pom (its first error line), or the
            resolved directory lacks one of the four jars.
    """
    libs = cache_dir() / "libs"
    marker = cache_dir() / "resolved"
    if marker.exists():
        jars = _chosen(libs)
        if jars is not None:
            return jars
    copy_dependencies(POM, libs, f"Spark's Kafka connector {SPARK_KAFKA_VERSION}", RESOLVE_TIMEOUT_S)
    jars = _chosen(libs)
    if jars is None:
        present = ", ".join(sorted(p.name for p in libs.glob("*.jar"))) or "none"
        raise PeerUnavailable(
            f"Spark's Kafka connector {SPARK_KAFKA_VERSION} resolved without one of "
            f"{', '.join(p.rstrip('-') for p in CONNECTOR_ARTIFACTS)} (got: {present})"
        )
    marker.write_text(SPARK_KAFKA_VERSION + "\n")
    return jars
