"""The pending transactional offsets (Kafka's ``OffsetMetadataManager.pendingTransactionalOffsets``
and ``replayEndTransactionMarker``) and who may commit inside a transaction
(``validateTransactionalOffsetCommit``, ``ClassicGroup.validateOffsetCommit`` with ``isTransactional``):
pure logic, no log."""

from __future__ import annotations

from test_consumer_group import member

from kafkette.broker.group.consumer_group import ConsumerGroup
from kafkette.broker.group.consumer_group_admin import commit_error
from kafkette.broker.group.coordinator_records import OffsetCommitValue
from kafkette.broker.group.group_metadata import GroupMetadata, GroupState, MemberMetadata
from kafkette.broker.group.pending_transactional_offsets import (
    PendingTransactionalOffsets,
    TransactionResult,
)
from kafkette.broker.group.txn_offset_commit import classic_txn_commit_error, unknown_group_txn_commit_error
from kafkette.protocol.apis.transactions import (
    TxnOffsetCommitRequest,
    TxnOffsetCommitRequestPartition,
    TxnOffsetCommitRequestTopic,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.topic_partition import TopicPartition

TP0 = TopicPartition("orders", 0)
TP1 = TopicPartition("orders", 1)


def value(offset: int) -> OffsetCommitValue:
    return OffsetCommitValue(offset, -1, "", 1000)


def test_pending_offsets_are_per_producer_and_open_per_partition():
    pending = PendingTransactionalOffsets()
    pending.add(1, "g", TP0, value(10), 100)
    pending.add(2, "g", TP0, value(20), 101)
    pending.add(2, "h", TP1, value(30), 102)
    assert pending.has_pending("g", TP0) and not pending.has_pending("g", TP1)
    assert pending.pending_partitions("h") == [TP1]
    assert pending.pending_offset(2, "g", TP0).value.offset == 20
    assert pending.producer_ids() == [1, 2]
    committed: dict = {}
    records: dict = {}
    assert pending.complete(1, TransactionResult.ABORT, committed, records) == 0
    assert committed == {} and pending.has_pending("g", TP0)  # producer 2's is still open
    assert pending.complete(2, TransactionResult.COMMIT, committed, records) == 2
    assert committed == {"g": {TP0: value(20)}, "h": {TP1: value(30)}}
    assert records == {"g": {TP0: 101}, "h": {TP1: 102}}
    assert not pending.group_has_pending("g") and pending.producer_ids() == []


def test_commit_keeps_a_committed_offset_written_later_in_the_log():
    pending = PendingTransactionalOffsets()
    pending.add(1, "g", TP0, value(10), 100)
    pending.add(1, "g", TP1, value(11), 101)
    committed = {"g": {TP0: value(99)}}
    records = {"g": {TP0: 150}}  # a plain commit after the transactional one
    assert pending.complete(1, TransactionResult.COMMIT, committed, records) == 1
    assert committed["g"] == {TP0: value(99), TP1: value(11)}


def test_a_marker_ends_the_transaction_only_for_the_groups_of_its_partition():
    pending = PendingTransactionalOffsets()
    pending.add(1, "g", TP0, value(10), 100)
    pending.add(1, "h", TP0, value(20), 7)
    committed: dict = {}
    pending.complete(1, TransactionResult.COMMIT, committed, {}, lambda group_id: group_id == "g")
    assert committed == {"g": {TP0: value(10)}}
    assert pending.has_pending("h", TP0) and pending.producer_ids() == [1]


def test_a_tombstone_drops_every_producers_pending_offset_of_the_partition():
    pending = PendingTransactionalOffsets()
    pending.add(1, "g", TP0, value(10), 100)
    pending.add(2, "g", TP0, value(20), 101)
    pending.add(2, "g", TP1, value(21), 102)
    pending.tombstone("g", TP0)
    assert not pending.has_pending("g", TP0) and pending.has_pending("g", TP1)
    committed: dict = {}
    pending.complete(1, TransactionResult.COMMIT, committed, {})
    pending.complete(2, TransactionResult.COMMIT, committed, {})
    assert committed == {"g": {TP1: value(21)}}


def test_merge_and_drop_groups():
    loaded = PendingTransactionalOffsets()
    loaded.add(1, "g", TP0, value(10), 100)
    pending = PendingTransactionalOffsets()
    pending.add(1, "h", TP0, value(20), 5)
    pending.merge(loaded)
    assert pending.group_ids() == ["g", "h"]
    pending.drop_groups(lambda group_id: group_id == "h")
    assert pending.group_ids() == ["g"] and pending.pending_offset(1, "h", TP0) is None


def request(generation_id: int = -1, member_id: str = "", group_instance_id: str | None = None):
    return TxnOffsetCommitRequest(
        transactional_id="t",
        group_id="g",
        producer_id=1,
        producer_epoch=0,
        generation_id=generation_id,
        member_id=member_id,
        group_instance_id=group_instance_id,
        topics=[],
    )


def stable_group() -> GroupMetadata:
    member = MemberMetadata("m1", "c", "/127.0.0.1", 10000, 30000, "consumer", [("range", b"")])
    member.group_instance_id = "i1"
    group = GroupMetadata("g", generation_id=3, protocol_type="consumer", members={"m1": member})
    group.static_members["i1"] = "m1"
    group.transition_to(GroupState.PREPARING_REBALANCE)
    group.transition_to(GroupState.COMPLETING_REBALANCE)
    return group


def test_classic_group_checks_member_instance_and_generation_but_not_the_state():
    group = stable_group()
    assert classic_txn_commit_error(group, request(3, "m1")) == Errors.NONE  # CompletingRebalance is fine
    assert classic_txn_commit_error(group, request(3, "other")) == Errors.UNKNOWN_MEMBER_ID
    assert classic_txn_commit_error(group, request(3, "m2", "i1")) == Errors.FENCED_INSTANCE_ID
    assert classic_txn_commit_error(group, request(3, "m1", "i9")) == Errors.UNKNOWN_MEMBER_ID
    assert classic_txn_commit_error(group, request(2, "m1")) == Errors.ILLEGAL_GENERATION
    # no member id nor generation: accepted even with members (older TxnOffsetCommit versions)
    assert classic_txn_commit_error(group, request()) == Errors.NONE
    assert classic_txn_commit_error(GroupMetadata("g"), request()) == Errors.NONE
    assert classic_txn_commit_error(GroupMetadata("g"), request(0, "m1")) == Errors.UNKNOWN_MEMBER_ID
    dead = GroupMetadata("g")
    dead.transition_to(GroupState.DEAD)
    assert classic_txn_commit_error(dead, request()) == Errors.COORDINATOR_NOT_AVAILABLE


def test_an_unknown_group_takes_only_generation_minus_one():
    assert unknown_group_txn_commit_error(request()) == Errors.NONE
    assert unknown_group_txn_commit_error(request(1, "m1")) == Errors.ILLEGAL_GENERATION


T1 = bytes(range(1, 17))


def consumer_request(member_id: str, epoch: int, topic: str = "orders", partition: int = 0):
    txn_request = request(epoch, member_id)
    txn_request.topics = [
        TxnOffsetCommitRequestTopic(
            name=topic, partitions=[TxnOffsetCommitRequestPartition(partition_index=partition)]
        )
    ]
    return txn_request


def test_a_consumer_group_answers_a_stale_or_unassigned_transactional_commit_illegal_generation():
    group = ConsumerGroup("g")
    group.update_member(member("m1", epoch=10, assigned_partitions={T1: {0: 8}}))

    def error(request) -> Errors:
        return commit_error(
            group,
            request,
            3,
            lambda name: T1 if name == "orders" else None,
            lambda _metadata: True,
            is_transactional=True,
        )

    assert error(consumer_request("m1", 10)) == Errors.NONE
    assert error(consumer_request("m1", 9)) == Errors.NONE  # older epoch, the partition assigned at 8
    assert (
        error(consumer_request("m1", 11)) == Errors.ILLEGAL_GENERATION
    )  # STALE_MEMBER_EPOCH for OffsetCommit
    assert error(consumer_request("m1", 9, partition=1)) == Errors.ILLEGAL_GENERATION  # not its partition
    assert error(consumer_request("m1", 9, topic="gone")) == Errors.ILLEGAL_GENERATION  # unknown topic
    assert error(consumer_request("x", 10)) == Errors.UNKNOWN_MEMBER_ID
    assert error(consumer_request("", -1)) == Errors.NONE  # no member, generation -1: accepted
