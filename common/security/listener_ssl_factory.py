"""SslFactory: the server TLS context of one SSL or SASL_SSL listener, and its reload without a
restart when the key store or trust store changes (a dynamic config update, or the files changed).

Owns: the listener's live ``ssl.SSLContext`` (the one handed to the listener's server, kept for
its life: each new connection's handshake is switched to the context now in force through the
context's SNI callback, so a reload acts on new connections and leaves open ones as they are);
Kafka's rules for a reload (``SslFactory.createNewSslEngineFactory``): only the reconfigurable
configs (``ssl.keystore.*``, ``ssl.key.password``, ``ssl.truststore.*``) are taken from the new
configs; nothing is rebuilt unless one of them changed or a store file was modified since it was
loaded (Kafka's ``shouldBeRebuilt``: the same path reloads the file's new contents); the new key
store must load and, unless ``ssl.allow.dn.changes`` / ``ssl.allow.san.changes``, keep the
certificate's subject DN and its subject alternative names; a rejected reload keeps the old
context and says why with Kafka's messages; and the watch of the store files
(``ssl.store.watch.interval.ms``: their modification time and size are polled, a change goes
through the same reload).  Does not own building a context from configs (``ssl_factory``) nor the
listener (``SocketServer``, which starts and stops the watch).

Kafka concept: ``org.apache.kafka.common.security.ssl.SslFactory`` (``validateReconfiguration``,
``reconfigure``, ``CertificateEntries.ensureCompatible``), ``DefaultSslEngineFactory.shouldBeRebuilt``
(``FileBasedStore.modified``), KIP-226 dynamic listener SSL configs.
"""

from __future__ import annotations

import asyncio
import logging
import os
import ssl
from collections.abc import Mapping
from typing import Any

from cryptography import x509

from kafkette.common.background_tasks import ShutdownableTask
from kafkette.common.config_def import ConfigError
from kafkette.common.security.ssl_factory import listener_config, ssl_server_context

logger = logging.getLogger(__name__)

RECONFIGURABLE_CONFIGS = (
    "ssl.keystore.type",
    "ssl.keystore.location",
    "ssl.keystore.password",
    "ssl.keystore.key",
    "ssl.keystore.certificate.chain",
    "ssl.key.password",
    "ssl.truststore.type",
    "ssl.truststore.location",
    "ssl.truststore.password",
    "ssl.truststore.certificates",
)
"""Kafka's ``SslConfigs.RECONFIGURABLE_CONFIGS``: what a dynamic update may change on a listener."""

KEYSTORE_ALIAS = "kafka"
"""The alias of the one entry of a PEM key store (Kafka's ``PemStore``)."""

FAILED = "Validation of dynamic config update of SSLFactory failed: "
"""Kafka's prefix of every refused reload (``SslFactory.createNewSslEngineFactory``)."""

_SAN_TYPES = {x509.DNSName: 2, x509.IPAddress: 7, x509.RFC822Name: 1, x509.UniformResourceIdentifier: 6}


def _stamp(path: str | None) -> tuple[int, int] | None:
    """(modification time in ns, size in bytes) of ``path``; None when unset or unreadable."""
    if not path:
        return None
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


def _leaf_certificate(props: Mapping[str, Any], listener: str) -> x509.Certificate | None:
    """The first certificate of the PEM key store (the listener's own); None without a key store.

    Raises:
        ConfigError: the store holds no certificate (Kafka's message).
    """
    location = listener_config(props, listener, "ssl.keystore.location")
    if location:
        with open(str(location), "rb") as pem:
            text = pem.read()
    else:
        chain = listener_config(props, listener, "ssl.keystore.certificate.chain")
        if not chain:
            return None
        text = str(chain).replace("\\n", "\n").encode()
    try:
        return x509.load_pem_x509_certificates(text)[0]
    except ValueError:
        raise ConfigError(
            "org.apache.kafka.common.errors.InvalidConfigurationException: At least one certificate "
            "expected, but none found"
        ) from None


def _java_dn(certificate: x509.Certificate) -> str:
    """The subject as Java's ``X500Principal.toString()`` writes it (``CN=a, OU=b, O=c``)."""
    return ", ".join(rdn.rfc4514_string() for rdn in reversed(certificate.subject.rdns))


def _subject_alt_names(certificate: x509.Certificate) -> set[tuple[int, str]]:
    """``X509Certificate.getSubjectAlternativeNames()`` as a set of (type, name)."""
    try:
        names = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return set()
    return {(_SAN_TYPES.get(type(n), 0), str(n.value)) for n in names}


def _java_sans(names: set[tuple[int, str]]) -> str:
    return "[" + ", ".join(f"[{kind}, {name}]" for kind, name in sorted(names)) + "]"


def ensure_compatible(
    new: x509.Certificate, old: x509.Certificate, allow_dn_changes: bool, allow_san_changes: bool
) -> None:
    """Kafka's ``CertificateEntries.ensureCompatible`` of a new key store certificate with the one
    in force: the same subject DN (case-insensitive) unless ``allow_dn_changes``, and every old
    subject alternative name kept unless ``allow_san_changes``.

    Raises:
        ConfigError: Kafka's "Keystore DistinguishedName does not match: ..." or "Keystore
            SubjectAltNames do not match: ..." message.
    """
    if not allow_dn_changes and _java_dn(new).lower() != _java_dn(old).lower():
        raise ConfigError(
            "org.apache.kafka.common.config.ConfigException: Keystore DistinguishedName does not match:  "
            f"existing={{alias={KEYSTORE_ALIAS}, DN={_java_dn(old)}}}, "
            f"new={{alias={KEYSTORE_ALIAS}, DN={_java_dn(new)}}}"
        )
    old_sans, new_sans = _subject_alt_names(old), _subject_alt_names(new)
    if not allow_san_changes and not old_sans <= new_sans:
        raise ConfigError(
            "org.apache.kafka.common.config.ConfigException: Keystore SubjectAltNames do not match:  "
            f"existing={{alias={KEYSTORE_ALIAS}, SAN={_java_sans(old_sans)}}}, "
            f"new={{alias={KEYSTORE_ALIAS}, SAN={_java_sans(new_sans)}}}"
        )


def _flag(props: Mapping[str, Any], listener: str, name: str) -> bool:
    return str(listener_config(props, listener, name, "false")).strip().lower() == "true"


class SslFactory:
    """The server TLS context of ``listener``, reloadable.

    ``context`` is the context to listen with; it never changes, the handshakes of new connections
    are switched to the one now in force.  Reloads come from ``reconfigure`` (a dynamic broker
    config update: the broker's properties as they now are) and from the watch of the store files
    (``start`` / ``stop``), both through ``reconfigure``.

    Args:
        props: the broker's properties as given (``KafkaConfig.originals``).
        listener: the listener's name (``SSL``, ``SASL_SSL``, ...).

    Raises:
        ConfigError: a bad ``ssl.*`` setting (named: see ``ssl_server_context``).
    """

    def __init__(self, props: Mapping[str, Any], listener: str) -> None:
        self.listener = listener
        self.context = ssl_server_context(props, listener)
        self.context.sni_callback = self._switch_context
        self._current = self.context
        self._props = dict(props)
        self._values = self._reconfigurable_values(props)
        self._stamps = self._store_stamps(props)
        self._certificate = _leaf_certificate(props, listener)
        self._refused_stamps: tuple[Any, ...] | None = None
        self._prefix = f"[SslFactory listener={listener}]"
        self._watch = ShutdownableTask(f"ssl-store-watch-{listener}", log_prefix=self._prefix)

    def _switch_context(self, ssl_object: ssl.SSLObject, server_name: str | None, _: ssl.SSLContext) -> None:
        """SNI callback of every handshake (called with or without SNI): the context in force."""
        if self._current is not self.context:
            ssl_object.context = self._current

    def _reconfigurable_values(self, props: Mapping[str, Any]) -> dict[str, Any]:
        return {name: listener_config(props, self.listener, name) for name in RECONFIGURABLE_CONFIGS}

    def _store_stamps(self, props: Mapping[str, Any]) -> tuple[Any, ...]:
        return tuple(
            _stamp(listener_config(props, self.listener, name))
            for name in ("ssl.keystore.location", "ssl.truststore.location")
        )

    def _next_props(self, new_props: Mapping[str, Any]) -> dict[str, Any]:
        """The properties in force with the reconfigurable configs of ``new_props`` (Kafka's
        ``copyMapEntries(nextConfigs, newConfigs, reconfigurableConfigs())``)."""
        nxt = dict(self._props)
        for name, value in self._reconfigurable_values(new_props).items():
            prefixed = f"listener.name.{self.listener.lower()}.{name}"
            nxt.pop(name, None)
            nxt.pop(prefixed, None)
            if value is not None:
                nxt[prefixed] = value
        return nxt

    def validate_reconfiguration(self, new_props: Mapping[str, Any]) -> ssl.SSLContext | None:
        """Build the context ``new_props`` ask for, as Kafka checks a dynamic update.

        Args:
            new_props: the broker's properties with the update applied.

        Returns:
            The new context, or None when nothing is to be rebuilt (no reconfigurable config
            changed and no store file was modified since it was loaded).

        Raises:
            ConfigError: "Validation of dynamic config update of SSLFactory failed: ..." with
                Kafka's cause: an unloadable store, a key store added or removed, a changed DN or
                lost subject alternative name.
        """
        nxt = self._next_props(new_props)
        if self._reconfigurable_values(nxt) == self._values and self._store_stamps(nxt) == self._stamps:
            return None
        try:
            context = ssl_server_context(nxt, self.listener)
            certificate = _leaf_certificate(nxt, self.listener)
        except (ConfigError, OSError) as exc:
            location = listener_config(nxt, self.listener, "ssl.keystore.location")
            cause = (
                f"Failed to load PEM SSL keystore {location}" if location else "Invalid PEM keystore configs"
            )
            raise ConfigError(
                f"{FAILED}org.apache.kafka.common.errors.InvalidConfigurationException: {cause} ({exc})"
            ) from None
        if self._certificate is None and certificate is not None:
            raise ConfigError(
                f"{FAILED}org.apache.kafka.common.config.ConfigException: Cannot add SSL keystore to an "
                f"existing listener for which no keystore was configured."
            )
        if self._certificate is not None and certificate is not None:
            try:
                ensure_compatible(
                    certificate,
                    self._certificate,
                    _flag(nxt, self.listener, "ssl.allow.dn.changes"),
                    _flag(nxt, self.listener, "ssl.allow.san.changes"),
                )
            except ConfigError as exc:
                raise ConfigError(f"{FAILED}{exc}") from None
        return context

    def reconfigure(self, new_props: Mapping[str, Any]) -> bool:
        """Validate, then put the new context in force for new connections (open ones keep theirs).

        Args:
            new_props: the broker's properties with the update applied (the ones in force for a
                reload of modified files).

        Returns:
            True when a new context is now in force, False when nothing needed a rebuild.

        Raises:
            ConfigError: see ``validate_reconfiguration`` (the context in force is kept).
        """
        nxt = self._next_props(new_props)
        context = self.validate_reconfiguration(nxt)
        if context is None:
            return False
        self._current = context
        self._props = nxt
        self._values = self._reconfigurable_values(nxt)
        self._stamps = self._store_stamps(nxt)
        self._certificate = _leaf_certificate(nxt, self.listener)
        self._refused_stamps = None
        logger.info(
            "%s Created new SERVER SSL engine builder with keystore %s truststore %s",
            self._prefix,
            listener_config(nxt, self.listener, "ssl.keystore.location") or "(inline PEM)",
            listener_config(nxt, self.listener, "ssl.truststore.location") or "(none or inline PEM)",
        )
        return True

    def start(self, watch_interval_ms: int) -> None:
        """Watch the store files every ``watch_interval_ms`` (ms; 0 or less: no watch); a change
        reloads through ``reconfigure`` with the properties in force."""
        if watch_interval_ms > 0 and any(self._stamps):
            self._watch.start(lambda: self._watch_files(watch_interval_ms / 1000))

    async def stop(self) -> None:
        """Stop the watch (cancelled and awaited, at most 5 s)."""
        await self._watch.shutdown(5)

    async def _watch_files(self, interval_s: float) -> None:
        while True:
            await asyncio.sleep(interval_s)
            stamps = self._store_stamps(self._props)
            if stamps == self._stamps or stamps == self._refused_stamps:
                continue
            try:
                self.reconfigure(self._props)
            except ConfigError as exc:
                self._refused_stamps = stamps  # said once per change of the files
                logger.warning("%s Store files changed, reload refused (old one kept): %s", self._prefix, exc)
