"""kafka-configs.sh's users and clients as ``kafkette configs`` reads them: which entity, SCRAM
credential values, the split between quotas and SCRAM, Kafka's describe text; and the SDK's
SCRAM upsertion salting the password client-side."""

from __future__ import annotations

import click
import pytest

from kafkette.client.admin_quotas import ClientQuotaAlteration, ClientQuotaFilterComponent, alter_entry
from kafkette.client.admin_scram import (
    UserScramCredentialDeletion,
    UserScramCredentialUpsertion,
    alteration_request,
)
from kafkette.client.cli.client_entity_configs import (
    ClientEntityFlags,
    java_double_text,
    parse_scram_credential,
    plan_alteration,
    quota_entity_map,
    quota_filter,
    quota_line,
    resolve_client_entity,
)
from kafkette.common.security.scram_credential import (
    ScramMechanism,
    credential_from_salted_password,
    make_credential,
)

NO_SHORTHANDS: dict = {"--user": None, "--client": None, "--user-defaults": None, "--client-defaults": None}
ALICE = ClientEntityFlags(("users",), ("alice",))


def test_scram_values_take_kafkas_form_with_4096_iterations_by_default():
    assert parse_scram_credential("SCRAM-SHA-512", "iterations=8192,password=secret") == (8192, "secret")
    assert parse_scram_credential("SCRAM-SHA-256", "password=x,y=z") == (4096, "x,y=z")
    assert parse_scram_credential("SCRAM-SHA-256", "iterations=-1,password=p") == (4096, "p")
    with pytest.raises(ValueError, match="Invalid credential property SCRAM-SHA-256=secret"):
        parse_scram_credential("SCRAM-SHA-256", "secret")
    with pytest.raises(
        ValueError, match="Iterations 100 is less than the minimum 4096 required for SCRAM-SHA-512"
    ):
        parse_scram_credential("SCRAM-SHA-512", "iterations=100,password=p")


def test_quota_values_print_as_java_doubles():
    assert [java_double_text(v) for v in (1024, 12.5, 0.5, 1e7, 1.5e-4, 123456789.0, 0.0)] == [
        "1024.0",
        "12.5",
        "0.5",
        "1.0E7",
        "1.5E-4",
        "1.23456789E8",
        "0.0",
    ]


def test_entities_come_from_long_flags_or_shorthands_and_topics_are_not_theirs():
    assert resolve_client_entity(("topics",), ("t",), False, NO_SHORTHANDS) is None
    both = resolve_client_entity(("users", "clients"), ("alice", "c1"), False, NO_SHORTHANDS)
    assert both == ClientEntityFlags(("users", "clients"), ("alice", "c1"))
    assert resolve_client_entity(("clients",), (), True, NO_SHORTHANDS) == ClientEntityFlags(
        ("clients",), ("",)
    )
    shorthands = {**NO_SHORTHANDS, "--client": ("clients", "c1"), "--user-defaults": ("users", "")}
    assert resolve_client_entity((), (), False, shorthands) == ClientEntityFlags(
        ("users", "clients"), ("", "c1")
    )
    for types, names, default, message in (
        (("users", "users"), (), False, "Duplicate entity type"),
        (("users", "topics"), (), False, "Only 'users' and 'clients' entity types may be specified together"),
        (("users",), ("a", "b"), False, "More entity names specified than entity types"),
        (("users", "clients"), ("a",), True, "--user-defaults"),
    ):
        with pytest.raises(click.UsageError, match=message):
            resolve_client_entity(types, names, default, NO_SHORTHANDS)
    with pytest.raises(
        click.UsageError, match="should not be used in conjunction with specific entity flags"
    ):
        resolve_client_entity(("users",), ("a",), False, {**NO_SHORTHANDS, "--user": ("users", "b")})


def test_alter_sends_quotas_or_scram_credentials_never_both():
    plan = plan_alteration(ALICE, {"SCRAM-SHA-512": "iterations=8192,password=s"}, ["SCRAM-SHA-256"])
    assert plan.quota_ops == ()
    assert plan.scram[0] == UserScramCredentialDeletion("alice", ScramMechanism.SCRAM_SHA_256)
    assert (plan.scram[1].mechanism, plan.scram[1].iterations, plan.scram[1].password) == (
        ScramMechanism.SCRAM_SHA_512,
        8192,
        "s",
    )
    plan = plan_alteration(ALICE, {"producer_byte_rate": "1024"}, ["request_percentage"])
    assert plan.quota_ops == (
        ClientQuotaAlteration.Op("producer_byte_rate", 1024.0),
        ClientQuotaAlteration.Op("request_percentage", None),
    )
    for entity, added, deleted, message in (
        (
            ALICE,
            {"producer_byte_rate": "1", "SCRAM-SHA-256": "password=x"},
            [],
            "Cannot alter both quota and SCRAM",
        ),
        (
            ALICE,
            {"retention.ms": "1"},
            [],
            "Only quota and SCRAM credential configs can be added for 'users'",
        ),
        (ClientEntityFlags(("users",), ("",)), {"SCRAM-SHA-256": "password=x"}, [], "--entity-default"),
        (ClientEntityFlags(("clients",), ("c",)), {}, ["SCRAM-SHA-256"], "Only quota configs can be deleted"),
        (
            ClientEntityFlags(("users",), ()),
            {"producer_byte_rate": "1"},
            [],
            "An entity-name or default entity",
        ),
    ):
        with pytest.raises(click.UsageError, match=message):
            plan_alteration(entity, added, deleted)


def test_describe_filters_and_lines_are_kafkas():
    entity = ClientEntityFlags(("users", "clients"), ("", "c1"))
    assert quota_filter(entity).strict
    assert quota_filter(entity).components == (
        ClientQuotaFilterComponent.of_default_entity("user"),
        ClientQuotaFilterComponent.of_entity("client-id", "c1"),
    )
    assert quota_filter(ClientEntityFlags(("users",), ())).components == (
        ClientQuotaFilterComponent.of_entity_type("user"),
    )
    assert quota_entity_map(entity) == {"user": None, "client-id": "c1"}
    line = quota_line(
        (("client-id", "c1"), ("user", None)), {"producer_byte_rate": 1024.0, "request_percentage": 5}
    )
    assert (
        line
        == "Quota configs for the default user-principal, client-id 'c1' are producer_byte_rate=1024.0, "
        + ("request_percentage=5.0")
    )


def test_an_upsertion_carries_a_salted_password_that_makes_the_credential_of_the_password():
    salt = b"0123456789abcdef"
    request = alteration_request(
        [UserScramCredentialUpsertion("alice", ScramMechanism.SCRAM_SHA_256, 4096, "secret", salt=salt)]
    )
    (upsertion,) = request.upsertions
    assert (upsertion.name, upsertion.mechanism, upsertion.iterations, upsertion.salt) == (
        "alice",
        1,
        4096,
        salt,
    )
    assert b"secret" not in upsertion.salted_password
    derived = credential_from_salted_password(
        upsertion.salted_password, salt, 4096, ScramMechanism.SCRAM_SHA_256
    )
    assert derived == make_credential("secret", ScramMechanism.SCRAM_SHA_256, 4096, salt)
    drawn = alteration_request([UserScramCredentialUpsertion("bob", ScramMechanism.SCRAM_SHA_512, 4096, "p")])
    assert len(drawn.upsertions[0].salt) == 32
    with pytest.raises(ValueError, match="password"):
        alteration_request([UserScramCredentialUpsertion("bob", ScramMechanism.SCRAM_SHA_512, 4096, "")])
    with pytest.raises(TypeError):
        alteration_request(["bob"])  # type: ignore[list-item]


def test_a_quota_alteration_refuses_a_value_that_is_not_a_number():
    with pytest.raises(ValueError, match="must be a number"):
        alter_entry(
            ClientQuotaAlteration({"user": "a"}, (ClientQuotaAlteration.Op("producer_byte_rate", "1"),))
        )  # type: ignore[arg-type]
    entry = alter_entry(
        ClientQuotaAlteration({"user": None}, (ClientQuotaAlteration.Op("producer_byte_rate", None),))
    )
    assert entry.ops[0].remove and entry.entity[0].entity_name is None
