"""Kafka's ``Uuid`` in its string form: URL-safe base64 of the 16 bytes, without padding.

Owns the two conversions (``Uuid.toString`` / ``Uuid.fromString``) that topic ids and broker
incarnation ids need where they are kept as text (metadata records, logs) and sent as bytes (the
``uuid`` wire type).  Pure code, no I/O.

Kafka concept: ``org.apache.kafka.common.Uuid``.
"""

from __future__ import annotations

import base64
import uuid

from kafkette.protocol.kafka_schema import ZERO_UUID


def uuid_to_string(raw: bytes) -> str:
    """The 16 bytes of a uuid as Kafka writes it (``Uuid.toString``: 22 characters)."""
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def uuid_from_string(text: str) -> bytes:
    """The 16 bytes of a uuid in Kafka's string form; ``ZERO_UUID`` (Kafka's ``Uuid.ZERO_UUID``) when
    ``text`` does not decode to 16 bytes."""
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except ValueError:
        return ZERO_UUID
    return raw if len(raw) == 16 else ZERO_UUID


def random_uuid_string() -> str:
    """A new random uuid in Kafka's string form (``Uuid.randomUuid().toString()``: a version-4 UUID,
    never one whose string starts with "-")."""
    while True:
        text = uuid_to_string(uuid.uuid4().bytes)
        if not text.startswith("-"):
            return text
