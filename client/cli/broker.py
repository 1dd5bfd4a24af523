"""``kafkette broker start --config server.properties [--log-dir DIR]``: one broker in the foreground.

Owns only the command; the broker itself is ``kafkette.broker.server.run_broker`` (imported
lazily so the client CLI does not load broker code for other commands).  Its log lines go to
stderr and to ``server.log`` and ``state-change.log`` in ``--log-dir``, else ``$LOG_DIR``
(Kafka's ``kafka-run-class.sh`` variable), else a ``logs`` folder beside the first of
``log.dirs`` (``kafkette.broker.server_logging``), never the working directory.
"""

from __future__ import annotations

import click


@click.group()
def broker() -> None:
    """Run a single broker."""


@broker.command("start")
@click.option(
    "--config",
    "config_path",
    required=True,
    type=click.Path(dir_okay=False),
    help="Path of the broker's server.properties.",
)
@click.option(
    "--log-dir",
    "log_dir",
    default=None,
    type=click.Path(file_okay=False),
    help="Folder of server.log and state-change.log (Kafka's kafka.logs.dir; default $LOG_DIR, "
    "else 'logs' beside the first of log.dirs). Not log.dirs, the partitions' data.",
)
def start(config_path: str, log_dir: str | None) -> int:
    """Run one broker until SIGINT/SIGTERM; exits with the broker's exit code."""
    from kafkette.broker.server import run_broker

    return run_broker(config_path, log_dir)
