"""Controlled shutdown: move a stopping broker's leaderships and ISR memberships away.

Owns: the decision behind ControlledShutdown - which partitions the broker leads get
a new leader, which ISRs lose it, and which partitions remain led by it.  Pure: it
returns ``PartitionChangeRecord``s; the controller checks the broker epoch, writes,
propagates, and remembers the broker as shutting down.  Does not own the broker side
(retries, ``controlled.shutdown.max.retries``) nor the final fencing (the broker's
heartbeat with ``want_shut_down``).

Kafka concept: ``KafkaController.doControlledShutdown`` with
``ControlledShutdownPartitionLeaderElection``:

- a partition the broker leads: the first replica in assignment order that is in
  the ISR, live and not shutting down becomes leader; ISR = ISR minus the shutting
  down brokers; leader epoch + 1;
- a partition it follows in the ISR: it leaves the ISR (ZK-era OfflineReplica
  transition), leader epoch + 1 so the leader adopts the new ISR;
- remaining: replicated partitions (more than one replica) it still leads because
  no other replica is eligible.  Single-replica partitions are not listed, as in
  Kafka: no retry can move them.

Topics queued for deletion are left alone.
"""

from __future__ import annotations

from collections.abc import Collection

from kafkette.controller.controller_context import ControllerContext
from kafkette.controller.metadata_records import PartitionChangeRecord
from kafkette.protocol.topic_partition import TopicPartition


def controlled_shutdown(
    context: ControllerContext, broker_id: int, shutting_down: Collection[int]
) -> tuple[list[PartitionChangeRecord], list[TopicPartition]]:
    """Plan the controlled shutdown of ``broker_id``.

    Args:
        context: the controller context.
        broker_id: the stopping broker (must be registered).
        shutting_down: every broker in controlled shutdown, ``broker_id`` included.

    Returns:
        (records, remaining): the partition changes, and the replicated partitions
        ``broker_id`` still leads afterwards, sorted.
    """
    records: list[PartitionChangeRecord] = []
    remaining: list[TopicPartition] = []
    for tp in context.partitions_on_broker(broker_id):
        if context.is_topic_queued_up_for_deletion(tp.topic):
            continue
        part = context.partitions[tp]
        new_isr = [r for r in part.isr if r not in shutting_down]
        if part.leader == broker_id:
            candidates = [
                r
                for r in part.replicas
                if r in new_isr and context.is_replica_online(r, tp) and r not in shutting_down
            ]
            if not candidates:
                if len(part.replicas) > 1:
                    remaining.append(tp)
                continue
            leader = candidates[0]
        elif broker_id in part.isr and new_isr and part.leader in new_isr:
            leader = part.leader
        else:
            continue
        records.append(part.leader_change(tp, leader, new_isr))
    return records, remaining
