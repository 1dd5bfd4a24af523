"""``kafkette delete-records``: delete records below given offsets, as Kafka's tool does.

Owns: the command and the parsing of its offset JSON file, Kafka's format::

    {"version": 1, "partitions": [{"topic": "t", "partition": 0, "offset": 30}]}

(``offset`` -1 means the high watermark).  Prints one ``partition: <topic>-<n>\\t
low_watermark: <offset>`` line per partition.  Kafka concept:
``kafka-delete-records.sh --offset-json-file`` (``DeleteRecordsCommand``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from kafkette.client.cli.shared_options import admin_client, bootstrap_server_option, run_coroutine
from kafkette.protocol.topic_partition import TopicPartition


def parse_offset_json(text: str) -> dict[TopicPartition, int]:
    """Parse Kafka's offset JSON into ``{TopicPartition: offset}``.

    Raises:
        ValueError: not JSON, a missing or mistyped field, or a partition named twice.
    """
    try:
        document: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"The offset JSON file is not valid JSON: {exc}") from None
    if not isinstance(document, dict) or not isinstance(document.get("partitions"), list):
        raise ValueError('The offset JSON file must be an object with a "partitions" list')
    offsets: dict[TopicPartition, int] = {}
    for entry in document["partitions"]:
        if not isinstance(entry, dict):
            raise ValueError(f"Each partition entry must be an object, got {entry!r}")
        topic, partition, offset = entry.get("topic"), entry.get("partition"), entry.get("offset")
        if not isinstance(topic, str) or not topic:
            raise ValueError(f'Partition entry {entry!r} needs a non-empty "topic" string')
        if type(partition) is not int or partition < 0:
            raise ValueError(f'Partition entry {entry!r} needs a "partition" integer >= 0')
        if type(offset) is not int or offset < -1:
            raise ValueError(f'Partition entry {entry!r} needs an "offset" integer >= -1')
        tp = TopicPartition(topic, partition)
        if tp in offsets:
            raise ValueError(f"Offset JSON file contains duplicate topic partitions: {tp}")
        offsets[tp] = offset
    if not offsets:
        raise ValueError("The offset JSON file names no partition")
    return offsets


@click.command("delete-records")
@click.option(
    "--offset-json-file",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help='JSON file: {"partitions": [{"topic": T, "partition": N, "offset": O}], "version": 1}.',
)
@click.option(
    "--timeout-ms",
    type=click.IntRange(0),
    default=30000,
    show_default=True,
    help="How long each leader may wait for its followers (ms).",
)
@bootstrap_server_option
def delete_records(offset_json_file: Path, timeout_ms: int, bootstrap_server: str) -> None:
    """Delete every record below the offsets named in the JSON file."""
    offsets = parse_offset_json(offset_json_file.read_text(encoding="utf-8"))

    async def run() -> dict[TopicPartition, int]:
        async with admin_client(bootstrap_server, None, "kafkette-delete-records") as admin:
            return await admin.delete_records(offsets, timeout_ms=timeout_ms)

    click.echo("Executing records delete operation")
    low_watermarks = run_coroutine(run())
    click.echo("Records delete operation completed:")
    for tp, low_watermark in low_watermarks.items():
        click.echo(f"partition: {tp}\tlow_watermark: {low_watermark}")
