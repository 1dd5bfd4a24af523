"""The pieces of a secure local cluster that need no broker: the security choices, the admin's
``admin.properties`` (Java properties with Kafka's names, mode 0600, read back by Kafkette's
``--command-config``), the brokers' security configs and the certificates."""

from __future__ import annotations

import ipaddress
import ssl
import stat

import pytest
from cryptography import x509

from kafkette.client import AdminClient
from kafkette.client.client_properties import client_settings, read_properties_file
from kafkette.client.local_cluster_certificates import write_cluster_certificates
from kafkette.client.local_cluster_security import (
    admin_properties,
    check_security,
    librdkafka_properties,
    new_admin_password,
    read_admin_password,
    secure_broker_configs,
    write_admin_properties,
)


def test_security_takes_plaintext_or_sasl_ssl_in_any_case_and_names_the_choices_otherwise():
    assert check_security("sasl_ssl") == "SASL_SSL" and check_security("PlainText") == "PLAINTEXT"
    for bad in ("SSL", "SASL_PLAINTEXT", "", None):
        with pytest.raises(ValueError, match="security must be one of PLAINTEXT, SASL_SSL"):
            check_security(bad)


def test_admin_properties_are_written_readable_by_their_owner_and_read_back_by_the_cli(tmp_path):
    password = new_admin_password()
    assert len(password) == 32 and password != new_admin_password()
    properties = admin_properties("127.0.0.1:9092", tmp_path, password)
    path = tmp_path / "admin.properties"
    write_admin_properties(path, properties)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert read_properties_file(str(path)) == properties
    text = path.read_text()
    assert (
        "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
        f'username="admin" password="{password}";\n'
    ) in text
    assert f"ssl.truststore.location={tmp_path}/ssl/ca.pem\n" in text
    assert read_admin_password(tmp_path) == password
    (tmp_path / "ssl").mkdir()
    write_cluster_certificates(tmp_path / "ssl")
    settings = client_settings(read_properties_file(str(path)), AdminClient, source=str(path))
    assert (settings["security_protocol"], settings["sasl_mechanism"]) == ("SASL_SSL", "SCRAM-SHA-512")
    assert (settings["sasl_plain_username"], settings["sasl_plain_password"]) == ("admin", password)
    assert isinstance(settings["ssl_context"], ssl.SSLContext)


def test_librdkafka_properties_use_librdkafkas_names_only(tmp_path):
    config = librdkafka_properties("127.0.0.1:9192", tmp_path, "pw")
    assert config == {
        "bootstrap.servers": "127.0.0.1:9192",
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.username": "admin",
        "sasl.password": "pw",
        "ssl.ca.location": str(tmp_path / "ssl" / "ca.pem"),
    }


def test_brokers_log_in_with_plain_and_the_admin_is_a_super_user_of_the_standard_authorizer(tmp_path):
    configs = secure_broker_configs(tmp_path, "pw")
    assert configs["listener.security.protocol.map"] == "PLAINTEXT:SASL_SSL,KAFKA:SASL_SSL"
    assert configs["sasl.mechanism.inter.broker.protocol"] == "PLAIN"
    assert 'user_admin="pw"' in configs["listener.name.plaintext.plain.sasl.jaas.config"]
    assert configs["listener.name.kafka.sasl.enabled.mechanisms"] == "SCRAM-SHA-512"
    assert configs["super.users"] == "User:admin"
    assert configs["authorizer.class.name"] == "org.apache.kafka.metadata.authorizer.StandardAuthorizer"
    assert configs["allow.everyone.if.no.acl.found"] == "false"
    assert configs["ssl.keystore.type"] == configs["ssl.truststore.type"] == "PEM"


def test_the_broker_certificate_is_signed_by_the_ca_for_loopback_and_the_given_hosts(tmp_path):
    files = write_cluster_certificates(tmp_path, ["10.0.0.7", "broker.example"])
    assert stat.S_IMODE(files.broker_key_store.stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broker.pem", "ca.pem"]  # no CA key kept
    ca = x509.load_pem_x509_certificate(files.ca_certificate.read_bytes())
    broker = x509.load_pem_x509_certificates(files.broker_key_store.read_bytes())[0]
    broker.verify_directly_issued_by(ca)
    names = broker.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert set(names.get_values_for_type(x509.IPAddress)) == {
        ipaddress.ip_address("127.0.0.1"),
        ipaddress.ip_address("10.0.0.7"),
    }
    assert set(names.get_values_for_type(x509.DNSName)) == {"localhost", "broker.example"}
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(files.broker_key_store)  # key and chain in one PEM file, as Kafka's PEM key store
