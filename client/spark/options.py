"""Options of the ``kafkette`` Spark data source, parsed and checked once on the driver.

Owns: the source options (``SourceOptions``: ``kafkette.bootstrap.servers``, exactly one
of ``subscribe`` / ``subscribePattern`` / ``assign``, ``startingOffsets``,
``endingOffsets``, ``maxOffsetsPerTrigger``, ``failOnDataLoss``, ``includeHeaders``,
``kafkaConsumer.pollTimeoutMs``) and the sink options (``SinkOptions``:
``kafkette.bootstrap.servers``, ``topic``), plus the ``kafkette.*`` client settings
handed to the SDK's Consumer and Producer.  Names, defaults and rejections follow
Spark's Kafka source and sink (``KafkaSourceProvider``) with the ``kafka.`` prefix
spelled ``kafkette.`` or ``kafka.`` (``kafka.security.protocol``, ``kafka.sasl.mechanism``,
``kafka.sasl.jaas.config``, ``kafka.ssl.truststore.location`` (PEM), ... as Kafka's clients
name them, mapped by ``kafkette.client.client_properties``).  Does not own any I/O: topics
and offsets are resolved by ``kafkette.client.spark.offset_reader``.

Every mistake raises ``ValueError`` naming the option, before any Spark task runs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kafkette.client.client_properties import client_settings
from kafkette.client.consumer import Consumer
from kafkette.client.producer import Producer
from kafkette.protocol.topic_partition import TopicPartition

CLIENT_PREFIX = "kafkette."
BOOTSTRAP_SERVERS = "kafkette.bootstrap.servers"
# Spark's own Kafka connector spells the client properties' prefix ``kafka.``; both are taken.
KAFKA_PREFIX = "kafka."
# Client properties a source or sink passes to the AdminClient too (the connection's security).
SECURITY_KEYWORDS = (
    "security_protocol",
    "ssl_context",
    "sasl_mechanism",
    "sasl_plain_username",
    "sasl_plain_password",
)

# Spark's Kafka source: -2 means earliest, -1 latest in JSON offsets.
EARLIEST = -2
LATEST = -1

DEFAULT_POLL_TIMEOUT_MS = 120000  # Spark's spark.network.timeout default

# Kafka client properties the connector sets itself (Spark rejects the same ones).
_REJECTED_CONSUMER = {
    "auto.offset.reset": "the connector positions its consumers itself; use startingOffsets",
    "enable.auto.commit": "the connector never commits offsets; progress lives in the checkpoint",
    "group.id": "the connector assigns partitions itself and uses no consumer group",
    "allow.auto.create.topics": "reading never creates topics",
    "key.deserializer": "keys are always read as bytes (cast the key column to deserialize it)",
    "value.deserializer": "values are always read as bytes (cast the value column to deserialize it)",
    "bootstrap.servers": "",
}
_REJECTED_PRODUCER = {
    "key.serializer": "keys are always written as bytes (cast the key column to string or binary)",
    "value.serializer": "values are always written as bytes (cast the value column to string or binary)",
    "bootstrap.servers": "",
}


def _options_lower(options: Mapping[str, str]) -> dict[str, str]:
    """Spark's data source options are case-insensitive: keep them lower-cased."""
    return {str(k).lower(): str(v) for k, v in options.items()}


def _parse_bool(options: dict[str, str], name: str, default: bool) -> bool:
    raw = options.get(name.lower())
    if raw is None:
        return default
    value = raw.strip().lower()
    if value not in ("true", "false"):
        raise ValueError(f"Option '{name}' must be 'true' or 'false', got {raw!r}")
    return value == "true"


def _parse_positive_int(options: dict[str, str], name: str) -> int | None:
    raw = options.get(name.lower())
    if raw is None:
        return None
    try:
        value = int(raw.strip())
    except ValueError:
        raise ValueError(f"Option '{name}' must be a positive integer, got {raw!r}") from None
    if value <= 0:
        raise ValueError(f"Option '{name}' must be a positive integer, got {raw!r}")
    return value


def _client_option(key: str) -> tuple[str, str] | None:
    """``(prefix, Kafka client property)`` of a ``kafkette.<property>`` or ``kafka.<property>``
    option name, None for the connector's own options."""
    for prefix in (CLIENT_PREFIX, KAFKA_PREFIX):
        if key.startswith(prefix):
            return prefix, key[len(prefix) :]
    return None


def _bootstrap_servers(options: dict[str, str]) -> str:
    servers = (options.get(BOOTSTRAP_SERVERS) or options.get(KAFKA_PREFIX + "bootstrap.servers", "")).strip()
    if not servers:
        raise ValueError(
            f"Option '{BOOTSTRAP_SERVERS}' (or '{KAFKA_PREFIX}bootstrap.servers') must be specified "
            f'for configuring Kafkette consumer and producer ("host:port,host:port")'
        )
    return servers


def _client_properties(options: dict[str, str], rejected: Mapping[str, str]) -> dict[str, str]:
    """The Kafka client properties of ``kafkette.<property>`` / ``kafka.<property>`` options
    (``kafka.security.protocol`` -> ``{"security.protocol": ...}``), without ``bootstrap.servers``.

    Raises:
        ValueError: a property the connector sets itself (``rejected``), named as the user spelled it.
    """
    properties: dict[str, str] = {}
    for key, raw in options.items():
        parsed = _client_option(key)
        if parsed is None:
            continue
        prop = parsed[1]
        if prop in rejected:
            if prop == "bootstrap.servers":
                continue
            raise ValueError(f"Kafkette option '{key}' is not supported as {rejected[prop]}")
        properties[prop] = raw
    return properties


def client_keywords(
    properties: Mapping[str, str], target: type, prefix: str = KAFKA_PREFIX
) -> dict[str, Any]:
    """SDK keyword arguments of ``target`` from the string client properties an option set keeps
    (``security.protocol=SASL_SSL`` -> ``security_protocol``, ``ssl_context`` built from the PEM
    ``ssl.truststore.location``, ``sasl.jaas.config`` -> ``sasl_plain_username`` / ``..._password``).

    Built where the client runs (the driver or an executor): an ``ssl.SSLContext`` cannot be pickled
    into a Spark task, the strings can.

    Args:
        properties: ``{Kafka client property: string value}``.
        target: the SDK class (``Consumer`` or ``Producer``).
        prefix: how the user spelled the options' prefix, for messages.

    Raises:
        ValueError: a property ``target`` does not know, or a bad value (named as ``<prefix><property>``).
    """
    return client_settings(properties, target, source="the Spark options", prefix=prefix)


def _spelled_prefix(options: dict[str, str]) -> str:
    """The client options' prefix as the user spelled it, for messages (``kafkette.`` when any is)."""
    return CLIENT_PREFIX if any(key.startswith(CLIENT_PREFIX) for key in options) else KAFKA_PREFIX


# --- subscriptions ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Subscribe:
    """``subscribe``: a fixed list of topics (all their partitions, new ones included)."""

    topics: tuple[str, ...]


@dataclass(frozen=True)
class SubscribePattern:
    """``subscribePattern``: every topic whose whole name matches the regex, including
    topics created while a streaming query runs."""

    pattern: str

    def matches(self, topic: str) -> bool:
        """Whether the whole of ``topic`` matches the pattern."""
        return re.fullmatch(self.pattern, topic) is not None


@dataclass(frozen=True)
class Assign:
    """``assign``: exactly these topic-partitions (``{"topicA":[0,1],"topicB":[2]}``)."""

    partitions: tuple[TopicPartition, ...]


Subscription = Subscribe | SubscribePattern | Assign


def parse_subscription(options: dict[str, str]) -> Subscription:
    """The one subscription strategy named in ``options``.

    Raises:
        ValueError: none or several of ``subscribe``/``subscribePattern``/``assign``, or
            a bad value.
    """
    given = [name for name in ("assign", "subscribe", "subscribepattern") if name in options]
    if len(given) != 1:
        raise ValueError(
            "One of the following options must be specified for Kafkette source: "
            "subscribe, subscribePattern, assign. See the docs for more details."
            if not given
            else f"Only one of subscribe, subscribePattern, assign may be given, got {given}"
        )
    name = given[0]
    raw = options[name]
    if name == "subscribe":
        topics = tuple(t.strip() for t in raw.split(",") if t.strip())
        if not topics:
            raise ValueError(
                f"No topics to subscribe to as specified value for option 'subscribe' is {raw!r}"
            )
        return Subscribe(topics)
    if name == "subscribepattern":
        if not raw.strip():
            raise ValueError(
                "Pattern to subscribe is empty as specified value for option 'subscribePattern' is ''"
            )
        try:
            re.compile(raw)
        except re.error as exc:
            raise ValueError(f"Option 'subscribePattern' is not a valid regex: {exc}") from None
        return SubscribePattern(raw)
    return Assign(tuple(parse_assign_json(raw)))


def _json_object(raw: str, problem: str) -> dict:
    """``raw`` parsed as a non-empty JSON object (a per-topic option value).

    Raises:
        ValueError: with ``problem`` as its message, when ``raw`` is not JSON or not a non-empty object.
    """
    try:
        parsed = json.loads(raw)
    except json.JSONDecodeError:
        raise ValueError(problem) from None
    if not isinstance(parsed, dict) or not parsed:
        raise ValueError(problem)
    return parsed


def parse_assign_json(raw: str) -> list[TopicPartition]:
    """Parse ``{"topicA":[0,1],"topicB":[2,4]}`` into sorted TopicPartitions.

    Raises:
        ValueError: not that shape.
    """
    problem = f'Expected e.g. {{"topicA":[0,1],"topicB":[0,1]}} for option \'assign\', got {raw!r}'
    parsed = _json_object(raw, problem)
    out: set[TopicPartition] = set()
    for topic, partitions in parsed.items():
        if not isinstance(partitions, list) or not all(type(p) is int and p >= 0 for p in partitions):
            raise ValueError(problem)
        out.update(TopicPartition(topic, p) for p in partitions)
    return sorted(out)


# --- offsets specs ---------------------------------------------------------------------------


@dataclass(frozen=True)
class OffsetSpec:
    """``startingOffsets`` / ``endingOffsets``: ``kind`` is ``"earliest"``, ``"latest"`` or
    ``"specific"``; ``offsets`` maps each partition to an offset, -2 (earliest) or -1
    (latest) for ``"specific"``."""

    kind: str
    offsets: dict[TopicPartition, int] = field(default_factory=dict)


def parse_offset_spec(options: dict[str, str], name: str, default: str) -> OffsetSpec:
    """Parse an offsets option (``earliest``, ``latest`` or JSON ``{"t":{"0":23,"1":-2}}``).

    Raises:
        ValueError: a malformed value.
    """
    raw = options.get(name.lower(), default).strip()
    if raw.lower() in ("earliest", "latest"):
        return OffsetSpec(raw.lower())
    problem = (
        f'Expected \'earliest\', \'latest\' or JSON like {{"topicA":{{"0":23,"1":-1}},'
        f'"topicB":{{"0":-2}}}} for option \'{name}\', got {raw!r}'
    )
    parsed = _json_object(raw, problem)
    offsets: dict[TopicPartition, int] = {}
    for topic, per_partition in parsed.items():
        if not isinstance(per_partition, dict):
            raise ValueError(problem)
        for partition, offset in per_partition.items():
            if not str(partition).isdigit() or type(offset) is not int or offset < EARLIEST:
                raise ValueError(problem)
            offsets[TopicPartition(topic, int(partition))] = offset
    return OffsetSpec("specific", offsets)


# --- the parsed option sets ------------------------------------------------------------------


@dataclass(frozen=True)
class SourceOptions:
    """Everything a kafkette read needs, checked.

    Attributes:
        bootstrap_servers: ``host:port,...``.
        subscription: Subscribe, SubscribePattern or Assign.
        starting: where a new query (or a batch read) starts.
        ending: where a batch read ends (None for streaming).
        max_offsets_per_trigger: bound of records per micro-batch (None: unbounded).
        fail_on_data_loss: fail (True) or warn and skip (False) when offsets are gone.
        include_headers: add the ``headers`` column.
        poll_timeout_ms: how long an executor waits for the records of its range (ms).
        consumer_properties: the Kafka client properties of ``kafkette.*`` / ``kafka.*`` options
            (strings; ``consumer_settings`` turns them into Consumer keyword arguments).
    """

    bootstrap_servers: str
    subscription: Subscription
    starting: OffsetSpec
    ending: OffsetSpec | None
    max_offsets_per_trigger: int | None
    fail_on_data_loss: bool
    include_headers: bool
    poll_timeout_ms: int
    consumer_properties: dict[str, str]

    @property
    def consumer_settings(self) -> dict[str, Any]:
        """Consumer keyword arguments of the client options (``ssl_context`` built afresh)."""
        return client_keywords(self.consumer_properties, Consumer)

    @classmethod
    def parse(cls, options: Mapping[str, str], streaming: bool) -> SourceOptions:
        """Parse a read's options as Spark's Kafka source does.

        Args:
            options: the data source options (case-insensitive names).
            streaming: ``readStream`` (True) or ``read`` (False).

        Raises:
            ValueError: a missing, conflicting or malformed option (message names it).
        """
        opts = _options_lower(options)
        starting = parse_offset_spec(opts, "startingOffsets", "latest" if streaming else "earliest")
        ending: OffsetSpec | None = None
        if streaming:
            if "endingoffsets" in opts:
                raise ValueError("Option 'endingOffsets' is not supported for streaming queries on Kafkette")
        else:
            if starting.kind == "latest":
                raise ValueError("Option 'startingOffsets' can't be 'latest' for batch queries on Kafkette")
            ending = parse_offset_spec(opts, "endingOffsets", "latest")
            if ending.kind == "earliest":
                raise ValueError("Option 'endingOffsets' can't be 'earliest' for batch queries on Kafkette")
            if any(offset == EARLIEST for offset in ending.offsets.values()):
                raise ValueError(
                    "Option 'endingOffsets' can't contain -2 (earliest) for batch queries on Kafkette"
                )
            if any(offset == LATEST for offset in starting.offsets.values()):
                raise ValueError(
                    "Option 'startingOffsets' can't contain -1 (latest) for batch queries on Kafkette"
                )
        max_per_trigger = _parse_positive_int(opts, "maxOffsetsPerTrigger")
        if max_per_trigger is not None and not streaming:
            max_per_trigger = None  # Spark ignores it for batch reads
        consumer_properties = _client_properties(opts, _REJECTED_CONSUMER)
        client_keywords(
            consumer_properties, Consumer, _spelled_prefix(opts)
        )  # checked here, before any Spark task runs
        return cls(
            bootstrap_servers=_bootstrap_servers(opts),
            subscription=parse_subscription(opts),
            starting=starting,
            ending=ending,
            max_offsets_per_trigger=max_per_trigger,
            fail_on_data_loss=_parse_bool(opts, "failOnDataLoss", True),
            include_headers=_parse_bool(opts, "includeHeaders", False),
            poll_timeout_ms=_parse_positive_int(opts, "kafkaConsumer.pollTimeoutMs")
            or DEFAULT_POLL_TIMEOUT_MS,
            consumer_properties=consumer_properties,
        )


@dataclass(frozen=True)
class SinkOptions:
    """Everything a kafkette write needs, checked.

    Attributes:
        bootstrap_servers: ``host:port,...``.
        topic: the ``topic`` option; overrides a ``topic`` column when set.
        producer_properties: the Kafka client properties of ``kafkette.*`` / ``kafka.*`` options
            (``kafka.acks``, ``kafkette.linger.ms``, ``kafka.security.protocol``, ...; strings,
            ``producer_settings`` turns them into Producer keyword arguments).
    """

    bootstrap_servers: str
    topic: str | None
    producer_properties: dict[str, str]

    @property
    def producer_settings(self) -> dict[str, Any]:
        """Producer keyword arguments of the client options (``ssl_context`` built afresh)."""
        return client_keywords(self.producer_properties, Producer)

    @classmethod
    def parse(cls, options: Mapping[str, str]) -> SinkOptions:
        """Parse a write's options as Spark's Kafka sink does.

        Raises:
            ValueError: a missing or malformed option.
        """
        opts = _options_lower(options)
        topic = opts.get("topic")
        if topic is not None and not topic.strip():
            raise ValueError("Option 'topic' must not be empty")
        producer_properties = _client_properties(opts, _REJECTED_PRODUCER)
        client_keywords(
            producer_properties, Producer, _spelled_prefix(opts)
        )  # checked here, before any Spark task runs
        return cls(
            bootstrap_servers=_bootstrap_servers(opts),
            topic=topic.strip() if topic is not None else None,
            producer_properties=producer_properties,
        )
