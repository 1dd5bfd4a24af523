"""kafka-acls.sh's flags as ``kafkette acls`` reads them: resources, entries, the --producer and
--consumer sets, AclCommand's refusals and its text forms."""

from __future__ import annotations

import pytest

from kafkette.client.cli.acl_command_options import (
    CLUSTER_RESOURCE_FILTER,
    AclCommandError,
    AclFlags,
    binding_text,
    check_flags,
    filter_to_entries,
    parse_operation,
    parse_pattern_type,
    pattern_text,
    pattern_to_entries,
    resource_filters,
)
from kafkette.common.security.acl import (
    AccessControlEntry,
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourcePattern,
    ResourcePatternFilter,
    ResourceType,
)

ALICE = ("User:alice",)


def _operations(entries: list[AccessControlEntry]) -> set[AclOperation]:
    return {e.operation for e in entries}


def test_operation_names_are_read_as_kafkas_security_utils_reads_them():
    assert parse_operation("Read") is AclOperation.READ
    assert parse_operation("DESCRIBECONFIGS") is AclOperation.DESCRIBE_CONFIGS
    assert parse_operation("IdempotentWrite") is AclOperation.IDEMPOTENT_WRITE
    assert parse_operation("all") is AclOperation.ALL
    for bad in ("describe_configs", "Any", "Unknown", "Reed"):
        with pytest.raises(AclCommandError, match="Unknown operation"):
            parse_operation(bad)


def test_pattern_types_are_the_four_kafka_offers_in_any_case():
    assert parse_pattern_type("PREFIXED") is PatternType.PREFIXED
    assert parse_pattern_type("match") is PatternType.MATCH
    with pytest.raises(AclCommandError, match="Unknown resource-pattern-type: unknown"):
        parse_pattern_type("unknown")


def test_producer_gets_write_describe_create_on_topics_and_write_describe_on_transactional_ids():
    flags = AclFlags(
        topics=("t",), transactional_ids=("tx",), allow_principals=ALICE, producer=True, idempotent=True
    )
    out = filter_to_entries(flags)
    topic = ResourcePatternFilter(ResourceType.TOPIC, "t", PatternType.LITERAL)
    tx = ResourcePatternFilter(ResourceType.TRANSACTIONAL_ID, "tx", PatternType.LITERAL)
    assert _operations(out[topic]) == {AclOperation.WRITE, AclOperation.DESCRIBE, AclOperation.CREATE}
    assert _operations(out[tx]) == {AclOperation.WRITE, AclOperation.DESCRIBE}
    assert _operations(out[CLUSTER_RESOURCE_FILTER]) == {AclOperation.IDEMPOTENT_WRITE}
    assert all(e.host == "*" and e.permission_type is AclPermissionType.ALLOW for e in out[topic])


def test_consumer_gets_read_describe_on_topics_and_read_on_groups_and_merges_with_producer():
    flags = AclFlags(topics=("t",), groups=("g",), allow_principals=ALICE, consumer=True, producer=True)
    out = filter_to_entries(flags)
    topic = ResourcePatternFilter(ResourceType.TOPIC, "t", PatternType.LITERAL)
    group = ResourcePatternFilter(ResourceType.GROUP, "g", PatternType.LITERAL)
    assert _operations(out[topic]) == {
        AclOperation.WRITE,
        AclOperation.DESCRIBE,
        AclOperation.CREATE,
        AclOperation.READ,
    }
    assert _operations(out[group]) == {AclOperation.READ}


def test_entries_cross_principals_hosts_and_operations_and_deny_uses_deny_hosts():
    flags = AclFlags(
        topics=("t",),
        allow_principals=("User:a", "User:b"),
        allow_hosts=("10.0.0.1", "10.0.0.2"),
        deny_principals=("User:c",),
        operations=("Read", "Write"),
    )
    (entries,) = filter_to_entries(flags).values()
    allowed = [e for e in entries if e.permission_type is AclPermissionType.ALLOW]
    denied = [e for e in entries if e.permission_type is AclPermissionType.DENY]
    assert len(allowed) == 2 * 2 * 2
    assert {e.host for e in denied} == {"*"} and len(denied) == 2


def test_the_cluster_is_a_resource_only_for_literal_patterns():
    assert resource_filters(AclFlags(cluster=True), required=True) == [CLUSTER_RESOURCE_FILTER]
    with pytest.raises(AclCommandError, match="You must provide at least one resource"):
        resource_filters(AclFlags(cluster=True, pattern_type=PatternType.PREFIXED), required=True)
    assert resource_filters(AclFlags(), required=False) == []


def test_adding_refuses_what_kafka_refuses():
    with pytest.raises(AclCommandError, match="is not valid when adding acls"):
        pattern_to_entries(AclFlags(topics=("t",), allow_principals=ALICE, pattern_type=PatternType.MATCH))
    with pytest.raises(AclCommandError, match="You must specify one of: --allow-principal, --deny-principal"):
        pattern_to_entries(AclFlags(topics=("t",)))
    with pytest.raises(AclCommandError, match="ResourceType GROUP only supports operations"):
        pattern_to_entries(AclFlags(groups=("g",), allow_principals=ALICE, operations=("Write",)))
    with pytest.raises(AclCommandError, match="principalType:principalName"):
        pattern_to_entries(AclFlags(topics=("t",), allow_principals=("alice",)))


@pytest.mark.parametrize(
    ("action", "flags", "principals", "message"),
    [
        ("list", AclFlags(producer=True), (), 'Option "--list" can\'t be used with option "--producer"'),
        ("add", AclFlags(topics=("t",), producer=True, operations=("Read",)), (), "can't be used with"),
        ("add", AclFlags(), ("User:a",), "The --principal option is only available if --list is set"),
        ("add", AclFlags(producer=True), (), "With --producer you must specify a --topic"),
        ("add", AclFlags(topics=("t",), idempotent=True), (), "only available if --producer is set"),
        (
            "add",
            AclFlags(topics=("t",), consumer=True),
            (),
            "With --consumer you must specify a --topic and a --group",
        ),
    ],
)
def test_check_flags_refuses_kafkas_forbidden_combinations(action, flags, principals, message):
    with pytest.raises(AclCommandError, match=message.replace("(", r"\(")):
        check_flags(action, flags, principals)


def test_text_forms_are_kafkas_to_string():
    pattern = ResourcePattern(ResourceType.TOPIC, "t", PatternType.PREFIXED)
    entry = AccessControlEntry("User:alice", "*", AclOperation.DESCRIBE_CONFIGS, AclPermissionType.DENY)
    assert pattern_text(pattern) == "ResourcePattern(resourceType=TOPIC, name=t, patternType=PREFIXED)"
    assert pattern_text(ResourcePatternFilter(ResourceType.ANY, None, PatternType.ANY)) == (
        "ResourcePattern(resourceType=ANY, name=<any>, patternType=ANY)"
    )
    assert binding_text(AclBinding(pattern, entry)) == (
        "(pattern=ResourcePattern(resourceType=TOPIC, name=t, patternType=PREFIXED), "
        "entry=(principal=User:alice, host=*, operation=DESCRIBE_CONFIGS, permissionType=DENY))"
    )
