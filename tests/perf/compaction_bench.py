"""``python -m tests.perf.compaction_bench``: compacted size against raw size.

Writes ``--updates`` records (default 100,000) over ``--keys`` keys (default 1,000),
``--value-bytes`` (default 100) each, in batches of ``--batch-records`` (default 100)
to a real ``UnifiedLog`` on disk with 1 MiB segments, rolls the active segment, runs one
``LogCleaner`` pass (the broker's cleaner, executor and segment swap included) and
prints the raw and compacted sizes, the ratio, the records kept and the time the
pass took.  It also checks that every key's last value is kept at its offset.

This is a benchmark, not a test: it reports and never fails on a figure.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
from pathlib import Path

from kafkette.broker.log.log_cleaner import LogCleaner
from kafkette.broker.log.log_config import LogConfig
from kafkette.broker.log.unified_log import UnifiedLog
from kafkette.protocol.record_batch import build_batch
from kafkette.protocol.topic_partition import TopicPartition
from tests.cluster_helpers import log_records

TP = TopicPartition("compaction-bench", 0)


async def run(
    updates: int, keys: int, value_bytes: int, batch_records: int, data_dir: Path
) -> dict[str, float]:
    """Write, clean once, verify; return the figures."""
    config = LogConfig(cleanup_policy="compact", segment_bytes=1 << 20)
    log = UnifiedLog.open(data_dir / str(TP), TP, config, had_clean_shutdown=True)
    rng = random.Random(42)
    latest: dict[bytes, tuple[int, bytes]] = {}
    now_ms = int(time.time() * 1000)
    for first in range(0, updates, batch_records):
        records = []
        for i in range(min(batch_records, updates - first)):
            key = b"key-%06d" % rng.randrange(keys)
            value = (b"%d:" % (first + i)).ljust(value_bytes, b"v")
            records.append((key, value, None, now_ms))
        info = log.append_as_leader(bytearray(build_batch(records)), 0)
        for i, (key, value, _, _) in enumerate(records):
            latest[key] = (info.first_offset + i, value)
    log.roll()
    raw_bytes, raw_segments = log.size_in_bytes, len(log.segments) - 1
    cleaner = LogCleaner([data_dir], lambda: {TP: log}, backoff_ms=1000, offset_map_capacity=10 * keys)
    started = time.perf_counter()
    cleaned = await cleaner.clean_once()
    seconds = time.perf_counter() - started
    kept = log_records(log)
    if not cleaned or kept != sorted((o, k, v) for k, (o, v) in latest.items()):
        raise SystemExit("compaction did not keep exactly the last value of each key")
    figures = {
        "updates": updates,
        "keys": keys,
        "value_bytes": value_bytes,
        "raw_bytes": raw_bytes,
        "raw_segments": raw_segments,
        "compacted_bytes": log.size_in_bytes,
        "records_kept": len(kept),
        "clean_seconds": seconds,
    }
    log.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=100_000)
    parser.add_argument("--keys", type=int, default=1_000)
    parser.add_argument("--value-bytes", type=int, default=100)
    parser.add_argument("--batch-records", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="compaction-bench-") as tmp:
        f = asyncio.run(run(args.updates, args.keys, args.value_bytes, args.batch_records, Path(tmp)))
    print(f"{f['updates']} updates over {f['keys']} keys, {f['value_bytes']}-byte values")
    print(f"raw:       {f['raw_bytes']:>12,} bytes in {f['raw_segments']} segments")
    print(
        f"compacted: {f['compacted_bytes']:>12,} bytes, {f['records_kept']} records "
        f"({100 * f['compacted_bytes'] / f['raw_bytes']:.2f}% of raw, "
        f"{f['raw_bytes'] / f['compacted_bytes']:.0f}x smaller)"
    )
    print(
        f"cleaning pass: {f['clean_seconds']:.2f} s ({f['raw_bytes'] / f['clean_seconds'] / 1e6:.1f} MB/s of "
        "raw log)"
    )


if __name__ == "__main__":
    main()
