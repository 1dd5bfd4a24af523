"""``kafkette broker start --config server.properties``: one broker in the foreground.

Owns only the command; the broker itself is ``kafkette.broker.server.run_broker`` (imported
lazily so the client CLI does not load broker code for other commands).
"""

from __future__ import annotations

import click


@click.group()
def broker() -> None:
    """Run a single broker."""


@broker.command("start")
@click.option("--config", "config_path", required=True, type=click.Path(dir_okay=False),
              help="Path of the broker's server.properties.")
def start(config_path: str) -> int:
    """Run one broker until SIGINT/SIGTERM; exits with the broker's exit code."""
    from kafkette.broker.server import run_broker

    return run_broker(config_path)
