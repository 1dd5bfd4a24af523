"""Group configs (KIP-848's GROUP config resources) at the controller: DescribeConfigs of any group
id with Kafka 4.3's GroupConfig names, defaults (the node's ``group.*`` properties) and sources,
IncrementalAlterConfigs with Kafka's checks and messages, and the overrides kept as
``ConfigRecord``s of resource type "group" in the metadata log, read back by a new controller."""

from __future__ import annotations

import random

from controller_fakes import make_config, register_live_brokers, wire_roundtrip
from local_metadata_log import MetadataLog
from test_kafka_controller import replay_log

from kafkette.common.group_config import GROUP_CONFIG_DEFS
from kafkette.controller.controller import KafkaController
from kafkette.controller.metadata_records import ConfigRecord
from kafkette.protocol.apis.configs import (
    OP_APPEND,
    OP_DELETE,
    OP_SET,
    RESOURCE_GROUP,
    SOURCE_DEFAULT_CONFIG,
    SOURCE_GROUP_CONFIG,
    SOURCE_STATIC_BROKER_CONFIG,
    AlterableConfig,
    AlterConfigsResource,
    DescribeConfigsRequest,
    DescribeConfigsResource,
    IncrementalAlterConfigsRequest,
)
from kafkette.protocol.errors import Errors


async def describe(controller, group, keys=None, synonyms=False):
    response = wire_roundtrip(
        await controller.describe_configs(
            DescribeConfigsRequest(
                resources=[
                    DescribeConfigsResource(
                        resource_type=RESOURCE_GROUP, resource_name=group, configuration_keys=keys
                    )
                ],
                include_synonyms=synonyms,
            )
        )
    )
    return response.results[0]


async def alter(controller, group, *ops, validate_only=False, replace_all=False):
    response = wire_roundtrip(
        await controller.incremental_alter_configs(
            IncrementalAlterConfigsRequest(
                resources=[
                    AlterConfigsResource(
                        resource_type=RESOURCE_GROUP,
                        resource_name=group,
                        configs=[AlterableConfig(name=k, config_operation=op, value=v) for k, op, v in ops],
                    )
                ],
                validate_only=validate_only,
                replace_all=replace_all,
            )
        )
    )
    return response.responses[0]


async def test_a_group_no_one_configured_is_described_with_every_group_config_at_its_default(controller):
    result = await describe(controller, "never-seen")
    assert (result.error_code, result.resource_type) == (Errors.NONE, RESOURCE_GROUP)
    described = {c.name: (c.value, c.config_source, c.config_type, c.read_only) for c in result.configs}
    assert sorted(described) == sorted(GROUP_CONFIG_DEFS)
    assert described["consumer.session.timeout.ms"] == ("45000", SOURCE_DEFAULT_CONFIG, 3, False)
    assert described["share.auto.offset.reset"] == ("latest", SOURCE_DEFAULT_CONFIG, 2, False)
    assert described["share.renew.acknowledge.enable"] == ("true", SOURCE_DEFAULT_CONFIG, 1, False)
    empty = await describe(controller, "")
    assert (empty.error_code, empty.error_message) == (Errors.INVALID_REQUEST, "Group name must not be empty")


async def test_a_group_config_set_is_described_as_group_config_and_kept_in_the_metadata_log(
    tmp_path, clock, channel
):
    controller = KafkaController(
        make_config(),
        metadata_log=MetadataLog(tmp_path),
        channel_manager=channel,
        clock_ms=clock,
        rng=random.Random(7),
    )
    await controller.start()
    try:
        assert (
            await alter(
                controller,
                "g",
                ("consumer.session.timeout.ms", OP_SET, "50000"),
                ("share.auto.offset.reset", OP_SET, "earliest"),
            )
        ).error_code == Errors.NONE
        assert (
            await alter(controller, "g", ("share.auto.offset.reset", OP_DELETE, None))
        ).error_code == Errors.NONE
        result = await describe(
            controller, "g", ["consumer.session.timeout.ms", "share.auto.offset.reset", "nope"], synonyms=True
        )
        assert [
            (c.name, c.value, c.config_source, [(s.name, s.value, s.source) for s in c.synonyms])
            for c in result.configs
        ] == [
            (
                "consumer.session.timeout.ms",
                "50000",
                SOURCE_GROUP_CONFIG,
                [
                    ("consumer.session.timeout.ms", "50000", SOURCE_GROUP_CONFIG),
                    ("group.consumer.session.timeout.ms", "45000", SOURCE_DEFAULT_CONFIG),
                ],
            ),
            (
                "share.auto.offset.reset",
                "latest",
                SOURCE_DEFAULT_CONFIG,
                [("share.auto.offset.reset", "latest", SOURCE_DEFAULT_CONFIG)],
            ),
        ]
        assert channel.update_metadata() == {}  # no live broker to tell
    finally:
        await controller.stop()
    records = replay_log(tmp_path)
    assert ConfigRecord("group", "g", "consumer.session.timeout.ms", "50000") in records
    assert ConfigRecord("group", "g", "share.auto.offset.reset", None) in records
    again = KafkaController(
        make_config(),
        metadata_log=MetadataLog(tmp_path),
        channel_manager=channel,
        clock_ms=clock,
        rng=random.Random(7),
    )
    await again.start()
    try:
        assert again.context.group_config_overrides("g") == {"consumer.session.timeout.ms": "50000"}
    finally:
        await again.stop()


async def test_group_configs_are_checked_against_the_brokers_group_bounds_in_kafkas_words(controller):
    cases = [
        (
            ("consumer.session.timeout.ms", OP_SET, "1000"),
            "consumer.session.timeout.ms must be greater than or equal to "
            "group.consumer.min.session.timeout.ms",
        ),
        (
            ("consumer.session.timeout.ms", OP_SET, "70000"),
            "consumer.session.timeout.ms must be less than or equal to group.consumer.max.session.timeout.ms",
        ),
        (
            ("consumer.session.timeout.ms", OP_SET, "abc"),
            "Invalid value abc for configuration consumer.session.timeout.ms: Not a number of type INT",
        ),
        (
            ("share.record.lock.duration.ms", OP_SET, "500"),
            "Invalid value 500 for configuration share.record.lock.duration.ms: Value must be at least 1000",
        ),
        (
            ("streams.num.standby.replicas", OP_SET, "3"),
            "streams.num.standby.replicas must be less than or equal to group.streams.max.standby.replicas",
        ),
        (
            ("share.isolation.level", OP_SET, "foo"),
            "Invalid value foo for configuration share.isolation.level: String must be one of: "
            "read_committed, read_uncommitted",
        ),
        (
            ("share.auto.offset.reset", OP_SET, "foo"),
            "Invalid value foo for configuration share.auto.offset.reset: Invalid value `foo` for "
            "configuration share.auto.offset.reset. The value must be either 'earliest', 'latest' or of the "
            "format 'by_duration:<PnDTnHnMn.nS>'.",
        ),
        (("nope.config", OP_SET, "1"), "Unknown group config name: nope.config"),
        (
            ("consumer.session.timeout.ms", OP_APPEND, "1"),
            "Can't APPEND to key consumer.session.timeout.ms because its type is not LIST.",
        ),
    ]
    for op, message in cases:
        result = await alter(controller, "g", op)
        assert (result.error_code, result.error_message) == (Errors.INVALID_CONFIG, message), op
    assert (
        await alter(controller, "g", ("share.auto.offset.reset", OP_SET, "by_duration:PT1H"))
    ).error_code == 0
    empty = await alter(controller, "", ("consumer.session.timeout.ms", OP_SET, "50000"))
    assert (empty.error_code, empty.error_message) == (
        Errors.INVALID_REQUEST,
        "Default group resources are not allowed.",
    )
    checked = await alter(
        controller, "g", ("consumer.session.timeout.ms", OP_SET, "50000"), validate_only=True
    )
    assert (
        checked.error_code == 0
        and "consumer.session.timeout.ms" not in controller.context.group_config_overrides("g")
    )


async def test_the_nodes_group_properties_give_the_defaults_and_the_bounds(tmp_path, clock, channel):
    config = make_config(
        **{"group.consumer.session.timeout.ms": 55000, "group.consumer.max.session.timeout.ms": 90000}
    )
    controller = KafkaController(
        config,
        metadata_log=MetadataLog(tmp_path),
        channel_manager=channel,
        clock_ms=clock,
        rng=random.Random(7),
    )
    await controller.start()
    try:
        (entry,) = (await describe(controller, "g", ["consumer.session.timeout.ms"], synonyms=True)).configs
        assert (entry.value, entry.config_source) == ("55000", SOURCE_STATIC_BROKER_CONFIG)
        assert [(s.name, s.value, s.source) for s in entry.synonyms] == [
            ("group.consumer.session.timeout.ms", "55000", SOURCE_STATIC_BROKER_CONFIG),
            ("group.consumer.session.timeout.ms", "45000", SOURCE_DEFAULT_CONFIG),
        ]
        assert (
            await alter(controller, "g", ("consumer.session.timeout.ms", OP_SET, "80000"))
        ).error_code == 0
    finally:
        await controller.stop()


async def test_every_live_broker_gets_the_groups_whole_override_set_in_update_metadata(controller, channel):
    await register_live_brokers(controller, 1, 2)
    channel.clear()
    ops = (
        ("consumer.heartbeat.interval.ms", OP_SET, "6000"),
        ("consumer.session.timeout.ms", OP_SET, "50000"),
    )
    assert (await alter(controller, "g", *ops)).error_code == Errors.NONE
    assert (await alter(controller, "g", ("consumer.session.timeout.ms", OP_DELETE, None))).error_code == 0
    for broker_id in (1, 2):
        first, second = channel.update_metadata()[broker_id]
        assert [(g.group_id, [(c.name, c.value) for c in g.configs]) for g in first.group_configs] == [
            ("g", [("consumer.heartbeat.interval.ms", "6000"), ("consumer.session.timeout.ms", "50000")])
        ]
        assert [(g.group_id, [(c.name, c.value) for c in g.configs]) for g in second.group_configs] == [
            ("g", [("consumer.heartbeat.interval.ms", "6000")])
        ]
        assert first.partition_states == [] and not first.full
