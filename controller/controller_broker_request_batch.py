"""ControllerBrokerRequestBatch: collects which brokers must hear about which
partitions, then builds and sends one LeaderAndIsr, one UpdateMetadata and one
StopReplica per broker.

Owns: the per-broker sets of partitions for LeaderAndIsr, UpdateMetadata and
StopReplica, and the construction of those requests from ``ControllerContext`` at send
time (controller id and epoch, leader, leader epoch, ISR, partition epoch, replicas,
offline replicas, live leaders, live brokers, topic configs, topics queued for
deletion), and the per-partition StopReplica callbacks.  Does not own delivery or
retries (``ControllerChannelManager``) nor the decision of what changed (the
controller).

Topics queued for deletion (an older controller's ``TopicDeletionRecord``) are never sent
in LeaderAndIsr (a broker would recreate them) nor as UpdateMetadata partition states;
every UpdateMetadata lists them in ``deleted_topics`` so brokers stop serving them, and
the UpdateMetadata that follows a ``RemoveTopicRecord`` lists the removed topics there too.
LeaderAndIsr carries each partition's topic id (a broker keeps it in the log's
``partition.metadata`` and never mixes the logs of two topics of the same name).  ``topic_configs`` carries
the whole override set of every topic whose partitions the UpdateMetadata names (all topics in a
full one); ``group_configs`` the whole override set of every group named by
``add_update_metadata_request_for_brokers`` (every group with overrides in a full one), which a
broker's group coordinator applies (KIP-848's group configs); ``acls`` the ACLs named by
``add_update_metadata_request_for_brokers`` that exist at send time (every ACL in a full one) and
``deleted_acl_ids`` those that no longer do.

Kafka concept: ``ControllerBrokerRequestBatch`` (``addLeaderAndIsrRequestForBrokers``,
``addUpdateMetadataRequestForBrokers``, ``addStopReplicaRequestForBrokers``,
``sendRequestsToBrokers``).  Per broker the LeaderAndIsr is queued before the
UpdateMetadata and that before the StopReplica, as in Kafka.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from kafkette.common.client_quota_entity import ClientQuotaEntity
from kafkette.controller.controller_context import BrokerRegistration, ControllerContext
from kafkette.protocol.apis.client_quotas import (
    ClientQuotaEntityData,
    ClientQuotaValueData,
    DescribeClientQuotasEntry,
)
from kafkette.protocol.apis.configs import TopicConfigOverride
from kafkette.protocol.apis.leader_and_isr import (
    LeaderAndIsrLiveLeader,
    LeaderAndIsrPartitionState,
    LeaderAndIsrRequest,
)
from kafkette.protocol.apis.stop_replica import (
    StopReplicaPartitionState,
    StopReplicaRequest,
    StopReplicaResponse,
    StopReplicaTopicState,
)
from kafkette.protocol.apis.update_metadata import (
    UpdateMetadataAcl,
    UpdateMetadataBroker,
    UpdateMetadataEndpoint,
    UpdateMetadataGroupConfigs,
    UpdateMetadataPartitionState,
    UpdateMetadataRequest,
    UpdateMetadataScramCredential,
    UpdateMetadataScramCredentials,
    UpdateMetadataTopicConfigs,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.schema import Struct
from kafkette.protocol.topic_partition import TopicPartition

StopReplicaCallback = Callable[[int, TopicPartition, int], None]
"""``callback(broker_id, topic_partition, error_code)`` once per partition of a StopReplica:
the broker's per-partition error, or the request's error (UNKNOWN_SERVER_ERROR when the
request failed to be delivered, e.g. the broker was fenced first)."""

EPOCH_DURING_DELETE = -2  # Kafka's LeaderAndIsr.EpochDuringDelete: the StopReplica of a removed topic
LEADER_AND_ISR_TYPE_INCREMENTAL = 1
LEADER_AND_ISR_TYPE_FULL = 2


def _update_metadata_broker(reg: BrokerRegistration) -> UpdateMetadataBroker:
    """A registered broker as UpdateMetadata publishes it: its kafkette address, rack and listeners."""
    return UpdateMetadataBroker(
        id=reg.broker_id,
        host=reg.host,
        port=reg.port,
        rack=reg.rack,
        endpoints=[
            UpdateMetadataEndpoint(listener=name, host=host, port=port) for name, host, port in reg.endpoints
        ],
    )


class ChannelManager(Protocol):
    """What the batch needs from ``ControllerChannelManager`` (tests pass a fake)."""

    def send(self, broker_id: int, request: Struct) -> asyncio.Future[Any]: ...


class ControllerBrokerRequestBatch:
    """One round of controller-to-broker requests.

    Args:
        context: read at ``send_requests_to_brokers`` time for partition and broker state.
        controller_id: this controller's node id.
        channel: where requests are queued.
    """

    def __init__(self, context: ControllerContext, controller_id: int, channel: ChannelManager) -> None:
        self._context = context
        self._controller_id = controller_id
        self._channel = channel
        self._leader_and_isr: dict[int, dict[TopicPartition, bool]] = {}  # broker -> {tp: is_new}
        self._leader_and_isr_full: set[int] = set()
        self._update_metadata: dict[int, set[TopicPartition]] = {}
        self._update_metadata_full: set[int] = set()
        self._removed_topics: dict[int, set[str]] = {}  # broker -> topics removed, for deleted_topics
        self._groups: dict[int, set[str]] = {}  # broker -> groups whose config overrides changed
        self._scram_users: dict[int, set[str]] = {}  # broker -> users whose SCRAM credentials changed
        self._quota_entities: dict[
            int, set[ClientQuotaEntity]
        ] = {}  # broker -> entities whose quotas changed
        self._acl_ids: dict[int, set[str]] = {}  # broker -> ids of the ACLs created or deleted
        # broker -> {tp: (delete_partition, callback)}
        self._stop_replica: dict[int, dict[TopicPartition, tuple[bool, StopReplicaCallback | None]]] = {}

    def add_leader_and_isr_request_for_brokers(
        self,
        broker_ids: Iterable[int],
        partitions: Iterable[TopicPartition],
        *,
        is_new: bool = False,
        full: bool = False,
    ) -> None:
        """Tell ``broker_ids`` the leader and ISR of ``partitions`` (each broker only about
        partitions it hosts).

        Args:
            is_new: the partitions were just created (brokers create their logs).
            full: the request lists every partition the broker hosts (type FULL).
        """
        partitions = [tp for tp in partitions if not self._context.is_topic_queued_up_for_deletion(tp.topic)]
        for broker_id in broker_ids:
            entries = self._leader_and_isr.setdefault(broker_id, {})
            for tp in partitions:
                if broker_id in self._context.partitions[tp].replicas:
                    entries[tp] = entries.get(tp, False) or is_new
            if full:
                self._leader_and_isr_full.add(broker_id)

    def add_update_metadata_request_for_brokers(
        self,
        broker_ids: Iterable[int],
        partitions: Iterable[TopicPartition] = (),
        *,
        full: bool = False,
        removed_topics: Iterable[str] = (),
        groups: Iterable[str] = (),
        scram_users: Iterable[str] = (),
        quota_entities: Iterable[ClientQuotaEntity] = (),
        acl_ids: Iterable[str] = (),
    ) -> None:
        """Send ``broker_ids`` the state of ``partitions`` plus the live broker list.

        Args:
            full: the request carries every partition (the broker replaces its cache).
            removed_topics: topics just removed (``RemoveTopicRecord``), named in ``deleted_topics``.
            groups: groups whose config overrides changed, sent in ``group_configs``.
            scram_users: users whose SCRAM credentials changed, sent in ``scram_credentials``.
            quota_entities: client quota entities whose quotas changed, sent in ``client_quotas``.
            acl_ids: ids of ACLs created (sent in ``acls``) or deleted (in ``deleted_acl_ids``).
        """
        partitions = list(partitions)
        removed = list(removed_topics)
        group_ids = list(groups)
        users = list(scram_users)
        entities = list(quota_entities)
        acls = list(acl_ids)
        for broker_id in broker_ids:
            self._update_metadata.setdefault(broker_id, set()).update(partitions)
            self._removed_topics.setdefault(broker_id, set()).update(removed)
            self._groups.setdefault(broker_id, set()).update(group_ids)
            self._scram_users.setdefault(broker_id, set()).update(users)
            self._quota_entities.setdefault(broker_id, set()).update(entities)
            self._acl_ids.setdefault(broker_id, set()).update(acls)
            if full:
                self._update_metadata_full.add(broker_id)

    def add_stop_replica_request_for_brokers(
        self,
        broker_ids: Iterable[int],
        tp: TopicPartition,
        *,
        delete_partition: bool,
        callback: StopReplicaCallback | None = None,
    ) -> None:
        """Tell ``broker_ids`` to stop their replica of ``tp`` (and delete its log when
        ``delete_partition``); ``callback`` gets each broker's per-partition outcome."""
        for broker_id in broker_ids:
            self._stop_replica.setdefault(broker_id, {})[tp] = (delete_partition, callback)

    def send_requests_to_brokers(self) -> dict[TopicPartition, list[asyncio.Future[Any]]]:
        """Build and queue the requests; the batch is empty afterwards.

        Returns:
            For each partition named in any request, the futures of the requests that
            carry it (each completes with the broker's response, or fails if the broker's
            channel is removed first).
        """
        futures: dict[TopicPartition, list[asyncio.Future[Any]]] = {}
        for broker_id in sorted(self._leader_and_isr):
            partitions = sorted(self._leader_and_isr[broker_id])
            if not partitions:
                continue
            request = self._leader_and_isr_request(broker_id, self._leader_and_isr[broker_id])
            future = self._channel.send(broker_id, request)
            for tp in partitions:
                futures.setdefault(tp, []).append(future)
        for broker_id in sorted(self._update_metadata):
            full = broker_id in self._update_metadata_full
            partitions = (
                sorted(self._context.partitions) if full else sorted(self._update_metadata[broker_id])
            )
            partitions = [
                tp for tp in partitions if not self._context.is_topic_queued_up_for_deletion(tp.topic)
            ]
            request = self._update_metadata_request(
                broker_id,
                partitions,
                full,
                self._removed_topics.get(broker_id, set()),
                self._groups.get(broker_id, set()),
                self._scram_users.get(broker_id, set()),
                self._quota_entities.get(broker_id, set()),
                self._acl_ids.get(broker_id, set()),
            )
            future = self._channel.send(broker_id, request)
            for tp in partitions:
                futures.setdefault(tp, []).append(future)
        for broker_id in sorted(self._stop_replica):
            entries = self._stop_replica[broker_id]
            future = self._channel.send(broker_id, self._stop_replica_request(broker_id, entries))
            callbacks = {tp: cb for tp, (_, cb) in entries.items() if cb is not None}
            if callbacks:
                future.add_done_callback(_stop_replica_done(broker_id, callbacks))
            for tp in entries:
                futures.setdefault(tp, []).append(future)
        self._stop_replica.clear()
        self._leader_and_isr.clear()
        self._leader_and_isr_full.clear()
        self._update_metadata.clear()
        self._update_metadata_full.clear()
        self._removed_topics.clear()
        self._groups.clear()
        self._scram_users.clear()
        self._quota_entities.clear()
        self._acl_ids.clear()
        return futures

    def _broker_epoch(self, broker_id: int) -> int:
        reg = self._context.brokers.get(broker_id)
        return reg.broker_epoch if reg is not None else -1

    def _leader_and_isr_request(
        self, broker_id: int, entries: dict[TopicPartition, bool]
    ) -> LeaderAndIsrRequest:
        ctx = self._context
        states = []
        leaders: set[int] = set()
        for tp in sorted(entries):
            part = ctx.partitions[tp]
            configs = ctx.topic_configs(tp.topic)
            states.append(
                LeaderAndIsrPartitionState(
                    topic_name=tp.topic,
                    partition_index=tp.partition,
                    controller_epoch=ctx.controller_epoch,
                    leader=part.leader,
                    leader_epoch=part.leader_epoch,
                    isr=list(part.isr),
                    partition_epoch=part.partition_epoch,
                    replicas=list(part.replicas),
                    is_new=entries[tp],
                    configs=[TopicConfigOverride(name=k, value=v) for k, v in configs.items()],
                    topic_id=ctx.topics[tp.topic].topic_id,
                )
            )
            if part.leader >= 0:
                leaders.add(part.leader)
        live_leaders = [
            LeaderAndIsrLiveLeader(broker_id=b, host_name=ctx.brokers[b].host, port=ctx.brokers[b].port)
            for b in sorted(leaders)
            if b in ctx.brokers
        ]
        return LeaderAndIsrRequest(
            controller_id=self._controller_id,
            controller_epoch=ctx.controller_epoch,
            broker_epoch=self._broker_epoch(broker_id),
            type=LEADER_AND_ISR_TYPE_FULL
            if broker_id in self._leader_and_isr_full
            else LEADER_AND_ISR_TYPE_INCREMENTAL,
            partition_states=states,
            live_leaders=live_leaders,
        )

    def _update_metadata_request(
        self,
        broker_id: int,
        partitions: list[TopicPartition],
        full: bool,
        removed_topics: set[str],
        groups: set[str],
        scram_users: set[str],
        quota_entities: set[ClientQuotaEntity],
        acl_ids: set[str],
    ) -> UpdateMetadataRequest:
        ctx = self._context
        states = []
        for tp in partitions:
            part = ctx.partitions[tp]
            states.append(
                UpdateMetadataPartitionState(
                    topic_name=tp.topic,
                    partition_index=tp.partition,
                    controller_epoch=ctx.controller_epoch,
                    leader=part.leader,
                    leader_epoch=part.leader_epoch,
                    isr=list(part.isr),
                    partition_epoch=part.partition_epoch,
                    replicas=list(part.replicas),
                    offline_replicas=ctx.offline_replicas(tp),
                )
            )
        topics = (
            sorted(t for t in ctx.topics if not ctx.is_topic_queued_up_for_deletion(t))
            if full
            else sorted({tp.topic for tp in partitions})
        )
        topic_configs = [
            UpdateMetadataTopicConfigs(
                topic_name=t,
                configs=[
                    TopicConfigOverride(name=k, value=v) for k, v in sorted(ctx.topic_configs(t).items())
                ],
                topic_id=ctx.topics[t].topic_id if t in ctx.topics else "",
            )
            for t in topics
        ]
        return UpdateMetadataRequest(
            controller_id=self._controller_id,
            controller_epoch=ctx.controller_epoch,
            broker_epoch=self._broker_epoch(broker_id),
            full=full,
            partition_states=states,
            live_brokers=[_update_metadata_broker(reg) for reg in ctx.live_brokers()],
            fenced_brokers=[_update_metadata_broker(reg) for reg in ctx.fenced_brokers()],
            deleted_topics=sorted(ctx.topics_to_be_deleted | removed_topics),
            topic_configs=topic_configs,
            metadata_offset=ctx.metadata_offset,
            group_configs=[
                UpdateMetadataGroupConfigs(
                    group_id=g,
                    configs=[
                        TopicConfigOverride(name=k, value=v)
                        for k, v in sorted(ctx.group_config_overrides(g).items())
                    ],
                )
                for g in sorted(ctx.group_configs if full else groups)
            ],
            scram_credentials=[
                UpdateMetadataScramCredentials(
                    user=user,
                    credentials=[
                        UpdateMetadataScramCredential(
                            mechanism=r.mechanism,
                            salt=r.salt,
                            stored_key=r.stored_key,
                            server_key=r.server_key,
                            iterations=r.iterations,
                        )
                        for _, r in sorted(ctx.scram_credentials.get(user, {}).items())
                    ],
                )
                for user in sorted(ctx.scram_credentials if full else scram_users)
            ],
            client_quotas=[
                DescribeClientQuotasEntry(
                    entity=[ClientQuotaEntityData(entity_type=t, entity_name=n) for t, n in entity],
                    values=[
                        ClientQuotaValueData(key=k, value=v)
                        for k, v in sorted(ctx.client_quotas.get(entity, {}).items())
                    ],
                )
                for entity in sorted(ctx.client_quotas if full else quota_entities, key=repr)
            ],
            acls=[
                UpdateMetadataAcl(
                    id=r.id,
                    resource_type=r.resource_type,
                    resource_name=r.resource_name,
                    pattern_type=r.pattern_type,
                    principal=r.principal,
                    host=r.host,
                    operation=r.operation,
                    permission_type=r.permission_type,
                )
                for r in (ctx.acls[i] for i in sorted(ctx.acls if full else acl_ids & ctx.acls.keys()))
            ],
            deleted_acl_ids=[] if full else sorted(acl_ids - ctx.acls.keys()),
        )

    def _stop_replica_request(
        self, broker_id: int, entries: dict[TopicPartition, tuple[bool, StopReplicaCallback | None]]
    ) -> StopReplicaRequest:
        by_topic: dict[str, list[StopReplicaPartitionState]] = {}
        for tp in sorted(entries):
            part = self._context.partitions.get(tp)
            by_topic.setdefault(tp.topic, []).append(
                StopReplicaPartitionState(
                    partition_index=tp.partition,
                    leader_epoch=part.leader_epoch if part is not None else EPOCH_DURING_DELETE,
                    delete_partition=entries[tp][0],
                )
            )
        return StopReplicaRequest(
            controller_id=self._controller_id,
            controller_epoch=self._context.controller_epoch,
            broker_epoch=self._broker_epoch(broker_id),
            topic_states=[
                StopReplicaTopicState(topic_name=t, partition_states=p) for t, p in by_topic.items()
            ],
        )


def _stop_replica_done(
    broker_id: int, callbacks: dict[TopicPartition, StopReplicaCallback]
) -> Callable[[asyncio.Future[Any]], None]:
    """Done-callback of a StopReplica future: one callback per partition with its error code."""

    def done(future: asyncio.Future[Any]) -> None:
        errors: dict[TopicPartition, int] = {}
        if future.cancelled() or future.exception() is not None:
            default = int(Errors.UNKNOWN_SERVER_ERROR)
        else:
            response: StopReplicaResponse = future.result()
            default = response.error_code
            for entry in response.partition_errors or []:
                errors[TopicPartition(entry.topic_name, entry.partition_index)] = entry.error_code
        for tp, callback in callbacks.items():
            callback(broker_id, tp, errors.get(tp, default) if default == 0 else default)

    return done
