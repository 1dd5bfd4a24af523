"""QuorumController on a single voter: it elects itself, becomes the active controller in the
Raft epoch, answers DescribeQuorum from the Raft state, and a restarted voter replays the
committed records before it acts; NOT_CONTROLLER before it is active and after it stops; a
snapshot every configured number of bytes, and a restart that loads it and then the log."""

from __future__ import annotations

import pytest
from controller_fakes import active_single_voter, make_config, register_live_brokers, registration

from kafkette.common.config_def import ConfigError
from kafkette.controller.quorum_controller import QuorumController
from kafkette.controller.raft.raft_config import RaftConfig
from kafkette.protocol.apis.create_topics import CreatableTopic, CreateTopicsRequest
from kafkette.protocol.apis.raft import (
    DescribeQuorumPartitionRequest,
    DescribeQuorumRequest,
    DescribeQuorumTopicRequest,
)
from kafkette.protocol.errors import Errors


def _describe(topic: str = "__cluster_metadata", partition: int = 0) -> DescribeQuorumRequest:
    return DescribeQuorumRequest(
        topics=[
            DescribeQuorumTopicRequest(
                topic_name=topic, partitions=[DescribeQuorumPartitionRequest(partition_index=partition)]
            )
        ]
    )


async def test_a_single_voter_becomes_the_active_controller_in_its_raft_epoch(tmp_path):
    node = await active_single_voter(tmp_path)
    try:
        assert node.leader_id() == 1
        assert node.controller_epoch == node.raft.epoch >= 1
        answer = (await node.describe_quorum(_describe())).topics[0].partitions[0]
        assert (answer.error_code, answer.leader_id, answer.leader_epoch) == (Errors.NONE, 1, node.raft.epoch)
        assert [v.replica_id for v in answer.current_voters] == [1] and answer.observers == []
        assert answer.high_watermark == node.raft.log_end_offset == answer.current_voters[0].log_end_offset
        assert answer.current_voters[0].last_fetch_timestamp > 0
        other = (await node.describe_quorum(_describe("flights", 0))).topics[0].partitions[0]
        assert other.error_code == Errors.UNKNOWN_TOPIC_OR_PARTITION
    finally:
        await node.stop()


async def test_describe_quorum_names_each_static_voter_with_its_controller_listener_and_no_directory(
    tmp_path,
):
    node = await active_single_voter(tmp_path)
    try:
        answer = await node.describe_quorum(_describe())
        assert [(n.node_id, [(x.name, x.host, x.port) for x in n.listeners]) for n in answer.nodes] == [
            (1, [("PLAINTEXT", "127.0.0.1", 9001)])  # the node shares its one listener
        ]
        assert [v.replica_directory_id for v in answer.topics[0].partitions[0].current_voters] == [bytes(16)]
        other = await node.describe_quorum(_describe("__cluster_metadata", 1))
        assert other.nodes == []
        partition = other.topics[0].partitions[0]
        assert (partition.error_code, partition.leader_id, partition.high_watermark) == (
            Errors.UNKNOWN_TOPIC_OR_PARTITION,
            0,
            0,
        )
        assert partition.error_message == "This server does not host this topic-partition."
    finally:
        await node.stop()


async def test_a_restarted_voter_replays_the_committed_records_and_takes_a_higher_epoch(tmp_path):
    node = await active_single_voter(tmp_path)
    response = await node.controller.register_broker(registration(7))
    assert response.error_code == Errors.NONE
    first_epoch = node.controller_epoch
    await node.stop()

    again = await active_single_voter(tmp_path)
    try:
        assert again.controller_epoch == again.raft.epoch > first_epoch
        controller = again.active_controller
        assert controller is not None and 7 in controller.context.brokers
        assert controller.context.brokers[7].broker_epoch == response.broker_epoch
    finally:
        await again.stop()


async def test_requests_before_activation_and_after_stop_answer_not_controller(tmp_path):
    node = QuorumController(
        make_config(), voters={1: ("127.0.0.1", 9001), 2: ("127.0.0.1", 9002)}, metadata_log_dir=str(tmp_path)
    )
    request = CreateTopicsRequest(
        topics=[CreatableTopic(name="t", num_partitions=1, replication_factor=1)], timeout_ms=0
    )
    await node.start()
    try:  # voter 2 never answers: no majority, no leader
        answer = await node.controller.create_topics(request)
        assert [t.error_code for t in answer.topics] == [Errors.NOT_CONTROLLER]
        assert (await node.controller.register_broker(registration(3))).error_code == Errors.NOT_CONTROLLER
        described = (await node.describe_quorum(_describe())).topics[0].partitions[0]
        assert described.error_code == Errors.NOT_LEADER_OR_FOLLOWER and described.leader_id == -1
    finally:
        await node.stop()


async def test_snapshots_every_configured_bytes_and_a_restart_loads_the_snapshot_then_the_log(tmp_path):
    small = RaftConfig(metadata_log_max_record_bytes_between_snapshots=400)
    node = await active_single_voter(tmp_path, small)
    try:
        await register_live_brokers(node.controller, 1, 2)
        for n in range(12):
            answer = await node.controller.create_topics(
                CreateTopicsRequest(
                    topics=[CreatableTopic(name=f"topic-{n}", num_partitions=2, replication_factor=2)],
                    timeout_ms=0,
                )
            )
            assert answer.topics[0].error_code == Errors.NONE, answer
        assert node.raft.committed_start_offset > 0, "no snapshot was written"
        before = {name: node.image.topics[name].topic_id for name in node.image.topics}
        assert set(before) == {f"topic-{n}" for n in range(12)}
    finally:
        await node.stop()
    directory = tmp_path / "__cluster_metadata-0"
    assert len(list(directory.glob("*.checkpoint"))) == 1
    assert not (directory / "00000000000000000000.log").exists()

    again = await active_single_voter(tmp_path, small)
    try:
        controller = again.active_controller
        assert controller is not None
        assert {name: t.topic_id for name, t in controller.context.topics.items()} == before
        assert {name: t.topic_id for name, t in again.image.topics.items()} == before
        assert sorted(controller.context.live_broker_ids()) == [1, 2]
    finally:
        await again.stop()


async def test_a_voter_restarted_with_another_voter_list_refuses_to_start_naming_the_property(tmp_path):
    node = await active_single_voter(tmp_path)
    await node.stop()
    changed = QuorumController(
        make_config(), voters={1: ("127.0.0.1", 9001), 2: ("127.0.0.1", 9002)}, metadata_log_dir=str(tmp_path)
    )
    with pytest.raises(
        ConfigError, match=r"controller.quorum.voters: voters \[1, 2\] differ from the voters \[1\]"
    ):
        await changed.start()
    again = await active_single_voter(tmp_path)  # nothing was changed by the refusal
    await again.stop()
