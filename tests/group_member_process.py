"""A consumer group member as its own process, for tests that kill one with SIGKILL.

Run as ``python -m tests.group_member_process BOOTSTRAP GROUP TOPIC``: subscribes with
auto-commit, prints ``ASSIGNED <partitions>`` after each rebalance and ``R <partition> <offset>``
for every record (flushed), until SIGTERM.  Settings in the environment: ``SESSION_TIMEOUT_MS``
(3000), ``AUTO_COMMIT_INTERVAL_MS`` (500), ``MAX_RECORDS`` per poll (2000) and ``POLL_PAUSE_MS``
after each poll (0: a slow consumer for a test to kill in the middle of its work).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys

from kafkette.client import Consumer, ConsumerRebalanceListener, TopicPartition


class PrintAssignments(ConsumerRebalanceListener):
    def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
        print("ASSIGNED " + ",".join(str(tp.partition) for tp in sorted(assigned)), flush=True)


async def main(bootstrap: str, group: str, topic: str) -> None:
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    async with Consumer(
        bootstrap_servers=bootstrap,
        group_id=group,
        auto_offset_reset="earliest",
        session_timeout_ms=int(os.environ.get("SESSION_TIMEOUT_MS", "3000")),
        heartbeat_interval_ms=500,
        auto_commit_interval_ms=int(os.environ.get("AUTO_COMMIT_INTERVAL_MS", "500")),
    ) as consumer:
        consumer.subscribe([topic], listener=PrintAssignments())
        max_records = int(os.environ.get("MAX_RECORDS", "2000"))
        pause_s = int(os.environ.get("POLL_PAUSE_MS", "0")) / 1000
        while not stop.is_set():
            batches = await consumer.getmany(timeout_ms=200, max_records=max_records)
            lines = [f"R {tp.partition} {r.offset}" for tp, records in batches.items() for r in records]
            if lines:
                sys.stdout.write("\n".join(lines) + "\n")
                sys.stdout.flush()
            if pause_s:
                await asyncio.sleep(pause_s)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
