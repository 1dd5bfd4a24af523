"""ConfigControlManager: topic and group config overrides - describe them, change them.

Owns: DescribeConfigs for TOPIC and GROUP resources (every topic or group config with its
effective value and source) and the IncrementalAlterConfigs decision for TOPIC and GROUP
resources (SET, DELETE, APPEND, SUBTRACT, validated against the topic config table or Kafka's
``GroupConfig``) as ``ConfigRecord``s.  A GROUP resource is any group id, known to a
coordinator or not, as in Kafka (KIP-848's group configs: Kafkette's classic groups do not
read them).  Does not own the config tables (``kafkette.common.topic_config``,
``kafkette.common.group_config``), BROKER resources (answered
by each broker itself), nor propagation (the controller sends UpdateMetadata with
``topic_configs`` and re-elects offline partitions when
``unclean.leader.election.enable`` changes).

Kafka concept: KRaft's ``ConfigurationControlManager`` (``incrementalAlterConfigs``)
and ``ConfigHelper.describeConfigs`` for topics (KIP-133, KIP-339).  Sources:
DYNAMIC_TOPIC_CONFIG for an override, STATIC_BROKER_CONFIG when the broker's
``server.properties`` sets the synonym (``log.segment.bytes`` for ``segment.bytes``),
else DEFAULT_CONFIG; for a group, GROUP_CONFIG for an override, else the same rule with the
group config's broker synonym (``group.consumer.session.timeout.ms``; Kafka's
``ConfigHelper.createGroupConfigEntry``).
"""

from __future__ import annotations

from collections.abc import Callable

from kafkette.common.config_def import CONFIG_TYPE_IDS, ConfigError
from kafkette.common.group_config import GROUP_CONFIG_DEFS, group_config_defaults, validate_group_configs
from kafkette.common.topic_config import (
    BROKER_SYNONYMS_WITHOUT_DEFAULT,
    TOPIC_CONFIG_DEFS,
    parse_topic_config,
    validate_topic_configs,
)
from kafkette.controller.controller_config import ControllerConfig
from kafkette.controller.controller_context import ControllerContext
from kafkette.controller.metadata_records import ConfigRecord, ControllerResult, MetadataRecord
from kafkette.protocol.apis.configs import (
    OP_APPEND,
    OP_DELETE,
    OP_SET,
    OP_SUBTRACT,
    RESOURCE_BROKER,
    RESOURCE_GROUP,
    RESOURCE_TOPIC,
    SOURCE_DEFAULT_CONFIG,
    SOURCE_DYNAMIC_TOPIC_CONFIG,
    SOURCE_GROUP_CONFIG,
    SOURCE_STATIC_BROKER_CONFIG,
    AlterConfigsResource,
    AlterConfigsResourceResponse,
    DescribeConfigsRequest,
    DescribeConfigsResourceResult,
    DescribeConfigsResponse,
    DescribeConfigsResult,
    DescribeConfigsSynonym,
    IncrementalAlterConfigsRequest,
    IncrementalAlterConfigsResponse,
)
from kafkette.protocol.errors import (
    InvalidConfigError,
    InvalidRequestError,
    KafkaError,
    UnknownTopicOrPartitionError,
    error_code_for,
)

_OPERATION_NAMES = {OP_APPEND: "APPEND", OP_SUBTRACT: "SUBTRACT"}


def _changed_records(
    resource_type: str, resource_name: str, current: dict[str, str], updated: dict[str, str | None]
) -> list[ConfigRecord]:
    """The ConfigRecords that take a resource's overrides from ``current`` to ``updated``, by
    config name (a record with a None value removes an override)."""
    return [
        ConfigRecord(resource_type, resource_name, name, updated.get(name))
        for name in sorted(set(current) | set(updated))
        if current.get(name) != updated.get(name)
    ]


class ConfigControlManager:
    """Decides DescribeConfigs / IncrementalAlterConfigs for topics.

    Args:
        context: the controller context (topic overrides are read here).
        config: the controller's settings (``topic_config_defaults``, what a topic without
            an override has, falling back to Kafka's defaults, and ``static_topic_config_names``).
        log_prefix: callable returning ``[Controller id=N epoch=E]``.
    """

    def __init__(
        self, context: ControllerContext, config: ControllerConfig, log_prefix: Callable[[], str] = lambda: ""
    ) -> None:
        self._context = context
        self._static_names = config.static_topic_config_names
        self._log_prefix = log_prefix
        self._defaults = {name: key.render(key.default) for name, key in TOPIC_CONFIG_DEFS.items()}
        self._defaults.update(config.topic_config_defaults)
        self._group_settings = dict(config.group_broker_settings)
        self._group_defaults = group_config_defaults(self._group_settings)

    # ----------------------------------------------------------- DescribeConfigs

    def describe_configs(self, request: DescribeConfigsRequest) -> DescribeConfigsResponse:
        """Describe TOPIC resources.

        Per resource: UNKNOWN_TOPIC_OR_PARTITION for an unknown topic (or one queued for
        deletion); INVALID_REQUEST for BROKER resources (brokers answer those) and
        unknown resource types; else every topic config (only ``configuration_keys``
        when given; unknown keys are left out), sorted by name, with value and source.
        """
        results = []
        for resource in request.resources:
            result = DescribeConfigsResult(
                error_code=0,
                error_message=None,
                resource_type=resource.resource_type,
                resource_name=resource.resource_name,
                configs=[],
            )
            if resource.resource_type == RESOURCE_GROUP:
                if not resource.resource_name:
                    problem = InvalidRequestError("Group name must not be empty")
                    result.error_code, result.error_message = error_code_for(problem), problem.args[0]
                else:
                    result.configs = self.group_config_entries(
                        self._context.group_config_overrides(resource.resource_name),
                        resource.configuration_keys,
                        request.include_synonyms,
                    )
                results.append(result)
                continue
            try:
                self._check_topic_resource(resource.resource_type, resource.resource_name)
            except KafkaError as exc:
                result.error_code = error_code_for(exc)
                result.error_message = str(exc.args[0]) if exc.args else None
                results.append(result)
                continue
            result.configs = self.topic_config_entries(
                self._context.topic_configs(resource.resource_name),
                resource.configuration_keys,
                request.include_synonyms,
            )
            results.append(result)
        return DescribeConfigsResponse(results=results)

    def topic_config_entries(
        self, overrides: dict[str, str], names: list[str] | None = None, include_synonyms: bool = False
    ) -> list[DescribeConfigsResourceResult]:
        """Every topic config (only ``names`` when given; unknown names left out), sorted by name,
        with its value and source for a topic with ``overrides`` (``{name: value}``): what
        DescribeConfigs answers and, from CreateTopics v5 on, what CreateTopics answers for a
        new topic (KIP-525).  With ``include_synonyms``, each also lists where its value may
        come from, most specific first (``synonyms_of``)."""
        keys = (
            sorted(TOPIC_CONFIG_DEFS)
            if names is None
            else [k for k in dict.fromkeys(names) if k in TOPIC_CONFIG_DEFS]
        )
        entries = []
        for name in keys:
            if name in overrides:
                value, source = overrides[name], SOURCE_DYNAMIC_TOPIC_CONFIG
            else:
                value, source = self._defaults[name], self._default_source(name)
            entries.append(
                DescribeConfigsResourceResult(
                    name=name,
                    value=value,
                    read_only=False,
                    config_source=source,
                    is_sensitive=False,
                    config_type=CONFIG_TYPE_IDS.get(TOPIC_CONFIG_DEFS[name].type, 0),
                    synonyms=self.synonyms_of(name, overrides) if include_synonyms else [],
                )
            )
        return entries

    def group_config_entries(
        self, overrides: dict[str, str], names: list[str] | None = None, include_synonyms: bool = False
    ) -> list[DescribeConfigsResourceResult]:
        """Every group config (only ``names`` when given; unknown names left out), sorted by name,
        for a group with ``overrides`` (``{name: value}``), as Kafka 4.3's
        ``ConfigHelper.createGroupConfigEntry`` lists it: its synonyms, most specific first, are
        the override (GROUP_CONFIG), then its broker config (``group.consumer.session.timeout.ms``
        for ``consumer.session.timeout.ms``) as the node's properties set it
        (STATIC_BROKER_CONFIG) and as Kafka defaults it (DEFAULT_CONFIG); a config without a broker
        config and without an override has itself at its default (DEFAULT_CONFIG).  The first
        synonym gives the source; they are listed only with ``include_synonyms``."""
        keys = (
            sorted(GROUP_CONFIG_DEFS)
            if names is None
            else [k for k in dict.fromkeys(names) if k in GROUP_CONFIG_DEFS]
        )
        entries = []
        for name in keys:
            key = GROUP_CONFIG_DEFS[name]
            value = overrides.get(name, self._group_defaults[name])
            synonyms = []
            if name in overrides:
                synonyms.append(DescribeConfigsSynonym(name=name, value=value, source=SOURCE_GROUP_CONFIG))
            if key.synonyms:
                broker_name = key.synonyms[0]
                if broker_name in self._group_settings:
                    synonyms.append(
                        DescribeConfigsSynonym(
                            name=broker_name,
                            value=self._group_defaults[name],
                            source=SOURCE_STATIC_BROKER_CONFIG,
                        )
                    )
                synonyms.append(
                    DescribeConfigsSynonym(
                        name=broker_name, value=key.render(key.default), source=SOURCE_DEFAULT_CONFIG
                    )
                )
            elif name not in overrides:
                synonyms.append(DescribeConfigsSynonym(name=name, value=value, source=SOURCE_DEFAULT_CONFIG))
            entries.append(
                DescribeConfigsResourceResult(
                    name=name,
                    value=value,
                    read_only=False,
                    config_source=synonyms[0].source,
                    is_sensitive=False,
                    config_type=CONFIG_TYPE_IDS.get(key.type, 0),
                    synonyms=synonyms if include_synonyms else [],
                )
            )
        return entries

    def synonyms_of(self, name: str, overrides: dict[str, str]) -> list[DescribeConfigsSynonym]:
        """Where topic config ``name``'s value may come from, most specific first, as Apache Kafka
        4.3 lists them: the topic's override (DYNAMIC_TOPIC_CONFIG), then its first broker
        synonym as the node's properties set it (STATIC_BROKER_CONFIG) and as Kafka defaults it
        (DEFAULT_CONFIG; not listed when that default is null, as ``log.retention.ms``'s)."""
        out = []
        if name in overrides:
            out.append(
                DescribeConfigsSynonym(name=name, value=overrides[name], source=SOURCE_DYNAMIC_TOPIC_CONFIG)
            )
        key = TOPIC_CONFIG_DEFS[name]
        if key.synonyms:
            if name in self._static_names:
                out.append(
                    DescribeConfigsSynonym(
                        name=key.synonyms[0], value=self._defaults[name], source=SOURCE_STATIC_BROKER_CONFIG
                    )
                )
            if key.synonyms[0] not in BROKER_SYNONYMS_WITHOUT_DEFAULT:
                out.append(
                    DescribeConfigsSynonym(
                        name=key.synonyms[0], value=key.render(key.default), source=SOURCE_DEFAULT_CONFIG
                    )
                )
        return out

    def _default_source(self, name: str) -> int:
        return SOURCE_STATIC_BROKER_CONFIG if name in self._static_names else SOURCE_DEFAULT_CONFIG

    def _check_topic_resource(self, resource_type: int, name: str) -> None:
        if resource_type == RESOURCE_BROKER:
            raise InvalidRequestError(
                "BROKER resources are answered by the broker itself, not the controller."
            )
        if resource_type != RESOURCE_TOPIC:
            raise InvalidRequestError(f"Unsupported resource type {resource_type}.")
        if name not in self._context.topics or self._context.is_topic_queued_up_for_deletion(name):
            raise UnknownTopicOrPartitionError(f"The topic '{name}' does not exist.")

    # --------------------------------------------------- IncrementalAlterConfigs

    def incremental_alter_configs(
        self, request: IncrementalAlterConfigsRequest
    ) -> ControllerResult[IncrementalAlterConfigsResponse]:
        """Decide an IncrementalAlterConfigs request for TOPIC resources.

        Per resource (each succeeds or fails as a whole): INVALID_REQUEST for a resource
        named twice, a key named twice, a null SET value, an unknown operation, or a
        non-TOPIC resource; UNKNOWN_TOPIC_OR_PARTITION; INVALID_CONFIG naming the key
        for an unknown key, an invalid value, or APPEND/SUBTRACT on a non-list config.
        SET stores the value, DELETE removes the override, APPEND adds list items not
        present yet and SUBTRACT removes items (both starting from the override, else
        the broker default).  ``validate_only`` writes nothing.  With ``replace_all`` (Kafka's
        AlterConfigs, API 33, ``legacyAlterConfigs``) the overrides become exactly the ones set.

        Returns:
            ``ControllerResult``: a ``ConfigRecord`` per changed key (value None for a
            removed override) and the response.
        """
        counts: dict[tuple[int, str], int] = {}
        for resource in request.resources:
            key = (resource.resource_type, resource.resource_name)
            counts[key] = counts.get(key, 0) + 1
        records: list[MetadataRecord] = []
        responses = []
        for resource in request.resources:
            response = AlterConfigsResourceResponse(
                error_code=0,
                error_message=None,
                resource_type=resource.resource_type,
                resource_name=resource.resource_name,
            )
            try:
                if counts[(resource.resource_type, resource.resource_name)] > 1:
                    raise InvalidRequestError(f"Duplicate resource {resource.resource_name} in the request.")
                if resource.resource_type == RESOURCE_GROUP:
                    changes = self._alter_group(resource, request.replace_all)
                else:
                    self._check_topic_resource(resource.resource_type, resource.resource_name)
                    changes = self._alter_topic(resource, request.replace_all)
            except KafkaError as exc:
                response.error_code = error_code_for(exc)
                response.error_message = str(exc.args[0]) if exc.args else None
            else:
                if not request.validate_only:
                    records.extend(changes)
            responses.append(response)
        return ControllerResult(records, IncrementalAlterConfigsResponse(responses=responses))

    def _alter_topic(self, resource: AlterConfigsResource, replace_all: bool = False) -> list[ConfigRecord]:
        topic = resource.resource_name
        names = [c.name for c in resource.configs]
        if len(set(names)) != len(names):
            raise InvalidRequestError("Error due to duplicate config keys")
        current = self._context.topic_configs(topic)
        updated = {} if replace_all else dict(current)  # AlterConfigs (33): the set ones only
        for entry in resource.configs:
            definition = TOPIC_CONFIG_DEFS.get(entry.name)
            if definition is None:
                raise InvalidConfigError(f"Unknown topic config name: {entry.name}")
            op = entry.config_operation
            if op == OP_SET:
                if entry.value is None:
                    raise InvalidRequestError(f"Null value not supported for : {entry.name}")
                updated[entry.name] = str(entry.value).strip()
            elif op == OP_DELETE:
                updated.pop(entry.name, None)
            elif op in (OP_APPEND, OP_SUBTRACT):
                if definition.type != "list":
                    raise InvalidConfigError(
                        f"Can't {_OPERATION_NAMES[op]} to key {entry.name} because its type is not LIST."
                    )
                try:
                    base = parse_topic_config(entry.name, updated.get(entry.name, self._defaults[entry.name]))
                    items = parse_topic_config(entry.name, entry.value) if entry.value else []
                except ValueError as exc:
                    raise InvalidConfigError(str(exc)) from None
                if op == OP_APPEND:
                    merged = base + [i for i in items if i not in base]
                else:
                    merged = [i for i in base if i not in items]
                updated[entry.name] = ",".join(merged)
            else:
                raise InvalidRequestError(f"Unknown config operation {op} for config key: {entry.name}")
            if entry.name in updated:
                try:
                    validate_topic_configs({entry.name: updated[entry.name]})
                except ValueError as exc:
                    raise InvalidConfigError(str(exc)) from None
        try:  # the values together (Kafka's LogConfig.validateValues: min.compaction.lag.ms <= max)
            validate_topic_configs(updated, self._defaults)
        except ValueError as exc:
            raise InvalidConfigError(str(exc)) from None
        return _changed_records("topic", topic, current, updated)

    def _alter_group(self, resource: AlterConfigsResource, replace_all: bool = False) -> list[ConfigRecord]:
        """A group's new overrides, checked as Kafka's ``ControllerConfigurationValidator`` checks
        GROUP resources (``GroupConfig.validate`` of every override the group would have)."""
        group = resource.resource_name
        if not group:
            raise InvalidRequestError("Default group resources are not allowed.")
        names = [c.name for c in resource.configs]
        if len(set(names)) != len(names):
            raise InvalidRequestError("Error due to duplicate config keys")
        current = self._context.group_config_overrides(group)
        updated = {} if replace_all else dict(current)
        for entry in resource.configs:
            op = entry.config_operation
            if op == OP_SET:
                if entry.value is None:
                    raise InvalidConfigError(f"Null value not supported for group configs: {entry.name}")
                updated[entry.name] = str(entry.value)
            elif op == OP_DELETE:
                updated.pop(entry.name, None)
            elif op in (OP_APPEND, OP_SUBTRACT):
                definition = GROUP_CONFIG_DEFS.get(entry.name)
                if definition is None:
                    raise InvalidConfigError(f"Unknown group config name: {entry.name}")
                raise InvalidConfigError(
                    f"Can't {_OPERATION_NAMES[op]} to key {entry.name} because its type is not LIST."
                )
            else:
                raise InvalidRequestError(f"Unknown config operation {op} for config key: {entry.name}")
        try:
            validate_group_configs(updated, self._group_settings)
        except ConfigError as exc:
            raise InvalidConfigError(str(exc)) from None
        return _changed_records("group", group, current, updated)
