"""DescribeClientQuotas (key 48) and AlterClientQuotas (key 49): client quotas per user, client id,
both, or IP, with defaults, managed over the wire (KIP-546).

Declared once, in Kafka's versions (0-1, flexible from 1), for both listeners.  An entity is a
list of (entity type, entity name) pairs: ``user``, ``client-id`` or ``ip``; a null name is the
default entity of that type.  Values are doubles (Kafka's FLOAT64), whatever the quota's type.
Kafka concept: ``DescribeClientQuotasRequest``/``Response``, ``AlterClientQuotasRequest``/``Response``.
"""

from kafkette.protocol.schema import Array, Bool, Field, Float64, Int8, Int16, Int32, String, Struct

MATCH_TYPE_EXACT = 0
"""A filter component matching the entity of that type with exactly ``match``."""
MATCH_TYPE_DEFAULT = 1
"""A filter component matching the default entity of that type."""
MATCH_TYPE_SPECIFIED = 2
"""A filter component matching any entity (named or default) of that type."""


class ClientQuotaFilterComponent(Struct):
    FIELDS = (
        Field("entity_type", String),
        Field("match_type", Int8),
        Field("match", String, nullable="0+"),
    )


class DescribeClientQuotasRequest(Struct):
    """The entities whose quotas to describe: every one matching all components (and, when
    ``strict``, of no other entity type)."""

    FIELDS = (
        Field("components", Array(ClientQuotaFilterComponent)),
        Field("strict", Bool),
    )


class ClientQuotaEntityData(Struct):
    """One part of an entity: its type (``user``, ``client-id``, ``ip``) and name (null: default)."""

    FIELDS = (
        Field("entity_type", String),
        Field("entity_name", String, nullable="0+"),
    )


class ClientQuotaValueData(Struct):
    FIELDS = (
        Field("key", String),
        Field("value", Float64),
    )


class DescribeClientQuotasEntry(Struct):
    FIELDS = (
        Field("entity", Array(ClientQuotaEntityData)),
        Field("values", Array(ClientQuotaValueData)),
    )


class DescribeClientQuotasResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("error_code", Int16),
        Field("error_message", String, nullable="0+"),
        Field("entries", Array(DescribeClientQuotasEntry), nullable="0+"),
    )


class ClientQuotaOpData(Struct):
    """Set ``key`` to ``value``, or remove it when ``remove``."""

    FIELDS = (
        Field("key", String),
        Field("value", Float64),
        Field("remove", Bool),
    )


class AlterClientQuotasEntry(Struct):
    FIELDS = (
        Field("entity", Array(ClientQuotaEntityData)),
        Field("ops", Array(ClientQuotaOpData)),
    )


class AlterClientQuotasRequest(Struct):
    FIELDS = (
        Field("entries", Array(AlterClientQuotasEntry)),
        Field("validate_only", Bool),
    )


class AlterClientQuotasEntryResult(Struct):
    FIELDS = (
        Field("error_code", Int16),
        Field("error_message", String, nullable="0+"),
        Field("entity", Array(ClientQuotaEntityData)),
    )


class AlterClientQuotasResponse(Struct):
    FIELDS = (
        Field("throttle_time_ms", Int32),
        Field("entries", Array(AlterClientQuotasEntryResult)),
    )
