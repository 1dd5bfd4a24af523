"""The KRaft RPC schemas and Fetch v1: Kafka's API keys, round trips, defaults and versioned fields."""

from __future__ import annotations

from kafkette.protocol.api_keys import API_REGISTRY, ApiKey
from kafkette.protocol.apis.fetch import (
    EpochEndOffset,
    FetchPartition,
    FetchPartitionData,
    FetchRequest,
    FetchResponse,
    FetchTopic,
    FetchTopicResponse,
    LeaderIdAndEpoch,
)
from kafkette.protocol.apis.raft import (
    DescribeQuorumPartitionResponse,
    DescribeQuorumResponse,
    DescribeQuorumTopicResponse,
    FetchSnapshotPartitionRequest,
    FetchSnapshotRequest,
    FetchSnapshotTopicRequest,
    QuorumReplicaState,
    SnapshotId,
    VotePartitionRequest,
    VoteRequest,
    VoteTopicRequest,
)


def test_quorum_apis_have_kafkas_keys():
    assert {k.name: int(k) for k in ApiKey if int(k) in (52, 53, 54, 55, 59)} == {
        "VOTE": 52,
        "BEGIN_QUORUM_EPOCH": 53,
        "END_QUORUM_EPOCH": 54,
        "DESCRIBE_QUORUM": 55,
        "FETCH_SNAPSHOT": 59,
    }
    assert API_REGISTRY[ApiKey.VOTE].request is VoteRequest
    assert API_REGISTRY[ApiKey.FETCH].send_version == 12, "the voters send KIP-595's fields at v12"


def test_vote_request_round_trips_with_its_topic_partition_nesting():
    request = VoteRequest(
        cluster_id="c1",
        voter_id=2,
        topics=[
            VoteTopicRequest(
                topic_name="__cluster_metadata",
                partitions=[
                    VotePartitionRequest(
                        partition_index=0,
                        replica_epoch=5,
                        replica_id=1,
                        last_offset_epoch=4,
                        last_offset=17,
                    )
                ],
            )
        ],
    )
    assert VoteRequest.from_wire(request.to_wire(0), 0) == request


def test_fetch_snapshot_request_nests_a_snapshot_id_with_a_default():
    assert SnapshotId().end_offset == 0 and SnapshotId().epoch == 0, "Kafka's defaults"
    request = FetchSnapshotRequest(
        replica_id=3,
        topics=[
            FetchSnapshotTopicRequest(
                name="__cluster_metadata",
                partitions=[
                    FetchSnapshotPartitionRequest(
                        partition=0,
                        current_leader_epoch=2,
                        snapshot_id=SnapshotId(end_offset=100, epoch=2),
                        position=4096,
                    )
                ],
            )
        ],
    )
    decoded = FetchSnapshotRequest.from_wire(request.to_wire(0), 0)
    assert decoded == request and decoded.max_bytes == 0x7FFFFFFF


def test_describe_quorum_response_lists_voters_and_observers():
    response = DescribeQuorumResponse(
        topics=[
            DescribeQuorumTopicResponse(
                topic_name="__cluster_metadata",
                partitions=[
                    DescribeQuorumPartitionResponse(
                        partition_index=0,
                        leader_id=1,
                        leader_epoch=3,
                        high_watermark=42,
                        current_voters=[QuorumReplicaState(replica_id=1, log_end_offset=42)],
                        observers=[],
                    )
                ],
            )
        ]
    )
    decoded = DescribeQuorumResponse.from_wire(response.to_wire(1), 1)
    assert decoded.topics[0].partitions[0].current_voters[0].last_fetch_timestamp == -1
    assert decoded == response


def test_fetch_v12_carries_last_fetched_epoch_and_diverging_epoch_v11_does_not():
    request = FetchRequest(
        cluster_id="c1",
        replica_id=2,
        topics=[
            FetchTopic(
                topic="__cluster_metadata",
                partitions=[FetchPartition(partition=0, fetch_offset=10, last_fetched_epoch=3)],
            )
        ],
    )
    assert FetchRequest.from_wire(request.to_wire(12), 12).topics[0].partitions[0].last_fetched_epoch == 3
    v11 = FetchRequest.from_wire(request.to_wire(11), 11)
    assert v11.topics[0].partitions[0].last_fetched_epoch == -1 and v11.cluster_id is None
    data = FetchPartitionData(
        partition_index=0,
        diverging_epoch=EpochEndOffset(epoch=2, end_offset=8),
        current_leader=LeaderIdAndEpoch(leader_id=1, leader_epoch=3),
        records=b"",
    )
    response = FetchResponse(responses=[FetchTopicResponse(topic="__cluster_metadata", partitions=[data])])
    decoded = FetchResponse.from_wire(response.to_wire(12), 12).responses[0].partitions[0]
    assert (decoded.diverging_epoch.epoch, decoded.diverging_epoch.end_offset) == (2, 8)
    assert decoded.current_leader.leader_id == 1
    assert (
        FetchResponse.from_wire(response.to_wire(11), 11).responses[0].partitions[0].diverging_epoch.epoch
        == -1
    )
