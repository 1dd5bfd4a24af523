"""``kafkette consumer-groups`` against a real cluster, as kafka-consumer-groups.sh is used:
--list, --describe (offsets and lag, --members, --state), --reset-offsets (a dry run prints the
plan, --execute commits it, refused while the group has members; the next member starts
there), --delete-offsets and --delete, and bad flags as one line."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from kafkette.client import AdminClient, Consumer, NewTopic, Producer, TopicPartition

pytestmark = pytest.mark.timeout(240)

KAFKETTE = Path(sys.executable).parent / "kafkette"


CLI_TIMEOUT_S = 90


async def _cli(*args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    """Run ``kafkette consumer-groups`` without blocking the event loop: a consumer of the test
    heartbeats on this loop, and a blocked loop would let its session (``session.timeout.ms``)
    end while the command runs, emptying its group."""
    command = [str(KAFKETTE), "consumer-groups", *args]
    process = await asyncio.create_subprocess_exec(
        *command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    try:
        stdout, stderr = await asyncio.wait_for(process.communicate(), CLI_TIMEOUT_S)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise
    assert process.returncode is not None
    done = subprocess.CompletedProcess(command, process.returncode, stdout.decode(), stderr.decode())
    if ok:
        assert done.returncode == 0, f"exit {done.returncode}\nstdout: {done.stdout}\nstderr: {done.stderr}"
    return done


async def _stdout(*args: str) -> str:
    """The output of a ``kafkette consumer-groups`` that succeeds."""
    return (await _cli(*args)).stdout


def _rows(out: str) -> list[list[str]]:
    return [line.split() for line in out.strip().splitlines()]


async def test_list_describe_reset_and_delete(cluster_factory):
    cluster = cluster_factory(
        1, controllers=1, group_initial_rebalance_delay_ms=100, group_min_session_timeout_ms=1000
    )
    bootstrap = cluster.bootstrap_servers
    server = ["--bootstrap-server", bootstrap]
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.create_topics([NewTopic("orders", 2, 1), NewTopic("audit", 1, 1)])
    async with Producer(bootstrap_servers=bootstrap) as producer:
        for i in range(20):
            await producer.send("orders", b"x", partition=i % 2)
        await producer.send("audit", b"y", partition=0)
        await producer.flush()
    async with AdminClient(bootstrap_servers=bootstrap) as admin:
        await admin.alter_consumer_group_offsets(
            "billing",
            {TopicPartition("orders", 0): 4, TopicPartition("orders", 1): 10, TopicPartition("audit", 0): 1},
        )

    assert (await _cli("--list", *server)).stdout.split() == ["billing"]
    described = _rows(await _stdout("--describe", "--group", "billing", *server))
    assert described[0] == ["Consumer", "group", "'billing'", "has", "no", "active", "members."]
    assert described[1] == [
        "GROUP",
        "TOPIC",
        "PARTITION",
        "CURRENT-OFFSET",
        "LOG-END-OFFSET",
        "LAG",
        "CONSUMER-ID",
        "HOST",
        "CLIENT-ID",
    ]
    assert described[2:] == [
        ["billing", "audit", "0", "1", "1", "0", "-", "-", "-"],
        ["billing", "orders", "0", "4", "10", "6", "-", "-", "-"],
        ["billing", "orders", "1", "10", "10", "0", "-", "-", "-"],
    ]

    plan = _rows(
        await _stdout(
            "--reset-offsets",
            "--group",
            "billing",
            "--topic",
            "orders",
            "--to-earliest",
            "--dry-run",
            *server,
        )
    )
    assert plan == [
        ["GROUP", "TOPIC", "PARTITION", "NEW-OFFSET"],
        ["billing", "orders", "0", "0"],
        ["billing", "orders", "1", "0"],
    ]
    async with AdminClient(bootstrap_servers=bootstrap) as admin:  # a dry run changes nothing
        assert (await admin.list_consumer_group_offsets("billing"))[TopicPartition("orders", 0)].offset == 4
    shifted = _rows(
        await _stdout(
            "--reset-offsets",
            "--group",
            "billing",
            "--topic",
            "orders:0",
            "--shift-by",
            "-3",
            "--execute",
            *server,
        )
    )
    assert shifted[1:] == [["billing", "orders", "0", "1"]]
    clamped = _rows(
        await _stdout(
            "--reset-offsets", "--group", "billing", "--all-topics", "--to-offset", "7", "--execute", *server
        )
    )
    assert clamped[1:] == [
        ["billing", "audit", "0", "1"],
        ["billing", "orders", "0", "7"],
        ["billing", "orders", "1", "7"],
    ]
    latest = _rows(
        await _stdout(
            "--reset-offsets",
            "--group",
            "billing",
            "--topic",
            "orders:1",
            "--to-datetime",
            "2999-01-01T00:00:00",
            "--execute",
            *server,
        )
    )
    assert latest[1:] == [["billing", "orders", "1", "10"]]

    consumer = Consumer(
        bootstrap_servers=bootstrap,
        group_id="billing",
        session_timeout_ms=3000,
        heartbeat_interval_ms=300,
        enable_auto_commit=False,
    )
    async with consumer:  # the next member starts where the reset put the group
        consumer.subscribe(["orders"])
        got: list[tuple[int, int]] = []
        for _ in range(100):
            for tp, records in (await consumer.getmany(timeout_ms=100)).items():
                got += [(tp.partition, r.offset) for r in records]
            if len(got) >= 3:
                break
        assert sorted(got) == [(0, 7), (0, 8), (0, 9)]
        members = _rows(await _stdout("--describe", "--group", "billing", "--members", *server))
        assert members[0] == ["GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS"]
        assert members[1][0] == "billing" and members[1][-1] == "2"
        state = _rows(await _stdout("--describe", "--group", "billing", "--state", *server))
        assert state[1][0] == "billing" and state[1][-3:] == ["range", "Stable", "1"]
        refused = await _cli(
            "--reset-offsets",
            "--group",
            "billing",
            "--topic",
            "orders",
            "--to-latest",
            "--execute",
            *server,
            ok=False,
        )
        assert refused.returncode == 1
        assert refused.stderr.strip() == (
            "Error: Assignments can only be reset if the group 'billing' is inactive, "
            "but the current state is Stable."
        )
        not_empty = await _cli("--delete", "--group", "billing", *server, ok=False)
        assert (
            not_empty.returncode == 1
            and "NON_EMPTY_GROUP: Deleting group 'billing' failed: The group is not empty."
            in not_empty.stderr
        )
        subscribed = await _cli(
            "--delete-offsets", "--group", "billing", "--topic", "orders", *server, ok=False
        )
        assert subscribed.returncode == 1 and "GROUP_SUBSCRIBED_TO_TOPIC" in subscribed.stderr
        deleted = _rows(await _stdout("--delete-offsets", "--group", "billing", "--topic", "audit", *server))
        assert deleted == [["TOPIC", "PARTITION", "STATUS"], ["audit", "0", "Successful"]]

    assert _rows(await _stdout("--list", "--state", *server)) == [["GROUP", "STATE"], ["billing", "Empty"]]
    assert (
        await _cli("--delete", "--group", "billing", *server)
    ).stdout.strip() == "Deletion of requested consumer groups ('billing') was successful."
    assert (await _cli("--list", *server)).stdout.split() == []
    assert (
        await _cli("--describe", "--group", "billing", *server)
    ).stdout.strip() == "Consumer group 'billing' does not exist."
    missing = await _cli("--delete", "--group", "billing", *server, ok=False)
    assert missing.returncode == 1 and "GROUP_ID_NOT_FOUND" in missing.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "Error: Command must include exactly one action"),
        (["--list", "--describe"], "Error: Command must include exactly one action"),
        (["--describe"], "Error: Option --describe takes --group or --all-groups"),
        (
            ["--reset-offsets", "--group", "g", "--topic", "t"],
            "Error: Option --reset-offsets takes exactly one of",
        ),
        (
            ["--reset-offsets", "--group", "g", "--to-latest"],
            "Error: Option --reset-offsets takes --topic or --all-topics",
        ),
        (
            ["--reset-offsets", "--group", "g", "--all-topics", "--to-latest", "--dry-run", "--execute"],
            "Error: Options --dry-run and --execute cannot be used together",
        ),
        (
            ["--reset-offsets", "--group", "g", "--all-topics", "--by-duration", "an hour"],
            "Error: Invalid value for --by-duration: 'an hour' is not a duration",
        ),
        (
            ["--reset-offsets", "--group", "g", "--topic", "t:x", "--to-latest"],
            "Error: Invalid value for --topic: 't:x' is not TOPIC or TOPIC:PARTITION,PARTITION",
        ),
    ],
)
async def test_bad_flags_are_one_line(args, message):
    done = await _cli(*args, "--bootstrap-server", "127.0.0.1:1", ok=False)
    assert done.returncode == 2, done
    assert (
        done.stdout == "" and len(done.stderr.strip().splitlines()) == 1 and done.stderr.startswith(message)
    ), done.stderr
