"""Configs: DescribeConfigs of every topic config (value, source, read-only, type and synonyms,
KIP-226/KIP-569) at its default and overridden, of Kafka's documented broker configs, and
IncrementalAlterConfigs (KIP-339: SET, DELETE, APPEND, SUBTRACT and their validation).

Requests go raw (DescribeConfigs v4, IncrementalAlterConfigs v1).
"""

from __future__ import annotations

import time
from typing import Any

from kafkette.protocol.apis.configs import (
    AlterableConfig,
    AlterConfigsResource,
    DescribeConfigsRequest,
    DescribeConfigsResource,
    IncrementalAlterConfigsRequest,
)
from kafkette.protocol.kafka_messages.configs import (
    AlterConfigsRequest,
    LegacyAlterableConfig,
    LegacyAlterConfigsResource,
)
from tests.conformance.catalogue import register, scenario
from tests.conformance.scenarios.topics import create
from tests.conformance.target import Target, code_name

TOPIC, BROKER = 2, 4
SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3
SOURCES = {
    -1: "UNKNOWN",
    0: "UNKNOWN",
    1: "DYNAMIC_TOPIC_CONFIG",
    2: "DYNAMIC_BROKER_CONFIG",
    3: "DYNAMIC_DEFAULT_BROKER_CONFIG",
    4: "STATIC_BROKER_CONFIG",
    5: "DEFAULT_CONFIG",
    6: "DYNAMIC_BROKER_LOGGER_CONFIG",
    7: "CLIENT_METRICS_CONFIG",
    8: "GROUP_CONFIG",
}
TYPES = {
    0: "UNKNOWN",
    1: "BOOLEAN",
    2: "STRING",
    3: "INT",
    4: "SHORT",
    5: "LONG",
    6: "DOUBLE",
    7: "LIST",
    8: "CLASS",
    9: "PASSWORD",
}

# Apache Kafka 4.3's topic configs (TopicConfig), every one a client may describe or set.
TOPIC_CONFIGS = (
    "cleanup.policy",
    "compression.gzip.level",
    "compression.lz4.level",
    "compression.type",
    "compression.zstd.level",
    "delete.retention.ms",
    "file.delete.delay.ms",
    "flush.messages",
    "flush.ms",
    "follower.replication.throttled.replicas",
    "index.interval.bytes",
    "leader.replication.throttled.replicas",
    "local.retention.bytes",
    "local.retention.ms",
    "max.compaction.lag.ms",
    "max.message.bytes",
    "message.timestamp.after.max.ms",
    "message.timestamp.before.max.ms",
    "message.timestamp.type",
    "min.cleanable.dirty.ratio",
    "min.compaction.lag.ms",
    "min.insync.replicas",
    "preallocate",
    "remote.log.copy.disable",
    "remote.log.delete.on.disable",
    "remote.storage.enable",
    "retention.bytes",
    "retention.ms",
    "segment.bytes",
    "segment.index.bytes",
    "segment.jitter.ms",
    "segment.ms",
    "unclean.leader.election.enable",
)

# A valid value other than the default for each topic config that can be overridden here.
OVERRIDES = {
    "cleanup.policy": "compact",
    "compression.gzip.level": "5",
    "compression.lz4.level": "4",
    "compression.type": "lz4",
    "compression.zstd.level": "7",
    "delete.retention.ms": "1000",
    "file.delete.delay.ms": "1000",
    "flush.messages": "100",
    "flush.ms": "1000",
    "follower.replication.throttled.replicas": "0:1",
    "index.interval.bytes": "8192",
    "leader.replication.throttled.replicas": "*",
    "max.compaction.lag.ms": "100000",
    "max.message.bytes": "2000000",
    "message.timestamp.after.max.ms": "60000",
    "message.timestamp.before.max.ms": "60000",
    "message.timestamp.type": "LogAppendTime",
    "min.cleanable.dirty.ratio": "0.1",
    "min.compaction.lag.ms": "10",
    "min.insync.replicas": "2",
    "preallocate": "true",
    "retention.bytes": "1000000",
    "retention.ms": "3600000",
    "segment.bytes": "2097152",
    "segment.index.bytes": "1048576",
    "segment.jitter.ms": "10",
    "segment.ms": "3600000",
    "unclean.leader.election.enable": "true",
}

# Broker configs Kafka's documentation lists (and a client may read), at the shared cluster settings.
BROKER_CONFIGS = (
    "auto.create.topics.enable",
    "compression.type",
    "default.replication.factor",
    "delete.topic.enable",
    "group.initial.rebalance.delay.ms",
    "group.max.session.timeout.ms",
    "group.min.session.timeout.ms",
    "log.cleaner.enable",
    "log.cleanup.policy",
    "log.flush.interval.messages",
    "log.index.interval.bytes",
    "log.message.timestamp.type",
    "log.retention.bytes",
    "log.retention.check.interval.ms",
    "log.retention.hours",
    "log.retention.ms",
    "log.roll.hours",
    "log.segment.bytes",
    "message.max.bytes",
    "min.insync.replicas",
    "num.partitions",
    "offsets.retention.minutes",
    "offsets.topic.num.partitions",
    "replica.fetch.max.bytes",
    "replica.lag.time.max.ms",
    "socket.request.max.bytes",
    "unclean.leader.election.enable",
)


def entry(c: Any) -> dict[str, Any]:
    """One described config as a client reads it."""
    return {
        "value": c.value,
        "source": SOURCES.get(c.config_source, c.config_source),
        "read_only": c.read_only,
        "sensitive": c.is_sensitive,
        "type": TYPES.get(c.config_type, c.config_type),
        "synonyms": [[s.name, s.value, SOURCES.get(s.source, s.source)] for s in c.synonyms],
    }


def describe(t: Target, resource_type: int, name: str, keys: list[str] | None) -> Any:
    """DescribeConfigs v4 (with synonyms) of one resource; ``{"error": ...}`` or ``{key: entry}``."""
    answer = t.call(
        "DescribeConfigs",
        4,
        DescribeConfigsRequest(
            resources=[
                DescribeConfigsResource(
                    resource_type=resource_type, resource_name=name, configuration_keys=keys
                )
            ],
            include_synonyms=True,
        ),
    )
    result = answer.results[0]
    if result.error_code:
        return {"error": code_name(result.error_code)}
    return {c.name: entry(c) for c in result.configs}


_DEFAULTS_TOPIC = "cfg-describe-defaults"
_created: set[tuple[str, str]] = set()


def _ensure_topic(t: Target, name: str, configs: dict[str, str] | None = None) -> None:
    if (t.name, name) not in _created:
        create(t, name, partitions=1, rf=3, configs=configs)
        t.wait_topic(name)
        _created.add((t.name, name))


def _topic_default(t: Target, key: str) -> Any:
    _ensure_topic(t, _DEFAULTS_TOPIC)
    return describe(t, TOPIC, _DEFAULTS_TOPIC, [key]).get(key, "absent")


def _topic_override(t: Target, key: str, value: str) -> Any:
    name = "cfg-override-" + key.replace(".", "-")
    outcome = create(t, name, partitions=1, rf=3, configs={key: value})
    if outcome["error"] != "NONE":
        return outcome
    t.wait_topic(name)
    return describe(t, TOPIC, name, [key]).get(key, "absent")


for _key in TOPIC_CONFIGS:
    register(
        f"configs/topic-default/{_key}",
        f"DescribeConfigs of {_key} on a topic without overrides",
        lambda t, k=_key: _topic_default(t, k),
    )
for _key, _value in OVERRIDES.items():
    register(
        f"configs/topic-override/{_key}",
        f"A topic created with {_key}={_value}, described",
        lambda t, k=_key, v=_value: _topic_override(t, k, v),
    )


def _broker(t: Target, key: str) -> Any:
    described = describe(t, BROKER, "1", [key]).get(key, "absent")
    if isinstance(described, dict):
        described["synonyms"] = [s for s in described["synonyms"] if s[2] != "DYNAMIC_BROKER_CONFIG"]
    return described


for _key in BROKER_CONFIGS:
    register(
        f"configs/broker/{_key}",
        f"DescribeConfigs of the broker config {_key} on broker 1",
        lambda t, k=_key: _broker(t, k),
    )


@scenario("configs/topic-all-names")
def _all_names(t: Target) -> Any:
    """DescribeConfigs of a topic with no keys named lists every topic config."""
    _ensure_topic(t, _DEFAULTS_TOPIC)
    return sorted(describe(t, TOPIC, _DEFAULTS_TOPIC, None))


@scenario("configs/describe/unknown-topic")
def _unknown_topic(t: Target) -> Any:
    """DescribeConfigs of a topic that does not exist: UNKNOWN_TOPIC_OR_PARTITION."""
    return describe(t, TOPIC, "cfg-no-such-topic", None)


@scenario("configs/describe/unknown-key")
def _unknown_key(t: Target) -> Any:
    """DescribeConfigs naming a key that is no topic config: answered without it."""
    _ensure_topic(t, _DEFAULTS_TOPIC)
    return describe(t, TOPIC, _DEFAULTS_TOPIC, ["no.such.config"])


@scenario("configs/describe/broker-not-a-number")
def _broker_bad_name(t: Target) -> Any:
    """DescribeConfigs of a broker resource whose name is not an id."""
    return describe(t, BROKER, "not-a-number", ["num.partitions"])


@scenario("configs/describe/broker-default-resource")
def _broker_default(t: Target) -> Any:
    """DescribeConfigs of the cluster-wide broker default resource (empty name) lists nothing set."""
    return describe(t, BROKER, "", None)


def alter(
    t: Target,
    resource_type: int,
    name: str,
    ops: list[tuple[str, int, str | None]],
    validate_only: bool = False,
) -> str:
    """IncrementalAlterConfigs v1 of one resource; the error's name."""
    resource = AlterConfigsResource(
        resource_type=resource_type,
        resource_name=name,
        configs=[AlterableConfig(name=k, config_operation=op, value=v) for k, op, v in ops],
    )
    answer = t.call(
        "IncrementalAlterConfigs",
        1,
        IncrementalAlterConfigsRequest(resources=[resource], validate_only=validate_only),
    )
    return code_name(answer.responses[0].error_code)


def _alter_case(
    t: Target,
    name: str,
    start: dict[str, str] | None,
    ops: list[tuple[str, int, str | None]],
    validate_only: bool = False,
) -> Any:
    create(t, name, configs=start)
    t.wait_topic(name)
    error = alter(t, TOPIC, name, ops, validate_only)
    time.sleep(1.0)  # Kafka's brokers learn the change from the metadata log a moment after the answer
    keys = sorted({k for k, _, _ in ops} | set(start or {}))
    described = describe(t, TOPIC, name, keys)
    return {
        "error": error,
        "after": {k: [v["value"], v["source"]] for k, v in described.items()}
        if "error" not in described
        else described,
    }


ALTER_CASES: dict[str, dict[str, Any]] = {
    "set": {"start": None, "ops": [("retention.ms", SET, "1000")]},
    "set-two": {"start": None, "ops": [("retention.ms", SET, "1000"), ("segment.ms", SET, "2000")]},
    "delete": {"start": {"retention.ms": "1000"}, "ops": [("retention.ms", DELETE, None)]},
    "delete-not-set": {"start": None, "ops": [("retention.ms", DELETE, None)]},
    "append-list": {"start": None, "ops": [("cleanup.policy", APPEND, "compact")]},
    "subtract-list": {
        "start": {"cleanup.policy": "compact,delete"},
        "ops": [("cleanup.policy", SUBTRACT, "delete")],
    },
    "append-non-list": {"start": None, "ops": [("retention.ms", APPEND, "5")]},
    "invalid-value": {"start": None, "ops": [("retention.ms", SET, "soon")]},
    "unknown-key": {"start": None, "ops": [("no.such.config", SET, "1")]},
    "validate-only": {"start": None, "ops": [("retention.ms", SET, "1000")], "validate_only": True},
    "same-key-twice": {"start": None, "ops": [("retention.ms", SET, "1000"), ("retention.ms", SET, "2000")]},
    "unknown-operation": {"start": None, "ops": [("retention.ms", 9, "1000")]},
    "set-null": {"start": None, "ops": [("retention.ms", SET, None)]},
    "min-isr-zero": {"start": None, "ops": [("min.insync.replicas", SET, "0")]},
}
for _label, _case in ALTER_CASES.items():
    register(
        f"configs/alter/{_label}",
        f"IncrementalAlterConfigs on a topic: {_case['ops']}",
        lambda t, c=_case, lbl=_label: _alter_case(t, f"alter-{lbl}", **c),
    )


@scenario("configs/alter/unknown-topic")
def _alter_unknown(t: Target) -> Any:
    """IncrementalAlterConfigs of a topic that does not exist: UNKNOWN_TOPIC_OR_PARTITION."""
    return alter(t, TOPIC, "alter-no-such-topic", [("retention.ms", SET, "1000")])


def alter_broker(
    t: Target, name: str, ops: list[tuple[str, int, str | None]], validate_only: bool = True
) -> Any:
    """IncrementalAlterConfigs v1 of one BROKER resource, sent to broker 1; ``[error name, message]``."""
    resource = AlterConfigsResource(
        resource_type=BROKER,
        resource_name=name,
        configs=[AlterableConfig(name=k, config_operation=op, value=v) for k, op, v in ops],
    )
    answer = t.call(
        "IncrementalAlterConfigs",
        1,
        IncrementalAlterConfigsRequest(resources=[resource], validate_only=validate_only),
        node=1,
    )
    return [code_name(answer.responses[0].error_code), answer.responses[0].error_message]


# IncrementalAlterConfigs of broker 1 (validate_only) and of the cluster-wide default (empty name):
# Kafka's DynamicBrokerConfig rules (per-broker, cluster-wide and read-only configs) and messages.
ALTER_BROKER_CASES: dict[str, tuple[str, list[tuple[str, int, str | None]]]] = {
    "per-broker-config": ("1", [("sasl.kerberos.min.time.before.relogin", SET, "60000")]),
    "cluster-wide-config": ("1", [("background.threads", SET, "5")]),
    "log-default": ("1", [("log.retention.ms", SET, "100000")]),
    "read-only": ("1", [("broker.id", SET, "3")]),
    "two-read-only": ("1", [("log.dirs", SET, "/tmp/x"), ("broker.id", SET, "3")]),
    "security-without-listener": ("1", [("ssl.keystore.location", SET, "/tmp/ks")]),
    "security-with-listener": ("1", [("listener.name.plaintext.ssl.keystore.location", SET, "/tmp/ks")]),
    "not-a-number": ("1", [("message.max.bytes", SET, "abc")]),
    "not-a-boolean": ("1", [("unclean.leader.election.enable", SET, "maybe")]),
    "unknown-config": ("1", [("no.such.config", SET, "1")]),
    "append-non-list": ("1", [("background.threads", APPEND, "5")]),
    "append-unknown": ("1", [("no.such.config", APPEND, "5")]),
    "append-list": ("1", [("sasl.enabled.mechanisms", APPEND, "PLAIN")]),
    "delete-read-only": ("1", [("broker.id", DELETE, None)]),
    "set-null": ("1", [("background.threads", SET, None)]),
    "same-key-twice": ("1", [("background.threads", SET, "5"), ("background.threads", SET, "6")]),
    "unknown-operation": ("1", [("background.threads", 9, "5")]),
    "other-broker": ("7", [("background.threads", SET, "5")]),
    "name-not-a-number": ("abc", [("background.threads", SET, "5")]),
    "default-per-broker-config": ("", [("sasl.enabled.mechanisms", SET, "PLAIN")]),
    "default-cluster-wide-config": ("", [("background.threads", SET, "5")]),
    "default-read-only": ("", [("broker.id", SET, "3")]),
}
for _label, (_name, _ops) in ALTER_BROKER_CASES.items():
    register(
        f"configs/alter-broker/{_label}",
        f"IncrementalAlterConfigs (validate_only) of broker {_name!r}: {_ops}",
        lambda t, n=_name, o=_ops: alter_broker(t, n, o),
    )


@scenario("configs/alter-broker/set-and-describe")
def _alter_broker_set(t: Target) -> Any:
    """IncrementalAlterConfigs sets background.threads (cluster-wide) on broker 1, then DescribeConfigs shows
    it."""
    error = alter_broker(t, "1", [("background.threads", SET, "5")], validate_only=False)
    time.sleep(1.0)  # Kafka's brokers learn the change from the metadata log a moment after the answer
    described = describe(t, BROKER, "1", ["background.threads"]).get("background.threads", "absent")
    if isinstance(described, dict):
        described = [described["value"], described["source"], described["read_only"], described["type"]]
    alter_broker(t, "1", [("background.threads", DELETE, None)], validate_only=False)
    return {"error": error, "described": described}


def legacy_alter(
    t: Target, resource_type: int, name: str, configs: dict[str, str | None], validate_only: bool = False
) -> Any:
    """AlterConfigs v1 (the legacy, non-incremental API 33) of one resource, sent to broker 1;
    ``[error name, message]``."""
    resource = LegacyAlterConfigsResource(
        resource_type=resource_type,
        resource_name=name,
        configs=[LegacyAlterableConfig(name=k, value=v) for k, v in configs.items()],
    )
    answer = t.call(
        "AlterConfigs", 1, AlterConfigsRequest(resources=[resource], validate_only=validate_only), node=1
    )
    return [code_name(answer.responses[0].error_code), answer.responses[0].error_message]


def _legacy_alter_topic(
    t: Target, name: str, configs: dict[str, str | None], validate_only: bool = False
) -> Any:
    create(t, name, partitions=1, rf=1, configs={"retention.ms": "1000", "segment.ms": "2000000"})
    t.wait_topic(name)
    error = legacy_alter(t, TOPIC, name, configs, validate_only)
    time.sleep(1.0)  # Kafka's brokers learn the change from the metadata log a moment after the answer
    keys = sorted({"retention.ms", "segment.ms"} | set(configs))
    described = describe(t, TOPIC, name, keys)
    return {
        "error": error,
        "after": {k: [v["value"], v["source"]] for k, v in described.items()}
        if "error" not in described
        else described,
    }


# AlterConfigs on a topic created with retention.ms=1000 and segment.ms=2000000: the configs listed
# replace every override (segment.ms, not listed, goes back to its default).
LEGACY_ALTER_CASES: dict[str, dict[str, Any]] = {
    "replace": {"configs": {"retention.ms": "5000"}},
    "replace-with-nothing": {"configs": {}},
    "validate-only": {"configs": {"retention.ms": "5000"}, "validate_only": True},
    "invalid-value": {"configs": {"retention.ms": "soon"}},
    "unknown-key": {"configs": {"no.such.config": "1"}},
}
for _label, _case in LEGACY_ALTER_CASES.items():
    register(
        f"configs/legacy-alter/{_label}",
        f"AlterConfigs (33) on a topic with two overrides: {_case}",
        lambda t, c=_case, lbl=_label: _legacy_alter_topic(t, f"legacy-alter-{lbl}", **c),
    )


@scenario("configs/legacy-alter/unknown-topic")
def _legacy_alter_unknown(t: Target) -> Any:
    """AlterConfigs of a topic that does not exist."""
    return legacy_alter(t, TOPIC, "legacy-alter-no-such-topic", {"retention.ms": "1000"})


@scenario("configs/legacy-alter/broker")
def _legacy_alter_broker(t: Target) -> Any:
    """AlterConfigs (validate_only) of broker 1: a dynamic config, a read-only one, an SSL config
    without a listener prefix; then a real one replacing background.threads by log.cleaner.threads."""
    out = {
        label: legacy_alter(t, BROKER, "1", configs, validate_only=True)
        for label, configs in (
            ("dynamic", {"background.threads": "5"}),
            ("read-only", {"broker.id": "3"}),
            ("security", {"ssl.keystore.location": "/tmp/ks"}),
        )
    }
    out["set"] = legacy_alter(t, BROKER, "1", {"background.threads": "5"})
    out["replace"] = legacy_alter(t, BROKER, "1", {"log.cleaner.threads": "2"})
    time.sleep(1.0)
    described = describe(t, BROKER, "1", ["log.cleaner.threads", "background.threads"])
    out["after"] = (
        {k: [v["value"], v["source"]] for k, v in described.items() if v["source"] == "DYNAMIC_BROKER_CONFIG"}
        if "error" not in described
        else described
    )
    legacy_alter(t, BROKER, "1", {})
    return out


GROUP = 32  # KIP-848's group config resources


def alter_group(
    t: Target, name: str, ops: list[tuple[str, int, str | None]], validate_only: bool = False
) -> Any:
    """IncrementalAlterConfigs v1 of one GROUP resource; ``[error name, message]``."""
    resource = AlterConfigsResource(
        resource_type=GROUP,
        resource_name=name,
        configs=[AlterableConfig(name=k, config_operation=op, value=v) for k, op, v in ops],
    )
    answer = t.call(
        "IncrementalAlterConfigs",
        1,
        IncrementalAlterConfigsRequest(resources=[resource], validate_only=validate_only),
    )
    return [code_name(answer.responses[0].error_code), answer.responses[0].error_message]


@scenario("configs/group/describe-default")
def _group_default(t: Target) -> Any:
    """DescribeConfigs of a group no one configured: every group config at its default."""
    return describe(t, GROUP, "cfg-group-never-configured", None)


@scenario("configs/group/describe-empty-name")
def _group_empty(t: Target) -> Any:
    """DescribeConfigs of the group with the empty name: INVALID_REQUEST."""
    return describe(t, GROUP, "", None)


@scenario("configs/group/set-and-describe")
def _group_set(t: Target) -> Any:
    """IncrementalAlterConfigs sets two group configs and deletes one, then DescribeConfigs shows them."""
    out = {
        "set": alter_group(
            t,
            "cfg-group-set",
            [("consumer.session.timeout.ms", SET, "50000"), ("share.auto.offset.reset", SET, "earliest")],
        ),
        "delete": alter_group(t, "cfg-group-set", [("share.auto.offset.reset", DELETE, None)]),
    }
    time.sleep(1.0)  # Kafka's brokers learn the change from the metadata log a moment after the answer
    out["after"] = describe(
        t, GROUP, "cfg-group-set", ["consumer.session.timeout.ms", "share.auto.offset.reset"]
    )
    return out


ALTER_GROUP_CASES: dict[str, tuple[str, list[tuple[str, int, str | None]]]] = {
    "below-broker-min": ("g", [("consumer.session.timeout.ms", SET, "1000")]),
    "above-broker-max": ("g", [("consumer.session.timeout.ms", SET, "70000")]),
    "not-a-number": ("g", [("consumer.heartbeat.interval.ms", SET, "abc")]),
    "below-config-min": ("g", [("share.record.lock.duration.ms", SET, "500")]),
    "standby-above-max": ("g", [("streams.num.standby.replicas", SET, "3")]),
    "isolation-level": ("g", [("share.isolation.level", SET, "foo")]),
    "auto-offset-reset": ("g", [("share.auto.offset.reset", SET, "foo")]),
    "by-duration": ("g", [("share.auto.offset.reset", SET, "by_duration:PT1H")]),
    "unknown-config": ("g", [("no.such.config", SET, "1")]),
    "append-non-list": ("g", [("consumer.session.timeout.ms", APPEND, "1")]),
    "empty-name": ("", [("consumer.session.timeout.ms", SET, "50000")]),
}
for _label, (_name, _ops) in ALTER_GROUP_CASES.items():
    register(
        f"configs/group/alter-{_label}",
        f"IncrementalAlterConfigs (validate_only) of group {_name!r}: {_ops}",
        lambda t, n=_name, o=_ops: alter_group(t, n, o, validate_only=True),
    )


@scenario("configs/group/legacy-alter")
def _group_legacy(t: Target) -> Any:
    """AlterConfigs (33, validate_only) of a group: a valid and an out-of-bounds session timeout."""
    return {
        "valid": legacy_alter(t, GROUP, "cfg-group-legacy", {"consumer.session.timeout.ms": "50000"}, True),
        "invalid": legacy_alter(t, GROUP, "cfg-group-legacy", {"consumer.session.timeout.ms": "1"}, True),
    }
