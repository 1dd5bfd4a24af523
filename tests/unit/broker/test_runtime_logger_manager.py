"""BROKER_LOGGER config resources (KIP-412): the log4j level mapping, DescribeConfigs listing the
process's loggers, IncrementalAlterConfigs SET/DELETE, and every refusal in Kafka's words
(``ConfigHelper``, ``ConfigAdminManager``, ``RuntimeLoggerManager``)."""

from __future__ import annotations

import logging
from types import SimpleNamespace

import pytest

from kafkette.broker import runtime_logger_manager
from kafkette.broker.apis import describe_configs, incremental_alter_configs
from kafkette.protocol.apis.configs import (
    OP_APPEND,
    OP_DELETE,
    OP_SET,
    OP_SUBTRACT,
    RESOURCE_BROKER_LOGGER,
    SOURCE_DYNAMIC_BROKER_LOGGER_CONFIG,
    AlterableConfig,
    AlterConfigsResource,
    DescribeConfigsRequest,
    DescribeConfigsResource,
    IncrementalAlterConfigsRequest,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

LOGGER_NAME = "kafkette.test.broker_logger"
VALID = "ALL, DEBUG, ERROR, FATAL, INFO, OFF, TRACE, WARN"


@pytest.fixture
def test_logger():
    parent = logging.getLogger("kafkette.test")
    child = logging.getLogger(LOGGER_NAME)
    saved = (parent.level, child.level, logging.getLogger().level)
    parent.setLevel(logging.INFO)
    child.setLevel(logging.NOTSET)
    yield child
    parent.setLevel(saved[0])
    child.setLevel(saved[1])
    logging.getLogger().setLevel(saved[2])


def _ctx(node_id: int = 1) -> SimpleNamespace:
    return SimpleNamespace(config=SimpleNamespace(node_id=node_id, request_timeout_ms=1000))


async def _describe(name: str, keys: list[str] | None = None):
    request = DescribeConfigsRequest(
        resources=[
            DescribeConfigsResource(
                resource_type=RESOURCE_BROKER_LOGGER, resource_name=name, configuration_keys=keys
            )
        ],
        include_synonyms=True,
    )
    header = RequestHeader(api_key=32, api_version=4, correlation_id=1, client_id="c")
    return (await describe_configs.handle(_ctx(), header, request)).results[0]


async def _alter(name: str, *ops: tuple[int, str, str | None], validate_only=False, replace_all=False):
    request = IncrementalAlterConfigsRequest(
        resources=[
            AlterConfigsResource(
                resource_type=RESOURCE_BROKER_LOGGER,
                resource_name=name,
                configs=[AlterableConfig(name=n, config_operation=op, value=v) for op, n, v in ops],
            )
        ],
        validate_only=validate_only,
        replace_all=replace_all,
    )
    header = RequestHeader(api_key=44, api_version=1, correlation_id=1, client_id="c")
    response = (await incremental_alter_configs.handle(_ctx(), header, request)).responses[0]
    return response.error_code, response.error_message


def test_log4j_levels_map_onto_python_levels_and_back():
    assert runtime_logger_manager.python_level("WARN") == logging.WARNING
    assert runtime_logger_manager.python_level("FATAL") == logging.CRITICAL
    assert runtime_logger_manager.python_level("TRACE") < logging.DEBUG
    assert runtime_logger_manager.python_level("OFF") > logging.CRITICAL
    assert 0 < runtime_logger_manager.python_level("ALL") < runtime_logger_manager.python_level("TRACE")
    for name in runtime_logger_manager.LOG4J_TO_PYTHON_LEVELS:
        assert runtime_logger_manager.log4j_level_name(runtime_logger_manager.python_level(name)) == name
    assert runtime_logger_manager.log4j_level_name(logging.NOTSET) == "ALL"
    assert runtime_logger_manager.log4j_level_name(25) == "INFO"
    assert runtime_logger_manager.VALID_LOG_LEVELS_STRING == VALID


async def test_describe_lists_every_logger_and_root_with_effective_levels(test_logger):
    result = await _describe("1")
    assert result.error_code == Errors.NONE
    configs = {c.name: c for c in result.configs}
    assert "root" in configs
    assert "kafkette.test.broker_logger" in configs
    assert configs[LOGGER_NAME].value == "INFO"  # inherited from its parent
    entry = configs[LOGGER_NAME]
    assert entry.config_source == SOURCE_DYNAMIC_BROKER_LOGGER_CONFIG
    assert (entry.read_only, entry.is_sensitive, list(entry.synonyms)) == (False, False, [])
    placeholders = [
        n for n, v in logging.Logger.manager.loggerDict.items() if not isinstance(v, logging.Logger)
    ]
    assert not set(placeholders) & set(configs)


async def test_describe_with_keys_lists_only_those_loggers(test_logger):
    result = await _describe("1", [LOGGER_NAME, "no.such.logger"])
    assert [(c.name, c.value) for c in result.configs] == [(LOGGER_NAME, "INFO")]


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", "Broker id must not be empty"),
        ("x", "Broker id must be an integer, but it is: x"),
        ("2", "Unexpected broker id, expected 1 but received 2"),
    ],
)
async def test_describe_refuses_another_broker_with_kafkas_message(name, message):
    result = await _describe(name)
    assert (result.error_code, result.error_message, list(result.configs)) == (
        Errors.INVALID_REQUEST,
        message,
        [],
    )


async def test_alter_sets_then_deletes_a_logger_level(test_logger):
    assert await _alter("1", (OP_SET, LOGGER_NAME, "DEBUG")) == (Errors.NONE, None)
    assert test_logger.level == logging.DEBUG
    assert {c.name: c.value for c in (await _describe("1")).configs}[LOGGER_NAME] == "DEBUG"
    assert await _alter("1", (OP_SET, LOGGER_NAME, "TRACE"), (OP_SET, "root", "WARN")) == (Errors.NONE, None)
    assert test_logger.level == runtime_logger_manager.python_level("TRACE")
    assert logging.getLogger().level == logging.WARNING
    assert await _alter("1", (OP_DELETE, LOGGER_NAME, None)) == (Errors.NONE, None)
    assert test_logger.level == logging.NOTSET
    assert {c.name: c.value for c in (await _describe("1")).configs}[LOGGER_NAME] == "INFO"


async def test_validate_only_changes_nothing(test_logger):
    assert await _alter("1", (OP_SET, LOGGER_NAME, "ERROR"), validate_only=True) == (Errors.NONE, None)
    assert test_logger.level == logging.NOTSET


@pytest.mark.parametrize(
    ("name", "ops", "code", "message"),
    [
        (
            "2",
            [(OP_SET, LOGGER_NAME, "DEBUG")],
            Errors.INVALID_REQUEST,
            "Unexpected node id. Expected 1, but received 2",
        ),
        (
            "",
            [(OP_SET, LOGGER_NAME, "DEBUG")],
            Errors.INVALID_REQUEST,
            "Node id must be an integer, but it is: ",
        ),
        (
            "x",
            [(OP_SET, LOGGER_NAME, "DEBUG")],
            Errors.INVALID_REQUEST,
            "Node id must be an integer, but it is: x",
        ),
        (
            "1",
            [(OP_SET, LOGGER_NAME, "debug")],
            Errors.INVALID_CONFIG,
            f"Cannot set the log level of {LOGGER_NAME} to debug as it is not a supported log level. "
            f"Valid log levels are {VALID}",
        ),
        (
            "1",
            [(OP_SET, "no.such.logger", "DEBUG")],
            Errors.INVALID_CONFIG,
            "Logger no.such.logger does not exist!",
        ),
        (
            "1",
            [(OP_DELETE, "root", None)],
            Errors.INVALID_REQUEST,
            "Removing the log level of the root logger is not allowed",
        ),
        (
            "1",
            [(OP_APPEND, LOGGER_NAME, "DEBUG")],
            Errors.INVALID_REQUEST,
            "APPEND operation is not allowed for the BROKER_LOGGER resource",
        ),
        (
            "1",
            [(OP_SUBTRACT, LOGGER_NAME, "DEBUG")],
            Errors.INVALID_REQUEST,
            "SUBTRACT operation is not allowed for the BROKER_LOGGER resource",
        ),
        (
            "1",
            [(OP_SET, LOGGER_NAME, None)],
            Errors.INVALID_REQUEST,
            f"Null value not supported for : {LOGGER_NAME}",
        ),
        (
            "1",
            [(OP_SET, LOGGER_NAME, "DEBUG"), (OP_DELETE, LOGGER_NAME, None)],
            Errors.INVALID_REQUEST,
            "Error due to duplicate config keys",
        ),
    ],
)
async def test_alter_refusals_carry_kafkas_messages_and_change_nothing(test_logger, name, ops, code, message):
    assert await _alter(name, *ops) == (code, message)
    assert test_logger.level == logging.NOTSET


async def test_a_refused_change_leaves_the_others_of_its_resource_unapplied(test_logger):
    code, _ = await _alter("1", (OP_SET, LOGGER_NAME, "DEBUG"), (OP_DELETE, "root", None))
    assert code == Errors.INVALID_REQUEST
    assert test_logger.level == logging.NOTSET


async def test_legacy_alter_configs_refuses_broker_loggers_as_an_unknown_resource_type(test_logger):
    assert await _alter("1", (OP_SET, LOGGER_NAME, "DEBUG"), replace_all=True) == (
        Errors.INVALID_REQUEST,
        "Unknown resource type 8",
    )
    assert test_logger.level == logging.NOTSET
