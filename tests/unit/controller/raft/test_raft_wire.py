"""The Raft core's messages through the wire schemas and back, and the entry codecs."""

from __future__ import annotations

import pytest

from kafkette.controller.metadata_records import PartitionRecord, TopicRecord
from kafkette.controller.raft import raft_messages as core
from kafkette.controller.raft.kafka_raft_client import LeaderChange
from kafkette.controller.raft.raft_wire import (
    decode_entries,
    decode_payload,
    encode_entries,
    from_wire,
    to_wire,
)
from kafkette.controller.raft.replicated_log import LogEntry
from kafkette.protocol.api_keys import spec_for_request
from kafkette.protocol.apis import raft as wire

ENTRIES = (LogEntry(4, 2, LeaderChange(1, (1, 2, 3))), LogEntry(5, 2, TopicRecord("t", "id-1")),
           LogEntry(6, 2, PartitionRecord("t", 0, [1, 2], [1, 2], 1)))


def _through_the_wire(struct):
    version = 1 if type(struct).__name__.startswith("Fetch") else 0
    return type(struct).from_wire(struct.to_wire(version), version)


@pytest.mark.parametrize(("message", "source"), [
    (core.VoteRequest(5, 2, 4, 17), 2),
    (core.VoteResponse(0, -1, 5, True), 3),
    (core.BeginQuorumEpochRequest(1, 6), 1),
    (core.BeginQuorumEpochResponse(74, 2, 7), 3),
    (core.EndQuorumEpochRequest(1, 6, (3, 2)), 1),
    (core.EndQuorumEpochResponse(0, 1, 6), 2),
    (core.FetchRequest(3, 6, 42, 5, correlation_id=9), 3),
    (core.FetchResponse(0, 1, 6, 40, None, ENTRIES, correlation_id=9), 1),
    (core.FetchResponse(0, 1, 6, 40, (5, 38), (), correlation_id=9), 1),
])
def test_every_core_message_survives_the_wire(message, source):
    struct = _through_the_wire(to_wire(message, "cluster-1"))
    correlation_id = getattr(message, "correlation_id", 0)
    assert from_wire(struct, source=source, correlation_id=correlation_id) == (source, message)


def test_requests_are_registered_quorum_apis():
    assert spec_for_request(to_wire(core.VoteRequest(1, 1, 0, 0), None)).key.name == "VOTE"
    assert spec_for_request(to_wire(core.FetchRequest(2, 1, 0, 0), None)).key.name == "FETCH"


def test_a_request_about_another_partition_is_refused():
    request = wire.VoteRequest(topics=[wire.VoteTopicRequest(topic_name="flights", partitions=[
        wire.VotePartitionRequest(partition_index=0, candidate_epoch=1, candidate_id=1)])])
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
