"""ControllerContext: the controller's in-memory view, built only by replaying records.

Owns: broker registrations (epoch, incarnation, address, rack, fenced flag, last
heartbeat time), topics (id, config overrides), partitions (replicas, ISR, leader,
leader epoch, partition epoch), the controller epoch, and the partition and replica
state machines, which it moves as records are replayed (creation New -> Online,
leader loss Online -> Offline, election Offline -> Online, broker fenced/unfenced
replicas Offline/Online, replicas whose log went offline on a live broker Offline and
back Online when the broker no longer reports them), group configs, client quotas, SCRAM
credentials and ACLs by id.  Also answers derived queries (live brokers, partitions
led by or hosted on a broker).  Does not decide anything and does no I/O: managers read
it to produce records; ``replay`` is the only mutator besides heartbeat times (which,
as in Kafka's BrokerHeartbeatManager, are not persisted).

Kafka concept: ``ControllerContext`` (ZK controller) merged with the replay side of
KRaft's ``ClusterControlManager`` / ``ReplicationControlManager``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from kafkette.common.client_quota_entity import ClientQuotaEntity, quota_entity
from kafkette.controller.metadata_records import (
    AccessControlEntryRecord,
    ClientQuotaRecord,
    ConfigRecord,
    ControllerEpochRecord,
    FenceBrokerRecord,
    MetadataRecord,
    PartitionChangeRecord,
    PartitionRecord,
    ProducerIdsRecord,
    RegisterBrokerRecord,
    RemoveAccessControlEntryRecord,
    RemoveTopicRecord,
    RemoveUserScramCredentialRecord,
    TopicDeletionRecord,
    TopicRecord,
    UnfenceBrokerRecord,
    UserScramCredentialRecord,
)
from kafkette.controller.partition_state_machine import PartitionState, PartitionStateMachine
from kafkette.controller.replica_state_machine import PartitionAndReplica, ReplicaState, ReplicaStateMachine
from kafkette.protocol.topic_partition import TopicPartition

Transition = tuple[str, object, object]  # ("partition" | "replica", key, target state)


@dataclass
class BrokerRegistration:
    """A registered broker.  ``fenced`` brokers are not live: they lead nothing and get no requests."""

    broker_id: int
    broker_epoch: int
    incarnation_id: str
    host: str
    port: int
    rack: str | None
    fenced: bool = True
    last_heartbeat_ms: int = 0
    endpoints: list[list[Any]] = field(default_factory=list)  # [[listener name, host, port]]


@dataclass
class TopicInfo:
    """A topic: its id, partition count and config overrides (``{name: value}``)."""

    name: str
    topic_id: str
    configs: dict[str, str] = field(default_factory=dict)
    num_partitions: int = 0


@dataclass
class PartitionRegistration:
    """Leader and ISR state of one partition (leader -1 = none).

    ``offline_replicas``: replicas whose log is offline on their broker (reported by its
    heartbeats); they lead nothing and join no ISR until the broker stops reporting them.
    """

    replicas: list[int]
    isr: list[int]
    leader: int
    leader_epoch: int
    partition_epoch: int
    offline_replicas: list[int] = field(default_factory=list)

    def leader_change(self, tp: TopicPartition, leader: int, isr: list[int]) -> PartitionChangeRecord:
        """The record giving this partition ``leader`` and ``isr`` at the next leader and partition epochs.

        Kafka concept: a leader election's ``PartitionChangeRecord`` (KRaft's
        ``PartitionChangeBuilder``: a new leadership bumps the leader epoch).  Changes nothing
        here: the context moves when the record is replayed.

        Args:
            tp: this partition's topic-partition.
            leader: the new leader's broker id (may be the current one, still bumped).
            isr: the new ISR (broker ids).

        Returns:
            The record, ``leader_epoch`` and ``partition_epoch`` each one above this registration's.
        """
        return PartitionChangeRecord(
            topic=tp.topic,
            partition=tp.partition,
            leader=leader,
            isr=isr,
            leader_epoch=self.leader_epoch + 1,
            partition_epoch=self.partition_epoch + 1,
        )


class ControllerContext:
    """Everything the active controller knows; changed only by ``replay``.

    Args:
        clock_ms: monotonic clock in ms (heartbeat times of replayed registrations).
        log_prefix: callable returning ``[Controller id=N epoch=E]`` for state-change logs.
    """

    def __init__(self, clock_ms: Callable[[], int], log_prefix: Callable[[], str] = lambda: "") -> None:
        self.clock_ms = clock_ms
        self.brokers: dict[int, BrokerRegistration] = {}
        self.next_producer_id = 0
        self.topics: dict[str, TopicInfo] = {}
        self.partitions: dict[TopicPartition, PartitionRegistration] = {}
        self.controller_epoch = 0
        self.metadata_offset = -1  # the last metadata log offset applied (set by the controller)
        self.topics_to_be_deleted: set[str] = set()
        self.group_configs: dict[str, dict[str, str]] = {}  # group id -> its group config overrides
        # user -> {mechanism type byte: its UserScramCredentialRecord} (KIP-554)
        self.scram_credentials: dict[str, dict[int, UserScramCredentialRecord]] = {}
        # client quota entity -> {quota key: value} (KIP-546)
        self.client_quotas: dict[ClientQuotaEntity, dict[str, float]] = {}
        # ACL id -> its AccessControlEntryRecord (KIP-801: Kafka's AclControlManager.idToAcl)
        self.acls: dict[str, AccessControlEntryRecord] = {}
        self.partition_state_machine = PartitionStateMachine(log_prefix)
        self.replica_state_machine = ReplicaStateMachine(log_prefix)

    # ----------------------------------------------------------------- queries

    def is_live(self, broker_id: int) -> bool:
        """True when ``broker_id`` is registered and unfenced."""
        reg = self.brokers.get(broker_id)
        return reg is not None and not reg.fenced

    def live_broker_ids(self) -> list[int]:
        """Sorted ids of registered, unfenced brokers."""
        return sorted(b for b, reg in self.brokers.items() if not reg.fenced)

    def live_brokers(self) -> list[BrokerRegistration]:
        """Registrations of live brokers, sorted by id."""
        return [self.brokers[b] for b in self.live_broker_ids()]

    def fenced_brokers(self) -> list[BrokerRegistration]:
        """Registrations of fenced brokers, sorted by id."""
        return [reg for _, reg in sorted(self.brokers.items()) if reg.fenced]

    def live_broker_racks(self) -> dict[int, str | None]:
        """``{broker id: broker.rack or None}`` of live brokers (for rack-aware assignment)."""
        return {reg.broker_id: reg.rack for reg in self.live_brokers()}

    def partitions_led_by(self, broker_id: int) -> list[TopicPartition]:
        """Partitions whose current leader is ``broker_id``, sorted."""
        return sorted(tp for tp, p in self.partitions.items() if p.leader == broker_id)

    def partitions_on_broker(self, broker_id: int) -> list[TopicPartition]:
        """Partitions with a replica on ``broker_id``, sorted."""
        return sorted(tp for tp, p in self.partitions.items() if broker_id in p.replicas)

    def partitions_of_topic(self, topic: str) -> list[TopicPartition]:
        """Partitions of ``topic`` in partition order."""
        info = self.topics.get(topic)
        return [] if info is None else [TopicPartition(topic, i) for i in range(info.num_partitions)]

    def topic_configs(self, topic: str) -> dict[str, str]:
        """Config overrides of ``topic`` (empty if none or unknown)."""
        info = self.topics.get(topic)
        return dict(info.configs) if info is not None else {}

    def group_config_overrides(self, group_id: str) -> dict[str, str]:
        """Group config overrides of ``group_id`` (empty if none): KIP-848's group configs."""
        return dict(self.group_configs.get(group_id, {}))

    def is_topic_queued_up_for_deletion(self, topic: str) -> bool:
        """True while ``topic`` is queued for deletion (a ``TopicDeletionRecord`` without
        its ``RemoveTopicRecord``)."""
        return topic in self.topics_to_be_deleted

    def replicas_of_topic(self, topic: str) -> list[PartitionAndReplica]:
        """Every replica of ``topic``, in partition then assignment order."""
        return [
            PartitionAndReplica(tp, r)
            for tp in self.partitions_of_topic(topic)
            for r in self.partitions[tp].replicas
        ]

    def transition_replicas(self, replicas: Iterable[PartitionAndReplica], target: ReplicaState) -> None:
        """Move replicas of a topic queued for deletion through the deletion states.

        Topic deletion progress (ReplicaDeletionStarted / Successful / Ineligible) is
        controller memory, not metadata records: as in Kafka, a restarted controller
        starts the deletion of the queued topics again.

        Raises:
            IllegalStateTransitionError: an illegal transition (logged; nothing is applied
                for that replica or the ones after it).
        """
        for replica in replicas:
            self.replica_state_machine.transition(replica, target)

    def offline_replicas(self, tp: TopicPartition) -> list[int]:
        """Replicas of ``tp`` whose broker is not live or whose log is offline there."""
        part = self.partitions[tp]
        return [r for r in part.replicas if not self.is_live(r) or r in part.offline_replicas]

    def is_replica_online(self, broker_id: int, tp: TopicPartition) -> bool:
        """True when ``broker_id`` is live and its replica of ``tp`` is not offline (may lead
        or join the ISR).  Kafka concept: ``ControllerContext.isReplicaOnline``."""
        part = self.partitions.get(tp)
        return self.is_live(broker_id) and (part is None or broker_id not in part.offline_replicas)

    def offline_replicas_on_broker(self, broker_id: int) -> set[TopicPartition]:
        """Partitions whose replica on ``broker_id`` is marked offline (its log went offline)."""
        return {tp for tp, p in self.partitions.items() if broker_id in p.offline_replicas}

    # ------------------------------------------------------------------ replay

    def check_records(self, records: Iterable[MetadataRecord]) -> None:
        """Dry-run the state-machine transitions ``records`` would cause.

        Called before records are written so that replaying them cannot fail.

        Raises:
            IllegalStateTransitionError: a record would cause an illegal transition.
        """
        transitions = [t for record in records for t in self._transitions(record)]
        self.partition_state_machine.check_transitions((k, s) for m, k, s in transitions if m == "partition")  # type: ignore[misc]
        self.replica_state_machine.check_transitions((k, s) for m, k, s in transitions if m == "replica")  # type: ignore[misc]

    def replay(self, record: MetadataRecord) -> None:
        """Apply one record (and the state transitions it implies).

        Raises:
            IllegalStateTransitionError: the record implies an illegal transition.
            ValueError: the record refers to an unknown broker, topic or partition.
        """
        transitions = list(self._transitions(record))
        if isinstance(record, RegisterBrokerRecord):
            self.brokers[record.broker_id] = BrokerRegistration(
                record.broker_id,
                record.broker_epoch,
                record.incarnation_id,
                record.host,
                record.port,
                record.rack,
                fenced=True,
                last_heartbeat_ms=self.clock_ms(),
                endpoints=list(record.endpoints),
            )
        elif isinstance(record, (FenceBrokerRecord, UnfenceBrokerRecord)):
            reg = self._broker(record.broker_id)
            reg.fenced = isinstance(record, FenceBrokerRecord)
        elif isinstance(record, TopicRecord):
            self.topics[record.name] = TopicInfo(record.name, record.topic_id)
        elif isinstance(record, TopicDeletionRecord):
            self._topic(record.name)
            self.topics_to_be_deleted.add(record.name)
        elif isinstance(record, RemoveTopicRecord):
            for tp in self.partitions_of_topic(record.name):
                self.partitions.pop(tp, None)
            self._topic(record.name)
            del self.topics[record.name]
            self.topics_to_be_deleted.discard(record.name)
        elif isinstance(record, ConfigRecord):
            if record.resource_type == "topic":
                configs = self._topic(record.resource_name).configs
                if record.value is None:
                    configs.pop(record.name, None)
                else:
                    configs[record.name] = record.value
            elif record.resource_type == "group":
                configs = self.group_configs.setdefault(record.resource_name, {})
                if record.value is None:
                    configs.pop(record.name, None)
                else:
                    configs[record.name] = record.value
                if not configs:
                    del self.group_configs[record.resource_name]
        elif isinstance(record, PartitionRecord):
            info = self._topic(record.topic)
            info.num_partitions = max(info.num_partitions, record.partition + 1)
            self.partitions[record.topic_partition] = PartitionRegistration(
                list(record.replicas),
                list(record.isr),
                record.leader,
                record.leader_epoch,
                record.partition_epoch,
            )
        elif isinstance(record, PartitionChangeRecord):
            part = self._partition(record.topic_partition)
            part.leader, part.isr = record.leader, list(record.isr)
            part.leader_epoch, part.partition_epoch = record.leader_epoch, record.partition_epoch
            if record.offline_replicas is not None:
                part.offline_replicas = sorted(record.offline_replicas)
        elif isinstance(record, ControllerEpochRecord):
            self.controller_epoch = record.epoch
        elif isinstance(record, ClientQuotaRecord):
            entity = quota_entity((pair[0], pair[1]) for pair in record.entity)
            quotas = self.client_quotas.setdefault(entity, {})
            if record.remove:
                quotas.pop(record.key, None)
            else:
                quotas[record.key] = record.value
            if not quotas:
                del self.client_quotas[entity]
        elif isinstance(record, UserScramCredentialRecord):
            self.scram_credentials.setdefault(record.name, {})[record.mechanism] = record
        elif isinstance(record, RemoveUserScramCredentialRecord):
            mechanisms = self.scram_credentials.get(record.name, {})
            if mechanisms.pop(record.mechanism, None) is None:
                raise ValueError(
                    f"Unable to find credential to delete: {record.name} mechanism {record.mechanism}"
                )
            if not mechanisms:
                del self.scram_credentials[record.name]
        elif isinstance(record, AccessControlEntryRecord):
            if record.id in self.acls:
                raise ValueError(f"Unable to replay {record}: an acl with that ID already exists.")
            self.acls[record.id] = record
        elif isinstance(record, RemoveAccessControlEntryRecord):
            if self.acls.pop(record.id, None) is None:
                raise ValueError(f"Unable to replay {record}: no acl with that ID found.")
        elif isinstance(record, ProducerIdsRecord):
            self.next_producer_id = record.next_producer_id
        for machine, key, target in transitions:
            if machine == "partition":
                self.partition_state_machine.transition(key, target)  # type: ignore[arg-type]
            else:
                self.replica_state_machine.transition(key, target)  # type: ignore[arg-type]

    def _transitions(self, record: MetadataRecord) -> Iterator[Transition]:
        """State transitions implied by ``record`` given the current (pre-record) state."""
        if isinstance(record, PartitionRecord):
            tp = record.topic_partition
            yield "partition", tp, PartitionState.NewPartition
            for r in record.replicas:
                yield "replica", PartitionAndReplica(tp, r), ReplicaState.NewReplica
            leader_state = (
                PartitionState.OnlinePartition if record.leader >= 0 else PartitionState.OfflinePartition
            )
            yield "partition", tp, leader_state
            for r in record.replicas:
                live = self.is_live(r)
                yield (
                    "replica",
                    PartitionAndReplica(tp, r),
                    ReplicaState.OnlineReplica if live else ReplicaState.OfflineReplica,
                )
        elif isinstance(record, PartitionChangeRecord):
            target = PartitionState.OnlinePartition if record.leader >= 0 else PartitionState.OfflinePartition
            yield "partition", record.topic_partition, target
            part = self.partitions.get(record.topic_partition)
            if record.offline_replicas is not None and part is not None:
                for r in sorted(set(record.offline_replicas) - set(part.offline_replicas)):
                    yield (
                        "replica",
                        PartitionAndReplica(record.topic_partition, r),
                        ReplicaState.OfflineReplica,
                    )
                for r in sorted(set(part.offline_replicas) - set(record.offline_replicas)):
                    if self.is_live(r):  # its log is back; a fenced broker's replica stays offline
                        yield (
                            "replica",
                            PartitionAndReplica(record.topic_partition, r),
                            ReplicaState.OnlineReplica,
                        )
        elif isinstance(record, FenceBrokerRecord):
            for tp in self.partitions_led_by(record.broker_id):
                yield "partition", tp, PartitionState.OfflinePartition
            for tp in self.partitions_on_broker(record.broker_id):
                replica = PartitionAndReplica(tp, record.broker_id)
                if not self.is_topic_queued_up_for_deletion(tp.topic):
                    yield "replica", replica, ReplicaState.OfflineReplica
                    continue
                # Kafka's onReplicasBecomeOffline: a replica being deleted becomes ineligible.
                current = self.replica_state_machine.state(replica)
                if current == ReplicaState.ReplicaDeletionStarted:
                    yield "replica", replica, ReplicaState.ReplicaDeletionIneligible
                elif current in (ReplicaState.NewReplica, ReplicaState.OnlineReplica):
                    yield "replica", replica, ReplicaState.OfflineReplica
        elif isinstance(record, UnfenceBrokerRecord):
            for tp in self.partitions_on_broker(record.broker_id):
                if self.is_topic_queued_up_for_deletion(tp.topic):  # deletion resumes instead
                    continue
                if (
                    record.broker_id not in self.partitions[tp].offline_replicas
                ):  # an offline log stays offline
                    yield "replica", PartitionAndReplica(tp, record.broker_id), ReplicaState.OnlineReplica
        elif isinstance(record, RemoveTopicRecord):
            for tp in self.partitions_of_topic(record.name):
                for r in self.partitions[tp].replicas:
                    replica = PartitionAndReplica(tp, r)
                    for target in _replica_deletion_path(self.replica_state_machine.state(replica)):
                        yield "replica", replica, target
                if self.partition_state_machine.state(tp) != PartitionState.NonExistentPartition:
                    yield "partition", tp, PartitionState.OfflinePartition
                    yield "partition", tp, PartitionState.NonExistentPartition

    def _broker(self, broker_id: int) -> BrokerRegistration:
        reg = self.brokers.get(broker_id)
        if reg is None:
            raise ValueError(f"record refers to unregistered broker {broker_id}")
        return reg

    def _topic(self, name: str) -> TopicInfo:
        info = self.topics.get(name)
        if info is None:
            raise ValueError(f"record refers to unknown topic {name!r}")
        return info

    def _partition(self, tp: TopicPartition) -> PartitionRegistration:
        part = self.partitions.get(tp)
        if part is None:
            raise ValueError(f"record refers to unknown partition {tp}")
        return part


_DELETION_PATH = (
    ReplicaState.OfflineReplica,
    ReplicaState.ReplicaDeletionStarted,
    ReplicaState.ReplicaDeletionSuccessful,
    ReplicaState.NonExistentReplica,
)


def _replica_deletion_path(current: ReplicaState) -> tuple[ReplicaState, ...]:
    """Legal states from ``current`` to NonExistentReplica along Kafka's deletion path.

    Normally the replica is already ReplicaDeletionSuccessful (one step).  When a
    ``RemoveTopicRecord`` is replayed from the log at start-up, the in-memory deletion
    progress is gone and the replica walks the whole path, each step checked.
    """
    if current == ReplicaState.NonExistentReplica:
        return ()
    if current in _DELETION_PATH:
        return _DELETION_PATH[_DELETION_PATH.index(current) + 1 :]
    return _DELETION_PATH  # New, Online or ReplicaDeletionIneligible: via OfflineReplica
