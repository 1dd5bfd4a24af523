"""The one scheduler of a node's periodic jobs: start them, run them on a clock, stop them.

Owns: one asyncio task per scheduled job, which waits ``delay_ms`` then runs the job every
``period_ms`` (or once) on the injected ``Time``; the failures of jobs (a failed run is
logged with its traceback and kept as the job's ``last_failure``, the job keeps its
schedule, as Kafka's scheduler does); and ``shutdown``, which cancels every job and
awaits it, bounded.  A job is a plain function or a coroutine function taking no
argument.  Shared by the broker and the controller (one instance per node), so it lives
below both.

Kafka concept: ``org.apache.kafka.server.util.KafkaScheduler`` (``schedule(name, fun,
delay, period)``, ``shutdown``) with the threads of its pool as asyncio tasks.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from kafkette.common.background_tasks import cancel_and_wait
from kafkette.common.clock import SYSTEM_TIME, Time

logger = logging.getLogger(__name__)

SHUTDOWN_TIMEOUT_S = 10.0


@dataclass
class ScheduledJob:
    """One job's schedule and record.

    Attributes:
        name: the job's name (Kafka's: ``isr-expiration``, ``highwatermark-checkpoint``, ...).
        period_ms: ms between the end of one run and the start of the next, or a function
            giving it after each run (a period that follows configuration, such as the
            smallest ``flush.ms`` of the logs); None runs once.
        runs: runs finished, failed ones included.
        last_failure: the exception of the last failed run, None once a run succeeds.
    """

    name: str
    period_ms: float | Callable[[], float] | None
    runs: int = 0
    last_failure: BaseException | None = None
    task: asyncio.Task[None] | None = field(default=None, repr=False)


class KafkaScheduler:
    """Runs named jobs on a clock; ``shutdown`` stops them all.

    Args:
        time: the clock jobs wait on (``MockTime`` in tests).
        log_prefix: put before this scheduler's log lines (e.g. ``"[KafkaScheduler node=1]"``).
    """

    def __init__(self, time: Time = SYSTEM_TIME, log_prefix: str = "[KafkaScheduler]") -> None:
        self.time = time
        self._prefix = log_prefix
        self._jobs: dict[str, ScheduledJob] = {}
        self._shut_down = False

    def schedule(
        self,
        name: str,
        job: Callable[[], object],
        *,
        delay_ms: float = 0.0,
        period_ms: float | Callable[[], float] | None = None,
    ) -> ScheduledJob:
        """Run ``job`` after ``delay_ms``, then every ``period_ms`` (once when None).

        Args:
            name: unique among this scheduler's live jobs.
            job: a function or coroutine function without arguments.
            delay_ms: wait before the first run (ms).
            period_ms: wait between runs (ms, > 0), a function returning it after each run
                (values below 1 ms wait 1 ms), or None.

        Returns:
            The job's record (runs, last failure).

        Raises:
            RuntimeError: the scheduler was shut down.
            ValueError: ``name`` is already scheduled, or ``period_ms`` is not positive.
        """
        if self._shut_down:
            raise RuntimeError(f"{self._prefix} cannot schedule {name}: the scheduler is shut down")
        existing = self._jobs.get(name)
        if existing is not None and existing.task is not None and not existing.task.done():
            raise ValueError(f"{self._prefix} a job named {name} is already scheduled")
        if isinstance(period_ms, (int, float)) and period_ms <= 0:
            raise ValueError(f"{self._prefix} period_ms of {name} must be positive, not {period_ms}")
        record = ScheduledJob(name, period_ms)
        record.task = asyncio.get_running_loop().create_task(self._run(record, job, delay_ms), name=name)
        self._jobs[name] = record
        return record

    def job(self, name: str) -> ScheduledJob | None:
        """The record of the job named ``name`` (None if never scheduled)."""
        return self._jobs.get(name)

    def failures(self) -> dict[str, BaseException]:
        """``{job name: its last failure}`` for every job whose last run failed."""
        return {name: job.last_failure for name, job in self._jobs.items() if job.last_failure is not None}

    async def _run(self, record: ScheduledJob, job: Callable[[], object], delay_ms: float) -> None:
        await self.time.sleep(delay_ms)
        while True:
            try:
                result = job()
                if inspect.isawaitable(result):
                    await result
                record.last_failure = None
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a failed run is logged and kept; the schedule goes on
                record.last_failure = exc
                logger.exception("%s Job %s failed", self._prefix, record.name)
            record.runs += 1
            period_ms = record.period_ms
            if period_ms is None:
                return
            if not isinstance(period_ms, (int, float)):
                try:
                    period_ms = max(period_ms(), 1.0)
                except Exception as exc:  # no next run can be placed: the job ends, its failure kept
                    record.last_failure = exc
                    logger.exception(
                        "%s Job %s stopped: its period could not be computed", self._prefix, record.name
                    )
                    return
            await self.time.sleep(period_ms)

    async def cancel(self, *names: str, timeout_s: float = SHUTDOWN_TIMEOUT_S) -> None:
        """Stop the jobs named ``names`` (their owner is stopping) and wait for them, at most
        ``timeout_s``; unknown or finished jobs are skipped."""
        jobs = [job for job in (self._jobs.pop(name, None) for name in names) if job is not None]
        still = await cancel_and_wait([job.task for job in jobs], timeout_s)
        if still:
            logger.error(
                "%s Jobs still running %.0f s after they were cancelled: %s",
                self._prefix,
                timeout_s,
                ", ".join(sorted(task.get_name() for task in still)),
            )

    async def shutdown(self, timeout_s: float = SHUTDOWN_TIMEOUT_S) -> None:
        """Cancel every job and wait for them (at most ``timeout_s``); later ``schedule``
        calls are refused.  A job still running at the timeout is logged by name."""
        self._shut_down = True
        still = await cancel_and_wait([job.task for job in self._jobs.values()], timeout_s)
        if still:
            logger.error(
                "%s Jobs still running %.0f s after shutdown: %s",
                self._prefix,
                timeout_s,
                ", ".join(sorted(task.get_name() for task in still)),
            )
