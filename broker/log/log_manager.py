"""The broker's logs across its ``log.dirs``: start-up loading, creation, deletion,
scheduled flushes, offset checkpoints and the clean-shutdown marker.

Owns every ``UnifiedLog`` of this broker and the files at the top of each log dir
(``meta.properties``, ``.kafka_cleanshutdown``, ``recovery-point-offset-checkpoint``,
``log-start-offset-checkpoint``, ``replication-offset-checkpoint``), the periodic jobs
on the node's KafkaScheduler (flushes on ``flush.ms``, retention checks, delayed
deletion of segment files, checkpoints) and the ``LogCleaner`` (compaction, when
``log.cleaner.enable``).  Each log starts its own flush when ``flush.messages`` or a new
leader epoch asks (``UnifiedLog``); shutdown and deletion wait for it.  A log dir holding an offline
log gets no clean-shutdown marker, so the next start-up scans past the recovery points
again.  Does not own high watermark values (the ReplicaManager passes them
to ``write_high_watermarks``) or topic configs (callers pass a ``LogConfig``).

Kafka concept: ``LogManager``.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
import uuid
from collections.abc import Callable, Collection, Mapping
from pathlib import Path

from kafkette.broker.config import ConfigError, KafkaConfig
from kafkette.broker.log.checkpoint import (
    CorruptCheckpointError,
    OffsetCheckpointFile,
    fsync_dir,
)
from kafkette.broker.log.log_cleaner import LogCleaner
from kafkette.broker.log.log_config import LogConfig
from kafkette.broker.log.log_dir_failure_channel import LogDirFailureChannel
from kafkette.broker.log.offset_map import capacity_for_buffer
from kafkette.broker.log.partition_metadata_file import read_topic_id, write_topic_id
from kafkette.broker.log.unified_log import UnifiedLog
from kafkette.common.kafka_scheduler import KafkaScheduler
from kafkette.common.meta_properties import create_log_dir, ensure_meta_properties
from kafkette.common.topic_names import METADATA_TOPIC_PARTITION_DIR
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)

CLEAN_SHUTDOWN_FILE = ".kafka_cleanshutdown"
RECOVERY_POINT_CHECKPOINT_FILE = "recovery-point-offset-checkpoint"
LOG_START_OFFSET_CHECKPOINT_FILE = "log-start-offset-checkpoint"
HIGH_WATERMARK_CHECKPOINT_FILE = "replication-offset-checkpoint"
MAX_SCHEDULER_TICK_MS = 1000
MIN_SCHEDULER_TICK_MS = 10
STOP_FLUSH_TIMEOUT_S = 30.0
DELETE_DIR_SUFFIX = "-delete"  # Kafka's LogFileUtils.DELETE_DIR_SUFFIX: <topic>-<partition>.<uuid>-delete


async def _finish_in_thread(fn: Callable[..., object], *args: object) -> None:
    """Run blocking ``fn(*args)`` in the default executor and wait for it to finish even when the
    caller is cancelled (a checkpoint already being written in a thread must end before its
    lock is released, or the next writer's ``<file>.tmp`` would collide with it); the
    cancellation is raised afterwards."""
    future = asyncio.get_running_loop().run_in_executor(None, fn, *args)
    try:
        await asyncio.shield(future)
    except asyncio.CancelledError:
        await asyncio.wait([future])
        raise


def _delete_files(paths: list[Path]) -> None:
    """Blocking: unlink ``paths``, or remove them whole when directories (already gone is fine)."""
    for path in paths:
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


def _rename_for_deletion(log_dir: Path) -> Path:
    """Blocking: rename a partition's directory to ``<topic>-<partition>.<uuid>-delete`` (fsynced)."""
    target = log_dir.with_name(f"{log_dir.name}.{uuid.uuid4().hex}{DELETE_DIR_SUFFIX}")
    log_dir.rename(target)
    fsync_dir(log_dir.parent)
    return target


class LogManager:
    """Creates, loads, flushes, checkpoints and deletes the partition logs of one broker.

    Lifecycle: ``__init__`` -> ``await start()`` (load every log dir) -> use ->
    ``await stop()`` (flush, checkpoint, close, write the clean-shutdown marker).  Also
    an async context manager.  New logs go to the log dir holding the fewest logs.

    Retention (Kafka's ``LogManager.cleanupLogs``): every
    ``log.retention.check.interval.ms`` the scheduler asks each log to delete the
    segments its retention settings no longer keep (``UnifiedLog.delete_old_segments``); the
    files, renamed ``*.deleted`` at once, are unlinked ``file.delete.delay.ms`` later
    by the same scheduler (in the default executor).  Files still pending at shutdown
    are removed by the loader at the next start-up.

    Args:
        config: the broker config (``log.dirs``, ``node.id``, ``cluster.id``, log defaults,
            ``log.flush.offset.checkpoint.interval.ms``, ``log.retention.check.interval.ms``).
        scheduler: the node's KafkaScheduler, which runs ``kafka-log-retention``,
            ``kafka-log-flusher``, ``kafka-delete-logs`` and ``kafka-recovery-point-checkpoint``
            on its clock (monotonic for flushes and delays, wall-clock for ``retention.ms``); one
            of its own when None.  Tests give one on a ``MockTime``.
    """

    def __init__(self, config: KafkaConfig, *, scheduler: KafkaScheduler | None = None) -> None:
        self.config = config
        self.log_dirs = [Path(d) for d in config.log_dirs]
        self.default_log_config = LogConfig.from_broker(config)
        self._scheduler = scheduler or KafkaScheduler(log_prefix=f"[KafkaScheduler id={config.node_id}]")
        clock = self._scheduler.time
        self._time_ms = lambda: int(clock.monotonic_ms())
        self._wall_clock_ms = clock.milliseconds
        self._retention_check_interval_ms = max(MIN_SCHEDULER_TICK_MS, config.log_retention_check_interval_ms)
        self._pending_deletions: list[tuple[int, list[Path]]] = []  # (due monotonic ms, files)
        self._logs: dict[TopicPartition, UnifiedLog] = {}
        self._topic_ids: dict[TopicPartition, str] = {}  # from each log's partition.metadata
        self._checkpoint_lock = asyncio.Lock()
        self._checkpoint_interval_ms = max(
            MIN_SCHEDULER_TICK_MS, config.log_flush_offset_checkpoint_interval_ms
        )
        self._stopping = False
        self._started = False
        self._prefix = f"[LogManager id={config.node_id}]"
        self.log_dir_failure_channel = LogDirFailureChannel()  # every log reports going offline here
        self.cleaner: LogCleaner | None = None
        if config.log_cleaner_enable:
            self.cleaner = LogCleaner(
                self.log_dirs,
                self.all_logs,
                backoff_ms=config.log_cleaner_backoff_ms,
                offset_map_capacity=capacity_for_buffer(config.log_cleaner_dedupe_buffer_size),
                now_ms=self._scheduler.time.milliseconds,
            )

    async def __aenter__(self) -> LogManager:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    # ------------------------------------------------------------------ start-up
    async def start(self) -> None:
        """Load every log dir (in the default executor) and start the scheduler task.

        Raises:
            ConfigError: ``meta.properties`` names another node.id or cluster.id, or a
                partition appears in two log dirs.
            OSError: a log dir cannot be created or read.
        """
        loop = asyncio.get_running_loop()
        try:
            for log_dir in self.log_dirs:
                logs, topic_ids, to_delete = await loop.run_in_executor(None, self._load_log_dir, log_dir)
                self._topic_ids.update(topic_ids)
                self.schedule_file_deletion(to_delete, self.default_log_config.file_delete_delay_ms)
                for tp, log in logs.items():
                    if tp in self._logs:
                        log.close()
                        raise ConfigError(
                            f"Duplicate log directories for {tp}: {self._logs[tp].dir} and {log.dir}"
                        )
                    self._logs[tp] = log
                    log.on_offline = self.log_dir_failure_channel.maybe_add_offline_log
        except BaseException:
            for log in self._logs.values():
                log.close()
            self._logs.clear()
            raise
        self._schedule_jobs()
        if self.cleaner is not None:
            await self.cleaner.start()
        self._started = True
        logger.info(
            "%s Started with %d logs in %d log dirs", self._prefix, len(self._logs), len(self.log_dirs)
        )

    def _load_log_dir(
        self, log_dir: Path
    ) -> tuple[dict[TopicPartition, UnifiedLog], dict[TopicPartition, str], list[Path]]:
        """Blocking: check meta.properties, read checkpoints and the marker, open every log.

        Returns:
            The logs, their topic ids (``partition.metadata``; logs without one are absent),
            and the ``-delete`` directories of logs deleted before a restart (to remove after
            ``file.delete.delay.ms``, as Kafka's ``loadLogs``).
        """
        create_log_dir(log_dir)
        ensure_meta_properties(log_dir, self.config.node_id, self.config.cluster_id)
        marker = log_dir / CLEAN_SHUTDOWN_FILE
        had_clean_shutdown = marker.exists()
        recovery_points = self._read_checkpoint(log_dir / RECOVERY_POINT_CHECKPOINT_FILE)
        log_start_offsets = self._read_checkpoint(log_dir / LOG_START_OFFSET_CHECKPOINT_FILE)
        logger.info(
            "%s Loading logs from %s (%s shutdown)",
            self._prefix,
            log_dir,
            "clean" if had_clean_shutdown else "unclean",
        )
        logs: dict[TopicPartition, UnifiedLog] = {}
        topic_ids: dict[TopicPartition, str] = {}
        to_delete: list[Path] = []
        for child in sorted(log_dir.iterdir()):
            if not child.is_dir() or child.name == METADATA_TOPIC_PARTITION_DIR:
                continue  # the controller's metadata log is not a partition log
            if child.name.endswith(DELETE_DIR_SUFFIX):
                to_delete.append(child)
                continue
            try:
                tp = TopicPartition.parse(child.name)
            except ValueError:
                logger.warning("%s Ignoring directory %s: not <topic>-<partition>", self._prefix, child)
                continue
            logs[tp] = UnifiedLog.open(
                child,
                tp,
                self.default_log_config,
                recovery_point=recovery_points.get(tp, 0),
                log_start_offset=log_start_offsets.get(tp, 0),
                had_clean_shutdown=had_clean_shutdown,
                time=self._scheduler.time,
            )
            topic_id = read_topic_id(child)
            if topic_id is not None:
                topic_ids[tp] = topic_id
        marker.unlink(missing_ok=True)
        return logs, topic_ids, to_delete

    def _read_checkpoint(self, path: Path) -> dict[TopicPartition, int]:
        try:
            return OffsetCheckpointFile(path).read()
        except CorruptCheckpointError as exc:
            logger.warning("%s %s; ignoring it", self._prefix, exc)
            return {}

    # ---------------------------------------------------------------- the logs
    def get_log(self, tp: TopicPartition) -> UnifiedLog | None:
        """The log of ``tp`` or None."""
        return self._logs.get(tp)

    def all_logs(self) -> dict[TopicPartition, UnifiedLog]:
        """``{TopicPartition: UnifiedLog}`` (a copy)."""
        return dict(self._logs)

    def offline_logs(self) -> list[TopicPartition]:
        """Partitions whose log is offline here (corruption found at load or by a read), sorted."""
        return sorted(tp for tp, log in self._logs.items() if log.is_offline)

    def get_or_create_log(self, tp: TopicPartition, config: LogConfig) -> UnifiedLog:
        """Return the log of ``tp``, creating its directory in the least loaded log dir.

        An existing log gets ``config`` as its new config.  Creation blocks briefly
        (mkdir and two empty files) on the calling thread.

        Args:
            tp: the partition.
            config: its effective topic config (``LogConfig.from_broker(config, overrides)``).

        Returns:
            The log.
        """
        log = self._logs.get(tp)
        if log is not None:
            if log.config != config:
                log.update_config(config)
            return log
        counts = dict.fromkeys(self.log_dirs, 0)
        for existing in self._logs.values():
            parent = existing.dir.parent
            counts[parent] = counts.get(parent, 0) + 1
        log_dir = min(self.log_dirs, key=lambda d: counts[d])
        log = UnifiedLog.open(
            log_dir / str(tp), tp, config, had_clean_shutdown=True, time=self._scheduler.time
        )
        log.on_offline = self.log_dir_failure_channel.maybe_add_offline_log
        self._logs[tp] = log
        logger.info("%s Created log for partition %s in %s", self._prefix, tp, log_dir)
        return log

    def topic_id(self, tp: TopicPartition) -> str | None:
        """The topic id of ``tp``'s log (its ``partition.metadata``), or None when unknown."""
        return self._topic_ids.get(tp)

    def assign_topic_id(self, tp: TopicPartition, topic_id: str) -> None:
        """Record ``topic_id`` in the ``partition.metadata`` of ``tp``'s log unless already
        there (a short blocking write on the calling thread, as log creation).

        Raises:
            OSError: the file cannot be written.
        """
        log = self._logs.get(tp)
        if log is None or not topic_id or self._topic_ids.get(tp) == topic_id:
            return
        write_topic_id(log.dir, topic_id)
        self._topic_ids[tp] = topic_id

    def find_stray_replicas(
        self, topic_ids: Mapping[str, str], assigned: Collection[TopicPartition]
    ) -> list[TopicPartition]:
        """The logs the metadata does not place on this broker (Kafka's ``isStrayKraftReplica``, KIP-858).

        Args:
            topic_ids: every topic of the metadata, ``{name: topic id}`` ("" when unknown).
            assigned: the partitions whose replicas include this broker.

        Returns:
            Sorted partitions whose topic is not in ``topic_ids``, whose log carries another
            topic id (a deleted topic's log, the name since re-created), or that are not
            assigned here.  A log without a topic id (written before ``partition.metadata``
            existed) is judged by its topic name alone, where Kafka treats it as stray.
        """
        stray = []
        for tp in self._logs:
            wanted, local = topic_ids.get(tp.topic), self._topic_ids.get(tp)
            if wanted is None or (wanted and local and wanted != local) or tp not in assigned:
                stray.append(tp)
        return sorted(stray)

    async def async_delete(self, tp: TopicPartition) -> Path | None:
        """Forget the log of ``tp``, rename its directory ``<topic>-<partition>.<uuid>-delete``
        and remove it ``file.delete.delay.ms`` later (the broker's ``log.segment.delete.delay.ms``;
        a restart removes it at start-up).  A new log of the same partition starts empty at once.

        Waits (at most 30 s) for the log's in-flight background flush first.  A missing log is
        ignored.  Kafka concept: ``LogManager.asyncDelete``.

        Returns:
            The renamed directory, or None when there was no log.

        Raises:
            OSError: the directory cannot be renamed.
        """
        if self.cleaner is not None:
            await self.cleaner.abort_cleaning(tp)
        log = self._logs.pop(tp, None)
        self._topic_ids.pop(tp, None)
        if log is None:
            return None
        await log.stop_flushing(STOP_FLUSH_TIMEOUT_S)  # a flush must not recreate files in the renamed dir
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, log.close)
        renamed = await loop.run_in_executor(None, _rename_for_deletion, log.dir)
        delay_ms = self.default_log_config.file_delete_delay_ms
        self.schedule_file_deletion([renamed], delay_ms)
        logger.info(
            "%s Log for partition %s is renamed to %s and is scheduled for deletion in %d ms",
            self._prefix,
            tp,
            renamed,
            delay_ms,
        )
        return renamed

    # ------------------------------------------------------------------ flushing
    async def flush_dirty_logs(self) -> None:
        """Flush every log with unflushed messages whose ``flush.ms`` elapsed since its last flush
        (Kafka's ``LogManager.flushDirtyLogs``), or that needs one and has none running."""
        now = self._time_ms()
        for log in list(self._logs.values()):
            if log.unflushed_messages <= 0 or log.pending_flush is not None:
                continue
            if log.flush_needed or now - log.last_flush_time_ms >= log.config.flush_ms:
                await log.flush()

    # ----------------------------------------------------------------- retention
    async def cleanup_logs(self) -> int:
        """Apply retention to every log now (Kafka's ``LogManager.cleanupLogs``).

        Each log deletes the segments its retention no longer keeps
        (``UnifiedLog.delete_old_segments`` with the wall clock); their ``.deleted`` files are
        scheduled for removal after the log's ``file.delete.delay.ms``.  When anything was
        deleted the offset checkpoints are rewritten (new log start offsets).  A log whose
        deletion fails is logged and skipped; the others are still cleaned.

        Returns:
            Number of files renamed to ``.deleted`` by this pass.
        """
        now_wall = self._wall_clock_ms()
        total = 0
        for tp, log in list(self._logs.items()):
            try:
                renamed = log.delete_old_segments(now_wall)
            except OSError:
                logger.exception("%s Retention of %s failed", self._prefix, tp)
                continue
            if renamed:
                self.schedule_file_deletion(renamed, log.config.file_delete_delay_ms)
                total += len(renamed)
        if total:
            await self.checkpoint_log_offsets()
        return total

    def schedule_file_deletion(self, paths: list[Path], delay_ms: int) -> None:
        """Unlink ``paths`` after ``delay_ms`` (Kafka's ``file.delete.delay.ms``), from the scheduler.

        Args:
            paths: files already renamed out of the log (``*.deleted``).
            delay_ms: delay in ms (0: at the next scheduler round).
        """
        if paths:
            self._pending_deletions.append((self._time_ms() + delay_ms, list(paths)))

    @property
    def pending_file_deletions(self) -> list[Path]:
        """Files waiting for their ``file.delete.delay.ms`` to pass."""
        return [path for _, paths in self._pending_deletions for path in paths]

    async def delete_due_files(self) -> int:
        """Unlink (in the default executor) the scheduled files whose delay has passed.

        Returns:
            Number of files removed.
        """
        now = self._time_ms()
        due = [paths for at, paths in self._pending_deletions if at <= now]
        if not due:
            return 0
        self._pending_deletions = [(at, paths) for at, paths in self._pending_deletions if at > now]
        files = [path for paths in due for path in paths]
        await asyncio.get_running_loop().run_in_executor(None, _delete_files, files)
        logger.info("%s Deleted %d files of deleted segments", self._prefix, len(files))
        return len(files)

    # --------------------------------------------------------------- checkpoints
    def logs_by_dir(self) -> dict[Path, dict[TopicPartition, UnifiedLog]]:
        """Every log dir's logs, in one pass over the logs (a checkpoint of 1,000 partitions
        must not compare paths per partition per partition)."""
        by_dir: dict[Path, dict[TopicPartition, UnifiedLog]] = {log_dir: {} for log_dir in self.log_dirs}
        for tp, log in self._logs.items():
            logs = by_dir.get(log.dir.parent)
            if logs is not None:
                logs[tp] = log
        return by_dir

    def _offset_checkpoints(self) -> dict[Path, tuple[dict[TopicPartition, int], dict[TopicPartition, int]]]:
        """Every log dir's (recovery points, log start offsets), taken on the event loop."""
        return {
            log_dir: (
                {tp: log.recovery_point for tp, log in logs.items()},
                {tp: log.log_start_offset for tp, log in logs.items()},
            )
            for log_dir, logs in self.logs_by_dir().items()
        }

    @staticmethod
    def _write_offset_checkpoints(
        checkpoints: dict[Path, tuple[dict[TopicPartition, int], dict[TopicPartition, int]]],
    ) -> None:
        """Blocking: write ``_offset_checkpoints()`` to every log dir's two files."""
        for log_dir, (recovery_points, log_start_offsets) in checkpoints.items():
            OffsetCheckpointFile(log_dir / RECOVERY_POINT_CHECKPOINT_FILE).write(recovery_points)
            OffsetCheckpointFile(log_dir / LOG_START_OFFSET_CHECKPOINT_FILE).write(log_start_offsets)

    async def checkpoint_log_offsets(self) -> None:
        """Write ``recovery-point-offset-checkpoint`` and ``log-start-offset-checkpoint``
        in every log dir (the offsets taken here, the files written in the default executor)."""
        checkpoints = self._offset_checkpoints()
        async with self._checkpoint_lock:
            await _finish_in_thread(self._write_offset_checkpoints, checkpoints)

    def read_high_watermarks(self) -> dict[TopicPartition, int]:
        """Read ``replication-offset-checkpoint`` of every log dir (blocking, small files).

        Returns:
            ``{TopicPartition: high watermark}`` merged over the log dirs; a corrupt file is
            logged and skipped.
        """
        merged: dict[TopicPartition, int] = {}
        for log_dir in self.log_dirs:
            merged.update(self._read_checkpoint(log_dir / HIGH_WATERMARK_CHECKPOINT_FILE))
        return merged

    async def write_high_watermarks(self, high_watermarks: dict[TopicPartition, int]) -> None:
        """Write each log dir's ``replication-offset-checkpoint`` with the HWs of its logs.

        Args:
            high_watermarks: ``{TopicPartition: high watermark}``; partitions without a log
                here are left out.
        """
        per_dir = {
            log_dir: {tp: hw for tp, hw in high_watermarks.items() if tp in logs}
            for log_dir, logs in self.logs_by_dir().items()
        }

        def write() -> None:
            for log_dir, offsets in per_dir.items():
                OffsetCheckpointFile(log_dir / HIGH_WATERMARK_CHECKPOINT_FILE).write(offsets)

        async with self._checkpoint_lock:
            await _finish_in_thread(write)

    # ----------------------------------------------------------------- scheduler
    def _schedule_jobs(self) -> None:
        """Kafka's ``LogManager.startup`` jobs: retention every ``log.retention.check.interval.ms``,
        flushes as often as the smallest ``flush.ms`` asks, unlinking of deleted files when they
        are due, offset checkpoints every ``log.flush.offset.checkpoint.interval.ms``."""
        retention_ms, checkpoint_ms = self._retention_check_interval_ms, self._checkpoint_interval_ms
        schedule = self._scheduler.schedule
        schedule("kafka-log-retention", self.cleanup_logs, delay_ms=retention_ms, period_ms=retention_ms)
        schedule(
            "kafka-log-flusher",
            self.flush_dirty_logs,
            delay_ms=self._flush_check_ms(),
            period_ms=self._flush_check_ms,
        )
        schedule(
            "kafka-delete-logs",
            self.delete_due_files,
            delay_ms=MAX_SCHEDULER_TICK_MS,
            period_ms=self._next_deletion_ms,
        )
        schedule(
            "kafka-recovery-point-checkpoint",
            self.checkpoint_log_offsets,
            delay_ms=checkpoint_ms,
            period_ms=checkpoint_ms,
        )

    def _flush_check_ms(self) -> float:
        """How long until the flusher looks again: the smallest ``flush.ms`` of the logs,
        between ``MIN_SCHEDULER_TICK_MS`` and ``MAX_SCHEDULER_TICK_MS``."""
        tick = min((log.config.flush_ms for log in self._logs.values()), default=MAX_SCHEDULER_TICK_MS)
        return max(MIN_SCHEDULER_TICK_MS, min(MAX_SCHEDULER_TICK_MS, tick))

    def _next_deletion_ms(self) -> float:
        """How long until the next pending file deletion is due (at most ``MAX_SCHEDULER_TICK_MS``)."""
        now = self._time_ms()
        tick = min((at - now for at, _ in self._pending_deletions), default=MAX_SCHEDULER_TICK_MS)
        return max(MIN_SCHEDULER_TICK_MS, min(MAX_SCHEDULER_TICK_MS, tick))

    # ------------------------------------------------------------------ shutdown
    async def stop(self) -> None:
        """Stop the scheduler, finish flushes, fsync every log, write the offset checkpoints,
        close the logs and write the clean-shutdown marker in every log dir.

        The ReplicaManager writes its high watermarks (``write_high_watermarks``) before
        calling this.  Waits at most 30 s for in-flight flushes, then cancels them.

        Raises:
            OSError: a flush or checkpoint failed (no clean-shutdown marker is written).
        """
        if not self._started or self._stopping:
            return
        self._stopping = True
        if self.cleaner is not None:
            await self.cleaner.stop()
        await self._scheduler.cancel(
            "kafka-log-retention",
            "kafka-log-flusher",
            "kafka-delete-logs",
            "kafka-recovery-point-checkpoint",
            timeout_s=STOP_FLUSH_TIMEOUT_S,
        )
        await asyncio.gather(*(log.stop_flushing(STOP_FLUSH_TIMEOUT_S) for log in self._logs.values()))
        async with self._checkpoint_lock:
            await asyncio.get_running_loop().run_in_executor(None, self._shutdown_sync)
        logger.info("%s Shut down cleanly", self._prefix)

    def _shutdown_sync(self) -> None:
        """Blocking: flush, checkpoint, close, write markers."""
        for log in self._logs.values():
            log.flush_sync()
        self._write_offset_checkpoints(self._offset_checkpoints())
        offline_dirs = {log.dir.parent for log in self._logs.values() if log.is_offline}
        for log in self._logs.values():
            log.close()
        self._logs.clear()
        for log_dir in self.log_dirs:
            if log_dir in offline_dirs:
                logger.error(
                    "%s Not writing the clean-shutdown marker in %s: it holds offline logs",
                    self._prefix,
                    log_dir,
                )
                continue  # the next start-up scans past the recovery points again
            (log_dir / CLEAN_SHUTDOWN_FILE).write_bytes(b"")
            fsync_dir(log_dir)
