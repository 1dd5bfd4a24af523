"""UpdateMetadata's topic configs and deleted topics on the broker: the MetadataCache keeps
them and local partitions' LogConfig follows at once; its group configs go to the group
coordinator's GroupConfigManager."""

from __future__ import annotations

from types import SimpleNamespace

from broker_fakes import config_overrides
from lifecycle_fakes import (
    TOPIC,
    TP0,
    TP1,
    apis_context,
    leader_and_isr,
    make_batch,
    make_config,
    running_replica_manager,
)

from kafkette.broker.apis import update_metadata as update_metadata_api
from kafkette.broker.client_quota_cache import ClientQuotaCache
from kafkette.broker.client_quota_manager import ClientQuotaManager
from kafkette.broker.client_request_quota_manager import ClientRequestQuotaManager
from kafkette.broker.controller_mutation_quota_manager import ControllerMutationQuotaManager
from kafkette.broker.group.group_config_manager import GroupConfig, GroupConfigManager
from kafkette.broker.metadata_cache import MetadataCache
from kafkette.broker.scram_credential_cache import ScramCredentialCache
from kafkette.protocol.apis.update_metadata import (
    UpdateMetadataGroupConfigs,
    UpdateMetadataPartitionState,
    UpdateMetadataRequest,
    UpdateMetadataTopicConfigs,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

HEADER = RequestHeader(api_key=6, api_version=0, correlation_id=1, client_id="controller")


def update(
    *,
    configs: dict[str, dict[str, str]] | None = None,
    deleted: list[str] | None = None,
    full: bool = False,
    topics: list[str] = (),
    controller_epoch: int = 1,
) -> UpdateMetadataRequest:
    return UpdateMetadataRequest(
        controller_id=1,
        controller_epoch=controller_epoch,
        full=full,
        partition_states=[
            UpdateMetadataPartitionState(
                topic_name=t,
                partition_index=0,
                controller_epoch=controller_epoch,
                leader=1,
                leader_epoch=0,
                isr=[1],
                partition_epoch=0,
                replicas=[1],
            )
            for t in topics
        ],
        deleted_topics=list(deleted or []),
        topic_configs=[
            UpdateMetadataTopicConfigs(topic_name=t, configs=config_overrides(c))
            for t, c in (configs or {}).items()
        ],
    )


async def test_a_topic_config_change_applies_to_the_local_logs_at_once(tmp_path):
    async with running_replica_manager(make_config(tmp_path)) as manager:
        await manager.become_leader_or_follower(leader_and_isr(TP0, TP1))
        ctx = apis_context(manager)

        response = await update_metadata_api.handle(
            ctx,
            HEADER,
            update(topics=[TOPIC], configs={TOPIC: {"min.insync.replicas": "2", "segment.bytes": "1048576"}}),
        )

        assert response.error_code == Errors.NONE
        for tp in (TP0, TP1):
            config = manager.get_partition(tp).log.config
            assert (config.min_insync_replicas, config.segment_bytes) == (2, 1048576)
        assert manager.get_partition(TP0).min_insync_replicas == 1, "capped at the replication factor (1)"
        statuses = await manager.append_records(1000, -1, {TP0: make_batch()})
        assert statuses[TP0].error == Errors.NONE, "Kafka's effectiveMinIsr: an RF 1 partition takes acks=all"
        assert ctx.metadata_cache.topic_configs(TOPIC) == {
            "min.insync.replicas": "2",
            "segment.bytes": "1048576",
        }


async def test_a_config_set_without_a_key_reverts_that_key_to_the_broker_default(tmp_path):
    async with running_replica_manager(make_config(tmp_path, min_insync_replicas=1)) as manager:
        await manager.become_leader_or_follower(leader_and_isr(TP0, configs={"min.insync.replicas": "3"}))
        assert manager.get_partition(TP0).log.config.min_insync_replicas == 3

        await update_metadata_api.handle(apis_context(manager), HEADER, update(configs={TOPIC: {}}))

        assert manager.get_partition(TP0).log.config.min_insync_replicas == 1


async def test_an_invalid_topic_config_set_leaves_the_logs_unchanged(tmp_path):
    async with running_replica_manager(make_config(tmp_path)) as manager:
        await manager.become_leader_or_follower(leader_and_isr(TP0, configs={"retention.ms": "1000"}))

        response = await update_metadata_api.handle(
            apis_context(manager), HEADER, update(configs={TOPIC: {"retention.ms": "not-a-number"}})
        )

        assert response.error_code == Errors.NONE
        assert manager.get_partition(TP0).log.config.retention_ms == 1000


async def test_deleted_topics_leave_the_metadata_cache_with_their_configs(tmp_path):
    async with running_replica_manager(make_config(tmp_path)) as manager:
        ctx = apis_context(manager)
        await update_metadata_api.handle(
            ctx, HEADER, update(topics=[TOPIC, "other"], configs={TOPIC: {"retention.ms": "5"}})
        )
        assert ctx.metadata_cache.contains_topic(TOPIC)

        await update_metadata_api.handle(ctx, HEADER, update(deleted=[TOPIC]))

        assert not ctx.metadata_cache.contains_topic(TOPIC)
        assert ctx.metadata_cache.contains_topic("other")
        assert ctx.metadata_cache.topic_configs(TOPIC) == {}
        entry = ctx.metadata_cache.metadata_response([TOPIC]).topics[0]
        assert entry.error_code == Errors.UNKNOWN_TOPIC_OR_PARTITION


async def test_a_full_update_replaces_every_cached_topic_config(tmp_path):
    async with running_replica_manager(make_config(tmp_path)) as manager:
        ctx = apis_context(manager)
        await update_metadata_api.handle(
            ctx, HEADER, update(configs={TOPIC: {"retention.ms": "5"}, "b": {"flush.ms": "1"}})
        )

        await update_metadata_api.handle(ctx, HEADER, update(full=True, configs={"b": {"flush.ms": "2"}}))

        assert ctx.metadata_cache.topic_configs(TOPIC) == {}
        assert ctx.metadata_cache.topic_configs("b") == {"flush.ms": "2"}


async def test_an_update_from_a_stale_controller_epoch_changes_no_config(tmp_path):
    async with running_replica_manager(make_config(tmp_path)) as manager:
        await manager.become_leader_or_follower(leader_and_isr(TP0))
        ctx = apis_context(manager)
        await update_metadata_api.handle(ctx, HEADER, update(controller_epoch=4))

        response = await update_metadata_api.handle(
            ctx, HEADER, update(controller_epoch=3, configs={TOPIC: {"min.insync.replicas": "2"}})
        )

        assert response.error_code == Errors.STALE_CONTROLLER_EPOCH
        assert manager.get_partition(TP0).log.config.min_insync_replicas == 1


async def test_group_configs_reach_the_group_coordinators_group_config_manager() -> None:
    async def no_stray_replicas(*args: object) -> None:
        return None

    manager = GroupConfigManager({})
    ctx = SimpleNamespace(
        metadata_cache=MetadataCache(1, None),
        replica_manager=SimpleNamespace(broker_id=1, delete_stray_replicas=no_stray_replicas),
        group_coordinator=SimpleNamespace(
            consumer_groups=SimpleNamespace(on_topics_changed=lambda topics: None, group_configs=manager)
        ),
        scram_credentials=ScramCredentialCache(),
        client_quotas=ClientQuotaCache(),
        produce_quotas=ClientQuotaManager("producer_byte_rate"),
        fetch_quotas=ClientQuotaManager("consumer_byte_rate"),
        request_quotas=ClientRequestQuotaManager(),
        controller_mutation_quotas=ControllerMutationQuotaManager(),
        authorizer=None,
    )

    def groups(full: bool, **configs: dict[str, str]) -> UpdateMetadataRequest:
        request = update(full=full)
        request.group_configs = [
            UpdateMetadataGroupConfigs(group_id=g, configs=config_overrides(c)) for g, c in configs.items()
        ]
        return request

    await update_metadata_api.handle(ctx, HEADER, groups(False, a={"consumer.heartbeat.interval.ms": "6000"}))
    await update_metadata_api.handle(ctx, HEADER, groups(False, b={"consumer.session.timeout.ms": "50000"}))
    assert manager.group_config("a") == GroupConfig(consumer_heartbeat_interval_ms=6000)
    await update_metadata_api.handle(ctx, HEADER, groups(True, b={"consumer.session.timeout.ms": "55000"}))
    assert manager.group_ids() == ["b"]  # a full update lists every group with overrides
    assert manager.group_config("b") == GroupConfig(consumer_session_timeout_ms=55000)
