"""Topic configs at the controller: validation at creation (INVALID_CONFIG naming the key),
DescribeConfigs (values and sources), IncrementalAlterConfigs (SET, DELETE, APPEND,
SUBTRACT, validate_only) with ConfigRecords and UpdateMetadata topic_configs."""

from __future__ import annotations

import random

from controller_fakes import make_config, register_live_brokers, wire_roundtrip
from local_metadata_log import MetadataLog
from test_kafka_controller import create, replay_log, topic

from kafkette.common.topic_config import TOPIC_CONFIG_NAMES
from kafkette.controller.controller import KafkaController
from kafkette.controller.metadata_records import ConfigRecord
from kafkette.protocol.apis.configs import (
    OP_APPEND,
    OP_DELETE,
    OP_SET,
    OP_SUBTRACT,
    RESOURCE_BROKER,
    RESOURCE_TOPIC,
    SOURCE_DEFAULT_CONFIG,
    SOURCE_DYNAMIC_TOPIC_CONFIG,
    SOURCE_STATIC_BROKER_CONFIG,
    AlterableConfig,
    AlterConfigsResource,
    DescribeConfigsRequest,
    DescribeConfigsResource,
    IncrementalAlterConfigsRequest,
)
from kafkette.protocol.errors import Errors


async def describe(controller, name, keys=None, resource_type=RESOURCE_TOPIC):
    response = wire_roundtrip(
        await controller.describe_configs(
            DescribeConfigsRequest(
                resources=[
                    DescribeConfigsResource(
                        resource_type=resource_type, resource_name=name, configuration_keys=keys
                    )
                ]
            )
        )
    )
    return response.results[0]


async def alter(controller, name, *ops, validate_only=False, replace_all=False):
    response = wire_roundtrip(
        await controller.incremental_alter_configs(
            IncrementalAlterConfigsRequest(
                resources=[
                    AlterConfigsResource(
                        resource_type=RESOURCE_TOPIC,
                        resource_name=name,
                        configs=[AlterableConfig(name=k, config_operation=op, value=v) for k, op, v in ops],
                    )
                ],
                validate_only=validate_only,
                replace_all=replace_all,
            )
        )
    )
    return response.responses[0]


async def test_create_topic_with_an_out_of_range_config_is_invalid_config_naming_the_key(controller):
    await register_live_brokers(controller, 1)
    for key, value in (
        ("min.cleanable.dirty.ratio", "2"),
        ("compression.type", "brotli"),
        ("segment.ms", "0"),
        ("segment.bytes", "2147483648"),
    ):
        result = (await create(controller, topic("t", 1, 1, **{key.replace(".", "_"): value}))).topics[0]
        assert result.error_code == Errors.INVALID_CONFIG, key
        assert key in result.error_message
    unknown = (await create(controller, topic("t", 1, 1, no_such_config="1"))).topics[0]
    assert unknown.error_code == Errors.INVALID_CONFIG and "no.such.config" in unknown.error_message
    assert "t" not in controller.context.topics


async def test_describe_lists_every_topic_config_with_its_source(tmp_path, clock, channel):
    ctrl = KafkaController(
        make_config(log_segment_bytes=2048),
        metadata_log=MetadataLog(tmp_path),
        channel_manager=channel,
        clock_ms=clock,
        rng=random.Random(1),
    )
    await ctrl.start()
    try:
        await register_live_brokers(ctrl, 1)
        await create(ctrl, topic("t", 1, 1, retention_ms="1000"))
        result = await describe(ctrl, "t")
        assert result.error_code == 0
        configs = {c.name: c for c in result.configs}
        assert set(configs) == TOPIC_CONFIG_NAMES
        assert (configs["retention.ms"].value, configs["retention.ms"].config_source) == (
            "1000",
            SOURCE_DYNAMIC_TOPIC_CONFIG,
        )
        assert (configs["segment.bytes"].value, configs["segment.bytes"].config_source) == (
            "2048",
            SOURCE_STATIC_BROKER_CONFIG,
        )
        assert (configs["cleanup.policy"].value, configs["cleanup.policy"].config_source) == (
            "delete",
            SOURCE_DEFAULT_CONFIG,
        )
        assert configs["preallocate"].value == "false"
        filtered = await describe(ctrl, "t", keys=["min.insync.replicas", "retention.ms", "nope"])
        assert [c.name for c in filtered.configs] == ["min.insync.replicas", "retention.ms"]
    finally:
        await ctrl.stop()


async def test_describe_unknown_topic_and_broker_resources_are_errors(controller):
    assert (await describe(controller, "ghost")).error_code == Errors.UNKNOWN_TOPIC_OR_PARTITION
    assert (
        await describe(controller, "1", resource_type=RESOURCE_BROKER)
    ).error_code == Errors.INVALID_REQUEST


async def test_alter_set_and_delete_write_config_records_and_update_every_broker(
    controller, channel, tmp_path
):
    await register_live_brokers(controller, 1, 2)
    await create(controller, topic("t", 2, 1, retention_ms="1000"))
    channel.clear()
    result = await alter(
        controller, "t", ("segment.bytes", OP_SET, "4096"), ("retention.ms", OP_DELETE, None)
    )
    assert result.error_code == 0
    assert controller.context.topic_configs("t") == {"segment.bytes": "4096"}
    for broker_id in (1, 2):
        (update,) = channel.update_metadata()[broker_id]
        assert [(c.topic_name, {o.name: o.value for o in c.configs}) for c in update.topic_configs] == [
            ("t", {"segment.bytes": "4096"})
        ]
        assert sorted(s.partition_index for s in update.partition_states) == [0, 1]
    await controller.stop()
    records = replay_log(tmp_path)
    assert ConfigRecord("topic", "t", "segment.bytes", "4096") in records
    assert ConfigRecord("topic", "t", "retention.ms", None) in records


async def test_alter_configs_replaces_every_override_of_the_topic(controller, channel, tmp_path):
    await register_live_brokers(controller, 1, 2)
    await create(controller, topic("t", 1, 1, retention_ms="1000", segment_ms="2000000"))

    checked = await alter(
        controller, "t", ("retention.ms", OP_SET, "5000"), validate_only=True, replace_all=True
    )
    assert checked.error_code == 0
    assert controller.context.topic_configs("t") == {"retention.ms": "1000", "segment.ms": "2000000"}
    result = await alter(controller, "t", ("retention.ms", OP_SET, "5000"), replace_all=True)

    assert result.error_code == 0
    assert controller.context.topic_configs("t") == {"retention.ms": "5000"}
    await controller.stop()
    assert ConfigRecord("topic", "t", "segment.ms", None) in replay_log(tmp_path)


async def test_alter_append_and_subtract_work_on_list_configs(controller):
    await register_live_brokers(controller, 1)
    await create(controller, topic("t", 1, 1))
    assert (await alter(controller, "t", ("cleanup.policy", OP_APPEND, "compact"))).error_code == 0
    assert controller.context.topic_configs("t")["cleanup.policy"] == "delete,compact"
    assert (await alter(controller, "t", ("cleanup.policy", OP_SUBTRACT, "delete"))).error_code == 0
    assert controller.context.topic_configs("t")["cleanup.policy"] == "compact"
    emptied = await alter(controller, "t", ("cleanup.policy", OP_SUBTRACT, "compact"))
    assert emptied.error_code == Errors.INVALID_CONFIG and "cleanup.policy" in emptied.error_message
    append = await alter(controller, "t", ("leader.replication.throttled.replicas", OP_APPEND, "0:1"))
    assert append.error_code == 0
    not_list = await alter(controller, "t", ("retention.ms", OP_APPEND, "5"))
    assert not_list.error_code == Errors.INVALID_CONFIG
    assert not_list.error_message == "Can't APPEND to key retention.ms because its type is not LIST."
    not_list = await alter(controller, "t", ("retention.ms", OP_SUBTRACT, "5"))
    assert not_list.error_code == Errors.INVALID_CONFIG
    assert not_list.error_message == "Can't SUBTRACT to key retention.ms because its type is not LIST."


async def test_alter_rejects_bad_values_unknown_keys_and_duplicates_per_resource(controller, channel):
    await register_live_brokers(controller, 1)
    await create(controller, topic("t", 1, 1))
    channel.clear()
    bad = await alter(controller, "t", ("segment.ms", OP_SET, "1"), ("min.insync.replicas", OP_SET, "0"))
    assert bad.error_code == Errors.INVALID_CONFIG and "min.insync.replicas" in bad.error_message
    assert controller.context.topic_configs("t") == {}  # the whole resource fails
    unknown = await alter(controller, "t", ("segment.bytez", OP_SET, "1"))
    assert unknown.error_code == Errors.INVALID_CONFIG and "segment.bytez" in unknown.error_message
    duplicate = await alter(controller, "t", ("segment.ms", OP_SET, "1"), ("segment.ms", OP_SET, "2"))
    assert duplicate.error_code == Errors.INVALID_REQUEST
    missing = await alter(controller, "ghost", ("segment.ms", OP_SET, "1"))
    assert missing.error_code == Errors.UNKNOWN_TOPIC_OR_PARTITION
    assert channel.sent == []


async def test_alter_validate_only_changes_nothing(controller, channel):
    await register_live_brokers(controller, 1)
    await create(controller, topic("t", 1, 1))
    channel.clear()
    result = await alter(controller, "t", ("segment.ms", OP_SET, "1000"), validate_only=True)
    assert result.error_code == 0
    assert controller.context.topic_configs("t") == {} and channel.sent == []


async def test_full_update_metadata_carries_every_topics_configs(controller, channel):
    await register_live_brokers(controller, 1)
    await create(controller, topic("a", 1, 1, retention_ms="1"), topic("b", 1, 1))
    channel.clear()
    await register_live_brokers(controller, 2)
    full = [u for u in channel.update_metadata()[2] if u.full][0]
    assert [(c.topic_name, {o.name: o.value for o in c.configs}) for c in full.topic_configs] == [
        ("a", {"retention.ms": "1"}),
        ("b", {}),
    ]


async def test_min_compaction_lag_ms_above_max_compaction_lag_ms_is_invalid_config(tmp_path, clock, channel):
    ctrl = KafkaController(
        make_config(log_cleaner_min_compaction_lag_ms=5000),
        metadata_log=MetadataLog(tmp_path),
        channel_manager=channel,
        clock_ms=clock,
        rng=random.Random(1),
    )
    await ctrl.start()
    try:
        await register_live_brokers(ctrl, 1)
        conflict = "conflict topic config setting min.compaction.lag.ms (5000) > max.compaction.lag.ms (1000)"
        created = (await create(ctrl, topic("t", 1, 1, max_compaction_lag_ms="1000"))).topics[0]
        assert (created.error_code, created.error_message) == (Errors.INVALID_CONFIG, conflict)
        assert (await create(ctrl, topic("t", 1, 1, max_compaction_lag_ms="9000"))).topics[0].error_code == 0
        lowered = await alter(ctrl, "t", ("max.compaction.lag.ms", OP_SET, "1000"))
        assert (lowered.error_code, lowered.error_message) == (Errors.INVALID_CONFIG, conflict)
        both = await alter(
            ctrl, "t", ("max.compaction.lag.ms", OP_SET, "1000"), ("min.compaction.lag.ms", OP_SET, "1000")
        )
        assert both.error_code == 0
        raised = await alter(
            ctrl, "t", ("min.compaction.lag.ms", OP_DELETE, None)
        )  # back to the default 5000
        assert (
            raised.error_code == Errors.INVALID_CONFIG
            and "(5000) > max.compaction.lag.ms (1000)" in raised.error_message
        )
        assert ctrl.context.topic_configs("t") == {
            "max.compaction.lag.ms": "1000",
            "min.compaction.lag.ms": "1000",
        }
    finally:
        await ctrl.stop()
