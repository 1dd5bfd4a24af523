"""TLS on the brokers' own listener (the one the SDK, the replica fetchers, the controller's requests
and the metadata quorum use): a 3-node cluster whose ``PLAINTEXT`` listener is mapped to SSL with
``ssl.client.auth=required`` replicates, elects and answers over mutual TLS only, the SDK reaches it
with ``security_protocol="SSL"`` and an ``ssl_context``, and a plaintext client, a client without a
certificate and a client that does not trust the brokers' authority get nothing while the others
are served."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafkette.client import (
    AdminClient,
    Consumer,
    KafkaConnectionError,
    KafkaTimeoutError,
    LocalCluster,
    NewTopic,
    Producer,
    TopicPartition,
    create_ssl_context,
)
from kafkette.client.client_properties import client_settings
from tests.cli_processes import ok_stdout, run_cli
from tests.tls_certificates import CertificateAuthority, Issued

pytestmark = pytest.mark.timeout(300)

TOPIC = "over-tls"
RECORDS = 200


def _tls_configs(ca: CertificateAuthority, broker: Issued) -> dict[str, str]:
    return {
        "listener.security.protocol.map": "PLAINTEXT:SSL,KAFKA:PLAINTEXT",
        "ssl.keystore.type": "PEM",
        "ssl.keystore.location": str(broker.bundle),
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": str(ca.files.certificate),
        "ssl.client.auth": "required",
    }


@pytest.fixture(scope="module")
def tls_cluster(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[LocalCluster, Path, Issued, Path]]:
    """``(cluster, CA certificate, a client's certificate, another CA's certificate)``."""
    certs = tmp_path_factory.mktemp("certs")
    ca = CertificateAuthority(certs)
    broker = ca.issue("broker", "broker", server=True)
    client = ca.issue("client", "alice", unit="clients")
    other_ca = CertificateAuthority(certs, "other-ca").files.certificate
    with LocalCluster(
        num_brokers=3,
        data_dir=tmp_path_factory.mktemp("ssl-brokers"),
        broker_configs=_tls_configs(ca, broker),
    ) as cluster:
        yield cluster, ca.files.certificate, client, other_ca


def _context(ca: Path, client: Issued | None):
    if client is None:
        return create_ssl_context(cafile=str(ca))
    return create_ssl_context(cafile=str(ca), certfile=str(client.certificate), keyfile=str(client.key))


async def _reads_metadata(bootstrap: str, **security) -> bool:
    try:
        async with AdminClient(bootstrap_servers=bootstrap, request_timeout_ms=4000, **security) as admin:
            await admin.describe_cluster()
        return True
    except (KafkaConnectionError, KafkaTimeoutError):
        return False


async def test_a_cluster_replicates_and_serves_the_sdk_over_mutual_tls(tls_cluster):
    cluster, ca, client, _ = tls_cluster
    assert cluster.security_protocol == "SSL"
    security = {"security_protocol": "SSL", "ssl_context": _context(ca, client)}
    bootstrap = cluster.bootstrap_servers
    async with AdminClient(bootstrap_servers=bootstrap, **security) as admin:
        await admin.create_topics([NewTopic(TOPIC, num_partitions=3, replication_factor=3)])
    async with Producer(bootstrap_servers=bootstrap, acks="all", **security) as producer:
        futures = [
            await producer.send(TOPIC, f"record-{i}".encode(), key=str(i).encode()) for i in range(RECORDS)
        ]
        await asyncio.gather(*futures)
    tps = [TopicPartition(TOPIC, p) for p in range(3)]
    values = []
    async with Consumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest", **security) as consumer:
        consumer.assign(tps)
        deadline = asyncio.get_running_loop().time() + 60
        while len(values) < RECORDS and asyncio.get_running_loop().time() < deadline:
            for records in (await consumer.getmany(timeout_ms=1000)).values():
                values += [r.value for r in records]
    assert sorted(values) == sorted(f"record-{i}".encode() for i in range(RECORDS))
    # acks=all was answered, so each follower fetched over TLS; every replica is in sync
    async with AdminClient(**cluster.client_config) as admin:
        described = (await admin.describe_topics([TOPIC]))[TOPIC]
    assert all(sorted(p.isr) == [1, 2, 3] for p in described.partitions), described


async def test_clients_without_tls_a_certificate_or_trust_get_nothing_and_others_are_served(tls_cluster):
    cluster, ca, client, other_ca = tls_cluster
    bootstrap = cluster.bootstrap_servers
    assert not await _reads_metadata(bootstrap)
    assert not await _reads_metadata(bootstrap, security_protocol="SSL", ssl_context=_context(ca, None))
    assert not await _reads_metadata(
        bootstrap, security_protocol="SSL", ssl_context=_context(other_ca, client)
    )
    assert await _reads_metadata(bootstrap, security_protocol="SSL", ssl_context=_context(ca, client))


async def test_command_config_properties_give_the_sdk_its_tls_context(tls_cluster, tmp_path):
    cluster, ca, client, _ = tls_cluster
    properties = {
        "security.protocol": "SSL",
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": str(ca),
        "ssl.keystore.type": "PEM",
        "ssl.keystore.location": str(client.bundle),
    }
    settings = client_settings(properties, AdminClient, source="client.properties")
    assert settings["security_protocol"] == "SSL"
    assert await _reads_metadata(cluster.bootstrap_servers, **settings)
    with pytest.raises(ValueError, match="ssl.truststore.type"):
        client_settings({**properties, "ssl.truststore.type": "JKS"}, AdminClient, source="client.properties")


def test_the_cli_reaches_the_tls_listener_with_command_config(tls_cluster, tmp_path):
    cluster, ca, client, _ = tls_cluster
    config = tmp_path / "client.properties"
    config.write_text(
        "security.protocol=SSL\nssl.truststore.type=PEM\n"
        f"ssl.truststore.location={ca}\nssl.keystore.type=PEM\nssl.keystore.location={client.bundle}\n"
    )
    server = ("--bootstrap-server", cluster.bootstrap_servers)
    created = run_cli("topics", "create", "--topic", "cli-over-tls", *server, "--command-config", str(config))
    ok_stdout(created)
    assert "cli-over-tls" in ok_stdout(run_cli("topics", "list", *server, "--command-config", str(config)))
    (tmp_path / "plaintext.properties").write_text("request.timeout.ms=3000\n")
    plaintext = run_cli("topics", "list", *server, "--command-config", str(tmp_path / "plaintext.properties"))
    assert plaintext.returncode != 0


def test_the_sdk_refuses_ssl_without_a_context():
    with pytest.raises(ValueError, match="ssl_context"):
        Producer(bootstrap_servers="127.0.0.1:1", security_protocol="SSL")
