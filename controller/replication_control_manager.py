"""ReplicationControlManager: topics, partitions, leaders and ISRs as records.

Owns: the decisions of CreateTopics (validation per topic, replica assignment,
initial leader/ISR), DeleteTopics (a ``RemoveTopicRecord`` per topic), CreatePartitions (more partitions for a
topic), AlterPartition (ISR changes requested by leaders), and the partition changes caused by a broker
being fenced (re-election from the live ISR, ISR shrink) or unfenced (election of
leaderless partitions), by replicas whose log went offline on a live broker (the same
re-election and ISR shrink for that replica alone; it stays ineligible while reported),
and the election of offline partitions (controller failover,
a topic's unclean.leader.election.enable turned on).  Partitions of topics queued
for deletion are never re-elected.  Each returns records
(and a response) without changing state: the controller writes the records, and the
context changes only when they are replayed.  Does not own request propagation
(``ControllerBrokerRequestBatch``) nor broker liveness rules
(``ClusterControlManager``).

Kafka concept: KRaft's ``ReplicationControlManager`` (``createTopics``, ``deleteTopics``,
``createPartitions``, ``alterPartition``, ``handleBrokerFenced``,
``handleBrokerUnfenced``, ``handleDirectoriesOffline`` of KIP-858),
with the ZK-era leader epoch bump on ISR shrink.
"""

from __future__ import annotations

import dataclasses
import logging
import random
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from kafkette.common.topic_names import (
    CLUSTER_METADATA_TOPIC_NAME,
    has_collision_chars,
    unify_collision_chars,
    validate_topic_name,
)
from kafkette.controller.controller_context import ControllerContext, PartitionRegistration
from kafkette.controller.leader_election import (
    NO_LEADER,
    initial_leader_and_isr,
    offline_partition_leader_election,
    unclean_leader_election_enabled,
)
from kafkette.controller.metadata_records import (
    ConfigRecord,
    ControllerResult,
    MetadataRecord,
    PartitionChangeRecord,
    PartitionRecord,
    RemoveTopicRecord,
    TopicRecord,
)
from kafkette.controller.replica_assignment import assign_replicas_to_brokers
from kafkette.controller.topic_validation import (
    replication_factor_unreachable,
    resolve_num_partitions,
    resolve_replication_factor,
    validate_manual_assignment,
    validate_partition_assignment,
    validate_topic_configs,
)
from kafkette.protocol.apis.alter_partition import (
    AlterPartitionRequest,
    AlterPartitionResponse,
    AlterPartitionResponsePartition,
    AlterPartitionResponseTopic,
)
from kafkette.protocol.apis.create_partitions import (
    CreatePartitionsRequest,
    CreatePartitionsResponse,
    CreatePartitionsTopic,
    CreatePartitionsTopicResult,
)
from kafkette.protocol.apis.create_topics import (
    CreatableTopic,
    CreatableTopicResult,
    CreateTopicsRequest,
    CreateTopicsResponse,
)
from kafkette.protocol.errors import (
    Errors,
    InvalidPartitionsError,
    InvalidReplicaAssignmentError,
    InvalidReplicationFactorError,
    InvalidRequestError,
    InvalidTopicError,
    KafkaError,
    TopicAlreadyExistsError,
    UnknownTopicOrPartitionError,
    error_code_for,
)
from kafkette.protocol.kafka_uuid import uuid_to_string
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)


@dataclass
class CreateTopicsOutcome:
    """CreateTopics decision: the response, and the topics whose records are to be written."""

    response: CreateTopicsResponse
    created_topics: list[str] = field(default_factory=list)


class ReplicationControlManager:
    """Turns topic and partition operations into metadata records.

    Args:
        context: the controller context (read only).
        default_num_partitions: ``num.partitions``.
        default_replication_factor: ``default.replication.factor``.
        unclean_leader_election_enable: broker-level ``unclean.leader.election.enable``.
        rng: randomness for replica assignment (``randrange``), injectable for tests.
        log_prefix: callable returning ``[Controller id=N epoch=E]``.
        topic_config_defaults: ``{topic config name: value}`` a topic without an override
            gets (validation of combined configs, as Kafka's ``LogConfig.validateValues``).
    """

    def __init__(
        self,
        context: ControllerContext,
        *,
        default_num_partitions: int,
        default_replication_factor: int,
        unclean_leader_election_enable: bool,
        rng: random.Random | object = random,
        log_prefix: Callable[[], str] = lambda: "",
        topic_config_defaults: Mapping[str, str] | None = None,
    ) -> None:
        self._context = context
        self._topic_config_defaults = dict(topic_config_defaults or {})
        self._default_num_partitions = default_num_partitions
        self._default_replication_factor = default_replication_factor
        self._unclean_leader_election_enable = unclean_leader_election_enable
        self._rng = rng
        self._log_prefix = log_prefix

    # ---------------------------------------------------------------- CreateTopics

    def create_topics(self, request: CreateTopicsRequest) -> ControllerResult[CreateTopicsOutcome]:
        """Validate and plan the creation of every topic of ``request``.

        Each topic succeeds or fails on its own (its result carries the error code and
        message).  With ``validate_only`` nothing is written.  ``__cluster_metadata``, the
        metadata log's name, is INVALID_REQUEST (Kafka's ``ControllerApis.createTopics``: its
        partition directory would be the metadata log's own).

        Returns:
            ``ControllerResult``: per created topic a ``TopicRecord``, its
            ``ConfigRecord``s and one ``PartitionRecord`` per partition (first live
            replica leads, live replicas form the ISR, epochs 0); and the outcome.
        """
        counts: dict[str, int] = {}
        for topic in request.topics:
            counts[topic.name] = counts.get(topic.name, 0) + 1
        records: list[MetadataRecord] = []
        results: list[CreatableTopicResult] = []
        created: list[str] = []
        answered: set[str] = set()
        for topic in request.topics:
            if topic.name in answered:
                continue  # one result per name, as Kafka answers a name given twice
            answered.add(topic.name)
            if counts[topic.name] > 1:
                results.append(
                    CreatableTopicResult(
                        name=topic.name,
                        error_code=Errors.INVALID_REQUEST,
                        error_message="Duplicate topic name.",
                    )
                )
                continue
            if topic.name == CLUSTER_METADATA_TOPIC_NAME:
                results.append(
                    CreatableTopicResult(
                        name=topic.name,
                        error_code=Errors.INVALID_REQUEST,
                        error_message=(
                            f"Creation of internal topic {CLUSTER_METADATA_TOPIC_NAME} is prohibited."
                        ),
                    )
                )
                continue
            try:
                topic_records, num_partitions, replication_factor, topic_id = self._create_topic(
                    topic, created
                )
            except KafkaError as exc:
                results.append(
                    CreatableTopicResult(
                        name=topic.name,
                        error_code=error_code_for(exc),
                        error_message=str(exc.args[0]) if exc.args else None,
                    )
                )
                continue
            results.append(
                CreatableTopicResult(
                    name=topic.name,
                    error_code=0,
                    error_message=None,
                    num_partitions=num_partitions,
                    replication_factor=replication_factor,
                    topic_id=topic_id,
                )
            )
            if not request.validate_only:
                records.extend(topic_records)
                created.append(topic.name)
        outcome = CreateTopicsOutcome(CreateTopicsResponse(topics=results), created)
        return ControllerResult(records, outcome)

    def _create_topic(
        self, topic: CreatableTopic, pending: list[str]
    ) -> tuple[list[MetadataRecord], int, int, bytes]:
        ctx = self._context
        validate_topic_name(topic.name)
        if has_collision_chars(topic.name):
            unified = unify_collision_chars(topic.name)
            colliding = [
                other
                for other in [*ctx.topics, *pending]
                if other != topic.name and unify_collision_chars(other) == unified
            ]
            if colliding:
                raise InvalidTopicError(f"Topic '{topic.name}' collides with existing topic: {colliding[0]}")
        if ctx.is_topic_queued_up_for_deletion(topic.name):
            raise TopicAlreadyExistsError(f"Topic '{topic.name}' is marked for deletion.")
        if topic.name in ctx.topics or topic.name in pending:
            raise TopicAlreadyExistsError(f"Topic '{topic.name}' already exists.")
        configs = validate_topic_configs(topic.configs, self._topic_config_defaults)
        if topic.assignments:
            assignment = validate_manual_assignment(
                topic.assignments, topic.num_partitions, topic.replication_factor, ctx.brokers.keys()
            )
            for partition, replicas in assignment.items():
                if not any(ctx.is_live(b) for b in replicas):
                    raise InvalidReplicaAssignmentError(
                        f"All brokers specified in the manual partition assignment for partition {partition} "
                        "are fenced."
                    )
        else:
            live = ctx.live_broker_ids()
            replication_factor = resolve_replication_factor(  # before the partition count, as Kafka
                topic.replication_factor, self._default_replication_factor, len(live)
            )
            num_partitions = resolve_num_partitions(topic.num_partitions, self._default_num_partitions)
            assignment = assign_replicas_to_brokers(
                num_partitions, replication_factor, live, broker_racks=ctx.live_broker_racks(), rng=self._rng
            )
        topic_id = uuid.uuid4().bytes  # Kafka's Uuid.randomUuid(), made also for validate_only (and answered)
        records: list[MetadataRecord] = [TopicRecord(name=topic.name, topic_id=uuid_to_string(topic_id))]
        records.extend(ConfigRecord("topic", topic.name, k, v) for k, v in configs.items())
        records.extend(self._partition_records(topic.name, assignment))
        return records, len(assignment), len(assignment[0]), topic_id

    def _partition_records(self, topic: str, assignment: dict[int, list[int]]) -> list[MetadataRecord]:
        """One PartitionRecord per new partition, in partition order, at leader and partition epoch 0.

        Leader and ISR come from ``initial_leader_and_isr`` over the live brokers (Kafka's
        ``ReplicationControlManager`` builds the same record for CreateTopics and CreatePartitions).

        Args:
            topic: the topic's name.
            assignment: ``{partition id: replicas}``.

        Returns:
            The records, to be replayed by the controller context.
        """
        records: list[MetadataRecord] = []
        for partition in sorted(assignment):
            replicas = assignment[partition]
            initial = initial_leader_and_isr(replicas, self._context.is_live)
            records.append(
                PartitionRecord(
                    topic=topic,
                    partition=partition,
                    replicas=list(replicas),
                    isr=initial.isr,
                    leader=initial.leader,
                    leader_epoch=0,
                    partition_epoch=0,
                )
            )
        return records

    # ------------------------------------------------------------ CreatePartitions

    def delete_topics(self, names: Iterable[str]) -> ControllerResult[dict[str, tuple[int, str | None]]]:
        """Kafka's ``deleteTopics``: one ``RemoveTopicRecord`` per known topic.

        The topic is gone once the record commits: its partitions, configs and replica states
        leave the metadata at once, whatever its replicas' brokers are doing (brokers delete
        their logs when they learn of the removal, or as stray logs at start-up).  A topic
        queued for deletion by an older ``TopicDeletionRecord`` is removed the same way.

        Args:
            names: topic names, each once (the caller answers duplicates).

        Returns:
            ``ControllerResult``: the ``RemoveTopicRecord``s and ``{name: (error_code,
            error_message)}``: 0 or UNKNOWN_TOPIC_OR_PARTITION with Kafka's generic message.
        """
        records: list[MetadataRecord] = []
        results: dict[str, tuple[int, str | None]] = {}
        for name in names:
            info = self._context.topics.get(name)
            if info is None:
                results[name] = (Errors.UNKNOWN_TOPIC_OR_PARTITION, UnknownTopicOrPartitionError.message)
                continue
            records.append(RemoveTopicRecord(name, info.topic_id))
            results[name] = (Errors.NONE, None)
        return ControllerResult(records, results)

    def create_partitions(
        self, request: CreatePartitionsRequest
    ) -> ControllerResult[CreatePartitionsResponse]:
        """Validate and plan new partitions for existing topics (Kafka's ``createPartitions``).

        Per topic, in Kafka's words: INVALID_REQUEST (named twice), UNKNOWN_TOPIC_OR_PARTITION
        (no message, as Kafka's), INVALID_TOPIC_EXCEPTION "The topic is queued for deletion.",
        INVALID_PARTITIONS (the count does not increase: "Topic already has N partition(s)."),
        INVALID_REPLICA_ASSIGNMENT (assignments for a
        different number of new partitions, a replication factor unlike the existing
        partitions', duplicate or unregistered brokers, every broker fenced),
        INVALID_REPLICATION_FACTOR (fewer live brokers than the replication factor).
        Without assignments the new partitions are placed by Kafka's algorithm
        continuing at ``start_partition_id`` = current count (rack-aware when every
        live broker has a rack).  ``validate_only`` writes nothing.

        Returns:
            ``ControllerResult``: one ``PartitionRecord`` per new partition (first live
            replica leads, live replicas form the ISR) and the response.
        """
        counts: dict[str, int] = {}
        for topic in request.topics:
            counts[topic.name] = counts.get(topic.name, 0) + 1
        records: list[MetadataRecord] = []
        results = []
        answered: set[str] = set()
        for topic in request.topics:
            if topic.name in answered:
                continue  # one result per name
            answered.add(topic.name)
            error, message = Errors.NONE, None
            try:
                if counts[topic.name] > 1:
                    raise InvalidRequestError("Duplicate topic name.")
                topic_records = self._create_partitions(topic)
            except UnknownTopicOrPartitionError:
                error = Errors.UNKNOWN_TOPIC_OR_PARTITION  # no message, as Kafka's (a bare exception)
            except KafkaError as exc:
                error = error_code_for(exc)
                message = str(exc.args[0]) if exc.args else None
            else:
                if not request.validate_only:
                    records.extend(topic_records)
            results.append(
                CreatePartitionsTopicResult(name=topic.name, error_code=error, error_message=message)
            )
        return ControllerResult(records, CreatePartitionsResponse(results=results))

    def _create_partitions(self, topic: CreatePartitionsTopic) -> list[MetadataRecord]:
        ctx = self._context
        info = ctx.topics.get(topic.name)
        if info is None:
            raise UnknownTopicOrPartitionError()
        if ctx.is_topic_queued_up_for_deletion(topic.name):
            raise InvalidTopicError("The topic is queued for deletion.")
        current = info.num_partitions
        if topic.count == current:
            raise InvalidPartitionsError(f"Topic already has {current} partition(s).")
        if topic.count < current:
            raise InvalidPartitionsError(
                f"The topic {topic.name} currently has {current} partition(s); "
                f"{topic.count} would not be an increase."
            )
        additional = topic.count - current
        replication_factor = len(ctx.partitions[TopicPartition(topic.name, 0)].replicas)
        if topic.assignments is not None:
            if len(topic.assignments) != additional:
                raise InvalidReplicaAssignmentError(
                    f"Attempted to add {additional} additional partition(s), "
                    f"but only {len(topic.assignments)} assignment(s) were specified."
                )
            assignment: dict[int, list[int]] = {}
            for i, entry in enumerate(topic.assignments):
                replicas = list(entry.broker_ids)
                self._check_new_partition_assignment(replicas, replication_factor)
                assignment[current + i] = replicas
        else:
            live = ctx.live_broker_ids()
            if replication_factor > len(live):
                raise InvalidReplicationFactorError(
                    replication_factor_unreachable(replication_factor, len(live))
                )
            # AdminZkClient.addPartitions: continue from the broker of partition 0's first replica.
            first = ctx.partitions[TopicPartition(topic.name, 0)].replicas[0]
            start_index = next((i for i, b in enumerate(live) if b >= first), 0)
            assignment = assign_replicas_to_brokers(
                additional,
                replication_factor,
                live,
                broker_racks=ctx.live_broker_racks(),
                fixed_start_index=start_index,
                start_partition_id=current,
                rng=self._rng,
            )
        return self._partition_records(topic.name, assignment)

    def _check_new_partition_assignment(self, replicas: list[int], replication_factor: int) -> None:
        ctx = self._context
        validate_partition_assignment(replicas, ctx.brokers, replication_factor)
        if not any(ctx.is_live(b) for b in replicas):
            raise InvalidReplicaAssignmentError(
                f"All brokers specified in the manual partition assignment {replicas} are fenced."
            )

    # -------------------------------------------------------------- AlterPartition

    def alter_partition(self, request: AlterPartitionRequest) -> ControllerResult[AlterPartitionResponse]:
        """Validate ISR changes sent by partition leaders.

        Per partition: UNKNOWN_TOPIC_OR_PARTITION, FENCED_LEADER_EPOCH (sender is not
        the leader, or its leader epoch differs), INVALID_UPDATE_VERSION (partition epoch
        differs), INVALID_REQUEST (duplicates), INELIGIBLE_REPLICA (new ISR not a subset
        of the replicas, without the leader, or with a fenced broker).  A stale or
        unknown broker epoch fails the whole request with STALE_BROKER_EPOCH.

        Returns:
            ``ControllerResult``: one ``PartitionChangeRecord`` per changed partition
            (partition epoch + 1, leader epoch unchanged) and the response carrying the
            committed leader, leader epoch, ISR and partition epoch.
        """
        ctx = self._context
        reg = ctx.brokers.get(request.broker_id)
        if reg is None or reg.broker_epoch != request.broker_epoch:
            topics = [
                AlterPartitionResponseTopic(
                    topic_name=t.topic_name,
                    partitions=[
                        AlterPartitionResponsePartition(
                            partition_index=p.partition_index, error_code=Errors.STALE_BROKER_EPOCH
                        )
                        for p in t.partitions
                    ],
                )
                for t in request.topics
            ]
            return ControllerResult(
                [], AlterPartitionResponse(error_code=Errors.STALE_BROKER_EPOCH, topics=topics)
            )
        records: list[MetadataRecord] = []
        seen: set[TopicPartition] = set()
        response_topics = []
        for topic in request.topics:
            partitions = []
            for data in topic.partitions:
                tp = TopicPartition(topic.topic_name, data.partition_index)
                error = self._check_alter_partition(request.broker_id, tp, data, seen)
                seen.add(tp)
                if error != Errors.NONE:
                    partitions.append(
                        AlterPartitionResponsePartition(partition_index=tp.partition, error_code=error)
                    )
                    continue
                part = ctx.partitions[tp]
                new_isr = list(data.new_isr)
                partition_epoch = part.partition_epoch
                if new_isr != part.isr:
                    partition_epoch += 1
                    records.append(
                        PartitionChangeRecord(
                            topic=tp.topic,
                            partition=tp.partition,
                            leader=part.leader,
                            isr=new_isr,
                            leader_epoch=part.leader_epoch,
                            partition_epoch=partition_epoch,
                        )
                    )
                partitions.append(
                    AlterPartitionResponsePartition(
                        partition_index=tp.partition,
                        error_code=0,
                        leader_id=part.leader,
                        leader_epoch=part.leader_epoch,
                        isr=new_isr,
                        partition_epoch=partition_epoch,
                    )
                )
            response_topics.append(
                AlterPartitionResponseTopic(topic_name=topic.topic_name, partitions=partitions)
            )
        return ControllerResult(records, AlterPartitionResponse(error_code=0, topics=response_topics))

    def _check_alter_partition(
        self, broker_id: int, tp: TopicPartition, data: object, seen: set[TopicPartition]
    ) -> Errors:
        part = self._context.partitions.get(tp)
        if part is None:
            return Errors.UNKNOWN_TOPIC_OR_PARTITION
        if tp in seen:
            return Errors.INVALID_REQUEST
        if part.leader != broker_id or data.leader_epoch != part.leader_epoch:  # type: ignore[attr-defined]
            return Errors.FENCED_LEADER_EPOCH
        if data.partition_epoch != part.partition_epoch:  # type: ignore[attr-defined]
            return Errors.INVALID_UPDATE_VERSION
        new_isr = list(data.new_isr)  # type: ignore[attr-defined]
        if len(set(new_isr)) != len(new_isr):
            return Errors.INVALID_REQUEST
        if broker_id not in new_isr or any(
            r not in part.replicas or not self._context.is_replica_online(r, tp) for r in new_isr
        ):
            return Errors.INELIGIBLE_REPLICA
        return Errors.NONE

    # ----------------------------------------------------- broker fenced/unfenced

    def handle_broker_fenced(self, broker_id: int) -> list[PartitionChangeRecord]:
        """Partition changes when ``broker_id`` is fenced.

        - partitions it leads: elect the first online ISR replica (assignment order) with
          ISR minus the broker; unclean election if enabled; else leader -1, and the
          ISR keeps its last member rather than becoming empty;
        - partitions where it is an ISR follower: remove it from the ISR.
        Both bump leader epoch and partition epoch.
        """
        records = []
        for tp in self._context.partitions_on_broker(broker_id):
            if self._context.is_topic_queued_up_for_deletion(tp.topic):
                continue  # Kafka: partitions being deleted are not re-elected
            record = self._remove_replica(tp, broker_id)
            if record is not None:
                records.append(record)
        return records

    def _remove_replica(self, tp: TopicPartition, broker_id: int) -> PartitionChangeRecord | None:
        """The change taking ``broker_id``'s replica of ``tp`` out of leadership and the ISR
        (Kafka's OfflineReplica transition), or None when it neither leads nor follows in the ISR."""
        ctx = self._context
        part = ctx.partitions[tp]
        shrunk = [r for r in part.isr if r != broker_id]
        if part.leader == broker_id:

            def eligible(b: int) -> bool:
                return b != broker_id and ctx.is_replica_online(b, tp)

            election = offline_partition_leader_election(part.replicas, shrunk, eligible, self._unclean(tp))
            leader = election.leader
            isr = election.isr if election.has_leader else (shrunk or [broker_id])
        elif broker_id in part.isr and shrunk:
            leader, isr = part.leader, shrunk
        else:
            return None
        return part.leader_change(tp, leader, isr)

    def handle_replicas_offline(
        self, broker_id: int, offline: Iterable[TopicPartition]
    ) -> list[PartitionChangeRecord]:
        """Partition changes when ``broker_id`` reports the replicas whose log is offline.

        ``offline`` is the broker's whole current set (every heartbeat carries it).
        A replica newly reported is marked offline and moved out as when its broker is
        fenced: a partition it leads elects the first online ISR replica (unclean if
        enabled; else leader -1 keeping the last ISR member), and it leaves the ISR
        (leader epoch + 1); where it neither leads nor is in the ISR only the mark is
        added (partition epoch + 1).  A replica no longer reported (the broker restarted
        with that log repaired or removed) loses its mark (partition epoch + 1), and a
        leaderless partition then elects a leader as when a broker is unfenced.
        Partitions unknown to the controller and topics queued for deletion are skipped.

        Kafka concept: KRaft ``ReplicationControlManager.handleDirectoriesOffline``
        (KIP-858) / ZK ``onReplicasBecomeOffline`` for a replica on an offline log dir.

        Args:
            broker_id: the reporting broker (registered).
            offline: partitions whose log is offline on it.

        Returns:
            One ``PartitionChangeRecord`` per partition whose mark changes, carrying the
            new ``offline_replicas``.
        """
        ctx = self._context
        reported = {tp for tp in offline if tp in ctx.partitions and broker_id in ctx.partitions[tp].replicas}
        marked = ctx.offline_replicas_on_broker(broker_id)
        records: list[PartitionChangeRecord] = []
        for tp in sorted(reported ^ marked):
            if ctx.is_topic_queued_up_for_deletion(tp.topic):
                continue
            part = ctx.partitions[tp]
            if tp in reported:
                marks = sorted({*part.offline_replicas, broker_id})
                record = self._remove_replica(tp, broker_id) or PartitionChangeRecord(
                    topic=tp.topic,
                    partition=tp.partition,
                    leader=part.leader,
                    isr=list(part.isr),
                    leader_epoch=part.leader_epoch,
                    partition_epoch=part.partition_epoch + 1,
                )
                records.append(dataclasses.replace(record, offline_replicas=marks))
                continue
            marks = [r for r in part.offline_replicas if r != broker_id]
            leader, isr, leader_epoch = part.leader, list(part.isr), part.leader_epoch
            if part.leader == NO_LEADER:

                def eligible(b: int, tp: TopicPartition = tp) -> bool:
                    return ctx.is_live(b) and (b == broker_id or ctx.is_replica_online(b, tp))

                election = offline_partition_leader_election(
                    part.replicas, part.isr, eligible, self._unclean(tp)
                )
                if election.has_leader:
                    leader, isr, leader_epoch = election.leader, election.isr, leader_epoch + 1
            records.append(
                PartitionChangeRecord(
                    topic=tp.topic,
                    partition=tp.partition,
                    leader=leader,
                    isr=isr,
                    leader_epoch=leader_epoch,
                    partition_epoch=part.partition_epoch + 1,
                    offline_replicas=marks,
                )
            )
        return records

    def handle_broker_unfenced(self, broker_id: int) -> list[PartitionChangeRecord]:
        """Partition changes when ``broker_id`` becomes live: leaderless partitions it hosts
        elect a leader (clean: it must be in the ISR; unclean if enabled), leader epoch + 1."""
        ctx = self._context

        records = []
        for tp in ctx.partitions_on_broker(broker_id):
            part = ctx.partitions[tp]
            if part.leader != NO_LEADER or ctx.is_topic_queued_up_for_deletion(tp.topic):
                continue

            def is_live(b: int, part: PartitionRegistration = part) -> bool:
                return (b == broker_id or ctx.is_live(b)) and b not in part.offline_replicas

            election = offline_partition_leader_election(part.replicas, part.isr, is_live, self._unclean(tp))
            if not election.has_leader:
                continue
            records.append(part.leader_change(tp, election.leader, election.isr))
        return records

    def elect_offline_partitions(self, topics: Iterable[str] | None = None) -> list[PartitionChangeRecord]:
        """Elect leaders for leaderless partitions (of ``topics``, or all).

        Used when a controller starts (partitions written without a leader, or whose
        leader's broker is gone, come online from a live ISR member) and when a topic's
        ``unclean.leader.election.enable`` is turned on.  Clean election first; unclean
        only where enabled; otherwise the partition stays offline.  Topics queued for
        deletion are skipped.

        Returns:
            One ``PartitionChangeRecord`` per elected partition (leader epoch and
            partition epoch + 1).
        """
        ctx = self._context
        wanted = None if topics is None else set(topics)
        records = []
        for tp in sorted(ctx.partitions):
            part = ctx.partitions[tp]
            if (wanted is not None and tp.topic not in wanted) or ctx.is_topic_queued_up_for_deletion(
                tp.topic
            ):
                continue
            if part.leader != NO_LEADER and ctx.is_replica_online(part.leader, tp):
                continue

            def is_online(b: int, tp: TopicPartition = tp) -> bool:
                return ctx.is_replica_online(b, tp)

            election = offline_partition_leader_election(
                part.replicas, part.isr, is_online, self._unclean(tp)
            )
            if not election.has_leader or election.leader == part.leader:
                continue
            records.append(part.leader_change(tp, election.leader, election.isr))
        return records

    def _unclean(self, tp: TopicPartition) -> bool:
        return unclean_leader_election_enabled(
            self._unclean_leader_election_enable, self._context.topic_configs(tp.topic)
        )
