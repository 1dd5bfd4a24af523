"""The Raft core's messages through the wire schemas and back, and the entry codecs."""

from __future__ import annotations

import pytest

from kafkette.controller.metadata_record_serde import METADATA_RECORD_SERDE
from kafkette.controller.metadata_records import PartitionRecord, TopicRecord
from kafkette.controller.raft import raft_messages as core
from kafkette.controller.raft.kafka_raft_client import LeaderChange
from kafkette.controller.raft.raft_wire import RaftWire
from kafkette.controller.raft.replicated_log import LogEntry, OffsetAndEpoch
from kafkette.protocol.api_keys import spec_for_request
from kafkette.protocol.apis import raft as wire

ENTRIES = (
    LogEntry(4, 2, LeaderChange(1, (1, 2, 3))),
    LogEntry(5, 2, TopicRecord("t", "id-1"), batch_end_offset=7),
    LogEntry(6, 2, PartitionRecord("t", 0, [1, 2], [1, 2], 1), batch_end_offset=7),
)
WIRE = RaftWire(METADATA_RECORD_SERDE)
to_wire, from_wire = WIRE.to_wire, WIRE.from_wire
encode_entries, decode_entries, decode_payload = WIRE.encode_entries, WIRE.decode_entries, WIRE.decode_payload


def _through_the_wire(struct):
    name = type(struct).__name__
    version = (
        12 if name.startswith("Fetch") and "Snapshot" not in name else 0
    )  # KIP-595's fields are Fetch v12's
    return type(struct).from_wire(struct.to_wire(version), version)


@pytest.mark.parametrize(
    ("message", "source"),
    [
        (core.VoteRequest(5, 2, 4, 17), 2),
        (core.VoteResponse(0, -1, 5, True), 3),
        (core.BeginQuorumEpochRequest(1, 6), 1),
        (core.BeginQuorumEpochResponse(74, 2, 7), 3),
        (core.EndQuorumEpochRequest(1, 6, (3, 2)), 1),
        (core.EndQuorumEpochResponse(0, 1, 6), 2),
        (core.FetchRequest(3, 6, 42, 5, correlation_id=9), 3),
        (core.FetchResponse(0, 1, 6, 40, entries=ENTRIES, correlation_id=9), 1),
        (core.FetchResponse(0, 1, 6, 40, diverging_epoch=OffsetAndEpoch(38, 5), correlation_id=9), 1),
        (core.FetchResponse(0, 1, 6, 40, snapshot_id=OffsetAndEpoch(30, 4), correlation_id=9), 1),
        (core.FetchSnapshotRequest(3, 6, OffsetAndEpoch(30, 4), 1024, 512, correlation_id=9), 3),
        (
            core.FetchSnapshotResponse(
                0, 1, 6, OffsetAndEpoch(30, 4), 2000, 1024, b"\x00chunk", correlation_id=9
            ),
            1,
        ),
        (core.FetchSnapshotResponse(98, 1, 6, OffsetAndEpoch(30, 4), correlation_id=9), 1),
    ],
)
def test_every_core_message_survives_the_wire(message, source):
    struct = _through_the_wire(to_wire(message, "cluster-1"))
    correlation_id = getattr(message, "correlation_id", 0)
    assert from_wire(struct, source=source, correlation_id=correlation_id) == (source, message)


def test_requests_are_registered_quorum_apis():
    assert spec_for_request(to_wire(core.VoteRequest(1, 1, 0, 0), None)).key.name == "VOTE"
    assert spec_for_request(to_wire(core.FetchRequest(2, 1, 0, 0), None)).key.name == "FETCH"
    snapshot_request = core.FetchSnapshotRequest(2, 1, OffsetAndEpoch(3, 1), 0, 100)
    assert spec_for_request(to_wire(snapshot_request, None)).key.name == "FETCH_SNAPSHOT"


def test_a_request_about_another_partition_is_refused():
    request = wire.VoteRequest(
        topics=[
            wire.VoteTopicRequest(
                topic_name="flights",
                partitions=[wire.VotePartitionRequest(partition_index=0, replica_epoch=1, replica_id=1)],
            )
        ]
    )
    with pytest.raises(ValueError, match="__cluster_metadata-0 alone"):
        from_wire(request)


def test_entry_codecs_round_trip_and_refuse_garbage():
    assert decode_entries(encode_entries(ENTRIES)) == ENTRIES
    assert decode_entries(None) == () and decode_entries(b"") == ()
    with pytest.raises(ValueError):
        decode_entries(b"\xc1garbage")
    with pytest.raises(ValueError, match="out of order"):
        decode_entries(encode_entries((ENTRIES[1], ENTRIES[0])))
    with pytest.raises(ValueError):
        decode_payload(b"\x92\xa3Nop\x80")  # ["Nop", {}]: no such record type


class _TextSerde:
    """A state machine of plain strings: the Raft layer needs no metadata record."""

    def write(self, record):
        if not isinstance(record, str):
            raise TypeError("not a string")
        return b"text:" + record.encode()

    def read(self, data):
        if not data.startswith(b"text:"):
            raise ValueError("not a text record")
        return data[5:].decode()


def test_the_raft_layer_replicates_records_of_any_serde_beside_its_leader_change_entries():
    wire_of_text = RaftWire(_TextSerde())
    entries = (LogEntry(0, 1, LeaderChange(1, (1, 2, 3))), LogEntry(1, 1, "hello"), LogEntry(2, 1, "world"))
    message = core.FetchResponse(0, 1, 1, 3, entries=entries, correlation_id=4)
    assert wire_of_text.from_wire(
        _through_the_wire(wire_of_text.to_wire(message, "c")), source=1, correlation_id=4
    ) == (1, message)
    with pytest.raises(TypeError):
        wire_of_text.encode_payload(TopicRecord("t", "id-1"))
