from __future__ import annotations

import pytest

from broker.config import KafkaConfig
from broker.log.log_config import TOPIC_CONFIG_NAMES, LogConfig, validate_topic_configs


def _broker(**props):
    return KafkaConfig({"node.id": 1, **props})


def test_defaults_come_from_broker_config():
    config = LogConfig.from_broker(_broker(**{
        "log.segment.bytes": "2048", "log.index.interval.bytes": "100", "log.index.size.max.bytes": "800",
        "message.max.bytes": "5000", "log.flush.interval.messages": "3", "log.flush.interval.ms": "250",
        "log.retention.hours": "1", "log.retention.bytes": "99999", "min.insync.replicas": "2",
        "unclean.leader.election.enable": "true",
    }))
    assert config == LogConfig(
        segment_bytes=2048, segment_index_bytes=800, index_interval_bytes=100, max_message_bytes=5000,
        flush_messages=3, flush_ms=250, retention_ms=3_600_000, retention_bytes=99999, min_insync_replicas=2,
        unclean_leader_election_enable=True, cleanup_policy="delete",
    )


def test_unset_flush_interval_ms_means_never():
    assert LogConfig.from_broker(_broker()).flush_ms == 2**63 - 1


def test_topic_overrides_use_kafka_topic_config_names():
    config = LogConfig.from_broker(_broker(), {
        "segment.bytes": "1048576", "min.insync.replicas": "2", "retention.ms": "-1",
        "max.message.bytes": "100", "flush.messages": "1", "unclean.leader.election.enable": "true",
        "cleanup.policy": "compact,delete",
    })
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


def test_topic_config_names_lists_every_override():
    assert {"segment.bytes", "segment.index.bytes", "index.interval.bytes", "max.message.bytes", "flush.messages",
            "flush.ms", "retention.ms", "retention.bytes", "min.insync.replicas", "unclean.leader.election.enable",
            "cleanup.policy"} == TOPIC_CONFIG_NAMES


def test_to_topic_configs_round_trips():
    config = LogConfig.from_broker(_broker(), {"segment.bytes": "4096", "unclean.leader.election.enable": "true"})
    assert LogConfig().with_overrides(config.to_topic_configs()) == config
