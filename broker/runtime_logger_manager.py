"""Broker loggers (KIP-412): the BROKER_LOGGER config resource over Python's logging.

Owns: the mapping of Kafka's log4j level names (``LogLevelConfig.VALID_LOG_LEVELS``) onto
Python logging levels, the list of this broker process's loggers with their effective levels
(DescribeConfigs of a BROKER_LOGGER resource), and the checks and changes of an
IncrementalAlterConfigs of one (SET a level, DELETE a logger's own level), with Kafka's
messages.  Changes live in memory only and are lost on restart, as Kafka's.
Does not own: the routing of config resources (``broker/apis/config_resources.py``) nor the
broker's logging setup (``broker/server_logging.py``).
Kafka concept: ``LoggingController``, ``RuntimeLoggerManager``, the BROKER_LOGGER branches of
``ConfigHelper`` and ``ConfigAdminManager`` (KIP-412).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence

from kafkette.protocol.apis.configs import (
    OP_APPEND,
    OP_DELETE,
    OP_SET,
    OP_SUBTRACT,
    SOURCE_DYNAMIC_BROKER_LOGGER_CONFIG,
    AlterableConfig,
    DescribeConfigsResourceResult,
)
from kafkette.protocol.errors import Errors

logger = logging.getLogger(__name__)

ROOT_LOGGER = "root"
RESOURCE_TYPE_NAME = "BROKER_LOGGER"

# log4j level name -> Python level.  TRACE sits below DEBUG, FATAL is CRITICAL, OFF above
# everything, ALL is 1 (0 is NOTSET, which means "inherit" in Python).
LOG4J_TO_PYTHON_LEVELS = {
    "ALL": 1,
    "TRACE": 5,
    "DEBUG": logging.DEBUG,
    "INFO": logging.INFO,
    "WARN": logging.WARNING,
    "ERROR": logging.ERROR,
    "FATAL": logging.CRITICAL,
    "OFF": logging.CRITICAL + 10,
}
VALID_LOG_LEVELS_STRING = ", ".join(sorted(LOG4J_TO_PYTHON_LEVELS))


class BrokerLoggerError(Exception):
    """A refused BROKER_LOGGER change: ``error_code`` is INVALID_REQUEST or INVALID_CONFIG."""

    def __init__(self, error_code: Errors, message: str) -> None:
        super().__init__(message)
        self.error_code = error_code
        self.message = message


def log4j_level_name(level: int) -> str:
    """The log4j name of a Python level (an int): the named level at or just below it.

    ``logging.WARNING`` is ``"WARN"``, ``logging.CRITICAL`` ``"FATAL"``, 0 (NOTSET, which lets
    everything through on the root logger) ``"ALL"``.  Kafka concept: ``LoggingController``'s
    log4j level names.
    """
    best = "ALL"
    for name, value in sorted(LOG4J_TO_PYTHON_LEVELS.items(), key=lambda item: item[1]):
        if value <= level:
            best = name
    return best


def python_level(log4j_name: str) -> int:
    """The Python level of a log4j level name; raises KeyError for a name not in
    ``LogLevelConfig.VALID_LOG_LEVELS`` (case-sensitive, as Kafka's check)."""
    return LOG4J_TO_PYTHON_LEVELS[log4j_name]


def _logger(name: str) -> logging.Logger | None:
    if name == ROOT_LOGGER:
        return logging.getLogger()
    found = logging.Logger.manager.loggerDict.get(name)
    return found if isinstance(found, logging.Logger) else None


def loggers() -> dict[str, str]:
    """Every real logger of this process plus ``root``, by name, with its effective level as a
    log4j name (a logger without a level of its own shows its inherited one).

    Kafka concept: ``LoggingController.loggers``.
    """
    found = {ROOT_LOGGER: log4j_level_name(logging.getLogger().getEffectiveLevel())}
    for name, candidate in list(logging.Logger.manager.loggerDict.items()):
        if isinstance(candidate, logging.Logger):
            found[name] = log4j_level_name(candidate.getEffectiveLevel())
    return found


def describe_loggers(configuration_keys: Sequence[str] | None) -> list[DescribeConfigsResourceResult]:
    """The configs of a BROKER_LOGGER resource: one per logger (name -> level), source
    DYNAMIC_BROKER_LOGGER_CONFIG, neither sensitive nor read-only, no synonyms.

    Args:
        configuration_keys: the logger names asked for, or None for all; names that are no
            logger are left out, as Kafka's ``ConfigHelperUtils.createResponseConfig``.

    Kafka concept: the BROKER_LOGGER branch of ``ConfigHelper.describeConfigs``.
    """
    wanted = None if configuration_keys is None else set(configuration_keys)
    return [
        DescribeConfigsResourceResult(
            name=name,
            value=level,
            read_only=False,
            config_source=SOURCE_DYNAMIC_BROKER_LOGGER_CONFIG,
            is_sensitive=False,
            synonyms=[],
        )
        for name, level in sorted(loggers().items())
        if wanted is None or name in wanted
    ]


def describe_resource_error(resource_name: str, node_id: int) -> str | None:
    """Why DescribeConfigs of BROKER_LOGGER ``resource_name`` is INVALID_REQUEST at broker
    ``node_id`` (None when it names this broker), in ``ConfigHelper``'s words."""
    if not resource_name:
        return "Broker id must not be empty"
    try:
        target = int(resource_name)
    except ValueError:
        return f"Broker id must be an integer, but it is: {resource_name}"
    if target != node_id:
        return f"Unexpected broker id, expected {node_id} but received {resource_name}"
    return None


def _validate(configs: Iterable[AlterableConfig]) -> None:
    for op in configs:
        name = op.name
        if op.config_operation in (OP_SET, OP_DELETE):
            if _logger(name) is None:
                raise BrokerLoggerError(Errors.INVALID_CONFIG, f"Logger {name} does not exist!")
            if op.config_operation == OP_SET and op.value not in LOG4J_TO_PYTHON_LEVELS:
                raise BrokerLoggerError(
                    Errors.INVALID_CONFIG,
                    f"Cannot set the log level of {name} to {op.value} as it is not a supported log "
                    f"level. Valid log levels are {VALID_LOG_LEVELS_STRING}",
                )
            if op.config_operation == OP_DELETE and name == ROOT_LOGGER:
                raise BrokerLoggerError(
                    Errors.INVALID_REQUEST,
                    f"Removing the log level of the {ROOT_LOGGER} logger is not allowed",
                )
        elif op.config_operation == OP_APPEND:
            raise BrokerLoggerError(
                Errors.INVALID_REQUEST,
                f"APPEND operation is not allowed for the {RESOURCE_TYPE_NAME} resource",
            )
        elif op.config_operation == OP_SUBTRACT:
            raise BrokerLoggerError(
                Errors.INVALID_REQUEST,
                f"SUBTRACT operation is not allowed for the {RESOURCE_TYPE_NAME} resource",
            )
        else:
            raise BrokerLoggerError(
                Errors.INVALID_REQUEST,
                f"Unknown operation type {op.config_operation} is not allowed for the "
                f"{RESOURCE_TYPE_NAME} resource",
            )


def alter_loggers(
    resource_name: str, configs: Sequence[AlterableConfig], node_id: int, validate_only: bool
) -> None:
    """Check every change of a BROKER_LOGGER resource, then (unless ``validate_only``) apply them
    in order: SET gives the logger its own level, DELETE removes it (the logger then inherits).

    Args:
        resource_name: the resource's name, which must be ``node_id`` as a string.
        configs: the changes: name is a logger (``root`` included), value a log4j level name.
        node_id: this broker's node id.
        validate_only: check without applying.

    Raises:
        BrokerLoggerError: INVALID_REQUEST for another or a non-integer node id, DELETE of the
            root logger, APPEND, SUBTRACT or an unknown operation; INVALID_CONFIG for a logger
            that does not exist or a level not in ``LogLevelConfig.VALID_LOG_LEVELS``.

    Kafka concept: ``RuntimeLoggerManager.applyChangesForResource`` (KIP-412).
    """
    try:
        target = int(resource_name)
    except ValueError:
        raise BrokerLoggerError(
            Errors.INVALID_REQUEST, f"Node id must be an integer, but it is: {resource_name}"
        ) from None
    if target != node_id:
        raise BrokerLoggerError(
            Errors.INVALID_REQUEST, f"Unexpected node id. Expected {node_id}, but received {target}"
        )
    _validate(configs)
    if validate_only:
        return
    for op in configs:
        target_logger = logging.getLogger() if op.name == ROOT_LOGGER else logging.getLogger(op.name)
        if op.config_operation == OP_SET:
            target_logger.setLevel(python_level(op.value))
            logger.warning("Updated the log level of %s to %s", op.name, op.value)
        else:
            target_logger.setLevel(logging.NOTSET)
            logger.warning("Unset the log level of %s", op.name)
