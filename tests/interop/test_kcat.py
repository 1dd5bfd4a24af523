"""kcat (librdkafka's command-line client) against the Kafka-protocol listener of a 3-broker
cluster: metadata listing (``-L``, ``-J``), producing keyed records with headers (``-P -K -H``),
consuming them back (``-C -e -o beginning`` with a ``-f`` format and with ``-J``) and the
consumer-group mode (``-G``), whose commits Kafkette's SDK then reads.

Topics are made with Kafkette's AdminClient on the msgpack listener; every kcat run has a
timeout and must exit 0.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import time

from kafkette.client import AdminClient, LocalCluster, NewTopic, TopicPartition
from tests.cluster_helpers import wait_for_partitions

KCAT_TIMEOUT_S = 30
GROUP_TIMEOUT_S = 60


async def _kcat(
    kcat: str, *args: str, stdin: str | None = None, timeout_s: float = KCAT_TIMEOUT_S
) -> subprocess.CompletedProcess[str]:
    """Run ``kcat args`` (killed after ``timeout_s`` seconds); the finished process, which must have
    exited 0."""
    done = await asyncio.to_thread(
        subprocess.run,
        [kcat, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout_s,
        check=False,
    )
    assert done.returncode == 0, f"kcat {' '.join(args)} exited {done.returncode}: {done.stderr}"
    return done


async def _create_topic(cluster: LocalCluster, topic: str, partitions: int) -> None:
    """Create ``topic`` (replication factor 3) through the SDK; wait until every partition is led."""
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers) as admin:
        await admin.create_topics([NewTopic(topic, num_partitions=partitions, replication_factor=3)])
    await wait_for_partitions(
        cluster.bootstrap_servers,
        topic,
        lambda ps: len(ps) == partitions and all(p.leader >= 0 for p in ps),
        f"{partitions} led partitions",
    )


def _kafka_addresses(cluster: LocalCluster) -> dict[int, str]:
    """Broker id -> ``host:port`` of its Kafka listener."""
    return dict(zip(cluster.broker_ids, cluster.kafka_bootstrap_servers.split(","), strict=True))


async def test_metadata_lists_the_three_brokers_and_the_topic_with_its_partitions(
    kafka_cluster: LocalCluster, kcat: str
):
    await _create_topic(kafka_cluster, "kc-meta", 3)
    bootstrap = kafka_cluster.kafka_bootstrap_servers

    listing = json.loads((await _kcat(kcat, "-b", bootstrap, "-L", "-J", "-t", "kc-meta")).stdout)
    assert sorted((b["id"], b["name"]) for b in listing["brokers"]) == sorted(
        _kafka_addresses(kafka_cluster).items()
    )
    assert listing["controllerid"] in kafka_cluster.broker_ids
    (topic,) = listing["topics"]
    assert topic["topic"] == "kc-meta"
    assert "error" not in topic, topic
    partitions = sorted(topic["partitions"], key=lambda p: p["partition"])
    assert [p["partition"] for p in partitions] == [0, 1, 2]
    for p in partitions:
        replicas = [r["id"] for r in p["replicas"]]
        assert sorted(replicas) == sorted(kafka_cluster.broker_ids)
        assert sorted(r["id"] for r in p["isrs"]) == sorted(kafka_cluster.broker_ids)
        assert p["leader"] == replicas[0]
        assert "error" not in p, p

    text = (await _kcat(kcat, "-b", bootstrap, "-L")).stdout
    assert " 3 brokers:\n" in text
    for broker_id, address in _kafka_addresses(kafka_cluster).items():
        assert f"  broker {broker_id} at {address}" in text
    assert '  topic "kc-meta" with 3 partitions:\n' in text


async def test_produced_keys_values_and_headers_are_consumed_back_exactly(
    kafka_cluster: LocalCluster, kcat: str
):
    await _create_topic(kafka_cluster, "kc-records", 3)
    bootstrap = kafka_cluster.kafka_bootstrap_servers
    lines = ["k1:v1", "k2:hello world", "k3:colon:inside", "k4:"]
    before_ms = int(time.time() * 1000)
    await _kcat(
        kcat,
        "-b",
        bootstrap,
        "-P",
        "-t",
        "kc-records",
        "-p",
        "1",
        "-K:",
        "-H",
        "trace=abc",
        "-H",
        "dup=1",
        "-H",
        "dup=2",
        "-H",
        "novalue",
        stdin="\n".join(lines) + "\n",
    )
    after_ms = int(time.time() * 1000)

    formatted = await _kcat(
        kcat,
        "-b",
        bootstrap,
        "-C",
        "-t",
        "kc-records",
        "-p",
        "1",
        "-e",
        "-o",
        "beginning",
        "-f",
        "key=%k|value=%s|headers=%h|offset=%o|partition=%p\n",
    )
    headers = "trace=abc,dup=1,dup=2,novalue=NULL"
    assert formatted.stdout.splitlines() == [
        f"key=k1|value=v1|headers={headers}|offset=0|partition=1",
        f"key=k2|value=hello world|headers={headers}|offset=1|partition=1",
        f"key=k3|value=colon:inside|headers={headers}|offset=2|partition=1",
        f"key=k4|value=|headers={headers}|offset=3|partition=1",
    ]

    enveloped = await _kcat(
        kcat, "-b", bootstrap, "-C", "-t", "kc-records", "-p", "1", "-e", "-o", "beginning", "-J"
    )
    records = [json.loads(line) for line in enveloped.stdout.splitlines()]
    assert [
        (r["topic"], r["partition"], r["offset"], r["key"], r["payload"], r["headers"], r["tstype"])
        for r in records
    ] == [
        (
            "kc-records",
            1,
            offset,
            key,
            value,
            ["trace", "abc", "dup", "1", "dup", "2", "novalue", None],
            "create",
        )
        for offset, (key, value) in enumerate(line.split(":", 1) for line in lines)
    ]
    assert all(before_ms <= r["ts"] <= after_ms for r in records), [r["ts"] for r in records]

    # The other partitions stayed empty.
    for partition in ("0", "2"):
        empty = await _kcat(
            kcat, "-b", bootstrap, "-C", "-t", "kc-records", "-p", partition, "-e", "-o", "beginning"
        )
        assert empty.stdout == ""


async def test_consumer_group_mode_reads_every_record_and_commits_what_it_read(
    kafka_cluster: LocalCluster, kcat: str
):
    await _create_topic(kafka_cluster, "kc-group-topic", 3)
    bootstrap = kafka_cluster.kafka_bootstrap_servers
    expected = set()
    for partition in range(3):
        lines = [f"p{partition}-k{i}:p{partition}-v{i}" for i in range(3)]
        await _kcat(
            kcat,
            "-b",
            bootstrap,
            "-P",
            "-t",
            "kc-group-topic",
            "-p",
            str(partition),
            "-K:",
            stdin="\n".join(lines) + "\n",
        )
        expected |= {f"{partition}:{i}:p{partition}-k{i}:p{partition}-v{i}" for i in range(3)}

    consumed = await _kcat(
        kcat,
        "-b",
        bootstrap,
        "-G",
        "kc-group",
        "-o",
        "beginning",
        "-e",
        "-f",
        "%p:%o:%k:%s\n",
        "kc-group-topic",
        timeout_s=GROUP_TIMEOUT_S,
    )
    assert sorted(consumed.stdout.splitlines()) == sorted(expected)

    # kcat commits on close: the group's offsets are each partition's end, through either listener.
    async with AdminClient(bootstrap_servers=kafka_cluster.bootstrap_servers) as admin:
        committed = await admin.list_consumer_group_offsets("kc-group")
    assert {tp: o.offset for tp, o in committed.items()} == {
        TopicPartition("kc-group-topic", p): 3 for p in range(3)
    }

    # A second run starts at the committed offsets: nothing left to read.
    again = await _kcat(
        kcat,
        "-b",
        bootstrap,
        "-G",
        "kc-group",
        "-e",
        "-f",
        "%p:%o:%k:%s\n",
        "kc-group-topic",
        timeout_s=GROUP_TIMEOUT_S,
    )
    assert again.stdout == ""
