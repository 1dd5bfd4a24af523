"""A progress line on stderr for the CLI's long work, shown only when stderr is a terminal.

Owns: ``progress_bar`` (a ``ProgressBar``: a ``tqdm`` bar on stderr, disabled when stderr
is not a terminal, so pipes, files and CI logs get nothing), keeping other output off the
bar's line (while a bar is open, log lines go through ``tqdm.write``, which clears the bar
first; ``ProgressBar.writing_to(stdout)`` clears it around records a command prints to the
same terminal, then draws it again), and ``input_size_bytes`` (the size of a regular file
on stdin, so that ``kafkette produce < file`` shows how far it is).  Used by ``kafkette
produce``, ``kafkette consume`` and ``kafkette perf``.  Does not own what is counted: each
command calls ``update``.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from collections.abc import Iterator
from typing import IO, Any

from tqdm import tqdm
from tqdm.contrib.logging import logging_redirect_tqdm

REFRESH_INTERVAL_S = 0.5  # at most two redraws a second: the bar must not cost throughput
DEFAULT_COLUMNS, DEFAULT_ROWS = 80, 24  # a terminal that reports no size (a fresh pseudo-terminal)


class ProgressBar(tqdm):
    """A ``tqdm`` bar that keeps the command's other output off its line.

    While it is open (``with``), log records for stderr or stdout are written by
    ``tqdm.write`` (the bar is cleared, the line written, the bar drawn again: tqdm's
    ``logging_redirect_tqdm``); ``writing_to`` does the same for what a command prints
    itself.  Disabled (not a terminal), both cost next to nothing.
    """

    def __enter__(self) -> ProgressBar:
        super().__enter__()
        self._log_redirect: contextlib.ExitStack | None = None
        if not self.disable:
            self._log_redirect = contextlib.ExitStack()
            self._log_redirect.enter_context(logging_redirect_tqdm(tqdm_class=tqdm))
        return self

    def __exit__(self, *exc: Any) -> Any:
        redirect = getattr(self, "_log_redirect", None)
        if redirect is not None:
            redirect.close()
        return super().__exit__(*exc)

    @contextlib.contextmanager
    def writing_to(self, stream: IO[bytes] | IO[str]) -> Iterator[None]:
        """Clear the bar while the block writes to ``stream``, then draw it again, when the
        bar and ``stream`` are on the same terminal (records on stdout with the bar on
        stderr): without it a record would start at the end of the bar's line.  The block
        must flush ``stream`` before it ends.  The bar's lock is held meanwhile, so tqdm's
        monitor thread does not draw it in the middle.

        Args:
            stream: where the block writes (a binary or text stream).
        """
        if self.disable or not _same_terminal(stream, self.fp):
            yield
            return
        with self._lock:
            self.clear(nolock=True)
            self.fp.flush()  # clear() leaves its closing carriage return in the buffer
            try:
                yield
            finally:
                self.refresh(nolock=True)


def _same_terminal(stream: IO[Any], other: IO[Any]) -> bool:
    """True when both streams are terminals and the same one (or its name is unknown)."""
    try:
        fds = stream.fileno(), other.fileno()
        if not all(os.isatty(fd) for fd in fds):
            return False
        return os.ttyname(fds[0]) == os.ttyname(fds[1])
    except (OSError, ValueError, AttributeError):
        try:
            return bool(stream.isatty() and other.isatty())
        except (OSError, ValueError, AttributeError):
            return False


def progress_bar(
    description: str, *, total: int | None = None, unit: str = "records", stream: IO[str] | None = None
) -> ProgressBar:
    """A progress bar on ``stream`` (default stderr), a no-op unless it is a terminal.

    Args:
        description: what is counted, printed before the bar (e.g. ``"produce"``).
        total: the count at which the work is done (records, or bytes with
            ``unit="B"``); None shows a running count and rate without a bar.
        unit: ``"records"``, or ``"B"`` for bytes (scaled to KiB/MiB).
        stream: where to draw; default ``sys.stderr``.

    Returns:
        A ``ProgressBar`` (a ``tqdm``) to ``update(n)`` and ``close()``, or better to use with
        ``with`` (log lines then keep off its line); disabled, its calls cost next to nothing.
    """
    out = sys.stderr if stream is None else stream
    try:
        interactive = out.isatty()
    except (AttributeError, ValueError):  # a closed or fake stream
        interactive = False
    try:
        sized = interactive and os.get_terminal_size(out.fileno()).columns > 0
    except (OSError, ValueError, AttributeError):
        sized = False
    return ProgressBar(
        desc=description,
        total=total,
        unit=unit,
        unit_scale=unit == "B",
        unit_divisor=1024,
        file=out,
        disable=not interactive,
        mininterval=REFRESH_INTERVAL_S,
        leave=True,
        dynamic_ncols=sized,
        ncols=None if sized else DEFAULT_COLUMNS,
        nrows=None if sized else DEFAULT_ROWS,
    )


def input_size_bytes(stream: IO[bytes]) -> int | None:
    """The size of ``stream`` in bytes when it is a regular file, else None (a pipe, a terminal)."""
    try:
        info = os.fstat(stream.fileno())
    except (OSError, ValueError, AttributeError):
        return None
    return info.st_size if stat.S_ISREG(info.st_mode) else None
