"""``kafkette consume``: print records of a topic, in the manner of the console consumer.

Owns: the command.  Values go to stdout one per line (``null`` for a null value);
with ``--property print.key=true`` each line is key, separator, value.  Stops after
``--max-messages`` or after ``--timeout-ms`` without a record; otherwise runs until
Ctrl-C.  Kafka concept: ``kafka-console-consumer.sh``.
"""

from __future__ import annotations

import asyncio

import click

from kafkette.client.cli.shared_options import bootstrap_server_option, parse_key_value, run_coroutine
from kafkette.client.consumer import Consumer
from kafkette.protocol.topic_partition import TopicPartition

SUPPORTED_PROPERTIES = ("print.key", "key.separator", "print.partition", "print.offset")


def format_record(key: bytes | None, value: bytes | None, *, print_key: bool, separator: bytes,
                  prefix: bytes = b"") -> bytes:
    """One output line (newline included) for a record."""
    value_text = b"null" if value is None else value
    if print_key:
        return prefix + (b"null" if key is None else key) + separator + value_text + b"\n"
    return prefix + value_text + b"\n"


@click.command()
@click.option("--topic", required=True, help="Topic to consume.")
@click.option("--from-beginning", is_flag=True, help="Start at the earliest offset (default: the end).")
@click.option("--max-messages", type=click.IntRange(1), default=None, help="Exit after N records.")
@click.option("--partition", type=click.IntRange(0), default=None, help="Consume only this partition.")
@click.option("--timeout-ms", type=click.IntRange(1), default=None,
              help="Exit when no record arrives for this long (ms).")
@click.option("--property", "properties", multiple=True, metavar="KEY=VALUE",
              help="print.key=true, key.separator=S, print.partition=true, print.offset=true.")
@click.option("--request-timeout-ms", type=click.IntRange(1), default=30000, show_default=True)
@bootstrap_server_option
def consume(topic: str, from_beginning: bool, max_messages: int | None, partition: int | None,
            timeout_ms: int | None, properties: tuple[str, ...], request_timeout_ms: int,
            bootstrap_server: str) -> None:
    """Print the records of TOPIC to standard output."""
    props = dict(parse_key_value(p, "--property") for p in properties)
    unknown = sorted(set(props) - set(SUPPORTED_PROPERTIES))
    if unknown:
        raise click.UsageError(f"Unknown --property {unknown[0]!r} (supported: {', '.join(SUPPORTED_PROPERTIES)})")
    print_key = props.get("print.key", "false").lower() == "true"
    print_partition = props.get("print.partition", "false").lower() == "true"
    print_offset = props.get("print.offset", "false").lower() == "true"
    separator = props.get("key.separator", "\t").encode("utf-8")
    out = click.get_binary_stream("stdout")

    async def run() -> int:
        count = 0
        async with Consumer(bootstrap_servers=bootstrap_server, request_timeout_ms=request_timeout_ms,
                            auto_offset_reset="earliest" if from_beginning else "latest",
                            client_id="kafkette-console-consumer") as consumer:
            if partition is not None:
                known = await consumer.partitions_for_topic(topic)
                if partition not in known:
                    raise click.ClickException(f"Topic {topic} has no partition {partition}")
                partitions = [partition]
            else:
                partitions = sorted(await consumer.partitions_for_topic(topic))
            consumer.assign([TopicPartition(topic, p) for p in partitions])
            loop = asyncio.get_running_loop()
            last_record = loop.time()
            while max_messages is None or count < max_messages:
                remaining = None if max_messages is None else max_messages - count
                batches = await consumer.getmany(timeout_ms=500, max_records=remaining)
                if not batches:
                    if timeout_ms is not None and (loop.time() - last_record) * 1000 >= timeout_ms:
                        break
                    continue
                last_record = loop.time()
                for records in batches.values():
                    for r in records:
                        prefix = b""
                        if print_partition:
                            prefix += f"Partition:{r.partition}\t".encode()
                        if print_offset:
                            prefix += f"Offset:{r.offset}\t".encode()
                        out.write(format_record(r.key, r.value, print_key=print_key, separator=separator,
                                                prefix=prefix))
                        count += 1
                out.flush()
        return count

    try:
        count = run_coroutine(run())
    except KeyboardInterrupt:
        return
    click.echo(f"Processed a total of {count} messages", err=True)
