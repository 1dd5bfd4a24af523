"""The TLS contexts of an SSL or SASL_SSL listener (server side) and of a client that connects to
one, from Kafka's ``ssl.*`` configs, and the distinguished name of a client certificate.

Owns: reading Kafka's names with the per-listener precedence (``listener.name.<l>.ssl.*`` over
``ssl.*``): a PEM key store (``ssl.keystore.type=PEM`` with ``ssl.keystore.location``, a file of
the private key and certificate chain, or the inline ``ssl.keystore.key`` and
``ssl.keystore.certificate.chain``; ``ssl.key.password`` for an encrypted key), a PEM trust store
(``ssl.truststore.type=PEM`` with ``ssl.truststore.location`` or inline
``ssl.truststore.certificates``), ``ssl.client.auth`` (none, requested, required),
``ssl.enabled.protocols`` (TLSv1.2, TLSv1.3) and ``ssl.cipher.suites``; refusing at start, with
the config named, what is missing or unreadable (a JKS or PKCS12 store: Kafkette reads PEM only);
on the client side also ``ssl.endpoint.identification.algorithm`` (``https``, the default, checks
the server certificate names the host connected to; empty turns the check off).
Does not own the listener (``SocketServer``) nor the principal's name (``SslPrincipalMapper``).

Kafka concept: ``DefaultSslEngineFactory`` (``SslFactory``, ``PemStore``), ``SslConfigs``.
"""

from __future__ import annotations

import os
import ssl
import tempfile
from collections.abc import Mapping
from typing import Any

from cryptography import x509

from kafkette.common.config_def import ConfigError

CLIENT_AUTH = {"none": ssl.CERT_NONE, "requested": ssl.CERT_OPTIONAL, "required": ssl.CERT_REQUIRED}
TLS_VERSIONS = {"TLSv1.2": ssl.TLSVersion.TLSv1_2, "TLSv1.3": ssl.TLSVersion.TLSv1_3}
DEFAULT_ENABLED_PROTOCOLS = "TLSv1.2,TLSv1.3"


def listener_config(props: Mapping[str, Any], listener: str, name: str, default: Any = None) -> Any:
    """``listener.name.<listener>.<name>`` when set, else ``<name>``, else ``default``."""
    prefixed = f"listener.name.{listener.lower()}.{name}"
    if prefixed in props:
        return props[prefixed]
    return props.get(name, default)


def _key(listener: str, name: str) -> str:
    return name if listener == "" else f"listener.name.{listener.lower()}.{name} (or {name})"


def _pem_file(text: str) -> str:
    """Inline PEM written to a private temporary file (``ssl`` loads key stores from files only)."""
    fd, path = tempfile.mkstemp(suffix=".pem")
    with os.fdopen(fd, "w") as out:
        out.write(text.replace("\\n", "\n"))
    return path


def _load_key_store(
    ctx: ssl.SSLContext, props: Mapping[str, Any], listener: str, required: bool = True
) -> None:
    """Load the key store into ``ctx``; when not ``required`` (a client's, for mutual TLS) a
    configuration without one loads nothing."""
    location = listener_config(props, listener, "ssl.keystore.location")
    if not required and not location and not listener_config(props, listener, "ssl.keystore.key"):
        return
    store_type = str(listener_config(props, listener, "ssl.keystore.type", "JKS")).upper()
    key = listener_config(props, listener, "ssl.keystore.key")
    chain = listener_config(props, listener, "ssl.keystore.certificate.chain")
    password = listener_config(props, listener, "ssl.key.password")
    if store_type != "PEM":
        raise ConfigError(
            f"Invalid value {store_type} for configuration {_key(listener, 'ssl.keystore.type')}: Kafkette "
            f"reads PEM key stores only (set ssl.keystore.type=PEM)"
        )
    if listener_config(props, listener, "ssl.keystore.password"):
        raise ConfigError(
            f"Invalid value for configuration {_key(listener, 'ssl.keystore.password')}: SSL key store "
            f"password cannot be specified with PEM format, only key password may be specified"
        )
    if location:
        files = [str(location)]
    elif key and chain:
        files = [_pem_file(str(chain)), _pem_file(str(key))]
    else:
        raise ConfigError(
            f"Missing required configuration {_key(listener, 'ssl.keystore.location')}: an SSL listener "
            f"needs its PEM key and certificate chain (or ssl.keystore.key and "
            f"ssl.keystore.certificate.chain)"
        )
    try:
        if len(files) == 1:
            ctx.load_cert_chain(files[0], password=str(password) if password else None)
        else:
            ctx.load_cert_chain(files[0], files[1], password=str(password) if password else None)
    except (OSError, ssl.SSLError) as exc:
        raise ConfigError(
            f"Invalid value for configuration {_key(listener, 'ssl.keystore.location')}: "
            f"cannot load the key and certificate chain: {exc}"
        ) from None
    finally:
        if not location:
            for path in files:
                os.unlink(path)


def _load_trust_store(ctx: ssl.SSLContext, props: Mapping[str, Any], listener: str) -> bool:
    """Load the trust store when one is configured; True when one was."""
    location = listener_config(props, listener, "ssl.truststore.location")
    certificates = listener_config(props, listener, "ssl.truststore.certificates")
    if not location and not certificates:
        return False
    store_type = str(listener_config(props, listener, "ssl.truststore.type", "JKS")).upper()
    if store_type != "PEM":
        raise ConfigError(
            f"Invalid value {store_type} for configuration {_key(listener, 'ssl.truststore.type')}: "
            f"Kafkette reads PEM trust stores only (set ssl.truststore.type=PEM)"
        )
    try:
        if location:
            ctx.load_verify_locations(cafile=str(location))
        else:
            ctx.load_verify_locations(cadata=str(certificates).replace("\\n", "\n"))
    except (OSError, ssl.SSLError) as exc:
        raise ConfigError(
            f"Invalid value for configuration {_key(listener, 'ssl.truststore.location')}: "
            f"cannot load the trusted certificates: {exc}"
        ) from None
    return True


def _protocols(ctx: ssl.SSLContext, props: Mapping[str, Any], listener: str) -> None:
    value = listener_config(props, listener, "ssl.enabled.protocols", DEFAULT_ENABLED_PROTOCOLS)
    names = [p.strip() for p in (value.split(",") if isinstance(value, str) else value) if p.strip()]
    unknown = [n for n in names if n not in TLS_VERSIONS]
    if not names or unknown:
        raise ConfigError(
            f"Invalid value {','.join(names)} for configuration {_key(listener, 'ssl.enabled.protocols')}: "
            f"Kafkette offers {', '.join(TLS_VERSIONS)}"
        )
    versions = sorted(TLS_VERSIONS[n] for n in names)
    ctx.minimum_version, ctx.maximum_version = versions[0], versions[-1]
    suites = listener_config(props, listener, "ssl.cipher.suites")
    if suites:
        text = suites if isinstance(suites, str) else ",".join(suites)
        try:
            ctx.set_ciphers(":".join(s.strip() for s in text.split(",") if s.strip()))
        except ssl.SSLError as exc:
            raise ConfigError(
                f"Invalid value {text} for configuration {_key(listener, 'ssl.cipher.suites')}: {exc}"
            ) from None


def ssl_server_context(props: Mapping[str, Any], listener: str) -> ssl.SSLContext:
    """The TLS context of ``listener``'s connections, checked now.

    Args:
        props: the broker's properties as given (``KafkaConfig.originals``).
        listener: the listener's name (``SSL``, ``SASL_SSL``, ``EXTERNAL`` ...).

    Raises:
        ConfigError: a missing or unreadable key or trust store, a store type other than PEM, an
            unknown ``ssl.client.auth`` or protocol, or cipher suites OpenSSL does not know; the
            config is named.
    """
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    _load_key_store(ctx, props, listener)
    client_auth = str(listener_config(props, listener, "ssl.client.auth", "none")).lower()
    if client_auth not in CLIENT_AUTH:
        raise ConfigError(
            f"Invalid value {client_auth} for configuration {_key(listener, 'ssl.client.auth')}: "
            f"String must be one of: required, requested, none"
        )
    trusted = _load_trust_store(ctx, props, listener)
    if client_auth != "none" and not trusted:
        raise ConfigError(
            f"Missing required configuration {_key(listener, 'ssl.truststore.location')}: "
            f"ssl.client.auth={client_auth} checks client certificates against a trust store"
        )
    ctx.verify_mode = CLIENT_AUTH[client_auth]
    _protocols(ctx, props, listener)
    return ctx


def ssl_client_context(props: Mapping[str, Any], listener: str = "") -> ssl.SSLContext:
    """The TLS context of a client connecting to an SSL or SASL_SSL listener, checked now.

    Args:
        props: Kafka client properties (``security.protocol``, ``ssl.*``), or a broker's properties
            with ``listener`` naming the listener its own connections go to (the inter-broker or
            the controller listener: ``listener.name.<listener>.ssl.*`` first, as a Kafka broker
            configures its clients).
        listener: the listener's name, or "" for a client's unprefixed properties.

    Returns:
        A client context: the server's certificate checked against the PEM trust store
        (``ssl.truststore.location`` / ``ssl.truststore.certificates``; the system's certificate
        authorities when none is configured, as Java falls back to its own), its names against the
        host unless ``ssl.endpoint.identification.algorithm`` is empty, and the PEM key store
        presented when one is configured (mutual TLS).

    Raises:
        ConfigError: an unreadable store, a store type other than PEM, an unknown protocol or
            endpoint identification algorithm, or cipher suites OpenSSL does not know; the config
            is named.
    """
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    if not _load_trust_store(ctx, props, listener):
        ctx.load_default_certs()
    _load_key_store(ctx, props, listener, required=False)
    algorithm = str(listener_config(props, listener, "ssl.endpoint.identification.algorithm", "https") or "")
    if algorithm.lower() not in ("https", ""):
        raise ConfigError(
            f"Invalid value {algorithm} for configuration "
            f"{_key(listener, 'ssl.endpoint.identification.algorithm')}: Kafkette offers https or empty"
        )
    ctx.check_hostname = algorithm.lower() == "https"
    _protocols(ctx, props, listener)
    return ctx


def distinguished_name(der_certificate: bytes) -> str:
    """The subject of a DER certificate as Java's ``X500Principal.getName()`` writes it (RFC 2253:
    most specific first, ``CN=alice,OU=eng,O=corp``)."""
    return x509.load_der_x509_certificate(der_certificate).subject.rfc4514_string()
