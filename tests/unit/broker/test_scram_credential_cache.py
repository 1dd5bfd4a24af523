"""The broker's SCRAM credentials (KIP-554): UpdateMetadata's per-user sets, the lookup SASL/SCRAM
logins use, and DescribeUserScramCredentials with Kafka's ``ScramImage.describe`` messages."""

from __future__ import annotations

from kafkette.broker.scram_credential_cache import ScramCredentialCache
from kafkette.common.security.scram_credential import ScramMechanism, make_credential
from kafkette.protocol.apis.update_metadata import (
    UpdateMetadataScramCredential,
    UpdateMetadataScramCredentials,
)
from kafkette.protocol.apis.user_scram_credentials import DescribeUserScramCredentialsRequest, ScramUserName
from kafkette.protocol.errors import Errors

SHA256, SHA512 = ScramMechanism.SCRAM_SHA_256, ScramMechanism.SCRAM_SHA_512


def user_set(user, *credentials):
    return UpdateMetadataScramCredentials(
        user=user,
        credentials=[
            UpdateMetadataScramCredential(
                mechanism=m.type_byte,
                salt=c.salt,
                stored_key=c.stored_key,
                server_key=c.server_key,
                iterations=c.iterations,
            )
            for m, c in credentials
        ],
    )


def describe(cache, users):
    request = DescribeUserScramCredentialsRequest(
        users=None if users is None else [ScramUserName(name=u) for u in users]
    )
    return [
        (r.user, r.error_code, r.error_message, [(c.mechanism, c.iterations) for c in r.credential_infos])
        for r in cache.describe(request).results
    ]


def test_logins_look_up_what_the_controller_sent_and_describe_shows_iterations_only():
    cache = ScramCredentialCache()
    alice256 = make_credential("a", SHA256, 4096)
    alice512 = make_credential("a", SHA512, 8192)
    cache.update(
        [user_set("alice", (SHA512, alice512), (SHA256, alice256)), user_set("bob", (SHA256, alice256))],
        full=True,
    )
    assert cache.credential("alice", SHA512) == alice512
    assert cache.credential("alice", ScramMechanism.SCRAM_SHA_256) == alice256
    assert cache.credential("carol", SHA256) is None
    assert describe(cache, None) == [
        ("alice", Errors.NONE, "", [(1, 4096), (2, 8192)]),
        ("bob", Errors.NONE, "", [(1, 4096)]),
    ]
    assert describe(cache, ["bob", "carol", "bob"]) == [
        (
            "bob",
            Errors.DUPLICATE_RESOURCE,
            "Cannot describe SCRAM credentials for the same user twice in a single request: bob",
            [],
        ),
        (
            "carol",
            Errors.RESOURCE_NOT_FOUND,
            "Attempt to describe a user credential that does not exist: carol",
            [],
        ),
    ]
    cache.update([user_set("alice")], full=False)  # every credential of alice deleted
    assert cache.credential("alice", SHA512) is None
    assert describe(cache, []) == [("bob", Errors.NONE, "", [(1, 4096)])]
    cache.update([], full=True)
    assert describe(cache, None) == []
