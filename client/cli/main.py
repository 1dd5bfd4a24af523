"""The ``kafkette`` command: the click group, its subcommands and one-line errors.

Owns: ``KafketteGroup`` (runs click in non-standalone mode and turns user mistakes
into one ``Error: ...`` line on stderr with a non-zero exit, no traceback; a flag of
Kafka's tools that kafkette does not take names what to use instead), the
``kafkette`` group and ``main()`` (console script ``kafkette``).  Each command group
lives in its own module (cluster, broker, topics, configs, produce, consume, perf,
delete-records, metadata-quorum, acls, transactions).
"""

from __future__ import annotations

import sys
from typing import Any

import click

from kafkette.client.cli.acls import acls
from kafkette.client.cli.broker import broker
from kafkette.client.cli.cluster import cluster
from kafkette.client.cli.configs import configs
from kafkette.client.cli.consume import consume
from kafkette.client.cli.consumer_groups import consumer_groups
from kafkette.client.cli.delete_records import delete_records
from kafkette.client.cli.kafka_flags import advice_for
from kafkette.client.cli.metadata_quorum import metadata_quorum
from kafkette.client.cli.perf import perf
from kafkette.client.cli.produce import produce
from kafkette.client.cli.tools_logging import configure_tools_logging
from kafkette.client.cli.topics import topics
from kafkette.client.cli.transactions import transactions
from kafkette.client.local_cluster import LocalClusterError
from kafkette.common.process_tuning import tune_process_memory
from kafkette.protocol.errors import KafkaError

# Exceptions that mean "the user asked for something that cannot be done".
USER_ERRORS: tuple[type[BaseException], ...] = (KafkaError, LocalClusterError, ValueError, OSError)


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


class KafketteGroup(click.Group):
    """A click group whose errors are one ``Error: ...`` line on stderr."""

    def main(
        self,
        args: Any = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            result = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.NoSuchOption as exc:
            path = exc.ctx.command_path if exc.ctx is not None else "kafkette"
            message = advice_for(exc.option_name, path) or _one_line(Exception(exc.format_message()))
            click.echo(f"Error: {message}", err=True)
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            click.echo(f"Error: {_one_line(Exception(exc.format_message()))}", err=True)
            sys.exit(exc.exit_code)
        except (click.Abort, KeyboardInterrupt):
            click.echo("Aborted.", err=True)
            sys.exit(130)
        except USER_ERRORS as exc:
            click.echo(f"Error: {_one_line(exc)}", err=True)
            sys.exit(1)
        sys.exit(result if isinstance(result, int) else 0)


@click.group(cls=KafketteGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="kafkette", prog_name="kafkette")
def kafkette() -> None:
    """Kafkette: a Kafka-style replicated broker cluster, its SDK and tools."""


kafkette.add_command(cluster)
kafkette.add_command(broker)
kafkette.add_command(topics)
kafkette.add_command(configs)
kafkette.add_command(produce)
kafkette.add_command(consume)
kafkette.add_command(consumer_groups)
kafkette.add_command(perf)
kafkette.add_command(delete_records)
kafkette.add_command(metadata_quorum)
kafkette.add_command(acls)
kafkette.add_command(transactions)


def main() -> None:
    """Console-script entry point (``kafkette``)."""
    tune_process_memory()
    configure_tools_logging()
    kafkette.main(prog_name="kafkette")


if __name__ == "__main__":
    main()
