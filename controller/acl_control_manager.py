"""AclControlManager: the CreateAcls and DeleteAcls decisions (KIP-140, KIP-801).

Owns: checking each creation with Kafka's rules and messages (the checks Kafka's ``AclApis``
makes first: a CLUSTER resource must be named ``kafka-cluster``, a name must not be empty; then
``validate_new_acl``), creating an ACL only when no equal ACL exists or comes earlier in the same
request (a duplicate succeeds without a record, as in Kafka), and matching each DeleteAcls filter
against the stored ACLs (``validate_filter`` first; every match listed in that filter's result,
one ``RemoveAccessControlEntryRecord`` per ACL however many filters match it).  Kafka's limit:
at most ``MAX_RECORDS_PER_USER_OP`` (10000) records per request.  The records of one request are
one atomic batch.  Does not own the ACLs (``ControllerContext.acls``, changed by replay) nor
their propagation (``AclApis``).

Kafka concept: KRaft's ``AclControlManager.createAcls`` / ``deleteAcls`` plus the per-creation
checks of ``AclApis.handleCreateAcls``.
"""

from __future__ import annotations

from kafkette.common.security.acl import (
    AccessControlEntry,
    AclBinding,
    AclOperation,
    AclPermissionType,
    InvalidRequestException,
    PatternType,
    ResourcePattern,
    ResourceType,
    validate_filter,
    validate_new_acl,
)
from kafkette.common.security.acl_messages import acl_binding, acl_binding_filter, matching_acl
from kafkette.controller.controller_context import ControllerContext
from kafkette.controller.metadata_records import (
    AccessControlEntryRecord,
    ControllerResult,
    MetadataRecord,
    RemoveAccessControlEntryRecord,
)
from kafkette.protocol.apis.acls import (
    AclCreationResult,
    CreateAclsRequest,
    CreateAclsResponse,
    DeleteAclsFilterResult,
    DeleteAclsRequest,
    DeleteAclsResponse,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.kafka_uuid import random_uuid_string

MAX_RECORDS_PER_USER_OP = 10000  # Kafka's QuorumController.MAX_RECORDS_PER_USER_OP
CLUSTER_NAME = "kafka-cluster"  # Kafka's CommonClientConfigs / Resource.CLUSTER_NAME
ONLY_CLUSTER_NAME = "The only valid name for the CLUSTER resource is " + CLUSTER_NAME
INVALID_EMPTY_NAME = "Invalid empty resource name"
TOO_MANY_DELETIONS = f"Cannot remove more than {MAX_RECORDS_PER_USER_OP} acls in a single delete operation."

_AclKey = tuple[int, str, int, str, str, int, int]


def _key(binding: AclBinding) -> _AclKey:
    """An ACL's identity apart from its id (Kafka's ``StandardAcl`` equality)."""
    pattern, entry = binding.pattern, binding.entry
    return (
        int(pattern.resource_type),
        pattern.name,
        int(pattern.pattern_type),
        entry.principal,
        entry.host,
        int(entry.operation),
        int(entry.permission_type),
    )


def _record_key(record: AccessControlEntryRecord) -> _AclKey:
    return (
        record.resource_type,
        record.resource_name,
        record.pattern_type,
        record.principal,
        record.host,
        record.operation,
        record.permission_type,
    )


def _check_creation(binding: AclBinding) -> None:
    """``AclApis``' checks, then ``AclControlManager.validateNewAcl``.

    Raises:
        InvalidRequestException: with Kafka's message.
    """
    pattern = binding.pattern
    if pattern.resource_type is ResourceType.CLUSTER and pattern.name != CLUSTER_NAME:
        raise InvalidRequestException(ONLY_CLUSTER_NAME)
    if not pattern.name:
        raise InvalidRequestException(INVALID_EMPTY_NAME)
    validate_new_acl(binding)


def _failed_creations(request: CreateAclsRequest) -> CreateAclsResponse:
    """The answer of a CreateAcls that failed whole: UNKNOWN_SERVER_ERROR, no message, for each."""
    return CreateAclsResponse(
        throttle_time_ms=0,
        results=[
            AclCreationResult(error_code=Errors.UNKNOWN_SERVER_ERROR, error_message=None)
            for _ in request.creations
        ],
    )


class AclControlManager:
    """Decides CreateAcls and DeleteAcls against the replayed ACLs.

    Args:
        context: the controller's state (``acls``: ACL id -> its ``AccessControlEntryRecord``).
        new_id: makes an ACL id (Kafka's ``Uuid.randomUuid()`` string); one already used is
            drawn again.
    """

    def __init__(self, context: ControllerContext, new_id=random_uuid_string) -> None:
        self._context = context
        self._new_id = new_id

    def _unused_id(self, taken: set[str]) -> str:
        while True:
            acl_id = self._new_id()
            if acl_id not in self._context.acls and acl_id not in taken:
                return acl_id

    def create_acls(self, request: CreateAclsRequest) -> ControllerResult[CreateAclsResponse]:
        """One ``AccessControlEntryRecord`` per new, valid ACL, and one result per creation.

        Results, in request order: INVALID_REQUEST with Kafka's message for a refused creation,
        else NONE (also for an ACL that exists already or is repeated in the request: no record).
        A creation whose codes Kafka cannot even represent (resource type ANY, pattern type ANY or
        MATCH, operation or permission type ANY) fails the whole request, as does more than
        ``MAX_RECORDS_PER_USER_OP`` new ACLs: every creation is answered UNKNOWN_SERVER_ERROR
        with no message and nothing is written.
        """
        try:
            bindings = [acl_binding(creation) for creation in request.creations]
        except ValueError:
            return ControllerResult([], _failed_creations(request))
        existing = {_record_key(record) for record in self._context.acls.values()}
        records: list[MetadataRecord] = []
        created: set[_AclKey] = set()
        taken: set[str] = set()
        results = []
        for binding in bindings:
            try:
                _check_creation(binding)
            except InvalidRequestException as exc:
                results.append(AclCreationResult(error_code=Errors.INVALID_REQUEST, error_message=str(exc)))
                continue
            key = _key(binding)
            if key not in existing and key not in created:
                if len(records) >= MAX_RECORDS_PER_USER_OP:
                    return ControllerResult([], _failed_creations(request))
                created.add(key)
                acl_id = self._unused_id(taken)
                taken.add(acl_id)
                records.append(AccessControlEntryRecord(acl_id, *key))
            # Kafka leaves a success's message at its default, "" (not null)
            results.append(AclCreationResult(error_code=Errors.NONE, error_message=""))
        return ControllerResult(records, CreateAclsResponse(throttle_time_ms=0, results=results))

    def delete_acls(self, request: DeleteAclsRequest) -> ControllerResult[DeleteAclsResponse]:
        """One ``RemoveAccessControlEntryRecord`` per ACL some valid filter matches, and one
        result per filter, in request order: NONE (null message) with the ACLs it matched, each
        NONE, or INVALID_REQUEST with Kafka's message for a filter with an UNKNOWN field.

        When the ACLs to delete would exceed ``MAX_RECORDS_PER_USER_OP`` nothing is deleted and
        every filter is answered INVALID_REQUEST with Kafka's message.
        """
        removed: dict[str, None] = {}
        results = []
        for wire_filter in request.filters:
            acl_filter = acl_binding_filter(wire_filter)
            try:
                validate_filter(acl_filter)
            except InvalidRequestException as exc:
                results.append(
                    DeleteAclsFilterResult(
                        error_code=Errors.INVALID_REQUEST, error_message=str(exc), matching_acls=[]
                    )
                )
                continue
            matched = []
            for acl_id, record in self._context.acls.items():
                binding = acl_binding_of(record)
                if not acl_filter.matches(binding):
                    continue
                if len(removed) >= MAX_RECORDS_PER_USER_OP:
                    return ControllerResult(
                        [],
                        DeleteAclsResponse(
                            throttle_time_ms=0,
                            filter_results=[
                                DeleteAclsFilterResult(
                                    error_code=Errors.INVALID_REQUEST,
                                    error_message=TOO_MANY_DELETIONS,
                                    matching_acls=[],
                                )
                                for _ in request.filters
                            ],
                        ),
                    )
                removed[acl_id] = None
                matched.append(matching_acl(binding))
            results.append(
                DeleteAclsFilterResult(error_code=Errors.NONE, error_message=None, matching_acls=matched)
            )
        return ControllerResult(
            [RemoveAccessControlEntryRecord(acl_id) for acl_id in removed],
            DeleteAclsResponse(throttle_time_ms=0, filter_results=results),
        )


def acl_binding_of(record: AccessControlEntryRecord) -> AclBinding:
    """The binding an ``AccessControlEntryRecord`` stores (Kafka's ``StandardAcl.toBinding``)."""
    return AclBinding(
        ResourcePattern(
            ResourceType.from_code(record.resource_type),
            record.resource_name,
            PatternType.from_code(record.pattern_type),
        ),
        AccessControlEntry(
            record.principal,
            record.host,
            AclOperation.from_code(record.operation),
            AclPermissionType.from_code(record.permission_type),
        ),
    )
