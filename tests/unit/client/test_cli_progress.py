"""The CLI's progress line: drawn on a terminal only, sized by bytes for a file on stdin."""

from __future__ import annotations

import io
import os

from kafkette.client.cli.progress import input_size_bytes, progress_bar


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
