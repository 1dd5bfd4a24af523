"""Loading a partition directory into segments, with crash recovery.

Owns the start-up scan of ``<log dir>/<topic>-<partition>/``: completing segment swaps
the log cleaner left half done, removing stray files,
opening segments in base offset order, rebuilding missing or corrupt indexes and,
after an unclean shutdown, validating every batch past the recovery point.  Does not
own the resulting ``UnifiedLog`` and ``LocalLog`` or checkpoints (``LogManager``).
Everything here blocks on disk: run it in an executor.

Where corruption is told from a torn tail: a crash mid-write can only tear the end of
the log past the recovery point, so an invalid batch in the last segment at or past
the recovery point is cut off (the records after it were never fsynced).  An invalid
batch anywhere else (a segment with later segments after it, or offsets below the
recovery point, i.e. fsynced data) is corruption of data the broker promised to keep:
nothing is truncated, the error is logged with the file and position, and the loader
reports the log offline (the partition then answers KAFKA_STORAGE_ERROR on this
broker).  Corruption in segments that are not scanned (below the recovery point,
after a clean shutdown) is found on the read path instead (``LocalLog.read``).

Kafka concept: ``LogLoader`` (``loadSegmentFiles``, ``recoverLog``).
"""

from __future__ import annotations

import bisect
import logging
import random
from dataclasses import dataclass
from pathlib import Path

from kafkette.broker.log.checkpoint import fsync_dir
from kafkette.broker.log.log_config import LogConfig
from kafkette.broker.log.log_segment import (
    INDEX_SUFFIX,
    LOG_SUFFIX,
    TIME_INDEX_SUFFIX,
    LogSegment,
    segment_file_name,
)
from kafkette.broker.log.transaction_index import TXN_INDEX_SUFFIX
from kafkette.protocol.record_batch import HEADER_SIZE, read_header
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)

CLEANED_SUFFIX = ".cleaned"
SWAP_SUFFIX = ".swap"
DELETED_SUFFIX = ".deleted"
STRAY_SUFFIXES = (".tmp", CLEANED_SUFFIX, DELETED_SUFFIX)
SEGMENT_FILE_SUFFIXES = (LOG_SUFFIX, INDEX_SUFFIX, TIME_INDEX_SUFFIX, TXN_INDEX_SUFFIX)
INDEX_SUFFIXES = (INDEX_SUFFIX, TIME_INDEX_SUFFIX)


def segment_files(dir: Path, base_offset: int) -> list[Path]:
    """The existing files of the segment at ``base_offset`` (``.log``, ``.index``, ``.timeindex``, ...)."""
    paths = (dir / segment_file_name(base_offset, suffix) for suffix in SEGMENT_FILE_SUFFIXES)
    return [path for path in paths if path.exists()]


def _swap_next_offset(path: Path) -> int | None:
    """Offset after the last whole batch of a swap log file (header scan), None when empty."""
    next_offset = None
    size = path.stat().st_size
    with open(path, "rb") as fh:
        position = 0
        while size - position >= HEADER_SIZE:
            fh.seek(position)
            header = read_header(fh.read(HEADER_SIZE))
            if header.size_in_bytes < HEADER_SIZE or position + header.size_in_bytes > size:
                break
            next_offset = header.next_offset
            position += header.size_in_bytes
    return next_offset


def complete_swaps(dir: Path, prefix: str) -> None:
    """Finish segment swaps interrupted by a crash (Kafka: ``.swap`` files complete the swap).

    A ``<base>.log.swap`` holds a cleaned segment that replaces every segment whose base
    offset lies in ``[base, max(base + 1, its next offset))``: their files are deleted and
    the swap files are renamed into place (a missing ``.index.swap`` means the index is
    rebuilt on open), with the ``.txnindex.cleaned`` or ``.txnindex.swap`` of the cleaned segment
    (renamed after its ``.log.swap``).  A lone ``<base>.index.swap`` or ``.txnindex.swap`` is
    renamed into place when its ``.log`` exists without that file (the swap got that far), and
    deleted otherwise.
    """
    log_swaps = sorted(dir.glob(f"*{LOG_SUFFIX}{SWAP_SUFFIX}"))
    for log_swap in log_swaps:
        stem = log_swap.name.split(".", 1)[0]
        if not stem.isdigit():
            log_swap.unlink(missing_ok=True)
            continue
        base = int(stem)
        next_offset = _swap_next_offset(log_swap)
        end = max(base + 1, next_offset if next_offset is not None else base)
        for path in dir.iterdir():
            name_stem, _, suffix = path.name.partition(".")
            if name_stem.isdigit() and "." + suffix in SEGMENT_FILE_SUFFIXES and base <= int(name_stem) < end:
                path.unlink(missing_ok=True)
        for suffix in (INDEX_SUFFIX, TXN_INDEX_SUFFIX):
            for pending in (SWAP_SUFFIX, CLEANED_SUFFIX if suffix == TXN_INDEX_SUFFIX else SWAP_SUFFIX):
                companion = dir / segment_file_name(base, suffix + pending)
                if companion.exists():
                    companion.replace(dir / segment_file_name(base, suffix))
        log_swap.replace(dir / segment_file_name(base, LOG_SUFFIX))
        logger.info("%s Completed the swap of cleaned segment %d (offsets %d to %d)", prefix, base, base, end)
    lone_swaps = [*dir.glob(f"*{INDEX_SUFFIX}{SWAP_SUFFIX}"), *dir.glob(f"*{TXN_INDEX_SUFFIX}{SWAP_SUFFIX}")]
    for index_swap in sorted(lone_swaps):
        target = index_swap.with_name(index_swap.name.removesuffix(SWAP_SUFFIX))
        if target.with_suffix(LOG_SUFFIX).exists() and not target.exists():
            index_swap.replace(target)
        else:
            index_swap.unlink(missing_ok=True)
    if log_swaps:
        fsync_dir(dir)


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


def roll_jitter_ms(config: LogConfig) -> int:
    """A random share of ``segment.jitter.ms`` below ``segment.ms`` (Kafka's ``randomSegmentJitter``), ms."""
    if config.segment_jitter_ms <= 0:
        return 0
    return random.randrange(min(config.segment_jitter_ms, config.segment_ms))


def new_segment(
    dir: Path, base_offset: int, config: LogConfig, *, created_ms: int | None = None
) -> LogSegment:
    """Open or create the segment of ``dir`` at ``base_offset`` with ``config``'s index and roll
    settings; a segment it creates is preallocated to ``segment.bytes`` when ``preallocate``.

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
        init_file_size=config.init_file_size,
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
) -> LoadedSegments:
    """Open every segment of partition directory ``dir``, recovering as needed.

    Steps: complete interrupted segment swaps (``complete_swaps``); delete
    ``.tmp``/``.cleaned``/``.deleted`` files and ``.index`` or ``.timeindex`` files without
    a ``.log``; open segments sorted by base offset; recover (validate, truncate, rebuild
    indexes) every segment whose index or time index was missing or corrupt or whose tail is
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
        now_ms: the log's clock (ms), creation time of the loaded segments; default monotonic now.

    Returns:
        LoadedSegments: the segments, and the offline reason when corruption was found.
    """
    prefix = f"[LogLoader partition={tp}, dir={dir.parent}]"
    complete_swaps(dir, prefix)
    bases = []
    for path in dir.iterdir():
        if path.name.endswith(STRAY_SUFFIXES):
            logger.info("%s Deleting stray file %s", prefix, path.name)
            path.unlink(missing_ok=True)
        elif path.suffix == LOG_SUFFIX and path.stem.isdigit():
            bases.append(int(path.stem))
        elif (
            path.suffix in INDEX_SUFFIXES
            and path.stem.isdigit()
            and not path.with_suffix(LOG_SUFFIX).exists()
        ):
            logger.info("%s Deleting index %s without a log file", prefix, path.name)
            path.unlink(missing_ok=True)
    bases.sort()
    segments = [new_segment(dir, base, config, created_ms=now_ms) for base in bases]
    if not segments:
        return LoadedSegments([new_segment(dir, log_start_offset, config, created_ms=now_ms)])
    first_to_recover = len(segments)
    if not had_clean_shutdown:
        first_to_recover = max(0, bisect.bisect_right(bases, recovery_point) - 1)
        logger.info(
            "%s Recovering %d segments after an unclean shutdown (recovery point %d)",
            prefix,
            len(segments) - first_to_recover,
            recovery_point,
        )
    for index, segment in enumerate(segments):
        if index < first_to_recover and not segment.needs_recovery:
            continue
        invalid = segment.recover(config.max_message_bytes, truncate=False)
        if not invalid:
            continue
        later = segments[index + 1 :]
        if any(s.size for s in later) or segment.next_offset() < recovery_point:
            reason = (
                f"corrupt batch in {segment.log_path} at position {segment.last_recovery_position} "
                f"({segment.last_recovery_error}; {invalid} bytes after it, {len(later)} later segments, "
                f"recovery point {recovery_point})"
            )
            logger.error("%s Taking the log offline: %s", prefix, reason)
            return LoadedSegments(segments, reason, index)
        segment.recover(config.max_message_bytes)
        for empty in later:  # rolled just before the crash: they would start past the new end
            empty.delete()
        zeros = config.preallocate and str(segment.last_recovery_error).startswith("magic 0 ")
        logger.warning(
            "%s Recovery of segment %d dropped %d bytes (torn tail: %s%s) and %d empty later segments",
            prefix,
            segment.base_offset,
            invalid,
            segment.last_recovery_error,
            ", the zeros past the last batch of a preallocated segment" if zeros else "",
            len(later),
        )
        return LoadedSegments(segments[: index + 1])
    return LoadedSegments(segments)
