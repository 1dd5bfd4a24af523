"""The consumer group protocol's broker configs (``broker.group.group_coordinator_config``): Kafka 4.3.1's
names and defaults, and Kafka's refusals with Kafka's messages (printed by Kafka's own
``GroupCoordinatorConfig.fromProps`` and ``KafkaConfig`` for the same properties)."""

from __future__ import annotations

import pytest
from lifecycle_fakes import make_config

from kafkette.broker.config import BROKER_CONFIGS, ConfigError, KafkaConfig
from kafkette.broker.dynamic_broker_config import DynamicBrokerConfig
from kafkette.broker.group.consumer_group_settings import consumer_group_settings
from kafkette.broker.group.group_coordinator_config import (
    BUILTIN_ASSIGNORS,
    CONSUMER_GROUP_CONFIGS,
    ConsumerGroupMigrationPolicy,
    clamp_dynamic_configs,
    consumer_group_assignors,
)
from kafkette.broker.kafka_broker_config_defaults import KAFKA_BROKER_CONFIG_DEFAULTS
from kafkette.protocol.apis.configs import (
    SOURCE_DEFAULT_CONFIG,
    SOURCE_DYNAMIC_BROKER_CONFIG,
    AlterableConfig,
)

pytestmark = pytest.mark.timeout(30)

DEFAULTS = {
    "group.coordinator.rebalance.protocols": ["classic", "consumer", "streams"],
    "group.consumer.session.timeout.ms": 45000,
    "group.consumer.min.session.timeout.ms": 45000,
    "group.consumer.max.session.timeout.ms": 60000,
    "group.consumer.heartbeat.interval.ms": 5000,
    "group.consumer.min.heartbeat.interval.ms": 5000,
    "group.consumer.max.heartbeat.interval.ms": 15000,
    "group.consumer.max.size": 2147483647,
    "group.consumer.assignors": ["uniform", "range"],
    "group.consumer.migration.policy": "bidirectional",
    "group.consumer.assignment.interval.ms": 1000,
    "group.consumer.min.assignment.interval.ms": 0,
    "group.consumer.max.assignment.interval.ms": 15000,
}


def _config(**props: str) -> KafkaConfig:
    return KafkaConfig({"node.id": "1", **props})


@pytest.mark.parametrize("name", sorted(DEFAULTS))
def test_each_config_has_kafkas_default(name):
    assert getattr(_config(), name.replace(".", "_")) == DEFAULTS[name]


@pytest.mark.parametrize("key", CONSUMER_GROUP_CONFIGS, ids=lambda k: k.name)
def test_each_default_renders_as_kafka_lists_it_in_describe_configs(key):
    assert key in BROKER_CONFIGS
    assert key.render(key.default) == KAFKA_BROKER_CONFIG_DEFAULTS[key.name]


REFUSED = {
    "rebalance-protocol-unknown": (
        {"group.coordinator.rebalance.protocols": "classic,foo"},
        "Invalid value foo for configuration group.coordinator.rebalance.protocols: String must be one of: "
        "consumer, classic, share, streams",
    ),
    "rebalance-protocol-upper-case": (
        {"group.coordinator.rebalance.protocols": "CLASSIC"},
        "Invalid value CLASSIC for configuration group.coordinator.rebalance.protocols: String must be one "
        "of: consumer, classic, share, streams",
    ),
    "rebalance-protocols-empty": (
        {"group.coordinator.rebalance.protocols": ""},
        "Configuration 'group.coordinator.rebalance.protocols' must not be empty. Valid values include: "
        "[consumer, classic, share, streams]",
    ),
    "rebalance-protocols-without-classic": (
        {"group.coordinator.rebalance.protocols": "consumer"},
        "Disabling the 'classic' protocol is not supported.",
    ),
    "migration-policy-unknown": (
        {"group.consumer.migration.policy": "sideways"},
        "Invalid value sideways for configuration group.consumer.migration.policy: String must be one of "
        "(case insensitive): DISABLED, DOWNGRADE, UPGRADE, BIDIRECTIONAL",
    ),
    "assignors-empty": (
        {"group.consumer.assignors": ""},
        "Configuration 'group.consumer.assignors' must not be empty. Valid values include: any "
        "non-empty value",
    ),
    "assignor-class-unknown": (
        {"group.consumer.assignors": "com.example.Nope"},
        "Class com.example.Nope cannot be found",
    ),
    "session-timeout-zero": (
        {"group.consumer.session.timeout.ms": "0"},
        "Invalid value 0 for configuration group.consumer.session.timeout.ms: Value must be at least 1",
    ),
    "session-timeout-not-a-number": (
        {"group.consumer.session.timeout.ms": "abc"},
        "Invalid value abc for configuration group.consumer.session.timeout.ms: Not a number of type INT",
    ),
    "session-timeout-below-min": (
        {"group.consumer.session.timeout.ms": "40000"},
        "group.consumer.session.timeout.ms must be greater than or equal to "
        "group.consumer.min.session.timeout.ms",
    ),
    "session-timeout-above-max": (
        {"group.consumer.session.timeout.ms": "70000"},
        "group.consumer.session.timeout.ms must be less than or equal to "
        "group.consumer.max.session.timeout.ms",
    ),
    "session-timeout-min-above-max": (
        {"group.consumer.min.session.timeout.ms": "70000"},
        "group.consumer.max.session.timeout.ms must be greater than or equal to "
        "group.consumer.min.session.timeout.ms",
    ),
    "session-timeout-max-below-min": (
        {"group.consumer.max.session.timeout.ms": "40000"},
        "group.consumer.max.session.timeout.ms must be greater than or equal to "
        "group.consumer.min.session.timeout.ms",
    ),
    "heartbeat-interval-below-min": (
        {"group.consumer.heartbeat.interval.ms": "4000"},
        "group.consumer.heartbeat.interval.ms must be greater than or equal to "
        "group.consumer.min.heartbeat.interval.ms",
    ),
    "heartbeat-interval-above-max": (
        {"group.consumer.heartbeat.interval.ms": "16000"},
        "group.consumer.heartbeat.interval.ms must be less than or equal to "
        "group.consumer.max.heartbeat.interval.ms",
    ),
    "heartbeat-interval-min-above-max": (
        {"group.consumer.min.heartbeat.interval.ms": "16000"},
        "group.consumer.max.heartbeat.interval.ms must be greater than or equal to "
        "group.consumer.min.heartbeat.interval.ms",
    ),
    "heartbeat-interval-max-below-min": (
        {"group.consumer.max.heartbeat.interval.ms": "4000"},
        "group.consumer.max.heartbeat.interval.ms must be greater than or equal to "
        "group.consumer.min.heartbeat.interval.ms",
    ),
    "heartbeat-interval-not-below-session-timeout": (
        {
            "group.consumer.heartbeat.interval.ms": "45000",
            "group.consumer.max.heartbeat.interval.ms": "60000",
        },
        "group.consumer.heartbeat.interval.ms must be less than group.consumer.session.timeout.ms",
    ),
    "max-size-zero": (
        {"group.consumer.max.size": "0"},
        "Invalid value 0 for configuration group.consumer.max.size: Value must be at least 1",
    ),
    "assignment-interval-negative": (
        {"group.consumer.assignment.interval.ms": "-1"},
        "Invalid value -1 for configuration group.consumer.assignment.interval.ms: Value must be at least 0",
    ),
    "assignment-interval-above-max": (
        {"group.consumer.assignment.interval.ms": "20000"},
        "group.consumer.assignment.interval.ms must be less than or equal to "
        "group.consumer.max.assignment.interval.ms",
    ),
    "assignment-interval-below-min": (
        {"group.consumer.min.assignment.interval.ms": "2000"},
        "group.consumer.assignment.interval.ms must be greater than or equal to "
        "group.consumer.min.assignment.interval.ms",
    ),
    "assignment-interval-max-below-value": (
        {"group.consumer.max.assignment.interval.ms": "500"},
        "group.consumer.assignment.interval.ms must be less than or equal to "
        "group.consumer.max.assignment.interval.ms",
    ),
    "regex-refresh-interval-below-10-s": (
        {"group.consumer.regex.refresh.interval.ms": "9999"},
        "Invalid value 9999 for configuration group.consumer.regex.refresh.interval.ms: Value must be at "
        "least 10000",
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_each_invalid_value_is_refused_with_kafkas_message(case):
    props, message = REFUSED[case]
    with pytest.raises(ConfigError) as refused:
        _config(**props)
    assert str(refused.value) == message


def test_the_accepted_variants_kafka_accepts():
    config = _config(
        **{
            "group.coordinator.rebalance.protocols": "classic,classic",
            "group.consumer.migration.policy": "UPGRADE",
            "group.consumer.assignors": f"{BUILTIN_ASSIGNORS['range']},uniform,range",
            "group.consumer.session.timeout.ms": "6000",
            "group.consumer.min.session.timeout.ms": "6000",
            "group.consumer.heartbeat.interval.ms": "1000",
            "group.consumer.min.heartbeat.interval.ms": "1000",
            "group.consumer.assignment.interval.ms": "0",
        }
    )
    assert ConsumerGroupMigrationPolicy.parse(config.group_consumer_migration_policy) is (
        ConsumerGroupMigrationPolicy.UPGRADE
    )
    assert consumer_group_assignors(config.group_consumer_assignors) == ["range", "uniform"]
    assert config.group_consumer_assignment_interval_ms == 0


def test_the_builtin_assignors_by_name_and_by_kafkas_class_name():
    assert consumer_group_assignors(["uniform", "range"]) == ["uniform", "range"]
    assert consumer_group_assignors(["org.apache.kafka.coordinator.group.assignor.UniformAssignor"]) == [
        "uniform"
    ]
    with pytest.raises(ConfigError, match="^Class Uniform cannot be found$"):
        consumer_group_assignors(["Uniform"])


@pytest.mark.parametrize(
    ("policy", "upgrade", "downgrade"),
    [
        ("disabled", False, False),
        ("Downgrade", False, True),
        ("UPGRADE", True, False),
        ("bidirectional", True, True),
    ],
)
def test_the_migration_policy_says_which_conversions_are_enabled(policy, upgrade, downgrade):
    parsed = ConsumerGroupMigrationPolicy.parse(policy)
    assert (parsed.is_upgrade_enabled(), parsed.is_downgrade_enabled()) == (upgrade, downgrade)


@pytest.mark.parametrize(
    ("value", "bounds", "effective"),
    [
        ("20000", {}, "15000"),
        ("5", {"group.consumer.min.assignment.interval.ms": "10"}, "10"),
        ("700", {}, "700"),
    ],
)
def test_a_dynamic_assignment_interval_out_of_bounds_is_capped(value, bounds, effective):
    props = {"group.consumer.assignment.interval.ms": value, **bounds}
    assert clamp_dynamic_configs(props)["group.consumer.assignment.interval.ms"] == effective
    assert clamp_dynamic_configs({"num.partitions": "3"}) == {"num.partitions": "3"}


def test_a_dynamic_assignment_interval_is_capped_where_a_static_one_is_refused(tmp_path):
    dynamic = DynamicBrokerConfig(make_config(tmp_path))
    dynamic.incremental_alter([AlterableConfig(name="group.consumer.assignment.interval.ms", value="99999")])
    assert dynamic.current_config.group_consumer_assignment_interval_ms == 15000
    assert dynamic.source_of("group.consumer.assignment.interval.ms") == SOURCE_DYNAMIC_BROKER_CONFIG
    assert dynamic.source_of("group.consumer.session.timeout.ms") == SOURCE_DEFAULT_CONFIG
    with pytest.raises(ConfigError, match="must be less than or equal to"):
        make_config(tmp_path, **{"group.consumer.assignment.interval.ms": "99999"})


def test_the_regex_refresh_interval_is_read_into_the_settings_and_never_described():
    assert consumer_group_settings(_config()).regex_refresh_interval_ms == 600000
    config = _config(**{"group.consumer.regex.refresh.interval.ms": "10000"})
    assert config.unused_configs == []
    assert consumer_group_settings(config).regex_refresh_interval_ms == 10000
    described = {entry.name for entry in DynamicBrokerConfig(config).describe()}
    assert "group.consumer.regex.refresh.interval.ms" not in described  # Kafka's internal config
