"""The broker's typed configuration: Kafka property names, defaults, validation.

Owns: ``BROKER_CONFIGS`` (every property a node uses, as ``ConfigKey``s of
``kafkette.common.config_def``), ``INTERNAL_BROKER_CONFIGS`` (the ones Kafka defines as internal:
used, never described) and ``KafkaConfig`` (one attribute per property,
dots as underscores: ``log.segment.bytes`` -> ``log_segment_bytes``).  A
``server.properties`` file is read with the ``javaproperties`` library.  Every key of
Apache Kafka's broker config table (``kafka_broker_config_names``) is accepted: one
Kafkette does not use is listed in ``KafkaConfig.unused_configs`` (the node names them in
one warning at start-up); a key that is neither Kafka's nor Kafkette's is refused with the
closest known names ("Did you mean"), and a bad value of a used key raises ``ConfigError``
naming the property; start-up stops.

Kafka's synonyms are honoured as Kafka's ``KafkaConfig`` does: ``broker.id`` stands for
``node.id`` (both set: they must be equal), ``log.dir`` for ``log.dirs`` (``log.dirs``
wins), ``metadata.log.dir`` defaults to the first of ``log.dirs``.  The controller's
listeners (``controller.listener.names``) and the brokers' (``inter.broker.listener.name``)
are checked with Kafka's rules.  The metadata quorum is static (``controller.quorum.voters``);
``controller.quorum.bootstrap.servers`` alone, as Kafka 4's sample file has it, is read as a
quorum of this one controller (Kafka's ``kafka-storage format --standalone``).

Kafka concept: ``KafkaConfig``/``ConfigDef`` (same names and defaults),
``KafkaConfig.populateSynonyms`` and ``validateValues``.
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import javaproperties

from kafkette.broker.group.group_coordinator_config import (
    CONSUMER_GROUP_CONFIGS,
    CONSUMER_GROUP_INTERNAL_CONFIGS,
    check_group_coordinator_configs,
)
from kafkette.broker.kafka_broker_config_names import KAFKA_BROKER_CONFIG_NAMES, KAFKA_VERSION
from kafkette.broker.node_client_security import (
    CONTROLLER_MECHANISM_CONFIG,
    INTER_BROKER_MECHANISM_CONFIG,
    client_security_for,
)
from kafkette.broker.transaction.transaction_state_manager_config import TRANSACTION_CONFIGS
from kafkette.common.config_def import (
    LONG_MAX,
    PARSERS,
    ConfigError,
    ConfigKey,
    at_least,
    in_range,
    one_of,
    table,
)
from kafkette.common.network.client_security import ClientSecurity
from kafkette.common.security.standard_authorizer import (
    ALLOW_EVERYONE_IF_NO_ACL_IS_FOUND_CONFIG,
    AUTHORIZER_CLASS_NAME_CONFIG,
    SUPER_USERS_CONFIG,
    StandardAuthorizerConfig,
)
from kafkette.common.topic_config import (
    SYNONYM_MS_PER_UNIT,
    TOPIC_CONFIG_BY_SYNONYM,
    TOPIC_CONFIG_DEFS,
    synonym_to_topic_value,
)


def _check_listeners(value: list[str]) -> None:
    if not value:
        raise ValueError("at least one listener is required")
    for item in value:
        parse_listener(item)


def _check_optional_listeners(value: list[str]) -> None:
    for item in value:
        parse_listener(item)


WIRE_PROTOCOLS = ("kafka", "kafkette")


def _check_wire_protocol_map(value: list[str]) -> None:
    parse_wire_protocol_map(value)


def parse_wire_protocol_map(items: list[str]) -> dict[str, str]:
    """Parse ``listener.wire.protocol.map`` items ``NAME:PROTOCOL`` into ``{name: protocol}``.

    Raises:
        ValueError: an item that is not NAME:PROTOCOL, or a protocol other than kafka or kafkette.
    """
    out: dict[str, str] = {}
    for item in items:
        name, sep, protocol = item.partition(":")
        if not sep or not name or protocol.lower() not in WIRE_PROTOCOLS:
            raise ValueError(
                f"{item!r} must look like NAME:PROTOCOL with PROTOCOL one of {', '.join(WIRE_PROTOCOLS)}"
            )
        out[name] = protocol.lower()
    return out


def _check_voters(value: list[str]) -> None:
    for item in value:
        parse_voter(item)


def _check_host_ports(value: list[str]) -> None:
    for item in value:
        parse_host_port(item)


def parse_host_port(text: str) -> tuple[str, int]:
    """Parse a ``controller.quorum.bootstrap.servers`` entry ``host:port`` into (host, port).

    Args:
        text: the entry.

    Returns:
        (host, port); the host is everything before the last colon.

    Raises:
        ValueError: not HOST:PORT with a port in 0..65535.
    """
    host, colon, port = text.rpartition(":")
    if not colon or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"{text!r} must look like host:port")
    return host, int(port)


def parse_listener(text: str) -> tuple[str, str, int]:
    """Parse ``PLAINTEXT://host:port`` into (name, host, port).

    Raises:
        ValueError: not NAME://HOST:PORT with a port in 0..65535.
    """
    name, sep, rest = text.partition("://")
    host, colon, port = rest.rpartition(":")
    if not sep or not colon or not name:
        raise ValueError(f"listener {text!r} must look like PLAINTEXT://host:port")
    port_num = int(port)
    if not 0 <= port_num <= 65535:
        raise ValueError(f"listener {text!r} has port outside 0..65535")
    return name, host, port_num


def parse_voter(text: str) -> tuple[int, str, int]:
    """Parse a ``controller.quorum.voters`` entry ``id@host:port`` into (id, host, port).

    Raises:
        ValueError: malformed entry.
    """
    node, at, address = text.partition("@")
    host, colon, port = address.rpartition(":")
    if not at or not colon:
        raise ValueError(f"voter {text!r} must look like id@host:port")
    return int(node), host, int(port)


DEFAULT_LOG_DIR = "/tmp/kafkette-logs"


def _log_default(name: str, doc: str, **changes: Any) -> ConfigKey:
    """A broker property that is the broker-wide default of a topic config (one of its broker
    synonyms in ``TOPIC_CONFIG_DEFS``): type, default and validator are the topic config's, the
    default converted to the property's unit (``log.roll.hours``: 168 for ``segment.ms``'s
    604800000 ms), unless ``changes`` says otherwise.

    Args:
        name: the broker property (``log.segment.bytes``).
        doc: its description.
        changes: ``ConfigKey`` fields that differ from the topic config's (``default=None`` for
            a synonym that another one falls back to, ``type="int"`` for an hours property).

    Returns:
        The property's ``ConfigKey``.
    """
    topic_key = TOPIC_CONFIG_BY_SYNONYM[name]
    factor = SYNONYM_MS_PER_UNIT.get(name.rsplit(".", 1)[-1], 1)
    default = topic_key.default // factor if factor != 1 else topic_key.default
    return replace(ConfigKey(name, topic_key.type, default, doc, topic_key.validator), **changes)


# fmt: off
BROKER_CONFIGS: tuple[ConfigKey, ...] = (
    ConfigKey("node.id", "int", None, "The node id of this broker.", at_least(0)),
    ConfigKey("broker.id", "int", None, "Kafka's older name of node.id, used when node.id is not set; when "
              "both are set they must be equal.", at_least(0)),
    ConfigKey("process.roles", "list", ["broker"], "Roles: broker and/or controller.",
              one_of("broker", "controller")),
    ConfigKey("listeners", "list", ["PLAINTEXT://127.0.0.1:9092"], "Listener URIs NAME://host:port.",
              _check_listeners),
    ConfigKey("advertised.listeners", "list", [], "Listeners published to clients; default: listeners.",
              _check_optional_listeners),
    ConfigKey("listener.wire.protocol.map", "list", ["KAFKA:kafka"], "What each listener speaks, "
              "NAME:PROTOCOL: kafka (Apache Kafka's binary protocol, for Kafka's own clients and tools) or "
              "kafkette (Kafkette's msgpack protocol, for its SDK and between brokers); a listener not named "
              "here speaks kafkette.", _check_wire_protocol_map),
    ConfigKey("controller.listener.names", "list", [], "Listeners of the controller (the addresses of "
              "controller.quorum.voters point at them): they speak kafkette and are not published to "
              "clients; unset: the controller answers on the brokers' listener."),
    ConfigKey("inter.broker.listener.name", "string", None, "The listener brokers reach each other and the "
              "SDK on (it speaks kafkette); unset: the first listener speaking kafkette that is not the "
              "controller's."),
    ConfigKey("log.dirs", "list", [DEFAULT_LOG_DIR], "Directories holding partition logs; unset: log.dir."),
    ConfigKey("log.dir", "string", DEFAULT_LOG_DIR, "The directory (or comma-separated directories) holding "
              "partition logs when log.dirs is not set."),
    ConfigKey("metadata.log.dir", "string", None, "Directory of the metadata log (__cluster_metadata-0) of a "
              "controller; unset: the first of log.dirs."),
    ConfigKey("broker.rack", "string", None, "Rack of this broker (rack-aware assignment)."),
    ConfigKey("cluster.id", "string", "kafkette-cluster", "The cluster id reported in Metadata."),
    ConfigKey("controller.quorum.voters", "list", [],
              "Voters of the metadata quorum, id@host:port; their Raft leader is the active controller.",
              _check_voters),
    ConfigKey("controller.quorum.bootstrap.servers", "list", [], "host:port of controllers (a dynamic "
              "quorum, KIP-853). Kafkette's quorum is static: used only without controller.quorum.voters, on "
              "a controller, as one entry naming its own controller listener: this node is then the only "
              "voter.", _check_host_ports),
    ConfigKey("controller.quorum.election.timeout.ms", "int", 1000, "A voter with no leader stands for "
              "election after this plus up to as much again at random (ms).", at_least(1)),
    ConfigKey("controller.quorum.fetch.timeout.ms", "int", 2000,
              "A follower not hearing from its leader this long stands for election (ms).", at_least(1)),
    ConfigKey("controller.quorum.election.backoff.max.ms", "int", 1000,
              "Most a losing candidate waits before standing again (ms).", at_least(1)),
    ConfigKey("controller.quorum.request.timeout.ms", "int", 2000,
              "A quorum request without an answer this long is sent again (ms).", at_least(1)),
    ConfigKey("controller.quorum.retry.backoff.ms", "int", 20,
              "Wait before a quorum request is sent again after an error (ms).", at_least(1)),
    ConfigKey("metadata.log.max.record.bytes.between.snapshots", "long", 20 * 1024 * 1024, "Bytes of "
              "committed metadata records after which a voter writes a snapshot of the metadata (KIP-630).",
              at_least(1)),
    ConfigKey("num.partitions", "int", 1, "Default partitions for new topics.", at_least(1)),
    ConfigKey("default.replication.factor", "int", 1, "Default replication factor for new topics.",
              in_range(1, 32767)),
    _log_default("min.insync.replicas", "Minimum ISR size for acks=all produce."),
    ConfigKey("auto.create.topics.enable", "boolean", True, "Create unknown topics on Metadata requests."),
    ConfigKey("delete.topic.enable", "boolean", True, "Allow DeleteTopics."),
    _log_default("unclean.leader.election.enable", "Elect out-of-sync replicas as a last resort."),
    ConfigKey("auto.leader.rebalance.enable", "boolean", True,
              "Periodically move leadership back to preferred replicas."),
    ConfigKey("leader.imbalance.per.broker.percentage", "int", 10,
              "Allowed share of a broker's preferred partitions led elsewhere (%).", at_least(0)),
    ConfigKey("leader.imbalance.check.interval.seconds", "long", 300,
              "Period of the leader imbalance check (s).", at_least(1)),
    ConfigKey("controlled.shutdown.enable", "boolean", True,
              "Move leaderships away (ControlledShutdown) before stopping."),
    ConfigKey("controlled.shutdown.max.retries", "int", 3,
              "ControlledShutdown attempts before an unclean stop.", at_least(0)),
    ConfigKey("controlled.shutdown.retry.backoff.ms", "long", 5000,
              "Backoff between ControlledShutdown attempts (ms).", at_least(0)),
    ConfigKey("replica.lag.time.max.ms", "long", 30000,
              "ISR shrink after a follower is behind this long (ms).", at_least(1)),
    ConfigKey("num.replica.fetchers", "int", 1, "Fetcher tasks per source broker.", at_least(1)),
    ConfigKey("replica.fetch.max.bytes", "int", 1048576, "Bytes per partition per follower fetch.",
              at_least(1)),
    ConfigKey("replica.fetch.min.bytes", "int", 1, "Min bytes for a follower fetch response.", at_least(1)),
    ConfigKey("replica.fetch.wait.max.ms", "int", 500, "Max wait of a follower fetch (ms).", at_least(0)),
    ConfigKey("replica.fetch.response.max.bytes", "int", 10485760, "Max bytes of a follower fetch response.",
              at_least(1)),
    ConfigKey("replica.fetch.backoff.ms", "int", 1000, "Backoff after a follower fetch error (ms).",
              at_least(0)),
    ConfigKey("leader.replication.throttled.rate", "long", LONG_MAX,
              "Bytes/s this broker sends as leader to the throttled replicas (KIP-73).", at_least(0)),
    ConfigKey("follower.replication.throttled.rate", "long", LONG_MAX,
              "Bytes/s this broker fetches as follower for the throttled replicas (KIP-73).", at_least(0)),
    ConfigKey("replication.quota.window.num", "int", 11,
              "Samples a replication throttle's rate is measured over.", at_least(1)),
    ConfigKey("replication.quota.window.size.seconds", "int", 1,
              "Time span of each replication throttle sample (s).", at_least(1)),
    ConfigKey("quota.window.num", "int", 11,
              "Samples a client quota's rate is measured over (KIP-13).", at_least(1)),
    ConfigKey("quota.window.size.seconds", "int", 1,
              "Time span of each client quota sample (s).", at_least(1)),
    ConfigKey("max.incremental.fetch.session.cache.slots", "int", 1000,
              "Most incremental fetch sessions (KIP-227) kept at once.", at_least(0)),
    ConfigKey("replica.high.watermark.checkpoint.interval.ms", "long", 5000,
              "High watermark checkpoint period (ms).", at_least(1)),
    ConfigKey("replica.socket.timeout.ms", "int", 30000, "Socket timeout of follower fetches (ms).",
              at_least(1)),
    ConfigKey("offsets.topic.num.partitions", "int", 50,
              "Partitions of __consumer_offsets (set once, at its creation).", at_least(1)),
    ConfigKey("offsets.topic.replication.factor", "short", 3,
              "Replication factor of __consumer_offsets (capped at the live brokers).", at_least(1)),
    ConfigKey("offsets.commit.timeout.ms", "int", 5000,
              "How long an offset commit waits for the ISR of __consumer_offsets (ms).", at_least(1)),
    ConfigKey("offset.metadata.max.bytes", "int", 4096,
              "Largest metadata string of a committed offset (bytes).", at_least(0)),
    ConfigKey("group.min.session.timeout.ms", "int", 6000,
              "Shortest session.timeout.ms a group member may ask for (ms).", at_least(1)),
    ConfigKey("group.max.session.timeout.ms", "int", 1800000,
              "Longest session.timeout.ms a group member may ask for (ms).", at_least(1)),
    ConfigKey("group.initial.rebalance.delay.ms", "int", 3000,
              "How long the first rebalance of an empty group waits for more members (ms).", at_least(0)),
    ConfigKey("group.max.size", "int", 2147483647, "Most members a group may have.", at_least(1)),
    ConfigKey("offsets.retention.minutes", "int", 10080, "Committed offsets of a group without members are "
              "deleted this long after it emptied (minutes).", at_least(1)),
    ConfigKey("offsets.retention.check.interval.ms", "long", 600000,
              "How often expired offsets are looked for (ms).", at_least(1)),
    ConfigKey("offsets.topic.segment.bytes", "int", 104857600, "Segment size of __consumer_offsets (bytes).",
              at_least(1)),
    ConfigKey("broker.session.timeout.ms", "int", 9000,
              "A broker missing heartbeats this long is fenced (ms).", at_least(1)),
    ConfigKey("broker.heartbeat.interval.ms", "int", 2000, "Heartbeat period (ms).", at_least(1)),
    ConfigKey("controller.socket.timeout.ms", "int", 30000, "Timeout of controller-to-broker requests (ms).",
              at_least(1)),
    ConfigKey("request.timeout.ms", "int", 30000, "Default timeout for internal requests (ms).", at_least(1)),
    ConfigKey("socket.request.max.bytes", "int", 104857600, "Largest request frame accepted (bytes).",
              at_least(1)),
    ConfigKey("queued.max.requests", "int", 500, "In-flight requests per connection before reading pauses.",
              at_least(1)),
    ConfigKey("queued.max.request.bytes", "long", -1, "Bytes of requests being read and handled across the "
              "listener's connections before connections stop reading (-1: no bound; else at least "
              "socket.request.max.bytes).", at_least(-1)),
    ConfigKey("max.connections", "int", 2147483647,
              "Connections a listener keeps at most; more are closed as accepted.", at_least(0)),
    ConfigKey("max.connections.per.ip", "int", 2147483647,
              "Connections from one address at most; more are closed as accepted.", at_least(0)),
    ConfigKey("connections.max.idle.ms", "long", 600000,
              "A connection with no request for this long is closed (ms; -1 never).", at_least(-1)),
    ConfigKey("ssl.store.watch.interval.ms", "long", 5000,
              "How often an SSL or SASL_SSL listener polls its PEM key store and trust store files "
              "(modification time and size); a change reloads them for new connections as a dynamic update "
              "of listener.name.<l>.ssl.keystore.location does (ms; 0 never). Kafkette's: Kafka has none.",
              at_least(0)),
    _log_default("compression.type", "Default final compression of topics' batches: producer (as sent), "
                 "uncompressed or a codec."),
    _log_default("log.message.timestamp.type",
                 "Default timestamp type of topics: CreateTime or LogAppendTime."),
    _log_default("log.message.timestamp.before.max.ms",
                 "Default max time a CreateTime record timestamp may be behind the broker's clock (ms)."),
    _log_default("log.message.timestamp.after.max.ms",
                 "Default max time a CreateTime record timestamp may be ahead of the broker's clock (ms)."),
    _log_default("compression.gzip.level", "Default gzip level of batches the broker compresses (-1: 6)."),
    _log_default("compression.lz4.level", "Default LZ4 level of batches the broker compresses."),
    _log_default("compression.zstd.level", "Default zstd level of batches the broker compresses."),
    _log_default("log.preallocate", "Default preallocate of topics' segment files."),
    _log_default("log.local.retention.bytes", "Default local.retention.bytes (tiered storage; -2: "
                 "log.retention.bytes)."),
    _log_default("log.local.retention.ms",
                 "Default local.retention.ms (tiered storage; -2: log.retention.ms)."),
    _log_default("message.max.bytes", "Largest record batch accepted (bytes)."),
    _log_default("log.segment.bytes", "Segment size before a roll (bytes)."),
    _log_default("log.roll.ms", "Time before a segment rolls (ms); unset = log.roll.hours.", default=None),
    _log_default("log.roll.hours", "Time before a segment rolls (hours).", type="int"),
    _log_default("log.roll.jitter.ms", "Max random jitter subtracted from the roll time (ms); unset = "
                 "log.roll.jitter.hours.", default=None),
    _log_default("log.roll.jitter.hours", "Max random jitter subtracted from the roll time (hours).",
                 type="int"),
    _log_default("log.index.interval.bytes", "Bytes between offset index entries."),
    _log_default("log.index.size.max.bytes", "Max offset index size (bytes)."),
    _log_default("log.flush.interval.messages", "Messages before an fsync."),
    _log_default("log.flush.interval.ms", "Max time between fsyncs (ms); unset = never forced.",
                 default=None),
    ConfigKey("log.flush.offset.checkpoint.interval.ms", "int", 60000,
              "Recovery point checkpoint period (ms).", at_least(0)),
    _log_default("log.retention.ms", "Retention time (ms); unset = log.retention.hours.", default=None),
    _log_default("log.retention.minutes", "Retention time (minutes); unset = log.retention.hours.",
                 type="int", default=None),
    _log_default("log.retention.hours", "Retention time (hours).", type="int"),
    _log_default("log.retention.bytes", "Retention size per partition (bytes), -1 = none.",
                 validator=at_least(-1)),
    ConfigKey("log.retention.check.interval.ms", "long", 300000, "Retention check period (ms).", at_least(1)),
    _log_default("log.segment.delete.delay.ms", "Delay before a deleted segment's files are removed (ms)."),
    _log_default("log.cleanup.policy", "Default cleanup policy: delete and/or compact.",
                 validator=one_of("compact", "delete")),
    ConfigKey("log.cleaner.enable", "boolean", True,
              "Run the log cleaner (compaction of cleanup.policy=compact topics)."),
    ConfigKey("log.cleaner.backoff.ms", "long", 15000,
              "Sleep of the log cleaner when no log needs cleaning (ms).", at_least(0)),
    ConfigKey("log.cleaner.dedupe.buffer.size", "long", 134217728,
              "Memory for the cleaner's key -> offset map (bytes).", at_least(24)),
    _log_default("log.cleaner.min.cleanable.ratio", "Default min.cleanable.dirty.ratio."),
    _log_default("log.cleaner.delete.retention.ms", "Default delete.retention.ms of tombstones (ms)."),
    _log_default("log.cleaner.min.compaction.lag.ms", "Default min.compaction.lag.ms (ms)."),
    _log_default("log.cleaner.max.compaction.lag.ms",
                 "Default max.compaction.lag.ms: the longest a record stays uncompacted (ms)."),
    *CONSUMER_GROUP_CONFIGS,  # the consumer group protocol's (KIP-848), with Kafka's cross-checks
    *TRANSACTION_CONFIGS,  # the transaction coordinator's (KIP-98)
)
# fmt: on

INTERNAL_BROKER_CONFIGS: tuple[ConfigKey, ...] = (*CONSUMER_GROUP_INTERNAL_CONFIGS,)
"""Kafka's internal broker configs a node uses (``ConfigDef.defineInternal``): read and validated as
``BROKER_CONFIGS`` are, but left out of DescribeConfigs, as Kafka leaves them out."""

_BY_NAME: dict[str, ConfigKey] = table((*BROKER_CONFIGS, *INTERNAL_BROKER_CONFIGS))
_KNOWN_NAMES: tuple[str, ...] = tuple(sorted(set(_BY_NAME) | KAFKA_BROKER_CONFIG_NAMES))
NO_QUORUM_MESSAGE = (
    "If using process.roles, either controller.quorum.bootstrap.servers must contain the set of "
    "bootstrap controllers or controller.quorum.voters must contain a parseable set of controllers."
)
"""Kafka's ``KafkaConfig`` refusal of a node that names no metadata quorum."""
LISTENER_PREFIX = "listener.name."
"""Kafka's per-listener form of a config, ``listener.name.<listener>.<config>`` (KIP-103)."""


AUTHORIZER_CONFIG_NAMES = frozenset({SUPER_USERS_CONFIG, ALLOW_EVERYONE_IF_NO_ACL_IS_FOUND_CONFIG})
"""The configs Kafka hands to the authorizer (not keys of its broker config table): accepted and read
when ``authorizer.class.name`` names Kafka's StandardAuthorizer, else listed as unused."""


def _authorizer_config(props: Mapping[str, Any]) -> StandardAuthorizerConfig | None:
    """The StandardAuthorizer's ``super.users`` and ``allow.everyone.if.no.acl.found``, or None when
    ``authorizer.class.name`` is unset or empty (no authorization, Kafka's default).

    Raises:
        ConfigError: ``authorizer.class.name`` names any class but Kafka's
            ``org.apache.kafka.metadata.authorizer.StandardAuthorizer`` (the only one Kafkette has),
            or ``super.users`` holds an entry that is not ``Type:name``.
    """
    try:
        return StandardAuthorizerConfig.from_properties(
            {key: str(value) for key, value in props.items() if value is not None}
        )
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


SECURITY_CONFIG_NAMES = frozenset(
    {
        "listener.security.protocol.map",
        "connections.max.reauth.ms",
        "sasl.enabled.mechanisms",
        "sasl.mechanism.inter.broker.protocol",
        "sasl.mechanism.controller.protocol",
        "ssl.keystore.type",
        "ssl.keystore.location",
        "ssl.keystore.key",
        "ssl.keystore.certificate.chain",
        "ssl.keystore.password",
        "ssl.key.password",
        "ssl.truststore.type",
        "ssl.truststore.location",
        "ssl.truststore.certificates",
        "ssl.client.auth",
        "ssl.enabled.protocols",
        "ssl.cipher.suites",
        "ssl.principal.mapping.rules",
        "ssl.endpoint.identification.algorithm",
        "ssl.allow.dn.changes",
        "ssl.allow.san.changes",
    }
)
"""Kafka's security configs the listeners read from the properties as given (``ssl_listener_config``,
``sasl_listener_config``, ``node_client_security``), so they are not listed as unused."""


PER_MECHANISM_CONFIG_NAMES = frozenset({"sasl.jaas.config", "connections.max.reauth.ms"})
"""Kafka's SASL configs a listener also reads per mechanism (``listener.name.<l>.<mechanism>.<config>``)."""


def is_security_config(name: str) -> bool:
    """Whether ``name`` is one of ``SECURITY_CONFIG_NAMES``, also in its per-listener form, or a
    listener's per-mechanism ``sasl.jaas.config`` or ``connections.max.reauth.ms``
    (``listener.name.<l>.<mechanism>.sasl.jaas.config``)."""
    if name in SECURITY_CONFIG_NAMES:
        return True
    if not name.startswith(LISTENER_PREFIX):
        return False
    rest = name[len(LISTENER_PREFIX) :].partition(".")[2]
    return rest in SECURITY_CONFIG_NAMES or rest.partition(".")[2] in PER_MECHANISM_CONFIG_NAMES


def is_kafka_config(name: str) -> bool:
    """Whether ``name`` is a key of Apache Kafka's broker config table, also in its per-listener
    form (``listener.name.<listener>[.<mechanism>].<config>``, KIP-103).

    Args:
        name: a ``server.properties`` key.

    Returns:
        True for one of ``KAFKA_BROKER_CONFIG_NAMES`` or its per-listener form.
    """
    if name in KAFKA_BROKER_CONFIG_NAMES:
        return True
    if not name.startswith(LISTENER_PREFIX):
        return False
    parts = name[len(LISTENER_PREFIX) :].split(".")
    return any(".".join(parts[i:]) in KAFKA_BROKER_CONFIG_NAMES for i in range(1, len(parts)))


def unknown_config_message(names: list[str]) -> str:
    """The one-line refusal of keys that are neither Kafkette's nor Apache Kafka's, naming the
    known keys closest to the first (``difflib``: at most 3, similarity at least 0.75 and within
    0.1 of the closest), as click says "Did you mean".

    Args:
        names: the unknown keys, sorted (at least one).

    Returns:
        ``Unknown configuration 'NAME'`` with the hint and the count of the other unknown keys.
    """
    first = names[0]
    close = difflib.get_close_matches(first, _KNOWN_NAMES, n=3, cutoff=0.75)
    if close:  # only those nearly as close as the closest (dotted names share much)
        best = difflib.SequenceMatcher(None, first, close[0]).ratio()
        close = [c for c in close if difflib.SequenceMatcher(None, first, c).ratio() >= best - 0.1]
    if len(close) == 1:
        hint = f". Did you mean {close[0]!r}?"
    elif close:
        hint = ". Did you mean one of: " + ", ".join(repr(c) for c in close) + "?"
    else:
        hint = f" (no such config in Kafkette or Apache Kafka {KAFKA_VERSION})"
    more = f" (and {len(names) - 1} more: {', '.join(names[1:])})" if len(names) > 1 else ""
    return f"Unknown configuration {first!r}{hint}{more}"


@dataclass(frozen=True)
class ListenerEndpoint:
    """One listener: its name, where it binds, where clients are told to connect, and what it
    speaks (``kafka`` or ``kafkette``)."""

    name: str
    host: str
    port: int
    advertised_host: str
    advertised_port: int
    wire_protocol: str


class KafkaConfig:
    """A validated broker configuration; one attribute per property of ``BROKER_CONFIGS`` and of
    ``INTERNAL_BROKER_CONFIGS``.

    Attributes set from Kafka's synonyms: ``node_id`` from ``broker.id`` when only that is set
    (``broker_id`` always equals ``node_id``), ``log_dirs`` from ``log.dir`` when ``log.dirs`` is
    not set, ``metadata_log_dir`` the first of ``log_dirs`` when unset, and
    ``controller_quorum_voters`` this node alone when only ``controller.quorum.bootstrap.servers``
    names it (``quorum_from_bootstrap_servers`` is then True).  ``authorizer`` is the
    StandardAuthorizer's config (``super.users``, ``allow.everyone.if.no.acl.found``) when
    ``authorizer.class.name`` names it, else None.  ``unused_configs`` lists, sorted,
    the keys of ``props`` that are Apache Kafka's and that Kafkette does not use (or that lose to
    another key: ``log.dir`` beside ``log.dirs``).

    Args:
        props: ``{dotted name: value}`` (strings as read from a file, or typed values).

    Raises:
        ConfigError: unknown key (with the closest known ones), missing required key, invalid
            value, or keys that disagree (Kafka's messages where Kafka has one).
    """

    def __init__(self, props: Mapping[str, Any]) -> None:
        unknown = sorted(
            k
            for k in props
            if k not in _BY_NAME and k not in AUTHORIZER_CONFIG_NAMES and not is_kafka_config(k)
        )
        if unknown:
            raise ConfigError(unknown_config_message(unknown))
        self.originals = dict(props)
        for key in (*BROKER_CONFIGS, *INTERNAL_BROKER_CONFIGS):
            if key.name in props:
                value = key.parse(props[key.name])
            else:
                value = list(key.default) if isinstance(key.default, list) else key.default
            setattr(self, key.attr, value)
        self._resolve_synonyms(props)
        if 0 < self.queued_max_request_bytes < self.socket_request_max_bytes:
            raise ConfigError(
                "queued.max.request.bytes must be larger or equal to socket.request.max.bytes "
                f"({self.queued_max_request_bytes} < {self.socket_request_max_bytes})"
            )
        self._check_listeners()
        self._check_quorum()
        check_group_coordinator_configs(self)
        self.authorizer = _authorizer_config(props)
        unused = {k for k in props if k not in _BY_NAME and not is_security_config(k)}
        if self.authorizer is not None:
            unused -= {AUTHORIZER_CLASS_NAME_CONFIG, *AUTHORIZER_CONFIG_NAMES}
        if "log.dirs" in props and "log.dir" in props:
            unused.add("log.dir")
        if self.controller_quorum_bootstrap_servers and not self.quorum_from_bootstrap_servers:
            unused.add("controller.quorum.bootstrap.servers")
        self.unused_configs: list[str] = sorted(unused)

    def _resolve_synonyms(self, props: Mapping[str, Any]) -> None:
        """``broker.id`` -> ``node.id``, ``log.dir`` -> ``log.dirs``, ``log.dirs`` ->
        ``metadata.log.dir`` (Kafka's ``populateSynonyms``, ``logDirs``, ``metadataLogDir``)."""
        if self.node_id is None:
            self.node_id = self.broker_id
        if self.node_id is None:
            raise ConfigError("Missing required configuration 'node.id' which has no default value")
        if self.broker_id is not None and self.broker_id != self.node_id:
            raise ConfigError(
                f"You must set `node.id` to the same value as `broker.id` (node.id={self.node_id}, "
                f"broker.id={self.broker_id})"
            )
        self.broker_id = self.node_id
        if "log.dirs" not in props:
            self.log_dirs = PARSERS["list"](self.log_dir)
        if not self.log_dirs:
            raise ConfigError("Invalid value for configuration log.dirs: at least one directory is required")
        if not self.metadata_log_dir:
            self.metadata_log_dir = self.log_dirs[0]

    def _check_listeners(self) -> None:
        """Listener names once each; the controller's listeners, the brokers' and the one brokers
        use between them by Kafka's rules (``KafkaConfig.validateValues``); kafkette where Kafkette
        needs it (brokers, the SDK and the controller speak it)."""
        names = [parse_listener(item)[0] for item in self.listeners]
        if len(set(names)) != len(names):
            raise ConfigError(
                f"Invalid value for configuration listeners: a listener name appears twice in "
                f"{','.join(self.listeners)}"
            )
        protocols = parse_wire_protocol_map(self.listener_wire_protocol_map)
        controller_names = self.controller_listener_names
        if controller_names:
            in_listeners = [n for n in controller_names if n in names]
            if self.is_controller and not in_listeners:
                raise ConfigError(
                    "controller.listener.names must contain at least one value appearing in the "
                    "'listeners' configuration when running the KRaft controller role"
                )
            if self.is_controller and len(in_listeners) != len(controller_names):
                raise ConfigError(
                    "controller.listener.names must only contain values appearing in the 'listeners' "
                    "configuration when running the KRaft controller role"
                )
            if not self.is_controller and in_listeners:
                raise ConfigError(
                    "controller.listener.names must not contain a value appearing in the 'listeners' "
                    "configuration when running KRaft with just the broker role"
                )
            if not self.is_broker and set(names) - set(controller_names):
                raise ConfigError(
                    "The listeners config must only contain KRaft controller listeners from "
                    "controller.listener.names when process.roles=controller"
                )
            for name in in_listeners:
                if protocols.get(name, "kafkette") != "kafkette":
                    raise ConfigError(
                        f"Invalid value for configuration listener.wire.protocol.map: {name} is a "
                        "listener of controller.listener.names; the controller speaks kafkette"
                    )
        broker_names = [n for n in names if n not in controller_names]
        if self.is_broker and not broker_names:
            raise ConfigError(
                "There must be at least one broker advertised listener. Perhaps all listeners appear "
                "in controller.listener.names?"
            )
        if not any(
            protocols.get(n, "kafkette") == "kafkette" for n in (broker_names if self.is_broker else names)
        ):
            raise ConfigError(
                "Invalid value for configuration listeners: no listener speaks kafkette "
                "(listener.wire.protocol.map); brokers and the SDK need one"
            )
        name = self.inter_broker_listener_name
        if self.is_broker and name is not None:
            if name not in broker_names:
                raise ConfigError(
                    "inter.broker.listener.name must be a listener name defined in advertised.listeners. "
                    "The valid options based on currently configured listeners are "
                    f"{','.join(broker_names)}"
                )
            if protocols.get(name, "kafkette") != "kafkette":
                raise ConfigError(
                    f"Invalid value {name} for configuration inter.broker.listener.name: it speaks "
                    f"{protocols[name]} (listener.wire.protocol.map); brokers reach each other in "
                    "kafkette"
                )
        unknown_advertised = sorted({parse_listener(a)[0] for a in self.advertised_listeners} - set(names))
        if unknown_advertised and len(names) > 1:
            raise ConfigError(
                f"Invalid value for configuration advertised.listeners: {unknown_advertised[0]} is not "
                "a listener of listeners"
            )

    def _check_quorum(self) -> None:
        """Voters once each and a controller among them; ``controller.quorum.bootstrap.servers``
        alone read as a quorum of this one controller (Kafka's ``format --standalone``)."""
        self.quorum_from_bootstrap_servers = False
        if not self.controller_quorum_voters and self.controller_quorum_bootstrap_servers:
            self.controller_quorum_voters = [self._standalone_voter()]
            self.quorum_from_bootstrap_servers = True
        voter_ids = [parse_voter(v)[0] for v in self.controller_quorum_voters]
        if len(set(voter_ids)) != len(voter_ids):
            raise ConfigError(
                f"Invalid value for configuration controller.quorum.voters: a node id appears twice "
                f"in {','.join(self.controller_quorum_voters)}"
            )
        if self.is_controller and not voter_ids:
            raise ConfigError(NO_QUORUM_MESSAGE)
        if self.is_controller and self.node_id not in voter_ids:
            raise ConfigError(
                f"If process.roles contains the 'controller' role, the node id {self.node_id} must be "
                f"included in the set of voters controller.quorum.voters={sorted(voter_ids)}"
            )

    def require_quorum(self) -> None:
        """Check, before a node starts, that it knows the voters of the metadata quorum.

        Kafka's ``KafkaConfig`` requires them of every KRaft node; here the constructor requires
        them of a controller only, so that a broker's parts (logs, replicas, request handlers)
        can be built from a config without a quorum.  A broker-only node reaches the controllers
        at ``controller.quorum.voters`` (``controller.quorum.bootstrap.servers`` alone is a
        controller's, see ``_standalone_voter``).

        Raises:
            ConfigError: ``controller.quorum.voters`` is empty (Kafka's message).
        """
        if not self.controller_quorum_voters:
            raise ConfigError(
                NO_QUORUM_MESSAGE + " A broker reaches the controllers at controller.quorum.voters "
                "(id@host:port of every voter)."
            )

    def _standalone_voter(self) -> str:
        """``node.id@host:port`` of the one entry of ``controller.quorum.bootstrap.servers`` when it
        names a listener of this controller.

        Raises:
            ConfigError: not a controller, several entries, or an entry on no port of this node's
                controller listeners (a dynamic quorum, which Kafkette does not have).
        """
        servers = self.controller_quorum_bootstrap_servers
        if self.is_controller and len(servers) == 1:
            host, port = parse_host_port(servers[0])
            if port in {p for e in self.controller_endpoints for p in (e.port, e.advertised_port)}:
                return f"{self.node_id}@{host}:{port}"
        raise ConfigError(
            "controller.quorum.bootstrap.servers without controller.quorum.voters (a dynamic quorum, "
            "KIP-853) is taken only on a controller, as one entry naming its own controller listener "
            "(it is then the only voter, as after kafka-storage format --standalone); Kafkette's quorum "
            "is static: set controller.quorum.voters (id@host:port of every voter)"
        )

    @classmethod
    def from_file(cls, path: str) -> KafkaConfig:
        """Read a ``server.properties`` file.

        Raises:
            ConfigError: unreadable file or invalid contents.
        """
        try:
            with open(path, encoding="utf-8") as fh:
                props = javaproperties.load(fh)
        except OSError as exc:
            raise ConfigError(f"Cannot read config file {path}: {exc.strerror}") from None
        except UnicodeDecodeError as exc:
            raise ConfigError(f"Config file {path} is not UTF-8 text (byte {exc.start})") from None
        except ValueError as exc:  # javaproperties: a malformed \\uXXXX escape
            raise ConfigError(f"Config file {path} is not a properties file: {exc}") from None
        return cls(props)

    def __getattr__(self, name: str) -> Any:  # only reached for unknown attributes
        raise AttributeError(f"KafkaConfig has no property {name!r}")

    @property
    def listener_endpoints(self) -> list[ListenerEndpoint]:
        """Every listener of ``listeners`` in order, with its advertised address (the
        ``advertised.listeners`` entry of the same name; the first one when no name matches and
        there is a single listener, as before names mattered; else the listener itself) and what
        it speaks (``listener.wire.protocol.map``)."""
        protocols = parse_wire_protocol_map(self.listener_wire_protocol_map)
        advertised = {
            name: (host, port) for name, host, port in map(parse_listener, self.advertised_listeners)
        }
        out = []
        for item in self.listeners:
            name, host, port = parse_listener(item)
            adv = advertised.get(name)
            if adv is None and self.advertised_listeners and len(self.listeners) == 1:
                adv = parse_listener(self.advertised_listeners[0])[1:]
            adv_host, adv_port = adv or (host, port)
            out.append(
                ListenerEndpoint(name, host, port, adv_host, adv_port, protocols.get(name, "kafkette"))
            )
        return out

    @property
    def controller_endpoints(self) -> list[ListenerEndpoint]:
        """The listeners of ``controller.listener.names`` this node serves (a controller's; they speak
        kafkette); without ``controller.listener.names``, every listener speaking kafkette (the
        controller shares the brokers' listener)."""
        kafkette = [e for e in self.listener_endpoints if e.wire_protocol == "kafkette"]
        if not self.controller_listener_names:
            return kafkette
        return [e for e in kafkette if e.name in self.controller_listener_names]

    def _main_endpoint(self) -> ListenerEndpoint:
        """The listener the SDK and the brokers use (a controller-only node: its controller listener)."""
        kafkette = [e for e in self.listener_endpoints if e.wire_protocol == "kafkette"]
        if not self.is_broker:
            return (self.controller_endpoints or kafkette)[0]
        name = self.inter_broker_listener_name
        return next(
            e for e in kafkette if (e.name == name if name else e.name not in self.controller_listener_names)
        )

    @functools.cached_property
    def inter_broker_security(self) -> ClientSecurity:
        """TLS and SASL of this node's connections to the brokers' own listener (replica fetchers,
        the controller's requests to brokers): that listener's ``ssl.*`` configs and, for SASL, the
        login of ``sasl.mechanism.inter.broker.protocol`` (``inter.broker.listener.name``, else the
        listener of ``listener``).

        Raises:
            ConfigError: a bad ``ssl.*`` or SASL setting, named.
        """
        name = self.inter_broker_listener_name or self._main_endpoint().name
        return client_security_for(self.originals, name, INTER_BROKER_MECHANISM_CONFIG)

    @functools.cached_property
    def controller_security(self) -> ClientSecurity:
        """TLS and SASL of this node's connections to the controllers (the quorum's and the brokers'
        requests): the first of ``controller.listener.names``' settings (the brokers' listener's when
        the controller shares it), logging in with ``sasl.mechanism.controller.protocol`` (or, on a
        shared listener, ``sasl.mechanism.inter.broker.protocol``).

        Raises:
            ConfigError: a bad ``ssl.*`` or SASL setting, named.
        """
        names = self.controller_listener_names
        if names:
            return client_security_for(self.originals, names[0], CONTROLLER_MECHANISM_CONFIG)
        return client_security_for(self.originals, self._main_endpoint().name, INTER_BROKER_MECHANISM_CONFIG)

    @property
    def listener_name(self) -> str:
        """The name of the listener of ``listener`` (``PLAINTEXT``, ``SSL``, ``CONTROLLER`` ...)."""
        return self._main_endpoint().name

    @property
    def listener(self) -> tuple[str, int]:
        """(host, port) of the listener the SDK and the brokers use: ``inter.broker.listener.name``,
        else the first listener speaking kafkette that is not the controller's."""
        endpoint = self._main_endpoint()
        return endpoint.host, endpoint.port

    @property
    def advertised_listener(self) -> tuple[str, int]:
        """(host, port) published for the listener of ``listener``."""
        endpoint = self._main_endpoint()
        return endpoint.advertised_host, endpoint.advertised_port

    @property
    def is_controller(self) -> bool:
        """True when this node is a voter of the metadata quorum (``process.roles`` has ``controller``)."""
        return "controller" in self.process_roles

    @property
    def is_broker(self) -> bool:
        """True when this node hosts partitions (``process.roles`` has ``broker``)."""
        return "broker" in self.process_roles

    @property
    def quorum_voters(self) -> dict[int, tuple[str, int]]:
        """``{node id: (host, port)}`` of ``controller.quorum.voters``, in the order given."""
        return {node: (host, port) for node, host, port in map(parse_voter, self.controller_quorum_voters)}

    def topic_config_default(self, name: str) -> Any:
        """The broker-wide value of a topic config: its first broker synonym with a value, in the
        topic config's unit (``segment.ms``: ``log.roll.ms``, else ``log.roll.hours`` as ms), else
        the topic config's default (``flush.ms`` without ``log.flush.interval.ms``; a topic config
        without broker synonym).  Kafka's ``KafkaConfig.extractLogConfigMap`` over
        ``ServerTopicConfigSynonyms``.

        Args:
            name: a topic config name (``segment.ms``).

        Returns:
            The typed value (a list for ``cleanup.policy``).

        Raises:
            KeyError: ``name`` is not a topic config.
        """
        key = TOPIC_CONFIG_DEFS[name]
        for synonym in key.synonyms:
            value = getattr(self, synonym.replace(".", "_"))
            if value is not None:
                return synonym_to_topic_value(synonym, value)
        return key.default

    @property
    def roll_ms(self) -> int:
        """Effective ``log.roll.ms`` (falls back to ``log.roll.hours``), ms."""
        return self.topic_config_default("segment.ms")

    @property
    def roll_jitter_ms(self) -> int:
        """Effective ``log.roll.jitter.ms`` (falls back to ``log.roll.jitter.hours``), ms."""
        return self.topic_config_default("segment.jitter.ms")

    @property
    def retention_ms(self) -> int:
        """Effective ``log.retention.ms`` (falls back to minutes, then hours; -1 = unlimited)."""
        return self.topic_config_default("retention.ms")
