"""What the group APIs shared with classic groups answer for a KIP-848 consumer group.

Owns: a consumer group's OffsetCommit check (its member and epoch, then each partition's assignment epoch,
KIP-1251: one refused partition fails the whole commit), its OffsetFetch check (v9+ member and epoch), its
ListGroups entry (type and protocol type ``consumer``), its DescribeGroups answer (Kafka describes only
classic groups there), and the records that delete an empty consumer group.  Does not own offsets, the
classic groups, nor the consumer group's state.

Kafka concept: ``OffsetMetadataManager.validateOffsetCommit`` / ``validateOffsetFetch`` over
``ConsumerGroup.validateOffsetCommit`` / ``validateOffsetFetch``, ``ConsumerGroup.asListedGroup``,
``GroupMetadataManager.describeGroups`` and ``ConsumerGroup.createGroupTombstoneRecords``.
"""

from __future__ import annotations

from collections.abc import Callable

from kafkette.broker.group import consumer_group_record_helpers as rh
from kafkette.broker.group.consumer_group import ConsumerGroup
from kafkette.broker.group.consumer_group_errors import ConsumerGroupError
from kafkette.broker.group.consumer_group_offsets import CommitPartitionValidator
from kafkette.broker.group.consumer_group_record_helpers import CoordinatorRecord
from kafkette.broker.group.consumer_group_records import ConsumerGroupRegularExpressionKey
from kafkette.protocol.apis.group_admin import DescribedGroup, ListedGroup
from kafkette.protocol.apis.offsets import OffsetCommitRequest, OffsetFetchRequestGroup
from kafkette.protocol.apis.transactions import TxnOffsetCommitRequest
from kafkette.protocol.errors import Errors
from kafkette.protocol.kafka_schema import ZERO_UUID

CONSUMER_PROTOCOL_TYPE = "consumer"
"""A consumer group's protocol type and group type (Kafka's ``ConsumerProtocol.PROTOCOL_TYPE``,
``Group.GroupType.CONSUMER``)."""
CLASSIC_GROUP_TYPE = "classic"
"""A classic group's type in ListGroups v5 (Kafka's ``Group.GroupType.CLASSIC``)."""
DESCRIBE_NOT_FOUND_FROM_VERSION = 6
"""From this DescribeGroups version a group that is not classic is GROUP_ID_NOT_FOUND (KIP-1043)."""


def commit_error(
    group: ConsumerGroup,
    request: OffsetCommitRequest | TxnOffsetCommitRequest,
    version: int,
    topic_id_of: Callable[[str], bytes | None],
    metadata_fits: Callable[[str | None], bool],
    *,
    is_transactional: bool = False,
) -> Errors:
    """The error every partition of an OffsetCommit (or TxnOffsetCommit) to a consumer group gets, NONE
    when it may commit.

    Args:
        request: the commit, topics by name.
        version: its OffsetCommit version (a consumer member needs v9+), or its TxnOffsetCommit version.
        topic_id_of: topic name -> id, None for an unknown topic.
        metadata_fits: whether a partition's metadata passes ``offset.metadata.max.bytes`` (Kafka checks
            it before the partition's assignment epoch, and a partition refused for it is not validated).
        is_transactional: a TxnOffsetCommit (Kafka's ``validateTransactionalOffsetCommit``): a stale member
            epoch is ILLEGAL_GENERATION, and so is a topic unknown to the metadata when the member's
            assignment is to be checked.
    """
    try:
        validator = group.validate_offset_commit(
            request.member_id,
            request.generation_id,
            api_version=version,
            group_instance_id=request.group_instance_id,
            is_transactional=is_transactional,
        )
        for topic in request.topics:
            topic_id = topic_id_of(topic.name)
            if is_transactional and topic_id is None and validator is not CommitPartitionValidator.NO_OP:
                return Errors.ILLEGAL_GENERATION
            for p in topic.partitions:
                if metadata_fits(p.committed_metadata):
                    validator.validate(topic.name, topic_id or ZERO_UUID, p.partition_index)
    except ConsumerGroupError as exc:
        if is_transactional and exc.error == "STALE_MEMBER_EPOCH":
            return Errors.ILLEGAL_GENERATION
        return Errors[exc.error]
    return Errors.NONE


def fetch_error(group: ConsumerGroup, request: OffsetFetchRequestGroup) -> Errors:
    """The group-level error of an OffsetFetch of a consumer group (v9+ member id and epoch), NONE when
    the fetch may proceed (no member id: an admin's fetch)."""
    try:
        group.validate_offset_fetch(request.member_id, request.member_epoch)
    except ConsumerGroupError as exc:
        return Errors[exc.error]
    return Errors.NONE


def listed(group: ConsumerGroup) -> ListedGroup:
    """The group as ListGroups lists it."""
    return ListedGroup(
        group_id=group.group_id,
        protocol_type=CONSUMER_PROTOCOL_TYPE,
        group_state=group.state().value,
        group_type=CONSUMER_PROTOCOL_TYPE,
    )


def described(group_id: str, version: int) -> DescribedGroup:
    """DescribeGroups of a consumer group: GROUP_ID_NOT_FOUND from v6, a Dead group before, as Kafka's
    ``describeGroups`` answers a group that is not classic."""
    if version >= DESCRIBE_NOT_FOUND_FROM_VERSION:
        return DescribedGroup(
            group_id=group_id,
            error_code=Errors.GROUP_ID_NOT_FOUND,
            error_message=f"Group {group_id} is not a classic group.",
            group_state="Dead",
        )
    return DescribedGroup(group_id=group_id, error_code=Errors.NONE, group_state="Dead")


def group_tombstones(
    group: ConsumerGroup, replaced: tuple[str, str] | None = None
) -> list[CoordinatorRecord]:
    """The records that delete the group, in Kafka's order: every member's current assignment, every
    member's target, the target's epoch, every member's metadata, each resolved regex, the legacy
    subscription metadata, then the group epoch (Kafka's ``createGroupTombstoneRecords``).

    Args:
        replaced: ``(leaving member id, joining member id)``: a static member replaced in the same write,
            whose tombstones go under the joining id (``createGroupTombstoneRecordsWithReplacedMember``).
    """
    gid = group.group_id
    ids = list(group.members)
    if replaced is not None:
        ids = [replaced[1] if m == replaced[0] else m for m in ids]
    records: list[CoordinatorRecord] = [rh.current_assignment_tombstone(gid, m) for m in ids]
    records += [rh.target_assignment_tombstone(gid, m) for m in ids]
    records.append(rh.target_assignment_epoch_tombstone(gid))
    records += [rh.member_subscription_tombstone(gid, m) for m in ids]
    records += [(ConsumerGroupRegularExpressionKey(gid, regex), None) for regex in group.resolved_regexes]
    records.append(rh.subscription_metadata_tombstone(gid))
    records.append(rh.group_epoch_tombstone(gid))
    return records
