from __future__ import annotations

import pytest

from kafkette.broker.log.checkpoint import CorruptCheckpointError, OffsetCheckpointFile
from kafkette.protocol.topic_partition import TopicPartition


def test_round_trip_writes_kafka_text_format(tmp_path):
    checkpoint = OffsetCheckpointFile(tmp_path / "recovery-point-offset-checkpoint")
    offsets = {TopicPartition("b", 1): 99, TopicPartition("a", 0): 1234}
    checkpoint.write(offsets)
    assert checkpoint.read() == offsets
    assert checkpoint.path.read_text() == "0\n2\na 0 1234\nb 1 99\n"


def test_missing_file_reads_as_empty(tmp_path):
    assert OffsetCheckpointFile(tmp_path / "nope").read() == {}


def test_empty_mapping_round_trips(tmp_path):
    checkpoint = OffsetCheckpointFile(tmp_path / "cp")
    checkpoint.write({})
    assert checkpoint.read() == {}


@pytest.mark.parametrize(
    "text",
    ["", "0\n", "1\n0\n", "0\n2\na 0 1\n", "0\nx\n", "0\n1\na 0\n", "0\n1\na zero 1\n"],
)
def test_malformed_file_raises_corrupt_checkpoint_naming_the_path(tmp_path, text):
    path = tmp_path / "cp"
    path.write_text(text)
    with pytest.raises(CorruptCheckpointError) as excinfo:
        OffsetCheckpointFile(path).read()
    assert str(path) in str(excinfo.value)
    assert excinfo.value.path == path


def test_leftover_tmp_file_is_ignored_and_replaced(tmp_path):
    checkpoint = OffsetCheckpointFile(tmp_path / "cp")
    checkpoint.write({TopicPartition("t", 0): 5})
    (tmp_path / "cp.tmp").write_text("garbage from a crash mid-write")
    assert checkpoint.read() == {TopicPartition("t", 0): 5}
    checkpoint.write({TopicPartition("t", 0): 6})
    assert checkpoint.read() == {TopicPartition("t", 0): 6}
    assert not (tmp_path / "cp.tmp").exists()


def test_write_replaces_whole_file(tmp_path):
    checkpoint = OffsetCheckpointFile(tmp_path / "cp")
    checkpoint.write({TopicPartition("t", i): i for i in range(100)})
    checkpoint.write({TopicPartition("t", 0): 1})
    assert checkpoint.read() == {TopicPartition("t", 0): 1}


def test_topic_with_space_is_rejected(tmp_path):
    with pytest.raises(ValueError):
        OffsetCheckpointFile(tmp_path / "cp").write({TopicPartition("a b", 0): 1})
