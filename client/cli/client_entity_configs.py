"""``kafkette configs describe|alter`` of users and clients: client quotas and SCRAM credentials,
as ``kafka-configs.sh --entity-type users|clients`` handles them.

Owns: which entity the flags name (``--entity-type users|clients`` with ``--entity-name`` /
``--entity-default``, both types together for a (user, client-id) entity, or the shorthands
``--user``, ``--client``, ``--user-defaults``, ``--client-defaults``), the split of
``--add-config`` / ``--delete-config`` between quota keys (``producer_byte_rate``,
``consumer_byte_rate``, ``request_percentage``, ``controller_mutation_rate``: AlterClientQuotas)
and SCRAM mechanisms (``SCRAM-SHA-512=[iterations=8192,password=secret]``, default 4096
iterations: AlterUserScramCredentials) with Kafka's checks and messages, and Kafka's describe
lines ("Quota configs for user-principal 'alice' are producer_byte_rate=1024.0", "SCRAM
credential configs for user-principal 'alice' are SCRAM-SHA-512=iterations=8192").  Topic, broker
and group configs stay in ``kafkette.client.cli.configs``.

Kafka concept: ``ConfigCommand`` (``alterUserScramCredentialConfigs``, ``alterQuotaConfigs``,
``describeClientQuotaAndUserScramCredentialConfigs``, ``ConfigCommandOptions.entityNames``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import click

from kafkette.client.admin_quotas import ClientQuotaAlteration, ClientQuotaFilter, ClientQuotaFilterComponent
from kafkette.client.admin_scram import (
    ScramMechanism,
    UserScramCredentialDeletion,
    UserScramCredentialUpsertion,
)
from kafkette.common.client_quota_entity import (
    CLIENT_ID,
    USER,
    USER_AND_CLIENT_QUOTA_TYPES,
    ClientQuotaEntity,
)
from kafkette.common.java_hash_order import java_hash_map_order, java_string_hash
from kafkette.protocol.errors import Errors, error_class

USERS = "users"
CLIENTS = "clients"
CLIENT_ENTITY_TYPES = {USERS: USER, CLIENTS: CLIENT_ID}
"""kafka-configs.sh's entity types of client quotas -> Kafka's ``ClientQuotaEntity`` types."""

DEFAULT_SCRAM_ITERATIONS = 4096
"""Iterations of a SCRAM credential whose config names none (ConfigCommand's DefaultScramIterations)."""

_SCRAM_VALUE = re.compile(r"(?:iterations=(-?[0-9]*),)?password=(.*)", re.DOTALL)


@dataclass(frozen=True)
class ClientEntityFlags:
    """The entity of a users/clients command: kafka-configs.sh's entity types (``users``,
    ``clients``) and names, in pairs by position; ``""`` is the default entity of that type
    and a type without a name (describe only) means every entity of that type."""

    entity_types: tuple[str, ...]
    entity_names: tuple[str, ...]


def resolve_client_entity(
    entity_types: tuple[str, ...],
    entity_names: tuple[str, ...],
    entity_default: bool,
    shorthands: dict[str, tuple[str, str] | None],
) -> ClientEntityFlags | None:
    """The users/clients entity the flags name, or None when they name no users/clients entity.

    Args:
        entity_types, entity_names: ``--entity-type`` / ``--entity-name`` as given.
        entity_default: ``--entity-default``.
        shorthands: ``{"--user": ("users", NAME) or None, "--user-defaults": ("users", "") or
            None, ...}``.

    Raises:
        click.UsageError: Kafka's refusals (duplicate types, types that do not combine, the
            long flags mixed with shorthands, more names than types) and a default with two
            types (name it with ``--user-defaults`` / ``--client-defaults``).
    """
    given = {flag: value for flag, value in shorthands.items() if value is not None}
    if not given and not set(entity_types) & set(CLIENT_ENTITY_TYPES):
        return None
    if given and (entity_types or entity_names or entity_default):
        raise click.UsageError(
            "--entity-{type,name,default} should not be used in conjunction with specific entity flags"
        )
    if given:
        pairs = sorted(given.values(), key=lambda pair: pair[0] != USERS)
        types, names = tuple(t for t, _ in pairs), tuple(n for _, n in pairs)
    else:
        types, names = entity_types, entity_names
        if entity_default:
            if len(types) != 1 or entity_names:
                raise click.UsageError(
                    "--entity-default names the default entity of one entity type; for a user and a client "
                    "use --user/--user-defaults with --client/--client-defaults"
                )
            names = ("",)
    if len(types) != len(set(types)):
        raise click.UsageError(f"Duplicate entity type(s) specified: {','.join(types)}")
    if len(types) > 1 and set(types) != {USERS, CLIENTS}:
        raise click.UsageError(f"Only '{USERS}' and '{CLIENTS}' entity types may be specified together")
    if len(names) > len(types):
        raise click.UsageError("More entity names specified than entity types")
    return ClientEntityFlags(types, names)


def parse_scram_credential(mechanism_name: str, value: str) -> tuple[int, str]:
    """ConfigCommand's ``iterationsAndPasswordBytes``: ``[iterations=N,]password=P`` -> (N or 4096
    when absent or -1, P).

    Raises:
        ValueError: "Invalid credential property M=V", or iterations below the mechanism's
            minimum (Kafka's messages).
    """
    match = _SCRAM_VALUE.fullmatch(value)
    if match is None or match.group(1) == "":
        raise ValueError(f"Invalid credential property {mechanism_name}={value}")
    mechanism = ScramMechanism.for_name(mechanism_name)
    if mechanism is None:
        raise ValueError(f"Unknown SCRAM mechanism {mechanism_name}")
    iterations_text, password = match.groups()
    iterations = DEFAULT_SCRAM_ITERATIONS if iterations_text in (None, "-1") else int(iterations_text)
    if iterations < mechanism.min_iterations:
        raise ValueError(
            f"Iterations {iterations} is less than the minimum {mechanism.min_iterations} required for "
            f"{mechanism.mechanism_name}"
        )
    return iterations, password


def java_double_text(value: float) -> str:
    """Java's ``Double.toString`` (how kafka-configs.sh prints a quota): ``1024.0``, ``0.5``,
    ``1.0E7``, ``1.5E-4``."""
    if value != value or value in (float("inf"), float("-inf")):
        return {True: "NaN"}.get(value != value, "Infinity" if value > 0 else "-Infinity")
    if value == 0 or 1e-3 <= abs(value) < 1e7:
        return repr(float(value))
    sign, digits, exponent = Decimal(repr(float(value))).as_tuple()
    text = "".join(map(str, digits)).rstrip("0") or "0"
    power = len(digits) + int(exponent) - 1
    return f"{'-' if sign else ''}{text[0]}.{text[1:] or '0'}E{power}"


@dataclass(frozen=True)
class ClientEntityAlteration:
    """What ``configs alter`` of a users/clients entity sends: quota alterations, or SCRAM ones."""

    quota_ops: tuple[ClientQuotaAlteration.Op, ...]
    scram: tuple[UserScramCredentialUpsertion | UserScramCredentialDeletion, ...]


def plan_alteration(
    entity: ClientEntityFlags, added: dict[str, str], deleted: list[str]
) -> ClientEntityAlteration:
    """ConfigCommand's checks of ``--alter`` for users/clients, and the alterations to send.

    Raises:
        click.UsageError: Kafka's messages: a key that is neither a quota nor (for a user alone)
            a SCRAM mechanism, SCRAM for a default user, quotas and SCRAM together, a bad value.
    """
    if len(entity.entity_names) != len(entity.entity_types):
        raise click.UsageError(
            "An entity-name or default entity must be specified with --alter of users, clients"
        )
    is_scram = ScramMechanism.for_name
    is_quota = USER_AND_CLIENT_QUOTA_TYPES.__contains__
    unknown_added = [k for k in added if not (is_scram(k) or is_quota(k))]
    unknown_deleted = [k for k in deleted if not (is_scram(k) or is_quota(k))]
    scram_added = [k for k in added if is_scram(k)]
    scram_deleted = [k for k in deleted if is_scram(k)]
    has_quota = any(is_quota(k) for k in [*added, *deleted])
    if entity.entity_types[0] == CLIENTS or len(entity.entity_types) == 2:
        if unknown_added or scram_added:
            raise click.UsageError(
                f"Only quota configs can be added for '{CLIENTS}' using --bootstrap-server. "
                f"Unexpected config names: {', '.join(unknown_added + scram_added)}"
            )
        if unknown_deleted or scram_deleted:
            raise click.UsageError(
                f"Only quota configs can be deleted for '{CLIENTS}' using --bootstrap-server. "
                f"Unexpected config names: {', '.join(unknown_deleted + scram_deleted)}"
            )
    else:
        for verb, unknown in (("added", unknown_added), ("deleted", unknown_deleted)):
            if unknown:
                raise click.UsageError(
                    f"Only quota and SCRAM credential configs can be {verb} for '{USERS}' using "
                    f"--bootstrap-server. Unexpected config names: {', '.join(unknown)}"
                )
        if (scram_added or scram_deleted) and "" in entity.entity_names:
            raise click.UsageError(
                "The use of --entity-default or --user-defaults is not allowed with User SCRAM Credentials "
                "using --bootstrap-server."
            )
        if (scram_added or scram_deleted) and has_quota:
            raise click.UsageError(
                f"Cannot alter both quota and SCRAM credential configs simultaneously for '{USERS}' using "
                "--bootstrap-server."
            )
    if has_quota or not (scram_added or scram_deleted):
        ops = []
        for key, value in added.items():
            try:
                ops.append(ClientQuotaAlteration.Op(key, float(value)))
            except ValueError:
                raise click.UsageError(f"Cannot parse quota configuration value for {key}: {value}") from None
        return ClientEntityAlteration(tuple(ops + [ClientQuotaAlteration.Op(k, None) for k in deleted]), ())
    user = entity.entity_names[0]
    scram: list[Any] = [UserScramCredentialDeletion(user, is_scram(k)) for k in scram_deleted]  # type: ignore[arg-type]
    for name in scram_added:
        try:
            iterations, password = parse_scram_credential(name, added[name])
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None
        scram.append(UserScramCredentialUpsertion(user, is_scram(name), iterations, password))  # type: ignore[arg-type]
    return ClientEntityAlteration((), tuple(scram))


def quota_filter(entity: ClientEntityFlags) -> ClientQuotaFilter:
    """ConfigCommand's ``getAllClientQuotasConfigs`` filter: ``containsOnly`` one component per
    type (a name: that entity; ``""``: the default entity; none: any entity of the type)."""
    components = []
    for i, entity_type in enumerate(entity.entity_types):
        quota_type = CLIENT_ENTITY_TYPES[entity_type]
        if i >= len(entity.entity_names):
            components.append(ClientQuotaFilterComponent.of_entity_type(quota_type))
        elif entity.entity_names[i] == "":
            components.append(ClientQuotaFilterComponent.of_default_entity(quota_type))
        else:
            components.append(ClientQuotaFilterComponent.of_entity(quota_type, entity.entity_names[i]))
    return ClientQuotaFilter.contains_only(components)


def quota_entity_map(entity: ClientEntityFlags) -> dict[str, str | None]:
    """The ``ClientQuotaEntity`` an alteration names (``""`` -> None, the default entity)."""
    return {
        CLIENT_ENTITY_TYPES[t]: (n or None)
        for t, n in zip(entity.entity_types, entity.entity_names, strict=True)
    }


def quota_line(entity: tuple[tuple[str, str | None], ...], values: dict[str, float]) -> str:
    """ConfigCommand's ``describeQuotaConfigs`` line of one entity:
    ``Quota configs for user-principal 'alice', client-id 'c1' are producer_byte_rate=1024.0``,
    the values in the order of the Java ``HashMap`` Kafka's AdminClient reads them into."""
    names = dict(entity)
    parts = []
    for quota_type, label in ((USER, "user-principal"), (CLIENT_ID, "client-id"), ("ip", "ip")):
        if quota_type in names:
            name = names[quota_type]
            parts.append(f"{label} '{name}'" if name is not None else f"the default {label}")
    keys = java_hash_map_order(values, java_string_hash, len(values))
    shown = ", ".join(f"{k}={java_double_text(values[k])}" for k in keys)
    return f"Quota configs for {', '.join(parts)} are {shown}"


def _entity_hash(entity: ClientQuotaEntity) -> int:
    """Kafka's ``ClientQuotaEntity.hashCode``: ``Objects.hash(entries)``, the entries a Java map
    (the sum of ``key.hashCode() ^ value.hashCode()``, a null name hashing to 0)."""
    total = sum(java_string_hash(t) ^ (java_string_hash(n) if n is not None else 0) for t, n in entity)
    return (31 + total) & 0xFFFFFFFF


async def describe_client_entity(admin: Any, entity: ClientEntityFlags) -> list[str]:
    """The lines of ``configs describe`` of users/clients: the quotas, then (for users alone and
    no default) each user's SCRAM credentials."""
    quotas = await admin.describe_client_quotas(quota_filter(entity))
    lines = [quota_line(e, quotas[e]) for e in java_hash_map_order(quotas, _entity_hash, len(quotas))]
    if CLIENTS not in entity.entity_types and "" not in entity.entity_names:
        try:
            described = await admin.describe_user_scram_credentials(list(entity.entity_names) or None)
        except error_class(Errors.RESOURCE_NOT_FOUND):
            described = {}
        for user, infos in described.items():
            text = ", ".join(f"{i.mechanism.mechanism_name}=iterations={i.iterations}" for i in infos)
            lines.append(f"SCRAM credential configs for user-principal '{user}' are {text}")
    return lines


async def alter_client_entity(admin: Any, entity: ClientEntityFlags, plan: ClientEntityAlteration) -> str:
    """Send ``plan`` (quotas: after Kafka's check that each deleted key is set) and return Kafka's
    closing line ("Completed updating config for user alice.").

    Raises:
        ValueError: "Invalid config(s): k" for a deleted quota that is not set.
    """
    if plan.scram:
        await admin.alter_user_scram_credentials(list(plan.scram))
    else:
        current = await admin.describe_client_quotas(quota_filter(entity))
        old = next(iter(current.values()), {})
        missing = [op.key for op in plan.quota_ops if op.value is None and op.key not in old]
        if missing:
            raise ValueError(f"Invalid config(s): {','.join(missing)}")
        await admin.alter_client_quotas([ClientQuotaAlteration(quota_entity_map(entity), plan.quota_ops)])
    head_type, head_name = entity.entity_types[0], entity.entity_names[0]
    if head_name:
        return f"Completed updating config for {head_type[:-1]} {head_name}."
    return f"Completed updating default config for {head_type} in the cluster."
