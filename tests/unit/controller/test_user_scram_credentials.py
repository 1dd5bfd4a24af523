"""SCRAM credentials at the controller (KIP-554): AlterUserScramCredentials with Kafka's
``ScramControlManager`` rules and messages, the credential derived from the salted password (the
password never arrives), ``UserScramCredentialRecord`` / ``RemoveUserScramCredentialRecord`` in
the metadata log read back by a new controller and in its snapshot, and every live broker told the
altered users' whole credential sets in UpdateMetadata."""

from __future__ import annotations

from controller_fakes import new_controller, register_live_brokers, wire_roundtrip
from test_kafka_controller import replay_log

from kafkette.common.security.scram_credential import (
    ScramMechanism,
    make_credential,
    salted_password,
)
from kafkette.controller.metadata_records import RemoveUserScramCredentialRecord, UserScramCredentialRecord
from kafkette.controller.metadata_snapshot import snapshot_records
from kafkette.protocol.apis.user_scram_credentials import (
    AlterUserScramCredentialsRequest,
    ScramCredentialDeletion,
    ScramCredentialUpsertion,
)
from kafkette.protocol.errors import Errors

SHA256 = ScramMechanism.SCRAM_SHA_256
SHA512 = ScramMechanism.SCRAM_SHA_512
SALT = b"0123456789abcdef"


def upsert(name, password="pw", mechanism=SHA256, iterations=4096, mechanism_type=None):
    return ScramCredentialUpsertion(
        name=name,
        mechanism=mechanism.type_byte if mechanism_type is None else mechanism_type,
        iterations=iterations,
        salt=SALT,
        salted_password=salted_password(password, SALT, iterations, mechanism),
    )


def delete(name, mechanism=SHA256):
    return ScramCredentialDeletion(name=name, mechanism=mechanism.type_byte)


async def alter(controller, deletions=(), upsertions=()):
    request = AlterUserScramCredentialsRequest(deletions=list(deletions), upsertions=list(upsertions))
    response = wire_roundtrip(await controller.alter_user_scram_credentials(request))
    return {r.user: (r.error_code, r.error_message) for r in response.results}


async def test_an_upsertion_stores_the_credential_the_password_gives_and_a_new_controller_reads_it(
    tmp_path, clock, channel
):
    controller = new_controller(tmp_path, clock, channel)
    await controller.start()
    try:
        outcome = await alter(controller, upsertions=[upsert("alice", "secret", SHA512, 8192)])
        assert outcome == {"alice": (Errors.NONE, None)}
        expected = make_credential("secret", SHA512, 8192, SALT)
        stored = controller.context.scram_credentials["alice"][SHA512.type_byte]
        assert (stored.salt, stored.stored_key, stored.server_key, stored.iterations) == (
            expected.salt,
            expected.stored_key,
            expected.server_key,
            8192,
        )
        assert snapshot_records(controller.context)[-1] == stored
    finally:
        await controller.stop()
    assert stored in replay_log(tmp_path)
    again = new_controller(tmp_path, clock, channel)
    await again.start()
    try:
        assert again.context.scram_credentials == {"alice": {SHA512.type_byte: stored}}
        assert await alter(again, deletions=[delete("alice", SHA512)]) == {"alice": (Errors.NONE, None)}
        assert again.context.scram_credentials == {}
    finally:
        await again.stop()
    assert RemoveUserScramCredentialRecord("alice", SHA512.type_byte) in replay_log(tmp_path)


async def test_each_refusal_has_kafkas_code_and_message(controller):
    outcome = await alter(
        controller,
        deletions=[delete("ghost"), delete("")],
        upsertions=[
            upsert("few", iterations=4095),
            upsert("many", iterations=16385),
            upsert("odd", mechanism_type=3),
            upsert("ok"),
        ],
    )
    assert outcome == {
        "ok": (Errors.NONE, None),
        "ghost": (Errors.RESOURCE_NOT_FOUND, "Attempt to delete a user credential that does not exist"),
        "": (Errors.UNACCEPTABLE_CREDENTIAL, "Username must not be empty"),
        "few": (Errors.UNACCEPTABLE_CREDENTIAL, "Too few iterations"),
        "many": (Errors.UNACCEPTABLE_CREDENTIAL, "Too many iterations"),
        "odd": (Errors.UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism"),
    }
    assert set(controller.context.scram_credentials) == {"ok"}


async def test_a_user_altered_twice_in_one_request_is_refused_whole(controller):
    assert await alter(controller, upsertions=[upsert("bob"), upsert("carol")]) == {
        "bob": (Errors.NONE, None),
        "carol": (Errors.NONE, None),
    }
    twice = "A user credential cannot be altered twice in the same request"
    outcome = await alter(
        controller,
        deletions=[delete("bob")],
        upsertions=[upsert("bob", mechanism=SHA512), upsert("dan"), upsert("dan", mechanism=SHA512)],
    )
    assert outcome == {"bob": (Errors.DUPLICATE_RESOURCE, twice), "dan": (Errors.DUPLICATE_RESOURCE, twice)}
    assert set(controller.context.scram_credentials) == {"bob", "carol"}
    assert set(controller.context.scram_credentials["bob"]) == {SHA256.type_byte}


async def test_every_live_broker_gets_the_altered_users_whole_credential_sets(controller, channel):
    await register_live_brokers(controller, 1, 2)
    await alter(controller, upsertions=[upsert("erin", mechanism=SHA512, iterations=5000)])
    channel.clear()
    await alter(controller, upsertions=[upsert("erin", mechanism=SHA256)])
    await alter(controller, deletions=[delete("erin", SHA512)])
    await alter(controller, deletions=[delete("erin", SHA256)])
    for broker_id in (1, 2):
        sets = [
            [(u.user, [(c.mechanism, c.iterations) for c in u.credentials]) for u in r.scram_credentials]
            for r in channel.update_metadata()[broker_id]
        ]
        assert sets == [
            [("erin", [(1, 4096), (2, 5000)])],
            [("erin", [(1, 4096)])],
            [("erin", [])],
        ]


async def test_a_refused_request_writes_nothing_and_tells_no_broker(controller, channel, tmp_path):
    await register_live_brokers(controller, 1)
    channel.clear()
    assert (await alter(controller, upsertions=[upsert("x", iterations=1)]))["x"][
        0
    ] == Errors.UNACCEPTABLE_CREDENTIAL
    assert channel.update_metadata() == {}
    assert not any(isinstance(r, UserScramCredentialRecord) for r in replay_log(tmp_path))
