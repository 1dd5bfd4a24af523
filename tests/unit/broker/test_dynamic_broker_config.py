"""Dynamic broker configs (DynamicBrokerConfig) and the DescribeConfigs /
IncrementalAlterConfigs handlers for BROKER and TOPIC resources."""

from __future__ import annotations

import pytest
from lifecycle_fakes import TP0, apis_context, leader_and_isr, make_config, running_replica_manager

from kafkette.broker.apis import describe_configs as describe_api
from kafkette.broker.apis import incremental_alter_configs as alter_api
from kafkette.broker.config import BROKER_CONFIGS, ConfigError
from kafkette.broker.dynamic_broker_config import DynamicBrokerConfig
from kafkette.broker.kafka_broker_config_defaults import KAFKA_BROKER_CONFIG_DEFAULTS
from kafkette.broker.kafka_dynamic_broker_configs import KAFKA_BROKER_UPDATE_MODES
from kafkette.protocol.apis.configs import (
    OP_APPEND,
    OP_DELETE,
    OP_SET,
    OP_SUBTRACT,
    RESOURCE_BROKER,
    RESOURCE_TOPIC,
    SOURCE_DEFAULT_CONFIG,
    SOURCE_DYNAMIC_BROKER_CONFIG,
    SOURCE_STATIC_BROKER_CONFIG,
    AlterableConfig,
    AlterConfigsResource,
    AlterConfigsResourceResponse,
    DescribeConfigsRequest,
    DescribeConfigsResource,
    DescribeConfigsResponse,
    DescribeConfigsResult,
    IncrementalAlterConfigsRequest,
    IncrementalAlterConfigsResponse,
)
from kafkette.protocol.errors import Errors, InvalidConfigError, InvalidRequestError
from kafkette.protocol.framing import RequestHeader

HEADER = RequestHeader(api_key=32, api_version=0, correlation_id=1, client_id="admin")


def set_op(name: str, value: str | None, op: int = OP_SET) -> AlterableConfig:
    return AlterableConfig(name=name, config_operation=op, value=value)


def alter(*resources: AlterConfigsResource, validate_only: bool = False) -> IncrementalAlterConfigsRequest:
    return IncrementalAlterConfigsRequest(resources=list(resources), validate_only=validate_only)


def broker_resource(name: str, *ops: AlterableConfig) -> AlterConfigsResource:
    return AlterConfigsResource(resource_type=RESOURCE_BROKER, resource_name=name, configs=list(ops))


def describe(*resources: tuple[int, str], keys: list[str] | None = None) -> DescribeConfigsRequest:
    return DescribeConfigsRequest(
        resources=[
            DescribeConfigsResource(resource_type=t, resource_name=n, configuration_keys=keys)
            for t, n in resources
        ]
    )


class FakeConfigController:
    """Answers TOPIC resources as the controller would, recording what it was sent."""

    is_active = True

    def __init__(self) -> None:
        self.controller = self  # its own current term
        self.describe_requests: list[DescribeConfigsRequest] = []
        self.alter_requests: list[IncrementalAlterConfigsRequest] = []

    async def describe_configs(self, request: DescribeConfigsRequest) -> DescribeConfigsResponse:
        self.describe_requests.append(request)
        return DescribeConfigsResponse(
            results=[
                DescribeConfigsResult(resource_type=r.resource_type, resource_name=r.resource_name)
                for r in request.resources
            ]
        )

    async def incremental_alter_configs(
        self, request: IncrementalAlterConfigsRequest
    ) -> IncrementalAlterConfigsResponse:
        self.alter_requests.append(request)
        return IncrementalAlterConfigsResponse(
            responses=[
                AlterConfigsResourceResponse(resource_type=r.resource_type, resource_name=r.resource_name)
                for r in request.resources
            ]
        )


def test_describe_lists_every_broker_property_with_its_source(tmp_path):
    dynamic = DynamicBrokerConfig(make_config(tmp_path, log_segment_bytes=2048))
    dynamic.incremental_alter([set_op("log.retention.ms", "60000")])

    by_name = {c.name: c for c in dynamic.describe()}

    assert set(by_name) == {key.name for key in BROKER_CONFIGS} | set(KAFKA_BROKER_CONFIG_DEFAULTS)
    assert (by_name["log.segment.bytes"].value, by_name["log.segment.bytes"].config_source) == (
        "2048",
        SOURCE_STATIC_BROKER_CONFIG,
    )
    assert (by_name["log.retention.ms"].value, by_name["log.retention.ms"].config_source) == (
        "60000",
        SOURCE_DYNAMIC_BROKER_CONFIG,
    )
    assert (by_name["num.partitions"].value, by_name["num.partitions"].config_source) == (
        "1",
        SOURCE_DEFAULT_CONFIG,
    )
    assert by_name["auto.create.topics.enable"].value == "true"
    assert {n for n, c in by_name.items() if not c.read_only} == {
        n for n in by_name if KAFKA_BROKER_UPDATE_MODES.get(n, "read-only") != "read-only"
    }


def test_describe_with_configuration_keys_returns_only_those(tmp_path):
    dynamic = DynamicBrokerConfig(make_config(tmp_path))

    assert [c.name for c in dynamic.describe(["min.insync.replicas", "no.such.key"])] == [
        "min.insync.replicas"
    ]


def test_a_read_only_broker_config_is_refused_as_kafka_refuses_it(tmp_path):
    dynamic = DynamicBrokerConfig(make_config(tmp_path))

    with pytest.raises(InvalidRequestError) as refused:
        dynamic.incremental_alter([set_op("num.partitions", "3"), set_op("log.retention.ms", "1000")])
    assert refused.value.args[0] == "Cannot update these configs dynamically: [num.partitions]"
    assert dynamic.current_config.num_partitions == 1 and dynamic.dynamic_configs == {}


def test_any_config_kafka_updates_dynamically_is_accepted_and_described(tmp_path):
    dynamic = DynamicBrokerConfig(make_config(tmp_path))

    dynamic.incremental_alter(
        [
            set_op("background.threads", "5"),
            set_op("sasl.kerberos.min.time.before.relogin", "60000"),
            set_op("listener.name.plaintext.ssl.keystore.location", "/tmp/ks"),
            set_op("my.custom.config", "x"),
        ]
    )

    assert dynamic.dynamic_configs == {
        "background.threads": "5",
        "sasl.kerberos.min.time.before.relogin": "60000",
        "listener.name.plaintext.ssl.keystore.location": "/tmp/ks",
        "my.custom.config": "x",
    }
    described = {c.name: c for c in dynamic.describe(["background.threads", "my.custom.config"], True)}
    assert (
        described["background.threads"].value,
        described["background.threads"].read_only,
        described["background.threads"].config_source,
    ) == ("5", False, SOURCE_DYNAMIC_BROKER_CONFIG)
    assert (
        described["my.custom.config"].value,
        described["my.custom.config"].read_only,
        described["my.custom.config"].is_sensitive,
    ) == (None, True, True)
    assert [(s.name, s.value, s.source) for s in described["background.threads"].synonyms] == [
        ("background.threads", "5", SOURCE_DYNAMIC_BROKER_CONFIG),
        ("background.threads", "10", SOURCE_DEFAULT_CONFIG),
    ]
    listener = dynamic.describe(["listener.name.plaintext.ssl.keystore.location"])[0]
    assert (listener.value, listener.is_sensitive) == ("/tmp/ks", False)  # a STRING config's listener form


class RecordingReconfigurable:
    """A listener reconfigurable that refuses a key store named ``bad`` (as an SslFactory would)."""

    def __init__(self) -> None:
        self.validated: list[str | None] = []
        self.reconfigured: list[str | None] = []

    def validate_reconfiguration(self, new_props):
        location = new_props.get("listener.name.plaintext.ssl.keystore.location")
        self.validated.append(location)
        if location == "bad":
            raise ConfigError("Validation of dynamic config update of SSLFactory failed: no good")

    def reconfigure(self, new_props):
        self.reconfigured.append(new_props.get("listener.name.plaintext.ssl.keystore.location"))
        return True


def test_listener_reconfigurables_check_every_update_first_and_take_even_an_unchanged_one(tmp_path):
    dynamic = DynamicBrokerConfig(make_config(tmp_path))
    listener = RecordingReconfigurable()
    dynamic.add_listener_reconfigurable(listener)
    key = "listener.name.plaintext.ssl.keystore.location"
    with pytest.raises(InvalidRequestError) as refused:
        dynamic.incremental_alter([set_op(key, "bad")])
    assert refused.value.args[0] == (
        "Invalid dynamic configuration: Validation of dynamic config update of SSLFactory failed: no good"
    )
    assert dynamic.dynamic_configs == {} and listener.reconfigured == []
    dynamic.incremental_alter([set_op(key, "/tmp/ks")], validate_only=True)
    assert dynamic.dynamic_configs == {} and listener.reconfigured == []
    dynamic.incremental_alter([set_op(key, "/tmp/ks")])
    dynamic.incremental_alter([set_op(key, "/tmp/ks")])  # the same path: the file may have changed
    assert listener.reconfigured == ["/tmp/ks", "/tmp/ks"]
    assert dynamic.dynamic_configs == {key: "/tmp/ks"}


def test_a_broker_config_kafkette_does_not_use_is_listed_at_kafkas_default_as_kafka_lists_it(tmp_path):
    dynamic = DynamicBrokerConfig(make_config(tmp_path, log_cleaner_threads=2))

    described = {
        c.name: c
        for c in dynamic.describe(
            ["background.threads", "log.cleaner.threads", "ssl.keystore.password"], True
        )
    }
    assert (
        described["background.threads"].value,
        described["background.threads"].config_source,
        described["background.threads"].config_type,
    ) == ("10", SOURCE_DEFAULT_CONFIG, 3)
    assert [(s.name, s.value, s.source) for s in described["log.cleaner.threads"].synonyms] == [
        ("log.cleaner.threads", "2", SOURCE_STATIC_BROKER_CONFIG),
        ("log.cleaner.threads", "1", SOURCE_DEFAULT_CONFIG),
    ]
    assert described["log.cleaner.threads"].config_source == SOURCE_STATIC_BROKER_CONFIG
    password = described["ssl.keystore.password"]
    assert (password.value, password.is_sensitive, password.config_type, password.synonyms) == (
        None,
        True,
        9,
        [],
    )


@pytest.mark.parametrize(
    ("ops", "error", "message"),
    [
        (
            [set_op("ssl.keystore.location", "/tmp/ks")],
            InvalidRequestError,
            "These security configs can be dynamically updated only per-listener using the listener prefix: "
            "[ssl.keystore.location]",
        ),
        (
            [set_op("message.max.bytes", "abc")],
            InvalidRequestError,
            "Invalid value abc for configuration message.max.bytes: Not a number of type INT",
        ),
        (
            [set_op("unclean.leader.election.enable", "maybe")],
            InvalidRequestError,
            "Invalid value maybe for configuration unclean.leader.election.enable: Expected value to be "
            "either true or false",
        ),
        (
            [set_op("background.threads", None)],
            InvalidRequestError,
            "Null value not supported for : background.threads",
        ),
        (
            [set_op("background.threads", "1"), set_op("background.threads", "2")],
            InvalidRequestError,
            "Error due to duplicate config keys",
        ),
        ([set_op("background.threads", "1", op=9)], InvalidRequestError, "Unknown operations type 9"),
        (
            [set_op("background.threads", "1", op=OP_APPEND)],
            InvalidConfigError,
            "Config value append is not allowed for config key: background.threads",
        ),
        (
            [set_op("no.such.config", "1", op=OP_APPEND)],
            InvalidConfigError,
            "Unknown config name: no.such.config",
        ),
    ],
)
def test_a_broker_config_change_kafka_refuses_is_refused_with_kafkas_error_and_message(
    tmp_path, ops, error, message
):
    dynamic = DynamicBrokerConfig(make_config(tmp_path))

    with pytest.raises(error) as refused:
        dynamic.incremental_alter(ops)
    assert refused.value.args[0] == message
    assert dynamic.dynamic_configs == {}


def test_the_cluster_wide_default_refuses_per_broker_configs(tmp_path):
    dynamic = DynamicBrokerConfig(make_config(tmp_path))

    with pytest.raises(InvalidRequestError) as refused:
        dynamic.incremental_alter([set_op("sasl.enabled.mechanisms", "PLAIN")], cluster_default=True)
    assert refused.value.args[0] == (
        "Cannot update these configs at default cluster level, broker id must be "
        "specified: [sasl.enabled.mechanisms]"
    )
    dynamic.incremental_alter([set_op("background.threads", "5")], cluster_default=True)
    assert dynamic.dynamic_configs == {}


def test_alter_configs_replaces_every_dynamic_broker_config(tmp_path):
    dynamic = DynamicBrokerConfig(make_config(tmp_path))
    dynamic.incremental_alter([set_op("background.threads", "5"), set_op("log.retention.ms", "1000")])

    dynamic.incremental_alter([set_op("log.cleaner.threads", "2")], replace_all=True)

    assert dynamic.dynamic_configs == {"log.cleaner.threads": "2"}
    assert dynamic.current_config.log_retention_ms != 1000


def test_append_and_subtract_change_a_list_broker_config(tmp_path):
    dynamic = DynamicBrokerConfig(make_config(tmp_path))

    dynamic.incremental_alter([set_op("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-256", op=OP_APPEND)])
    dynamic.incremental_alter([set_op("sasl.enabled.mechanisms", "PLAIN", op=OP_SUBTRACT)])

    assert dynamic.dynamic_configs["sasl.enabled.mechanisms"].split(",")[-1] == "SCRAM-SHA-256"
    assert "PLAIN" not in dynamic.dynamic_configs["sasl.enabled.mechanisms"].split(",")


async def test_incremental_alter_of_this_broker_answers_per_resource_errors(tmp_path):
    async with running_replica_manager(make_config(tmp_path)) as manager:
        ctx = apis_context(manager)

        response = await alter_api.handle(
            ctx,
            HEADER,
            alter(
                broker_resource("1", set_op("min.insync.replicas", "0")),
                broker_resource("1", set_op("log.retention.bytes", None)),
                broker_resource("1", set_op("log.retention.bytes", "5"), set_op("log.retention.bytes", "6")),
                broker_resource("1", set_op("unknown.key", "1")),
                broker_resource("1", set_op("min.insync.replicas", "2", op=OP_APPEND)),
                broker_resource("2", set_op("min.insync.replicas", "2")),
                broker_resource("", set_op("min.insync.replicas", "2")),
            ),
        )

        codes = [r.error_code for r in response.responses]
        assert codes == [
            Errors.INVALID_REQUEST,
            Errors.INVALID_REQUEST,
            Errors.INVALID_REQUEST,
            Errors.NONE,
            Errors.INVALID_CONFIG,
            Errors.INVALID_REQUEST,
            Errors.INVALID_REQUEST,
        ]
        assert "min.insync.replicas" in response.responses[0].error_message
        assert response.responses[5].error_message == "Unexpected broker id, expected 1, but received 2"
        assert ctx.dynamic_config.dynamic_configs == {"unknown.key": "1"}


async def test_a_dynamic_broker_default_reaches_local_logs_but_topic_overrides_win(tmp_path):
    async with running_replica_manager(make_config(tmp_path)) as manager:
        dynamic = DynamicBrokerConfig(manager.config)
        dynamic.add_reconfigurable(manager.reconfigure_log_defaults)
        ctx = apis_context(manager, dynamic_config=dynamic)
        await manager.become_leader_or_follower(leader_and_isr(TP0, configs={"retention.ms": "1000"}))

        response = await alter_api.handle(
            ctx,
            HEADER,
            alter(
                broker_resource(
                    "1",
                    set_op("min.insync.replicas", "2"),
                    set_op("log.retention.ms", "99999"),
                    set_op("log.segment.bytes", "4096"),
                )
            ),
        )

        assert response.responses[0].error_code == Errors.NONE
        config = manager.get_partition(TP0).log.config
        assert (config.min_insync_replicas, config.segment_bytes, config.retention_ms) == (2, 4096, 1000)
        described = await describe_api.handle(
            ctx, HEADER, describe((RESOURCE_BROKER, "1"), keys=["min.insync.replicas"])
        )
        entry = described.results[0].configs[0]
        assert (entry.value, entry.config_source) == ("2", SOURCE_DYNAMIC_BROKER_CONFIG)

        await alter_api.handle(
            ctx, HEADER, alter(broker_resource("1", set_op("min.insync.replicas", None, OP_DELETE)))
        )

        assert manager.get_partition(TP0).log.config.min_insync_replicas == 1
        assert manager.get_partition(TP0).log.config.segment_bytes == 4096


async def test_validate_only_checks_a_broker_change_without_applying_it(tmp_path):
    async with running_replica_manager(make_config(tmp_path)) as manager:
        ctx = apis_context(manager)

        response = await alter_api.handle(
            ctx,
            HEADER,
            alter(broker_resource("1", set_op("log.flush.interval.ms", "10")), validate_only=True),
        )

        assert response.responses[0].error_code == Errors.NONE
        assert ctx.dynamic_config.dynamic_configs == {}
        assert ctx.dynamic_config.current_config.log_flush_interval_ms is None


async def test_topic_resources_go_to_the_controller_in_request_order(tmp_path):
    async with running_replica_manager(make_config(tmp_path)) as manager:
        controller = FakeConfigController()
        ctx = apis_context(manager, controller=controller)

        response = await describe_api.handle(
            ctx, HEADER, describe((RESOURCE_TOPIC, "a"), (RESOURCE_BROKER, "1"), (RESOURCE_TOPIC, "b"))
        )

        assert [(r.resource_type, r.resource_name) for r in response.results] == [
            (RESOURCE_TOPIC, "a"),
            (RESOURCE_BROKER, "1"),
            (RESOURCE_TOPIC, "b"),
        ]
        assert [r.resource_name for r in controller.describe_requests[0].resources] == ["a", "b"]
        assert response.results[1].configs

        altered = await alter_api.handle(
            ctx,
            HEADER,
            alter(
                AlterConfigsResource(
                    resource_type=RESOURCE_TOPIC, resource_name="a", configs=[set_op("retention.ms", "1")]
                ),
                broker_resource("1", set_op("log.retention.ms", "5")),
            ),
        )
        assert [r.error_code for r in altered.responses] == [Errors.NONE, Errors.NONE]
        assert [r.resource_type for r in controller.alter_requests[0].resources] == [RESOURCE_TOPIC]


async def test_topic_resources_on_a_broker_without_the_controller_are_not_controller(tmp_path):
    async with running_replica_manager(make_config(tmp_path)) as manager:
        ctx = apis_context(manager)

        described = await describe_api.handle(
            ctx, HEADER, describe((RESOURCE_TOPIC, "a"), (RESOURCE_BROKER, "1"))
        )
        altered = await alter_api.handle(
            ctx,
            HEADER,
            alter(
                AlterConfigsResource(
                    resource_type=RESOURCE_TOPIC, resource_name="a", configs=[set_op("retention.ms", "1")]
                )
            ),
        )

        assert [r.error_code for r in described.results] == [Errors.NOT_CONTROLLER, Errors.NONE]
        assert [r.error_code for r in altered.responses] == [Errors.NOT_CONTROLLER]
