"""Kafka's ACL model: enum codes, principals, filter matching, indefinite fields and the
checks CreateAcls / DeleteAcls apply, with Kafka's messages."""

from __future__ import annotations

import pytest

from kafkette.common.security.acl import (
    AccessControlEntry,
    AccessControlEntryFilter,
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    InvalidRequestException,
    KafkaPrincipal,
    PatternType,
    ResourcePattern,
    ResourcePatternFilter,
    ResourceType,
    validate_filter,
    validate_new_acl,
)

ALLOW, DENY = AclPermissionType.ALLOW, AclPermissionType.DENY
LITERAL, PREFIXED, MATCH, ANY_PATTERN = (
    PatternType.LITERAL,
    PatternType.PREFIXED,
    PatternType.MATCH,
    PatternType.ANY,
)
TOPIC = ResourceType.TOPIC


def binding(
    name="foo", pattern_type=LITERAL, principal="User:alice", host="*", op=AclOperation.READ, perm=ALLOW
):
    return AclBinding(
        ResourcePattern(TOPIC, name, pattern_type), AccessControlEntry(principal, host, op, perm)
    )


def test_enums_carry_kafka_wire_codes():
    assert ResourceType.USER == 7 and ResourceType.TRANSACTIONAL_ID == 5
    assert PatternType.PREFIXED == 4 and PatternType.MATCH == 2
    assert AclOperation.TWO_PHASE_COMMIT == 15 and AclOperation.IDEMPOTENT_WRITE == 12
    assert AclPermissionType.ALLOW == 3 and AclPermissionType.DENY == 2


def test_unknown_codes_and_names_decode_to_unknown():
    assert AclOperation.from_code(99) is AclOperation.UNKNOWN
    assert ResourceType.from_code(-1) is ResourceType.UNKNOWN
    assert AclOperation.from_string("describe_configs") is AclOperation.DESCRIBE_CONFIGS
    assert PatternType.from_string("bogus") is PatternType.UNKNOWN


def test_principal_parses_at_the_first_colon():
    assert KafkaPrincipal.parse("User:alice") == KafkaPrincipal("User", "alice")
    assert KafkaPrincipal.parse("User:CN=a:b") == KafkaPrincipal("User", "CN=a:b")
    assert str(KafkaPrincipal("User", "bob")) == "User:bob"


@pytest.mark.parametrize("text", ["", "alice", None])
def test_principal_without_a_colon_is_refused_with_kafkas_message(text):
    with pytest.raises(ValueError, match="expected a string in format principalType:principalName"):
        KafkaPrincipal.parse(text)


def test_a_stored_pattern_refuses_match_and_any():
    with pytest.raises(ValueError):
        ResourcePattern(TOPIC, "foo", MATCH)
    with pytest.raises(ValueError):
        ResourcePattern(ResourceType.ANY, "foo", LITERAL)
    with pytest.raises(ValueError):
        AccessControlEntry("User:a", "*", AclOperation.ANY, ALLOW)


def test_literal_filter_matches_only_the_same_literal_name():
    f = ResourcePatternFilter(TOPIC, "foo", LITERAL)
    assert f.matches(ResourcePattern(TOPIC, "foo", LITERAL))
    assert not f.matches(ResourcePattern(TOPIC, "foo", PREFIXED))
    assert not f.matches(ResourcePattern(TOPIC, "*", LITERAL))
    assert not f.matches(ResourcePattern(ResourceType.GROUP, "foo", LITERAL))


def test_any_filter_matches_any_pattern_type_with_the_exact_name():
    f = ResourcePatternFilter(TOPIC, "foo", ANY_PATTERN)
    assert f.matches(ResourcePattern(TOPIC, "foo", LITERAL))
    assert f.matches(ResourcePattern(TOPIC, "foo", PREFIXED))
    assert not f.matches(ResourcePattern(TOPIC, "fo", PREFIXED))
    assert not f.matches(ResourcePattern(TOPIC, "*", LITERAL))


def test_match_filter_matches_what_would_apply_to_the_name():
    f = ResourcePatternFilter(TOPIC, "payments", MATCH)
    assert f.matches(ResourcePattern(TOPIC, "payments", LITERAL))
    assert f.matches(ResourcePattern(TOPIC, "*", LITERAL))
    assert f.matches(ResourcePattern(TOPIC, "pay", PREFIXED))
    assert f.matches(ResourcePattern(TOPIC, "payments", PREFIXED))
    assert not f.matches(ResourcePattern(TOPIC, "paymentsX", PREFIXED))
    assert not f.matches(ResourcePattern(TOPIC, "pay", LITERAL))


def test_a_prefixed_wildcard_is_a_plain_prefix_not_a_wildcard():
    f = ResourcePatternFilter(TOPIC, "foo", MATCH)
    assert not f.matches(ResourcePattern(TOPIC, "*", PREFIXED))


def test_null_name_and_any_type_filter_matches_everything():
    f = ResourcePatternFilter(ResourceType.ANY, None, ANY_PATTERN)
    assert f.matches(ResourcePattern(ResourceType.GROUP, "g", PREFIXED))
    assert AclBindingFilter.ANY.matches(binding())


def test_entry_filter_compares_principal_and_host_exactly():
    entry = AccessControlEntry("User:*", "*", AclOperation.READ, ALLOW)
    assert not AccessControlEntryFilter("User:alice", None, AclOperation.ANY, AclPermissionType.ANY).matches(
        entry
    )
    assert AccessControlEntryFilter("User:*", "*", AclOperation.READ, ALLOW).matches(entry)
    assert not AccessControlEntryFilter(None, None, AclOperation.WRITE, AclPermissionType.ANY).matches(entry)
    assert not AccessControlEntryFilter(None, None, AclOperation.ANY, DENY).matches(entry)


def test_binding_filter_needs_both_halves_to_match():
    acl = binding()
    pattern_ok = ResourcePatternFilter(TOPIC, "foo", LITERAL)
    assert AclBindingFilter(pattern_ok, AccessControlEntryFilter.ANY).matches(acl)
    wrong_entry = AccessControlEntryFilter("User:bob", None, AclOperation.ANY, AclPermissionType.ANY)
    assert not AclBindingFilter(pattern_ok, wrong_entry).matches(acl)


def test_a_binding_turned_into_a_filter_matches_only_itself():
    acl = binding()
    f = acl.to_filter()
    assert f.matches_at_most_one()
    assert f.matches(acl)
    assert not f.matches(binding(perm=DENY))


@pytest.mark.parametrize(
    ("pattern_filter", "message"),
    [
        (ResourcePatternFilter(ResourceType.ANY, "a", LITERAL), "Resource type is ANY."),
        (ResourcePatternFilter(ResourceType.UNKNOWN, "a", LITERAL), "Resource type is UNKNOWN."),
        (ResourcePatternFilter(TOPIC, None, LITERAL), "Resource name is NULL."),
        (ResourcePatternFilter(TOPIC, "a", MATCH), "Resource pattern type is MATCH."),
        (ResourcePatternFilter(TOPIC, "a", PatternType.UNKNOWN), "Resource pattern type is UNKNOWN."),
        (ResourcePatternFilter(TOPIC, "a", PREFIXED), None),
    ],
)
def test_pattern_filter_names_its_indefinite_field(pattern_filter, message):
    assert pattern_filter.find_indefinite_field() == message


@pytest.mark.parametrize(
    ("entry_filter", "message"),
    [
        (AccessControlEntryFilter(None, "*", AclOperation.READ, ALLOW), "Principal is NULL"),
        (AccessControlEntryFilter("User:a", None, AclOperation.READ, ALLOW), "Host is NULL"),
        (AccessControlEntryFilter("User:a", "*", AclOperation.ANY, ALLOW), "Operation is ANY"),
        (AccessControlEntryFilter("User:a", "*", AclOperation.UNKNOWN, ALLOW), "Operation is UNKNOWN"),
        (
            AccessControlEntryFilter("User:a", "*", AclOperation.READ, AclPermissionType.ANY),
            "Permission type is ANY",
        ),
        (
            AccessControlEntryFilter("User:a", "*", AclOperation.READ, AclPermissionType.UNKNOWN),
            "Permission type is UNKNOWN",
        ),
    ],
)
def test_entry_filter_names_its_indefinite_field(entry_filter, message):
    assert entry_filter.find_indefinite_field() == message
    assert not entry_filter.matches_at_most_one()


def test_binding_filter_reports_the_pattern_half_first():
    f = AclBindingFilter(
        ResourcePatternFilter(ResourceType.ANY, None, ANY_PATTERN), AccessControlEntryFilter.ANY
    )
    assert f.find_indefinite_field() == "Resource type is ANY."


def test_a_well_formed_binding_passes_create_validation():
    validate_new_acl(binding(pattern_type=PREFIXED, op=AclOperation.ALL, perm=DENY))


@pytest.mark.parametrize(
    ("acl", "message"),
    [
        (
            AclBinding(
                ResourcePattern(ResourceType.UNKNOWN, "foo", LITERAL),
                AccessControlEntry("User:a", "*", AclOperation.READ, ALLOW),
            ),
            "Invalid resourceType UNKNOWN",
        ),
        (binding(pattern_type=PatternType.UNKNOWN), "Invalid patternType UNKNOWN"),
        (binding(op=AclOperation.UNKNOWN), "Invalid operation UNKNOWN"),
        (binding(perm=AclPermissionType.UNKNOWN), "Invalid permissionType UNKNOWN"),
        (binding(name=""), "Resource name should not be empty"),
        (
            binding(principal="alice"),
            "Could not parse principal from `alice` (no colon is present separating the "
            "principal type from the principal name)",
        ),
    ],
)
def test_create_validation_refuses_with_kafkas_messages(acl, message):
    with pytest.raises(InvalidRequestException) as excinfo:
        validate_new_acl(acl)
    assert str(excinfo.value) == message


def test_delete_validation_refuses_unknown_halves_but_accepts_any():
    validate_filter(AclBindingFilter.ANY)
    with pytest.raises(InvalidRequestException, match=r"^Unknown patternFilter\.$"):
        validate_filter(
            AclBindingFilter(
                ResourcePatternFilter(ResourceType.UNKNOWN, None, ANY_PATTERN), AccessControlEntryFilter.ANY
            )
        )
    with pytest.raises(InvalidRequestException, match=r"^Unknown entryFilter\.$"):
        validate_filter(
            AclBindingFilter(
                ResourcePatternFilter.ANY,
                AccessControlEntryFilter(None, None, AclOperation.UNKNOWN, AclPermissionType.ANY),
            )
        )
