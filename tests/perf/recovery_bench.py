"""``python -m tests.perf.recovery_bench``: log recovery time per GB after an unclean shutdown.

Writes ``--size-mb`` (default 1024 MiB) of real segments into one partition directory
through ``UnifiedLog.append_as_follower`` (batches of ``--records-per-batch`` records of
``--record-size`` bytes, ``segment.bytes`` ``--segment-mb``), fsyncs them and, on
Linux, evicts them from the page cache (``posix_fadvise(DONTNEED)``) so the first
recovery reads from disk.  It then simulates the state a ``kill -9`` leaves: no
clean-shutdown marker, recovery point 0, no leader epoch checkpoint; and times
``UnifiedLog.open`` (what ``LogManager.start`` runs per partition): every batch of every
segment is read, its header and CRC32C validated, the offset index rebuilt, and
the leader epoch cache rebuilt from batch headers.  A second, warm-cache run is
timed too.  Prints seconds per GiB and writes JSON under ``tests/perf/results/``.

This is a benchmark, not a test: it reports and never fails on a figure.
"""

from __future__ import annotations

import argparse
import os
import struct
import sys
import tempfile
import time
from pathlib import Path

from kafkette.broker.log.log_config import LogConfig
from kafkette.broker.log.unified_log import UnifiedLog
from kafkette.protocol.record_batch import build_batch
from kafkette.protocol.topic_partition import TopicPartition
from tests.perf.results_file import write_result

TP = TopicPartition("recovery-bench", 0)
GIB = 1 << 30


def write_log(
    partition_dir: Path, size_bytes: int, record_size: int, records_per_batch: int, config: LogConfig
) -> tuple[int, int]:
    """Append batches until the log holds ``size_bytes``; returns (bytes, records) written."""
    value = os.urandom(record_size)
    template = bytearray(
        build_batch(
            [(b"key-%d" % i, value, None, 1_700_000_000_000 + i) for i in range(records_per_batch)],
            partition_leader_epoch=0,
        )
    )
    log = UnifiedLog.open(partition_dir, TP, config, had_clean_shutdown=True)
    written = 0
    while written < size_bytes:
        struct.pack_into(">q", template, 0, log.log_end_offset)  # the base offset is outside the CRC
        log.append_as_follower(template)
        written += len(template)
    records = log.log_end_offset
    log.flush_sync()
    log.close()
    return written, records


def evict_page_cache(partition_dir: Path) -> bool:
    """Drop the segment files from the page cache (they are fsynced); False where unsupported."""
    if not hasattr(os, "posix_fadvise"):
        return False
    for path in partition_dir.iterdir():
        fd = os.open(path, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
    return True


def time_recovery(partition_dir: Path, config: LogConfig) -> tuple[float, int]:
    """Open the log as after a kill -9; returns (seconds, log end offset)."""
    (partition_dir / "leader-epoch-checkpoint").unlink(missing_ok=True)
    start = time.perf_counter()
    log = UnifiedLog.open(partition_dir, TP, config, recovery_point=0, had_clean_shutdown=False)
    elapsed = time.perf_counter() - start
    leo = log.log_end_offset
    log.close()
    return elapsed, leo


def main() -> int:
    parser = argparse.ArgumentParser(description="Kafkette log recovery benchmark")
    parser.add_argument("--size-mb", type=int, default=1024, help="log size to write and recover (MiB)")
    parser.add_argument("--segment-mb", type=int, default=256, help="segment.bytes (MiB)")
    parser.add_argument("--record-size", type=int, default=100, help="value size (bytes)")
    parser.add_argument("--records-per-batch", type=int, default=100)
    parser.add_argument("--dir", type=Path, default=None, help="where to write (default: a temp dir)")
    args = parser.parse_args()
    config = LogConfig(segment_bytes=args.segment_mb << 20)
    with tempfile.TemporaryDirectory(prefix="kafkette-recovery-", dir=args.dir) as tmp:
        partition_dir = Path(tmp) / str(TP)
        print(
            f"writing {args.size_mb} MiB of log ({args.record_size} B records, {args.records_per_batch} per "
            f"batch, {args.segment_mb} MiB segments) ...",
            flush=True,
        )
        size, records = write_log(
            partition_dir, args.size_mb << 20, args.record_size, args.records_per_batch, config
        )
        segments = len(list(partition_dir.glob("*.log")))
        cold = evict_page_cache(partition_dir)
        first_s, leo = time_recovery(partition_dir, config)
        if leo != records:
            raise SystemExit(f"recovery lost data: log end offset {leo}, expected {records}")
        warm_s, _ = time_recovery(partition_dir, config)
    gib = size / GIB
    result = {
        "log_bytes": size,
        "records": records,
        "segments": segments,
        "record_size_bytes": args.record_size,
        "records_per_batch": args.records_per_batch,
        "first_recovery_s": round(first_s, 3),
        "first_recovery_s_per_gib": round(first_s / gib, 3),
        "first_recovery_page_cache": "evicted (posix_fadvise DONTNEED)" if cold else "warm",
        "warm_recovery_s": round(warm_s, 3),
        "warm_recovery_s_per_gib": round(warm_s / gib, 3),
    }
    print(
        f"recovered {size / (1 << 20):,.0f} MiB ({records:,} records, {segments} segments) after an unclean "
        f"shutdown: {first_s:.2f} s ({first_s / gib:.2f} s/GiB, page cache "
        f"{'evicted' if cold else 'warm'}), warm cache {warm_s:.2f} s ({warm_s / gib:.2f} s/GiB)"
    )
    out = write_result("recovery", "tests.perf.recovery_bench", result)
    print(f"results written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
