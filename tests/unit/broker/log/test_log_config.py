from __future__ import annotations

import dataclasses

import pytest

from kafkette.broker.config import BROKER_CONFIGS, KafkaConfig
from kafkette.broker.log.log_config import LogConfig
from kafkette.common.topic_config import (
    BROKER_SYNONYMS_WITHOUT_DEFAULT,
    TOPIC_CONFIG_BY_SYNONYM,
    TOPIC_CONFIG_DEFS,
    TOPIC_CONFIG_NAMES,
    synonym_to_topic_value,
    validate_topic_configs,
)


def _broker(**props):
    return KafkaConfig({"node.id": 1, **props})


def test_defaults_come_from_broker_config():
    config = LogConfig.from_broker(
        _broker(
            **{
                "log.segment.bytes": "2048",
                "log.index.interval.bytes": "100",
                "log.index.size.max.bytes": "800",
                "message.max.bytes": "5000",
                "log.flush.interval.messages": "3",
                "log.flush.interval.ms": "250",
                "log.retention.hours": "1",
                "log.retention.bytes": "99999",
                "min.insync.replicas": "2",
                "unclean.leader.election.enable": "true",
            }
        )
    )
    assert config == LogConfig(
        segment_bytes=2048,
        segment_index_bytes=800,
        index_interval_bytes=100,
        max_message_bytes=5000,
        flush_messages=3,
        flush_ms=250,
        retention_ms=3_600_000,
        retention_bytes=99999,
        min_insync_replicas=2,
        unclean_leader_election_enable=True,
        cleanup_policy="delete",
    )


def test_unset_flush_interval_ms_means_never():
    assert LogConfig.from_broker(_broker()).flush_ms == 2**63 - 1


def test_topic_overrides_use_kafka_topic_config_names():
    config = LogConfig.from_broker(
        _broker(),
        {
            "segment.bytes": "1048576",
            "min.insync.replicas": "2",
            "retention.ms": "-1",
            "max.message.bytes": "100",
            "flush.messages": "1",
            "unclean.leader.election.enable": "true",
            "cleanup.policy": "compact,delete",
        },
    )
    assert config.segment_bytes == 1048576 and config.min_insync_replicas == 2
    assert config.retention_ms == -1 and config.max_message_bytes == 100 and config.flush_messages == 1
    assert config.unclean_leader_election_enable is True
    assert config.cleanup_policy == "compact,delete"


@pytest.mark.parametrize(
    ("overrides", "named"),
    [
        ({"segment.bytez": "1"}, "segment.bytez"),
        ({"segment.bytes": "ten"}, "segment.bytes"),
        ({"segment.bytes": "13"}, "segment.bytes"),
        ({"min.insync.replicas": "0"}, "min.insync.replicas"),
        ({"unclean.leader.election.enable": "yes"}, "unclean.leader.election.enable"),
        ({"cleanup.policy": "shred"}, "cleanup.policy"),
    ],
)
def test_bad_override_raises_value_error_naming_the_key(overrides, named):
    with pytest.raises(ValueError, match=named.replace(".", r"\.")):
        LogConfig.from_broker(_broker(), overrides)
    with pytest.raises(ValueError):
        validate_topic_configs(overrides)


# Apache Kafka 4.3's TopicConfig (message.format.version, message.downconversion.enable and
# message.timestamp.difference.max.ms were removed in 4.0; KIP-390's levels and KIP-405's
# tiered-storage configs added)
KAFKA_4_TOPIC_CONFIGS = {
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
}


def test_topic_config_names_are_kafka_4s_list():
    assert TOPIC_CONFIG_NAMES == KAFKA_4_TOPIC_CONFIGS


def test_every_topic_config_has_a_log_config_field_with_kafkas_default():
    assert {f.name for f in dataclasses.fields(LogConfig) if f.init} == {
        d.attr for d in TOPIC_CONFIG_DEFS.values()
    }
    defaults = LogConfig()
    for definition in TOPIC_CONFIG_DEFS.values():
        expected = definition.default
        if definition.type == "list":
            expected = ",".join(expected)
        assert getattr(defaults, definition.attr) == expected, definition.name


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("segment.bytes", "2147483648"),  # beyond a Java int
        ("retention.ms", str(2**63)),  # beyond a Java long
        ("flush.messages", "-1"),
        ("flush.messages", "0"),
        ("retention.ms", "-5"),
        ("segment.index.bytes", "3"),
        ("index.interval.bytes", "-1"),
        ("segment.ms", "0"),
        ("max.compaction.lag.ms", "0"),
        ("min.compaction.lag.ms", "-1"),
        ("delete.retention.ms", "-5"),
        ("min.cleanable.dirty.ratio", "1.5"),
        ("min.cleanable.dirty.ratio", "half"),
        ("compression.type", "brotli"),
        ("message.timestamp.type", "EventTime"),
        ("message.timestamp.after.max.ms", "-1"),
        ("message.timestamp.before.max.ms", "soon"),
        ("compression.gzip.level", "0"),
        ("compression.gzip.level", "10"),
        ("compression.lz4.level", "18"),
        ("compression.zstd.level", "23"),
        ("local.retention.ms", "-3"),
        ("preallocate", "maybe"),
        ("remote.storage.enable", "1"),
        ("leader.replication.throttled.replicas", "0-1"),
        ("follower.replication.throttled.replicas", "*,0:1"),
        ("cleanup.policy", ""),
    ],
)
def test_values_outside_kafkas_types_and_ranges_are_rejected_naming_the_key(name, value):
    with pytest.raises(ValueError, match=name.replace(".", r"\.")):
        validate_topic_configs({name: value})
    with pytest.raises(ValueError, match=name.replace(".", r"\.")):
        LogConfig().with_overrides({name: value})


@pytest.mark.parametrize(
    ("name", "value", "field", "typed"),
    [
        ("retention.ms", "-1", "retention_ms", -1),
        ("retention.bytes", "-2", "retention_bytes", -2),
        ("segment.index.bytes", "4", "segment_index_bytes", 4),
        ("min.cleanable.dirty.ratio", "0.25", "min_cleanable_dirty_ratio", 0.25),
        ("compression.type", "zstd", "compression_type", "zstd"),
        ("message.timestamp.type", "LogAppendTime", "message_timestamp_type", "LogAppendTime"),
        ("compression.gzip.level", "-1", "compression_gzip_level", -1),
        ("compression.zstd.level", "-5", "compression_zstd_level", -5),
        ("local.retention.bytes", "-2", "local_retention_bytes", -2),
        ("message.timestamp.after.max.ms", "0", "message_timestamp_after_max_ms", 0),
        ("preallocate", "TRUE", "preallocate", True),
        (
            "leader.replication.throttled.replicas",
            "0:1, 1:2",
            "leader_replication_throttled_replicas",
            "0:1,1:2",
        ),
        ("follower.replication.throttled.replicas", "*", "follower_replication_throttled_replicas", "*"),
        ("segment.jitter.ms", "10", "segment_jitter_ms", 10),
        ("segment.ms", "1", "segment_ms", 1),
    ],
)
def test_valid_values_are_parsed_to_their_type(name, value, field, typed):
    assert getattr(LogConfig().with_overrides({name: value}), field) == typed


def test_to_topic_configs_round_trips():
    config = LogConfig.from_broker(
        _broker(), {"segment.bytes": "4096", "unclean.leader.election.enable": "true"}
    )
    assert LogConfig().with_overrides(config.to_topic_configs()) == config


def test_remote_storage_is_refused_as_kafka_refuses_it_without_tiered_storage():
    with pytest.raises(ValueError, match="Tiered Storage functionality is disabled"):
        validate_topic_configs({"remote.storage.enable": "true"})
    validate_topic_configs({"remote.storage.enable": "false", "remote.log.copy.disable": "true"})


_BROKER_KEYS = {key.name: key for key in BROKER_CONFIGS}
_OWN_BROKER_VALIDATORS = {"log.cleanup.policy", "log.retention.bytes"}
"""Broker synonyms Kafka validates apart from their topic config (an empty ``log.cleanup.policy``
is taken, ``log.retention.bytes`` has a lower bound)."""


def test_every_broker_synonym_takes_type_default_and_validator_from_its_topic_config():
    assert set(TOPIC_CONFIG_BY_SYNONYM) <= set(_BROKER_KEYS), "each synonym is a broker property"
    for synonym, topic_key in TOPIC_CONFIG_BY_SYNONYM.items():
        broker_key = _BROKER_KEYS[synonym]
        ms_per_unit = synonym_to_topic_value(synonym, 1)  # log.roll.hours: 3600000; log.roll.ms: 1
        assert broker_key.type == ("int" if ms_per_unit > 1 else topic_key.type), synonym
        assert broker_key.default in (
            None,
            topic_key.default if ms_per_unit == 1 else topic_key.default // ms_per_unit,
        )
        if synonym not in _OWN_BROKER_VALIDATORS:
            assert broker_key.validator is topic_key.validator, f"{synonym} declares its validator again"


def test_every_topic_config_defaults_on_a_bare_broker_to_the_tables_default():
    config = LogConfig.from_broker(_broker())
    for key in TOPIC_CONFIG_DEFS.values():
        expected = ",".join(key.default) if key.type == "list" else key.default
        assert getattr(config, key.attr) == expected, key.name


@pytest.mark.parametrize("synonym", sorted(TOPIC_CONFIG_BY_SYNONYM))
def test_every_broker_synonym_sets_its_topic_configs_broker_wide_value(synonym):
    key = TOPIC_CONFIG_BY_SYNONYM[synonym]
    raw = {"list": "compact", "boolean": "true", "double": "0.25"}.get(key.type)
    if raw is None:
        raw = next(v for v in ("producer", "LogAppendTime", "gzip", "2", "16") if _valid(key, synonym, v))
    expected = synonym_to_topic_value(synonym, _BROKER_KEYS[synonym].parse(raw))
    config = LogConfig.from_broker(_broker(**{synonym: raw}))
    assert getattr(config, key.attr) == (",".join(expected) if key.type == "list" else expected)
    assert getattr(config, key.attr) != getattr(LogConfig(), key.attr), (
        "the test value differs from the default"
    )


def _valid(key, synonym, raw):
    try:
        _BROKER_KEYS[synonym].parse(raw)
        key.parse(raw)
    except ValueError:
        return False
    return raw != key.render(key.default)


def test_the_controllers_list_of_synonyms_without_default_is_the_broker_tables():
    first_synonyms = {key.synonyms[0] for key in TOPIC_CONFIG_DEFS.values() if key.synonyms}
    assert BROKER_SYNONYMS_WITHOUT_DEFAULT == {s for s in first_synonyms if _BROKER_KEYS[s].default is None}
