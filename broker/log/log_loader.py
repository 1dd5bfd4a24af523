"""Loading a partition directory into segments, with crash recovery.

Owns the start-up scan of ``<log dir>/<topic>-<partition>/``: removing stray files,
opening segments in base offset order, rebuilding missing or corrupt indexes and,
after an unclean shutdown, validating every batch past the recovery point.  Does not
own the resulting ``Log`` (``broker.log.log``) or checkpoints (``LogManager``).
Everything here blocks on disk: run it in an executor.

Kafka concept: ``LogLoader`` (``loadSegmentFiles``, ``recoverLog``).
"""

from __future__ import annotations

import bisect
import logging
import random
from pathlib import Path

from broker.log.log_config import LogConfig
from broker.log.log_segment import INDEX_SUFFIX, LOG_SUFFIX, TIME_INDEX_SUFFIX, LogSegment
from protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)

STRAY_SUFFIXES = (".tmp", ".cleaned", ".deleted", ".swap")
INDEX_SUFFIXES = (INDEX_SUFFIX, TIME_INDEX_SUFFIX)


def roll_jitter_ms(config: LogConfig) -> int:
    """A random share of ``segment.jitter.ms`` below ``segment.ms`` (Kafka's ``randomSegmentJitter``), ms."""
    if config.segment_jitter_ms <= 0:
        return 0
    return random.randrange(min(config.segment_jitter_ms, config.segment_ms))


def new_segment(dir: Path, base_offset: int, config: LogConfig, *, created_ms: int | None = None) -> LogSegment:
    """Open or create the segment of ``dir`` at ``base_offset`` with ``config``'s index and roll settings.

    Args:
        created_ms: creation time on the log's clock (ms); default: monotonic now.
    """
    return LogSegment(
        dir,
        base_offset,
        index_interval_bytes=config.index_interval_bytes,
        max_index_size_bytes=config.segment_index_bytes,
        roll_jitter_ms=roll_jitter_ms(config),
        created_ms=created_ms,
    )


def load_segments(
    dir: Path,
    tp: TopicPartition,
    config: LogConfig,
    *,
    recovery_point: int,
    log_start_offset: int,
    had_clean_shutdown: bool,
    now_ms: int | None = None,
) -> list[LogSegment]:
    """Open every segment of partition directory ``dir``, recovering as needed.

    Steps: delete ``.tmp``/``.cleaned``/``.deleted``/``.swap`` files and ``.index`` or
    ``.timeindex`` files without a ``.log``; open segments sorted by base offset; recover
    (validate, truncate, rebuild indexes) every segment whose index or time index was
    missing or corrupt or whose tail is
    torn, and, when ``had_clean_shutdown`` is False, every segment from the one that
    holds ``recovery_point`` on.  The first recovery that truncates ends the log: later
    segments are deleted and a WARNING gives the bytes dropped.

    Args:
        dir: the partition directory (must exist).
        tp: the partition (for log messages).
        config: its log config (index settings, ``max.message.bytes``).
        recovery_point: checkpointed offset below which data was fsynced.
        log_start_offset: base offset of the segment created when the directory is empty.
        had_clean_shutdown: True when the clean-shutdown marker was present.
        now_ms: the log's clock (ms), creation time of the loaded segments; default monotonic now.

    Returns:
        The segments, oldest first; never empty.
    """
    prefix = f"[LogLoader partition={tp}, dir={dir.parent}]"
    bases = []
    for path in dir.iterdir():
        if path.name.endswith(STRAY_SUFFIXES):
            logger.info("%s Deleting stray file %s", prefix, path.name)
            path.unlink(missing_ok=True)
        elif path.suffix == LOG_SUFFIX and path.stem.isdigit():
            bases.append(int(path.stem))
        elif path.suffix in INDEX_SUFFIXES and path.stem.isdigit() and not path.with_suffix(LOG_SUFFIX).exists():
            logger.info("%s Deleting index %s without a log file", prefix, path.name)
            path.unlink(missing_ok=True)
    bases.sort()
    segments = [new_segment(dir, base, config, created_ms=now_ms) for base in bases]
    if not segments:
        return [new_segment(dir, log_start_offset, config, created_ms=now_ms)]
    first_to_recover = len(segments)
    if not had_clean_shutdown:
        first_to_recover = max(0, bisect.bisect_right(bases, recovery_point) - 1)
        logger.info(
            "%s Recovering %d segments after an unclean shutdown (recovery point %d)",
            prefix, len(segments) - first_to_recover, recovery_point,
        )
    for index, segment in enumerate(segments):
        if index < first_to_recover and not segment.needs_recovery:
            continue
        truncated = segment.recover(config.max_message_bytes)
        if truncated:
            later = segments[index + 1 :]
            logger.warning(
                "%s Recovery of segment %d dropped %d bytes (%s) and %d later segments",
                prefix, segment.base_offset, truncated, segment.last_recovery_error, len(later),
            )
            for dropped in later:
                dropped.delete()
            return segments[: index + 1]
    return segments
