"""What ``kafkette acls`` makes of kafka-acls.sh's flags, and how it prints ACLs: pure, no I/O.

Owns: the resource pattern filters the resource flags name (``--topic``, ``--group``,
``--cluster``, ``--transactional-id`` with ``--resource-pattern-type``), the access control
entries the principal, host and operation flags make, the ``--producer`` / ``--consumer``
convenience sets, the checks of AclCommand's option parser and of its ``validateOperation``, and
Kafka's ``toString`` of a resource pattern (filter), an entry and a binding.  Does not own the
command nor the calls (``kafkette.client.cli.acls``).

Kafka concept: ``org.apache.kafka.tools.AclCommand`` (``getResourceFilter``,
``getProducerResourceFilterToAcls``, ``getConsumerResourceFilterToAcls``, ``getAcl``,
``validateOperation``, ``AclCommandOptions.checkArgs``), ``SecurityUtils.operation``,
``AclEntry.supportedOperations``.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafkette.common.security.acl import (
    CLUSTER_NAME,
    SUPPORTED_OPERATIONS,
    WILDCARD_HOST,
    AccessControlEntry,
    AclBinding,
    AclOperation,
    AclPermissionType,
    KafkaPrincipal,
    PatternType,
    ResourcePattern,
    ResourcePatternFilter,
    ResourceType,
)

CLUSTER_RESOURCE_FILTER = ResourcePatternFilter(ResourceType.CLUSTER, CLUSTER_NAME, PatternType.LITERAL)

PRODUCER_TOPIC_OPERATIONS = (AclOperation.WRITE, AclOperation.DESCRIBE, AclOperation.CREATE)
"""``--producer`` on each topic (AclCommand: Write, Describe, Create)."""
PRODUCER_TRANSACTIONAL_ID_OPERATIONS = (AclOperation.WRITE, AclOperation.DESCRIBE)
"""``--producer`` on each transactional id (AclCommand: Write, Describe)."""
CONSUMER_TOPIC_OPERATIONS = (AclOperation.READ, AclOperation.DESCRIBE)
"""``--consumer`` on each topic (AclCommand: Read, Describe)."""
CONSUMER_GROUP_OPERATIONS = (AclOperation.READ,)
"""``--consumer`` on each group (AclCommand: Read)."""

PATTERN_TYPES = ("literal", "prefixed", "match", "any")
"""``--resource-pattern-type`` values (Kafka's PatternType names but UNKNOWN, any case)."""


class AclCommandError(ValueError):
    """A combination of flags kafka-acls.sh refuses (the message is Kafka's where it has one)."""


def pascal_case(name: str) -> str:
    """Kafka's ``SecurityUtils.toPascalCase``: ``DESCRIBE_CONFIGS`` -> ``DescribeConfigs``."""
    return "".join(part.capitalize() for part in name.split("_"))


def parse_operation(name: str) -> AclOperation:
    """Kafka's ``SecurityUtils.operation``: ``Read``, ``READ``, ``DescribeConfigs`` or
    ``DESCRIBECONFIGS``.

    Raises:
        AclCommandError: any other name (UNKNOWN and ANY are no operation to grant).
    """
    by_name = {
        pascal_case(op.name): op for op in AclOperation if op not in (AclOperation.UNKNOWN, AclOperation.ANY)
    }
    text = name.strip()
    operation = by_name.get(text) or {k.upper(): v for k, v in by_name.items()}.get(text.upper())
    if operation is None:
        raise AclCommandError(f"Unknown operation {text!r}; valid operations are: {', '.join(by_name)}")
    return operation


def parse_pattern_type(text: str) -> PatternType:
    """``--resource-pattern-type``'s value (any case).

    Raises:
        AclCommandError: "Unknown resource-pattern-type: <text>" (Kafka's message).
    """
    if text.lower() not in PATTERN_TYPES:
        raise AclCommandError(f"Unknown resource-pattern-type: {text}")
    return PatternType[text.upper()]


def parse_principal(text: str) -> str:
    """A principal flag's ``User:alice`` (trimmed), in Kafka's ``KafkaPrincipal`` text form.

    Raises:
        AclCommandError: no colon (Kafka's ``parseKafkaPrincipal`` message).
    """
    try:
        return str(KafkaPrincipal.parse(text.strip()))
    except ValueError as exc:
        raise AclCommandError(str(exc)) from None


@dataclass(frozen=True)
class AclFlags:
    """kafka-acls.sh's flags, as given (tuples keep the command line's order)."""

    topics: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    transactional_ids: tuple[str, ...] = ()
    cluster: bool = False
    pattern_type: PatternType = PatternType.LITERAL
    allow_principals: tuple[str, ...] = ()
    deny_principals: tuple[str, ...] = ()
    allow_hosts: tuple[str, ...] = ()
    deny_hosts: tuple[str, ...] = ()
    operations: tuple[str, ...] = ()
    producer: bool = False
    consumer: bool = False
    idempotent: bool = False


def check_flags(action: str, flags: AclFlags, list_principals: tuple[str, ...]) -> None:
    """AclCommandOptions' ``checkArgs`` for one action (``add``, ``remove`` or ``list``).

    Raises:
        AclCommandError: Kafka's message for the first combination it refuses.
    """
    if action == "list":
        for flag, given in (
            ("--producer", flags.producer),
            ("--consumer", flags.consumer),
            ("--allow-host", flags.allow_hosts),
            ("--allow-principal", flags.allow_principals),
            ("--deny-host", flags.deny_hosts),
            ("--deny-principal", flags.deny_principals),
        ):
            if given:
                raise AclCommandError(f'Option "--list" can\'t be used with option "{flag}"')
    for role, given in (("--producer", flags.producer), ("--consumer", flags.consumer)):
        if not given:
            continue
        for flag, other in (
            ("--operation", flags.operations),
            ("--deny-principal", flags.deny_principals),
            ("--deny-host", flags.deny_hosts),
        ):
            if other:
                raise AclCommandError(f'Option "{role}" can\'t be used with option "{flag}"')
    if list_principals and action != "list":
        raise AclCommandError("The --principal option is only available if --list is set")
    if flags.producer and not flags.topics:
        raise AclCommandError("With --producer you must specify a --topic")
    if flags.idempotent and not flags.producer:
        raise AclCommandError("The --idempotent option is only available if --producer is set")
    if flags.consumer and (
        not flags.topics
        or not flags.groups
        or (not flags.producer and (flags.cluster or flags.transactional_ids))
    ):
        raise AclCommandError(
            "With --consumer you must specify a --topic and a --group and no --cluster or "
            "--transactional-id option should be specified."
        )


def resource_filters(flags: AclFlags, *, required: bool) -> list[ResourcePatternFilter]:
    """AclCommand's ``getResourceFilter``: one filter per resource named, in Kafka's order
    (topics, the cluster, groups, transactional ids).

    Raises:
        AclCommandError: none named when ``required`` (Kafka's message).
    """
    pattern_type = flags.pattern_type
    filters = [ResourcePatternFilter(ResourceType.TOPIC, t.strip(), pattern_type) for t in flags.topics]
    if pattern_type is PatternType.LITERAL and (flags.cluster or flags.idempotent):
        filters.append(CLUSTER_RESOURCE_FILTER)
    filters += [ResourcePatternFilter(ResourceType.GROUP, g.strip(), pattern_type) for g in flags.groups]
    filters += [
        ResourcePatternFilter(ResourceType.TRANSACTIONAL_ID, t, pattern_type) for t in flags.transactional_ids
    ]
    if not filters and required:
        raise AclCommandError(
            "You must provide at least one resource: --topic <topic> or --cluster or --group <group> or "
            "--delegation-token <Delegation Token ID>"
        )
    return list(dict.fromkeys(filters))


def _entries(flags: AclFlags, operations: tuple[AclOperation, ...]) -> list[AccessControlEntry]:
    """AclCommand's ``getAcl``: every (principal, host, operation) for ALLOW and DENY; a principal
    flag without its host flag means every host (``*``)."""
    entries: list[AccessControlEntry] = []
    for principals, hosts, permission in (
        (flags.allow_principals, flags.allow_hosts, AclPermissionType.ALLOW),
        (flags.deny_principals, flags.deny_hosts, AclPermissionType.DENY),
    ):
        hosts_or_any = tuple(h.strip() for h in hosts) or ((WILDCARD_HOST,) if principals else ())
        for principal in principals:
            for operation in operations:
                for host in hosts_or_any:
                    entries.append(
                        AccessControlEntry(parse_principal(principal), host, operation, permission)
                    )
    return list(dict.fromkeys(entries))


def filter_to_entries(flags: AclFlags) -> dict[ResourcePatternFilter, list[AccessControlEntry]]:
    """AclCommand's ``getResourceFilterToAcls``: each resource filter with the entries to add or
    remove there (``--producer`` / ``--consumer`` sets, else ``--operation``, default All).

    Raises:
        AclCommandError: no resource, an unknown operation, or an operation the resource type
            does not support (Kafka's ``validateOperation`` message).
    """
    filters = resource_filters(flags, required=True)
    out: dict[ResourcePatternFilter, list[AccessControlEntry]] = {}
    if not flags.producer and not flags.consumer:
        operations = tuple(dict.fromkeys(parse_operation(op) for op in flags.operations or ("All",)))
        out = {f: _entries(flags, operations) for f in filters}
    if flags.producer:
        for f in filters:
            if f.resource_type is ResourceType.TOPIC:
                out[f] = _entries(flags, PRODUCER_TOPIC_OPERATIONS)
            elif f.resource_type is ResourceType.TRANSACTIONAL_ID:
                out[f] = _entries(flags, PRODUCER_TRANSACTIONAL_ID_OPERATIONS)
        if flags.idempotent:
            out[CLUSTER_RESOURCE_FILTER] = _entries(flags, (AclOperation.IDEMPOTENT_WRITE,))
    if flags.consumer:
        for f in filters:
            operations = {
                ResourceType.TOPIC: CONSUMER_TOPIC_OPERATIONS,
                ResourceType.GROUP: CONSUMER_GROUP_OPERATIONS,
            }
            if f.resource_type in operations:
                out[f] = list(dict.fromkeys(out.get(f, []) + _entries(flags, operations[f.resource_type])))
    for f, entries in out.items():
        valid = {*SUPPORTED_OPERATIONS[f.resource_type], AclOperation.ALL}
        if any(e.operation not in valid for e in entries):
            names = ", ".join(sorted(op.name for op in valid))
            raise AclCommandError(f"ResourceType {f.resource_type.name} only supports operations {names}")
    return out


def pattern_to_entries(flags: AclFlags) -> dict[ResourcePattern, list[AccessControlEntry]]:
    """AclCommand's ``getResourceToAcls`` for ``--add``: the patterns and the entries to create.

    Raises:
        AclCommandError: a pattern type that is not LITERAL/PREFIXED, or no principal (Kafka's
            messages), or what ``filter_to_entries`` refuses.
    """
    if not flags.pattern_type.is_specific:
        raise AclCommandError(
            f"A '--resource-pattern-type' value of '{flags.pattern_type.name}' is not valid when adding acls."
        )
    out = {
        ResourcePattern(f.resource_type, f.name or "", f.pattern_type): e
        for f, e in filter_to_entries(flags).items()
    }
    if any(not entries for entries in out.values()):
        raise AclCommandError(
            "You must specify one of: --allow-principal, --deny-principal when trying to add ACLs."
        )
    return out


def pattern_text(pattern: ResourcePattern | ResourcePatternFilter) -> str:
    """Kafka's ``ResourcePattern.toString`` (a filter's null name prints ``<any>``):
    ``ResourcePattern(resourceType=TOPIC, name=t, patternType=LITERAL)``."""
    name = "<any>" if pattern.name is None else pattern.name
    return (
        f"ResourcePattern(resourceType={pattern.resource_type.name}, name={name}, "
        f"patternType={pattern.pattern_type.name})"
    )


def entry_text(entry: AccessControlEntry) -> str:
    """Kafka's ``AccessControlEntry.toString``:
    ``(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)``."""
    return (
        f"(principal={entry.principal}, host={entry.host}, operation={entry.operation.name}, "
        f"permissionType={entry.permission_type.name})"
    )


def binding_text(binding: AclBinding) -> str:
    """Kafka's ``AclBinding.toString``: ``(pattern=ResourcePattern(...), entry=(...))``."""
    return f"(pattern={pattern_text(binding.pattern)}, entry={entry_text(binding.entry)})"


def entries_block(entries: list[AccessControlEntry]) -> str:
    """The lines AclCommand prints under a heading: one ``\\t(principal=...)`` per entry."""
    return "\n".join(f"\t{entry_text(e)}" for e in entries)


def group_by_pattern(bindings: list[AclBinding]) -> dict[ResourcePattern, list[AccessControlEntry]]:
    """Bindings as AclCommand's ``getAcls`` groups them: pattern -> its distinct entries, patterns
    in the order first seen, entries sorted (Kafka's order is a Java HashSet's)."""
    out: dict[ResourcePattern, list[AccessControlEntry]] = {}
    for binding in bindings:
        out.setdefault(binding.pattern, [])
        if binding.entry not in out[binding.pattern]:
            out[binding.pattern].append(binding.entry)
    return {
        p: sorted(e, key=lambda x: (x.principal, x.host, int(x.operation), int(x.permission_type)))
        for p, e in out.items()
    }
