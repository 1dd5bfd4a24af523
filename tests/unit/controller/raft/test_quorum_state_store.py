"""FileQuorumStateStore on real files: KRaft's quorum-state JSON, replaced atomically and durably."""

from __future__ import annotations

import json

import pytest

from kafkette.controller.raft.quorum_state_store import ElectionState, FileQuorumStateStore


def test_a_missing_file_is_the_initial_state_and_the_directory_is_made_on_write(tmp_path):
    store = FileQuorumStateStore(tmp_path / "__cluster_metadata-0")
    assert store.read() == ElectionState()
    store.write(ElectionState(7, 2, -1))
    assert FileQuorumStateStore(tmp_path / "__cluster_metadata-0").read() == ElectionState(7, 2, -1)


def test_the_file_is_krafts_quorum_state_json(tmp_path):
    FileQuorumStateStore(tmp_path, voters=[3, 1, 2]).write(ElectionState(4, -1, 2))
    assert json.loads((tmp_path / "quorum-state").read_text()) == {
        "clusterId": "",
        "leaderId": 2,
        "leaderEpoch": 4,
        "votedId": -1,
        "appliedOffset": 0,
        "currentVoters": [{"voterId": 1}, {"voterId": 2}, {"voterId": 3}],
        "data_version": 0,
    }


def test_each_write_replaces_the_file_whole_and_leaves_no_temporary_file(tmp_path):
    store = FileQuorumStateStore(tmp_path)
    store.write(ElectionState(7, 2, -1))
    store.write(ElectionState(8, -1, 3))
    assert store.read() == ElectionState(8, -1, 3)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["quorum-state"]


def test_a_temporary_file_left_by_a_crash_mid_write_is_ignored(tmp_path):
    store = FileQuorumStateStore(tmp_path)
    store.write(ElectionState(5, 1, -1))
    (tmp_path / "quorum-state.tmp").write_text('{"leaderEpoch": 6, "vot')  # the rename never happened
    assert FileQuorumStateStore(tmp_path).read() == ElectionState(5, 1, -1)
    store.write(ElectionState(6, 2, -1))
    assert store.read() == ElectionState(6, 2, -1) and not (tmp_path / "quorum-state.tmp").exists()


@pytest.mark.parametrize(
    "content",
    [
        "{",
        "[]",
        '{"leaderEpoch": 1}',
        '{"leaderEpoch": -3, "votedId": -1, "leaderId": -1}',
        '{"leaderEpoch": 1, "votedId": -1, "leaderId": -1, "data_version": 7}',
    ],
)
def test_a_file_that_is_no_quorum_state_is_named(tmp_path, content):
    (tmp_path / "quorum-state").write_text(content)
    with pytest.raises(ValueError, match="quorum-state is not a quorum-state file"):
        FileQuorumStateStore(tmp_path).read()


def test_a_failed_write_leaves_the_old_state(tmp_path):
    store = FileQuorumStateStore(tmp_path)
    store.write(ElectionState(3, 1, -1))
    (tmp_path / "quorum-state.tmp").mkdir()  # the temporary file cannot be opened for writing
    with pytest.raises(OSError):
        store.write(ElectionState(4, 2, -1))
    assert store.read() == ElectionState(3, 1, -1)
