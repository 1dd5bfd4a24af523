"""``kafkette produce``: stdin lines become records, in the manner of the console producer.

Owns: the command and its line parsing (``--key-separator``, or Kafka's
``--property parse.key=true --property key.separator=S``).  Each line is one record;
with a separator the text before it is the key.  ``--producer-property k=v``,
``--producer.config FILE`` (or ``--command-config``), ``--request-required-acks``,
``--message-send-max-retries`` and ``--retry-backoff-ms`` are the console producer's;
``--delivery-timeout-ms`` and ``--retries`` set the producer properties of those names.  A
record that cannot be delivered within the delivery timeout ends the command with one
``Error:`` line naming the timeout and the last error the partition's leader answered.  A
progress line goes to stderr when it is a terminal (bytes of a file on stdin, else
records).  ``--transactional-id ID`` sends every line read in one transaction, committed at the end
of input (``--transaction-size N``: committed every N records, then at the end; a failure aborts
the open transaction).  Kafka concept: ``kafka-console-producer.sh`` (its ``--transactional-id``
property and the ``transaction.size`` of Kafka's ``VerifiableProducer``-style tools).
"""

from __future__ import annotations

import asyncio
import os
import stat
import sys
from collections.abc import AsyncIterator
from typing import BinaryIO

import click

from kafkette.client.cli.console_transaction import ConsoleTransaction
from kafkette.client.cli.progress import input_size_bytes, progress_bar
from kafkette.client.cli.shared_options import (
    acks_option,
    bootstrap_server_option,
    command_config_alias_option,
    parse_key_value,
    run_coroutine,
    sdk_settings,
)
from kafkette.client.producer import Producer
from kafkette.client.producer.sender import DEFAULT_RETRIES
from kafkette.protocol.compression import CODEC_BY_NAME
from kafkette.protocol.errors import KafkaTimeoutError

SUPPORTED_PROPERTIES = ("parse.key", "key.separator")
MAX_LINE_BYTES = 16 * 1024 * 1024  # longest stdin line read from a pipe or terminal (bytes)


async def stdin_lines(stdin: BinaryIO) -> AsyncIterator[bytes]:
    """Yield the lines of ``stdin`` (with their line ends) without blocking the event loop.

    A pipe or a terminal is read through the event loop, so that each line is sent while
    the user types the next one (kafka-console-producer sends lines as they come); a
    regular file, another device (``/dev/null``) or an in-memory stream never waits for
    input and is read directly.

    Raises:
        ValueError: a line longer than ``MAX_LINE_BYTES``.
    """
    try:
        mode = os.fstat(stdin.fileno()).st_mode
    except (OSError, ValueError, AttributeError):  # no file descriptor (an in-memory stream)
        mode = None
    transport = None
    if mode is not None and (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stdin.isatty()):
        reader = asyncio.StreamReader(limit=MAX_LINE_BYTES)
        try:
            transport, _ = await asyncio.get_running_loop().connect_read_pipe(
                lambda: asyncio.StreamReaderProtocol(reader), stdin
            )
        except (OSError, ValueError):  # the event loop cannot poll it: read it directly
            transport = None
    if transport is None:
        for raw in stdin:
            yield raw
        return
    try:
        while raw := await reader.readline():
            yield raw
    finally:
        transport.close()


def split_line(line: bytes, separator: bytes | None, line_number: int) -> tuple[bytes | None, bytes]:
    """Split one input line into (key, value).

    Raises:
        click.ClickException: a separator is set and the line lacks it.
    """
    if separator is None:
        return None, line
    key, sep, value = line.partition(separator)
    if not sep:
        raise click.ClickException(f"No key separator found on line number {line_number}: {line[:80]!r}")
    return key, value


def key_separator_from(key_separator: str | None, properties: tuple[str, ...]) -> bytes | None:
    """The separator to split keys on, from ``--key-separator`` or ``--property``.

    Raises:
        click.UsageError: unknown property or parse.key=true without a usable separator.
    """
    props = dict(parse_key_value(p, "--property") for p in properties)
    unknown = sorted(set(props) - set(SUPPORTED_PROPERTIES))
    if unknown:
        raise click.UsageError(
            f"Unknown --property {unknown[0]!r} (supported: {', '.join(SUPPORTED_PROPERTIES)})"
        )
    if key_separator is not None:
        if not key_separator:
            raise click.UsageError("--key-separator must not be empty")
        return key_separator.encode("utf-8")
    if props.get("parse.key", "false").lower() == "true":
        separator = props.get("key.separator", "\t")
        if not separator:
            raise click.UsageError("key.separator must not be empty")
        return separator.encode("utf-8")
    return None


def delivery_failure(exc: BaseException) -> BaseException:
    """The error to end the command with for a record that failed: a batch that expired after
    retrying (its last error, caused by the delivery timeout) becomes the timeout, naming that
    last error, so the one line says both why and that delivery.timeout.ms passed."""
    cause = exc.__cause__
    if isinstance(cause, KafkaTimeoutError) and not isinstance(exc, KafkaTimeoutError):
        return KafkaTimeoutError(f"{cause.args[0] if cause.args else cause}; the last error was {exc}")
    return exc


@click.command()
@click.option("--topic", required=True, help="Topic to produce to.")
@click.option("--key-separator", default=None, help="Split each line into key and value at the first S.")
@acks_option("--request-required-acks")
@click.option("--linger-ms", type=click.IntRange(0), default=5, show_default=True)
@click.option(
    "--batch-size", type=click.IntRange(1), default=16384, show_default=True, help="Bytes per batch."
)
@click.option(
    "--property",
    "properties",
    multiple=True,
    metavar="KEY=VALUE",
    help="parse.key=true and key.separator=S, as in kafka-console-producer.",
)
@click.option(
    "--producer-property",
    "producer_properties",
    multiple=True,
    metavar="KEY=VALUE",
    help="Kafka producer property (linger.ms=10, enable.idempotence=false, ...); repeatable.",
)
@command_config_alias_option("--producer.config")
@click.option("--request-timeout-ms", type=click.IntRange(1), default=30000, show_default=True)
@click.option(
    "--delivery-timeout-ms",
    type=click.IntRange(1),
    default=120000,
    show_default=True,
    help="A record not acknowledged this long after it was read fails the command "
    "(Kafka's delivery.timeout.ms); retries happen within it.",
)
@click.option(
    "--retries",
    "--message-send-max-retries",
    "retries",
    type=click.IntRange(0),
    default=DEFAULT_RETRIES,
    show_default=True,
    help="Times a batch is sent again after a retriable error (Kafka's retries); "
    "the default retries until --delivery-timeout-ms.",
)
@click.option(
    "--retry-backoff-ms",
    type=click.IntRange(0),
    default=100,
    show_default=True,
    help="Pause before a batch's first retry (ms); it doubles per retry up to retry.backoff.max.ms "
    "(1000), with 20% jitter.",
)
@click.option(
    "--compression-codec",
    type=click.Choice(list(CODEC_BY_NAME)),
    default="none",
    show_default=True,
    is_flag=False,
    flag_value="gzip",
    help="Codec of each batch; given without a value it is gzip, as in kafka-console-producer.",
)
@click.option(
    "--transactional-id",
    default=None,
    help="Send the input in a transaction of this transactional.id, committed at the end of input "
    "(read_committed consumers see the records only then).",
)
@click.option(
    "--transaction-size",
    type=click.IntRange(1),
    default=None,
    help="With --transactional-id: commit every N records (and at the end of input).",
)
@bootstrap_server_option
def produce(
    topic: str,
    key_separator: str | None,
    acks: str,
    linger_ms: int,
    batch_size: int,
    properties: tuple[str, ...],
    producer_properties: tuple[str, ...],
    request_timeout_ms: int,
    delivery_timeout_ms: int,
    retries: int,
    retry_backoff_ms: int,
    compression_codec: str,
    transactional_id: str | None,
    transaction_size: int | None,
    bootstrap_server: str,
) -> None:
    """Send each line of standard input as one record to TOPIC."""
    separator = key_separator_from(key_separator, properties)
    if transaction_size is not None and transactional_id is None:
        raise click.UsageError("--transaction-size needs --transactional-id")
    if transactional_id is not None and not transactional_id:
        raise click.UsageError("--transactional-id must not be empty")
    settings = sdk_settings(
        Producer,
        properties=producer_properties,
        property_flag="--producer-property",
        flags={
            "bootstrap_servers": ("bootstrap_server", bootstrap_server),
            "acks": ("acks", acks),
            "linger_ms": ("linger_ms", linger_ms),
            "max_batch_size": ("batch_size", batch_size),
            "request_timeout_ms": ("request_timeout_ms", request_timeout_ms),
            "delivery_timeout_ms": ("delivery_timeout_ms", delivery_timeout_ms),
            "retries": ("retries", retries),
            "retry_backoff_ms": ("retry_backoff_ms", retry_backoff_ms),
            "compression_type": ("compression_codec", compression_codec),
            "client_id": (None, "kafkette-console-producer"),
            "transactional_id": ("transactional_id", transactional_id),
        },
    )
    stdin = sys.stdin.buffer
    size = input_size_bytes(stdin)

    async def run() -> int:
        failures: list[BaseException] = []

        def on_done(fut: asyncio.Future) -> None:
            if not fut.cancelled() and fut.exception() is not None and not failures:
                failures.append(fut.exception())  # type: ignore[arg-type]

        count = 0
        async with Producer(**settings) as producer:
            transaction = ConsoleTransaction(producer, transaction_size)
            line_number = 0
            try:
                with progress_bar(
                    "produce", total=size, unit="B" if size is not None else "records"
                ) as progress:
                    async for raw in stdin_lines(stdin):
                        line_number += 1
                        if failures:
                            break
                        line = raw.rstrip(b"\r\n")
                        key, value = split_line(line, separator, line_number)
                        await transaction.before_send()
                        fut = await producer.send(topic, value, key=key)
                        fut.add_done_callback(on_done)
                        count += 1
                        await transaction.after_send()
                        progress.update(len(raw) if size is not None else 1)
                    if failures:
                        await transaction.abort()
                    else:
                        await transaction.commit()
                    await producer.flush()
            except Exception:
                await transaction.abort_after_error()
                raise
        if failures:
            raise delivery_failure(failures[0])
        return count

    run_coroutine(run())
