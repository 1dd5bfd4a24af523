"""KIP-848's consumer group protocol (``group.protocol=consumer``: ConsumerGroupHeartbeat, the
coordinator's server-side assignor, ConsumerGroupDescribe) through real clients, against Apache
Kafka 4.3.1 (``tests/peers/kafka_peer.py``) and against Kafkette's Kafka listener, with the same
outcome on both: confluent-kafka (librdkafka) members sharing a topic with every record consumed
once and no partition held by two members at a time, commits resumed by restarted members, the
group seen through the AdminClient; Kafka's Java consumer (``tests/peers/kafka_clients/
ConsumerProtocol.java``: OffsetCommit v10, ``Admin.describeConsumerGroups``); and a static member
(``group.instance.id``) that restarts within the session timeout keeping its partitions; and regex
subscriptions (librdkafka's ``^`` subscription, the Java consumer's ``SubscriptionPattern``: ``tests/peers/
kafka_clients/RegexSubscription.java``) reading a matching topic created after they subscribed.

Both clusters have 3 nodes and ``SHARED_BROKER_CONFIGS`` (Kafka's defaults for the consumer
protocol: a 45 s session, a 5 s heartbeat interval, a 1 s assignment interval), each started once
for the module; every test uses names of its own.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest
from confluent_kafka import (
    Consumer,
    ConsumerGroupState,
    ConsumerGroupType,
    KafkaError,
    Producer,
    TopicPartition,
)
from confluent_kafka.admin import AdminClient, NewTopic

from tests.interop.test_java_clients import PROGRAM_TIMEOUT_S, java

TIMEOUT_S = 30
REBALANCE_WAIT_S = 90
"""Bound of a rebalance through heartbeats: several heartbeats 5 s apart (Kafka's default interval)."""


@pytest.fixture(params=["kafka", "kafkette"])
def bootstrap(request: pytest.FixtureRequest) -> str:
    """The bootstrap servers of each cluster in turn (the test runs once per cluster)."""
    return request.getfixturevalue(request.param)


# --- helpers -----------------------------------------------------------------------------------------


def create_topic(bootstrap: str, name: str, partitions: int) -> None:
    """Create ``name`` (replication factor 3) and wait until each partition has a leader."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(name, partitions, 3)], operation_timeout=TIMEOUT_S)[name].result(TIMEOUT_S)
    deadline = time.monotonic() + TIMEOUT_S
    while True:
        meta = admin.list_topics(name, timeout=10).topics.get(name)
        if meta is not None and meta.error is None and len(meta.partitions) == partitions:
            if all(p.leader >= 0 for p in meta.partitions.values()):
                return
        assert time.monotonic() < deadline, f"{name} has no leader for each partition after {TIMEOUT_S} s"
        time.sleep(0.2)


def produce(bootstrap: str, topic: str, values: list[bytes]) -> None:
    """Produce ``values`` (keyed by themselves, spread over the partitions by key) and flush."""
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5})
    errors: list = []
    for value in values:
        producer.produce(
            topic, value=value, key=value, on_delivery=lambda err, _m: err and errors.append(err)
        )
        producer.poll(0)
    assert producer.flush(TIMEOUT_S) == 0, "records left undelivered"
    assert not errors, errors[:3]


@dataclass
class Members:
    """confluent-kafka consumers of one group with ``group.protocol=consumer``, polled in turn
    from one thread; every record is committed (synchronously, its offset + 1) right after it is
    processed.  The rebalance callbacks keep who holds which partition; a partition given to one
    member while another still holds it is recorded in ``overlaps``.

    Attributes:
        held: partition -> the member holding it, as the callbacks said.
        overlaps: ``(partition, new holder, old holder)`` for each assignment of a held partition.
        seen: ``(partition, offset) -> value`` of every record processed.
        duplicates: ``(partition, offset)`` of records processed twice.
        assigned_events: ``(member, partitions)`` of every assignment callback, in order.
        consumers: member name -> its Consumer.
    """

    bootstrap: str
    group: str
    topic: str
    extra: dict[str, object] = field(default_factory=dict)
    held: dict[int, str] = field(default_factory=dict)
    overlaps: list[tuple[int, str, str]] = field(default_factory=list)
    seen: dict[tuple[int, int], bytes] = field(default_factory=dict)
    duplicates: list[tuple[int, int]] = field(default_factory=list)
    assigned_events: list[tuple[str, list[int]]] = field(default_factory=list)
    consumers: dict[str, Consumer] = field(default_factory=dict)

    def add(self, name: str, **conf: object) -> Consumer:
        """A new member ``name`` subscribed to the topic (``conf`` over the group's settings)."""
        consumer = Consumer(
            {
                "bootstrap.servers": self.bootstrap,
                "group.id": self.group,
                "group.protocol": "consumer",
                "auto.offset.reset": "earliest",
                "enable.auto.commit": False,
                **self.extra,
                **conf,
            }
        )
        consumer.subscribe([self.topic], on_assign=self._on_assign(name), on_revoke=self._on_revoke(name))
        self.consumers[name] = consumer
        return consumer

    def _on_assign(self, name: str) -> Callable[[Consumer, list[TopicPartition]], None]:
        def on_assign(_consumer: Consumer, partitions: list[TopicPartition]) -> None:
            self.assigned_events.append((name, sorted(tp.partition for tp in partitions)))
            for tp in partitions:
                holder = self.held.get(tp.partition)
                if holder is not None and holder != name:
                    self.overlaps.append((tp.partition, name, holder))
                self.held[tp.partition] = name

        return on_assign

    def _on_revoke(self, name: str) -> Callable[[Consumer, list[TopicPartition]], None]:
        def on_revoke(_consumer: Consumer, partitions: list[TopicPartition]) -> None:
            for tp in partitions:
                if self.held.get(tp.partition) == name:
                    del self.held[tp.partition]

        return on_revoke

    def poll_all(self, seconds: float = 0.2) -> None:
        """One poll of each member; each record processed is committed at once."""
        for consumer in list(self.consumers.values()):
            msg = consumer.poll(seconds / max(len(self.consumers), 1))
            if msg is None:
                continue
            if msg.error() is not None:
                assert msg.error().code() == KafkaError._PARTITION_EOF, msg.error()
                continue
            key = (msg.partition(), msg.offset())
            if key in self.seen:
                self.duplicates.append(key)
            self.seen[key] = msg.value()
            consumer.commit(
                offsets=[TopicPartition(self.topic, msg.partition(), msg.offset() + 1)], asynchronous=False
            )

    def assignments(self) -> dict[str, set[int]]:
        """Each member's current assignment (partition indexes)."""
        return {name: {tp.partition for tp in c.assignment()} for name, c in self.consumers.items()}

    def poll_until(self, done: Callable[[], bool], what: str, timeout_s: float = REBALANCE_WAIT_S) -> None:
        """Poll every member until ``done()``.

        Raises:
            AssertionError: not within ``timeout_s`` (naming ``what`` and the assignments).
        """
        deadline = time.monotonic() + timeout_s
        while not done():
            assert time.monotonic() < deadline, (
                f"{what} not reached in {timeout_s} s: assignments {self.assignments()}, "
                f"{len(self.seen)} records seen"
            )
            self.poll_all()

    def close(self, name: str) -> None:
        """Close one member (it leaves the group: a -1 heartbeat, or -2 for a static member)."""
        self.consumers.pop(name).close()

    def close_all(self) -> None:
        for name in list(self.consumers):
            self.close(name)


def split(assignments: dict[str, set[int]], partitions: int) -> bool:
    """Every member holds something, no partition twice, all ``partitions`` held."""
    held = [p for parts in assignments.values() for p in parts]
    return all(assignments.values()) and sorted(held) == list(range(partitions))


def describe(admin: AdminClient, group: str):
    """The AdminClient's description of ``group`` (ConsumerGroupDescribe, or DescribeGroups)."""
    return admin.describe_consumer_groups([group], request_timeout=TIMEOUT_S)[group].result(TIMEOUT_S)


def described_split(description) -> dict[str, list[int]]:
    """A description's members (by client id) and their assigned partitions."""
    return {
        m.client_id: sorted(tp.partition for tp in m.assignment.topic_partitions) for m in description.members
    }


def wait_described(
    admin: AdminClient, group: str, members: Members | None, done: Callable[[object], bool], what: str
):
    """Describe ``group`` (polling ``members`` meanwhile) until ``done(description)``; the description."""
    deadline = time.monotonic() + REBALANCE_WAIT_S
    while True:
        description = describe(admin, group)
        if done(description):
            return description
        assert time.monotonic() < deadline, f"{what} not described in {REBALANCE_WAIT_S} s: {description}"
        if members is not None:
            for _ in range(5):
                members.poll_all()
        else:
            time.sleep(0.5)


# --- confluent-kafka (librdkafka) ----------------------------------------------------------------------


@pytest.mark.timeout(900)
def test_librdkafka_members_of_a_consumer_group_consume_each_record_once_and_resume_from_commits(bootstrap):
    topic, group, partitions = "cgp-rd", "cgp-rd-group", 6
    create_topic(bootstrap, topic, partitions)
    admin = AdminClient({"bootstrap.servers": bootstrap})
    first = [b"first-%04d" % i for i in range(300)]
    produce(bootstrap, topic, first)

    members = Members(bootstrap, group, topic)
    try:
        # one member: all six partitions, the 300 records
        members.add("m1", **{"client.id": "m1"})
        members.poll_until(
            lambda: members.assignments()["m1"] == set(range(partitions)) and len(members.seen) == 300,
            "one member holding every partition and reading the 300 records",
        )
        alone = wait_described(
            admin,
            group,
            members,
            lambda d: d.state == ConsumerGroupState.STABLE and len(d.members) == 1,
            "a Stable group of one",
        )
        assert alone.type == ConsumerGroupType.CONSUMER
        assert not alone.is_simple_consumer_group
        assert described_split(alone) == {"m1": list(range(partitions))}

        # three members: the partitions split, never held twice, each record once
        members.add("m2", **{"client.id": "m2"})
        members.add("m3", **{"client.id": "m3"})
        second = [b"second-%04d" % i for i in range(300)]
        produce(bootstrap, topic, second)
        members.poll_until(
            lambda: split(members.assignments(), partitions) and len(members.seen) == 600,
            "three members splitting the partitions and 600 records read",
        )
        assert members.overlaps == []
        assert members.duplicates == []
        assert sorted(members.seen.values()) == sorted(first + second)
        three = wait_described(
            admin,
            group,
            members,
            lambda d: d.state == ConsumerGroupState.STABLE and len(d.members) == 3,
            "a Stable group of three",
        )
        assert three.type == ConsumerGroupType.CONSUMER
        assert three.partition_assignor == "uniform"
        by_member = described_split(three)
        assert sorted(by_member) == ["m1", "m2", "m3"]
        assert sorted(p for parts in by_member.values() for p in parts) == list(range(partitions))
        assert all(len(parts) == 2 for parts in by_member.values()), by_member
        assert {name: set(parts) for name, parts in by_member.items()} == members.assignments()
        for m in three.members:
            assert m.target_assignment is not None
            assert (
                sorted(tp.partition for tp in m.target_assignment.topic_partitions) == by_member[m.client_id]
            )
        listed = admin.list_consumer_groups(types={ConsumerGroupType.CONSUMER}).result(TIMEOUT_S)
        assert [(g.group_id, g.type) for g in listed.valid if g.group_id == group] == [
            (group, ConsumerGroupType.CONSUMER)
        ]

        # a clean close leaves the group: two members take its partitions
        members.close("m3")
        members.poll_until(
            lambda: split(members.assignments(), partitions), "two members holding every partition"
        )
        two = wait_described(
            admin,
            group,
            members,
            lambda d: d.state == ConsumerGroupState.STABLE and len(d.members) == 2,
            "a Stable group of two after a close",
        )
        assert sorted(described_split(two)) == ["m1", "m2"]
        assert members.overlaps == []
        members.close_all()
        empty = wait_described(
            admin, group, None, lambda d: d.state == ConsumerGroupState.EMPTY, "an Empty group"
        )
        assert empty.members == [] and empty.type == ConsumerGroupType.CONSUMER

        # restarted members resume from the commits: only the new records
        third = [b"third-%04d" % i for i in range(60)]
        produce(bootstrap, topic, third)
        before = set(members.seen)
        members.add("r1", **{"client.id": "r1"})
        members.add("r2", **{"client.id": "r2"})
        members.poll_until(lambda: len(members.seen) == 660, "the 60 new records read after a restart")
        for _ in range(20):  # nothing older comes back
            members.poll_all()
        assert members.duplicates == []
        assert sorted(members.seen[k] for k in set(members.seen) - before) == sorted(third)
    finally:
        members.close_all()


@pytest.mark.timeout(900)
def test_a_static_librdkafka_member_restarting_within_the_session_timeout_keeps_its_partitions(bootstrap):
    topic, group, partitions = "cgp-static", "cgp-static-group", 4
    create_topic(bootstrap, topic, partitions)
    admin = AdminClient({"bootstrap.servers": bootstrap})
    members = Members(bootstrap, group, topic)
    try:
        members.add("static", **{"client.id": "static", "group.instance.id": "cgp-static-instance"})
        members.add("other", **{"client.id": "other", "group.instance.id": "cgp-other-instance"})
        members.poll_until(lambda: split(members.assignments(), partitions), "two static members splitting")
        wait_described(
            admin,
            group,
            members,
            lambda d: d.state == ConsumerGroupState.STABLE and len(d.members) == 2,
            "a Stable group of two",
        )
        kept = members.assignments()["static"]
        other = members.assignments()["other"]
        events = len(members.assigned_events)

        members.close("static")  # a static member's leave (-2): its partitions wait for it
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # two heartbeat intervals: nothing moves to the other
            members.poll_all()
        assert members.assignments()["other"] == other
        members.add("static", **{"client.id": "static", "group.instance.id": "cgp-static-instance"})
        members.poll_until(
            lambda: members.assignments()["static"] == kept, "the restarted member's partitions"
        )
        assert members.assignments()["other"] == other
        assert [e for e in members.assigned_events[events:] if e[0] == "other"] == []
        assert members.overlaps == []
        back = wait_described(
            admin,
            group,
            members,
            lambda d: d.state == ConsumerGroupState.STABLE and len(d.members) == 2,
            "a Stable group of two after the restart",
        )
        instances = {m.client_id: m.group_instance_id for m in back.members}
        assert instances == {"static": "cgp-static-instance", "other": "cgp-other-instance"}
        assert described_split(back) == {"static": sorted(kept), "other": sorted(other)}
    finally:
        members.close_all()


# --- Kafka's Java consumer ------------------------------------------------------------------------------


@pytest.mark.timeout(PROGRAM_TIMEOUT_S + 300)
def test_the_java_consumer_with_the_consumer_protocol_works_as_on_kafka(bootstrap):
    lines = java("ConsumerProtocol", bootstrap, "cgp-java")
    assert lines == [
        "one member assigned=4 read=400 duplicates=0",
        "describe type=CONSUMER state=STABLE members=1 assigned=4 assignor=uniform",
        "two members split=true read=400 duplicates=0 overlaps=0",
        "describe type=CONSUMER state=STABLE members=2 assigned=4 target=4 epochs_set=true",
        "after close members=1 assigned=4",
        "resumed read=100 duplicates=0 only_new=true",
        "describe type=CONSUMER state=EMPTY members=0",
    ]


# --- regex subscriptions (ConsumerGroupHeartbeat's SubscribedTopicRegex) --------------------------------

REGEX_WAIT_S = 90
"""Bound of a wait for a topic created after the subscription: the coordinator resolves a group's regexes
at most once per 10 s, then the next heartbeats (5 s apart) carry the new assignment."""


def _poll_values(consumer: Consumer, values: set[bytes], want: set[bytes], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while not want <= values and time.monotonic() < deadline:
        message = consumer.poll(0.5)
        if message is not None and message.error() is None:
            values.add(message.value())


@pytest.mark.timeout(REGEX_WAIT_S + 120)
def test_a_librdkafka_regex_subscription_reads_a_topic_created_after_it_subscribed(bootstrap):
    create_topic(bootstrap, "cgprx-orders-a", 2)
    create_topic(bootstrap, "cgprx-other", 1)
    a = {f"a{i}".encode() for i in range(20)}
    b = {f"b{i}".encode() for i in range(20)}
    produce(bootstrap, "cgprx-orders-a", sorted(a))
    produce(bootstrap, "cgprx-other", [b"other"])
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": "cgprx-group",
            "group.protocol": "consumer",
            "auto.offset.reset": "earliest",
            "topic.metadata.refresh.interval.ms": 2000,
        }
    )
    try:
        consumer.subscribe(["^cgprx-orders-.*"])
        values: set[bytes] = set()
        _poll_values(consumer, values, a, REGEX_WAIT_S)
        assert values == a
        create_topic(bootstrap, "cgprx-orders-b", 1)
        produce(bootstrap, "cgprx-orders-b", sorted(b))
        _poll_values(consumer, values, a | b, REGEX_WAIT_S)
        assert values == a | b  # nothing of cgprx-other
    finally:
        consumer.close()


@pytest.mark.timeout(PROGRAM_TIMEOUT_S + 300)
def test_the_java_consumer_subscribing_with_a_subscription_pattern_works_as_on_kafka(bootstrap):
    lines = java("RegexSubscription", bootstrap, "cgprx-java")
    assert lines == [
        "before creation topics=[cgprx-java-orders-a] read=50",
        "after creation topics=[cgprx-java-orders-a, cgprx-java-orders-b] read=100",
    ]
