"""The AdminClient's client quota calls: DescribeClientQuotas and AlterClientQuotas (KIP-546).

Owns: ``QuotaAdminCalls`` (the two calls, mixed into ``kafkette.client.admin.AdminClient``) and
Kafka's value types for them: ``ClientQuotaFilterComponent`` / ``ClientQuotaFilter`` and
``ClientQuotaAlteration`` with its ``Op``.  An entity is a mapping of entity type (``user``,
``client-id``, ``ip``: ``kafkette.common.client_quota_entity``) to name, a None name being that
type's default entity; answers give it in the canonical form of that module (a sorted tuple of
pairs).  Alterations reach the active controller; descriptions are answered by any broker from the
quotas it holds, so a change shows there once the controller has sent it.

Kafka concept: ``Admin.describeClientQuotas``, ``Admin.alterClientQuotas``, ``ClientQuotaEntity``,
``ClientQuotaFilter``, ``ClientQuotaFilterComponent``, ``ClientQuotaAlteration``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kafkette.common.client_quota_entity import ClientQuotaEntity, describe_entity, quota_entity
from kafkette.protocol.apis.client_quotas import (
    MATCH_TYPE_DEFAULT,
    MATCH_TYPE_EXACT,
    MATCH_TYPE_SPECIFIED,
    AlterClientQuotasEntry,
    AlterClientQuotasRequest,
    AlterClientQuotasResponse,
    ClientQuotaEntityData,
    ClientQuotaOpData,
    DescribeClientQuotasRequest,
    DescribeClientQuotasResponse,
)
from kafkette.protocol.apis.client_quotas import (
    ClientQuotaFilterComponent as ClientQuotaFilterComponentData,
)
from kafkette.protocol.errors import Errors, error_class

__all__ = [
    "ClientQuotaAlteration",
    "ClientQuotaEntity",
    "ClientQuotaFilter",
    "ClientQuotaFilterComponent",
    "QuotaAdminCalls",
]


@dataclass(frozen=True)
class ClientQuotaFilterComponent:
    """One entity type of a filter: ``of_entity(type, name)`` (that name), ``of_default_entity``
    (the default entity) or ``of_entity_type`` (any entity of that type)."""

    entity_type: str
    match_type: int
    match: str | None = None

    @classmethod
    def of_entity(cls, entity_type: str, name: str) -> ClientQuotaFilterComponent:
        return cls(entity_type, MATCH_TYPE_EXACT, name)

    @classmethod
    def of_default_entity(cls, entity_type: str) -> ClientQuotaFilterComponent:
        return cls(entity_type, MATCH_TYPE_DEFAULT)

    @classmethod
    def of_entity_type(cls, entity_type: str) -> ClientQuotaFilterComponent:
        return cls(entity_type, MATCH_TYPE_SPECIFIED)


@dataclass(frozen=True)
class ClientQuotaFilter:
    """The entities to describe: those matching every component; when ``strict``, only those of
    no other entity type (Kafka's ``containsOnly``; ``contains`` is not strict)."""

    components: tuple[ClientQuotaFilterComponent, ...] = ()
    strict: bool = False

    @classmethod
    def contains(cls, components: Iterable[ClientQuotaFilterComponent]) -> ClientQuotaFilter:
        return cls(tuple(components), False)

    @classmethod
    def contains_only(cls, components: Iterable[ClientQuotaFilterComponent]) -> ClientQuotaFilter:
        return cls(tuple(components), True)

    @classmethod
    def all(cls) -> ClientQuotaFilter:
        """Every entity with a quota."""
        return cls((), False)


@dataclass(frozen=True)
class ClientQuotaAlteration:
    """Changes to one entity's quotas: ``entity`` ``{"user": "alice", "client-id": None}`` and ops
    ``[ClientQuotaAlteration.Op("producer_byte_rate", 1024.0), Op("consumer_byte_rate", None)]``
    (a None value removes the quota)."""

    @dataclass(frozen=True)
    class Op:
        """Set ``key`` to ``value`` (bytes/s for the byte rates, percent, mutations/s), or remove
        it when ``value`` is None."""

        key: str
        value: float | None

    entity: Mapping[str, str | None]
    ops: tuple[ClientQuotaAlteration.Op, ...]


def _entity_data(entity: Iterable[tuple[str, str | None]]) -> list[ClientQuotaEntityData]:
    return [ClientQuotaEntityData(entity_type=t, entity_name=n) for t, n in entity]


def alter_entry(alteration: ClientQuotaAlteration) -> AlterClientQuotasEntry:
    """The AlterClientQuotas entry of one alteration.

    Raises:
        TypeError: not a ClientQuotaAlteration, or an op that is not an Op.
        ValueError: an empty entity, or a value that is not a number.
    """
    if not isinstance(alteration, ClientQuotaAlteration):
        raise TypeError(f"alter_client_quotas takes ClientQuotaAlteration objects, not {alteration!r}")
    if not alteration.entity:
        raise ValueError("A client quota entity names at least one entity type")
    ops = []
    for op in alteration.ops:
        if not isinstance(op, ClientQuotaAlteration.Op):
            raise TypeError(f"ClientQuotaAlteration ops are ClientQuotaAlteration.Op objects, not {op!r}")
        if op.value is not None and (isinstance(op.value, bool) or not isinstance(op.value, (int, float))):
            raise ValueError(f"The value of quota {op.key!r} must be a number, got {op.value!r}")
        ops.append(
            ClientQuotaOpData(
                key=op.key, value=0.0 if op.value is None else float(op.value), remove=op.value is None
            )
        )
    return AlterClientQuotasEntry(entity=_entity_data(quota_entity(alteration.entity.items())), ops=ops)


class QuotaAdminCalls:
    """The client quota calls of ``AdminClient`` (a mixin: it uses the client's ``_client`` and
    ``_send_to_controller``)."""

    _client: Any

    _send_to_controller: Any  # AdminClient._send_to_controller

    async def describe_client_quotas(
        self, quota_filter: ClientQuotaFilter | None = None
    ) -> dict[ClientQuotaEntity, dict[str, float]]:
        """The quotas of every entity ``quota_filter`` matches (DescribeClientQuotas at any broker).

        Args:
            quota_filter: e.g. ``ClientQuotaFilter.contains_only([ClientQuotaFilterComponent
                .of_entity("user", "alice")])``; default every entity.

        Returns:
            ``{((type, name or None), ...): {quota key: value}}``, values in the broker's order
            (Kafka's: a Java HashMap of the keys).

        Raises:
            TypeError: ``quota_filter`` is not a ClientQuotaFilter.
            InvalidRequestError, UnsupportedVersionError (an unknown entity type), ...: the
                broker's error, with its message.
            KafkaConnectionError: no broker could be reached.
        """
        quota_filter = ClientQuotaFilter.all() if quota_filter is None else quota_filter
        if not isinstance(quota_filter, ClientQuotaFilter):
            raise TypeError(f"describe_client_quotas takes a ClientQuotaFilter, not {quota_filter!r}")
        request = DescribeClientQuotasRequest(
            components=[
                ClientQuotaFilterComponentData(
                    entity_type=c.entity_type, match_type=c.match_type, match=c.match
                )
                for c in quota_filter.components
            ],
            strict=quota_filter.strict,
        )
        response: DescribeClientQuotasResponse = await self._client.send_to_any(request)
        if response.error_code != Errors.NONE:
            cls = error_class(response.error_code)
            raise cls(response.error_message or f"DescribeClientQuotas: {cls.message}")
        return {
            quota_entity((e.entity_type, e.entity_name) for e in entry.entity): {
                v.key: v.value for v in entry.values
            }
            for entry in response.entries or ()
        }

    async def alter_client_quotas(
        self, alterations: Iterable[ClientQuotaAlteration], validate_only: bool = False
    ) -> None:
        """Set and remove client quotas (AlterClientQuotas at the controller).

        Args:
            alterations: ``ClientQuotaAlteration`` objects.
            validate_only: check without changing anything.

        Raises:
            TypeError / ValueError: malformed alterations.
            InvalidRequestError (an unknown quota key, a bad value or entity), ...: the first
                entity's error, with the server's message.
            KafkaTimeoutError: no controller answered in time.
        """
        entries = [alter_entry(a) for a in alterations]
        if not entries:
            return
        response: AlterClientQuotasResponse = await self._send_to_controller(
            lambda: AlterClientQuotasRequest(entries=entries, validate_only=validate_only),
            lambda r: any(x.error_code == Errors.NOT_CONTROLLER for x in r.entries),
            0,
            "AlterClientQuotas",
        )
        for result in response.entries:
            if result.error_code != Errors.NONE:
                cls = error_class(result.error_code)
                entity = quota_entity((e.entity_type, e.entity_name) for e in result.entity)
                raise cls(result.error_message or f"{describe_entity(entity)}: {cls.message}")
