"""ClientQuotaCache: the client quotas the controller sent this broker (KIP-546).

Owns: every entity's quota values as UpdateMetadata's ``client_quotas`` gives them (each listed
entity's whole set; a full update replaces them all), and DescribeClientQuotas' answer from them
with Kafka's filter rules and messages (components EXACT / DEFAULT / SPECIFIED, ``strict``).
Does not own where quotas are decided (the controller's ``ClientQuotaControlManager``) nor
enforcement (``ClientQuotaManager``, which reads ``quotas``).

Kafka concept: the broker's ``ClientQuotasImage`` (``describe``), fed by ``ClientQuotasDelta``.
"""

from __future__ import annotations

from collections.abc import Mapping

from kafkette.common.client_quota_entity import CLIENT_ID, IP, USER, ClientQuotaEntity, quota_entity
from kafkette.common.java_hash_order import java_hash_set_order
from kafkette.protocol.apis.client_quotas import (
    MATCH_TYPE_DEFAULT,
    MATCH_TYPE_EXACT,
    MATCH_TYPE_SPECIFIED,
    ClientQuotaEntityData,
    ClientQuotaValueData,
    DescribeClientQuotasEntry,
    DescribeClientQuotasRequest,
    DescribeClientQuotasResponse,
)
from kafkette.protocol.errors import Errors


class _Refused(Exception):
    def __init__(self, code: Errors, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class ClientQuotaCache:
    """Client quota entity -> {quota key: value}, replaced per entity by the controller's updates."""

    def __init__(self) -> None:
        self._quotas: dict[ClientQuotaEntity, dict[str, float]] = {}

    def update(self, entries: list[DescribeClientQuotasEntry], full: bool) -> None:
        """Apply UpdateMetadata's ``client_quotas``: each listed entity's values replace its own
        (none: the entity has no quota left); ``full`` first forgets every entity."""
        if full:
            self._quotas.clear()
        for entry in entries:
            entity = quota_entity((e.entity_type, e.entity_name) for e in entry.entity)
            if entry.values:
                self._quotas[entity] = {v.key: v.value for v in entry.values}
            else:
                self._quotas.pop(entity, None)

    @property
    def quotas(self) -> Mapping[ClientQuotaEntity, Mapping[str, float]]:
        """Every entity with a quota (read-only view)."""
        return self._quotas

    def describe(self, request: DescribeClientQuotasRequest) -> DescribeClientQuotasResponse:
        """The entities matching every filter component, with their values in the order Kafka's
        broker keeps them (a Java ``HashMap`` of the quota keys); a bad filter is answered with
        Kafka's code and message and no entries."""
        try:
            exact, specified = _filter(request)
        except _Refused as refused:
            return DescribeClientQuotasResponse(
                throttle_time_ms=0, error_code=refused.code, error_message=refused.message, entries=None
            )
        entries = [
            DescribeClientQuotasEntry(
                entity=[ClientQuotaEntityData(entity_type=t, entity_name=n) for t, n in entity],
                values=[
                    ClientQuotaValueData(key=k, value=values[k]) for k in java_hash_set_order(sorted(values))
                ],
            )
            for entity, values in sorted(self._quotas.items(), key=lambda item: repr(item[0]))
            if _matches(dict(entity), exact, specified, request.strict)
        ]
        return DescribeClientQuotasResponse(
            throttle_time_ms=0, error_code=Errors.NONE, error_message="", entries=entries
        )


def _filter(request: DescribeClientQuotasRequest) -> tuple[dict[str, str | None], set[str]]:
    """Kafka's ``ClientQuotasImage.describe`` checks of the filter: (exact names by type, types
    that must be present)."""
    exact: dict[str, str | None] = {}
    specified: set[str] = set()
    for component in request.components:
        entity_type = component.entity_type
        if not entity_type:
            raise _Refused(Errors.INVALID_REQUEST, "Invalid empty entity type.")
        if entity_type in exact or entity_type in specified:
            raise _Refused(
                Errors.INVALID_REQUEST,
                f"Entity type {entity_type} cannot appear more than once in the filter.",
            )
        if entity_type not in (IP, USER, CLIENT_ID):
            raise _Refused(Errors.UNSUPPORTED_VERSION, f"Unsupported entity type {entity_type}")
        if component.match_type == MATCH_TYPE_EXACT:
            if component.match is None:
                raise _Refused(
                    Errors.INVALID_REQUEST,
                    "Request specified MATCH_TYPE_EXACT, but set match string to null.",
                )
            exact[entity_type] = component.match
        elif component.match_type == MATCH_TYPE_DEFAULT:
            if component.match is not None:
                raise _Refused(
                    Errors.INVALID_REQUEST,
                    "Request specified MATCH_TYPE_DEFAULT, but also specified a match string.",
                )
            exact[entity_type] = None
        elif component.match_type == MATCH_TYPE_SPECIFIED:
            if component.match is not None:
                raise _Refused(
                    Errors.INVALID_REQUEST,
                    "Request specified MATCH_TYPE_SPECIFIED, but also specified a match string.",
                )
            specified.add(entity_type)
        else:
            raise _Refused(Errors.INVALID_REQUEST, f"Unknown match type {component.match_type}")
    named = set(exact) | specified
    if IP in named and named & {USER, CLIENT_ID}:
        raise _Refused(
            Errors.INVALID_REQUEST,
            "Invalid entity filter component combination. IP filter component should not be used with "
            "user or clientId filter component.",
        )
    return exact, specified


def _matches(
    entity: dict[str, str | None], exact: dict[str, str | None], specified: set[str], strict: bool
) -> bool:
    if strict and len(entity) != len(exact) + len(specified):
        return False
    if any(t not in entity or entity[t] != name for t, name in exact.items()):
        return False
    return all(t in entity for t in specified)
