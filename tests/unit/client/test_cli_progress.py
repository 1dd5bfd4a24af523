"""The CLI's progress line: drawn on a terminal only, sized by bytes for a file on stdin, and never
sharing a line with records or log lines written to the same terminal."""

from __future__ import annotations

import io
import logging
import os
import re
import sys

from kafkette.client.cli.progress import input_size_bytes, progress_bar
from kafkette.client.cli.tools_logging import configure_tools_logging
from tests.terminal_helpers import rendered_lines


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_nothing_is_drawn_when_the_stream_is_not_a_terminal():
    stream = io.StringIO()
    with progress_bar("produce", total=10, stream=stream) as bar:
        bar.update(10)
    assert stream.getvalue() == ""


def test_a_terminal_gets_a_bar_with_counts():
    stream = FakeTerminal()
    with progress_bar("consume", total=50, stream=stream) as bar:
        bar.update(50)
    assert "consume: 100%" in stream.getvalue() and "50/50" in stream.getvalue()


def test_input_size_is_known_for_a_file_and_unknown_for_a_pipe(tmp_path):
    path = tmp_path / "lines.txt"
    path.write_bytes(b"a\nbb\n")
    with open(path, "rb") as regular:
        assert input_size_bytes(regular) == 5
    read_end, write_end = os.pipe()
    try:
        with os.fdopen(read_end, "rb", closefd=False) as pipe:
            assert input_size_bytes(pipe) is None
    finally:
        os.close(read_end)
        os.close(write_end)
    assert input_size_bytes(io.BytesIO(b"x")) is None


def test_records_written_to_the_terminal_of_the_bar_get_lines_of_their_own():
    terminal = FakeTerminal()
    with progress_bar("consume", total=2, stream=terminal) as bar:
        with bar.writing_to(terminal):
            terminal.write("first\n")
        bar.update(1)
        with bar.writing_to(terminal):
            terminal.write("second\n")
        bar.update(1)
    lines = rendered_lines(terminal.getvalue().encode())
    assert [line for line in lines if "first" in line or "second" in line] == ["first", "second"]
    assert lines[-1].startswith("consume: 100%")


def test_records_written_elsewhere_leave_the_bar_alone():
    terminal, elsewhere = FakeTerminal(), io.StringIO()
    with progress_bar("consume", total=1, stream=terminal) as bar:
        drawn = terminal.getvalue()
        with bar.writing_to(elsewhere):
            elsewhere.write("record\n")
        assert terminal.getvalue() == drawn


def test_log_lines_while_the_bar_is_open_get_lines_of_their_own(monkeypatch):
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    root = logging.getLogger()
    saved = list(root.handlers), root.level
    try:
        configure_tools_logging()  # as the kafkette console script does, on stderr
        with progress_bar("consume", total=1):
            logging.getLogger("kafkette.test.progress").warning("Partition t-1 has no leader")
    finally:
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])
    warned = [line for line in rendered_lines(terminal.getvalue().encode()) if "no leader" in line]
    assert len(warned) == 1 and re.fullmatch(
        r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] WARN Partition t-1 has no leader "
        r"\(kafkette\.test\.progress\)",
        warned[0],
    ), warned
