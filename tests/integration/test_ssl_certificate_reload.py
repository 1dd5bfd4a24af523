"""A TLS listener takes a new certificate without a restart (KIP-226's dynamic
``listener.name.<l>.ssl.keystore.location``, and the store files watched): one broker serving TLS
on Kafka's listener and on its own, both from one PEM key store.  A dynamic update to a new file
(Kafka's ``kafka-configs.sh --entity-type brokers --alter``, then Kafkette's AdminClient), the same
path altered again after its contents changed, and the file rewritten in place (the watch) each
give new connections the new certificate while an open connection keeps working; a garbage file,
and a certificate for another DN, are refused with Kafka's messages and the old certificate stays
served."""

from __future__ import annotations

import asyncio
import shutil
import socket
import ssl
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from cryptography import x509

from kafkette.client import AdminClient, InvalidRequestError, LocalCluster, create_ssl_context
from kafkette.client.config_resource import ConfigResource
from tests.peers.kafka_peer import KafkaPeer
from tests.tls_certificates import CertificateAuthority, Issued

pytestmark = pytest.mark.timeout(180)

WATCH_INTERVAL_MS = 300
BROKER_ID = 1


@dataclass
class Tls:
    cluster: LocalCluster
    ca: CertificateAuthority
    served: Path  # the key store file named in server.properties
    certs: Path


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tls]:
    certs = tmp_path_factory.mktemp("certs")
    ca = CertificateAuthority(certs)
    served = certs / "served.pem"
    shutil.copyfile(ca.issue("first", "broker", server=True).bundle, served)
    with LocalCluster(
        num_brokers=1,
        data_dir=tmp_path_factory.mktemp("ssl-reload"),
        kafka_protocol=True,
        broker_configs={
            "listener.security.protocol.map": "PLAINTEXT:SSL,KAFKA:SSL",
            "ssl.keystore.type": "PEM",
            "ssl.keystore.location": str(served),
            "ssl.truststore.type": "PEM",
            "ssl.truststore.location": str(ca.files.certificate),
            "ssl.store.watch.interval.ms": str(WATCH_INTERVAL_MS),
        },
    ) as cluster:
        yield Tls(cluster, ca, served, certs)


def _serial(issued: Issued) -> int:
    return x509.load_pem_x509_certificate(issued.certificate.read_bytes()).serial_number


def _address(bootstrap: str) -> tuple[str, int]:
    host, _, port = bootstrap.split(",")[0].rpartition(":")
    return host, int(port)


def _served_serial(tls: Tls, bootstrap: str) -> int:
    """The serial number of the certificate a new TLS connection to ``bootstrap`` is shown."""
    context = ssl.create_default_context(cafile=str(tls.ca.files.certificate))
    with socket.create_connection(_address(bootstrap), timeout=5) as raw:
        with context.wrap_socket(raw, server_hostname="127.0.0.1") as conn:
            return x509.load_der_x509_certificate(conn.getpeercert(binary_form=True)).serial_number


def _both_serve(tls: Tls, serial: int, within_s: float = 0) -> bool:
    deadline = time.monotonic() + within_s
    while True:
        served = {
            _served_serial(tls, b)
            for b in (tls.cluster.bootstrap_servers, tls.cluster.kafka_bootstrap_servers)
        }
        if served == {serial} or time.monotonic() >= deadline:
            return served == {serial}
        time.sleep(0.1)


def _admin(tls: Tls) -> AdminClient:
    return AdminClient(
        bootstrap_servers=tls.cluster.bootstrap_servers,
        security_protocol="SSL",
        ssl_context=create_ssl_context(cafile=str(tls.ca.files.certificate)),
    )


async def _alter(admin: AdminClient, **changes: str) -> None:
    await admin.alter_configs({ConfigResource("broker", BROKER_ID): changes})


def _kafka_configs_alter(tls: Tls, config: str) -> subprocess.CompletedProcess[str]:
    """Kafka's ``kafka-configs.sh --bootstrap-server ... --entity-type brokers --entity-name 1
    --alter --add-config <config>`` over the TLS Kafka listener."""
    command_config = tls.certs / "admin.properties"
    command_config.write_text(
        f"security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location={tls.ca.files.certificate}\n"
    )
    return subprocess.run(
        [
            *KafkaPeer.tool_command("kafka.admin.ConfigCommand"),
            "--bootstrap-server",
            tls.cluster.kafka_bootstrap_servers.split(",")[0],
            "--command-config",
            str(command_config),
            "--entity-type",
            "brokers",
            "--entity-name",
            str(BROKER_ID),
            "--alter",
            "--add-config",
            config,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )


async def test_a_dynamic_keystore_update_serves_new_connections_the_new_certificate(tls):
    async with _admin(tls) as admin:  # a connection open across every reload
        second = tls.ca.issue("second", "broker", server=True)
        done = await asyncio.to_thread(
            _kafka_configs_alter, tls, f"listener.name.kafka.ssl.keystore.location={second.bundle}"
        )
        assert done.returncode == 0, done.stderr[-1500:]
        assert done.stdout == f"Completed updating config for broker {BROKER_ID}.\n"
        assert _served_serial(tls, tls.cluster.kafka_bootstrap_servers) == _serial(second)

        # the brokers' own listener, through Kafkette's AdminClient
        await _alter(admin, **{"listener.name.plaintext.ssl.keystore.location": str(second.bundle)})
        assert _both_serve(tls, _serial(second))

        # the same path, its contents replaced: altering it again re-reads the file
        third = tls.ca.issue("third", "broker", server=True)
        shutil.copyfile(third.bundle, second.bundle)
        await _alter(admin, **{"listener.name.kafka.ssl.keystore.location": str(second.bundle)})
        assert _served_serial(tls, tls.cluster.kafka_bootstrap_servers) == _serial(third)

        # back to the file of server.properties for both listeners (the overrides deleted)
        await admin.alter_configs(
            {
                ConfigResource("broker", BROKER_ID): {
                    "listener.name.kafka.ssl.keystore.location": None,
                    "listener.name.plaintext.ssl.keystore.location": None,
                }
            }
        )
        assert await admin.describe_cluster()  # the open connection still answers


async def test_a_bad_keystore_update_is_refused_with_kafkas_message_and_the_old_certificate_stays(tls):
    current = _served_serial(tls, tls.cluster.kafka_bootstrap_servers)
    garbage = tls.certs / "garbage.pem"
    garbage.write_text("not a certificate\n")
    other_dn = tls.ca.issue("intruder", "intruder", server=True)
    async with _admin(tls) as admin:
        with pytest.raises(InvalidRequestError) as refused:
            await _alter(admin, **{"listener.name.kafka.ssl.keystore.location": str(garbage)})
        assert refused.value.args[0].startswith(
            "Invalid dynamic configuration: Validation of dynamic config update of SSLFactory failed: "
            f"org.apache.kafka.common.errors.InvalidConfigurationException: Failed to load PEM SSL keystore "
            f"{garbage}"
        ), refused.value
        with pytest.raises(InvalidRequestError) as refused:
            await _alter(admin, **{"listener.name.kafka.ssl.keystore.location": str(other_dn.bundle)})
        assert (
            "org.apache.kafka.common.config.ConfigException: Keystore DistinguishedName does not match:  "
            "existing={alias=kafka, DN=CN=broker, OU=kafkette-tests, O=Kafkette}, "
            "new={alias=kafka, DN=CN=intruder, OU=kafkette-tests, O=Kafkette}"
        ) in refused.value.args[0]
        assert _served_serial(tls, tls.cluster.kafka_bootstrap_servers) == current
    assert _both_serve(tls, current)


async def test_a_rewritten_keystore_file_is_reloaded_and_a_bad_one_is_refused_once(tls):
    async with _admin(tls) as admin:
        fourth = tls.ca.issue("fourth", "broker", server=True)
        shutil.copyfile(fourth.bundle, tls.served)
        assert await asyncio.to_thread(_both_serve, tls, _serial(fourth), 10)

        intruder = tls.ca.issue("intruder-2", "intruder", server=True)
        shutil.copyfile(intruder.bundle, tls.served)
        await asyncio.sleep(WATCH_INTERVAL_MS * 4 / 1000)
        assert _both_serve(tls, _serial(fourth))
        log = tls.cluster.log_path(BROKER_ID).read_text()
        refusals = [line for line in log.splitlines() if "reload refused (old one kept)" in line]
        assert len(refusals) == 2, refusals  # one line per listener, said once
        assert "Keystore DistinguishedName does not match" in refusals[0]

        fifth = tls.ca.issue("fifth", "broker", server=True)
        shutil.copyfile(fifth.bundle, tls.served)
        assert await asyncio.to_thread(_both_serve, tls, _serial(fifth), 10)
        assert await admin.describe_cluster()
