"""A snapshot's records rebuild the controller state exactly, for random histories of changes."""

from __future__ import annotations

import random

import pytest

from kafkette.controller.controller_context import ControllerContext
from kafkette.controller.metadata_records import (
    ConfigRecord,
    ControllerEpochRecord,
    FenceBrokerRecord,
    PartitionChangeRecord,
    PartitionRecord,
    ProducerIdsRecord,
    RegisterBrokerRecord,
    TopicDeletionRecord,
    TopicRecord,
    UnfenceBrokerRecord,
)
from kafkette.controller.metadata_snapshot import snapshot_records


def _context() -> ControllerContext:
    return ControllerContext(lambda: 0, lambda: "[test]")


def _state(context: ControllerContext) -> tuple:
    brokers = sorted(
        (b.broker_id, b.broker_epoch, b.incarnation_id, b.host, b.port, b.rack, b.fenced)
        for b in context.brokers.values()
    )
    topics = sorted(
        (t.name, t.topic_id, t.num_partitions, tuple(sorted(t.configs.items())))
        for t in context.topics.values()
    )
    partitions = sorted(
        (
            tp.topic,
            tp.partition,
            tuple(p.replicas),
            tuple(p.isr),
            p.leader,
            p.leader_epoch,
            p.partition_epoch,
            tuple(p.offline_replicas),
        )
        for tp, p in context.partitions.items()
    )
    groups = sorted((g, tuple(sorted(c.items()))) for g, c in context.group_configs.items())
    return (
        brokers,
        topics,
        partitions,
        sorted(context.topics_to_be_deleted),
        context.controller_epoch,
        context.next_producer_id,
        groups,
    )


def _random_history(rng: random.Random, steps: int) -> ControllerContext:
    context = _context()
    for step in range(steps):
        live = sorted(b for b, reg in context.brokers.items() if not reg.fenced)
        topics = sorted(t for t in context.topics if t not in context.topics_to_be_deleted)
        kind = rng.randrange(10)
        if kind == 0 or not context.brokers:
            record = RegisterBrokerRecord(
                step, step, f"inc-{step}", "127.0.0.1", 9000 + step, rng.choice([None, "r1"])
            )
        elif kind == 1:
            broker = rng.choice(sorted(context.brokers))
            epoch = context.brokers[broker].broker_epoch
            record = (UnfenceBrokerRecord if context.brokers[broker].fenced else FenceBrokerRecord)(
                broker, epoch
            )
        elif kind == 2 and live:
            name = f"t{step}"
            context.replay(TopicRecord(name, f"id-{step}"))
            replicas = rng.sample(sorted(context.brokers), min(len(context.brokers), 2))
            record = PartitionRecord(
                name,
                0,
                replicas,
                [r for r in replicas if r in live],
                next((r for r in replicas if r in live), -1),
            )
        elif kind == 3 and topics:
            tp = rng.choice(sorted(tp for tp in context.partitions if tp.topic in topics))
            part = context.partitions[tp]
            leader = rng.choice([r for r in part.replicas if r in live] or [-1])
            offline = (
                rng.sample(part.replicas, rng.randrange(len(part.replicas) + 1))
                if rng.random() < 0.3
                else None
            )
            record = PartitionChangeRecord(
                tp.topic,
                tp.partition,
                leader,
                [leader] if leader >= 0 else [],
                part.leader_epoch + 1,
                part.partition_epoch + 1,
                offline,
            )
        elif kind == 4 and topics:
            record = ConfigRecord(
                "topic",
                rng.choice(topics),
                rng.choice(["retention.ms", "segment.bytes"]),
                rng.choice([None, str(step)]),
            )
        elif kind == 5 and topics and rng.random() < 0.3:
            name = rng.choice(topics)
            record = TopicDeletionRecord(name, context.topics[name].topic_id)
        elif kind == 6:
            record = ControllerEpochRecord(context.controller_epoch + 1)
        elif kind == 7:
            record = ProducerIdsRecord(-1, -1, context.next_producer_id + 1000)
        elif kind == 8:
            record = ConfigRecord(
                "group",
                rng.choice(["g1", "g2"]),
                rng.choice(["consumer.session.timeout.ms", "share.delivery.count.limit"]),
                rng.choice([None, str(step)]),
            )
        else:
            continue
        context.replay(record)
    return context


@pytest.mark.parametrize("seed", range(20))
def test_replaying_a_snapshot_rebuilds_the_state(seed):
    original = _random_history(random.Random(seed), 150)
    rebuilt = _context()
    for record in snapshot_records(original):
        rebuilt.replay(record)
    assert _state(rebuilt) == _state(original)
    assert snapshot_records(rebuilt) == snapshot_records(original)


def test_an_empty_state_has_an_empty_snapshot():
    assert snapshot_records(_context()) == []
