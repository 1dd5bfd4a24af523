"""On real brokers: offline partitions, unclean election, preferred election.

- A partition whose only ISR member is killed (-9) goes offline and stays so (its
  out-of-sync replica is not elected) unless ``unclean.leader.election.enable=true``
  for the topic, which elects the live out-of-sync replica; ``kafkette topics describe
  --under-replicated-partitions`` lists the partitions whose ISR shrank,
  ``--unavailable-partitions`` the offline one, and an unclean ElectLeaders brings it back.
  With ``unclean.leader.election.enable=true`` on the brokers the unclean election is the
  default, and a topic override ``false`` still keeps its partition offline.
- After a broker restart moved leaderships away, preferred leader election (the
  AdminClient and ``kafkette topics elect-leaders``) moves them back; and with
  ``auto.leader.rebalance.enable`` the controller does so by itself.
"""

from __future__ import annotations

import asyncio

import pytest
from click.testing import CliRunner

from kafkette.client import (
    AdminClient,
    ElectionNotNeededError,
    LocalCluster,
    NewTopic,
    Producer,
    TopicPartition,
)
from kafkette.client.cli.main import kafkette
from tests.cluster_helpers import describe_partitions, wait_for_partitions

pytestmark = pytest.mark.timeout(150)

FAST = {
    "broker.session.timeout.ms": 3000,
    "broker.heartbeat.interval.ms": 500,
    "replica.lag.time.max.ms": 2000,
    "replica.fetch.backoff.ms": 200,
    "controlled.shutdown.retry.backoff.ms": 500,
    "auto.leader.rebalance.enable": False,
}


def start_cluster(path, **extra) -> LocalCluster:
    return LocalCluster(num_brokers=3, data_dir=path, broker_configs={**FAST, **extra}).start()


def cli(bootstrap: str, *args: str):
    return CliRunner().invoke(kafkette, [*args, "--bootstrap-server", bootstrap])


async def test_offline_partition_stays_offline_unless_unclean_election_is_enabled(tmp_path):
    cluster = start_cluster(tmp_path)
    try:
        bootstrap = cluster.bootstrap_servers
        async with AdminClient(bootstrap_servers=bootstrap) as admin:
            await admin.create_topics(
                [
                    NewTopic("clean-only", replica_assignment={0: [2, 3]}),
                    NewTopic(
                        "unclean-ok",
                        replica_assignment={0: [2, 3]},
                        configs={"unclean.leader.election.enable": "true"},
                    ),
                    NewTopic("in-sync", replica_assignment={0: [1, 2]}),
                ]
            )
        for topic in ("clean-only", "unclean-ok"):
            await wait_for_partitions(bootstrap, topic, lambda ps: sorted(ps[0].isr) == [2, 3], "full ISR")
        await wait_for_partitions(bootstrap, "in-sync", lambda ps: sorted(ps[0].isr) == [1, 2], "full ISR")
        result = await asyncio.to_thread(
            cli, bootstrap, "topics", "describe", "--under-replicated-partitions"
        )
        assert result.exit_code == 0 and result.stdout == "", result.output  # nothing under-replicated yet

        cluster.stop_broker(3, hard=True)  # 3 falls out of the ISR, then misses writes
        for topic in ("clean-only", "unclean-ok"):
            await wait_for_partitions(
                bootstrap, topic, lambda ps: ps[0].isr == [2] and ps[0].leader == 2, "ISR [2]"
            )
        result = await asyncio.to_thread(
            cli, bootstrap, "topics", "describe", "--under-replicated-partitions"
        )
        assert result.exit_code == 0, result.output
        rows = [line.split() for line in result.stdout.splitlines()[1:]]
        assert sorted(row[:2] for row in rows) == [["clean-only", "0"], ["unclean-ok", "0"]], result.stdout
        assert all(row[3:] == ["2,3", "2"] for row in rows), result.stdout  # Replicas 2,3 and Isr 2
        one = await asyncio.to_thread(
            cli, bootstrap, "topics", "describe", "unclean-ok", "--under-replicated-partitions"
        )
        assert [line.split()[:2] for line in one.stdout.splitlines()[1:]] == [["unclean-ok", "0"]], one.output
        async with Producer(bootstrap_servers=bootstrap, acks=1) as producer:
            for topic in ("clean-only", "unclean-ok"):
                await producer.send_and_wait(topic, b"only-on-2")

        cluster.stop_broker(2, hard=True)  # the sole ISR member dies
        cluster.start_broker(3)
        await wait_for_partitions(
            bootstrap, "unclean-ok", lambda ps: ps[0].leader == 3, "unclean election of broker 3"
        )
        offline = await wait_for_partitions(
            bootstrap, "clean-only", lambda ps: ps[0].leader == -1, "clean-only offline"
        )
        await asyncio.sleep(2)  # broker 3 is live: a clean-only election of it would have happened by now
        assert (await describe_partitions(bootstrap, "clean-only"))[0].leader == -1, offline

        result = await asyncio.to_thread(cli, bootstrap, "topics", "describe", "--unavailable-partitions")
        assert result.exit_code == 0, result.output
        rows = [line.split() for line in result.stdout.splitlines()[1:]]
        assert [row[:2] for row in rows] == [["clean-only", "0"]], result.stdout

        async with AdminClient(bootstrap_servers=bootstrap) as admin:
            results = await admin.elect_leaders([TopicPartition("clean-only", 0)], election_type="unclean")
        assert results == {TopicPartition("clean-only", 0): None}
        await wait_for_partitions(
            bootstrap, "clean-only", lambda ps: ps[0].leader == 3, "leader 3 after unclean ElectLeaders"
        )
    finally:
        cluster.stop()


async def test_preferred_leader_election_moves_leaders_back_after_a_restart(tmp_path):
    cluster = start_cluster(tmp_path)
    try:
        bootstrap = cluster.bootstrap_servers
        assignment = {0: [1, 2, 3], 1: [2, 3, 1], 2: [3, 1, 2]}
        async with AdminClient(bootstrap_servers=bootstrap) as admin:
            await admin.create_topics([NewTopic("preferred", replica_assignment=assignment)])
        full = lambda ps: all(sorted(p.isr) == [1, 2, 3] for p in ps)  # noqa: E731
        await wait_for_partitions(bootstrap, "preferred", full, "full ISR")

        cluster.stop_broker(2, hard=True)
        await wait_for_partitions(
            bootstrap, "preferred", lambda ps: ps[1].leader == 3, "partition 1 led by 3"
        )
        cluster.start_broker(2)
        moved = await wait_for_partitions(bootstrap, "preferred", full, "broker 2 back in every ISR")
        assert [p.leader for p in moved] == [1, 3, 3]

        async with AdminClient(bootstrap_servers=bootstrap) as admin:
            results = await admin.elect_leaders(["preferred"])
        assert results[TopicPartition("preferred", 1)] is None
        assert isinstance(results[TopicPartition("preferred", 0)], ElectionNotNeededError)
        assert isinstance(results[TopicPartition("preferred", 2)], ElectionNotNeededError)
        await wait_for_partitions(
            bootstrap, "preferred", lambda ps: [p.leader for p in ps] == [1, 2, 3], "preferred leaders"
        )

        cluster.stop_broker(3, hard=True)
        await wait_for_partitions(
            bootstrap, "preferred", lambda ps: ps[2].leader == 1, "partition 2 led by 1"
        )
        cluster.start_broker(3)
        await wait_for_partitions(bootstrap, "preferred", full, "broker 3 back in every ISR")
        result = await asyncio.to_thread(cli, bootstrap, "topics", "elect-leaders")
        assert result.exit_code == 0, result.output
        assert (
            "Successfully completed leader election (PREFERRED) for partitions preferred-2" in result.stdout
        )
        await wait_for_partitions(
            bootstrap, "preferred", lambda ps: [p.leader for p in ps] == [1, 2, 3], "preferred leaders"
        )
        again = await asyncio.to_thread(cli, bootstrap, "topics", "elect-leaders", "preferred")
        assert again.exit_code == 0 and "Valid replica already elected" in again.stdout, again.output
    finally:
        cluster.stop()


async def test_auto_leader_rebalance_restores_preferred_leaders(tmp_path):
    cluster = start_cluster(
        tmp_path,
        **{
            "auto.leader.rebalance.enable": True,
            "leader.imbalance.check.interval.seconds": 1,
            "leader.imbalance.per.broker.percentage": 0,
        },
    )
    try:
        bootstrap = cluster.bootstrap_servers
        async with AdminClient(bootstrap_servers=bootstrap) as admin:
            await admin.create_topics([NewTopic("rebalanced", replica_assignment={0: [2, 1], 1: [1, 2]})])
        full = lambda ps: all(sorted(p.isr) == [1, 2] for p in ps)  # noqa: E731
        await wait_for_partitions(bootstrap, "rebalanced", full, "full ISR")
        cluster.stop_broker(2, hard=True)
        await wait_for_partitions(
            bootstrap, "rebalanced", lambda ps: ps[0].leader == 1, "partition 0 led by 1"
        )
        cluster.start_broker(2)
        await wait_for_partitions(
            bootstrap, "rebalanced", lambda ps: [p.leader for p in ps] == [2, 1], "automatic rebalance"
        )
    finally:
        cluster.stop()


async def test_cluster_wide_unclean_election_applies_unless_the_topic_turns_it_off(tmp_path):
    cluster = start_cluster(tmp_path, **{"unclean.leader.election.enable": True})
    try:
        bootstrap = cluster.bootstrap_servers
        async with AdminClient(bootstrap_servers=bootstrap) as admin:
            await admin.create_topics(
                [
                    NewTopic("cluster-default", replica_assignment={0: [2, 3]}),
                    NewTopic(
                        "topic-says-no",
                        replica_assignment={0: [2, 3]},
                        configs={"unclean.leader.election.enable": "false"},
                    ),
                ]
            )
        for topic in ("cluster-default", "topic-says-no"):
            await wait_for_partitions(bootstrap, topic, lambda ps: sorted(ps[0].isr) == [2, 3], "full ISR")
        cluster.stop_broker(3, hard=True)
        for topic in ("cluster-default", "topic-says-no"):
            await wait_for_partitions(
                bootstrap, topic, lambda ps: ps[0].isr == [2] and ps[0].leader == 2, "ISR [2]"
            )
        cluster.stop_broker(2, hard=True)  # the sole ISR member dies
        cluster.start_broker(3)  # one controller event elects (or not) every offline partition of broker 3
        await wait_for_partitions(
            bootstrap, "cluster-default", lambda ps: ps[0].leader == 3, "unclean election of broker 3"
        )
        assert (await describe_partitions(bootstrap, "topic-says-no"))[0].leader == -1
    finally:
        cluster.stop()
