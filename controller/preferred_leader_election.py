"""Leader elections asked for by ElectLeaders and by the auto leader rebalance.

Owns: the ElectLeaders decision (preferred and unclean election per partition, with
Kafka's per-partition errors) and the leader imbalance computation behind
``auto.leader.rebalance.enable``.  Pure decisions over ``ControllerContext``: they
return ``PartitionChangeRecord``s and a response; the controller writes and
propagates.  Does not own the periodic timer (``KafkaController``) nor offline
election after a broker failure (``ReplicationControlManager``).

Kafka concept: ``PreferredReplicaPartitionLeaderElection``, KIP-460 ElectLeaders
(``electLeaders``: ELECTION_NOT_NEEDED, PREFERRED_LEADER_NOT_AVAILABLE,
ELIGIBLE_LEADERS_NOT_AVAILABLE), and ``checkAndTriggerAutoLeaderRebalance``:

- preferred election: the first assigned replica (the preferred leader) becomes
  leader if it is live, in the ISR and not shutting down; the ISR is unchanged;
  leader epoch and partition epoch + 1;
- unclean election: only for partitions without a live leader: the first live ISR
  member, else the first live replica (ISR = that replica);
- imbalance of broker b = (partitions whose preferred leader is b but that b does
  not lead) / (partitions whose preferred leader is b); above
  ``leader.imbalance.per.broker.percentage`` / 100, those partitions get a preferred
  election.
"""

from __future__ import annotations

from collections.abc import Collection

from kafkette.controller.controller_context import ControllerContext
from kafkette.controller.leader_election import NO_LEADER, offline_partition_leader_election
from kafkette.controller.metadata_records import ControllerResult, PartitionChangeRecord
from kafkette.protocol.apis.elect_leaders import (
    ELECTION_PREFERRED,
    ELECTION_UNCLEAN,
    ElectLeadersPartitionResult,
    ElectLeadersReplicaElectionResult,
    ElectLeadersRequest,
    ElectLeadersResponse,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.kafka_error_responses import elect_leaders_error_response
from kafkette.protocol.topic_partition import TopicPartition


def elect_leaders(
    context: ControllerContext, request: ElectLeadersRequest, *, shutting_down: Collection[int] = ()
) -> ControllerResult[ElectLeadersResponse]:
    """Decide an ElectLeaders request.

    Args:
        context: the controller context.
        request: ``election_type`` ELECTION_PREFERRED (0) or ELECTION_UNCLEAN (1);
            ``topic_partitions`` None means every partition (results then leave out
            the ELECTION_NOT_NEEDED ones, as KRaft does).
        shutting_down: brokers in controlled shutdown (never elected).

    Returns:
        ``ControllerResult``: one ``PartitionChangeRecord`` per elected partition and
        the response with a result per partition: 0, ELECTION_NOT_NEEDED,
        PREFERRED_LEADER_NOT_AVAILABLE, ELIGIBLE_LEADERS_NOT_AVAILABLE,
        UNKNOWN_TOPIC_OR_PARTITION (also for topics queued for deletion).  An empty list is
        answered at once, whatever the election type (Kafka's ``QuorumController.electLeaders``);
        an unknown election type is INVALID_REQUEST for the whole request, at the top level and for
        every partition named (``ElectLeadersRequest.getErrorResponse`` of the exception Kafka's
        ``ReplicationControlManager.electionType`` throws).
    """
    if request.topic_partitions == []:
        return ControllerResult([], ElectLeadersResponse(error_code=0, replica_election_results=[]))
    if request.election_type not in (ELECTION_PREFERRED, ELECTION_UNCLEAN):
        message = f"Unknown election type {request.election_type}"
        return ControllerResult(
            [], elect_leaders_error_response(request, 0, int(Errors.INVALID_REQUEST), message)
        )
    everything = request.topic_partitions is None
    if everything:
        wanted = sorted(context.partitions)
    else:
        wanted = [TopicPartition(t.topic, p) for t in request.topic_partitions for p in t.partitions]
    records: list[PartitionChangeRecord] = []
    by_topic: dict[str, list[ElectLeadersPartitionResult]] = {}
    seen: set[TopicPartition] = set()
    for tp in wanted:
        if tp in seen:
            continue
        seen.add(tp)
        record, error, message = _elect(context, tp, request.election_type, shutting_down)
        if everything and error == Errors.ELECTION_NOT_NEEDED:
            continue
        if record is not None:
            records.append(record)
        by_topic.setdefault(tp.topic, []).append(
            ElectLeadersPartitionResult(partition_id=tp.partition, error_code=error, error_message=message)
        )
    results = [ElectLeadersReplicaElectionResult(topic=t, partition_result=r) for t, r in by_topic.items()]
    return ControllerResult(records, ElectLeadersResponse(error_code=0, replica_election_results=results))


def _elect(
    context: ControllerContext, tp: TopicPartition, election_type: int, shutting_down: Collection[int]
) -> tuple[PartitionChangeRecord | None, Errors, str | None]:
    part = context.partitions.get(tp)
    if tp.topic not in context.topics or context.is_topic_queued_up_for_deletion(tp.topic):
        return None, Errors.UNKNOWN_TOPIC_OR_PARTITION, f"No such topic as {tp.topic}"  # Kafka's words
    if part is None:
        return None, Errors.UNKNOWN_TOPIC_OR_PARTITION, f"No such partition as {tp.topic}-{tp.partition}"

    def eligible(b: int) -> bool:
        return context.is_replica_online(b, tp) and b not in shutting_down

    if election_type == ELECTION_PREFERRED:
        preferred = part.replicas[0]
        if part.leader == preferred:
            return None, Errors.ELECTION_NOT_NEEDED, "Leader election not needed for topic partition."
        if not eligible(preferred) or preferred not in part.isr:
            return (
                None,
                Errors.PREFERRED_LEADER_NOT_AVAILABLE,
                (
                    f"Failed to elect leader for partition {tp} under strategy "
                    "PreferredReplicaPartitionLeaderElectionStrategy"
                ),
            )
        return part.leader_change(tp, preferred, list(part.isr)), Errors.NONE, None
    if part.leader != NO_LEADER and context.is_replica_online(part.leader, tp):
        return None, Errors.ELECTION_NOT_NEEDED, "Leader election not needed for topic partition."
    election = offline_partition_leader_election(part.replicas, part.isr, eligible, True)
    if not election.has_leader:
        return (
            None,
            Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE,
            (f"Failed to elect leader for partition {tp} under strategy UncleanLeaderElectionStrategy"),
        )
    return part.leader_change(tp, election.leader, election.isr), Errors.NONE, None


def leader_imbalance_ratios(context: ControllerContext) -> dict[int, float]:
    """Per preferred-leader broker, the share of its preferred partitions led by another broker.

    Partitions of topics queued for deletion are left out.

    Returns:
        ``{broker id: ratio in [0, 1]}`` for every broker that is some partition's
        preferred leader.
    """
    totals: dict[int, int] = {}
    not_led: dict[int, int] = {}
    for tp, part in context.partitions.items():
        if context.is_topic_queued_up_for_deletion(tp.topic) or not part.replicas:
            continue
        preferred = part.replicas[0]
        totals[preferred] = totals.get(preferred, 0) + 1
        if part.leader != preferred:
            not_led[preferred] = not_led.get(preferred, 0) + 1
    return {b: not_led.get(b, 0) / total for b, total in sorted(totals.items())}


def auto_leader_rebalance(
    context: ControllerContext, imbalance_percentage: int, *, shutting_down: Collection[int] = ()
) -> list[PartitionChangeRecord]:
    """Kafka's ``checkAndTriggerAutoLeaderRebalance``.

    Args:
        context: the controller context.
        imbalance_percentage: ``leader.imbalance.per.broker.percentage``.
        shutting_down: brokers in controlled shutdown (not made leaders).

    Returns:
        Preferred-election ``PartitionChangeRecord``s for the partitions of every
        broker whose imbalance ratio exceeds ``imbalance_percentage / 100`` and that
        is live, not shutting down and in the partition's ISR.
    """
    records = []
    for broker_id, ratio in leader_imbalance_ratios(context).items():
        if (
            ratio <= imbalance_percentage / 100
            or not context.is_live(broker_id)
            or broker_id in shutting_down
        ):
            continue
        for tp in sorted(context.partitions):
            part = context.partitions[tp]
            if (
                part.replicas
                and part.replicas[0] == broker_id
                and part.leader != broker_id
                and broker_id in part.isr
                and not context.is_topic_queued_up_for_deletion(tp.topic)
            ):
                records.append(part.leader_change(tp, broker_id, list(part.isr)))
    return records
