"""Running a command on a pseudo-terminal and reading back what a terminal would show.

Owns: ``run_on_terminal`` (a subprocess whose stdout and stderr are one pseudo-terminal of a
given size, as a user's shell gives them, its whole output read back) and ``rendered_lines``
(the lines a terminal shows for that output: a carriage return moves back to the start of the
line and what follows overwrites it, as a progress bar redraws itself).  Used by the CLI tests
of the progress line.  Does not own the commands run.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import selectors
import struct
import subprocess
import termios
import time
from collections.abc import Mapping, Sequence
from typing import NamedTuple

_CSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")  # cursor moves and erasures: not text


class TerminalRun(NamedTuple):
    """A finished command's exit code and the bytes it wrote to its terminal."""

    returncode: int
    output: bytes


def run_on_terminal(
    args: Sequence[str],
    *,
    timeout_s: float,
    columns: int = 120,
    rows: int = 40,
    env: Mapping[str, str] | None = None,
) -> TerminalRun:
    """Run ``args`` with stdout and stderr on one new pseudo-terminal; wait for it to exit.

    Args:
        args: the command line.
        timeout_s: bound on the whole run (s); the command is killed past it.
        columns: the terminal's width (characters), set before the command starts.
        rows: the terminal's height (lines).
        env: the environment (default: this process's).

    Returns:
        The exit code and everything written to the terminal (the terminal's own
        newline translation applied: ``\\n`` arrives as ``\\r\\n``).

    Raises:
        AssertionError: the command did not exit within ``timeout_s``.
    """
    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    try:
        proc = subprocess.Popen(
            list(args),
            stdin=subprocess.DEVNULL,
            stdout=terminal,
            stderr=terminal,
            env=dict(env) if env is not None else None,
        )
    finally:
        os.close(terminal)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout_s
    with selectors.DefaultSelector() as selector:
        selector.register(controller, selectors.EVENT_READ)
        try:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    proc.kill()
                    proc.wait(timeout=30)
                    raise AssertionError(
                        f"{args} did not exit within {timeout_s} s; it wrote: {b''.join(chunks)[-2000:]!r}"
                    )
                if not selector.select(timeout=min(remaining, 0.5)):
                    if proc.poll() is not None and not selector.select(timeout=0.2):
                        break
                    continue
                try:
                    data = os.read(controller, 65536)
                except OSError:  # EIO: every writer closed the terminal
                    break
                if not data:
                    break
                chunks.append(data)
        finally:
            os.close(controller)
    return TerminalRun(proc.wait(timeout=max(deadline - time.monotonic(), 1)), b"".join(chunks))


def rendered_lines(output: bytes) -> list[str]:
    """The lines a terminal shows for ``output``: each ``\\n`` ends a line; a ``\\r`` moves
    back to the line's start, and later characters overwrite earlier ones; escape sequences
    are dropped; trailing blanks are stripped.

    Args:
        output: what a command wrote to its terminal.

    Returns:
        The visible lines, in order (a last line without newline included when not blank).
    """
    lines: list[str] = []
    line: list[str] = []
    column = 0
    for char in _CSI.sub("", output.decode("utf-8", errors="replace")):
        if char == "\n":
            lines.append("".join(line).rstrip())
            line, column = [], 0
        elif char == "\r":
            column = 0
        else:
            if column < len(line):
                line[column] = char
            else:
                line.append(char)
            column += 1
    if "".join(line).strip():
        lines.append("".join(line).rstrip())
    return lines
