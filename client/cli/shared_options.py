"""What every ``kafkette`` command shares: ``--bootstrap-server`` and the event loop.

Owns: the ``bootstrap_server_option`` decorator (Kafka's flag name and default) and
``run_coroutine`` (runs a command's coroutine on uvloop when available).  Error
presentation (one line on stderr) lives in ``kafkette.client.cli.main``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import click

DEFAULT_BOOTSTRAP_SERVER = "127.0.0.1:9092"

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])


def bootstrap_server_option(func: F) -> F:
    """Add ``--bootstrap-server HOST:PORT[,HOST:PORT...]`` (default 127.0.0.1:9092)."""
    return click.option(
        "--bootstrap-server", "bootstrap_server", default=DEFAULT_BOOTSTRAP_SERVER, show_default=True,
        metavar="HOST:PORT[,...]", help="Broker(s) to bootstrap from.",
    )(func)


def run_coroutine(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion on a fresh event loop (uvloop when installed)."""
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvloop is a runtime dependency
        return asyncio.run(coro)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(coro)


def parse_key_value(text: str, flag: str) -> tuple[str, str]:
    """Split ``key=value`` given to ``flag``.

    Raises:
        click.UsageError: no ``=`` or an empty key.
    """
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise click.UsageError(f"Invalid {flag} {text!r}: expected key=value")
    return key.strip(), value
