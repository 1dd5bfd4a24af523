"""Kafka client properties (``request.timeout.ms=...``) as keyword arguments of the SDK's classes.

Owns: ``client_settings`` (``{"linger.ms": "5"}`` -> ``{"linger_ms": 5}`` for the
Producer, the Consumer or the AdminClient, converted to the type of each keyword's
default and checked by constructing the class once), ``takes_property`` (whether a
class knows a property) and ``read_properties_file`` (a Java properties file, as
Kafka's ``--command-config`` / ``--producer.config`` take).
Used by the CLI (``--command-config``, ``--producer-property``, ``--consumer-property``)
and the Spark data source (``kafkette.<property>`` options).  Does not own which
properties a caller refuses.

Kafka concept: ``ProducerConfig`` / ``ConsumerConfig`` / ``AdminClientConfig`` property
names; the SDK's keyword names are those names with dots as underscores, except
``batch.size`` (``max_batch_size``) and ``buffer.memory`` (``max_buffer_size``), as in
aiokafka.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

import javaproperties

from kafkette.common.config_def import ConfigError
from kafkette.common.security.sasl_client import login_from_jaas
from kafkette.common.security.ssl_factory import ssl_client_context

# Kafka property names whose SDK keyword is not the name with dots as underscores.
PROPERTY_ALIASES = {"batch.size": "max_batch_size", "buffer.memory": "max_buffer_size"}


def keyword_for(prop: str) -> str:
    """The SDK keyword of a Kafka client property name (``linger.ms`` -> ``linger_ms``)."""
    return PROPERTY_ALIASES.get(prop, prop.replace(".", "_"))


def takes_property(target: type, prop: str) -> bool:
    """Whether ``target``'s constructor has a keyword-only parameter for Kafka property ``prop``.

    Args:
        target: the SDK class (``Producer``, ``Consumer``, ``AdminClient``).
        prop: a Kafka client property name (``fetch.max.wait.ms``).
    """
    parameter = inspect.signature(target.__init__).parameters.get(keyword_for(prop))
    return parameter is not None and parameter.kind is inspect.Parameter.KEYWORD_ONLY


def _convert(keyword: str, default: Any, raw: str) -> Any:
    text = raw.strip()
    if isinstance(default, bool) or keyword == "enable_idempotence":
        if text.lower() not in ("true", "false"):
            raise ValueError
        return text.lower() == "true"
    if keyword == "acks":
        return int(text) if text.lstrip("-").isdigit() else text
    if isinstance(default, int):
        return int(text)
    if isinstance(default, float):
        return float(text)
    return raw


def client_settings(
    properties: Mapping[str, str], target: type, *, source: str | None = None, prefix: str = ""
) -> dict[str, Any]:
    """Turn Kafka client properties into keyword arguments of ``target``.

    Args:
        properties: ``{property name: string value}``, e.g. ``{"request.timeout.ms": "5000"}``.
            ``bootstrap.servers`` is returned under ``bootstrap_servers`` unchecked.
        target: the SDK class (``Producer``, ``Consumer``, ``AdminClient``); its
            keyword-only constructor parameters are the properties it knows.
        source: where the properties came from, for messages (``"admin.properties"``).
        prefix: how the user spelled the names' prefix, for messages (``"kafkette."``).

    Returns:
        ``{keyword: typed value}``; with ``security.protocol=SSL``, ``ssl_context`` is the client
        TLS context the ``ssl.*`` properties describe (PEM trust and key stores:
        ``ssl.truststore.location``, ``ssl.keystore.location``, ``ssl.endpoint.identification.algorithm``
        ...) for ``SSL`` and ``SASL_SSL``; other ``ssl.*`` properties are ignored, as Kafka's clients
        ignore them without TLS; ``sasl.jaas.config``'s ``username`` and ``password`` become
        ``sasl_plain_username`` / ``sasl_plain_password`` (``sasl.mechanism`` is ``sasl_mechanism``).

    Raises:
        ValueError: a property ``target`` does not know, a value of the wrong type, or
            values the SDK refuses (the message names the property and ``source``).
    """
    parameters = inspect.signature(target.__init__).parameters
    where = f" in {source}" if source else ""
    settings: dict[str, Any] = {}
    tls = {k: str(v) for k, v in properties.items() if k.startswith("ssl.")}
    properties = {k: v for k, v in properties.items() if not k.startswith("ssl.")}
    if str(properties.get("security.protocol", "")).strip().upper() in ("SSL", "SASL_SSL"):
        try:
            settings["ssl_context"] = ssl_client_context(tls)
        except ConfigError as exc:
            raise ValueError(f"Bad {target.__name__} properties{where}: {exc}") from None
    jaas = properties.pop("sasl.jaas.config", None)
    if jaas is not None:
        try:
            settings["sasl_plain_username"], settings["sasl_plain_password"] = login_from_jaas(str(jaas))
        except ValueError as exc:
            raise ValueError(f"Invalid value for property '{prefix}sasl.jaas.config'{where}: {exc}") from None
    for prop, raw in properties.items():
        if not takes_property(target, prop):
            raise ValueError(f"Unknown {target.__name__} property '{prefix}{prop}'{where}")
        keyword = keyword_for(prop)
        try:
            settings[keyword] = _convert(keyword, parameters[keyword].default, str(raw))
        except ValueError:
            raise ValueError(f"Invalid value {raw!r} for property '{prefix}{prop}'{where}") from None
    checked = {k: v for k, v in settings.items() if k != "bootstrap_servers"}
    try:  # the SDK checks ranges and combinations itself
        target(bootstrap_servers="127.0.0.1:1", **checked)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"Bad {target.__name__} properties{where}: {exc}") from None
    return settings


def read_properties_file(path: str) -> dict[str, str]:
    """Read a Java properties file (``key=value`` or ``key: value`` lines, ``#`` and ``!``
    comments, ``\\`` continuations), as Kafka's tools load ``--command-config``.

    Args:
        path: the file, UTF-8 text.

    Returns:
        ``{property name: string value}`` (a key given twice keeps its last value).

    Raises:
        ValueError: the file cannot be read or is not UTF-8 text (the message names it).
    """
    try:
        with open(path, encoding="utf-8") as fh:
            return dict(javaproperties.load(fh))
    except OSError as exc:
        raise ValueError(f"Cannot read properties file {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"Properties file {path} is not UTF-8 text (byte {exc.start})") from None
