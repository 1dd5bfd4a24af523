"""``kafkette topics create|list|describe``: topic administration from the shell.

Owns: the commands and the parsing of Kafka's ``--replica-assignment`` flag
(comma-separated partitions, colon-separated broker ids: ``1:2,2:3`` gives partition
0 replicas [1, 2] and partition 1 replicas [2, 3]).  The work is done by
``client.admin.AdminClient``.  Kafka concept: ``kafka-topics.sh`` (``TopicCommand``).
"""

from __future__ import annotations

import click

from client.admin import AdminClient, NewTopic, TopicDescription
from client.cli.shared_options import bootstrap_server_option, parse_key_value, run_coroutine
from protocol.errors import TopicAlreadyExistsError  # type: ignore[attr-defined]


def parse_replica_assignment(text: str) -> dict[int, list[int]]:
    """Parse ``--replica-assignment`` as Kafka's TopicCommand does.

    Args:
        text: e.g. ``"1:2,2:3,3:1"``; the i-th comma-separated group is partition i.

    Returns:
        ``{partition: [broker ids]}``.

    Raises:
        ValueError: empty text or group, a non-integer or negative broker id, a broker
            repeated within a partition, or partitions with different replica counts.
    """
    if not text or not text.strip():
        raise ValueError("--replica-assignment must not be empty")
    assignment: dict[int, list[int]] = {}
    for partition, group in enumerate(text.strip().split(",")):
        parts = [p.strip() for p in group.split(":")]
        if not group.strip() or any(not p for p in parts):
            raise ValueError(f"Invalid --replica-assignment {text!r}: partition {partition} has an empty broker id")
        try:
            brokers = [int(p) for p in parts]
        except ValueError:
            raise ValueError(
                f"Invalid --replica-assignment {text!r}: broker ids must be integers, got {group!r}"
            ) from None
        if any(b < 0 for b in brokers):
            raise ValueError(f"Invalid --replica-assignment {text!r}: broker ids must be >= 0")
        if len(set(brokers)) != len(brokers):
            raise ValueError(
                f"Partition replica lists may not contain duplicate entries: partition {partition} has {brokers}"
            )
        if assignment and len(brokers) != len(assignment[0]):
            raise ValueError(
                f"Partition {partition} has different replication factor: {len(brokers)} "
                f"(partition 0 has {len(assignment[0])})"
            )
        assignment[partition] = brokers
    return assignment


def check_create_arguments(partitions: int | None, replication_factor: int | None,
                           replica_assignment: str | None) -> dict[int, list[int]] | None:
    """Validate ``topics create`` flags the way TopicCommand does.

    Returns:
        The parsed replica assignment, or None.

    Raises:
        click.UsageError: conflicting flags or out-of-range values.
    """
    if replica_assignment is not None:
        if partitions is not None or replication_factor is not None:
            raise click.UsageError(
                "Option --replica-assignment can't be used with --partitions or --replication-factor"
            )
        try:
            return parse_replica_assignment(replica_assignment)
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None
    if partitions is not None and partitions < 1:
        raise click.UsageError("The partitions must be greater than 0")
    if replication_factor is not None and not 1 <= replication_factor <= 32767:
        raise click.UsageError("The replication factor must be between 1 and 32767")
    return None


def describe_table(descriptions: dict[str, TopicDescription]) -> str:
    """Render descriptions as a table: Topic, Partition, Leader, Replicas, Isr."""
    from tabulate import tabulate  # only `topics describe` needs it

    rows = [
        [d.name, p.partition, p.leader if p.leader >= 0 else "none",
         ",".join(map(str, p.replicas)), ",".join(map(str, p.isr))]
        for d in descriptions.values()
        for p in d.partitions
    ]
    return tabulate(rows, headers=["Topic", "Partition", "Leader", "Replicas", "Isr"], tablefmt="plain")


@click.group()
def topics() -> None:
    """Create, list and describe topics."""


@topics.command("create")
@click.argument("name")
@click.option("--partitions", type=int, default=None, help="Number of partitions (default: broker's num.partitions).")
@click.option("--replication-factor", type=int, default=None,
              help="Replicas per partition (default: broker's default.replication.factor).")
@click.option("--replica-assignment", default=None, metavar="B:B,B:B,...",
              help="Manual assignment: comma-separated partitions, colon-separated broker ids.")
@click.option("--config", "configs", multiple=True, metavar="KEY=VALUE", help="Topic config (repeatable).")
@click.option("--if-not-exists", is_flag=True, help="Succeed silently when the topic exists.")
@click.option("--request-timeout-ms", type=click.IntRange(1), default=30000, show_default=True)
@bootstrap_server_option
def create(name: str, partitions: int | None, replication_factor: int | None, replica_assignment: str | None,
           configs: tuple[str, ...], if_not_exists: bool, request_timeout_ms: int, bootstrap_server: str) -> None:
    """Create topic NAME."""
    assignment = check_create_arguments(partitions, replication_factor, replica_assignment)
    topic_configs = dict(parse_key_value(c, "--config") for c in configs)
    new_topic = NewTopic(
        name,
        num_partitions=-1 if partitions is None else partitions,
        replication_factor=-1 if replication_factor is None else replication_factor,
        replica_assignment=assignment,
        configs=topic_configs or None,
    )

    async def run() -> bool:
        async with AdminClient(bootstrap_servers=bootstrap_server, request_timeout_ms=request_timeout_ms,
                               client_id="kafkette-topics") as admin:
            try:
                await admin.create_topics([new_topic])
            except TopicAlreadyExistsError:
                if if_not_exists:
                    return False
                raise
            return True

    if run_coroutine(run()):
        click.echo(f"Created topic {name}.")


@topics.command("list")
@click.option("--request-timeout-ms", type=click.IntRange(1), default=30000, show_default=True)
@bootstrap_server_option
def list_(request_timeout_ms: int, bootstrap_server: str) -> None:
    """List topic names."""

    async def run() -> list[str]:
        async with AdminClient(bootstrap_servers=bootstrap_server, request_timeout_ms=request_timeout_ms,
                               client_id="kafkette-topics") as admin:
            return await admin.list_topics()

    for name in run_coroutine(run()):
        click.echo(name)


@topics.command("describe")
@click.argument("name", required=False)
@click.option("--request-timeout-ms", type=click.IntRange(1), default=30000, show_default=True)
@bootstrap_server_option
def describe(name: str | None, request_timeout_ms: int, bootstrap_server: str) -> None:
    """Describe topic NAME (default: every topic) as a table."""

    async def run() -> dict[str, TopicDescription]:
        async with AdminClient(bootstrap_servers=bootstrap_server, request_timeout_ms=request_timeout_ms,
                               client_id="kafkette-topics") as admin:
            return await admin.describe_topics(None if name is None else [name])

    descriptions = run_coroutine(run())
    if descriptions:
        click.echo(describe_table(descriptions))
