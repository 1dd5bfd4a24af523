"""Security administration through the SDK and the CLI on one node with Kafka's StandardAuthorizer
and SASL on the SDK's listener: ACLs created, described and deleted (CreateAcls, DescribeAcls,
DeleteAcls), SCRAM users upserted with a client-side salted password, described, logged in with
and deleted (AlterUserScramCredentials, DescribeUserScramCredentials), client quotas set,
described and removed (AlterClientQuotas, DescribeClientQuotas); then ``kafkette acls`` and
``kafkette configs`` of users and clients with kafka-acls.sh's and kafka-configs.sh's output, and
their one-line errors for bad flags.

The node's listener is SASL_PLAINTEXT with PLAIN (the admin, a super user) and SCRAM-SHA-512; the
CLI logs in with ``--command-config``.  A change made at the controller shows in a description
once the controller has sent it to the broker: the checks poll for a few seconds."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from kafkette.client import (
    AccessControlEntry,
    AccessControlEntryFilter,
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    AdminClient,
    ClientQuotaAlteration,
    ClientQuotaFilter,
    ClientQuotaFilterComponent,
    InvalidRequestError,
    LocalCluster,
    PatternType,
    ResourceNotFoundError,
    ResourcePattern,
    ResourcePatternFilter,
    ResourceType,
    SaslAuthenticationFailedError,
    ScramCredentialInfo,
    ScramMechanism,
    UnacceptableCredentialError,
    UserScramCredentialDeletion,
    UserScramCredentialUpsertion,
)
from tests.cli_processes import KAFKETTE, ok_stdout
from tests.cluster_configs import ADMIN_JAAS, ADMIN_LOGIN

pytestmark = pytest.mark.timeout(180)

T = TypeVar("T")
PROPAGATION_TIMEOUT_S = 20
NODE_CONFIGS = {
    "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
    "super.users": "User:admin",
    "listener.security.protocol.map": "PLAINTEXT:SASL_PLAINTEXT,KAFKA:PLAINTEXT",
    "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-512",
    "sasl.mechanism.inter.broker.protocol": "PLAIN",
    "listener.name.plaintext.plain.sasl.jaas.config": ADMIN_JAAS,
    "listener.name.plaintext.scram-sha-512.sasl.jaas.config": (
        "org.apache.kafka.common.security.scram.ScramLoginModule required;"
    ),
}


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """``(bootstrap servers, the CLI's --command-config file)`` of one node (broker and controller)."""
    data_dir = tmp_path_factory.mktemp("admin-security")
    properties = data_dir / "admin.properties"
    login = ADMIN_JAAS.replace(' user_admin="admin-secret"', "")
    properties.write_text(
        f"security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config={login}\n"
    )
    with LocalCluster(num_brokers=1, data_dir=data_dir / "cluster", broker_configs=NODE_CONFIGS) as cluster:
        yield cluster.bootstrap_servers, properties


def _admin(bootstrap: str) -> AdminClient:
    return AdminClient(bootstrap_servers=bootstrap, **ADMIN_LOGIN)


async def _eventually(read: Callable[[], Awaitable[T]], done: Callable[[T], bool]) -> T:
    """``read()`` until ``done`` holds of its answer (the broker learns the controller's change
    within ms); the last answer after PROPAGATION_TIMEOUT_S."""
    deadline = asyncio.get_running_loop().time() + PROPAGATION_TIMEOUT_S
    while True:
        answer = await read()
        if done(answer) or asyncio.get_running_loop().time() > deadline:
            return answer
        await asyncio.sleep(0.1)


def _topic_acl(
    name: str, principal: str, operation: AclOperation, pattern_type=PatternType.LITERAL
) -> AclBinding:
    return AclBinding(
        ResourcePattern(ResourceType.TOPIC, name, pattern_type),
        AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW),
    )


async def test_acls_are_created_described_and_deleted_with_the_sdk(node):
    bootstrap, _ = node
    read_orders = _topic_acl("orders", "User:alice", AclOperation.READ)
    write_prefix = _topic_acl("ord", "User:bob", AclOperation.WRITE, PatternType.PREFIXED)
    async with _admin(bootstrap) as admin:
        await admin.create_acls([read_orders, write_prefix])
        matching = AclBindingFilter(
            ResourcePatternFilter(ResourceType.TOPIC, "orders", PatternType.MATCH),
            AccessControlEntryFilter.ANY,
        )
        found = await _eventually(lambda: admin.describe_acls(matching), lambda b: len(b) == 2)
        assert set(found) == {read_orders, write_prefix}
        deleted = await admin.delete_acls([read_orders.to_filter(), write_prefix.to_filter()])
        assert deleted == [[read_orders], [write_prefix]]
        assert await _eventually(lambda: admin.describe_acls(matching), lambda b: not b) == []
        with pytest.raises(
            InvalidRequestError, match="The only valid name for the CLUSTER resource is kafka-cluster"
        ):
            await admin.create_acls(
                [
                    AclBinding(
                        ResourcePattern(ResourceType.CLUSTER, "my-cluster", PatternType.LITERAL),
                        AccessControlEntry("User:x", "*", AclOperation.ALTER, AclPermissionType.ALLOW),
                    )
                ]
            )


async def _log_in(bootstrap: str, user: str, password: str) -> int:
    """Brokers a SCRAM-SHA-512 login as ``user`` sees (SaslAuthenticationFailedError if refused)."""
    async with AdminClient(
        bootstrap_servers=bootstrap,
        request_timeout_ms=5000,
        security_protocol="SASL_PLAINTEXT",
        sasl_mechanism="SCRAM-SHA-512",
        sasl_plain_username=user,
        sasl_plain_password=password,
    ) as admin:
        return len((await admin.describe_cluster())["brokers"])


async def test_a_scram_user_is_upserted_described_logged_in_with_and_deleted(node):
    bootstrap, _ = node
    async with _admin(bootstrap) as admin:
        with pytest.raises(UnacceptableCredentialError, match="Too few iterations"):
            await admin.alter_user_scram_credentials(
                [UserScramCredentialUpsertion("carol", ScramMechanism.SCRAM_SHA_512, 1000, "x")]
            )
        await admin.alter_user_scram_credentials(
            [UserScramCredentialUpsertion("carol", ScramMechanism.SCRAM_SHA_512, 8192, "carol-secret")]
        )
        described = await _eventually(lambda: admin.describe_user_scram_credentials(), lambda d: "carol" in d)
        assert described["carol"] == [ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192)]
        assert await _log_in(bootstrap, "carol", "carol-secret") == 1
        with pytest.raises(SaslAuthenticationFailedError):
            await _log_in(bootstrap, "carol", "wrong")
        await admin.alter_user_scram_credentials(
            [UserScramCredentialDeletion("carol", ScramMechanism.SCRAM_SHA_512)]
        )

        async def carol_described() -> Any:
            try:
                return await admin.describe_user_scram_credentials(["carol"])
            except ResourceNotFoundError as exc:
                return exc

        assert isinstance(
            await _eventually(carol_described, lambda r: isinstance(r, Exception)), ResourceNotFoundError
        )


async def test_client_quotas_are_set_described_and_removed_with_the_sdk(node):
    bootstrap, _ = node
    user_and_client = {"user": "dave", "client-id": "app-1"}
    op = ClientQuotaAlteration.Op
    only_dave = ClientQuotaFilter.contains_only(
        [
            ClientQuotaFilterComponent.of_entity("user", "dave"),
            ClientQuotaFilterComponent.of_entity_type("client-id"),
        ]
    )
    async with _admin(bootstrap) as admin:
        await admin.alter_client_quotas(
            [
                ClientQuotaAlteration(
                    user_and_client, (op("producer_byte_rate", 1024), op("request_percentage", 12.5))
                )
            ]
        )
        quotas = await _eventually(lambda: admin.describe_client_quotas(only_dave), bool)
        assert quotas == {
            (("client-id", "app-1"), ("user", "dave")): {
                "producer_byte_rate": 1024.0,
                "request_percentage": 12.5,
            }
        }
        with pytest.raises(InvalidRequestError):
            await admin.alter_client_quotas(
                [ClientQuotaAlteration({"user": "dave"}, (op("no_such_quota", 1),))]
            )
        await admin.alter_client_quotas(
            [
                ClientQuotaAlteration(
                    user_and_client, (op("producer_byte_rate", None), op("request_percentage", None))
                )
            ]
        )
        assert await _eventually(lambda: admin.describe_client_quotas(only_dave), lambda q: not q) == {}


def _cli(node, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    """``kafkette *args --bootstrap-server ... --command-config ...`` with ``stdin``."""
    bootstrap, properties = node
    command = [str(KAFKETTE), *args, "--bootstrap-server", bootstrap, "--command-config", str(properties)]
    return subprocess.run(command, input=stdin, capture_output=True, text=True, timeout=60)


def _cli_until(node, done: Callable[[str], bool], *args: str) -> str:
    """The stdout of ``kafkette *args`` once ``done`` holds of it (the last one after about
    PROPAGATION_TIMEOUT_S)."""
    for _ in range(PROPAGATION_TIMEOUT_S):
        out = ok_stdout(_cli(node, *args))
        if done(out):
            break
    return out


ORDERS = "ResourcePattern(resourceType=TOPIC, name=cli-orders, patternType=LITERAL)"
ERIN_READ = "(principal=User:erin, host=*, operation=READ, permissionType=ALLOW)"


def test_kafkette_acls_adds_lists_and_removes_with_kafka_acls_output(node):
    add = ("acls", "--add", "--allow-principal", "User:erin", "--operation", "Read", "--topic", "cli-orders")
    added = ok_stdout(_cli(node, *add))
    assert added == (f"Adding ACLs for resource `{ORDERS}`: \n \t{ERIN_READ}\n\n")
    listed = _cli_until(node, lambda out: "erin" in out, "acls", "--list", "--topic", "cli-orders")
    assert listed == (f"Current ACLs for resource `{ORDERS}`:\n\t{ERIN_READ}\n\n")
    again = ok_stdout(_cli(node, *add))
    assert again == (f"Acl (pattern={ORDERS}, entry={ERIN_READ}) already exists.\n")
    by_principal = ok_stdout(_cli(node, "acls", "--list", "--principal", "User:erin"))
    assert by_principal.splitlines()[:2] == [
        "ACLs for principal `User:erin`",
        f"Current ACLs for resource `{ORDERS}`:",
    ]
    declined = ok_stdout(_cli(node, "acls", "--remove", "--topic", "cli-orders", stdin="n\n"))
    assert declined == (f"Are you sure you want to delete all ACLs for resource filter `{ORDERS}`? (y/n)\n")
    ok_stdout(_cli(node, "acls", "--remove", "--force", "--topic", "cli-orders"))
    assert _cli_until(node, lambda out: out == "", "acls", "--list", "--topic", "cli-orders") == ""


def test_kafkette_acls_producer_and_consumer_add_kafkas_convenience_sets(node):
    out = ok_stdout(
        _cli(
            node,
            "acls",
            "--add",
            "--allow-principal",
            "User:frank",
            "--consumer",
            "--topic",
            "cli-t",
            "--group",
            "cli-g",
        )
    )
    assert out.splitlines() == [
        "Adding ACLs for resource `ResourcePattern(resourceType=TOPIC, name=cli-t, patternType=LITERAL)`: ",
        " \t(principal=User:frank, host=*, operation=READ, permissionType=ALLOW)",
        "\t(principal=User:frank, host=*, operation=DESCRIBE, permissionType=ALLOW)",
        "",
        "Adding ACLs for resource `ResourcePattern(resourceType=GROUP, name=cli-g, patternType=LITERAL)`: ",
        " \t(principal=User:frank, host=*, operation=READ, permissionType=ALLOW)",
        "",
    ]


def test_kafkette_configs_of_users_and_clients_print_what_kafka_configs_prints(node):
    scram = ["configs", "alter", "--entity-type", "users", "--entity-name", "gina"]
    assert ok_stdout(
        _cli(node, *scram, "--add-config", "SCRAM-SHA-512=[iterations=8192,password=gina-secret]")
    ) == ("Completed updating config for user gina.\n")
    described = _cli_until(
        node,
        lambda out: "SCRAM" in out,
        "configs",
        "describe",
        "--entity-type",
        "users",
        "--entity-name",
        "gina",
    )
    assert (
        described == "SCRAM credential configs for user-principal 'gina' are SCRAM-SHA-512=iterations=8192\n"
    )
    assert asyncio.run(_log_in(node[0], "gina", "gina-secret")) == 1
    quotas = ["configs", "alter", "--user", "hank"]
    ok_stdout(_cli(node, *quotas, "--add-config", "producer_byte_rate=1024,consumer_byte_rate=2048"))
    described = _cli_until(node, lambda out: "Quota" in out, "configs", "describe", "--user", "hank")
    assert (
        described == "Quota configs for user-principal 'hank' are "
        "consumer_byte_rate=2048.0, producer_byte_rate=1024.0\n"
    )
    both = [
        "--entity-type",
        "users",
        "--entity-name",
        "hank",
        "--entity-type",
        "clients",
        "--entity-name",
        "c1",
    ]
    assert ok_stdout(_cli(node, "configs", "alter", *both, "--add-config", "request_percentage=50")) == (
        "Completed updating config for user hank.\n"
    )
    described = _cli_until(node, lambda out: "Quota" in out, "configs", "describe", *both)
    assert (
        described == "Quota configs for user-principal 'hank', client-id 'c1' are request_percentage=50.0\n"
    )
    default = ["configs", "alter", "--entity-type", "clients", "--entity-default"]
    assert ok_stdout(_cli(node, *default, "--add-config", "consumer_byte_rate=10000000")) == (
        "Completed updating default config for clients in the cluster.\n"
    )
    described = _cli_until(node, lambda out: "Quota" in out, "configs", "describe", "--client-defaults")
    assert described == "Quota configs for the default client-id are consumer_byte_rate=1.0E7\n"
    not_set = _cli(node, *quotas, "--delete-config", "request_percentage")
    assert (not_set.returncode, not_set.stderr) == (1, "Error: Invalid config(s): request_percentage\n")
    assert ok_stdout(_cli(node, *scram, "--delete-config", "SCRAM-SHA-512")) == (
        "Completed updating config for user gina.\n"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("acls", "--add", "--topic", "t"), "You must specify one of: --allow-principal, --deny-principal"),
        (("acls", "--list", "--add", "--topic", "t"), "Command must include exactly one action"),
        (("acls", "--add", "--allow-principal", "alice", "--topic", "t"), "principalType:principalName"),
        (
            ("acls", "--add", "--allow-principal", "User:a", "--operation", "Write", "--group", "g"),
            "ResourceType GROUP only supports operations",
        ),
        (("acls", "--list", "--resource-pattern-type", "fuzzy"), "Unknown resource-pattern-type: fuzzy"),
        (
            ("configs", "alter", "--user", "u", "--add-config", "SCRAM-SHA-512=[iterations=100,password=x]"),
            "Iterations 100 is less than the minimum 4096 required for SCRAM-SHA-512",
        ),
        (
            ("configs", "alter", "--client", "c", "--add-config", "SCRAM-SHA-256=[password=x]"),
            "Only quota configs can be added for 'clients'",
        ),
        (
            ("configs", "alter", "--user", "u", "--add-config", "producer_byte_rate=x"),
            "Cannot parse quota configuration value for producer_byte_rate: x",
        ),
    ],
    ids=lambda value: "-".join(value).strip("-")[:60] if isinstance(value, tuple) else None,
)
def test_bad_flags_are_one_line_errors_with_exit_code_2(args, message):
    done = subprocess.run(
        [str(KAFKETTE), *args], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 2, done
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and message in lines[0], done.stderr
