"""Kafka's ACL model: resource patterns, access control entries, bindings and their filters.

Owns: the four enums with Kafka's wire codes (``ResourceType``, ``PatternType``,
``AclOperation``, ``AclPermissionType``), the operations each resource type supports
(``SUPPORTED_OPERATIONS``), the CLUSTER resource's one name (``CLUSTER_NAME``),
``KafkaPrincipal`` and its text form (``User:alice``), ``ResourcePattern`` /
``AccessControlEntry`` / ``AclBinding``, the filters DescribeAcls and DeleteAcls carry
(``ResourcePatternFilter``, ``AccessControlEntryFilter``, ``AclBindingFilter``) with
Kafka's ``matches`` and ``find_indefinite_field``, and the checks CreateAcls and
DeleteAcls apply (``validate_new_acl``, ``validate_filter``).  Pure: no I/O.
Does not own where ACLs are kept or how they authorize (``standard_authorizer``).

Kafka concept: ``org.apache.kafka.common.acl.*``, ``org.apache.kafka.common.resource.*``,
``KafkaPrincipal``, ``SecurityUtils.parseKafkaPrincipal``, ``AclControlManager.validateNewAcl``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

WILDCARD_RESOURCE = "*"
"""A LITERAL resource name matching every resource of its type (``ResourcePattern.WILDCARD_RESOURCE``)."""

WILDCARD_HOST = "*"
"""An ACL host matching every client host (``AclEntry.WILDCARD_HOST``)."""

WILDCARD_PRINCIPAL = "User:*"
"""An ACL principal matching every user (``AclEntry.WILDCARD_PRINCIPAL_STRING``)."""


class InvalidRequestException(ValueError):
    """A CreateAcls / DeleteAcls entry Kafka refuses with INVALID_REQUEST (error code 42)."""


class _CodedEnum(enum.IntEnum):
    """An enum whose value is Kafka's wire code; unknown codes decode to ``UNKNOWN``."""

    @classmethod
    def from_code(cls, code: int):
        """Kafka's ``fromCode``: the member for ``code`` (an int8), ``UNKNOWN`` if none."""
        try:
            return cls(code)
        except ValueError:
            return cls(0)

    @classmethod
    def from_string(cls, name: str):
        """Kafka's ``fromString``: the member named ``name`` (case-insensitive), else ``UNKNOWN``."""
        try:
            return cls[name.upper()]
        except KeyError:
            return cls(0)

    @property
    def is_unknown(self) -> bool:
        return self.value == 0

    def __str__(self) -> str:
        return self.name


class ResourceType(_CodedEnum):
    """Kafka's ``ResourceType`` with its codes."""

    UNKNOWN = 0
    ANY = 1
    TOPIC = 2
    GROUP = 3
    CLUSTER = 4
    TRANSACTIONAL_ID = 5
    DELEGATION_TOKEN = 6
    USER = 7


class PatternType(_CodedEnum):
    """Kafka's ``PatternType``: ANY and MATCH exist only in filters."""

    UNKNOWN = 0
    ANY = 1
    MATCH = 2
    LITERAL = 3
    PREFIXED = 4

    @property
    def is_specific(self) -> bool:
        """True for the types a stored ACL may have (LITERAL, PREFIXED)."""
        return self in (PatternType.LITERAL, PatternType.PREFIXED)


class AclOperation(_CodedEnum):
    """Kafka's ``AclOperation`` with its codes (TWO_PHASE_COMMIT is in Kafka 4.x)."""

    UNKNOWN = 0
    ANY = 1
    ALL = 2
    READ = 3
    WRITE = 4
    CREATE = 5
    DELETE = 6
    ALTER = 7
    DESCRIBE = 8
    CLUSTER_ACTION = 9
    DESCRIBE_CONFIGS = 10
    ALTER_CONFIGS = 11
    IDEMPOTENT_WRITE = 12
    CREATE_TOKENS = 13
    DESCRIBE_TOKENS = 14
    TWO_PHASE_COMMIT = 15


class AclPermissionType(_CodedEnum):
    """Kafka's ``AclPermissionType``."""

    UNKNOWN = 0
    ANY = 1
    DENY = 2
    ALLOW = 3


@dataclass(frozen=True)
class KafkaPrincipal:
    """An authenticated identity: ``principal_type`` (``User``) and ``name`` (``alice``)."""

    principal_type: str
    name: str

    USER_TYPE = "User"

    def __str__(self) -> str:
        return f"{self.principal_type}:{self.name}"

    @classmethod
    def parse(cls, text: str | None) -> KafkaPrincipal:
        """Kafka's ``SecurityUtils.parseKafkaPrincipal``: ``"User:alice"`` -> principal.

        Splits at the first colon, so the name may itself hold colons.

        Raises:
            ValueError: ``text`` is empty or has no colon (Kafka's message).
        """
        if not text or ":" not in text:
            raise ValueError(f"expected a string in format principalType:principalName but got {text}")
        principal_type, name = text.split(":", 1)
        return cls(principal_type, name)


@dataclass(frozen=True)
class ResourcePattern:
    """A resource pattern of a stored ACL: type, name (may be ``*``) and pattern type.

    Kafka refuses ANY and MATCH here (``ResourcePattern``'s constructor); UNKNOWN may be
    decoded from a newer peer and is reported by ``is_unknown``.
    """

    resource_type: ResourceType
    name: str
    pattern_type: PatternType

    def __post_init__(self) -> None:
        if self.resource_type is ResourceType.ANY:
            raise ValueError("resourceType must not be ANY")
        if self.pattern_type in (PatternType.ANY, PatternType.MATCH):
            raise ValueError(f"patternType must not be {self.pattern_type}")
        if self.name is None:
            raise ValueError("name must not be null")

    @property
    def is_unknown(self) -> bool:
        return self.resource_type.is_unknown or self.pattern_type.is_unknown

    def to_filter(self) -> ResourcePatternFilter:
        """The filter matching exactly this pattern."""
        return ResourcePatternFilter(self.resource_type, self.name, self.pattern_type)


@dataclass(frozen=True)
class AccessControlEntry:
    """Who (principal text, e.g. ``User:alice``) from where (host or ``*``) may or may not
    (permission type) do what (operation).  ANY is refused, as in Kafka."""

    principal: str
    host: str
    operation: AclOperation
    permission_type: AclPermissionType

    def __post_init__(self) -> None:
        if self.principal is None or self.host is None:
            raise ValueError("principal and host must not be null")
        if self.operation is AclOperation.ANY:
            raise ValueError("operation must not be ANY")
        if self.permission_type is AclPermissionType.ANY:
            raise ValueError("permissionType must not be ANY")

    @property
    def is_unknown(self) -> bool:
        return self.operation.is_unknown or self.permission_type.is_unknown

    def to_filter(self) -> AccessControlEntryFilter:
        return AccessControlEntryFilter(self.principal, self.host, self.operation, self.permission_type)


@dataclass(frozen=True)
class AclBinding:
    """One ACL: a resource pattern bound to an access control entry (Kafka's ``AclBinding``)."""

    pattern: ResourcePattern
    entry: AccessControlEntry

    @property
    def is_unknown(self) -> bool:
        return self.pattern.is_unknown or self.entry.is_unknown

    def to_filter(self) -> AclBindingFilter:
        return AclBindingFilter(self.pattern.to_filter(), self.entry.to_filter())


@dataclass(frozen=True)
class ResourcePatternFilter:
    """Selects resource patterns; ``name=None`` and ANY types match anything.

    ``pattern_type=MATCH`` with a name selects every stored pattern that would apply to a
    resource of that name: the literal name, the literal wildcard ``*`` and every prefix.
    """

    resource_type: ResourceType
    name: str | None
    pattern_type: PatternType

    @property
    def is_unknown(self) -> bool:
        return self.resource_type.is_unknown or self.pattern_type.is_unknown

    def matches(self, pattern: ResourcePattern) -> bool:
        """Kafka's ``ResourcePatternFilter.matches``.

        Raises:
            ValueError: MATCH against a stored pattern whose type is not LITERAL/PREFIXED.
        """
        if self.resource_type is not ResourceType.ANY and self.resource_type is not pattern.resource_type:
            return False
        if self.pattern_type not in (PatternType.ANY, PatternType.MATCH) and (
            self.pattern_type is not pattern.pattern_type
        ):
            return False
        if self.name is None:
            return True
        if self.pattern_type is PatternType.ANY or self.pattern_type is pattern.pattern_type:
            return self.name == pattern.name
        if pattern.pattern_type is PatternType.LITERAL:
            return self.name == pattern.name or pattern.name == WILDCARD_RESOURCE
        if pattern.pattern_type is PatternType.PREFIXED:
            return self.name.startswith(pattern.name)
        raise ValueError(f"Unsupported PatternType: {pattern.pattern_type}")

    def matches_at_most_one(self) -> bool:
        return self.find_indefinite_field() is None

    def find_indefinite_field(self) -> str | None:
        """Kafka's text for the first ANY/UNKNOWN/NULL/MATCH field, or None if definite."""
        if self.resource_type is ResourceType.ANY:
            return "Resource type is ANY."
        if self.resource_type is ResourceType.UNKNOWN:
            return "Resource type is UNKNOWN."
        if self.name is None:
            return "Resource name is NULL."
        if self.pattern_type is PatternType.MATCH:
            return "Resource pattern type is MATCH."
        if self.pattern_type is PatternType.UNKNOWN:
            return "Resource pattern type is UNKNOWN."
        return None


ResourcePatternFilter.ANY = ResourcePatternFilter(ResourceType.ANY, None, PatternType.ANY)  # type: ignore[attr-defined]


@dataclass(frozen=True)
class AccessControlEntryFilter:
    """Selects access control entries; ``None`` principal/host and ANY enums match anything."""

    principal: str | None
    host: str | None
    operation: AclOperation
    permission_type: AclPermissionType

    @property
    def is_unknown(self) -> bool:
        return self.operation.is_unknown or self.permission_type.is_unknown

    def matches(self, entry: AccessControlEntry) -> bool:
        """Kafka's ``AccessControlEntryFilter.matches`` (exact comparison, no wildcard expansion)."""
        if self.principal is not None and self.principal != entry.principal:
            return False
        if self.host is not None and self.host != entry.host:
            return False
        if self.operation is not AclOperation.ANY and self.operation is not entry.operation:
            return False
        return self.permission_type is AclPermissionType.ANY or (
            self.permission_type is entry.permission_type
        )

    def matches_at_most_one(self) -> bool:
        return self.find_indefinite_field() is None

    def find_indefinite_field(self) -> str | None:
        """Kafka's text for the first NULL/ANY/UNKNOWN field, or None if definite."""
        if self.principal is None:
            return "Principal is NULL"
        if self.host is None:
            return "Host is NULL"
        if self.operation is AclOperation.ANY:
            return "Operation is ANY"
        if self.operation is AclOperation.UNKNOWN:
            return "Operation is UNKNOWN"
        if self.permission_type is AclPermissionType.ANY:
            return "Permission type is ANY"
        if self.permission_type is AclPermissionType.UNKNOWN:
            return "Permission type is UNKNOWN"
        return None


AccessControlEntryFilter.ANY = AccessControlEntryFilter(  # type: ignore[attr-defined]
    None, None, AclOperation.ANY, AclPermissionType.ANY
)


@dataclass(frozen=True)
class AclBindingFilter:
    """A DescribeAcls / DeleteAcls filter: both halves must match (Kafka's ``AclBindingFilter``)."""

    pattern_filter: ResourcePatternFilter
    entry_filter: AccessControlEntryFilter

    @property
    def is_unknown(self) -> bool:
        return self.pattern_filter.is_unknown or self.entry_filter.is_unknown

    def matches(self, binding: AclBinding) -> bool:
        return self.pattern_filter.matches(binding.pattern) and self.entry_filter.matches(binding.entry)

    def matches_at_most_one(self) -> bool:
        return self.find_indefinite_field() is None

    def find_indefinite_field(self) -> str | None:
        return self.pattern_filter.find_indefinite_field() or self.entry_filter.find_indefinite_field()


AclBindingFilter.ANY = AclBindingFilter(ResourcePatternFilter.ANY, AccessControlEntryFilter.ANY)  # type: ignore[attr-defined]


def validate_new_acl(binding: AclBinding) -> None:
    """What CreateAcls refuses, in Kafka's order and words (``AclControlManager.validateNewAcl``).

    Raises:
        InvalidRequestException: UNKNOWN resource type; pattern type not LITERAL/PREFIXED;
            UNKNOWN operation; permission type not ALLOW/DENY; empty resource name; a
            principal without a colon.
    """
    pattern, entry = binding.pattern, binding.entry
    if pattern.resource_type in (ResourceType.UNKNOWN, ResourceType.ANY):
        raise InvalidRequestException(f"Invalid resourceType {pattern.resource_type}")
    if not pattern.pattern_type.is_specific:
        raise InvalidRequestException(f"Invalid patternType {pattern.pattern_type}")
    if entry.operation in (AclOperation.UNKNOWN, AclOperation.ANY):
        raise InvalidRequestException(f"Invalid operation {entry.operation}")
    if entry.permission_type not in (AclPermissionType.DENY, AclPermissionType.ALLOW):
        raise InvalidRequestException(f"Invalid permissionType {entry.permission_type}")
    if not pattern.name:
        raise InvalidRequestException("Resource name should not be empty")
    if ":" not in entry.principal:
        raise InvalidRequestException(
            f"Could not parse principal from `{entry.principal}` "
            "(no colon is present separating the principal type from the principal name)"
        )


def validate_filter(acl_filter: AclBindingFilter) -> None:
    """What DeleteAcls refuses (``AclControlManager.validateFilter``).

    Raises:
        InvalidRequestException: an UNKNOWN field in the pattern or the entry filter.
    """
    if acl_filter.pattern_filter.is_unknown:
        raise InvalidRequestException("Unknown patternFilter.")
    if acl_filter.entry_filter.is_unknown:
        raise InvalidRequestException("Unknown entryFilter.")


CLUSTER_NAME = "kafka-cluster"
"""The one CLUSTER resource's name (Kafka's ``Resource.CLUSTER_NAME``)."""

SUPPORTED_OPERATIONS: dict[ResourceType, tuple[AclOperation, ...]] = {
    ResourceType.TOPIC: (
        AclOperation.READ,
        AclOperation.WRITE,
        AclOperation.CREATE,
        AclOperation.DESCRIBE,
        AclOperation.DELETE,
        AclOperation.ALTER,
        AclOperation.DESCRIBE_CONFIGS,
        AclOperation.ALTER_CONFIGS,
    ),
    ResourceType.GROUP: (
        AclOperation.READ,
        AclOperation.DESCRIBE,
        AclOperation.DELETE,
        AclOperation.DESCRIBE_CONFIGS,
        AclOperation.ALTER_CONFIGS,
    ),
    ResourceType.CLUSTER: (
        AclOperation.CREATE,
        AclOperation.CLUSTER_ACTION,
        AclOperation.DESCRIBE_CONFIGS,
        AclOperation.ALTER_CONFIGS,
        AclOperation.IDEMPOTENT_WRITE,
        AclOperation.ALTER,
        AclOperation.DESCRIBE,
    ),
    ResourceType.TRANSACTIONAL_ID: (AclOperation.DESCRIBE, AclOperation.WRITE, AclOperation.TWO_PHASE_COMMIT),
    ResourceType.DELEGATION_TOKEN: (AclOperation.DESCRIBE,),
    ResourceType.USER: (AclOperation.CREATE_TOKENS, AclOperation.DESCRIBE_TOKENS),
}
"""The operations ACLs can grant per resource type (Kafka's ``AclEntry.supportedOperations``)."""
