"""``ssl.principal.mapping.rules`` with Kafka's grammar and outcomes (the cases of Kafka's
``SslPrincipalMapperTest``, in our words): DEFAULT, RULE with back references and L/U, rules in
order, invalid rules refused, a DN no rule maps refused with Kafka's message."""

from __future__ import annotations

import pytest

from kafkette.common.security.ssl_principal_mapper import NoMatchingRule, SslPrincipalMapper

RULES = (
    "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/,"
    "RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L,"
    "RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/U,"
    "DEFAULT"
)


@pytest.mark.parametrize(
    ("dn", "name"),
    [
        ("CN=Duke,OU=ServiceUsers,O=Org,C=US", "Duke"),
        ("CN=Duke,OU=SME,O=mycp,L=Fulton,ST=MD,C=US", "duke@sme"),
        ("cn=duke,ou=JavaSoft,o=Sun Microsystems", "DUKE"),
        ("OU=JavaSoft,O=Sun Microsystems,C=US", "OU=JavaSoft,O=Sun Microsystems,C=US"),
    ],
)
def test_the_first_rule_that_matches_names_the_principal(dn, name):
    assert SslPrincipalMapper(RULES).name(dn) == name


def test_default_and_unset_rules_keep_the_dn():
    assert SslPrincipalMapper(None).name("CN=alice,O=corp") == "CN=alice,O=corp"
    assert SslPrincipalMapper("DEFAULT").name("CN=alice,O=corp") == "CN=alice,O=corp"


def test_rules_may_span_lines_and_keep_spaces_in_replacements():
    mapper = SslPrincipalMapper("RULE:^CN=([^,]*),.*$/user $1/ , DEFAULT")
    assert mapper.name("CN=alice,O=corp") == "user alice"


def test_back_references_beyond_the_groups_stay_literal():
    assert SslPrincipalMapper("RULE:^CN=(.*),O=(.*)$/$1-$3/").name("CN=a,O=b") == "a-$3"
    assert SslPrincipalMapper("RULE:^CN=(.*),O=(.*)$/$12/").name("CN=a,O=b") == "a2"


@pytest.mark.parametrize(
    "rules",
    [
        "DEFAULTS",
        "RULE:",
        "RULE:/",
        "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L/U",
        "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/U,   L",
        "RULE:^CN=(.*?),OU=ServiceUsers.*$",
    ],
)
def test_a_rule_kafka_cannot_parse_is_refused(rules):
    with pytest.raises(ValueError, match="Invalid rule"):
        SslPrincipalMapper(rules)


def test_a_dn_no_rule_maps_is_refused_with_kafkas_message():
    mapper = SslPrincipalMapper("RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/")
    with pytest.raises(
        NoMatchingRule,
        match=r"No rules apply to CN=x,OU=y, rules \[RULE:\^CN=\(\.\*\?\),OU=ServiceUsers\.\*\$/\$1\]",
    ):
        mapper.name("CN=x,OU=y")
