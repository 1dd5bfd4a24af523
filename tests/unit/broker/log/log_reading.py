"""Helpers of the log cleaner's tests: a clock the test moves, and every batch and record a log
holds."""

from __future__ import annotations

from kafkette.broker.log.unified_log import UnifiedLog
from kafkette.protocol.record_batch import Record, decode_records, iter_batches

START_MS = 1_700_000_000_000


class ManualClock:
    """A wall clock in ms that only moves when a test sets ``now_ms`` (starts at ``START_MS``)."""

    def __init__(self, now_ms: int = START_MS) -> None:
        self.now_ms = now_ms

    def __call__(self) -> int:
        return self.now_ms


def iter_log_batches(log: UnifiedLog):
    """Yield ``(data, position, header)`` for every batch of ``log`` from its start offset to its
    end, in offset order, following the offset gaps compaction leaves (segment by segment)."""
    offset = log.log_start_offset
    while offset < log.log_end_offset:
        data = log.read(offset, 1 << 24).records
        if not data:
            break
        for position, header in iter_batches(data):
            yield data, position, header
            offset = header.next_offset


def read_all_records(log: UnifiedLog) -> list[Record]:
    """Every record of ``log`` from its start offset to its end, in offset order."""
    out = []
    for data, position, header in iter_log_batches(log):
        out.extend(r for r in decode_records(data, position, header) if r.offset >= log.log_start_offset)
    return out
