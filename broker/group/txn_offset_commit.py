"""Who may commit offsets inside a transaction (TxnOffsetCommit, KIP-98 / KIP-447), checked as Kafka does.

Owns: the group-level check of a TxnOffsetCommit for a classic group (Kafka's
``ClassicGroup.validateOffsetCommit`` with ``isTransactional``: no group state is enforced, a request
without member id nor generation is accepted even by a group with members; a KIP-848 consumer group's
is ``consumer_group_admin.commit_error`` with ``is_transactional``); a group that does
not exist takes a commit with generation -1 (Kafka creates the so-called simple group) and refuses any
other with ILLEGAL_GENERATION.  Does not own the pending offsets (``pending_transactional_offsets``) or
their storage (``GroupMetadataManager``).

Kafka concept: ``OffsetMetadataManager.validateTransactionalOffsetCommit`` and
``commitTransactionalOffset``.
"""

from __future__ import annotations

from kafkette.broker.group.group_metadata import GroupMetadata, GroupState
from kafkette.protocol.apis.transactions import TxnOffsetCommitRequest
from kafkette.protocol.errors import Errors


def classic_txn_commit_error(group: GroupMetadata, request: TxnOffsetCommitRequest) -> Errors:
    """The error of a TxnOffsetCommit to a classic group, NONE when it may commit.

    Order (Kafka's ``ClassicGroup.validateOffsetCommit``, transactional): Dead ->
    COORDINATOR_NOT_AVAILABLE; generation < 0 on an Empty group -> NONE; a generation, member id or
    instance id given -> the member must be known (UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID) and the
    generation current (ILLEGAL_GENERATION); otherwise NONE, whatever the state.
    """
    if group.is_in(GroupState.DEAD):
        return Errors.COORDINATOR_NOT_AVAILABLE
    if request.generation_id < 0 and group.is_in(GroupState.EMPTY):
        return Errors.NONE
    if request.generation_id >= 0 or request.member_id or request.group_instance_id is not None:
        return group.validate_member_generation(
            request.member_id, request.group_instance_id, request.generation_id
        )
    return Errors.NONE


def unknown_group_txn_commit_error(request: TxnOffsetCommitRequest) -> Errors:
    """A TxnOffsetCommit to a group that does not exist: generation < 0 creates Kafka's simple group
    (NONE, the offsets make it exist); any other generation is ILLEGAL_GENERATION."""
    return Errors.NONE if request.generation_id < 0 else Errors.ILLEGAL_GENERATION
