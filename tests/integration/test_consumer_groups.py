"""Consumer groups on real brokers: members share a topic's partitions, a member killed with
SIGKILL has its partitions taken over by the others (from the group's committed offsets), a
member that leaves hands over at once, a restarted member resumes where its group committed, a
restarted static member (KIP-345) keeps its partitions without a rebalance and fences its older
instance, the group carries on when its coordinator's broker dies, and bad settings get Kafka's
errors.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kafkette.client import (
    AdminClient,
    Consumer,
    ConsumerRebalanceListener,
    FencedInstanceIdError,
    IllegalStateError,
    InvalidGroupIdError,
    InvalidSessionTimeoutError,
    NewTopic,
    Producer,
    TopicPartition,
)
from kafkette.protocol.apis.group_membership import HeartbeatRequest
from kafkette.protocol.errors import Errors
from tests.cluster_helpers import wait_until

pytestmark = pytest.mark.timeout(300)

GROUP_CONFIGS = {"group_initial_rebalance_delay_ms": 300, "group_min_session_timeout_ms": 1000}
SESSION_TIMEOUT_MS = 3000


async def _produce(bootstrap: str, topic: str, count: int, partitions: int) -> None:
    async with Producer(bootstrap_servers=bootstrap, acks="all", linger_ms=5) as producer:
        futures = [
            await producer.send(topic, f"{i}".encode(), partition=i % partitions) for i in range(count)
        ]
        await producer.flush()
        for future in futures:
            await future


def _read(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def _records(lines: list[str]) -> list[tuple[int, int]]:
    return [(int(p), int(o)) for _, p, o in (line.split() for line in lines if line.startswith("R "))]


def _assignments(lines: list[str]) -> list[set[int]]:
    return [
        {int(p) for p in line[len("ASSIGNED ") :].split(",") if p}
        for line in lines
        if line.startswith("ASSIGNED")
    ]


async def test_three_member_processes_share_a_topic_and_take_over_from_a_killed_one(
    cluster_factory, tmp_path
):
    cluster = cluster_factory(3, **GROUP_CONFIGS)
    bootstrap = cluster.bootstrap_servers
    total, partitions = 100_000, 6
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics([NewTopic("events", partitions, 2)])
    await _produce(bootstrap, "events", total, partitions)

    outputs = [tmp_path / f"member-{i}.out" for i in range(3)]
    # about 10,000 records a second each: the kill lands in the middle of the victim's work
    env = dict(os.environ, SESSION_TIMEOUT_MS=str(SESSION_TIMEOUT_MS), MAX_RECORDS="200", POLL_PAUSE_MS="20")
    members = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.group_member_process", bootstrap, "workers", "events"],
            stdout=out.open("w"),
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=Path(__file__).resolve().parents[2],
        )
        for out in outputs
    ]
    try:

        def all_assigned() -> bool:
            latest = [(_assignments(_read(o)) or [set()])[-1] for o in outputs]
            return all(latest) and sorted(p for a in latest for p in a) == list(range(partitions))

        await wait_until(all_assigned, "three members sharing six partitions", timeout_s=60)
        latest = [_assignments(_read(o))[-1] for o in outputs]
        assert all(len(a) == 2 for a in latest), latest

        await wait_until(lambda: len(_records(_read(outputs[0]))) > 0, "member 0 consuming", timeout_s=30)
        victim_partitions = latest[0]
        members[0].kill()  # SIGKILL: no LeaveGroup, no last commit
        members[0].wait(10)
        killed_at = time.monotonic()

        def taken_over() -> bool:
            now = [(_assignments(_read(o)) or [set()])[-1] for o in outputs[1:]]
            return set().union(*now) == set(range(partitions))

        await wait_until(taken_over, "the killed member's partitions taken over", timeout_s=30)
        takeover_s = time.monotonic() - killed_at
        print(
            f"partitions {sorted(victim_partitions)} taken over {takeover_s:.2f} s after the kill "
            f"(session.timeout.ms {SESSION_TIMEOUT_MS})"
        )
        assert takeover_s < SESSION_TIMEOUT_MS / 1000 + 5

        def everything_read() -> bool:
            return len(set().union(*(set(_records(_read(o))) for o in outputs))) == total

        await wait_until(everything_read, "every record read", timeout_s=120)
    finally:
        for member in members:
            if member.poll() is None:
                member.send_signal(signal.SIGTERM)
        for member in members:
            try:
                member.wait(15)
            except subprocess.TimeoutExpired:
                member.kill()

    read = [_records(_read(o)) for o in outputs]
    seen: dict[tuple[int, int], int] = {}
    for records in read:
        for record in records:
            seen[record] = seen.get(record, 0) + 1
    assert len(seen) == total  # every record at least once
    duplicated = {p for (p, _), n in seen.items() if n > 1}
    assert duplicated <= victim_partitions, f"duplicates outside the killed member's partitions: {duplicated}"
    for p in victim_partitions:  # the survivors resumed at the group's last commit: nothing before it twice
        # (none read by the survivors: the killed member had committed its partition's end)
        resumed_at = min(
            (o for records in read[1:] for q, o in records if q == p), default=total // partitions
        )
        assert all(seen[(p, o)] == 1 for o in range(resumed_at)), (
            f"partition {p} re-read before offset {resumed_at}"
        )
    for records in read[1:]:  # a survivor reads each partition in offset order, from one start
        by_partition: dict[int, list[int]] = {}
        for p, o in records:
            by_partition.setdefault(p, []).append(o)
        for p, offsets in by_partition.items():
            if p not in victim_partitions:
                assert offsets == sorted(set(offsets)), f"partition {p} read twice or out of order"


class Recorder(ConsumerRebalanceListener):
    def __init__(self) -> None:
        self.revoked: list[set[TopicPartition]] = []
        self.assigned: list[set[TopicPartition]] = []

    def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
        self.revoked.append(revoked)

    async def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
        self.assigned.append(assigned)


async def _consume(consumer: Consumer, until: int, got: list[tuple[int, int]], timeout_s: float = 60) -> None:
    await _poll_until([(consumer, got)], lambda: len(got) >= until, f"{until} records", timeout_s)


async def _poll_until(
    members: list[tuple[Consumer, list[tuple[int, int]]]], done, what: str, timeout_s: float = 30
) -> None:
    """Keep every member polling (records kept in its list) until ``done()``."""
    deadline = time.monotonic() + timeout_s
    while not done():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        for consumer, got in members:
            for tp, records in (await consumer.getmany(timeout_ms=100)).items():
                got += [(tp.partition, r.offset) for r in records]


async def test_a_leaving_member_hands_over_and_a_restarted_one_resumes_at_the_commit(cluster_factory):
    cluster = cluster_factory(1, controllers=1, **GROUP_CONFIGS)
    bootstrap = cluster.bootstrap_servers
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics([NewTopic("jobs", 4, 1)])
    await _produce(bootstrap, "jobs", 400, 4)
    settings = dict(
        bootstrap_servers=bootstrap,
        group_id="crew",
        auto_offset_reset="earliest",
        session_timeout_ms=SESSION_TIMEOUT_MS,
        heartbeat_interval_ms=300,
        enable_auto_commit=False,
    )
    first, second = Recorder(), Recorder()
    got_a: list[tuple[int, int]] = []
    got_b: list[tuple[int, int]] = []
    async with (
        Consumer(**settings) as a,
        Consumer(**settings, partition_assignment_strategy=["roundrobin", "range"]) as b,
    ):
        a.subscribe(["jobs"], listener=first)
        b.subscribe(["jobs"], listener=second)
        await _poll_until(
            [(a, got_a), (b, got_b)],
            lambda: len(a.assignment()) == 2 and len(b.assignment()) == 2,
            "two members with two partitions each",
        )
        assert a.assignment().isdisjoint(b.assignment())
        await asyncio.gather(_consume(a, 200, got_a), _consume(b, 200, got_b))
        await a.commit()
        await b.commit()
        for tp in a.assignment():
            assert await a.committed(tp) == await a.position(tp)
        await a.stop()  # LeaveGroup: b gets every partition at once
        everything = {TopicPartition("jobs", p) for p in range(4)}
        await _poll_until(
            [(b, got_b)], lambda: second.assigned[-1] == everything, "b owning every partition", 10
        )
        assert b.assignment() == everything and second.revoked[-1] == set(second.assigned[-2])
        await _produce(bootstrap, "jobs", 40, 4)  # b reads a's partitions from a's commits, not from 0
        await _consume(b, 240, got_b)
        await b.commit()
    assert sorted(got_a + got_b) == sorted((p, o) for p in range(4) for o in range(110)), (
        "read twice or missed"
    )

    await _produce(bootstrap, "jobs", 40, 4)
    got_c: list[tuple[int, int]] = []
    async with Consumer(**settings) as c:  # a restarted member: from the group's commits, not the beginning
        c.subscribe("jobs")
        await _consume(c, 40, got_c)
    assert sorted(got_c) == sorted((p, o) for p in range(4) for o in range(110, 120))


async def test_a_static_member_restarted_within_its_session_keeps_its_partitions(cluster_factory):
    cluster = cluster_factory(1, controllers=1, **GROUP_CONFIGS)
    bootstrap = cluster.bootstrap_servers
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics([NewTopic("static", 4, 1)])
    settings = dict(
        bootstrap_servers=bootstrap,
        group_id="fleet",
        auto_offset_reset="earliest",
        session_timeout_ms=10000,
        heartbeat_interval_ms=300,
    )
    watch_a, watch_b = Recorder(), Recorder()
    got: list[tuple[int, int]] = []
    b = Consumer(**settings, group_instance_id="worker-b")
    await b.start()
    try:
        b.subscribe(["static"], listener=watch_b)
        async with Consumer(**settings, group_instance_id="worker-a") as a:
            a.subscribe(["static"], listener=watch_a)
            await _poll_until(
                [(a, got), (b, got)],
                lambda: len(a.assignment()) == 2 and len(b.assignment()) == 2,
                "two static members with two partitions each",
            )
            before = a.assignment()
        # a stopped without leaving (a static member keeps its session): the group did not rebalance
        rebalances = len(watch_b.assigned)
        async with Consumer(**settings, group_instance_id="worker-a") as restarted:
            restarted.subscribe(["static"], listener=(watch_restarted := Recorder()))
            await _poll_until(
                [(restarted, got), (b, got)],
                lambda: bool(watch_restarted.assigned),
                "the restarted static member's assignment",
            )
            assert restarted.assignment() == before
            for _ in range(10):  # b keeps its partitions: no revocation, no new assignment
                await b.getmany(timeout_ms=100)
            assert len(watch_b.assigned) == rebalances and b.assignment().isdisjoint(before)

            # a second instance with the same group.instance.id fences the running one
            async with Consumer(**settings, group_instance_id="worker-a") as usurper:
                usurper.subscribe(["static"])
                with pytest.raises(FencedInstanceIdError):
                    await _poll_until(
                        [(restarted, got), (usurper, got), (b, got)],
                        lambda: False,
                        "the older instance fenced",
                        timeout_s=30,
                    )
                assert restarted.assignment() == set()
    finally:
        await b.stop()


async def test_a_member_joining_a_cooperative_sticky_group_moves_only_what_it_receives(cluster_factory):
    cluster = cluster_factory(1, controllers=1, **GROUP_CONFIGS)
    bootstrap = cluster.bootstrap_servers
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics([NewTopic("shared", 6, 1)])
    await _produce(bootstrap, "shared", 600, 6)
    settings = dict(
        bootstrap_servers=bootstrap,
        group_id="cooperative",
        auto_offset_reset="earliest",
        session_timeout_ms=SESSION_TIMEOUT_MS,
        heartbeat_interval_ms=300,
        partition_assignment_strategy=["cooperative-sticky"],
    )
    watch = {name: Recorder() for name in "abc"}
    got: list[tuple[int, int]] = []
    async with Consumer(**settings) as a, Consumer(**settings) as b:
        a.subscribe(["shared"], listener=watch["a"])
        b.subscribe(["shared"], listener=watch["b"])
        await _poll_until(
            [(a, got), (b, got)],
            lambda: len(a.assignment()) == 3 and len(b.assignment()) == 3,
            "a and b with three partitions each",
        )
        before = {"a": a.assignment(), "b": b.assignment()}
        async with Consumer(**settings) as c:
            c.subscribe(["shared"], listener=watch["c"])
            await _poll_until(
                [(a, got), (b, got), (c, got)],
                lambda: [len(x.assignment()) for x in (a, b, c)] == [2, 2, 2],
                "two partitions each",
            )
            for name, member in (("a", a), ("b", b)):
                assert member.assignment() < before[name], "a member took a partition it did not own"
                # only the one partition c received was revoked: the member never stopped the others
                assert [len(r) for r in watch[name].revoked if r] == [1], watch[name].revoked
                assert not any(watch[name].assigned[1:]), "a kept member got partitions added"
            assert c.assignment() == (before["a"] - a.assignment()) | (before["b"] - b.assignment())
            await _poll_until([(a, got), (b, got), (c, got)], lambda: len(set(got)) == 600, "every record")


async def test_the_group_carries_on_when_its_coordinator_dies(cluster_factory):
    cluster = cluster_factory(3, **GROUP_CONFIGS)
    bootstrap = cluster.bootstrap_servers
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics([NewTopic("ledger", 3, 3)])
        coordinator = await admin.find_coordinator("accounts")
    await _produce(bootstrap, "ledger", 300, 3)
    settings = dict(
        bootstrap_servers=bootstrap,
        group_id="accounts",
        auto_offset_reset="earliest",
        session_timeout_ms=SESSION_TIMEOUT_MS,
        heartbeat_interval_ms=300,
        auto_commit_interval_ms=200,
    )
    got: list[tuple[int, int]] = []
    watch = Recorder()
    async with Consumer(**settings) as consumer:
        consumer.subscribe(["ledger"], listener=watch)
        await _consume(consumer, 300, got)
        await consumer.commit()
        cluster.stop_broker(coordinator, hard=True)
        await _produce(bootstrap, "ledger", 300, 3)
        await _consume(consumer, 600, got)
        await consumer.commit()
        # the new coordinator loaded the group's generation and members: no rebalance was needed
        assert len(watch.assigned) == 1 and not watch.revoked
    assert sorted(got) == sorted((p, o) for p in range(3) for o in range(200))
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        assert await admin.find_coordinator("accounts") != coordinator
        committed = await admin.list_consumer_group_offsets("accounts")
        assert {tp.partition: v.offset for tp, v in committed.items()} == {0: 200, 1: 200, 2: 200}


async def test_a_pattern_subscription_picks_up_new_matching_topics(cluster_factory):
    cluster = cluster_factory(1, controllers=1, **GROUP_CONFIGS)
    bootstrap = cluster.bootstrap_servers
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics([NewTopic("metrics-cpu", 2, 1), NewTopic("logs", 1, 1)])
        got: list[tuple[int, int]] = []
        async with Consumer(
            bootstrap_servers=bootstrap,
            group_id="dashboards",
            metadata_max_age_ms=300,
            session_timeout_ms=SESSION_TIMEOUT_MS,
            heartbeat_interval_ms=300,
        ) as consumer:
            consumer.subscribe(pattern=r"metrics-.*")
            cpu = {TopicPartition("metrics-cpu", p) for p in range(2)}
            await _poll_until([(consumer, got)], lambda: consumer.assignment() == cpu, "metrics-cpu assigned")
            await admin.create_topics([NewTopic("metrics-disk", 1, 1)])
            await _poll_until(
                [(consumer, got)],
                lambda: consumer.assignment() == cpu | {TopicPartition("metrics-disk", 0)},
                "the new matching topic assigned",
            )
            assert consumer.subscription() == {"metrics-cpu", "metrics-disk"}
            with pytest.raises(ValueError, match="topics or pattern, not both"):
                consumer.subscribe(["logs"], pattern="metrics-.*")
            with pytest.raises(ValueError, match="not a regular expression"):
                consumer.subscribe(pattern="metrics-(")


async def test_a_member_that_stops_polling_leaves_and_its_partitions_move(cluster_factory):
    cluster = cluster_factory(1, controllers=1, **GROUP_CONFIGS)
    bootstrap = cluster.bootstrap_servers
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics([NewTopic("slow", 2, 1)])
    settings = dict(
        bootstrap_servers=bootstrap,
        group_id="pollers",
        session_timeout_ms=SESSION_TIMEOUT_MS,
        heartbeat_interval_ms=300,
        max_poll_interval_ms=2000,
    )
    got: list[tuple[int, int]] = []
    async with Consumer(**settings) as stuck, Consumer(**settings) as busy:
        stuck.subscribe(["slow"])
        busy.subscribe(["slow"])
        await _poll_until(
            [(stuck, got), (busy, got)],
            lambda: len(stuck.assignment()) == len(busy.assignment()) == 1,
            "one partition each",
        )
        # stuck stops calling getmany (its heartbeats go on): after max.poll.interval.ms it leaves
        await _poll_until(
            [(busy, got)], lambda: len(busy.assignment()) == 2, "busy owning both partitions", 20
        )
        assert stuck.assignment() == set()
        await _poll_until(
            [(stuck, got), (busy, got)],
            lambda: len(stuck.assignment()) == 1,
            "stuck back in the group once it polls again",
            20,
        )


async def test_bad_group_settings_get_kafkas_errors(cluster_factory):
    cluster = cluster_factory(1, controllers=1)  # group.min.session.timeout.ms 6000, Kafka's default
    bootstrap = cluster.bootstrap_servers
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics([NewTopic("t", 1, 1)])
    async with Consumer(
        bootstrap_servers=bootstrap, group_id="g", session_timeout_ms=1000, heartbeat_interval_ms=300
    ) as consumer:
        consumer.subscribe(["t"])
        with pytest.raises(InvalidSessionTimeoutError, match="group.min.session.timeout.ms"):
            for _ in range(100):
                await consumer.getmany(timeout_ms=100)
    for bad_group in ("", "g" * 32768):  # empty, or longer than a __consumer_offsets key holds
        async with Consumer(bootstrap_servers=bootstrap, group_id=bad_group) as consumer:
            consumer.subscribe(["t"])
            with pytest.raises(InvalidGroupIdError):
                for _ in range(100):
                    await consumer.getmany(timeout_ms=100)
    async with AdminClient(bootstrap_servers=bootstrap) as admin:  # an unknown member's heartbeat
        await admin.alter_consumer_group_offsets("g", {TopicPartition("t", 0): 0})
        response = await admin._client.send_to_any(
            HeartbeatRequest(group_id="g", generation_id=1, member_id="nobody")
        )
        assert response.error_code == Errors.UNKNOWN_MEMBER_ID
    async with Consumer(bootstrap_servers=bootstrap) as consumer:
        with pytest.raises(InvalidGroupIdError, match="group_id"):
            consumer.subscribe(["t"])
        with pytest.raises(InvalidGroupIdError):
            await consumer.commit()
    async with Consumer(bootstrap_servers=bootstrap, group_id="g") as consumer:
        consumer.assign([TopicPartition("t", 0)])
        with pytest.raises(IllegalStateError, match="mutually exclusive"):
            consumer.subscribe(["t"])
        await consumer.seek_to_beginning()
        await consumer.commit({TopicPartition("t", 0): 0})  # a commit outside group management
        assert await consumer.committed(TopicPartition("t", 0)) == 0
    with pytest.raises(ValueError, match="heartbeat_interval_ms"):
        Consumer(
            bootstrap_servers=bootstrap, group_id="g", session_timeout_ms=1000, heartbeat_interval_ms=1000
        )
