"""PartitionRegistration.leader_change: the election record every leader move writes."""

from __future__ import annotations

from kafkette.controller.controller_context import PartitionRegistration
from kafkette.controller.metadata_records import PartitionChangeRecord
from kafkette.protocol.topic_partition import TopicPartition


def test_a_leader_change_bumps_both_epochs_even_when_the_leader_stays():
    part = PartitionRegistration(
        replicas=[1, 2, 3], isr=[1, 2, 3], leader=1, leader_epoch=4, partition_epoch=9
    )
    tp = TopicPartition("flights", 2)

    assert part.leader_change(tp, 2, [2, 3]) == PartitionChangeRecord(
        topic="flights", partition=2, leader=2, isr=[2, 3], leader_epoch=5, partition_epoch=10
    )
    assert part.leader_change(tp, 1, [1]).leader_epoch == 5
    assert (part.leader, part.isr, part.leader_epoch, part.partition_epoch) == (1, [1, 2, 3], 4, 9)
