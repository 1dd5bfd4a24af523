"""Helpers for the streaming tests: bounded waits on a running query."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_for(condition: Callable[[], bool], query, timeout_s: float = 120, what: str = "condition") -> None:
    """Poll ``condition`` until true; fail at once if ``query`` died, or after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if query.exception() is not None:
            raise AssertionError(f"query failed while waiting for {what}: {query.exception()}")
        if not query.isActive:
            raise AssertionError(f"query stopped while waiting for {what}")
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not reached in {timeout_s} s; last progress: {query.lastProgress}")
        time.sleep(0.2)


def kafkette_stream(spark, bootstrap: str, **options: str):
    """``spark.readStream.format("kafkette")`` with the bootstrap servers and ``options``."""
    reader = spark.readStream.format("kafkette").option("kafkette.bootstrap.servers", bootstrap)
    for name, value in options.items():
        reader = reader.option(name, value)
    return reader.load()
