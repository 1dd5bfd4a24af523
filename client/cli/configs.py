"""``kafkette configs describe|alter``: topic, broker and group configs from the shell; users'
and clients' quotas and SCRAM credentials through ``client_entity_configs``.

Owns: the commands and the parsing of kafka-configs.sh's flags: ``--add-config
k=v,k2=v2`` (a value holding commas is written in brackets, ``k=[a,b]``) and
``--delete-config k,k2``.  ``describe`` prints the dynamic overrides by default and
every config with ``--all``, one ``name=value`` per line with its source.  The work is done by
``kafkette.client.admin.AdminClient`` (DescribeConfigs, IncrementalAlterConfigs).
Kafka concept: ``kafka-configs.sh`` (``ConfigCommand``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import click

from kafkette.client.admin import AdminClient
from kafkette.client.cli.client_entity_configs import (
    CLIENTS,
    USERS,
    ClientEntityFlags,
    alter_client_entity,
    describe_client_entity,
    plan_alteration,
    resolve_client_entity,
)
from kafkette.client.cli.shared_options import admin_client, bootstrap_server_option, run_coroutine
from kafkette.client.config_resource import (
    AlterConfigOp,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    ConfigResourceType,
    ConfigSource,
)

ENTITY_TYPES = {
    "topics": ConfigResourceType.TOPIC,
    "brokers": ConfigResourceType.BROKER,
    "groups": ConfigResourceType.GROUP,
}
_DYNAMIC = (
    ConfigSource.DYNAMIC_TOPIC_CONFIG,
    ConfigSource.DYNAMIC_BROKER_CONFIG,
    ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG,
    ConfigSource.GROUP_CONFIG,
)


def split_config_list(text: str) -> list[str]:
    """Split at commas outside square brackets: ``"a=1,b=[x,y]"`` -> ``["a=1", "b=[x,y]"]``.

    Raises:
        ValueError: unbalanced brackets.
    """
    items: list[str] = []
    depth = 0
    current: list[str] = []
    for char in text:
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth < 0:
                raise ValueError(f"Unbalanced ']' in {text!r}")
        if char == "," and depth == 0:
            items.append("".join(current))
            current = []
        else:
            current.append(char)
    if depth != 0:
        raise ValueError(f"Unbalanced '[' in {text!r}")
    items.append("".join(current))
    return [item.strip() for item in items if item.strip()]


def parse_add_config(text: str) -> dict[str, str]:
    """Parse ``--add-config k=v,k2=[a,b]`` into ``{"k": "v", "k2": "a,b"}``.

    Raises:
        ValueError: an entry without ``=`` or with an empty key, or a key given twice.
    """
    out: dict[str, str] = {}
    for item in split_config_list(text):
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key:
            raise ValueError(
                f"Invalid --add-config entry {item!r}: "
                'all configs to be added must be in the format "key=val"'
            )
        if value.startswith("[") and value.endswith("]"):
            value = value[1:-1]
        if key in out:
            raise ValueError(f"Config {key!r} is given twice in --add-config")
        out[key] = value
    if not out:
        raise ValueError("--add-config must name at least one key=val")
    return out


def parse_delete_config(text: str) -> list[str]:
    """Parse ``--delete-config k,k2`` into ``["k", "k2"]``.

    Raises:
        ValueError: no key, or an entry holding ``=``.
    """
    keys = [k.strip() for k in text.split(",") if k.strip()]
    if not keys:
        raise ValueError("--delete-config must name at least one key")
    bad = [k for k in keys if "=" in k]
    if bad:
        raise ValueError(f"Invalid --delete-config entry {bad[0]!r}: give config names only")
    return keys


def alter_ops(add_config: str | None, delete_config: str | None) -> list[AlterConfigOp]:
    """The changes of ``configs alter``: SET for each added key, DELETE for each removed one.

    Raises:
        click.UsageError: neither flag, a malformed flag, or a key both added and deleted.
    """
    if add_config is None and delete_config is None:
        raise click.UsageError("configs alter needs --add-config and/or --delete-config")
    try:
        added = parse_add_config(add_config) if add_config is not None else {}
        deleted = parse_delete_config(delete_config) if delete_config is not None else []
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    both = sorted(set(added) & set(deleted))
    if both:
        raise click.UsageError(f"Config {both[0]!r} is both added and deleted")
    return [AlterConfigOp(k, v, AlterConfigOpType.SET) for k, v in added.items()] + [
        AlterConfigOp(k, None, AlterConfigOpType.DELETE) for k in deleted
    ]


def check_entity(entity_type: str, entity_name: str | None, *, required: bool) -> ConfigResource | None:
    """The resource named by ``--entity-type``/``--entity-name``.

    Raises:
        click.UsageError: a missing name when ``required``, or a broker name that is not an id.
    """
    if entity_name is None:
        if required:
            raise click.UsageError("Option --entity-name is required")
        return None
    try:
        return ConfigResource(ENTITY_TYPES[entity_type], entity_name)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None


def entity_label(resource: ConfigResource) -> str:
    """``topic t`` or ``broker 1``, as kafka-configs.sh words it."""
    return f"{resource.resource_type.name.lower()} {resource.name}"


def format_entries(resource: ConfigResource, entries: dict[str, ConfigEntry], show_all: bool) -> str:
    """The describe output of one resource: a heading, then ``  name=value ...`` lines."""
    shown = [e for e in entries.values() if show_all or e.source in _DYNAMIC]
    heading = f"{'All' if show_all else 'Dynamic'} configs for {entity_label(resource)} are:"
    lines = [heading]
    for entry in shown:
        value = "null" if entry.value is None else entry.value
        lines.append(
            f"  {entry.name}={value} sensitive={str(entry.is_sensitive).lower()} source={entry.source.name}"
        )
    return "\n".join(lines)


def _admin(bootstrap_server: str, request_timeout_ms: int) -> AdminClient:
    return admin_client(bootstrap_server, request_timeout_ms, "kafkette-configs")


def resolve_entity(
    entity_type: str | None, entity_name: str | None, topic: str | None, broker: str | None
) -> tuple[str, str | None]:
    """The (entity type, entity name) from ``--entity-type/--entity-name`` or kafka-configs.sh's
    shorthands ``--topic NAME`` and ``--broker ID``.

    Raises:
        click.UsageError: no entity type, or shorthands that contradict the long form.
    """
    for flag, kind, value in (("--topic", "topics", topic), ("--broker", "brokers", broker)):
        if value is None:
            continue
        if (entity_type not in (None, kind)) or (entity_name not in (None, value)) or (topic and broker):
            raise click.UsageError(f"{flag} {value} contradicts the other entity flags")
        return kind, value
    if entity_type is None:
        raise click.UsageError("Option --entity-type is required (or --topic NAME / --broker ID)")
    return entity_type, entity_name


def entity_options(func: Callable[..., None]) -> Callable[..., None]:
    """Add ``--entity-type`` and ``--entity-name`` (repeatable, for a user and a client together),
    ``--entity-default``, and the shorthands ``--topic``, ``--broker``, ``--user``, ``--client``,
    ``--user-defaults``, ``--client-defaults``; the command receives ``entity_type`` and
    ``entity_name`` (a topic, broker or group), or ``client_entity`` (users and clients: see
    ``client_entity_configs``) with ``entity_type`` "users"/"clients"."""

    @functools.wraps(func)
    def command(
        *args: Any,
        entity_type: tuple[str, ...],
        entity_name: tuple[str, ...],
        entity_default: bool,
        topic: str | None,
        broker: str | None,
        user: str | None,
        client: str | None,
        user_defaults: bool,
        client_defaults: bool,
        **kwargs: Any,
    ) -> None:
        shorthands = {
            "--user": None if user is None else (USERS, user),
            "--client": None if client is None else (CLIENTS, client),
            "--user-defaults": (USERS, "") if user_defaults else None,
            "--client-defaults": (CLIENTS, "") if client_defaults else None,
        }
        client_entity = resolve_client_entity(entity_type, entity_name, entity_default, shorthands)
        if client_entity is not None:
            if topic is not None or broker is not None:
                raise click.UsageError("--topic/--broker cannot be combined with users or clients")
            func(
                *args,
                entity_type=client_entity.entity_types[0],
                entity_name=None,
                client_entity=client_entity,
                **kwargs,
            )
            return
        if len(entity_type) > 1:
            raise click.UsageError(f"Only '{USERS}' and '{CLIENTS}' entity types may be specified together")
        if len(entity_name) > 1:
            raise click.UsageError("More entity names specified than entity types")
        if entity_default:
            raise click.UsageError(
                "--entity-default is for users and clients; topic and broker defaults are set in each "
                "broker's server.properties"
            )
        kind, name = resolve_entity(
            entity_type[0] if entity_type else None, entity_name[0] if entity_name else None, topic, broker
        )
        func(*args, entity_type=kind, entity_name=name, client_entity=None, **kwargs)

    for flag, metavar, text in (
        ("--client-defaults", None, "Same as --entity-type clients --entity-default."),
        ("--user-defaults", None, "Same as --entity-type users --entity-default."),
        ("--client", "CLIENT_ID", "Same as --entity-type clients --entity-name CLIENT_ID."),
        ("--user", "NAME", "Same as --entity-type users --entity-name NAME."),
        ("--broker", "ID", "Same as --entity-type brokers --entity-name ID."),
        ("--topic", "NAME", "Same as --entity-type topics --entity-name NAME."),
    ):
        if metavar is None:
            command = click.option(flag, is_flag=True, help=text)(command)
        else:
            command = click.option(flag, default=None, metavar=metavar, help=text)(command)
    command = click.option(
        "--entity-default", is_flag=True, help="The default entity of the (users or clients) entity type."
    )(command)
    command = click.option(
        "--entity-name",
        multiple=True,
        help="Topic name, broker id, group, user or client id (describe: default every one).",
    )(command)
    return click.option(
        "--entity-type",
        type=click.Choice(sorted([*ENTITY_TYPES, USERS, CLIENTS])),
        multiple=True,
        help="topics, brokers, groups, users or clients (users and clients together: a user's client).",
    )(command)


@click.group()
def configs() -> None:
    """Describe and alter topic, broker and group configs, and user and client quotas and SCRAM
    credentials."""


@configs.command("describe")
@click.option("--all", "show_all", is_flag=True, help="Every config, not only the dynamic overrides.")
@click.option("--request-timeout-ms", type=click.IntRange(1), default=30000, show_default=True)
@bootstrap_server_option
@entity_options
def describe(
    entity_type: str,
    entity_name: str | None,
    client_entity: ClientEntityFlags | None,
    show_all: bool,
    request_timeout_ms: int,
    bootstrap_server: str,
) -> None:
    """Describe the configs of a topic, a broker or a group (every group listed when none is named),
    or the quotas and SCRAM credentials of users and clients."""
    if client_entity is not None:

        async def run_client_entity() -> list[str]:
            async with _admin(bootstrap_server, request_timeout_ms) as admin:
                return await describe_client_entity(admin, client_entity)

        for line in run_coroutine(run_client_entity()):
            click.echo(line)
        return
    named = check_entity(entity_type, entity_name, required=False)

    async def run() -> dict[ConfigResource, dict[str, ConfigEntry]]:
        async with _admin(bootstrap_server, request_timeout_ms) as admin:
            if named is not None:
                resources = [named]
            elif entity_type == "topics":
                resources = [ConfigResource(ConfigResourceType.TOPIC, t) for t in await admin.list_topics()]
            elif entity_type == "groups":
                resources = [
                    ConfigResource(ConfigResourceType.GROUP, g.group_id)
                    for g in await admin.list_consumer_groups()
                    if g.group_id
                ]
            else:
                brokers = (await admin.describe_cluster())["brokers"]
                resources = [ConfigResource(ConfigResourceType.BROKER, b.node_id) for b in brokers]
            return await admin.describe_configs(resources) if resources else {}

    for resource, entries in run_coroutine(run()).items():
        click.echo(format_entries(resource, entries, show_all))


@configs.command("alter")
@click.option("--add-config", default=None, metavar="K=V,K2=V2", help="Configs to set (k=[a,b] for lists).")
@click.option("--delete-config", default=None, metavar="K,K2", help="Overrides to remove.")
@click.option("--request-timeout-ms", type=click.IntRange(1), default=30000, show_default=True)
@bootstrap_server_option
@entity_options
def alter(
    entity_type: str,
    entity_name: str | None,
    client_entity: ClientEntityFlags | None,
    add_config: str | None,
    delete_config: str | None,
    request_timeout_ms: int,
    bootstrap_server: str,
) -> None:
    """Set or remove config overrides of a topic, a broker or a group, or the quotas and SCRAM
    credentials of users and clients."""
    if client_entity is not None:
        ops = alter_ops(add_config, delete_config)
        plan = plan_alteration(
            client_entity,
            {op.name: op.value for op in ops if op.op_type == AlterConfigOpType.SET},
            [op.name for op in ops if op.op_type == AlterConfigOpType.DELETE],
        )

        async def run_client_entity() -> str:
            async with _admin(bootstrap_server, request_timeout_ms) as admin:
                return await alter_client_entity(admin, client_entity, plan)

        click.echo(run_coroutine(run_client_entity()))
        return
    resource = check_entity(entity_type, entity_name, required=True)
    ops = alter_ops(add_config, delete_config)
    if resource is None:  # check_entity(required=True) never returns None
        raise click.UsageError("Option --entity-name is required")

    async def run() -> None:
        async with _admin(bootstrap_server, request_timeout_ms) as admin:
            await admin.alter_configs({resource: ops})

    run_coroutine(run())
    click.echo(f"Completed updating config for {entity_label(resource)}.")
