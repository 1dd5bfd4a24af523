"""Shared pytest setup: fail any test that leaves an unhandled asyncio task exception."""

from __future__ import annotations

import asyncio
import gc

import pytest


@pytest.fixture(autouse=True)
def fail_on_unhandled_task_exception(request: pytest.FixtureRequest):
    """Collect exceptions asyncio reports as never retrieved and fail the test on them."""
    errors: list[dict] = []

    def handler(loop: asyncio.AbstractEventLoop, context: dict) -> None:
        errors.append(context)

    try:
        loop = asyncio.get_event_loop_policy().get_event_loop()
    except RuntimeError:
        loop = None
    previous = loop.get_exception_handler() if loop is not None else None
    if loop is not None:
        loop.set_exception_handler(handler)
    yield
    gc.collect()
    if loop is not None:
        loop.set_exception_handler(previous)
    if errors:
        pytest.fail(f"unhandled asyncio task exception(s): {[e.get('message') for e in errors]}")
