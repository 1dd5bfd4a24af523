"""Kafka's own ``kafka-acls.sh`` (``org.apache.kafka.tools.AclCommand``, 4.3.1) against Kafkette's
Kafka listener and against Apache Kafka, both configured with Kafka's StandardAuthorizer
(``authorizer.class.name``, ``super.users=User:ANONYMOUS`` so that the tool may act over
PLAINTEXT): ACLs added (LITERAL and PREFIXED, ALLOW and DENY, topic, group and cluster
resources, a host), listed (all, by resource, by principal) and removed, every output compared
between the two brokers (CreateAcls and DeleteAcls reach the controller, DescribeAcls is answered
by the broker); what the tool refuses itself (an ACL that exists, a CLUSTER resource not named
``kafka-cluster``) sent by confluent-kafka's AdminClient, the answers compared; and, on Kafkette,
the ACLs still listed after its node restarts (read back from the metadata log).  Needs Java 17
and the Kafka jars (the Apache Kafka peer, ``tests/peers``); without them the tests fail, saying
what is missing."""

from __future__ import annotations

import subprocess
import time

import pytest
from confluent_kafka import KafkaException
from confluent_kafka.admin import (
    AclBinding,
    AclOperation,
    AclPermissionType,
    AdminClient,
    ResourcePatternType,
    ResourceType,
)

from kafkette.client import LocalCluster
from tests.cli_processes import KAFKETTE
from tests.peers.kafka_peer import KafkaPeer, start_or_fail

pytestmark = pytest.mark.timeout(900)

ACL_COMMAND = "org.apache.kafka.tools.AclCommand"
AUTHORIZER = {
    "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
    "super.users": "User:ANONYMOUS",
}
RESTART_TIMEOUT_S = 60


@pytest.fixture(scope="module")
def brokers(tmp_path_factory: pytest.TempPathFactory):
    """``(peer, cluster, {"kafka": bootstrap, "kafkette": bootstrap})``: one Apache Kafka node
    (broker and controller) and one Kafkette node, both with the StandardAuthorizer."""
    peer = KafkaPeer(tmp_path_factory.mktemp("kafka"), nodes=1, heap_mb=384, broker_configs=AUTHORIZER)
    start_or_fail(peer)
    try:
        with LocalCluster(
            num_brokers=1,
            data_dir=tmp_path_factory.mktemp("kafkette"),
            kafka_protocol=True,
            broker_configs=AUTHORIZER,
        ) as cluster:
            yield (
                peer,
                cluster,
                {"kafka": peer.bootstrap_servers, "kafkette": cluster.kafka_bootstrap_servers},
            )
    finally:
        peer.stop()


def _acls(peer: KafkaPeer, bootstrap: str, *args: str) -> str:
    """AclCommand's stdout (the test fails on a non-zero exit or an error printed, showing both)."""
    command = [*peer.tool_command(ACL_COMMAND), "--bootstrap-server", bootstrap, *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "Error while executing" not in done.stdout + done.stderr, (
        f"AclCommand {' '.join(args)} exited {done.returncode}:\n{done.stdout[-1500:]}\n{done.stderr[-1500:]}"
    )
    return done.stdout


def _blocks(output: str) -> list[tuple[str, frozenset[str]]]:
    """The tool's output as (heading, {ACL lines under it}), sorted: the tool groups ACLs by
    resource in the order of a Java HashMap, so the order of blocks and of lines is not compared,
    which lines sit under which heading is."""
    blocks: list[tuple[str, set[str]]] = []
    for line in output.splitlines():
        if not line.strip():
            continue
        if line.startswith(("\t", " ")):
            assert blocks, f"an ACL line before any heading: {line!r}"
            blocks[-1][1].add(line.strip())
        else:
            blocks.append((line.strip(), set()))
    return sorted((heading, frozenset(lines)) for heading, lines in blocks)


def _both(brokers, *args: str) -> dict[str, list[tuple[str, frozenset[str]]]]:
    peer, _, bootstrap = brokers
    return {name: _blocks(_acls(peer, server, *args)) for name, server in bootstrap.items()}


ADDS = [
    ("--add", "--allow-principal", "User:alice", "--operation", "Read", "--operation", "Describe",
     "--topic", "orders"),
    ("--add", "--deny-principal", "User:bob", "--operation", "Write", "--topic", "pay-",
     "--resource-pattern-type", "prefixed"),
    ("--add", "--allow-principal", "User:carol", "--allow-host", "10.0.0.1", "--operation", "All",
     "--group", "billing"),
    ("--add", "--allow-principal", "User:alice", "--operation", "Describe", "--cluster"),
    ("--add", "--allow-principal", "User:*", "--operation", "Read", "--topic", "*"),
]  # fmt: skip


@pytest.fixture(scope="module")
def added(brokers):
    """Each ``--add`` against both brokers, in order: their outputs."""
    return [_both(brokers, *args) for args in ADDS]


def test_adding_acls_prints_what_kafka_prints(added):
    for outputs in added:
        assert outputs["kafkette"] == outputs["kafka"]
        assert outputs["kafkette"], "the tool printed nothing"
    orders = dict(added[0]["kafkette"])
    heading = (
        "Adding ACLs for resource `ResourcePattern(resourceType=TOPIC, name=orders, patternType=LITERAL)`:"
    )
    assert heading in orders
    assert "(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)" in orders[heading]


def test_adding_an_existing_acl_again_is_refused_by_the_tool_as_by_kafka(brokers, added):
    again = _both(brokers, *ADDS[0])
    assert again["kafkette"] == again["kafka"]
    assert "already exists" in str(again["kafkette"])


def _create_outcomes(bootstrap: str, bindings: list[AclBinding]) -> list[str | None]:
    """CreateAcls sent by confluent-kafka (librdkafka): per binding None, or the error's text."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    outcomes: list[str | None] = []
    for _, future in admin.create_acls(bindings, request_timeout=30).items():
        try:
            future.result(timeout=60)
            outcomes.append(None)
        except KafkaException as exc:
            error = exc.args[0]
            outcomes.append(f"{error.name()}: {error.str()}")
    return outcomes


def test_the_broker_answers_an_existing_acl_and_an_invalid_cluster_name_as_kafka_does(brokers, added):
    """The tool refuses these itself; another client sends them, and the broker's answers
    (a creation that exists already succeeds; a CLUSTER not named kafka-cluster is
    INVALID_REQUEST with Kafka's message) are compared."""
    _, _, bootstrap = brokers
    existing = AclBinding(
        ResourceType.TOPIC, "*", ResourcePatternType.LITERAL, "User:*", "*", AclOperation.READ,
        AclPermissionType.ALLOW,
    )  # fmt: skip
    bad_cluster = AclBinding(
        ResourceType.BROKER, "my-cluster", ResourcePatternType.LITERAL, "User:x", "*", AclOperation.ALTER,
        AclPermissionType.ALLOW,
    )  # fmt: skip
    outcomes = {name: _create_outcomes(server, [existing, bad_cluster]) for name, server in bootstrap.items()}
    assert outcomes["kafkette"] == outcomes["kafka"]
    assert outcomes["kafkette"][0] is None
    assert "The only valid name for the CLUSTER resource is kafka-cluster" in str(outcomes["kafkette"][1])


@pytest.mark.parametrize(
    "args",
    [
        ("--list",),
        ("--list", "--topic", "orders"),
        ("--list", "--topic", "pay-", "--resource-pattern-type", "prefixed"),
        ("--list", "--topic", "payments", "--resource-pattern-type", "match"),
        ("--list", "--group", "billing"),
        ("--list", "--cluster"),
        ("--list", "--principal", "User:alice"),
        ("--list", "--resource-pattern-type", "any"),
    ],
    ids=lambda args: "-".join(a.strip("-") for a in args),
)
def test_listing_acls_prints_what_kafka_prints(brokers, added, args):
    outputs = _both(brokers, *args)
    assert outputs["kafkette"] == outputs["kafka"]
    assert outputs["kafkette"], "the tool listed nothing"


def test_removing_acls_prints_and_leaves_what_kafka_does(brokers, added):
    removed = _both(
        brokers,
        "--remove",
        "--force",
        "--allow-principal",
        "User:alice",
        "--operation",
        "Read",
        "--topic",
        "orders",
    )
    assert removed["kafkette"] == removed["kafka"]
    removed = _both(brokers, "--remove", "--force", "--group", "billing")
    assert removed["kafkette"] == removed["kafka"]
    listed = _both(brokers, "--list")
    assert listed["kafkette"] == listed["kafka"]
    text = str(listed["kafkette"])
    assert "operation=READ, permissionType=ALLOW)" in text  # User:* on topic *
    assert "name=billing" not in text and "name=orders" in text  # alice's DESCRIBE on orders is left


def test_acls_survive_a_restart_of_the_kafkette_node(brokers, added):
    peer, cluster, bootstrap = brokers
    before = _blocks(_acls(peer, bootstrap["kafkette"], "--list"))
    assert before
    cluster.stop_broker(1, hard=False)
    cluster.start_broker(1)
    deadline = time.monotonic() + RESTART_TIMEOUT_S
    while True:  # the node's broker learns the ACLs in its first full UpdateMetadata
        after = _blocks(_acls(peer, bootstrap["kafkette"], "--list"))
        if after == before or time.monotonic() > deadline:
            break
        time.sleep(1)
    assert after == before


def _kafkette_acls(cluster, *args: str) -> str:
    """``kafkette acls`` (the SDK's listener) stdout; the test fails on a non-zero exit."""
    done = subprocess.run(
        [str(KAFKETTE), "acls", "--bootstrap-server", cluster.bootstrap_servers, *args],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, (
        f"kafkette acls {' '.join(args)} exited {done.returncode}:\n{done.stderr[-1500:]}"
    )
    return done.stdout


@pytest.mark.parametrize(
    "args",
    [
        ("--list",),
        ("--list", "--topic", "payments", "--resource-pattern-type", "match"),
        ("--list", "--principal", "User:alice"),
        ("--list", "--cluster"),
    ],
    ids=lambda args: "-".join(a.strip("-") for a in args),
)
def test_kafkette_acls_lists_what_kafkas_tool_lists(brokers, added, args):
    """``kafkette acls`` on Kafkette prints the blocks Kafka's kafka-acls.sh prints on Apache Kafka
    (block and line order aside: Kafka's is a Java HashMap's of enums hashed by identity)."""
    peer, cluster, bootstrap = brokers
    assert _blocks(_kafkette_acls(cluster, *args)) == _blocks(_acls(peer, bootstrap["kafka"], *args))


def test_kafkette_acls_adds_with_kafkas_tool_output(brokers, added):
    peer, cluster, bootstrap = brokers
    args = ("--add", "--allow-principal", "User:gus", "--consumer", "--topic", "audit", "--group", "auditors")
    assert _blocks(_kafkette_acls(cluster, *args)) == _blocks(_acls(peer, bootstrap["kafka"], *args))
    again = ("--add", "--allow-principal", "User:gus", "--operation", "Read", "--group", "auditors")
    assert _kafkette_acls(cluster, *again) == _acls(peer, bootstrap["kafka"], *again)
