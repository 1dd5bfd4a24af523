"""``GroupMetadataManager`` loading a ``__consumer_offsets`` partition that holds KIP-848 consumer
group records (types 3 to 8 and 16, written with Kafkette's encoder) beside committed offsets and
classic groups: the load succeeds, offsets and classic groups load as before, and the consumer
group records reach ``on_consumer_group_records`` per group in log order; a malformed one is
logged and skipped."""

from __future__ import annotations

import logging
from types import SimpleNamespace

from kafkette.broker.group import consumer_group_records as cg
from kafkette.broker.group.coordinator_records import (
    GroupMetadataKey,
    GroupMetadataValue,
    OffsetCommitKey,
    OffsetCommitValue,
    encode_key,
    encode_value,
)
from kafkette.broker.group.group_metadata_manager import GroupMetadataManager
from kafkette.protocol.record_batch import build_batch
from kafkette.protocol.topic_partition import TopicPartition

TOPIC_ID = bytes(range(16))
MEMBER = cg.ConsumerGroupMemberMetadataValue(
    client_id="client-1",
    client_host="/127.0.0.1",
    subscribed_topic_names=("orders",),
    rebalance_timeout_ms=30000,
)
CURRENT = cg.ConsumerGroupCurrentMemberAssignmentValue(
    1, 0, 0, (cg.CurrentTopicPartitions(TOPIC_ID, (0, 1), (1, 1)),), ()
)


class OneLog:
    """A leader's log of ``__consumer_offsets-0`` holding the given batches, read whole."""

    def __init__(self, batches: list[bytes], record_count: int) -> None:
        self.data = b"".join(batches)
        self.log_start_offset = 0
        self.log_end_offset = record_count

    def read(self, position: int, max_bytes: int, max_offset: int, committed: bool) -> SimpleNamespace:
        return SimpleNamespace(records=self.data)


class OneLogReplicaManager:
    def __init__(self, log: OneLog) -> None:
        self.log = log

    def get_partition(self, tp: TopicPartition) -> SimpleNamespace:
        return SimpleNamespace(leader_log=lambda epoch: self.log)


def log_of(records: list[tuple[object, object | None]] | list[tuple[bytes, bytes | None]]) -> OneLog:
    """One batch per record, each at its own offset; a ``bytes`` key or value is taken as it is."""
    batches = []
    for offset, (key, value) in enumerate(records):
        key_bytes = key if isinstance(key, bytes) else encode_key(key)  # type: ignore[arg-type]
        value_bytes = value if isinstance(value, bytes) or value is None else encode_value(value)  # type: ignore[arg-type]
        batches.append(build_batch([(key_bytes, value_bytes, None, 0)], base_offset=offset))
    return OneLog(batches, len(records))


async def load(manager: GroupMetadataManager) -> None:
    """Become leader of partition 0 and wait for its load."""
    manager.on_election(0, 1)
    await manager._loading[0][1]


CG_RECORDS = [
    (cg.ConsumerGroupMemberMetadataKey("cg", "m1"), MEMBER),
    (cg.ConsumerGroupMetadataKey("cg"), cg.ConsumerGroupMetadataValue(1, metadata_hash=42)),
    (
        cg.ConsumerGroupTargetAssignmentMemberKey("cg", "m1"),
        cg.ConsumerGroupTargetAssignmentMemberValue((cg.TargetTopicPartitions(TOPIC_ID, (0, 1)),)),
    ),
    (
        cg.ConsumerGroupTargetAssignmentMetadataKey("cg"),
        cg.ConsumerGroupTargetAssignmentMetadataValue(1, 123),
    ),
    (cg.ConsumerGroupCurrentMemberAssignmentKey("cg", "m1"), CURRENT),
    (
        cg.ConsumerGroupRegularExpressionKey("cg", "^orders-.*"),
        cg.ConsumerGroupRegularExpressionValue(("orders-1",), 7, 456),
    ),
    (cg.ConsumerGroupPartitionMetadataKey("cg"), cg.ConsumerGroupPartitionMetadataValue(())),
    (cg.ConsumerGroupPartitionMetadataKey("cg"), None),
    (cg.ConsumerGroupCurrentMemberAssignmentKey("cg", "m1"), None),
]


def mixed_log() -> OneLog:
    return log_of(
        [
            (OffsetCommitKey("classic", "orders", 0), OffsetCommitValue(10, 3, "m", 1000)),
            CG_RECORDS[0],
            (GroupMetadataKey("classic"), GroupMetadataValue("consumer", 2, "range", None, 5, ())),
            *CG_RECORDS[1:5],
            # a consumer group metadata value cut short: logged and skipped
            (encode_key(cg.ConsumerGroupMetadataKey("cg")), b"\x00\x00\x00"),
            (cg.ConsumerGroupMetadataKey("other"), cg.ConsumerGroupMetadataValue(3)),
            *CG_RECORDS[5:],
            (OffsetCommitKey("cg", "orders", 1), OffsetCommitValue(20)),
        ]
    )


async def test_consumer_group_records_load_beside_offsets_and_classic_groups(caplog):
    manager = GroupMetadataManager(1, OneLogReplicaManager(mixed_log()), partition_count=lambda: 1)  # type: ignore[arg-type]
    handed: list[tuple[int, dict]] = []
    classic: list[dict] = []
    manager.on_consumer_group_records = lambda partition, groups: handed.append((partition, groups))
    manager.on_groups_loaded = classic.append
    with caplog.at_level(logging.WARNING):
        await load(manager)
    assert manager.coordinator_error("cg").name == "NONE"
    assert manager.fetch_offsets("classic", None) == {
        TopicPartition("orders", 0): OffsetCommitValue(10, 3, "m", 1000)
    }
    assert manager.fetch_offsets("cg", None) == {TopicPartition("orders", 1): OffsetCommitValue(20)}
    assert list(classic[0]) == ["classic"]
    assert handed == [
        (
            0,
            {
                "cg": CG_RECORDS,
                "other": [(cg.ConsumerGroupMetadataKey("other"), cg.ConsumerGroupMetadataValue(3))],
            },
        )
    ]
    assert "Skipping an undecodable record at __consumer_offsets-0 offset 7" in caplog.text
    await manager.stop()


async def test_without_a_consumer_of_them_the_records_are_decoded_and_not_kept():
    manager = GroupMetadataManager(1, OneLogReplicaManager(mixed_log()), partition_count=lambda: 1)  # type: ignore[arg-type]
    await load(manager)
    assert manager.coordinator_error("cg").name == "NONE"
    assert manager.group_ids() == ["cg", "classic"]
    await manager.stop()
