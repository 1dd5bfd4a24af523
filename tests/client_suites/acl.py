"""The suite's ACL mode: librdkafka's tests that add ACLs with Kafka's ``kafka-acls.sh``
(0109's unauthorized-topic sub-test, 0115_producer_auth, 0119_consumer_auth) against an Apache
Kafka and a Kafkette cluster whose clients need no login.

librdkafka's runner skips these tests when its clients log in (``test_needs_auth``: it passes no
security settings to ``kafka-acls.sh``), so the clusters' client listener is PLAINTEXT and its
clients are ``User:ANONYMOUS``, not a super user, or the tests' DENY ACLs would not apply to them.
Every node-to-node listener then logs in instead (SASL_PLAINTEXT, PLAIN, the ``admin`` super
user): Apache Kafka's inter-broker ``PLAINTEXT`` and ``CONTROLLER`` listeners, Kafkette's own
listener (``PLAINTEXT``, which its brokers and controllers share).  A resource no ACL names is
open to all (``allow.everyone.if.no.acl.found``), the ``kafka-acls.sh`` calls themselves included.

Owns: those broker settings (``acl_broker_configs``, ``kafka_node_configs``,
``kafkette_node_configs``), the tests the mode runs (``ACL_TESTS``), the ``KAFKA_PATH`` whose
``bin/`` scripts run Kafka's tools (``write_kafka_path``) and starting both clusters
(``acl_clusters``).  Does not own the runner (``librdkafka_suite``) nor the report (``run``).

Kafka concept: Kafka's security guide (``listener.security.protocol.map``,
``sasl.mechanism.inter.broker.protocol``, ``sasl.mechanism.controller.protocol``,
``listener.name.<l>.plain.sasl.jaas.config``, ``super.users``), ``kafka-acls.sh`` (AclCommand).
"""

from __future__ import annotations

import contextlib
import shlex
from collections.abc import Iterator
from pathlib import Path

from tests.client_suites.security import ADMIN_PASSWORD, ADMIN_USER, STANDARD_AUTHORIZER
from tests.conformance.run import beside_the_peer
from tests.conformance.target import CLUSTER_NODES
from tests.peers.kafka_peer import KafkaPeer

# Which tests of librdkafka's runner the mode runs (TESTS: a test runs when its number is listed).
ACL_TESTS = ("0109", "0115", "0119")
# Apache Kafka's client listener in this mode (its PLAINTEXT one is the inter-broker listener).
KAFKA_CLIENT_LISTENER = "CLIENT"
# The Kafka tools librdkafka's tests run from $KAFKA_PATH/bin (test_kafka_cmd, test_kafka_topics).
KAFKA_TOOLS = {
    "kafka-acls.sh": "org.apache.kafka.tools.AclCommand",
    "kafka-topics.sh": "org.apache.kafka.tools.TopicCommand",
}
PEER_HEAP_MB = 512
ADMIN_JAAS = (
    "org.apache.kafka.common.security.plain.PlainLoginModule required "
    f'username="{ADMIN_USER}" password="{ADMIN_PASSWORD}" user_{ADMIN_USER}="{ADMIN_PASSWORD}";'
)


def acl_broker_configs(base: dict[str, object]) -> dict[str, object]:
    """``base`` with the StandardAuthorizer, ``super.users`` the admin alone (the nodes' login;
    the clients' ``User:ANONYMOUS`` is not one) and a resource no ACL names open to all, plus
    PLAIN as the nodes' SASL mechanism, for every node of either cluster."""
    return {
        **base,
        "authorizer.class.name": STANDARD_AUTHORIZER,
        "super.users": f"User:{ADMIN_USER}",
        "allow.everyone.if.no.acl.found": "true",
        "sasl.enabled.mechanisms": "PLAIN",
        "sasl.mechanism.inter.broker.protocol": "PLAIN",
        "sasl.mechanism.controller.protocol": "PLAIN",
    }


def kafka_node_configs() -> dict[str, str]:
    """Apache Kafka's ``listener.name.*`` settings: the admin's PLAIN login (and the only PLAIN
    user) on its inter-broker ``PLAINTEXT`` and its ``CONTROLLER`` listeners, both
    SASL_PLAINTEXT (``KafkaPeer.add_listener``'s ``internal_security_protocol``)."""
    return {
        f"listener.name.{name}.plain.sasl.jaas.config": ADMIN_JAAS for name in ("plaintext", "controller")
    }


def kafkette_node_configs() -> dict[str, str]:
    """Kafkette's listener settings: its own listener (``PLAINTEXT``, node to node) SASL_PLAINTEXT
    with the admin's PLAIN login, its Kafka listener (``KAFKA``) PLAINTEXT."""
    return {
        "listener.security.protocol.map": "PLAINTEXT:SASL_PLAINTEXT,KAFKA:PLAINTEXT",
        "listener.name.plaintext.plain.sasl.jaas.config": ADMIN_JAAS,
    }


def write_kafka_path(directory: Path, tool_command: dict[str, list[str]]) -> Path:
    """A ``KAFKA_PATH`` for librdkafka's tests: ``directory/bin/<script>`` for each script of
    ``tool_command``, a POSIX shell script that runs the command with the script's arguments.

    Args:
        directory: made if absent.
        tool_command: ``{script name: argv}`` (``KafkaPeer.tool_command(main class)``).

    Returns:
        ``directory``.

    Raises:
        ValueError: a script name is not a plain file name.
    """
    bin_dir = directory / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    for script, argv in tool_command.items():
        if not script or "/" in script or script.startswith("."):
            raise ValueError(f"tool script {script!r}: a plain file name is expected")
        path = bin_dir / script
        path.write_text(f'#!/bin/sh\nexec {shlex.join(argv)} "$@"\n', encoding="utf-8")
        path.chmod(0o755)
    return directory


@contextlib.contextmanager
def acl_clusters(work_dir: Path, broker_configs: dict[str, object]) -> Iterator[tuple[dict[str, str], Path]]:
    """A 3-node Apache Kafka and a 3-broker Kafkette with ``acl_broker_configs`` of
    ``broker_configs``: PLAINTEXT client listeners, SASL_PLAINTEXT node-to-node ones.

    Yields:
        ``({"kafka": bootstrap, "kafkette": bootstrap}, KAFKA_PATH)`` (``write_kafka_path`` with
        ``KAFKA_TOOLS`` on the peer's classpath).

    Raises:
        PeerUnavailable: Apache Kafka cannot run here.
        RuntimeError, LocalClusterError: a cluster did not start.
    """
    configs = acl_broker_configs(broker_configs)
    peer = KafkaPeer(work_dir / "kafka", nodes=CLUSTER_NODES, heap_mb=PEER_HEAP_MB, broker_configs=configs)
    kafka_bootstrap = peer.add_listener(
        KAFKA_CLIENT_LISTENER, "PLAINTEXT", kafka_node_configs(), internal_security_protocol="SASL_PLAINTEXT"
    )
    kafka_path = write_kafka_path(
        work_dir / "kafka-path", {script: KafkaPeer.tool_command(cls) for script, cls in KAFKA_TOOLS.items()}
    )
    with beside_the_peer(peer, work_dir / "kafkette", {**configs, **kafkette_node_configs()}) as cluster:
        yield {"kafka": kafka_bootstrap, "kafkette": cluster.kafka_bootstrap_servers}, kafka_path
