"""RaftManager keeps the event loop free of the quorum's file work: the quorum-state file is
written on a worker thread and a vote is answered only once the file holds it; a snapshot's
files (the checkpoint, the new segment) are written on a worker thread too, and a restart
loads them."""

from __future__ import annotations

import json
import random
import threading

import pytest
from controller_fakes import active_single_voter, register_live_brokers

from kafkette.controller.metadata_record_serde import METADATA_RECORD_SERDE
from kafkette.controller.raft.quorum_state_store import FileQuorumStateStore
from kafkette.controller.raft.raft_config import RaftConfig
from kafkette.controller.raft.raft_manager import RaftManager
from kafkette.controller.raft.raft_messages import VoteRequest
from kafkette.controller.raft.raft_wire import RaftWire
from kafkette.controller.raft.segment_rewrite import SegmentRewrite
from kafkette.protocol.apis.create_topics import CreatableTopic, CreateTopicsRequest
from kafkette.protocol.errors import Errors

pytestmark = pytest.mark.timeout(60)


def _recording_threads(monkeypatch, cls, name: str) -> list[threading.Thread]:
    """Replace ``cls.name`` by a wrapper that records the thread each call runs on."""
    threads: list[threading.Thread] = []
    original = getattr(cls, name)

    def recording(self, *args):
        threads.append(threading.current_thread())
        return original(self, *args)

    monkeypatch.setattr(cls, name, recording)
    return threads


async def test_a_vote_is_answered_once_the_quorum_state_file_holds_it_written_off_the_event_loop(
    tmp_path, monkeypatch
):
    threads = _recording_threads(monkeypatch, FileQuorumStateStore, "write")
    addresses = {1: ("127.0.0.1", 1), 2: ("127.0.0.1", 2), 3: ("127.0.0.1", 3)}  # 2 and 3 never run
    manager = RaftManager(
        1,
        addresses,
        str(tmp_path),
        cluster_id="c1",
        serde=METADATA_RECORD_SERDE,
        config=RaftConfig(election_timeout_ms=60_000, election_backoff_max_ms=60_000),
        rng=random.Random(1),
    )
    await manager.start()
    try:
        wire = RaftWire(METADATA_RECORD_SERDE)
        answer = await manager.handle_request(wire.to_wire(VoteRequest(5, 2, 0, 0), "c1"))
        stored = json.loads((tmp_path / "__cluster_metadata-0" / "quorum-state").read_text())
        assert (stored["leaderEpoch"], stored["votedId"]) == (5, 2), "answered before the vote was durable"
        partition = answer.topics[0].partitions[0]
        assert partition.error_code == Errors.NONE and partition.vote_granted
        assert threads and all(t is not threading.main_thread() for t in threads), threads
    finally:
        await manager.stop()


async def test_snapshot_files_are_written_off_the_event_loop_and_a_restart_loads_them(tmp_path, monkeypatch):
    threads = _recording_threads(monkeypatch, SegmentRewrite, "run")
    small = RaftConfig(metadata_log_max_record_bytes_between_snapshots=400)

    node = await active_single_voter(tmp_path, small)
    try:
        await register_live_brokers(node.controller, 1, 2)
        for n in range(8):
            answer = await node.controller.create_topics(
                CreateTopicsRequest(
                    topics=[CreatableTopic(name=f"t-{n}", num_partitions=1, replication_factor=1)],
                    timeout_ms=0,
                )
            )
            assert answer.topics[0].error_code == Errors.NONE, answer
        assert node.raft.committed_start_offset > 0, "no snapshot was taken"
    finally:
        await node.stop()
    assert threads and all(t is not threading.main_thread() for t in threads), threads
    directory = tmp_path / "__cluster_metadata-0"
    [checkpoint] = directory.glob("*.checkpoint")
    [segment] = directory.glob("*.log")
    assert int(segment.name[:20]) == int(checkpoint.name[:20]), "the segment starts where the snapshot ends"

    again = await active_single_voter(tmp_path, small)
    try:
        assert set(again.image.topics) == {f"t-{n}" for n in range(8)}
    finally:
        await again.stop()
