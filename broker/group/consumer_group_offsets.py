"""Member-epoch validation of OffsetCommit and OffsetFetch for consumer groups (KIP-848, KIP-1251).

Owns: the checks a consumer group makes of the member id and member epoch an OffsetCommit,
TxnOffsetCommit or OffsetFetch (v9+) carries, and the per-partition check of a commit from a member at an
older epoch (KIP-1251: a partition may be committed by a member that was given it at or before the
request's epoch, assigned or still pending revocation).  Does not own offsets, their storage or the
per-partition checks of the offset manager (OFFSET_METADATA_TOO_LARGE).

A member using the classic protocol inside a consumer group gets ILLEGAL_GENERATION where a consumer
member gets STALE_MEMBER_EPOCH.  A refused partition fails the whole request in Kafka 4.3.1.

Kafka concept: ``ConsumerGroup.validateOffsetCommit``, ``validateOffsetFetch``,
``createAssignmentEpochValidator`` and ``CommitPartitionValidator``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from kafkette.broker.group.assignors.api import TopicId
from kafkette.broker.group.consumer_group_errors import ConsumerGroupError
from kafkette.broker.group.consumer_group_member import ConsumerGroupMember

if TYPE_CHECKING:
    from kafkette.broker.group.consumer_group import ConsumerGroup


class CommitPartitionValidator:
    """Checks each partition of an OffsetCommit from a member at an older epoch (KIP-1251).

    Kafka's ``ConsumerGroup.createAssignmentEpochValidator``: the partition must be assigned or pending
    revocation with an assignment epoch <= the request's epoch.  ``NO_OP`` accepts everything.
    """

    NO_OP: ClassVar[CommitPartitionValidator]

    def __init__(self, member: ConsumerGroupMember | None = None, received_member_epoch: int = 0) -> None:
        self._member = member
        self._epoch = received_member_epoch

    def validate(self, topic_name: str, topic_id: TopicId, partition: int) -> None:
        """Check one partition.

        Raises:
            ConsumerGroupError: STALE_MEMBER_EPOCH (ILLEGAL_GENERATION for a classic member) when the
                partition is not the member's or was assigned after the request's epoch; Kafka fails the
                whole request.
        """
        member = self._member
        if member is None:
            return
        error = "ILLEGAL_GENERATION" if member.use_classic_protocol() else "STALE_MEMBER_EPOCH"
        epoch = member.assignment_epoch(topic_id, partition)
        if epoch is None:
            epoch = member.pending_revocation_epoch(topic_id, partition)
        if epoch is None:
            raise ConsumerGroupError(
                error, f"Partition {topic_name}-{partition} is not assigned or pending revocation for member."
            )
        if self._epoch < epoch:
            noun = "generation id" if member.use_classic_protocol() else "member epoch"
            raise ConsumerGroupError(
                error,
                f"Received {noun} {self._epoch} is older than assignment epoch {epoch} "
                f"for partition {topic_name}-{partition}.",
            )


CommitPartitionValidator.NO_OP = CommitPartitionValidator()


def validate_offset_commit(
    group: ConsumerGroup,
    member_id: str,
    member_epoch: int,
    *,
    api_version: int,
    group_instance_id: str | None = None,
    is_transactional: bool = False,
) -> CommitPartitionValidator:
    """Check an OffsetCommit's (or TxnOffsetCommit's) member and epoch; returns the per-partition check.

    Order: epoch < 0 and no members -> accepted; a transactional commit with generation -1, empty
    member id and no instance id -> accepted; unknown member -> UNKNOWN_MEMBER_ID; a consumer-protocol
    member below OffsetCommit v9 -> UNSUPPORTED_VERSION; same epoch -> accepted; newer epoch ->
    STALE_MEMBER_EPOCH (ILLEGAL_GENERATION for a classic member); older epoch -> the KIP-1251
    validator, to run on every partition.

    Raises:
        ConsumerGroupError: as above.
    """
    if member_epoch < 0 and not group.members:
        return CommitPartitionValidator.NO_OP
    if is_transactional and member_epoch == -1 and member_id == "" and group_instance_id is None:
        return CommitPartitionValidator.NO_OP
    member = group.get_or_maybe_create_member(member_id, False)
    if not is_transactional and not member.use_classic_protocol() and api_version < 9:
        raise ConsumerGroupError(
            "UNSUPPORTED_VERSION",
            "OffsetCommit version 9 or above must be used by members using the consumer group protocol",
        )
    if member_epoch == member.member_epoch:
        return CommitPartitionValidator.NO_OP
    if member_epoch > member.member_epoch:
        if member.use_classic_protocol():
            raise ConsumerGroupError(
                "ILLEGAL_GENERATION",
                f"Received generation id {member_epoch} is newer than current member epoch "
                f"{member.member_epoch}.",
            )
        raise ConsumerGroupError(
            "STALE_MEMBER_EPOCH",
            f"Received member epoch {member_epoch} is newer than current member epoch {member.member_epoch}.",
        )
    return CommitPartitionValidator(member, member_epoch)


def validate_offset_fetch(group: ConsumerGroup, member_id: str | None, member_epoch: int) -> None:
    """Check an OffsetFetch (v9+) member and epoch: a null member id with epoch < 0 passes; unknown
    member -> UNKNOWN_MEMBER_ID; any other epoch than the member's -> STALE_MEMBER_EPOCH
    (ILLEGAL_GENERATION for a classic member).

    Raises:
        ConsumerGroupError: as above.
    """
    if member_id is None and member_epoch < 0:
        return
    member = group.members.get(member_id) if member_id is not None else None
    if member is None:
        raise ConsumerGroupError(
            "UNKNOWN_MEMBER_ID", f"Member {member_id} is not a member of group {group.group_id}."
        )
    if member_epoch != member.member_epoch:
        if member.use_classic_protocol():
            raise ConsumerGroupError(
                "ILLEGAL_GENERATION",
                f"The received generation id {member_epoch} does not match the expected member epoch "
                f"{member.member_epoch}.",
            )
        raise ConsumerGroupError(
            "STALE_MEMBER_EPOCH",
            f"The received member epoch {member_epoch} does not match the expected member epoch "
            f"{member.member_epoch}.",
        )
