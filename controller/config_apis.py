"""ConfigApis: DescribeConfigs and IncrementalAlterConfigs for topics and groups at the controller.

Owns: the two coroutines and the IncrementalAlterConfigs event (write the
``ConfigRecord``s, UpdateMetadata with the topic's or group's override set to every live
broker, and an election for the offline partitions of a topic whose
``unclean.leader.election.enable`` changed).  Works through ``ControllerOperations``
only.  Does not own the decisions (``ConfigControlManager``).

Kafka concept: ``QuorumController.incrementalAlterConfigs`` and
``ConfigHelper.describeConfigs`` for topics (KIP-133, KIP-339).
"""

from __future__ import annotations

import logging

from kafkette.controller.config_control_manager import ConfigControlManager
from kafkette.controller.controller_operations import ControllerOperations
from kafkette.controller.metadata_records import ConfigRecord
from kafkette.controller.partition_propagation import write_partition_changes
from kafkette.controller.replication_control_manager import ReplicationControlManager
from kafkette.protocol.apis.configs import (
    AlterConfigsResourceResponse,
    DescribeConfigsRequest,
    DescribeConfigsResponse,
    DescribeConfigsResult,
    IncrementalAlterConfigsRequest,
    IncrementalAlterConfigsResponse,
)
from kafkette.protocol.errors import error_code_for, error_message

logger = logging.getLogger(__name__)


class ConfigApis:
    """Topic config requests.

    Args:
        ops: the controller's operations.
        config_control: decides describe and alter.
        replication_control: elects offline partitions when unclean election is enabled.
    """

    def __init__(
        self,
        ops: ControllerOperations,
        config_control: ConfigControlManager,
        replication_control: ReplicationControlManager,
    ) -> None:
        self._ops = ops
        self._config_control = config_control
        self._replication_control = replication_control

    async def describe_configs(self, request: DescribeConfigsRequest) -> DescribeConfigsResponse:
        """Describe TOPIC resources (see ``ConfigControlManager.describe_configs``); never raises."""

        async def handle() -> DescribeConfigsResponse:
            return self._config_control.describe_configs(request)

        try:
            return await self._ops.submit("DescribeConfigs", handle)
        except Exception as exc:  # the wire-code boundary; the event manager logged unexpected errors
            return DescribeConfigsResponse(
                results=[
                    DescribeConfigsResult(
                        error_code=error_code_for(exc),
                        error_message=error_message(exc),
                        resource_type=r.resource_type,
                        resource_name=r.resource_name,
                        configs=[],
                    )
                    for r in request.resources
                ]
            )

    async def incremental_alter_configs(
        self, request: IncrementalAlterConfigsRequest
    ) -> IncrementalAlterConfigsResponse:
        """Change TOPIC config overrides (see ``ConfigControlManager.incremental_alter_configs``);
        never raises.

        The ``ConfigRecord``s are written, every live broker gets UpdateMetadata with the
        topic's partitions and its whole override set (``topic_configs``) or the group's whole
        override set (``group_configs``, applied by its group coordinator), and a changed
        ``unclean.leader.election.enable`` triggers an election for the topic's offline
        partitions.
        """
        try:
            return await self._ops.submit(
                "IncrementalAlterConfigs", lambda: self._handle_incremental_alter_configs(request)
            )
        except Exception as exc:  # the wire-code boundary; the event manager logged unexpected errors
            return IncrementalAlterConfigsResponse(
                responses=[
                    AlterConfigsResourceResponse(
                        error_code=error_code_for(exc),
                        error_message=error_message(exc),
                        resource_type=r.resource_type,
                        resource_name=r.resource_name,
                    )
                    for r in request.resources
                ]
            )

    async def _handle_incremental_alter_configs(
        self, request: IncrementalAlterConfigsRequest
    ) -> IncrementalAlterConfigsResponse:
        result = self._config_control.incremental_alter_configs(request)
        assert result.response is not None
        if not result.records:
            return result.response
        await self._ops.write(result.records, "IncrementalAlterConfigs")
        records = [r for r in result.records if isinstance(r, ConfigRecord)]
        for record in records:
            logger.info(
                "%s %s %s config %s %s",
                self._ops.log_prefix(),
                record.resource_type.capitalize(),
                record.resource_name,
                record.name,
                f"set to {record.value}" if record.value is not None else "reset to the default",
            )
        configs = [r for r in records if r.resource_type == "topic"]
        topics = sorted({r.resource_name for r in configs})
        groups = sorted({r.resource_name for r in records if r.resource_type == "group"})
        if not topics and not groups:
            return result.response
        context = self._ops.context
        batch = self._ops.new_batch()
        batch.add_update_metadata_request_for_brokers(
            context.live_broker_ids(),
            [tp for t in topics for tp in context.partitions_of_topic(t)],
            groups=groups,
        )
        batch.send_requests_to_brokers()
        unclean_topics = sorted(
            {r.resource_name for r in configs if r.name == "unclean.leader.election.enable"}
        )
        if unclean_topics:
            changes = self._replication_control.elect_offline_partitions(unclean_topics)
            await write_partition_changes(self._ops, changes, "UncleanLeaderElectionEnabled")
        return result.response
