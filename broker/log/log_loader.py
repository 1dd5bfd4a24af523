"""Loading a partition directory into segments, with crash recovery.

Owns the start-up scan of ``<log dir>/<topic>-<partition>/``: removing stray files,
opening segments in base offset order, rebuilding missing or corrupt indexes and,
after an unclean shutdown, validating every batch past the recovery point.  Does not
own the resulting ``Log`` (``broker.log.log``) or checkpoints (``LogManager``).
Everything here blocks on disk: run it in an executor.

Where corruption is told from a torn tail: a crash mid-write can only tear the end of
the log past the recovery point, so an invalid batch in the last segment at or past
the recovery point is cut off (the records after it were never fsynced).  An invalid
batch anywhere else (a segment with later segments after it, or offsets below the
recovery point, i.e. fsynced data) is corruption of data the broker promised to keep:
nothing is truncated, the error is logged with the file and position, and the loader
reports the log offline (the partition then answers KAFKA_STORAGE_ERROR on this
broker).  Corruption in segments that are not scanned (below the recovery point,
after a clean shutdown) is found on the read path instead (``Log.read``).

Kafka concept: ``LogLoader`` (``loadSegmentFiles``, ``recoverLog``).
"""

from __future__ import annotations

import bisect
import logging
from dataclasses import dataclass
from pathlib import Path

from broker.log.log_config import LogConfig
from broker.log.log_segment import INDEX_SUFFIX, LOG_SUFFIX, LogSegment
from protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)

STRAY_SUFFIXES = (".tmp", ".cleaned", ".deleted", ".swap")


@dataclass(frozen=True, slots=True)
class LoadedSegments:
    """What ``load_segments`` found.

    Attributes:
        segments: the segments, oldest first; never empty.
        offline_reason: None, or why the log must go offline (corruption that is not a
            torn tail: file, position and what is wrong).
        offline_segment: index in ``segments`` of the corrupt segment, or -1.
    """

    segments: list[LogSegment]
    offline_reason: str | None = None
    offline_segment: int = -1


def new_segment(dir: Path, base_offset: int, config: LogConfig) -> LogSegment:
    """Open or create the segment of ``dir`` at ``base_offset`` with ``config``'s index settings."""
    return LogSegment(
        dir,
        base_offset,
        index_interval_bytes=config.index_interval_bytes,
        max_index_size_bytes=config.segment_index_bytes,
    )


def load_segments(
    dir: Path,
    tp: TopicPartition,
    config: LogConfig,
    *,
    recovery_point: int,
    log_start_offset: int,
    had_clean_shutdown: bool,
) -> LoadedSegments:
    """Open every segment of partition directory ``dir``, recovering as needed.

    Steps: delete ``.tmp``/``.cleaned``/``.deleted``/``.swap`` files and ``.index`` files
    without a ``.log``; open segments sorted by base offset; recover (validate, truncate,
    rebuild index) every segment whose index was missing or corrupt or whose tail is
    torn, and, when ``had_clean_shutdown`` is False, every segment from the one that
    holds ``recovery_point`` on.  The first recovery that finds a torn tail (last
    segment, at or past the recovery point) ends the log: the file is truncated and a
    WARNING gives the bytes dropped.  Any other invalid batch keeps every file as it is,
    is logged at ERROR and makes the result offline (see the module docstring).

    Args:
        dir: the partition directory (must exist).
        tp: the partition (for log messages).
        config: its log config (index settings, ``max.message.bytes``).
        recovery_point: checkpointed offset below which data was fsynced.
        log_start_offset: base offset of the segment created when the directory is empty.
        had_clean_shutdown: True when the clean-shutdown marker was present.

    Returns:
        LoadedSegments: the segments, and the offline reason when corruption was found.
    """
    prefix = f"[LogLoader partition={tp}, dir={dir.parent}]"
    bases = []
    for path in dir.iterdir():
        if path.name.endswith(STRAY_SUFFIXES):
            logger.info("%s Deleting stray file %s", prefix, path.name)
            path.unlink(missing_ok=True)
        elif path.suffix == LOG_SUFFIX and path.stem.isdigit():
            bases.append(int(path.stem))
        elif path.suffix == INDEX_SUFFIX and path.stem.isdigit() and not path.with_suffix(LOG_SUFFIX).exists():
            logger.info("%s Deleting index %s without a log file", prefix, path.name)
            path.unlink(missing_ok=True)
    bases.sort()
    segments = [new_segment(dir, base, config) for base in bases]
    if not segments:
        return LoadedSegments([new_segment(dir, log_start_offset, config)])
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
        invalid = segment.recover(config.max_message_bytes, truncate=False)
        if not invalid:
            continue
        later = segments[index + 1 :]
        if later or segment.next_offset() < recovery_point:
            reason = (
                f"corrupt batch in {segment.log_path} at position {segment.last_recovery_position} "
                f"({segment.last_recovery_error}; {invalid} bytes after it, {len(later)} later segments, "
                f"recovery point {recovery_point})"
            )
            logger.error("%s Taking the log offline: %s", prefix, reason)
            return LoadedSegments(segments, reason, index)
        segment.recover(config.max_message_bytes)
        logger.warning(
            "%s Recovery of segment %d dropped %d bytes (torn tail: %s)",
            prefix, segment.base_offset, invalid, segment.last_recovery_error,
        )
        return LoadedSegments(segments)
    return LoadedSegments(segments)
