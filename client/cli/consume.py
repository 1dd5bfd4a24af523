"""``kafkette consume``: print records of a topic, in the manner of the console consumer.

Owns: the command and its ``--offset`` rules.  Records are printed by
``DefaultMessageFormatter`` (values one per line by default; ``--property print.key=true``
and the other ``print.*`` properties add fields).  ``--partition`` with ``--offset``
(a number, ``earliest`` or ``latest``) starts there; ``--consumer-property k=v`` and
``--consumer.config FILE`` set Kafka consumer properties.  ``--group G`` (or ``group.id``)
consumes as a member of consumer group G: the group's partitions are shared with its other
members, it starts at the group's committed offsets (``--from-beginning`` applies only where
the group has none) and commits what it printed.  Stops after
``--max-messages`` or after ``--timeout-ms`` without a record; otherwise runs until
Ctrl-C (SIGINT) or SIGTERM, which stop it cleanly: the consumer is closed (a group member
commits its offsets and leaves), ``Processed a total of N messages`` goes to stderr as
always, and the exit code is 130 (128 + SIGINT) or 143 (128 + SIGTERM), as Kafka's console
consumer exits (its JVM exits 128 + the signal's number; 0 when it ended itself).  A partition without a
leader is not silently skipped: the consumer logs a WARN for it, and the summary names the
partitions it could not read (``Processed a total of 21 messages; partitions not read (no
leader): t-1``).  A progress line goes to stderr when it is a terminal, cleared around
the records printed to the same terminal.  ``--isolation-level read_committed`` prints only
records of committed transactions.  Kafka concept: ``kafka-console-consumer.sh``
(``ConsoleConsumer``).
"""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import click

from kafkette.client.cli.message_formatter import DefaultMessageFormatter
from kafkette.client.cli.progress import progress_bar
from kafkette.client.cli.shared_options import (
    bootstrap_server_option,
    command_config_alias_option,
    parse_key_value,
    run_coroutine,
    sdk_settings,
)
from kafkette.client.consumer import Consumer
from kafkette.protocol.topic_partition import TopicPartition


def parse_offset(offset: str | None, partition: int | None, from_beginning: bool) -> int | str | None:
    """``--offset``: a non-negative offset, ``earliest`` or ``latest`` (kafka-console-consumer's rules).

    Returns:
        The offset, ``"earliest"``, ``"latest"`` or None when not given.

    Raises:
        click.UsageError: --offset without --partition, with --from-beginning, or malformed.
    """
    if offset is None:
        return None
    if partition is None:
        raise click.UsageError("The partition is required when offset is specified.")
    if from_beginning:
        raise click.UsageError("Options from-beginning and offset cannot be specified together.")
    text = offset.strip().lower()
    if text in ("earliest", "latest"):
        return text
    if not text.isdigit():
        raise click.UsageError(f"The offset {offset!r} must be a non-negative number, 'earliest' or 'latest'")
    return int(text)


@dataclass
class ConsumeResult:
    """What a ``consume`` run did, filled in as it goes (so a signal finds it up to date).

    Attributes:
        count: records printed.
        not_read: assigned partitions that had no leader when it stopped (not fetched).
        stopped_by: the signal that stopped it (SIGINT, SIGTERM), None when it ended itself.
    """

    count: int = 0
    not_read: set[TopicPartition] = field(default_factory=set)
    stopped_by: int | None = None

    def summary(self) -> str:
        """The console consumer's last line, ``Processed a total of N messages``, naming the
        partitions not read for want of a leader when there are any."""
        line = f"Processed a total of {self.count} messages"
        if self.not_read:
            line += "; partitions not read (no leader): " + ", ".join(
                str(tp) for tp in sorted(self.not_read, key=lambda tp: (tp.topic, tp.partition))
            )
        return line

    def exit_code(self) -> int:
        """0 when it ended itself, else 128 + the signal's number: 130 after SIGINT, 143 after
        SIGTERM (Kafka's console consumer: the JVM exits so once its shutdown hook has run)."""
        return 0 if self.stopped_by is None else 128 + self.stopped_by


async def run_until_signal(work: Callable[[], Awaitable[None]], result: ConsumeResult) -> None:
    """Run ``work()`` until it returns or SIGINT/SIGTERM arrives; a signal cancels it (its
    ``finally`` blocks and ``async with`` exits run: the consumer is closed and commits) and
    is recorded in ``result.stopped_by``.  A second signal during that clean-up is ignored.

    Raises:
        RuntimeError: not called from a task.
        What ``work`` raises, but not the cancellation a signal caused.
    """
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    if task is None:
        raise RuntimeError("run_until_signal must run in a task")

    def on_signal(signum: int) -> None:
        if result.stopped_by is None:
            result.stopped_by = signum
            task.cancel()

    signals = (signal.SIGINT, signal.SIGTERM)
    for signum in signals:
        loop.add_signal_handler(signum, on_signal, signum)
    try:
        await work()
    except asyncio.CancelledError:
        if result.stopped_by is None or task.uncancel() > 0:
            raise  # not (only) our cancellation
    finally:
        for signum in signals:
            loop.remove_signal_handler(signum)


async def _position(consumer: Consumer, tp: TopicPartition, start: int | str | None) -> None:
    if start == "earliest":
        await consumer.seek_to_beginning(tp)
    elif start == "latest":
        await consumer.seek_to_end(tp)
    elif isinstance(start, int):
        consumer.seek(tp, start)


@click.command()
@click.option("--topic", required=True, help="Topic to consume.")
@click.option("--from-beginning", is_flag=True, help="Start at the earliest offset (default: the end).")
@click.option("--max-messages", type=click.IntRange(1), default=None, help="Exit after N records.")
@click.option("--partition", type=click.IntRange(0), default=None, help="Consume only this partition.")
@click.option(
    "--offset",
    default=None,
    metavar="OFFSET|earliest|latest",
    help="Where to start in --partition (default: latest, or earliest with --from-beginning).",
)
@click.option(
    "--timeout-ms",
    type=click.IntRange(1),
    default=None,
    help="Exit when no record arrives for this long (ms).",
)
@click.option(
    "--group", default=None, help="Consume as a member of this consumer group (commits its offsets)."
)
@click.option(
    "--property",
    "properties",
    multiple=True,
    metavar="KEY=VALUE",
    help="Formatter property: print.timestamp, print.partition, print.offset, print.headers, "
    "print.key, print.value, key.separator, line.separator, headers.separator, null.literal.",
)
@click.option(
    "--consumer-property",
    "consumer_properties",
    multiple=True,
    metavar="KEY=VALUE",
    help="Kafka consumer property (fetch.max.wait.ms=100, client.id=..., ...); repeatable.",
)
@command_config_alias_option("--consumer.config")
@click.option("--request-timeout-ms", type=click.IntRange(1), default=30000, show_default=True)
@click.option(
    "--isolation-level",
    type=click.Choice(["read_uncommitted", "read_committed"]),
    default="read_uncommitted",
    show_default=True,
    help="read_committed: only records of committed transactions, up to the last stable offset "
    "(Kafka's isolation.level).",
)
@bootstrap_server_option
def consume(
    topic: str,
    from_beginning: bool,
    max_messages: int | None,
    partition: int | None,
    offset: str | None,
    timeout_ms: int | None,
    group: str | None,
    properties: tuple[str, ...],
    consumer_properties: tuple[str, ...],
    request_timeout_ms: int,
    isolation_level: str,
    bootstrap_server: str,
) -> int:
    """Print the records of TOPIC to standard output."""
    start = parse_offset(offset, partition, from_beginning)
    try:
        formatter = DefaultMessageFormatter.from_properties(
            dict(parse_key_value(p, "--property") for p in properties)
        )
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    settings = sdk_settings(
        Consumer,
        properties=consumer_properties,
        property_flag="--consumer-property",
        flags={
            "bootstrap_servers": ("bootstrap_server", bootstrap_server),
            "request_timeout_ms": ("request_timeout_ms", request_timeout_ms),
            "auto_offset_reset": ("from_beginning", "earliest" if from_beginning else "latest"),
            "client_id": (None, "kafkette-console-consumer"),
            "isolation_level": ("isolation_level", isolation_level),
            **({"group_id": ("group", group)} if group is not None else {}),
        },
    )
    if settings.get("group_id") is not None and partition is not None:
        raise click.UsageError("Options group and partition cannot be specified together.")
    out = sys.stdout.buffer
    result = ConsumeResult()

    async def consume_records(consumer: Consumer) -> None:
        loop = asyncio.get_running_loop()
        last_record = loop.time()
        with progress_bar("consume", total=max_messages) as progress:
            while max_messages is None or result.count < max_messages:
                remaining = None if max_messages is None else max_messages - result.count
                batches = await consumer.getmany(timeout_ms=500, max_records=remaining)
                if not batches:
                    if timeout_ms is not None and (loop.time() - last_record) * 1000 >= timeout_ms:
                        break
                    continue
                last_record = loop.time()
                with progress.writing_to(out):
                    for records in batches.values():
                        out.write(b"".join(formatter.format(r) for r in records))
                        result.count += len(records)
                    out.flush()
                progress.update(sum(len(records) for records in batches.values()))

    async def run() -> None:
        async with Consumer(**settings) as consumer:
            if consumer.group_id is not None:
                consumer.subscribe([topic])
            elif partition is not None:
                known = await consumer.partitions_for_topic(topic)
                if partition not in known:
                    raise click.ClickException(f"Topic {topic} has no partition {partition}")
                partitions = [partition]
            else:
                partitions = sorted(await consumer.partitions_for_topic(topic))
            if consumer.group_id is None:
                assigned = [TopicPartition(topic, p) for p in partitions]
                consumer.assign(assigned)
                for tp in assigned:
                    await _position(consumer, tp, start)
            try:
                await consume_records(consumer)
            finally:
                result.not_read = consumer.partitions_without_leader()

    try:
        run_coroutine(run_until_signal(run, result))
    except KeyboardInterrupt:  # before the signal handlers were in place
        result.stopped_by = signal.SIGINT
    click.echo(result.summary(), err=True)
    return result.exit_code()
