"""KIP-848's online upgrade and downgrade through real clients, against Apache Kafka 4.3.1 and against
Kafkette's Kafka listener, with the same outcome on both: confluent-kafka (librdkafka) consumers of one
group roll from ``group.protocol=classic`` to ``group.protocol=consumer`` one at a time (the first
consumer-protocol member converts the classic group to a consumer group, the classic member left keeps
consuming inside it with JoinGroup/SyncGroup/Heartbeat), then back (the last consumer-protocol member
leaving converts the group to a classic group again); no record is lost at any step.

Both clusters have 3 nodes and ``SHARED_BROKER_CONFIGS`` (``group.consumer.migration.policy`` at its
default, ``bidirectional``), each started once for the module; the test uses names of its own.
"""

from __future__ import annotations

import pytest
from confluent_kafka import ConsumerGroupType
from confluent_kafka.admin import AdminClient

from tests.interop.test_consumer_group_protocol import (
    Members,
    create_topic,
    describe,
    produce,
    split,
)

PARTITIONS = 4
CLASSIC = {"group.protocol": "classic", "partition.assignment.strategy": "range"}
"""A classic member.  Not librdkafka's cooperative-sticky: once it holds partitions its assignments carry
the sticky assignor's user data, and Kafka refuses to upgrade a group whose assignments have user data (the
upgrade would lose it: "an unsupported custom assignor is in use")."""
CONSUMER = {"group.protocol": "consumer"}


@pytest.fixture(params=["kafka", "kafkette"])
def bootstrap(request: pytest.FixtureRequest) -> str:
    """The bootstrap servers of each cluster in turn (the test runs once per cluster)."""
    return request.getfixturevalue(request.param)


def _step(members: Members, produced: list[bytes], bootstrap: str, batch: str, what: str) -> None:
    """Produce 100 more records, then poll until the members split the partitions and every record
    produced so far has been read."""
    values = [b"%s-%04d" % (batch.encode(), i) for i in range(100)]
    produce(bootstrap, members.topic, values)
    produced += values
    members.poll_until(
        lambda: split(members.assignments(), PARTITIONS) and len(set(members.seen.values())) == len(produced),
        what,
    )


@pytest.mark.timeout(900)
def test_a_rolling_upgrade_to_the_consumer_protocol_and_back_loses_no_record(bootstrap):
    topic, group = "mig-rd", "mig-rd-group"
    create_topic(bootstrap, topic, PARTITIONS)
    admin = AdminClient({"bootstrap.servers": bootstrap})
    members = Members(bootstrap, group, topic)
    produced: list[bytes] = []
    try:
        members.add("a", **CLASSIC, **{"client.id": "a"})
        members.add("b", **CLASSIC, **{"client.id": "b"})
        _step(members, produced, bootstrap, "classic", "two classic members reading")
        assert describe(admin, group).type == ConsumerGroupType.CLASSIC

        # upgrade: "a" restarts with the consumer protocol and converts the group; "b" stays classic
        members.close("a")
        members.add("a2", **CONSUMER, **{"client.id": "a2"})
        _step(members, produced, bootstrap, "mixed", "a consumer and a classic member reading")
        assert describe(admin, group).type == ConsumerGroupType.CONSUMER
        members.close("b")
        members.add("b2", **CONSUMER, **{"client.id": "b2"})
        _step(members, produced, bootstrap, "upgraded", "two consumer members reading")
        assert describe(admin, group).type == ConsumerGroupType.CONSUMER

        # downgrade: back to classic one at a time; the last consumer member leaving converts the group
        members.close("a2")
        members.add("a3", **CLASSIC, **{"client.id": "a3"})
        _step(members, produced, bootstrap, "mixed-again", "a classic and a consumer member reading")
        members.close("b2")
        members.add("b3", **CLASSIC, **{"client.id": "b3"})
        _step(members, produced, bootstrap, "downgraded", "two classic members reading")
        assert describe(admin, group).type == ConsumerGroupType.CLASSIC

        assert sorted(set(members.seen.values())) == sorted(produced)
    finally:
        members.close_all()
