"""UpdateMetadata handler: the controller refreshes this broker's MetadataCache.

A request from an older controller epoch is refused with STALE_CONTROLLER_EPOCH.
Deleted topics leave the cache (Metadata answers UNKNOWN_TOPIC_OR_PARTITION for
them); ``topic_configs`` are cached and applied at once to the LogConfig of every
local partition of those topics (a new ``min.insync.replicas`` or ``retention.ms``
takes effect without a LeaderAndIsr); the group coordinator drops the offsets committed
for the deleted topics' partitions; ``group_configs`` replace the listed groups' overrides in the
group coordinator's ``GroupConfigManager`` (all of them in a full update); ``scram_credentials``
replace the listed users' SCRAM credentials in the ``ScramCredentialCache``, ``client_quotas`` the
listed entities' quotas in the ``ClientQuotaCache`` (all of them in a full update), ``acls`` and
``deleted_acl_ids`` the ACLs of the ``AclStore`` (when an authorizer is configured; all of them in a
full update).
A full update (the broker's first after it registers, or a new controller's) deletes the local
logs it does not place on this broker (stray logs).
Kafka concept: ``KafkaApis.handleUpdateMetadataRequest`` plus the
broker's config change handling (``TopicConfigHandler``, and for groups ``DynamicConfigPublisher`` ->
``GroupCoordinator.updateGroupConfig``), and KIP-858's stray replicas.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.client_quota_manager import quotas_of_type
from kafkette.common.client_quota_entity import (
    CONSUMER_BYTE_RATE,
    CONTROLLER_MUTATION_RATE,
    PRODUCER_BYTE_RATE,
    REQUEST_PERCENTAGE,
)
from kafkette.protocol.apis.update_metadata import UpdateMetadataRequest, UpdateMetadataResponse
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.topic_partition import TopicPartition

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(
    ctx: ApisContext, header: RequestHeader, request: UpdateMetadataRequest
) -> UpdateMetadataResponse:
    """Apply the update unless it comes from a stale controller epoch."""
    if request.controller_epoch < ctx.metadata_cache.controller_epoch:
        return UpdateMetadataResponse(error_code=Errors.STALE_CONTROLLER_EPOCH)
    deleted = ctx.metadata_cache.update_metadata(request)
    if request.full:  # every topic of the metadata: logs of any other topic id are stray
        await ctx.replica_manager.delete_stray_replicas(
            {e.topic_name: e.topic_id for e in request.topic_configs},
            {
                TopicPartition(s.topic_name, s.partition_index)
                for s in request.partition_states
                if ctx.replica_manager.broker_id in s.replicas
            },
        )
    if deleted and ctx.group_coordinator is not None:
        ctx.group_coordinator.on_partitions_deleted(deleted)
    if ctx.group_coordinator is not None:  # consumer groups recompute their subscribed topics' metadata hash
        changed = {s.topic_name for s in request.partition_states} | {tp.topic for tp in deleted}
        ctx.group_coordinator.consumer_groups.on_topics_changed(changed)
    if ctx.group_coordinator is not None and (request.full or request.group_configs):
        ctx.group_coordinator.consumer_groups.group_configs.update_group_configs(
            {entry.group_id: {c.name: c.value for c in entry.configs} for entry in request.group_configs},
            full=request.full,
        )
    if request.full or request.scram_credentials:
        ctx.scram_credentials.update(request.scram_credentials, full=request.full)
    if ctx.authorizer is not None and (request.full or request.acls or request.deleted_acl_ids):
        ctx.authorizer.update(request.acls, request.deleted_acl_ids, full=request.full)
    if request.full or request.client_quotas:
        ctx.client_quotas.update(request.client_quotas, full=request.full)
        ctx.produce_quotas.set_quotas(quotas_of_type(ctx.client_quotas.quotas, PRODUCER_BYTE_RATE))
        ctx.fetch_quotas.set_quotas(quotas_of_type(ctx.client_quotas.quotas, CONSUMER_BYTE_RATE))
        ctx.request_quotas.set_quotas(quotas_of_type(ctx.client_quotas.quotas, REQUEST_PERCENTAGE))
        ctx.controller_mutation_quotas.set_quotas(
            quotas_of_type(ctx.client_quotas.quotas, CONTROLLER_MUTATION_RATE)
        )
    if request.topic_configs:
        ctx.replica_manager.update_topic_configs(
            {
                entry.topic_name: ctx.metadata_cache.topic_configs(entry.topic_name)
                for entry in request.topic_configs
            }
        )
    return UpdateMetadataResponse(error_code=Errors.NONE)
