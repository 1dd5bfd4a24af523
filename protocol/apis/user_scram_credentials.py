"""DescribeUserScramCredentials (key 50) and AlterUserScramCredentials (key 51): a cluster's SCRAM
users, managed over the wire (KIP-554).

Declared once, in Kafka's versions (both 0 only, flexible from 0), for both listeners.  A
credential travels salted: the client sends the salt, the iteration count and the salted password
(PBKDF2 of the password), never the password; the controller keeps the stored key and server key
derived from it (``UserScramCredentialRecord``).  Mechanisms are Kafka's type bytes
(1 SCRAM-SHA-256, 2 SCRAM-SHA-512, 0 unknown).
Kafka concept: ``DescribeUserScramCredentialsRequest``/``Response``,
``AlterUserScramCredentialsRequest``/``Response``.
"""

from kafkette.protocol.schema import Array, Bytes, Field, Int8, Int16, Int32, String, Struct


class ScramUserName(Struct):
    """One user to describe."""

    FIELDS = (Field("name", String),)


class DescribeUserScramCredentialsRequest(Struct):
    """The users to describe; null or empty: every user with a credential."""

    FIELDS = (Field("users", Array(ScramUserName), nullable="0+"),)


class CredentialInfo(Struct):
    """One mechanism a user has a credential for, with its iteration count."""

    FIELDS = (
        Field("mechanism", Int8),
        Field("iterations", Int32),
    )


class DescribeUserScramCredentialsResult(Struct):
    """One user: NONE with its credentials, RESOURCE_NOT_FOUND (no credential) or
    DUPLICATE_RESOURCE (named twice)."""

    FIELDS = (
        Field("user", String),
        Field("error_code", Int16),
        Field("error_message", String, nullable="0+"),
        Field("credential_infos", Array(CredentialInfo)),
    )


class DescribeUserScramCredentialsResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("error_code", Int16),  # CLUSTER_AUTHORIZATION_FAILED or an infrastructure error
        Field("error_message", String, nullable="0+"),
        Field("results", Array(DescribeUserScramCredentialsResult)),
    )


class ScramCredentialDeletion(Struct):
    """Remove ``name``'s credential for ``mechanism``."""

    FIELDS = (
        Field("name", String),
        Field("mechanism", Int8),
    )


class ScramCredentialUpsertion(Struct):
    """Set ``name``'s credential for ``mechanism``: ``salted_password`` is the PBKDF2 (Hi) of the
    password with ``salt`` over ``iterations`` rounds."""

    FIELDS = (
        Field("name", String),
        Field("mechanism", Int8),
        Field("iterations", Int32),
        Field("salt", Bytes),
        Field("salted_password", Bytes),
    )


class AlterUserScramCredentialsRequest(Struct):
    FIELDS = (
        Field("deletions", Array(ScramCredentialDeletion)),
        Field("upsertions", Array(ScramCredentialUpsertion)),
    )


class AlterUserScramCredentialsResult(Struct):
    """One user's outcome (every alteration of a user fails or succeeds together)."""

    FIELDS = (
        Field("user", String),
        Field("error_code", Int16),
        Field("error_message", String, nullable="0+"),
    )


class AlterUserScramCredentialsResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("results", Array(AlterUserScramCredentialsResult)),
    )
