"""Leader election for partitions that lost (or never had) a live leader.

Owns: the offline-partition election rule, the ``unclean.leader.election.enable``
lookup (topic override, else broker default), and ``LeaderAndIsr`` (the outcome).
Pure functions; does not write records or talk to brokers (the replication control
manager turns outcomes into ``PartitionChangeRecord``s).

Kafka concept: ``PartitionLeaderElectionAlgorithms.offlinePartitionLeaderElection``
(ZK controller) / ``PartitionChangeBuilder.electLeader`` (KRaft):

1. Clean election: the first replica *in assignment order* that is both in the ISR
   and live (unfenced) becomes leader; the ISR is unchanged.
2. Unclean election (only when ``unclean.leader.election.enable``): if no ISR member
   is live, the first live replica in assignment order becomes leader and the ISR
   becomes just that leader (acknowledged records may be lost).
3. Otherwise no leader: leader = -1 and the partition stays ``OfflinePartition``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

NO_LEADER = -1


@dataclass(frozen=True)
class LeaderAndIsr:
    """Outcome of an election: new leader (-1 = none), new ISR, and whether it was unclean."""

    leader: int
    isr: list[int]
    unclean: bool = False

    @property
    def has_leader(self) -> bool:
        return self.leader != NO_LEADER


def unclean_leader_election_enabled(broker_default: bool, topic_configs: Mapping[str, str]) -> bool:
    """Effective ``unclean.leader.election.enable``: the topic override, else the broker's.

    Args:
        broker_default: the controller's ``unclean.leader.election.enable``.
        topic_configs: the topic's config overrides (string values).
    """
    value = topic_configs.get("unclean.leader.election.enable")
    if value is None:
        return broker_default
    return value.strip().lower() == "true"


def offline_partition_leader_election(
    replicas: Sequence[int],
    isr: Sequence[int],
    is_live: Callable[[int], bool],
    unclean_enabled: bool,
) -> LeaderAndIsr:
    """Elect a leader for a partition without a live leader.

    Args:
        replicas: the assignment, in preference order.
        isr: the current in-sync replicas (may still name dead brokers).
        is_live: True for brokers that may lead (registered and unfenced).
        unclean_enabled: allow a live out-of-sync replica to lead.

    Returns:
        ``LeaderAndIsr``: the elected leader and ISR, or leader -1 with ``isr`` unchanged.
    """
    isr_set = set(isr)
    for replica in replicas:
        if replica in isr_set and is_live(replica):
            return LeaderAndIsr(replica, list(isr))
    if unclean_enabled:
        for replica in replicas:
            if is_live(replica):
                return LeaderAndIsr(replica, [replica], unclean=True)
    return LeaderAndIsr(NO_LEADER, list(isr))


def initial_leader_and_isr(replicas: Sequence[int], is_live: Callable[[int], bool]) -> LeaderAndIsr:
    """Leader and ISR of a new partition: first live replica leads, live replicas form the ISR.

    Kafka concept: ``PartitionStateMachine.initializeLeaderAndIsrForPartition``.

    Returns:
        ``LeaderAndIsr`` (leader -1 and empty ISR when no replica is live).
    """
    live = [r for r in replicas if is_live(r)]
    return LeaderAndIsr(live[0] if live else NO_LEADER, live)
