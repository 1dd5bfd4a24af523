"""SCRAM credentials as Kafka stores them: salt, stored key, server key and iterations (RFC 5802),
never the password.

Owns: the two mechanisms Kafka offers (``SCRAM-SHA-256`` and ``SCRAM-SHA-512``, with their
iteration bounds and Kafka's type bytes), making a credential from a password (the ``scramp``
library does the PBKDF2 and HMAC work), Kafka's credential text form
(``salt=<base64>,stored_key=<base64>,server_key=<base64>,iterations=<n>``) and SCRAM user names
in messages (``=2C`` / ``=3D``).  Does not own where credentials are kept (the metadata log's
UserScramCredentialRecord) nor the exchange (``sasl_server``).

Kafka concept: ``ScramMechanism``, ``ScramCredential``, ``ScramCredentialUtils``,
``ScramFormatter.username`` / ``saslName`` (KIP-84, KIP-554).
"""

from __future__ import annotations

import base64
import enum
import hashlib
import hmac
import os
from dataclasses import dataclass

import scramp


class ScramMechanism(enum.Enum):
    """A SCRAM mechanism: (name, Kafka's type byte, minimum iterations, maximum iterations)."""

    SCRAM_SHA_256 = ("SCRAM-SHA-256", 1, 4096, 16384)
    SCRAM_SHA_512 = ("SCRAM-SHA-512", 2, 4096, 16384)

    @property
    def mechanism_name(self) -> str:
        return self.value[0]

    @property
    def type_byte(self) -> int:
        """Kafka's ``ScramMechanism.type()`` (UserScramCredentialRecord.mechanism)."""
        return self.value[1]

    @property
    def hash_name(self) -> str:
        """The hash's name for ``hashlib`` (``sha256``)."""
        return "sha" + self.mechanism_name.rsplit("-", 1)[1]

    @property
    def min_iterations(self) -> int:
        return self.value[2]

    @property
    def max_iterations(self) -> int:
        return self.value[3]

    @classmethod
    def for_name(cls, name: str) -> ScramMechanism | None:
        """The mechanism called ``name`` (``SCRAM-SHA-256``), None for any other."""
        return next((m for m in cls if m.mechanism_name == name), None)

    @classmethod
    def for_type(cls, type_byte: int) -> ScramMechanism | None:
        """The mechanism with Kafka's type byte ``type_byte``, None for any other (0 is UNKNOWN)."""
        return next((m for m in cls if m.type_byte == type_byte), None)


@dataclass(frozen=True)
class ScramCredential:
    """What a broker keeps of a SCRAM user's password (bytes, iterations)."""

    salt: bytes
    stored_key: bytes
    server_key: bytes
    iterations: int

    def __repr__(self) -> str:  # keys are secrets: never in logs
        return f"ScramCredential(iterations={self.iterations})"


def make_credential(
    password: str, mechanism: ScramMechanism, iterations: int = 4096, salt: bytes | None = None
) -> ScramCredential:
    """A credential for ``password`` (Kafka's ``ScramFormatter.generateCredential``).

    Args:
        password: the password (UTF-8).
        mechanism: which hash.
        iterations: PBKDF2 iterations, within the mechanism's bounds.
        salt: the salt; 32 random bytes when None.

    Raises:
        ValueError: iterations outside the mechanism's bounds.
    """
    if not mechanism.min_iterations <= iterations <= mechanism.max_iterations:
        raise ValueError(
            f"Iterations {iterations} outside [{mechanism.min_iterations}, {mechanism.max_iterations}] "
            f"for {mechanism.mechanism_name}"
        )
    salt = os.urandom(32) if salt is None else salt
    salt_out, stored_key, server_key, count = scramp.ScramMechanism(mechanism.mechanism_name).make_auth_info(
        password, iteration_count=iterations, salt=salt
    )
    return ScramCredential(salt_out, stored_key, server_key, count)


def salted_password(password: str, salt: bytes, iterations: int, mechanism: ScramMechanism) -> bytes:
    """RFC 5802's ``SaltedPassword := Hi(Normalize(password), salt, i)``: PBKDF2-HMAC of the UTF-8
    password (what AlterUserScramCredentials carries, never the password; Kafka's
    ``ScramFormatter.saltedPassword``)."""
    return hashlib.pbkdf2_hmac(mechanism.hash_name, password.encode(), salt, iterations)


def credential_from_salted_password(
    salted: bytes, salt: bytes, iterations: int, mechanism: ScramMechanism
) -> ScramCredential:
    """The credential a salted password gives (RFC 5802: ``StoredKey := H(HMAC(SaltedPassword,
    "Client Key"))``, ``ServerKey := HMAC(SaltedPassword, "Server Key")``), as Kafka's
    ``ScramControlManager.finishUpsertion`` derives it from an AlterUserScramCredentials upsertion.

    Args:
        salted: the salted password (bytes of the mechanism's hash length).
        salt: the salt it was made with.
        iterations: its PBKDF2 iterations.
        mechanism: which hash.
    """
    client_key = hmac.digest(salted, b"Client Key", mechanism.hash_name)
    stored_key = hashlib.new(mechanism.hash_name, client_key).digest()
    server_key = hmac.digest(salted, b"Server Key", mechanism.hash_name)
    return ScramCredential(salt, stored_key, server_key, iterations)


def credential_to_string(credential: ScramCredential) -> str:
    """Kafka's text form: ``salt=<b64>,stored_key=<b64>,server_key=<b64>,iterations=<n>``."""
    b64 = base64.b64encode
    return (
        f"salt={b64(credential.salt).decode()},stored_key={b64(credential.stored_key).decode()},"
        f"server_key={b64(credential.server_key).decode()},iterations={credential.iterations}"
    )


def credential_from_string(text: str) -> ScramCredential:
    """Parse Kafka's text form.

    Raises:
        ValueError: "Credentials not valid: <text>" (Kafka's message) for anything else.
    """
    props = {}
    for token in text.split(","):
        key, eq, value = token.partition("=")
        if not eq or not key:
            raise ValueError(f"Credentials not valid: {text}")
        props[key] = value
    if set(props) != {"salt", "stored_key", "server_key", "iterations"}:
        raise ValueError(f"Credentials not valid: {text}")
    try:
        return ScramCredential(
            base64.b64decode(props["salt"], validate=True),
            base64.b64decode(props["stored_key"], validate=True),
            base64.b64decode(props["server_key"], validate=True),
            int(props["iterations"]),
        )
    except ValueError:
        raise ValueError(f"Credentials not valid: {text}") from None


def username_from_sasl_name(sasl_name: str) -> str:
    """A SCRAM message's ``saslname`` as a user name (``=2C`` -> ``,``, ``=3D`` -> ``=``).

    Raises:
        ValueError: "Invalid username: <name>" for any other ``=``.
    """
    username = sasl_name.replace("=2C", ",")
    if "=" in username.replace("=3D", ""):
        raise ValueError(f"Invalid username: {sasl_name}")
    return username.replace("=3D", "=")
