"""StandardAuthorizer decisions as Kafka's StandardAuthorizerTest pins them: super users, the
no-ACL default, DENY over ALLOW, literal / prefixed / wildcard patterns, wildcard principal and
host, implied operations, the ACL store by id, filters, and the authorizer configs."""

from __future__ import annotations

import pytest

from kafkette.common.security.acl import (
    AccessControlEntryFilter,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    KafkaPrincipal,
    PatternType,
    ResourcePatternFilter,
    ResourceType,
)
from kafkette.common.security.standard_authorizer import (
    AuthorizationResult,
    StandardAcl,
    StandardAuthorizerConfig,
    StandardAuthorizerData,
)

ALLOWED, DENIED = AuthorizationResult.ALLOWED, AuthorizationResult.DENIED
ALLOW, DENY = AclPermissionType.ALLOW, AclPermissionType.DENY
LITERAL, PREFIXED = PatternType.LITERAL, PatternType.PREFIXED
TOPIC, GROUP = ResourceType.TOPIC, ResourceType.GROUP
OP = AclOperation
ALICE = KafkaPrincipal("User", "alice")
BOB = KafkaPrincipal("User", "bob")


def acl(name, pattern_type=LITERAL, principal="User:alice", op=OP.READ, perm=ALLOW, host="*", rtype=TOPIC):
    return StandardAcl(rtype, name, pattern_type, principal, host, op, perm)


def data_with(*acls, **config):
    data = StandardAuthorizerData(StandardAuthorizerConfig(**config))
    for i, a in enumerate(acls):
        data.add_acl(f"id-{i}", a)
    return data


def authorize(data, op, name, principal=ALICE, host="10.0.0.1", rtype=TOPIC):
    return data.authorize(principal, host, op, rtype, name)


def test_a_super_user_is_allowed_even_against_a_deny():
    data = data_with(
        acl("foo", principal="User:admin", op=OP.ALL, perm=DENY), super_users=frozenset({"User:admin"})
    )
    assert authorize(data, OP.ALTER, "foo", principal=KafkaPrincipal("User", "admin")) is ALLOWED


def test_no_acl_on_the_resource_is_denied_by_default():
    assert authorize(data_with(), OP.READ, "foo") is DENIED


def test_no_acl_on_the_resource_is_allowed_with_allow_everyone():
    assert authorize(data_with(allow_everyone_if_no_acl_found=True), OP.READ, "foo") is ALLOWED


def test_allow_everyone_does_not_apply_when_acls_exist_for_others():
    data = data_with(acl("foo", principal="User:bob"), allow_everyone_if_no_acl_found=True)
    assert authorize(data, OP.READ, "foo") is DENIED
    assert authorize(data, OP.READ, "other") is ALLOWED


def test_literal_allow_grants_only_its_operation_and_name():
    data = data_with(acl("foo"))
    assert authorize(data, OP.READ, "foo") is ALLOWED
    assert authorize(data, OP.WRITE, "foo") is DENIED
    assert authorize(data, OP.READ, "foobar") is DENIED
    assert authorize(data, OP.READ, "foo", rtype=GROUP) is DENIED


def test_deny_wins_over_allow():
    data = data_with(acl("foo", op=OP.ALL), acl("foo", op=OP.WRITE, perm=DENY))
    assert authorize(data, OP.WRITE, "foo") is DENIED
    assert authorize(data, OP.READ, "foo") is ALLOWED


def test_a_prefixed_deny_overrides_a_literal_allow():
    data = data_with(acl("foobar"), acl("foo", PREFIXED, perm=DENY))
    assert authorize(data, OP.READ, "foobar") is DENIED


def test_every_matching_prefix_applies_not_just_the_longest():
    data = data_with(
        acl("f", PREFIXED, perm=DENY, op=OP.WRITE), acl("foo", PREFIXED), acl("foob", PREFIXED, op=OP.WRITE)
    )
    assert authorize(data, OP.READ, "foobar") is ALLOWED
    assert authorize(data, OP.WRITE, "foobar") is DENIED
    assert authorize(data, OP.READ, "fo") is DENIED
    assert authorize(data, OP.READ, "bar") is DENIED


def test_a_prefix_as_long_as_the_name_matches():
    assert authorize(data_with(acl("foo", PREFIXED)), OP.READ, "foo") is ALLOWED


def test_literal_wildcard_resource_matches_every_name_of_its_type():
    data = data_with(acl("*"))
    assert authorize(data, OP.READ, "anything") is ALLOWED
    assert authorize(data, OP.READ, "anything", rtype=GROUP) is DENIED


def test_a_prefixed_star_is_only_a_prefix():
    data = data_with(acl("*", PREFIXED))
    assert authorize(data, OP.READ, "foo") is DENIED
    assert authorize(data, OP.READ, "*foo") is ALLOWED


def test_wildcard_principal_matches_every_user():
    data = data_with(acl("foo", principal="User:*"))
    assert authorize(data, OP.READ, "foo", principal=BOB) is ALLOWED


def test_wildcard_principal_deny_applies_to_everyone():
    data = data_with(acl("foo"), acl("foo", principal="User:*", perm=DENY))
    assert authorize(data, OP.READ, "foo") is DENIED


def test_an_acl_for_another_principal_does_not_apply():
    assert authorize(data_with(acl("foo", principal="User:bob")), OP.READ, "foo") is DENIED


def test_host_must_match_unless_the_acl_host_is_wildcard():
    data = data_with(acl("foo", host="10.0.0.1"))
    assert authorize(data, OP.READ, "foo", host="10.0.0.1") is ALLOWED
    assert authorize(data, OP.READ, "foo", host="10.0.0.2") is DENIED


def test_a_deny_for_one_host_leaves_other_hosts_allowed():
    data = data_with(acl("foo"), acl("foo", host="10.0.0.9", perm=DENY))
    assert authorize(data, OP.READ, "foo", host="10.0.0.9") is DENIED
    assert authorize(data, OP.READ, "foo", host="10.0.0.1") is ALLOWED


@pytest.mark.parametrize("granted", [OP.READ, OP.WRITE, OP.DELETE, OP.ALTER, OP.DESCRIBE])
def test_allow_of_read_write_delete_alter_implies_describe(granted):
    assert authorize(data_with(acl("foo", op=granted)), OP.DESCRIBE, "foo") is ALLOWED


@pytest.mark.parametrize("granted", [OP.CREATE, OP.DESCRIBE_CONFIGS, OP.ALTER_CONFIGS, OP.IDEMPOTENT_WRITE])
def test_other_operations_do_not_imply_describe(granted):
    assert authorize(data_with(acl("foo", op=granted)), OP.DESCRIBE, "foo") is DENIED


def test_alter_configs_implies_describe_configs_but_not_the_reverse():
    assert authorize(data_with(acl("foo", op=OP.ALTER_CONFIGS)), OP.DESCRIBE_CONFIGS, "foo") is ALLOWED
    assert authorize(data_with(acl("foo", op=OP.DESCRIBE_CONFIGS)), OP.ALTER_CONFIGS, "foo") is DENIED


def test_describe_does_not_imply_read():
    assert authorize(data_with(acl("foo", op=OP.DESCRIBE)), OP.READ, "foo") is DENIED


def test_a_deny_of_read_does_not_deny_describe():
    data = data_with(acl("foo", op=OP.WRITE), acl("foo", op=OP.READ, perm=DENY))
    assert authorize(data, OP.DESCRIBE, "foo") is ALLOWED


def test_allow_all_grants_every_operation_and_deny_all_denies_every_one():
    allow_all = data_with(acl("foo", op=OP.ALL))
    assert all(
        authorize(allow_all, op, "foo") is ALLOWED for op in (OP.READ, OP.ALTER_CONFIGS, OP.CLUSTER_ACTION)
    )
    deny_all = data_with(acl("foo", op=OP.READ), acl("foo", op=OP.ALL, perm=DENY))
    assert authorize(deny_all, OP.DESCRIBE, "foo") is DENIED


def test_removing_an_acl_by_id_takes_it_out_of_decisions():
    data = data_with(acl("foo", PREFIXED))
    assert data.remove_acl("id-0") == acl("foo", PREFIXED)
    assert len(data) == 0
    assert authorize(data, OP.READ, "foobar") is DENIED
    with pytest.raises(KeyError):
        data.remove_acl("id-0")


def test_adding_a_duplicate_id_is_refused():
    data = data_with(acl("foo"))
    with pytest.raises(ValueError, match="id-0"):
        data.add_acl("id-0", acl("bar"))


def test_filters_select_stored_acls_with_their_ids():
    data = data_with(acl("foo"), acl("fo", PREFIXED, perm=DENY), acl("g", rtype=GROUP))
    match_foo = AclBindingFilter(
        ResourcePatternFilter(TOPIC, "foo", PatternType.MATCH), AccessControlEntryFilter.ANY
    )
    assert sorted(i for i, _ in data.acls(match_foo)) == ["id-0", "id-1"]
    denies = AclBindingFilter(ResourcePatternFilter.ANY, AccessControlEntryFilter(None, None, OP.ANY, DENY))
    [(acl_id, binding)] = data.acls(denies)
    assert acl_id == "id-1" and binding.pattern.name == "fo"


def test_ten_thousand_acls_still_give_the_right_decision():
    acls = [acl(f"topic-{i}", principal=f"User:u{i}") for i in range(10_000)]
    acls.append(acl("topic-12", PREFIXED, principal="User:u7", op=OP.WRITE))
    data = data_with(*acls)
    assert authorize(data, OP.READ, "topic-42", principal=KafkaPrincipal("User", "u42")) is ALLOWED
    assert authorize(data, OP.READ, "topic-42", principal=KafkaPrincipal("User", "u43")) is DENIED
    assert authorize(data, OP.WRITE, "topic-1234", principal=KafkaPrincipal("User", "u7")) is ALLOWED
    assert authorize(data, OP.WRITE, "topic-1334", principal=KafkaPrincipal("User", "u7")) is DENIED


def test_config_from_properties():
    config = StandardAuthorizerConfig.from_properties(
        {
            "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
            "super.users": " User:admin ; User:ops;;",
            "allow.everyone.if.no.acl.found": "TRUE",
        }
    )
    assert config == StandardAuthorizerConfig(frozenset({"User:admin", "User:ops"}), True)


def test_config_defaults_and_no_authorizer():
    assert StandardAuthorizerConfig.from_properties({}) is None
    config = StandardAuthorizerConfig.from_properties(
        {"authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer"}
    )
    assert config == StandardAuthorizerConfig(frozenset(), False)


def test_config_refuses_another_authorizer_class_naming_the_config():
    with pytest.raises(ValueError, match=r"authorizer\.class\.name"):
        StandardAuthorizerConfig.from_properties(
            {"authorizer.class.name": "kafka.security.authorizer.AclAuthorizer"}
        )


def test_config_refuses_a_super_user_without_a_type():
    with pytest.raises(ValueError, match="principalType:principalName"):
        StandardAuthorizerConfig.from_properties(
            {
                "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                "super.users": "admin",
            }
        )


def test_standard_acl_round_trips_through_a_binding():
    stored = acl("foo", PREFIXED, op=OP.DESCRIBE, perm=DENY, host="1.2.3.4")
    assert StandardAcl.from_acl_binding(stored.to_binding()) == stored
    assert KafkaPrincipal.parse(stored.principal) == ALICE


def by_type(data, op=OP.WRITE, principal=ALICE):
    return data.authorize_by_resource_type(principal, "10.0.0.1", op, TOPIC)


def test_by_resource_type_allows_when_any_topic_is_writable():
    assert by_type(data_with(acl("foo", op=OP.WRITE))) is ALLOWED
    assert by_type(data_with(acl("foo", op=OP.READ))) is DENIED
    assert by_type(data_with(acl("foo", op=OP.WRITE, principal="User:bob"))) is DENIED


def test_by_resource_type_a_prefixed_deny_dominates_the_allows_it_begins():
    assert (
        by_type(data_with(acl("foobar", op=OP.WRITE), acl("foo", PREFIXED, op=OP.WRITE, perm=DENY))) is DENIED
    )
    assert (
        by_type(data_with(acl("foo", PREFIXED, op=OP.WRITE), acl("foobar", PREFIXED, perm=DENY, op=OP.WRITE)))
        is ALLOWED
    )
    assert by_type(data_with(acl("foo", op=OP.WRITE), acl("foo", op=OP.ALL, perm=DENY))) is DENIED


def test_by_resource_type_wildcard_deny_wins_and_wildcard_allow_allows():
    assert by_type(data_with(acl("foo", op=OP.WRITE), acl("*", op=OP.WRITE, perm=DENY))) is DENIED
    assert by_type(data_with(acl("*", op=OP.ALL), acl("foo", PREFIXED, op=OP.WRITE, perm=DENY))) is ALLOWED


def test_by_resource_type_follows_super_users_and_the_no_acl_default():
    assert by_type(data_with(super_users=frozenset({"User:alice"}))) is ALLOWED
    assert by_type(data_with(allow_everyone_if_no_acl_found=True)) is ALLOWED
    assert by_type(data_with()) is DENIED


def test_by_resource_type_refuses_filter_values():
    with pytest.raises(ValueError):
        by_type(data_with(), op=OP.ANY)


def test_a_principal_whose_name_holds_colons_is_matched_by_its_own_text_only():
    colons = KafkaPrincipal("User", "CN=a:b")
    data = data_with(acl("foo", principal="User:CN=a:b"), acl("bar", principal="User:CN=a"))
    assert authorize(data, OP.READ, "foo", principal=colons) is ALLOWED
    assert authorize(data, OP.READ, "bar", principal=colons) is DENIED
    assert by_type(data_with(acl("foo", principal="User:CN=a:b", op=OP.WRITE)), principal=colons) is ALLOWED


def test_a_stored_principal_without_a_colon_matches_no_one_and_breaks_nothing():
    data = data_with(
        acl("foo", principal="alice", op=OP.WRITE), acl("foo", principal="User:alice", op=OP.WRITE)
    )
    assert authorize(data, OP.WRITE, "foo") is ALLOWED
    assert by_type(data) is ALLOWED
    assert by_type(data_with(acl("foo", principal="alice", op=OP.WRITE))) is DENIED
