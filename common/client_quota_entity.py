"""Client quota entities and their quota keys, as Kafka names them (KIP-546, KIP-55, KIP-599,
KIP-612).

Owns: the entity types (``user``, ``client-id``, ``ip``), an entity's canonical form (a sorted
tuple of (type, name) pairs; a None name is that type's default entity), and the quota keys each
kind of entity takes with their config types (a user and/or client id: ``producer_byte_rate`` and
``consumer_byte_rate`` LONG bytes/s, ``request_percentage`` and ``controller_mutation_rate``
DOUBLE; an IP: ``connection_creation_rate`` INT connections/s).  Does not own where quotas are
stored (the controller's ``ClientQuotaControlManager``) nor enforcement (the broker's
``ClientQuotaManager``).

Kafka concept: ``ClientQuotaEntity`` and ``QuotaConfig.userAndClientQuotaConfigs`` /
``QuotaConfig.ipConfigs``.
"""

from __future__ import annotations

from collections.abc import Iterable

USER = "user"
CLIENT_ID = "client-id"
IP = "ip"

PRODUCER_BYTE_RATE = "producer_byte_rate"
CONSUMER_BYTE_RATE = "consumer_byte_rate"
REQUEST_PERCENTAGE = "request_percentage"
CONTROLLER_MUTATION_RATE = "controller_mutation_rate"
IP_CONNECTION_RATE = "connection_creation_rate"

USER_AND_CLIENT_QUOTA_TYPES: dict[str, str] = {
    PRODUCER_BYTE_RATE: "LONG",
    CONSUMER_BYTE_RATE: "LONG",
    REQUEST_PERCENTAGE: "DOUBLE",
    CONTROLLER_MUTATION_RATE: "DOUBLE",
}
"""The quota keys of a user, client-id or (user, client-id) entity, with Kafka's config types."""

IP_QUOTA_TYPES: dict[str, str] = {IP_CONNECTION_RATE: "INT"}
"""The quota keys of an IP entity, with Kafka's config types."""

ClientQuotaEntity = tuple[tuple[str, str | None], ...]
"""An entity: its (entity type, entity name or None for the default) pairs, sorted by type."""


def quota_entity(pairs: Iterable[tuple[str, str | None]]) -> ClientQuotaEntity:
    """The canonical entity of ``pairs`` (sorted by entity type; a type named twice is kept twice,
    for the caller to refuse)."""
    return tuple(sorted(pairs, key=lambda pair: pair[0]))


def describe_entity(entity: ClientQuotaEntity) -> str:
    """Kafka's ``ClientQuotaEntity.toString`` form: ``ClientQuotaEntity(entries={user=alice})``
    (a default name prints as null)."""
    inner = ", ".join(f"{t}={'null' if n is None else n}" for t, n in entity)
    return f"ClientQuotaEntity(entries={{{inner}}})"
