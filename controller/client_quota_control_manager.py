"""ClientQuotaControlManager: the AlterClientQuotas decision (KIP-546).

Owns: validating each entity's alterations with Kafka's rules and messages (entity types
``user``/``client-id``/``ip`` and their combinations, the quota keys each takes, values above 0,
integral values for LONG and INT quotas, a key named twice or an entity named twice in one
request) and turning the accepted ones into ``ClientQuotaRecord``s, only for values that change.
Does not own the quotas (``ControllerContext.client_quotas``, changed by replay), propagation
(``ClientQuotaApis``) nor enforcement (each broker's ``ClientQuotaManager``).

Kafka concept: KRaft's ``ClientQuotaControlManager.alterClientQuotas``.
"""

from __future__ import annotations

import ipaddress
import math

from kafkette.common.client_quota_entity import (
    CLIENT_ID,
    IP,
    IP_QUOTA_TYPES,
    USER,
    USER_AND_CLIENT_QUOTA_TYPES,
    ClientQuotaEntity,
    describe_entity,
    quota_entity,
)
from kafkette.controller.controller_context import ControllerContext
from kafkette.controller.metadata_records import ClientQuotaRecord, ControllerResult, MetadataRecord
from kafkette.protocol.apis.client_quotas import (
    AlterClientQuotasEntry,
    AlterClientQuotasEntryResult,
    AlterClientQuotasRequest,
    AlterClientQuotasResponse,
    ClientQuotaEntityData,
)
from kafkette.protocol.errors import Errors

LONG_MAX = 2**63 - 1
INT_MAX = 2**31 - 1


def _entity_refusal(entity: ClientQuotaEntity) -> str | None:
    """Kafka's ``validateEntity`` and ``configKeysForEntityType`` messages (INVALID_REQUEST)."""
    if not entity:
        return "Invalid empty client quota entity"
    for entity_type, name in entity:
        if entity_type not in (USER, CLIENT_ID, IP):
            return f"Unhandled client quota entity type: {entity_type}"
        if name == "":
            return f"Empty {entity_type} not supported"
    types = {t for t, _ in entity}
    if IP in types:
        if types & {USER, CLIENT_ID}:
            # Kafka's text, its missing space included
            return "Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId"
        address = dict(entity)[IP]
        if address is not None:
            try:
                ipaddress.ip_address(address)
            except ValueError:
                return f"{address} is not a valid IP or resolvable host."
    return None


def _value_refusal(key_types: dict[str, str], key: str, value: float) -> str | None:
    """Kafka's ``validateQuotaKeyValue`` messages (INVALID_REQUEST)."""
    key_type = key_types.get(key)
    if key_type is None:
        return f"Invalid configuration key {key}"
    if value <= 0.0:
        return f"Quota {key} must be greater than 0"
    if key_type == "DOUBLE":
        return None
    if key_type == "LONG" and value > LONG_MAX:
        return f"Proposed value for {key} is too large for a LONG."
    if key_type == "INT" and value > INT_MAX:
        return f"Proposed value for {key} is too large for an INT."
    if abs(math.fmod(value, 1.0)) > 1e-6:
        return f"{key} cannot be a fractional value."
    return None


def entity_data(entity: ClientQuotaEntity) -> list[ClientQuotaEntityData]:
    """The wire form of ``entity``."""
    return [ClientQuotaEntityData(entity_type=t, entity_name=n) for t, n in entity]


class ClientQuotaControlManager:
    """Decides AlterClientQuotas against the replayed quotas.

    Args:
        context: the controller's state (``client_quotas``: entity -> {quota key: value}).
    """

    def __init__(self, context: ControllerContext) -> None:
        self._context = context

    def _alter_entity(
        self, entity: ClientQuotaEntity, alterations: dict[str, float | None], records: list[MetadataRecord]
    ) -> str | None:
        refusal = _entity_refusal(entity)
        if refusal is not None:
            return refusal
        key_types = IP_QUOTA_TYPES if any(t == IP for t, _ in entity) else USER_AND_CLIENT_QUOTA_TYPES
        current = self._context.client_quotas.get(entity, {})
        changes: list[MetadataRecord] = []
        pairs = [list(pair) for pair in entity]
        for key, value in alterations.items():
            if value is None:
                if key in current:
                    changes.append(ClientQuotaRecord(pairs, key, 0.0, remove=True))
                continue
            refusal = _value_refusal(key_types, key, value)
            if refusal is not None:
                return refusal
            if current.get(key) != value:
                changes.append(ClientQuotaRecord(pairs, key, value, remove=False))
        records += changes
        return None

    def alter_client_quotas(
        self, request: AlterClientQuotasRequest
    ) -> ControllerResult[AlterClientQuotasResponse]:
        """The records of every entity whose alterations are all valid, and one result per entity.

        As Kafka's: an op key named twice, or an entity named twice (the later entry), answers the
        entity "Ignoring duplicate entity ..." (records already decided for an earlier entry of it
        stay); a refused entity writes nothing.  With ``validate_only`` no record is returned.
        """
        records: list[MetadataRecord] = []
        results: dict[ClientQuotaEntity, tuple[Errors, str | None]] = {}
        for entry in request.entries:
            entity = self._entity(entry)
            alterations: dict[str, float | None] = {}
            for op in entry.ops:
                if op.key in alterations:
                    results[entity] = (
                        Errors.INVALID_REQUEST,
                        f"Duplicate quota key {op.key} not updating quota for this entity "
                        f"{describe_entity(entity)}",
                    )
                else:
                    alterations[op.key] = None if op.remove else op.value
            if entity in results:
                results[entity] = (
                    Errors.INVALID_REQUEST,
                    f"Ignoring duplicate entity {describe_entity(entity)}",
                )
                continue
            refusal = self._alter_entity(entity, alterations, records)
            results[entity] = (Errors.NONE, None) if refusal is None else (Errors.INVALID_REQUEST, refusal)
        response = AlterClientQuotasResponse(
            throttle_time_ms=0,
            entries=[
                AlterClientQuotasEntryResult(
                    error_code=code, error_message=message, entity=entity_data(entity)
                )
                for entity, (code, message) in results.items()
            ],
        )
        return ControllerResult([] if request.validate_only else records, response)

    @staticmethod
    def _entity(entry: AlterClientQuotasEntry) -> ClientQuotaEntity:
        # Kafka reads the entity into a map: a type named twice keeps its last name
        return quota_entity({e.entity_type: e.entity_name for e in entry.entity}.items())
