"""The quorum simulation's workload: valid metadata changes proposed on the current leader.

Owns: ``MetadataWorkload``, which keeps the leader's projected controller state (its
snapshot and every entry of its log replayed, committed or not, as the active
controller sees it: Kafka's controller applies its own records before they commit) and
draws the next change from it: brokers registering (new, or again with a new epoch),
fenced and unfenced; topics created with partitions on registered brokers; leader and
ISR changes; topic config overrides set and removed; topics queued for deletion and
removed; the controller epoch following the Raft epoch.  Every batch is checked against
the projected state machines and replayed there before it is proposed, so the log only
ever holds records that replay.  Does not own proposing (the simulation calls
``KafkaRaftClient.propose``) nor checking what commits.

Kafka concept: the records ``ClusterControlManager``, ``ReplicationControlManager`` and
``ConfigurationControlManager`` return, bounded so that the state stays small.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from kafkette.controller.controller_context import ControllerContext
from kafkette.controller.metadata_records import (
    ConfigRecord,
    ControllerEpochRecord,
    FenceBrokerRecord,
    MetadataRecord,
    PartitionChangeRecord,
    PartitionRecord,
    RegisterBrokerRecord,
    RemoveTopicRecord,
    TopicDeletionRecord,
    TopicRecord,
    UnfenceBrokerRecord,
)
from kafkette.controller.raft.kafka_raft_client import KafkaRaftClient, LeaderChange
from kafkette.controller.raft.replicated_log import MemoryReplicatedLog
from tests.simulation.controller_replica import decode_snapshot, new_context, replay_all

MAX_BROKERS = 6
MAX_TOPICS = 8
TOPIC_CONFIGS = ("retention.ms", "cleanup.policy", "segment.bytes", "min.insync.replicas")


@dataclass
class _Projection:
    """The state at the end of ``node_id``'s log (incarnation ``incarnation``, epoch ``epoch``)."""

    node_id: int
    incarnation: int
    epoch: int
    end_offset: int
    context: ControllerContext


class MetadataWorkload:
    """Draws valid metadata record batches with ``rng``.

    Args:
        rng: the simulation's one source of randomness.
    """

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._projection: _Projection | None = None
        self._next_id = 1

    def propose(
        self, node_id: int, incarnation: int, client: KafkaRaftClient, log: MemoryReplicatedLog, now_ms: int
    ) -> list[MetadataRecord]:
        """Propose the next batch on the leader ``client`` (whose log is ``log``).

        Returns:
            The records proposed (none when the state allows no change).
        """
        projection = self._projection_of(node_id, incarnation, client, log)
        context = projection.context
        if context.controller_epoch < client.epoch:
            records: list[MetadataRecord] = [ControllerEpochRecord(client.epoch)]
        else:
            records = self._draw(context)
        if not records:
            return []
        context.check_records(records)
        replay_all(context, records)
        client.propose(list(records), now_ms)
        projection.end_offset = log.end_offset()
        return records

    def _projection_of(
        self, node_id: int, incarnation: int, client: KafkaRaftClient, log: MemoryReplicatedLog
    ) -> _Projection:
        p = self._projection
        if p is not None and (p.node_id, p.incarnation, p.epoch, p.end_offset) == (
            node_id,
            incarnation,
            client.epoch,
            log.end_offset(),
        ):
            return p
        context = new_context(node_id)
        snapshot_id = log.latest_snapshot_id()
        if snapshot_id is not None:
            replay_all(context, decode_snapshot(log.read_snapshot(snapshot_id) or b""))
        replay_all(context, (e.payload for e in log.entries() if not isinstance(e.payload, LeaderChange)))
        self._projection = _Projection(node_id, incarnation, client.epoch, log.end_offset(), context)
        return self._projection

    # ------------------------------------------------------------------ the changes

    def _draw(self, ctx: ControllerContext) -> list[MetadataRecord]:
        rng = self._rng
        n = self._next_id
        self._next_id += 1
        live = ctx.live_broker_ids()
        fenced = sorted(b for b, reg in ctx.brokers.items() if reg.fenced)
        topics = sorted(t for t in ctx.topics if t not in ctx.topics_to_be_deleted)
        choice = rng.random()
        if choice < 0.12 or not ctx.brokers:
            if len(ctx.brokers) < MAX_BROKERS:
                broker_id = len(ctx.brokers) + 1
                return [
                    RegisterBrokerRecord(
                        broker_id,
                        1,
                        f"incarnation-{n}",
                        "127.0.0.1",
                        9000 + broker_id,
                        rng.choice((None, "rack-a", "rack-b")),
                    )
                ]
            broker = ctx.brokers[rng.choice(sorted(ctx.brokers))]
            return [
                RegisterBrokerRecord(
                    broker.broker_id,
                    broker.broker_epoch + 1,
                    f"incarnation-{n}",
                    broker.host,
                    broker.port,
                    broker.rack,
                )
            ]
        if choice < 0.24:
            if fenced:
                broker_id = rng.choice(fenced)
                return [UnfenceBrokerRecord(broker_id, ctx.brokers[broker_id].broker_epoch)]
            broker_id = rng.choice(live)
            return [FenceBrokerRecord(broker_id, ctx.brokers[broker_id].broker_epoch)]
        if choice < 0.42 or not topics:
            return self._create_topic(ctx, n) if len(ctx.topics) < MAX_TOPICS else self._delete_topic(ctx)
        if choice < 0.70:
            topic = rng.choice(topics)
            partition = rng.randrange(ctx.topics[topic].num_partitions)
            part = ctx.partitions[ctx.partitions_of_topic(topic)[partition]]
            online = [r for r in part.replicas if ctx.is_live(r)]
            isr = sorted(rng.sample(online, rng.randint(0, len(online))))
            leader = rng.choice(isr) if isr else -1
            return [
                PartitionChangeRecord(
                    topic, partition, leader, isr, part.leader_epoch + 1, part.partition_epoch + 1
                )
            ]
        if choice < 0.88:
            topic = rng.choice(topics)
            value = None if rng.random() < 0.3 else str(n)
            return [ConfigRecord("topic", topic, rng.choice(TOPIC_CONFIGS), value)]
        return self._delete_topic(ctx)

    def _create_topic(self, ctx: ControllerContext, n: int) -> list[MetadataRecord]:
        name = f"topic-{n}"
        records: list[MetadataRecord] = [TopicRecord(name, f"id-{n}")]
        if self._rng.random() < 0.5:
            records.append(ConfigRecord("topic", name, "retention.ms", str(n * 1000)))
        brokers = sorted(ctx.brokers)
        replication_factor = min(len(brokers), self._rng.randint(1, 3))
        for partition in range(self._rng.randint(1, 3)):
            replicas = self._rng.sample(brokers, replication_factor)
            isr = [r for r in replicas if ctx.is_live(r)]
            records.append(PartitionRecord(name, partition, replicas, isr, isr[0] if isr else -1))
        return records

    def _delete_topic(self, ctx: ControllerContext) -> list[MetadataRecord]:
        queued = sorted(ctx.topics_to_be_deleted)
        if queued:
            name = self._rng.choice(queued)
            return [RemoveTopicRecord(name, ctx.topics[name].topic_id)]
        if not ctx.topics:
            return []
        name = self._rng.choice(sorted(ctx.topics))
        return [TopicDeletionRecord(name, ctx.topics[name].topic_id)]
