"""Kafka's StandardAuthorizer: the ACLs of the metadata log, indexed, and the decision they give.

Owns: the authorizer configs (``authorizer.class.name``, ``super.users``,
``allow.everyone.if.no.acl.found``), the ACL store keyed by id (as AccessControlEntryRecord /
RemoveAccessControlEntryRecord carry it), its index by (resource type, name) for LITERAL and
PREFIXED patterns, ``authorize`` and filter matching for DescribeAcls / DeleteAcls.  Pure: no
I/O, no locks (callers mutate it from one task).  Does not own the records or the requests.

The decision for (principal, host, operation, resource type, resource name):
  1. a super user is ALLOWED;
  2. the ACLs applying to the resource are the LITERAL ones with its name, the LITERAL ``*``
     ones of its type and the PREFIXED ones whose name begins it;
  3. of those, an ACL counts when its principal is the caller's or ``User:*``, its host the
     caller's or ``*``, and its operation ALL, the asked one, or (ALLOW only) one implying it:
     READ/WRITE/DELETE/ALTER imply DESCRIBE, ALTER_CONFIGS implies DESCRIBE_CONFIGS;
  4. any counting DENY gives DENIED, else any counting ALLOW gives ALLOWED;
  5. if no ACL applies to the resource at all, ``allow.everyone.if.no.acl.found`` decides.

Kafka concept: ``StandardAuthorizer``, ``StandardAuthorizerData``, ``StandardAcl``,
``StandardAclWithId`` (KIP-801).
"""

from __future__ import annotations

import enum
from collections.abc import Hashable, Iterator, Mapping
from dataclasses import dataclass

from kafkette.common.security.acl import (
    WILDCARD_HOST,
    WILDCARD_PRINCIPAL,
    WILDCARD_RESOURCE,
    AccessControlEntry,
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    KafkaPrincipal,
    PatternType,
    ResourcePattern,
    ResourceType,
)

AUTHORIZER_CLASS_NAME_CONFIG = "authorizer.class.name"
SUPER_USERS_CONFIG = "super.users"
ALLOW_EVERYONE_IF_NO_ACL_IS_FOUND_CONFIG = "allow.everyone.if.no.acl.found"
STANDARD_AUTHORIZER_CLASS_NAME = "org.apache.kafka.metadata.authorizer.StandardAuthorizer"


_IMPLIES_DESCRIBE = frozenset(
    {
        AclOperation.DESCRIBE,
        AclOperation.READ,
        AclOperation.WRITE,
        AclOperation.DELETE,
        AclOperation.ALTER,
    }
)
_IMPLIES_DESCRIBE_CONFIGS = frozenset({AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS})


class AuthorizationResult(enum.Enum):
    """Kafka's ``AuthorizationResult``."""

    ALLOWED = "ALLOWED"
    DENIED = "DENIED"


@dataclass(frozen=True)
class MatchingRule:
    """What decided an authorization (Kafka's ``StandardAuthorizerData.MatchingRule``).

    Attributes:
        result: ALLOWED or DENIED.
        label: ``SuperUser``, ``DefaultAllow`` or ``DefaultDeny``; ``MatchingAcl`` for an ACL's.
        acl: the ACL that decided, None for the other rules.
    """

    result: AuthorizationResult
    label: str
    acl: StandardAcl | None = None

    @property
    def description(self) -> str:
        """Kafka's text of the rule (``SuperUser`` ... or ``MatchingAcl(acl=StandardAcl[...])``),
        built only when the audit log writes it."""
        return f"MatchingAcl(acl={self.acl.describe()})" if self.acl is not None else self.label


SUPER_USER_RULE = MatchingRule(AuthorizationResult.ALLOWED, "SuperUser")
DEFAULT_ALLOW_RULE = MatchingRule(AuthorizationResult.ALLOWED, "DefaultAllow")
DEFAULT_DENY_RULE = MatchingRule(AuthorizationResult.DENIED, "DefaultDeny")


@dataclass(frozen=True)
class StandardAcl:
    """One stored ACL, flattened as AccessControlEntryRecord carries it (Kafka's ``StandardAcl``).

    ``principal`` is the text form (``User:alice``), compared as text when authorizing.
    """

    resource_type: ResourceType
    resource_name: str
    pattern_type: PatternType
    principal: str
    host: str
    operation: AclOperation
    permission_type: AclPermissionType

    def describe(self) -> str:
        """Kafka's text of the ACL (its ``StandardAcl`` record's ``toString``)."""
        return (
            f"StandardAcl[resourceType={self.resource_type.name}, resourceName={self.resource_name}, "
            f"patternType={self.pattern_type.name}, principal={self.principal}, host={self.host}, "
            f"operation={self.operation.name}, permissionType={self.permission_type.name}]"
        )

    @classmethod
    def from_acl_binding(cls, binding: AclBinding) -> StandardAcl:
        pattern, entry = binding.pattern, binding.entry
        return cls(
            pattern.resource_type,
            pattern.name,
            pattern.pattern_type,
            entry.principal,
            entry.host,
            entry.operation,
            entry.permission_type,
        )

    def to_binding(self) -> AclBinding:
        return AclBinding(
            ResourcePattern(self.resource_type, self.resource_name, self.pattern_type),
            AccessControlEntry(self.principal, self.host, self.operation, self.permission_type),
        )


@dataclass(frozen=True)
class StandardAuthorizerConfig:
    """The authorizer's settings, parsed from broker/controller properties.

    ``super_users`` holds principal texts (``User:admin``); ``allow_everyone_if_no_acl_found``
    defaults to False.
    """

    super_users: frozenset[str] = frozenset()
    allow_everyone_if_no_acl_found: bool = False

    @classmethod
    def from_properties(cls, props: Mapping[str, str]) -> StandardAuthorizerConfig | None:
        """Parse ``authorizer.class.name``, ``super.users``, ``allow.everyone.if.no.acl.found``.

        Returns:
            None when ``authorizer.class.name`` is unset or empty (no authorization), else the
            config.
        Raises:
            ValueError: an authorizer class other than StandardAuthorizer (the message names
                ``authorizer.class.name``), or a super user that is not ``Type:name``.
        """
        class_name = (props.get(AUTHORIZER_CLASS_NAME_CONFIG) or "").strip()
        if not class_name:
            return None
        if class_name != STANDARD_AUTHORIZER_CLASS_NAME:
            raise ValueError(
                f"Invalid value {class_name} for configuration {AUTHORIZER_CLASS_NAME_CONFIG}: "
                f"only {STANDARD_AUTHORIZER_CLASS_NAME} is supported"
            )
        super_users = set()
        for value in (props.get(SUPER_USERS_CONFIG) or "").split(";"):
            value = value.strip()
            if value:
                KafkaPrincipal.parse(value)
                super_users.add(value)
        allow = (props.get(ALLOW_EVERYONE_IF_NO_ACL_IS_FOUND_CONFIG) or "").strip().lower()
        return cls(frozenset(super_users), allow == "true")


class StandardAuthorizerData:
    """The ACLs by id plus an index for ``authorize``.

    Index: ``(resource_type, pattern_type, resource_name) -> {id: StandardAcl}``.  A lookup
    costs one dict probe for the literal name, one for ``*`` and one per prefix of the name
    (names are at most 249 characters), whatever the number of ACLs.
    Invariant: every ACL in ``_by_id`` is in exactly one index bucket, and no bucket is empty.
    """

    def __init__(self, config: StandardAuthorizerConfig | None = None) -> None:
        self.config = config or StandardAuthorizerConfig()
        self._by_id: dict[Hashable, StandardAcl] = {}
        self._index: dict[tuple[ResourceType, PatternType, str], dict[Hashable, StandardAcl]] = {}

    def __len__(self) -> int:
        return len(self._by_id)

    def add_acl(self, acl_id: Hashable, acl: StandardAcl) -> None:
        """Replay AccessControlEntryRecord: store ``acl`` under ``acl_id`` (Kafka's Uuid).

        Raises:
            ValueError: ``acl_id`` is already present.
        """
        if acl_id in self._by_id:
            raise ValueError(f"An ACL with id {acl_id} already exists")
        self._by_id[acl_id] = acl
        key = (acl.resource_type, acl.pattern_type, acl.resource_name)
        self._index.setdefault(key, {})[acl_id] = acl

    def remove_acl(self, acl_id: Hashable) -> StandardAcl:
        """Replay RemoveAccessControlEntryRecord: drop and return the ACL ``acl_id``.

        Raises:
            KeyError: no ACL has that id.
        """
        acl = self._by_id.pop(acl_id, None)
        if acl is None:
            raise KeyError(f"No ACL with id {acl_id} found")
        key = (acl.resource_type, acl.pattern_type, acl.resource_name)
        bucket = self._index[key]
        del bucket[acl_id]
        if not bucket:
            del self._index[key]
        return acl

    def get(self, acl_id: Hashable) -> StandardAcl | None:
        return self._by_id.get(acl_id)

    def acls(self, acl_filter: AclBindingFilter) -> Iterator[tuple[Hashable, AclBinding]]:
        """DescribeAcls / DeleteAcls: ``(id, binding)`` of every stored ACL the filter matches."""
        for acl_id, acl in self._by_id.items():
            binding = acl.to_binding()
            if acl_filter.matches(binding):
                yield acl_id, binding

    def _applicable(self, resource_type: ResourceType, resource_name: str) -> Iterator[StandardAcl]:
        index = self._index
        keys = [(resource_type, PatternType.LITERAL, resource_name)]
        if resource_name != WILDCARD_RESOURCE:
            keys.append((resource_type, PatternType.LITERAL, WILDCARD_RESOURCE))
        keys.extend(
            (resource_type, PatternType.PREFIXED, resource_name[:length])
            for length in range(1, len(resource_name) + 1)
        )
        for key in keys:
            bucket = index.get(key)
            if bucket:
                yield from bucket.values()

    def authorize(
        self,
        principal: KafkaPrincipal,
        host: str,
        operation: AclOperation,
        resource_type: ResourceType,
        resource_name: str,
    ) -> AuthorizationResult:
        """Kafka's ``StandardAuthorizerData.authorize`` for one action.

        Args:
            principal: the authenticated caller.
            host: the client's address as text (``127.0.0.1``).
            operation: a specific operation (not ANY/ALL).
            resource_type: a specific type (TOPIC, GROUP, CLUSTER, ...).
            resource_name: the resource (``kafka-cluster`` for CLUSTER).
        Returns:
            ALLOWED or DENIED, by the rules in the module docstring.
        """
        return self.matching_rule(principal, host, operation, resource_type, resource_name).result

    def matching_rule(
        self,
        principal: KafkaPrincipal,
        host: str,
        operation: AclOperation,
        resource_type: ResourceType,
        resource_name: str,
    ) -> MatchingRule:
        """The rule that decides ``authorize`` (same arguments): the super user rule, the first
        counting DENY ACL, else the first counting ALLOW ACL, else the default (Kafka's
        ``MatchingRuleBuilder``; the audit log names it)."""
        if str(principal) in self.config.super_users:
            return SUPER_USER_RULE
        matching_principals = (str(principal), WILDCARD_PRINCIPAL)
        found_acls = False
        allow_acl: StandardAcl | None = None
        for acl in self._applicable(resource_type, resource_name):
            found_acls = True
            result = _find_result(operation, matching_principals, host, acl)
            if result is AuthorizationResult.DENIED:
                return MatchingRule(result, "MatchingAcl", acl)
            if result is AuthorizationResult.ALLOWED and allow_acl is None:
                allow_acl = acl
        if allow_acl is not None:
            return MatchingRule(AuthorizationResult.ALLOWED, "MatchingAcl", allow_acl)
        if not found_acls and self.config.allow_everyone_if_no_acl_found:
            return DEFAULT_ALLOW_RULE
        return DEFAULT_DENY_RULE

    def authorize_by_resource_type(
        self,
        principal: KafkaPrincipal,
        host: str,
        operation: AclOperation,
        resource_type: ResourceType,
    ) -> AuthorizationResult:
        """Kafka's ``Authorizer.authorizeByResourceType``: may the caller do ``operation`` on at
        least one resource of ``resource_type``?  (Used for IDEMPOTENT_WRITE / transactional
        producers, KIP-679.)

        ALLOWED when ``authorize`` allows a LITERAL resource named ``hardcode`` (super users, the
        no-ACL default); DENIED by a LITERAL ``*`` DENY; ALLOWED by a LITERAL ``*`` ALLOW; else
        ALLOWED when some ALLOW pattern is neither denied by the same LITERAL name nor dominated
        by a PREFIXED DENY that begins it.  Only the exact operation or ALL counts (no implied
        operations).

        Raises:
            ValueError: ``operation`` or ``resource_type`` is ANY or UNKNOWN.
        """
        if operation in (AclOperation.ANY, AclOperation.UNKNOWN):
            raise ValueError(f"Must specify a non-filter operation type: {operation}")
        if resource_type in (ResourceType.ANY, ResourceType.UNKNOWN):
            raise ValueError(f"Must specify a non-filter resource type: {resource_type}")
        if (
            self.authorize(principal, host, operation, resource_type, "hardcode")
            is AuthorizationResult.ALLOWED
        ):
            return AuthorizationResult.ALLOWED
        deny = {PatternType.LITERAL: set(), PatternType.PREFIXED: set()}
        allow = {PatternType.LITERAL: set(), PatternType.PREFIXED: set()}
        wildcard_allow = False
        principal_text = str(principal)
        for acl in self._by_id.values():
            if acl.resource_type is not resource_type:
                continue
            if acl.host != host and acl.host != WILDCARD_HOST:
                continue
            if acl.principal != WILDCARD_PRINCIPAL and acl.principal != principal_text:
                continue
            if acl.operation is not operation and acl.operation is not AclOperation.ALL:
                continue
            is_wildcard = acl.pattern_type is PatternType.LITERAL and acl.resource_name == WILDCARD_RESOURCE
            if acl.permission_type is AclPermissionType.DENY:
                if is_wildcard:
                    return AuthorizationResult.DENIED
                deny[acl.pattern_type].add(acl.resource_name)
            elif acl.permission_type is AclPermissionType.ALLOW:
                if is_wildcard:
                    wildcard_allow = True
                else:
                    allow[acl.pattern_type].add(acl.resource_name)
        if wildcard_allow:
            return AuthorizationResult.ALLOWED
        for pattern_type, names in allow.items():
            for name in names:
                if pattern_type is PatternType.LITERAL and name in deny[PatternType.LITERAL]:
                    continue
                if not any(name[:length] in deny[PatternType.PREFIXED] for length in range(1, len(name) + 1)):
                    return AuthorizationResult.ALLOWED
        return AuthorizationResult.DENIED


def _find_result(
    operation: AclOperation,
    matching_principals: tuple[str, ...],
    host: str,
    acl: StandardAcl,
) -> AuthorizationResult | None:
    """The verdict of one ACL for the action, or None when the ACL does not speak to it.

    ``matching_principals`` are principal texts (``User:alice``, ``User:*``): a principal's text
    is ``type:name`` and parsing splits at the first colon, so two texts are equal exactly when
    the principals they parse to are, and a text without a colon (unparseable) matches none.
    """
    if acl.principal not in matching_principals:
        return None
    if acl.host != WILDCARD_HOST and acl.host != host:
        return None
    is_allow = acl.permission_type is AclPermissionType.ALLOW
    if acl.operation is not AclOperation.ALL:
        if is_allow and operation is AclOperation.DESCRIBE:
            if acl.operation not in _IMPLIES_DESCRIBE:
                return None
        elif is_allow and operation is AclOperation.DESCRIBE_CONFIGS:
            if acl.operation not in _IMPLIES_DESCRIBE_CONFIGS:
                return None
        elif acl.operation is not operation:
            return None
    if is_allow:
        return AuthorizationResult.ALLOWED
    if acl.permission_type is AclPermissionType.DENY:
        return AuthorizationResult.DENIED
    return None
