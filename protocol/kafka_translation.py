"""Between Kafka's messages and Kafkette's: the Kafka listener's requests become the same request
structs the msgpack listener decodes, and the broker's answers go back as Kafka's messages.

Every API both listeners speak is declared once, in Kafka's versions (``kafkette.protocol.apis``):
its request reaches the broker as decoded and the broker's answer goes back as it is, but for
the per-API differences this module owns (``TRANSLATIONS``): Metadata
v0's empty topic list meaning all topics; AlterConfigs (33), answered as an IncrementalAlterConfigs
of SETs that replaces the resource's dynamic configs; the authorized operations of Metadata's topics
and cluster and of DescribeCluster (KIP-430: those the broker's authorizer computed, else every
operation); FindCoordinator and LeaveGroup before their batched versions (and FindCoordinator's
messages, worded as Kafka's); DescribeGroups' authorized operations (the broker's, else every
group operation); ListGroups v5's group type
(``classic``) and types filter;
DescribeCluster, answered from a Metadata request; JoinGroup v0, whose rebalance timeout is its
session timeout; Fetch, whose record sets go back in Kafka's record encoding
(``to_kafka_encoding``), with no aborted transactions (an empty list or null, by Kafka's rule);
ListOffsets, whose special timestamps asked before the version defining them (max timestamp, -3, v7;
earliest local, -4, v8; latest tiered, -5, v9; earliest pending upload, -6, v11) are
UNSUPPORTED_VERSION; SyncGroup v5+ without its protocol type or name, refused at once
(INCONSISTENT_GROUP_PROTOCOL) as Kafka's ``KafkaApis`` does; Produce, whose refusal of an internal
topic goes without the broker's message; DescribeAcls, CreateAcls and DeleteAcls with an UNKNOWN
code, which Kafka's request parser refuses.  Pure code, no I/O.

Kafka concept: none in Kafka (it has one protocol); Redpanda's and Tansu's request handlers
play the same part between their wire types and their storage.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kafkette.protocol import apis as internal
from kafkette.protocol.api_keys import API_REGISTRY, KAFKA_APIS, ApiKey, ApiSpec
from kafkette.protocol.apis.metadata import NO_AUTHORIZED_OPERATIONS
from kafkette.protocol.errors import Errors, error_class
from kafkette.protocol.kafka_messages import cluster
from kafkette.protocol.kafka_schema import KafkaStruct
from kafkette.protocol.record_batch import CorruptRecordError, to_kafka_encoding
from kafkette.protocol.schema import Struct as InternalStruct


@dataclass(frozen=True)
class Translation:
    """How one Kafka API reaches the broker.

    Attributes:
        internal: the msgpack API whose handler answers it.
        to_internal: ``(kafka request, version) -> msgpack request``.
        to_kafka: ``(msgpack response, version, kafka request) -> kafka response``.
    """

    internal: ApiKey
    to_internal: Callable[[Any, int], InternalStruct]
    to_kafka: Callable[[Any, int, Any], KafkaStruct]

    @property
    def spec(self) -> ApiSpec:
        return API_REGISTRY[self.internal]


def _by_name(key: ApiKey) -> Translation:
    """The API's messages as they are: both listeners speak its one declaration (``APIS``)."""
    return Translation(key, _as_is, _answer_as_is)


def _as_is(request: Any, version: int) -> Any:
    return request


def _answer_as_is(response: Any, version: int, request: Any) -> Any:
    return response


def _metadata_request(req: Any, version: int) -> InternalStruct:
    """Metadata as the broker takes it: v0's empty topic list asks for every topic (null from v1)."""
    if version == 0 and not req.topics:
        req.topics = None
    return req  # type: ignore[no-any-return]


def _find_coordinator_request(req: Any, version: int) -> Any:
    """FindCoordinator before v4 (one ``key``) as the batch of one key the broker answers (KIP-699)."""
    if version < 4:
        req.coordinator_keys = [req.key]
    return req


def _find_coordinator_response(resp: Any, version: int, req: Any) -> Any:
    """The coordinators as Kafka's ``handleFindCoordinatorRequest`` words them: before v4 the
    first one in the top-level fields with ``Errors.message()`` as its message (``"NONE"`` when
    found, the error's generic text otherwise); from v4 every entry's message left at the
    generated default, ``""``, whatever its error."""
    if version < 4 and resp.coordinators:
        first = resp.coordinators[0]
        resp.error_code, resp.error_message = first.error_code, _kafka_error_message(first.error_code)
        resp.node_id, resp.host, resp.port = first.node_id, first.host, first.port
    for coordinator in resp.coordinators:
        coordinator.error_message = ""
    return resp


def _kafka_error_message(code: int) -> str:
    """Kafka's ``Errors.message()``: the error's name for NONE, else its exception's default message."""
    return "NONE" if code == Errors.NONE else error_class(code).message


# Kafka's AclOperation codes (the bit each sets in an ``authorized_operations`` field)
_READ, _WRITE, _CREATE, _DELETE, _ALTER, _DESCRIBE = 3, 4, 5, 6, 7, 8
_CLUSTER_ACTION, _DESCRIBE_CONFIGS, _ALTER_CONFIGS, _IDEMPOTENT_WRITE = 9, 10, 11, 12
GROUP_AUTHORIZED_OPERATIONS = sum(
    1 << op for op in (_READ, _DELETE, _DESCRIBE, _DESCRIBE_CONFIGS, _ALTER_CONFIGS)
)
"""Every operation ACLs can grant on a group (Kafka's ``AclEntry.supportedOperations(GROUP)``):
what ``AuthHelper.authorizedOperations`` answers on a broker without an authorizer, as here."""
TOPIC_AUTHORIZED_OPERATIONS = sum(
    1 << op for op in (_READ, _WRITE, _CREATE, _DELETE, _ALTER, _DESCRIBE, _DESCRIBE_CONFIGS, _ALTER_CONFIGS)
)
"""Every operation ACLs can grant on a topic (``AclEntry.supportedOperations(TOPIC)``, 3576)."""
CLUSTER_AUTHORIZED_OPERATIONS = sum(
    1 << op
    for op in (
        _CREATE,
        _ALTER,
        _DESCRIBE,
        _CLUSTER_ACTION,
        _DESCRIBE_CONFIGS,
        _ALTER_CONFIGS,
        _IDEMPOTENT_WRITE,
    )
)
"""Every operation ACLs can grant on the cluster (``AclEntry.supportedOperations(CLUSTER)``, 8096)."""


_OPERATIONS_NOT_SET = (int(Errors.TOPIC_AUTHORIZATION_FAILED), int(Errors.UNKNOWN_TOPIC_ID))
"""The Metadata topic errors whose answers keep the "not asked" operations (``handleTopicMetadataRequest``
adds them after setting the others')."""


def _metadata_response(resp: Any, version: int, req: Any) -> KafkaStruct:
    """Metadata with the operations the caller may perform (KIP-430), when the request asks:
    on each topic from v8, on the cluster in v8 to v10 (Kafka's ``handleTopicMetadataRequest``);
    left at the "not asked" default (-2147483648) otherwise.  A value the broker computed (it has
    an authorizer) is kept; one it left at the default is every operation (no authorizer), except
    on the topics Kafka answers outside its authorized list, refused (TOPIC_AUTHORIZATION_FAILED)
    or asked by an unknown id (UNKNOWN_TOPIC_ID), which keep the default."""
    if version >= 8 and req is not None:
        if req.include_topic_authorized_operations:
            for topic in resp.topics:
                if (
                    topic.topic_authorized_operations == NO_AUTHORIZED_OPERATIONS
                    and topic.error_code not in _OPERATIONS_NOT_SET
                ):
                    topic.topic_authorized_operations = TOPIC_AUTHORIZED_OPERATIONS
        if version <= 10 and req.include_cluster_authorized_operations:
            if resp.cluster_authorized_operations == NO_AUTHORIZED_OPERATIONS:
                resp.cluster_authorized_operations = CLUSTER_AUTHORIZED_OPERATIONS
    return resp


def _describe_groups_response(resp: Any, version: int, req: Any) -> KafkaStruct:
    """DescribeGroups with, from v3 and when the request asks, the operations the caller may
    perform on each group described without error (Kafka's ``handleDescribeGroupsRequest``; left
    at the "not asked" default otherwise; a value the broker computed with its authorizer is kept)."""
    if version >= 3 and req is not None and req.include_authorized_operations:
        for group in resp.groups:
            if group.error_code == Errors.NONE and group.authorized_operations == NO_AUTHORIZED_OPERATIONS:
                group.authorized_operations = GROUP_AUTHORIZED_OPERATIONS
    return resp


def _alter_configs_request(req: Any, version: int) -> InternalStruct:
    """AlterConfigs (33) as an IncrementalAlterConfigs whose operations are all SET and which
    replaces each resource's dynamic configs (``replace_all``): a config not listed is deleted,
    as Kafka's legacy ``alterConfigs`` does."""
    configs = internal.configs
    return configs.IncrementalAlterConfigsRequest(
        validate_only=req.validate_only,
        replace_all=True,
        resources=[
            configs.AlterConfigsResource(
                resource_type=r.resource_type,
                resource_name=r.resource_name,
                configs=[
                    configs.AlterableConfig(name=c.name, config_operation=configs.OP_SET, value=c.value)
                    for c in r.configs
                ],
            )
            for r in req.resources
        ],
    )


def _alter_configs_response(resp: Any, version: int, req: Any) -> KafkaStruct:
    """AlterConfigs' (33) answer: the IncrementalAlterConfigs answer's resources, the same fields."""
    return KAFKA_APIS[ApiKey.ALTER_CONFIGS].response(
        throttle_time_ms=resp.throttle_time_ms, responses=resp.responses
    )


def _leave_group_request(req: Any, version: int) -> Any:
    """LeaveGroup before v3 (one ``member_id``) as the batch of one member the broker answers (KIP-345)."""
    if version < 3:
        req.members = [internal.group_membership.MemberIdentity(member_id=req.member_id)]
    return req


def _leave_group_response(resp: Any, version: int, req: Any) -> Any:
    """LeaveGroup before v3: one member, whose error is the request's."""
    if version < 3 and not resp.error_code and resp.members:
        resp.error_code = resp.members[0].error_code
    return resp


def _join_group_request(req: Any, version: int) -> Any:
    if version == 0:
        req.rebalance_timeout_ms = req.session_timeout_ms  # v0 has none: Kafka uses the session timeout
    return req


def _describe_cluster_request(req: Any, version: int) -> InternalStruct:
    """A Metadata request for no topic, asking the cluster's authorized operations when the
    DescribeCluster does (the broker computes them when it has an authorizer)."""
    return internal.metadata.MetadataRequest(
        topics=[],
        allow_auto_topic_creation=False,
        include_cluster_authorized_operations=bool(req.include_cluster_authorized_operations),
    )


def _describe_cluster_response(resp: Any, version: int, req: Any) -> KafkaStruct:
    """DescribeCluster from a Metadata answer, with the cluster's authorized operations when the
    request asks (KIP-430: every cluster operation, there is no authorizer).

    The brokers are the live ones Metadata lists, each ``is_fenced`` false, and when v2 asks
    (``include_fenced_brokers``, KIP-1073) also the registered brokers the controller fenced, each
    ``is_fenced`` true, by broker id, as Kafka's ``handleDescribeCluster`` lists them."""
    fenced = resp.fenced_brokers if version >= 2 and req is not None and req.include_fenced_brokers else []
    brokers = sorted(
        [(b, False) for b in resp.brokers] + [(b, True) for b in fenced], key=lambda entry: entry[0].node_id
    )
    out = cluster.DescribeClusterResponse(
        cluster_id=resp.cluster_id or "",
        controller_id=resp.controller_id,
        brokers=[
            cluster.DescribeClusterBroker(
                broker_id=b.node_id, host=b.host, port=b.port, rack=b.rack, is_fenced=is_fenced
            )
            for b, is_fenced in brokers
        ],
    )
    if req is not None and req.include_cluster_authorized_operations:
        computed = resp.cluster_authorized_operations
        out.cluster_authorized_operations = (
            CLUSTER_AUTHORIZED_OPERATIONS if computed == NO_AUTHORIZED_OPERATIONS else computed
        )
    return out


READ_COMMITTED = 1
"""Kafka's ``IsolationLevel.READ_COMMITTED`` as a Fetch request's ``isolation_level`` (KIP-98)."""


ENDPOINT_TYPES = {1: "BROKER", 2: "CONTROLLER"}
"""KIP-919's endpoint types (Kafka's ``EndpointType``); any other id is UNKNOWN."""


def describe_cluster_refusal(req: Any, version: int) -> KafkaStruct | None:
    """The answer to a DescribeCluster asking for an endpoint type other than this listener's
    (BROKER), or None when it asks for brokers: UNSUPPORTED_ENDPOINT_TYPE for an unknown type,
    MISMATCHED_ENDPOINT_TYPE for CONTROLLER, with Kafka's messages (``AuthHelper.
    computeDescribeClusterResponse``; v0 has no endpoint type and always asks for brokers)."""
    wanted = req.endpoint_type if version >= 1 else 1
    if wanted == 1:
        return None
    if wanted not in ENDPOINT_TYPES:
        return cluster.DescribeClusterResponse(
            error_code=int(Errors.UNSUPPORTED_ENDPOINT_TYPE),
            error_message=f"Unsupported endpoint type {wanted}",
        )
    return cluster.DescribeClusterResponse(
        error_code=int(Errors.MISMATCHED_ENDPOINT_TYPE),
        error_message=(
            "The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type "
            f"{ENDPOINT_TYPES[wanted]}"
        ),
    )


WHOLE_REQUEST_REFUSALS = frozenset({int(Errors.REQUEST_TIMED_OUT), int(Errors.NOT_CONTROLLER)})
"""Codes a controller API's broker answers for every entry when it refuses the whole request (its
deadline already past, no controller); the controller's own decisions answer topics otherwise."""


def _delete_topics_response(resp: Any, version: int, req: Any) -> KafkaStruct:
    """DeleteTopics with one result per topic name, the first: Kafka's answer is keyed by name
    (its ``DeletableTopicResultCollection``), so a name asked twice is answered once, with the
    INVALID_REQUEST of a duplicate (a new answer: the broker's stays whole).  The answers without a
    name (v6: an unknown id, an id given twice, an entry with neither a name nor an id) are all kept,
    as Kafka's controller answers each of them (two entries with neither get two answers).  A refusal
    of the whole request (REQUEST_TIMED_OUT or NOT_CONTROLLER on every entry) is Kafka's
    ``DeleteTopicsRequest.getErrorResponse``, one answer per entry, a name asked twice twice."""
    codes = {r.error_code for r in resp.responses}
    if len(codes) == 1 and codes <= WHOLE_REQUEST_REFUSALS:
        return resp
    seen: set[str] = set()
    kept = []
    for result in resp.responses:
        if result.name is None or result.name not in seen:
            if result.name is not None:
                seen.add(result.name)
            kept.append(result)
    return type(resp)(throttle_time_ms=resp.throttle_time_ms, responses=kept)


def _delete_groups_request(req: Any, version: int) -> Any:
    """DeleteGroups of each group once: Kafka deletes a group named twice once and answers it
    once (its result is keyed by group id), where deleting it again would find no group."""
    req.groups_names = list(dict.fromkeys(req.groups_names))
    return req


class UnparseableRequestError(ValueError):
    """A request Kafka's own request class refuses to build (its constructor throws while the
    request is parsed): Kafka answers nothing and closes the connection, whatever the API's answer
    could carry."""


_UNKNOWN = 0  # Kafka's UNKNOWN code of ResourceType, PatternType, AclOperation and AclPermissionType


def _has_unknown(*codes: int) -> bool:
    return _UNKNOWN in codes


def _describe_acls_request(req: Any, version: int) -> Any:
    """DescribeAcls as Kafka's ``DescribeAclsRequest`` parses it: a filter with an UNKNOWN code
    is an invalid request (Kafka's parser throws, the connection is closed unanswered, though
    DescribeAcls' answer has a top-level error code)."""
    if _has_unknown(req.pattern_type_filter, req.resource_type_filter, req.permission_type, req.operation):
        raise UnparseableRequestError("DescribeAclsRequest contains UNKNOWN elements")
    return req


def _create_acls_request(req: Any, version: int) -> Any:
    """CreateAcls as Kafka's ``CreateAclsRequest`` parses it: a creation with an UNKNOWN code is an
    invalid request."""
    if any(
        _has_unknown(c.resource_pattern_type, c.resource_type, c.permission_type, c.operation)
        for c in req.creations
    ):
        raise UnparseableRequestError("CreatableAcls contain unknown elements")
    return req


def _delete_acls_request(req: Any, version: int) -> Any:
    """DeleteAcls as Kafka's ``DeleteAclsRequest`` parses it: a filter with an UNKNOWN code is an
    invalid request."""
    if any(
        _has_unknown(f.pattern_type_filter, f.resource_type_filter, f.operation, f.permission_type)
        for f in req.filters
    ):
        raise UnparseableRequestError("Filters contain UNKNOWN elements")
    return req


_ANSWERED_BEFORE_READ = (
    Errors.UNKNOWN_TOPIC_OR_PARTITION,
    Errors.UNKNOWN_TOPIC_ID,
    Errors.TOPIC_AUTHORIZATION_FAILED,
)
"""The Fetch partition errors ``KafkaApis.handleFetchRequest`` answers before reading the log."""


def _fetch_response(resp: Any, version: int, req: Any) -> KafkaStruct:
    """Fetch in Kafka's record encoding.  Every partition carries a record set, an empty one
    when it has none (an error, nothing new): Kafka's broker answers ``MemoryRecords.EMPTY``
    there, and librdkafka rejects a null record set as a parse failure of the whole response.

    Aborted transactions as Kafka answers them: a list (the handler's, from the log's
    ``.txnindex``; empty when none overlaps the read) for a partition read without error by a
    read_committed fetch (isolation level 1; Kafka's ``LocalLog.read`` collects them) and for
    a partition the metadata does not know, of an unknown topic id or of a topic the caller may
    not READ (UNKNOWN_TOPIC_OR_PARTITION,
    UNKNOWN_TOPIC_ID, TOPIC_AUTHORIZATION_FAILED, answered by ``KafkaApis`` before any read with the
    generated default, an empty list); null otherwise (read_uncommitted, or an error of the log
    read)."""
    read_committed = req is not None and req.isolation_level == READ_COMMITTED
    for topic in resp.responses:
        for partition in topic.partitions:
            listed = partition.error_code in _ANSWERED_BEFORE_READ or (
                read_committed and partition.error_code == Errors.NONE
            )
            partition.aborted_transactions = (partition.aborted_transactions or []) if listed else None
            if partition.records is None:
                partition.records = b""
                continue
            try:
                partition.records = to_kafka_encoding(partition.records)
            except CorruptRecordError:  # a stored msgpack batch that cannot be re-encoded
                partition.records = b""
                partition.error_code = int(Errors.CORRUPT_MESSAGE)
    return resp


def _produce_response(resp: Any, version: int, req: Any) -> KafkaStruct:
    """Produce with Kafka's error messages: a partition refused as an internal topic
    (INVALID_TOPIC_EXCEPTION) carries none, as Kafka's ``LogAppendResult.errorMessage`` is null for
    every refusal but a record validation error (its ``hasCustomErrorMessage``); the msgpack
    listener's answer keeps "Cannot append to internal topic <name>" for the SDK's exception.
    The broker's answer, made for this request alone, is changed in place."""
    for topic in resp.responses:
        for partition in topic.partition_responses:
            if partition.error_code == Errors.INVALID_TOPIC_EXCEPTION:
                partition.error_message = None
    return resp


LIST_OFFSETS_TIMESTAMP_MIN_VERSION = {-3: 7, -4: 8, -5: 9, -6: 11}
"""The first ListOffsets version defining each special timestamp this broker answers (-3, max
timestamp, KIP-734; -4, earliest local, KIP-405; -5, latest tiered, KIP-1005; -6, earliest pending
upload, KIP-1023); -1 and -2 are defined in every version (Kafka's
``ReplicaManager.timestampMinSupportedVersion``)."""


def _list_offsets_response(resp: Any, version: int, req: Any) -> KafkaStruct:
    """ListOffsets in which a special timestamp the request's version does not define yet
    (``LIST_OFFSETS_TIMESTAMP_MIN_VERSION``: max timestamp, -3, before v7, earliest local, -4, before
    v8, latest tiered, -5, before v9, earliest pending upload, -6, before v11) is UNSUPPORTED_VERSION,
    with offset, timestamp and leader epoch -1."""
    too_new = {
        (t.name, p.partition_index)
        for t in req.topics
        for p in t.partitions
        if version < LIST_OFFSETS_TIMESTAMP_MIN_VERSION.get(p.timestamp, 0)
    }
    for topic in resp.topics:
        for partition in topic.partitions:
            if (
                topic.name,
                partition.partition_index,
            ) in too_new and partition.error_code != Errors.INVALID_REQUEST:
                partition.error_code = int(Errors.UNSUPPORTED_VERSION)
                partition.offset = partition.timestamp = partition.leader_epoch = -1
    return resp


SYNC_GROUP_MANDATORY_PROTOCOL_VERSION = 5
"""From SyncGroup v5 on the protocol type and name are mandatory (KIP-559)."""


def _sync_group_refusal(req: Any, version: int) -> KafkaStruct | None:
    """INCONSISTENT_GROUP_PROTOCOL for a SyncGroup v5+ without its protocol type or name, before
    any check of the group or the member (Kafka's ``SyncGroupRequest.areMandatoryProtocolTypeAndNamePresent``,
    the first check of ``KafkaApis.handleSyncGroupRequest``)."""
    if version >= SYNC_GROUP_MANDATORY_PROTOCOL_VERSION and (
        req.protocol_type is None or req.protocol_name is None
    ):
        return KAFKA_APIS[int(ApiKey.SYNC_GROUP)].response(error_code=int(Errors.INCONSISTENT_GROUP_PROTOCOL))
    return None


def _describe_configs_response(resp: Any, version: int, req: Any) -> KafkaStruct:
    """DescribeConfigs as Kafka's ``ConfigHelper.describeConfigs`` leaves the fields it does not
    set at their generated defaults: a resource described without error carries the empty error
    message (``""``, not null), and a config's documentation is null unless the request asked for
    it (``include_documentation``, v3+); a topic it does not know is UNKNOWN_TOPIC_OR_PARTITION with
    that empty message too (the msgpack listener's answer keeps the topic's name for the SDK)."""
    with_documentation = version >= 3 and bool(req.include_documentation)
    for result in resp.results:
        if (
            result.error_code == Errors.NONE and result.error_message is None
        ) or result.error_code == Errors.UNKNOWN_TOPIC_OR_PARTITION:
            result.error_message = ""
        if not with_documentation:
            for config in result.configs:
                config.documentation = None
    return resp


def _translation(
    key: ApiKey,
    to_internal: Callable[[Any, int], InternalStruct] | None = None,
    to_kafka: Callable[[Any, int, Any], KafkaStruct] | None = None,
) -> Translation:
    plain = _by_name(key)
    return Translation(key, to_internal or plain.to_internal, to_kafka or plain.to_kafka)


REFUSALS: dict[int, Callable[[Any, int], KafkaStruct | None]] = {
    ApiKey.DESCRIBE_CLUSTER: describe_cluster_refusal,
    int(ApiKey.SYNC_GROUP): _sync_group_refusal,
}
"""Requests the listener answers itself, by API key: each returns the answer when it refuses
the request before the broker sees it, else None."""

TRANSLATIONS: dict[int, Translation] = {
    int(ApiKey.PRODUCE): _translation(ApiKey.PRODUCE, to_kafka=_produce_response),
    int(ApiKey.FETCH): _translation(ApiKey.FETCH, to_kafka=_fetch_response),
    int(ApiKey.LIST_OFFSETS): _translation(ApiKey.LIST_OFFSETS, to_kafka=_list_offsets_response),
    int(ApiKey.METADATA): _translation(ApiKey.METADATA, _metadata_request, _metadata_response),
    int(ApiKey.FIND_COORDINATOR): _translation(
        ApiKey.FIND_COORDINATOR, _find_coordinator_request, _find_coordinator_response
    ),
    int(ApiKey.JOIN_GROUP): _translation(ApiKey.JOIN_GROUP, to_internal=_join_group_request),
    int(ApiKey.LEAVE_GROUP): _translation(ApiKey.LEAVE_GROUP, _leave_group_request, _leave_group_response),
    int(ApiKey.DESCRIBE_GROUPS): _translation(ApiKey.DESCRIBE_GROUPS, to_kafka=_describe_groups_response),
    int(ApiKey.DELETE_TOPICS): _translation(ApiKey.DELETE_TOPICS, to_kafka=_delete_topics_response),
    int(ApiKey.DESCRIBE_CONFIGS): _translation(ApiKey.DESCRIBE_CONFIGS, to_kafka=_describe_configs_response),
    int(ApiKey.DELETE_GROUPS): _translation(ApiKey.DELETE_GROUPS, to_internal=_delete_groups_request),
    ApiKey.ALTER_CONFIGS: Translation(
        ApiKey.INCREMENTAL_ALTER_CONFIGS, _alter_configs_request, _alter_configs_response
    ),
    int(ApiKey.DESCRIBE_ACLS): _translation(ApiKey.DESCRIBE_ACLS, to_internal=_describe_acls_request),
    int(ApiKey.CREATE_ACLS): _translation(ApiKey.CREATE_ACLS, to_internal=_create_acls_request),
    int(ApiKey.DELETE_ACLS): _translation(ApiKey.DELETE_ACLS, to_internal=_delete_acls_request),
    ApiKey.DESCRIBE_CLUSTER: Translation(
        ApiKey.METADATA, _describe_cluster_request, _describe_cluster_response
    ),
}


def translation_of(api_key: int) -> Translation:
    """How the Kafka listener passes API ``api_key`` to the broker: its entry in ``TRANSLATIONS``,
    else its one declaration as it is (an API the Kafka listener offers with no per-API difference).

    Raises:
        ValueError: ``api_key`` is not an API key Kafkette knows (the codec checked it first).
    """
    translation = TRANSLATIONS.get(int(api_key))
    return translation if translation is not None else _by_name(ApiKey(api_key))
