"""``kafkette acls``: add, remove and list ACLs, as ``kafka-acls.sh`` does.

Owns: the command, its flags (Kafka's: exactly one of ``--add``, ``--remove``, ``--list``; the
resources ``--topic``, ``--group``, ``--cluster``, ``--transactional-id`` with
``--resource-pattern-type``; ``--allow-principal`` / ``--deny-principal``, ``--allow-host`` /
``--deny-host``, repeatable ``--operation``, ``--producer`` / ``--consumer`` (``--idempotent``),
``--principal`` for ``--list``, ``--force``), the confirmation ``--remove`` asks for without
``--force`` and AclCommand's output ("Adding ACLs for resource `...`:", "Current ACLs for
resource `...`:", "Acl ... already exists.").  What the flags mean is worked out in
``acl_command_options``; the calls are the AdminClient's (CreateAcls, DescribeAcls, DeleteAcls).

Kafka concept: ``kafka-acls.sh`` (``org.apache.kafka.tools.AclCommand``).
"""

from __future__ import annotations

from typing import Any

import click

from kafkette.client.admin_acls import AccessControlEntryFilter, AclBinding, AclBindingFilter
from kafkette.client.cli.acl_command_options import (
    PATTERN_TYPES,
    AclCommandError,
    AclFlags,
    binding_text,
    check_flags,
    entries_block,
    filter_to_entries,
    group_by_pattern,
    parse_pattern_type,
    parse_principal,
    pattern_text,
    pattern_to_entries,
    resource_filters,
)
from kafkette.client.cli.shared_options import admin_client, bootstrap_server_option, run_coroutine


def _usage(exc: AclCommandError) -> click.UsageError:
    return click.UsageError(str(exc))


async def _add(admin: Any, flags: AclFlags) -> None:
    """AclCommand's ``addAcls``: per pattern, skip (and say) the ACLs that exist, create the rest."""
    for pattern, entries in pattern_to_entries(flags).items():
        existing = set(
            await admin.describe_acls(AclBindingFilter(pattern.to_filter(), AccessControlEntryFilter.ANY))
        )
        new = []
        for entry in entries:
            binding = AclBinding(pattern, entry)
            if binding in existing:
                click.echo(f"Acl {binding_text(binding)} already exists.")
            else:
                new.append(entry)
        if new:
            click.echo(f"Adding ACLs for resource `{pattern_text(pattern)}`: \n {entries_block(new)}\n")
            await admin.create_acls([AclBinding(pattern, e) for e in new])


async def _remove(admin: Any, flags: AclFlags, force: bool) -> None:
    """AclCommand's ``removeAcls``: per filter, confirm (unless ``force``), then delete the ACLs
    named, or every ACL of the filter when no principal is given."""
    for pattern_filter, entries in filter_to_entries(flags).items():
        if entries:
            question = (
                f"Are you sure you want to remove ACLs: \n {entries_block(entries)}\n"
                f" from resource filter `{pattern_text(pattern_filter)}`? (y/n)"
            )
            filters = [AclBindingFilter(pattern_filter, e.to_filter()) for e in entries]
        else:
            shown = pattern_text(pattern_filter)
            question = f"Are you sure you want to delete all ACLs for resource filter `{shown}`? (y/n)"
            filters = [AclBindingFilter(pattern_filter, AccessControlEntryFilter.ANY)]
        if not force:
            click.echo(question)
            answer = click.get_text_stream("stdin").readline().strip()
            if answer.lower() != "y":
                continue
        await admin.delete_acls(filters)


async def _list(admin: Any, flags: AclFlags, principals: list[str]) -> None:
    """AclCommand's ``listAcls``: every ACL of the resources named (all without one), grouped by
    pattern; with ``--principal``, a block per principal of its ACLs only."""
    pattern_filters = resource_filters(flags, required=False)
    bindings: list[AclBinding] = []
    if not pattern_filters:
        bindings = await admin.describe_acls(AclBindingFilter.ANY)  # type: ignore[attr-defined]
    for pattern_filter in pattern_filters:
        bindings += await admin.describe_acls(AclBindingFilter(pattern_filter, AccessControlEntryFilter.ANY))
    grouped = group_by_pattern(bindings)
    if not principals:
        _print_current(grouped)
    for principal in principals:
        click.echo(f"ACLs for principal `{principal}`")
        _print_current({p: [e for e in es if e.principal == principal] for p, es in grouped.items()})


def _print_current(grouped: dict[Any, list[Any]]) -> None:
    for pattern, entries in grouped.items():
        if entries:
            click.echo(f"Current ACLs for resource `{pattern_text(pattern)}`:\n{entries_block(entries)}\n")


@click.command("acls")
@click.option("--add", "add", is_flag=True, help="Add ACLs.")
@click.option("--remove", "remove", is_flag=True, help="Remove ACLs.")
@click.option("--list", "list_", is_flag=True, help="List ACLs (of the resources named, else all).")
@click.option("--topic", multiple=True, metavar="TOPIC", help="A topic (repeatable; '*' is every topic).")
@click.option("--group", multiple=True, metavar="GROUP", help="A consumer group (repeatable).")
@click.option("--cluster", is_flag=True, help="The cluster resource (kafka-cluster).")
@click.option("--transactional-id", multiple=True, metavar="ID", help="A transactional id (repeatable).")
@click.option(
    "--resource-pattern-type",
    default="literal",
    show_default=True,
    metavar="|".join(PATTERN_TYPES),
    help="How resource names match: literal or prefixed (add), also match and any (list, remove).",
)
@click.option(
    "--allow-principal", multiple=True, metavar="TYPE:NAME", help="A principal to allow (User:alice)."
)
@click.option("--deny-principal", multiple=True, metavar="TYPE:NAME", help="A principal to deny.")
@click.option(
    "--allow-host", multiple=True, metavar="HOST", help="A host the allowed principals use (default *)."
)
@click.option(
    "--deny-host", multiple=True, metavar="HOST", help="A host the denied principals use (default *)."
)
@click.option(
    "--operation", multiple=True, metavar="OP", help="Read, Write, Describe, ... (repeatable; default All)."
)
@click.option("--producer", is_flag=True, help="Write, Describe, Create on topics; Write, Describe on ids.")
@click.option("--consumer", is_flag=True, help="Read, Describe on topics; Read on groups.")
@click.option("--idempotent", is_flag=True, help="With --producer: IdempotentWrite on the cluster.")
@click.option(
    "--principal", multiple=True, metavar="TYPE:NAME", help="With --list: only this principal's ACLs."
)
@click.option("--force", is_flag=True, help="Remove without asking.")
@click.option("--request-timeout-ms", type=click.IntRange(1), default=30000, show_default=True)
@bootstrap_server_option
def acls(
    add: bool,
    remove: bool,
    list_: bool,
    topic: tuple[str, ...],
    group: tuple[str, ...],
    cluster: bool,
    transactional_id: tuple[str, ...],
    resource_pattern_type: str,
    allow_principal: tuple[str, ...],
    deny_principal: tuple[str, ...],
    allow_host: tuple[str, ...],
    deny_host: tuple[str, ...],
    operation: tuple[str, ...],
    producer: bool,
    consumer: bool,
    idempotent: bool,
    principal: tuple[str, ...],
    force: bool,
    request_timeout_ms: int,
    bootstrap_server: str,
) -> None:
    """Add, remove or list ACLs (needs an authorizer on the brokers: authorizer.class.name)."""
    if add + remove + list_ != 1:
        raise click.UsageError("Command must include exactly one action: --list, --add, --remove.")
    action = "add" if add else "remove" if remove else "list"
    try:
        flags = AclFlags(
            topics=topic,
            groups=group,
            transactional_ids=transactional_id,
            cluster=cluster,
            pattern_type=parse_pattern_type(resource_pattern_type),
            allow_principals=allow_principal,
            deny_principals=deny_principal,
            allow_hosts=allow_host,
            deny_hosts=deny_host,
            operations=operation,
            producer=producer,
            consumer=consumer,
            idempotent=idempotent,
        )
        check_flags(action, flags, principal)
        principals = [parse_principal(p) for p in principal]
        if action == "add":
            pattern_to_entries(flags)
        elif action == "remove":
            filter_to_entries(flags)
    except AclCommandError as exc:
        raise _usage(exc) from None

    async def run() -> None:
        async with admin_client(bootstrap_server, request_timeout_ms, "kafkette-acls") as admin:
            if action == "add":
                await _add(admin, flags)
            elif action == "remove":
                await _remove(admin, flags, force)
            else:
                await _list(admin, flags, principals)

    run_coroutine(run())
