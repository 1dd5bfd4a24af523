"""DescribeQuorum at the controller: the metadata log's one voter leads it at the controller epoch,
its high watermark is the log's end offset, and another partition is unknown."""

from __future__ import annotations

from controller_fakes import register_live_brokers

from kafkette.protocol.apis.raft import (
    DescribeQuorumPartitionRequest,
    DescribeQuorumRequest,
    DescribeQuorumTopicRequest,
)
from kafkette.protocol.errors import Errors


def _request(topic: str = "__cluster_metadata", partition: int = 0) -> DescribeQuorumRequest:
    return DescribeQuorumRequest(topics=[DescribeQuorumTopicRequest(
        topic_name=topic, partitions=[DescribeQuorumPartitionRequest(partition_index=partition)])])


async def test_the_controller_node_is_the_only_voter_and_the_high_watermark_follows_the_log(controller):
    before = (await controller.describe_quorum(_request())).topics[0].partitions[0]
    assert (before.error_code, before.leader_id, before.leader_epoch) == (Errors.NONE, 1, controller.controller_epoch)
    assert [v.replica_id for v in before.current_voters] == [1] and before.observers == []
    await register_live_brokers(controller, 1, 2)
    after = (await controller.describe_quorum(_request())).topics[0].partitions[0]
    assert after.high_watermark > before.high_watermark
    assert after.current_voters[0].log_end_offset == after.high_watermark
    assert after.current_voters[0].last_fetch_timestamp > 0


async def test_another_partition_is_unknown(controller):
    for topic, partition in (("__cluster_metadata", 1), ("flights", 0)):
        answer = (await controller.describe_quorum(_request(topic, partition))).topics[0].partitions[0]
        assert answer.error_code == Errors.UNKNOWN_TOPIC_OR_PARTITION
