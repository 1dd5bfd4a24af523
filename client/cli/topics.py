"""``kafkette topics create|list|describe|alter|delete|elect-leaders``: topic administration.

Owns: the commands, the parsing of Kafka's ``--replica-assignment`` flag
(comma-separated partitions, colon-separated broker ids: ``1:2,2:3`` gives partition
0 replicas [1, 2] and partition 1 replicas [2, 3]) and the describe output (a
``Topic: ... Configs: k=v,...`` line per topic, then its partitions; the
``--under-replicated-partitions`` / ``--unavailable-partitions`` filters print only
matching partitions).  ``elect-leaders`` prints LeaderElectionCommand's lines
(``Successfully completed leader election (PREFERRED) for partitions ...``, ``Valid replica
already elected for partitions ...``) and, asked for every partition when none needed an
election (the controller then answers with none), says so: ``Valid replica already elected
for all partitions: no leader election (PREFERRED) was needed``.  A created topic that sets a config Kafkette
accepts but does not act on yet gets one ``WARNING:`` line on stderr per such config.  The work is done by
``kafkette.client.admin.AdminClient``.
Kafka concept: ``kafka-topics.sh`` (``TopicCommand``) and ``kafka-leader-election.sh``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import click

from kafkette.client.admin import AdminClient, NewPartitions, NewTopic, TopicDescription
from kafkette.client.cli.shared_options import (
    admin_client,
    bootstrap_server_option,
    parse_key_value,
    run_coroutine,
)
from kafkette.client.config_resource import ConfigEntry, ConfigResource, ConfigResourceType, ConfigSource
from kafkette.protocol.errors import (
    ElectionNotNeededError,
    KafkaError,
    TopicAlreadyExistsError,
    UnknownTopicOrPartitionError,
)
from kafkette.protocol.topic_partition import TopicPartition


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
            raise ValueError(
                f"Invalid --replica-assignment {text!r}: partition {partition} has an empty broker id"
            )
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
                "Partition replica lists may not contain duplicate entries: "
                f"partition {partition} has {brokers}"
            )
        if assignment and len(brokers) != len(assignment[0]):
            raise ValueError(
                f"Partition {partition} has different replication factor: {len(brokers)} "
                f"(partition 0 has {len(assignment[0])})"
            )
        assignment[partition] = brokers
    return assignment


def check_create_arguments(
    partitions: int | None, replication_factor: int | None, replica_assignment: str | None
) -> dict[int, list[int]] | None:
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
        [
            d.name,
            p.partition,
            p.leader if p.leader >= 0 else "none",
            ",".join(map(str, p.replicas)),
            ",".join(map(str, p.isr)),
        ]
        for d in descriptions.values()
        for p in d.partitions
    ]
    return tabulate(rows, headers=["Topic", "Partition", "Leader", "Replicas", "Isr"], tablefmt="plain")


def check_alter_arguments(
    partitions: int | None, replica_assignment: str | None
) -> dict[int, list[int]] | None:
    """Validate ``topics alter`` flags the way TopicCommand does.

    Returns:
        The parsed ``--replica-assignment`` (every partition, or only the new ones), or None.

    Raises:
        click.UsageError: no ``--partitions``, a count below 1, a malformed assignment,
            or one listing more partitions than ``--partitions``.
    """
    if partitions is None:
        raise click.UsageError("Option --partitions is required to alter a topic")
    if partitions < 1:
        raise click.UsageError("The partitions must be greater than 0")
    if replica_assignment is None:
        return None
    try:
        assignment = parse_replica_assignment(replica_assignment)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    if len(assignment) > partitions:
        raise click.UsageError(
            f"--replica-assignment lists {len(assignment)} partitions but --partitions is {partitions}"
        )
    return assignment


def new_partition_assignments(assignment: dict[int, list[int]], total: int, current: int) -> list[list[int]]:
    """The replicas of the new partitions ``current..total-1`` from an alter assignment.

    As ``kafka-topics.sh --alter``, the assignment may list every partition (existing
    ones first, ignored); it may also list only the new ones.

    Raises:
        ValueError: it lists neither ``total`` nor ``total - current`` partitions.
    """
    groups = [assignment[p] for p in sorted(assignment)]
    if len(groups) == total:
        return groups[current:]
    if len(groups) == total - current:
        return groups
    raise ValueError(
        f"--replica-assignment must list all {total} partitions or the {total - current} new ones, "
        f"got {len(groups)}"
    )


def colliding_topics(name: str, existing: list[str]) -> list[str]:
    """The existing topics that ``name`` collides with once '.' and '_' are mapped to one character
    (Kafka's ``Topic.unifyCollisionChars``); ``name`` itself is not a collision.

    Args:
        name: the topic about to be created.
        existing: the cluster's topic names.

    Returns:
        The colliding names, sorted.
    """
    unified = name.replace(".", "_")
    return sorted(t for t in existing if t != name and t.replace(".", "_") == unified)


def filter_partitions(
    descriptions: dict[str, TopicDescription],
    live_brokers: set[int],
    *,
    under_replicated: bool,
    unavailable: bool,
) -> dict[str, TopicDescription]:
    """Keep the partitions matching any requested filter (TopicCommand's describe options).

    A partition is under-replicated when its ISR is smaller than its replica list, and
    unavailable when it has no leader or its leader is not a live broker.
    """
    out: dict[str, TopicDescription] = {}
    for name, description in descriptions.items():
        kept = [
            p
            for p in description.partitions
            if (under_replicated and len(p.isr) < len(p.replicas))
            or (unavailable and (p.leader < 0 or p.leader not in live_brokers))
        ]
        if kept:
            out[name] = TopicDescription(name, kept, description.is_internal)
    return out


def topic_summary_line(description: TopicDescription, configs: dict[str, ConfigEntry]) -> str:
    """``Topic: t<TAB>PartitionCount: n<TAB>ReplicationFactor: r<TAB>Configs: k=v,...``
    (the topic's overrides only, as kafka-topics.sh prints them)."""
    replication_factor = max((len(p.replicas) for p in description.partitions), default=0)
    overrides = ",".join(
        f"{e.name}={e.value}" for e in configs.values() if e.source == ConfigSource.DYNAMIC_TOPIC_CONFIG
    )
    return (
        f"Topic: {description.name}\tPartitionCount: {len(description.partitions)}\t"
        f"ReplicationFactor: {replication_factor}\tConfigs: {overrides}"
    )


def resolve_topic_name(positional: str | None, option: str | None, *, required: bool) -> str | None:
    """The topic NAME given positionally or as ``--topic NAME`` (kafka-topics.sh's form).

    Raises:
        click.UsageError: two different names, or none where one is required.
    """
    if positional is not None and option is not None and positional != option:
        raise click.UsageError(f"Topic given twice: {positional!r} and --topic {option!r}")
    name = positional if positional is not None else option
    if required and name is None:
        raise click.UsageError("Missing option '--topic' (or the topic NAME)")
    return name


def topic_name_argument(*, required: bool) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Add ``NAME`` and ``--topic NAME`` to a command; it receives one ``name``."""

    def decorate(func: Callable[..., None]) -> Callable[..., None]:
        @functools.wraps(func)
        def command(*args: Any, name: str | None, topic: str | None, **kwargs: Any) -> None:
            func(*args, name=resolve_topic_name(name, topic, required=required), **kwargs)

        command = click.option(
            "--topic", "topic", default=None, metavar="NAME", help="The topic (same as the positional NAME)."
        )(command)
        return click.argument("name", required=False)(command)

    return decorate


def _admin(bootstrap_server: str, request_timeout_ms: int) -> AdminClient:
    return admin_client(bootstrap_server, request_timeout_ms, "kafkette-topics")


@click.group()
def topics() -> None:
    """Create, list, describe, alter and delete topics; elect leaders."""


@topics.command("create")
@click.option(
    "--partitions", type=int, default=None, help="Number of partitions (default: broker's num.partitions)."
)
@click.option(
    "--replication-factor",
    type=int,
    default=None,
    help="Replicas per partition (default: broker's default.replication.factor).",
)
@click.option(
    "--replica-assignment",
    default=None,
    metavar="B:B,B:B,...",
    help="Manual assignment: comma-separated partitions, colon-separated broker ids.",
)
@click.option("--config", "configs", multiple=True, metavar="KEY=VALUE", help="Topic config (repeatable).")
@click.option("--if-not-exists", is_flag=True, help="Succeed silently when the topic exists.")
@click.option("--request-timeout-ms", type=click.IntRange(1), default=30000, show_default=True)
@bootstrap_server_option
@topic_name_argument(required=True)
def create(
    name: str,
    partitions: int | None,
    replication_factor: int | None,
    replica_assignment: str | None,
    configs: tuple[str, ...],
    if_not_exists: bool,
    request_timeout_ms: int,
    bootstrap_server: str,
) -> None:
    """Create topic NAME."""
    assignment = check_create_arguments(partitions, replication_factor, replica_assignment)
    if "." in name or "_" in name:
        click.echo(
            "WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') "
            "could collide. To avoid issues it is best to use either, but not both."
        )
    topic_configs = dict(parse_key_value(c, "--config") for c in configs)
    new_topic = NewTopic(
        name,
        num_partitions=-1 if partitions is None else partitions,
        replication_factor=-1 if replication_factor is None else replication_factor,
        replica_assignment=assignment,
        configs=topic_configs or None,
    )

    async def run() -> bool:
        async with _admin(bootstrap_server, request_timeout_ms) as admin:
            if "." in name or "_" in name:
                for other in colliding_topics(name, await admin.list_topics()):
                    click.echo(
                        f"WARNING: Topic {name} collides with existing topic {other}: '.' and '_' are the "
                        "same character in metric names."
                    )
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
        async with _admin(bootstrap_server, request_timeout_ms) as admin:
            return await admin.list_topics()

    for name in run_coroutine(run()):
        click.echo(name)


@topics.command("describe")
@click.option(
    "--under-replicated-partitions",
    is_flag=True,
    help="Only partitions whose ISR is smaller than their replica list.",
)
@click.option("--unavailable-partitions", is_flag=True, help="Only partitions without a live leader.")
@click.option("--request-timeout-ms", type=click.IntRange(1), default=30000, show_default=True)
@bootstrap_server_option
@topic_name_argument(required=False)
def describe(
    name: str | None,
    under_replicated_partitions: bool,
    unavailable_partitions: bool,
    request_timeout_ms: int,
    bootstrap_server: str,
) -> None:
    """Describe topic NAME (default: every topic): configs and partitions."""
    filtering = under_replicated_partitions or unavailable_partitions

    async def run() -> tuple[dict[str, TopicDescription], dict[str, dict[str, ConfigEntry]], set[int]]:
        async with _admin(bootstrap_server, request_timeout_ms) as admin:
            descriptions = await admin.describe_topics(None if name is None else [name])
            live = {b.node_id for b in (await admin.describe_cluster())["brokers"]}
            configs: dict[str, dict[str, ConfigEntry]] = {}
            if descriptions and not filtering:
                described = await admin.describe_configs(
                    [ConfigResource(ConfigResourceType.TOPIC, topic) for topic in descriptions]
                )
                configs = {resource.name: entries for resource, entries in described.items()}
            return descriptions, configs, live

    descriptions, configs, live = run_coroutine(run())
    if filtering:
        matching = filter_partitions(
            descriptions,
            live,
            under_replicated=under_replicated_partitions,
            unavailable=unavailable_partitions,
        )
        if matching:
            click.echo(describe_table(matching))
        return
    for topic, description in descriptions.items():
        click.echo(topic_summary_line(description, configs.get(topic, {})))
        if description.partitions:
            click.echo(describe_table({topic: description}))


@topics.command("alter")
@click.option("--partitions", type=int, default=None, help="The new (larger) number of partitions.")
@click.option(
    "--replica-assignment",
    default=None,
    metavar="B:B,B:B,...",
    help="Replicas of the partitions (all of them, existing first, or only the new ones).",
)
@click.option("--if-exists", is_flag=True, help="Do nothing when the topic does not exist.")
@click.option("--request-timeout-ms", type=click.IntRange(1), default=30000, show_default=True)
@bootstrap_server_option
@topic_name_argument(required=True)
def alter(
    name: str,
    partitions: int | None,
    replica_assignment: str | None,
    if_exists: bool,
    request_timeout_ms: int,
    bootstrap_server: str,
) -> None:
    """Increase the partitions of topic NAME (CreatePartitions)."""
    assignment = check_alter_arguments(partitions, replica_assignment)
    total = int(partitions or 0)  # check_alter_arguments refused None

    async def run() -> bool:
        async with _admin(bootstrap_server, request_timeout_ms) as admin:
            try:
                new_assignments = None
                if assignment is not None:
                    current = len((await admin.describe_topics([name]))[name].partitions)
                    new_assignments = new_partition_assignments(assignment, total, current)
                await admin.create_partitions({name: NewPartitions(total, new_assignments or None)})
            except UnknownTopicOrPartitionError:
                if if_exists:
                    return False
                raise
            return True

    if run_coroutine(run()):
        click.echo(f"Topic {name} now has {total} partitions.")


@topics.command("delete")
@click.option("--if-exists", is_flag=True, help="Do nothing when the topic does not exist.")
@click.option("--request-timeout-ms", type=click.IntRange(1), default=30000, show_default=True)
@bootstrap_server_option
@topic_name_argument(required=True)
def delete(name: str, if_exists: bool, request_timeout_ms: int, bootstrap_server: str) -> None:
    """Delete topic NAME (DeleteTopics)."""
    from kafkette.protocol.errors import RequestTimedOutError

    async def run() -> str | None:
        async with _admin(bootstrap_server, request_timeout_ms) as admin:
            try:
                await admin.delete_topics([name])
            except UnknownTopicOrPartitionError:
                if if_exists:
                    return None
                raise
            except RequestTimedOutError:
                return (
                    f"Topic {name} is marked for deletion; it is removed once every replica's broker "
                    "has deleted it."
                )
            return f"Deleted topic {name}."

    message = run_coroutine(run())
    if message:
        click.echo(message)


def _partition_list(tps: list[TopicPartition]) -> str:
    return ", ".join(str(tp) for tp in tps)


@topics.command("elect-leaders")
@click.option("--partition", type=click.IntRange(0), default=None, help="Only this partition of NAME.")
@click.option(
    "--election-type",
    type=click.Choice(["preferred", "unclean"], case_sensitive=False),
    default="preferred",
    show_default=True,
)
@click.option("--request-timeout-ms", type=click.IntRange(1), default=30000, show_default=True)
@bootstrap_server_option
@topic_name_argument(required=False)
def elect_leaders(
    name: str | None,
    partition: int | None,
    election_type: str,
    request_timeout_ms: int,
    bootstrap_server: str,
) -> None:
    """Elect the preferred (or, unclean, any live) leader of NAME's partitions (default: all)."""
    if partition is not None and name is None:
        raise click.UsageError("Option --partition needs a topic: --topic NAME")
    targets: list[str | TopicPartition] | None = None
    if name is not None:
        targets = [name] if partition is None else [TopicPartition(name, partition)]

    async def run() -> dict[TopicPartition, KafkaError | None]:
        async with _admin(bootstrap_server, request_timeout_ms) as admin:
            return await admin.elect_leaders(targets, election_type=election_type.lower())

    results = run_coroutine(run())
    kind = election_type.upper()
    elected = [tp for tp, error in results.items() if error is None]
    not_needed = [tp for tp, error in results.items() if isinstance(error, ElectionNotNeededError)]
    failed = {
        tp: error
        for tp, error in results.items()
        if error is not None and not isinstance(error, ElectionNotNeededError)
    }
    if elected:
        click.echo(
            f"Successfully completed leader election ({kind}) for partitions {_partition_list(elected)}"
        )
    if not_needed:
        click.echo(f"Valid replica already elected for partitions {_partition_list(not_needed)}")
    if not results:  # every partition asked (no topic): the controller leaves out those needing none
        click.echo(
            f"Valid replica already elected for all partitions: no leader election ({kind}) was needed"
        )
    if failed:
        details = "; ".join(f"{tp}: {error}" for tp, error in failed.items())
        raise click.ClickException(
            f"Leader election ({kind}) failed for {len(failed)} partition(s): {details}"
        )
