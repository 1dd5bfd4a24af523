"""``kafkette consumer-groups``: list, describe, reset, delete consumer groups, as
``kafka-consumer-groups.sh`` does.

Owns: the command, its action flags (exactly one of ``--list``, ``--describe``,
``--reset-offsets``, ``--delete``, ``--delete-offsets``), the reset plan (``--to-earliest``,
``--to-latest``, ``--to-offset``, ``--to-datetime``, ``--shift-by``, ``--by-duration``, each
clamped to the partition's log start and end, printed with ``--dry-run``, committed with
``--execute``, refused while the group has members; with neither, a dry run announced by
Kafka's ``WARN: No action will be performed ...`` line on stderr) and Kafka's tables (``--describe``:
GROUP, TOPIC, PARTITION, CURRENT-OFFSET, LOG-END-OFFSET, LAG, CONSUMER-ID, HOST, CLIENT-ID;
``--members``; ``--state``).  The data comes from the AdminClient.  Kafka concept:
``kafka-consumer-groups.sh`` (``ConsumerGroupCommand``).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Sequence

import click

from kafkette.client.admin import AdminClient
from kafkette.client.cli.shared_options import admin_client, bootstrap_server_option, run_coroutine
from kafkette.client.consumer.offset_fetcher import OffsetSpec
from kafkette.client.group_descriptions import ConsumerGroupDescription
from kafkette.client.offset_and_metadata import OffsetAndMetadata
from kafkette.protocol.topic_partition import TopicPartition

ACTIONS = ("list", "describe", "reset_offsets", "delete", "delete_offsets")
RESET_SCOPES = ("to_earliest", "to_latest", "to_offset", "to_datetime", "shift_by", "by_duration")
# ConsumerGroupCommandOptions' warning (Kafka 4.x) for --reset-offsets without --dry-run or --execute.
NO_EXECUTE_WARNING = (
    "WARN: No action will be performed as the --execute option is missing. In version 5.0, this command "
    "will require either --dry-run or --execute to be specified. You should add the --dry-run option "
    "explicitly if you are scripting this command and want to keep the current default behavior without "
    "prompting."
)
_DURATION = re.compile(r"^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$")


def parse_duration_ms(text: str) -> int:
    """``--by-duration``'s ISO-8601 duration (``PnDTnHnMnS``) in ms.

    Raises:
        click.BadParameter: not such a duration.
    """
    match = _DURATION.match(text.strip().upper())
    if not match or text.strip().upper() in ("P", "PT"):
        raise click.BadParameter(
            f"{text!r} is not a duration such as PT1H30M or P1DT2H (ISO 8601)", param_hint="--by-duration"
        )
    days, hours, minutes, seconds = (float(g) if g else 0.0 for g in match.groups())
    return int(((days * 24 + hours) * 60 + minutes) * 60_000 + seconds * 1000)


def parse_datetime_ms(text: str) -> int:
    """``--to-datetime``'s ``YYYY-MM-DDTHH:mm:SS.sss`` (UTC unless it names a zone) in ms.

    Raises:
        click.BadParameter: not such a date-time.
    """
    try:
        moment = datetime.datetime.fromisoformat(text.strip())
    except ValueError:
        raise click.BadParameter(
            f"{text!r} is not a date-time such as 2026-11-25T07:00:00.000", param_hint="--to-datetime"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.UTC)
    return int(moment.timestamp() * 1000)


def parse_topic_partitions(spec: str) -> tuple[str, list[int] | None]:
    """``--topic T`` or ``--topic T:0,2``: the topic and its partitions (None: all).

    Raises:
        click.BadParameter: partitions that are not non-negative integers.
    """
    topic, _, partitions = spec.partition(":")
    if not partitions:
        return topic, None
    try:
        parsed = [int(p) for p in partitions.split(",")]
    except ValueError:
        parsed = [-1]
    if not topic or any(p < 0 for p in parsed):
        raise click.BadParameter(f"{spec!r} is not TOPIC or TOPIC:PARTITION,PARTITION", param_hint="--topic")
    return topic, parsed


@click.command("consumer-groups")
@click.option("--list", "list_", is_flag=True, help="List every consumer group.")
@click.option("--describe", is_flag=True, help="Describe --group (offsets and lag; --members, --state).")
@click.option("--reset-offsets", is_flag=True, help="Reset the offsets of an inactive --group.")
@click.option("--delete", is_flag=True, help="Delete --group (with its offsets; it must have no members).")
@click.option("--delete-offsets", is_flag=True, help="Delete the offsets of --group for --topic.")
@click.option("--group", "groups", multiple=True, help="The group (repeatable with --describe and --delete).")
@click.option("--all-groups", is_flag=True, help="With --describe or --delete: every group.")
@click.option("--members", is_flag=True, help="With --describe: one line per member.")
@click.option(
    "--state", is_flag=True, help="With --describe: the group's state; with --list: a STATE column."
)
@click.option(
    "--topic",
    "topics",
    multiple=True,
    metavar="TOPIC[:P,P]",
    help="With --reset-offsets or --delete-offsets: the topic (and partitions); repeatable.",
)
@click.option("--all-topics", is_flag=True, help="With --reset-offsets: every partition the group committed.")
@click.option("--to-earliest", is_flag=True, help="Reset to the log start offset.")
@click.option("--to-latest", is_flag=True, help="Reset to the log end offset.")
@click.option("--to-offset", type=click.IntRange(0), default=None, help="Reset to this offset.")
@click.option(
    "--to-datetime",
    default=None,
    metavar="YYYY-MM-DDTHH:mm:SS.sss",
    help="Reset to the first offset at or after this time (UTC unless a zone is given).",
)
@click.option("--shift-by", type=int, default=None, help="Move the committed offset by N (may be negative).")
@click.option(
    "--by-duration", default=None, metavar="PnDTnHnMnS", help="Reset to the offset of this long ago."
)
@click.option("--dry-run", is_flag=True, help="With --reset-offsets: print the plan only (the default).")
@click.option("--execute", is_flag=True, help="With --reset-offsets: commit the plan.")
@click.option("--request-timeout-ms", type=click.IntRange(1), default=30000, show_default=True)
@bootstrap_server_option
def consumer_groups(
    list_: bool,
    describe: bool,
    reset_offsets: bool,
    delete: bool,
    delete_offsets: bool,
    groups: tuple[str, ...],
    all_groups: bool,
    members: bool,
    state: bool,
    topics: tuple[str, ...],
    all_topics: bool,
    to_earliest: bool,
    to_latest: bool,
    to_offset: int | None,
    to_datetime: str | None,
    shift_by: int | None,
    by_duration: str | None,
    dry_run: bool,
    execute: bool,
    request_timeout_ms: int,
    bootstrap_server: str,
) -> None:
    """List, describe, reset, delete consumer groups (kafka-consumer-groups.sh)."""
    chosen = [
        a
        for a, on in zip(ACTIONS, (list_, describe, reset_offsets, delete, delete_offsets), strict=True)
        if on
    ]
    if len(chosen) != 1:
        raise click.UsageError(
            "Command must include exactly one action: --list, --describe, --reset-offsets, "
            "--delete, --delete-offsets"
        )
    action = chosen[0]
    if action != "list" and not groups and not (all_groups and action in ("describe", "delete")):
        raise click.UsageError(
            f"Option --{action.replace('_', '-')} takes --group"
            + (" or --all-groups" if action in ("describe", "delete") else "")
        )
    scopes = {
        "to_earliest": to_earliest,
        "to_latest": to_latest,
        "to_offset": to_offset is not None,
        "to_datetime": to_datetime is not None,
        "shift_by": shift_by is not None,
        "by_duration": by_duration is not None,
    }
    if action == "reset_offsets":
        if sum(scopes.values()) != 1:
            raise click.UsageError(
                "Option --reset-offsets takes exactly one of --to-earliest, --to-latest, "
                "--to-offset, --to-datetime, --shift-by, --by-duration"
            )
        if dry_run and execute:
            raise click.UsageError("Options --dry-run and --execute cannot be used together")
        if bool(topics) == all_topics:
            raise click.UsageError("Option --reset-offsets takes --topic or --all-topics")
        if len(groups) != 1:
            raise click.UsageError("Option --reset-offsets takes one --group")
    if action == "delete_offsets" and (len(groups) != 1 or not topics):
        raise click.UsageError("Option --delete-offsets takes one --group and --topic")
    timestamp_ms = None
    if to_datetime is not None:
        timestamp_ms = parse_datetime_ms(to_datetime)
    elif by_duration is not None:
        timestamp_ms = int(datetime.datetime.now(datetime.UTC).timestamp() * 1000) - parse_duration_ms(
            by_duration
        )
    parsed_topics = [parse_topic_partitions(t) for t in topics]
    if action == "reset_offsets" and not dry_run and not execute:  # after every check of the flags
        click.echo(NO_EXECUTE_WARNING, err=True)

    async def run() -> None:
        async with admin_client(bootstrap_server, request_timeout_ms, "kafkette-consumer-groups") as admin:
            if action == "list":
                await _list(admin, state)
                return
            names = list(groups)
            if all_groups:
                names = [g.group_id for g in await admin.list_consumer_groups()]
            if action == "describe":
                await _describe(admin, names, members, state)
            elif action == "delete":
                await admin.delete_consumer_groups(names)
                click.echo(
                    "Deletion of requested consumer groups ("
                    + ", ".join(f"'{g}'" for g in names)
                    + ") was successful."
                )
            elif action == "delete_offsets":
                partitions = await _partitions(admin, names[0], parsed_topics, all_topics=False)
                await admin.delete_consumer_group_offsets(names[0], partitions)
                _table(
                    [[tp.topic, tp.partition, "Successful"] for tp in partitions],
                    ["TOPIC", "PARTITION", "STATUS"],
                )
            else:
                scope = next(s for s, on in scopes.items() if on)
                await _reset(
                    admin,
                    names[0],
                    parsed_topics,
                    all_topics,
                    scope,
                    to_offset,
                    shift_by,
                    timestamp_ms,
                    execute,
                )

    run_coroutine(run())


def _table(rows: list[list[object]], headers: Sequence[str]) -> None:
    from tabulate import tabulate

    click.echo(tabulate(rows, headers=list(headers), tablefmt="plain"))


async def _list(admin: AdminClient, with_state: bool) -> None:
    listings = await admin.list_consumer_groups()
    if with_state:
        _table([[g.group_id, g.state] for g in listings], ["GROUP", "STATE"])
    else:
        for g in listings:
            click.echo(g.group_id)


async def _describe(admin: AdminClient, names: list[str], members: bool, state: bool) -> None:
    descriptions = await admin.describe_consumer_groups(names)
    for name in names:
        group = descriptions[name]
        if group.state == "Dead":
            click.echo(f"Consumer group '{name}' does not exist.")
            continue
        if not group.members and not state:
            click.echo(f"Consumer group '{name}' has no active members.")
        if state:
            _table(
                [
                    [
                        name,
                        f"127.0.0.1 ({group.coordinator})",
                        group.partition_assignor,
                        group.state,
                        len(group.members),
                    ]
                ],
                ["GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE", "#MEMBERS"],
            )
        elif members:
            _table(
                [
                    [name, m.member_id, m.host or "/127.0.0.1", m.client_id, len(m.assignment)]
                    for m in group.members
                ],
                ["GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS"],
            )
        else:
            _table(
                await _offset_rows(admin, group),
                [
                    "GROUP",
                    "TOPIC",
                    "PARTITION",
                    "CURRENT-OFFSET",
                    "LOG-END-OFFSET",
                    "LAG",
                    "CONSUMER-ID",
                    "HOST",
                    "CLIENT-ID",
                ],
            )


async def _offset_rows(admin: AdminClient, group: ConsumerGroupDescription) -> list[list[object]]:
    committed = await admin.list_consumer_group_offsets(group.group_id)
    owner = {tp: m for m in group.members for tp in m.assignment}
    partitions = sorted(set(committed) | set(owner))
    ends = await admin.list_offsets(dict.fromkeys(partitions, OffsetSpec.latest())) if partitions else {}
    rows: list[list[object]] = []
    for tp in partitions:
        current = committed[tp].offset if tp in committed else None
        end = ends[tp].offset
        member = owner.get(tp)
        rows.append(
            [
                group.group_id,
                tp.topic,
                tp.partition,
                "-" if current is None else current,
                end,
                "-" if current is None else max(0, end - current),
                member.member_id if member else "-",
                (member.host or "/127.0.0.1") if member else "-",
                member.client_id if member else "-",
            ]
        )
    return rows


async def _partitions(
    admin: AdminClient, group_id: str, topics: list[tuple[str, list[int] | None]], all_topics: bool
) -> list[TopicPartition]:
    if all_topics:
        return sorted(await admin.list_consumer_group_offsets(group_id))
    out: list[TopicPartition] = []
    described = await admin.describe_topics([t for t, _ in topics])
    for topic, partitions in topics:
        known = [p.partition for p in described[topic].partitions]
        for p in partitions if partitions is not None else known:
            if p not in known:
                raise click.ClickException(f"Topic {topic} has no partition {p}")
            out.append(TopicPartition(topic, p))
    return sorted(set(out))


async def _reset(
    admin: AdminClient,
    group_id: str,
    topics: list[tuple[str, list[int] | None]],
    all_topics: bool,
    scope: str,
    to_offset: int | None,
    shift_by: int | None,
    timestamp_ms: int | None,
    execute: bool,
) -> None:
    group = (await admin.describe_consumer_groups([group_id]))[group_id]
    if group.state not in ("Empty", "Dead"):
        raise click.ClickException(
            f"Assignments can only be reset if the group '{group_id}' is inactive, but the "
            f"current state is {group.state}."
        )
    partitions = await _partitions(admin, group_id, topics, all_topics)
    if not partitions:
        raise click.ClickException(f"Group '{group_id}' has no committed offsets to reset (--all-topics)")
    earliest = await admin.list_offsets(dict.fromkeys(partitions, OffsetSpec.earliest()))
    latest = await admin.list_offsets(dict.fromkeys(partitions, OffsetSpec.latest()))
    committed = await admin.list_consumer_group_offsets(group_id, partitions)
    by_time = {}
    if timestamp_ms is not None:
        by_time = await admin.list_offsets(dict.fromkeys(partitions, OffsetSpec.for_timestamp(timestamp_ms)))
    plan: dict[TopicPartition, int] = {}
    for tp in partitions:
        low, high = earliest[tp].offset, latest[tp].offset
        if scope == "to_earliest":
            target = low
        elif scope == "to_latest":
            target = high
        elif scope == "to_offset":
            assert to_offset is not None
            target = to_offset
        elif scope == "shift_by":
            assert shift_by is not None
            target = (committed[tp].offset if tp in committed else low) + shift_by
        else:
            found = by_time[tp].offset
            target = high if found < 0 else found
        plan[tp] = min(max(target, low), high)
    if execute:
        await admin.alter_consumer_group_offsets(
            group_id, {tp: OffsetAndMetadata(o) for tp, o in plan.items()}
        )
    _table(
        [[group_id, tp.topic, tp.partition, offset] for tp, offset in sorted(plan.items())],
        ["GROUP", "TOPIC", "PARTITION", "NEW-OFFSET"],
    )
