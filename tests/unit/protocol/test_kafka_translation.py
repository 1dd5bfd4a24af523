"""The Kafka listener's translation of requests and answers (``kafka_translation``): the
per-API differences Kafka's versions make, checked on messages alone (no broker)."""

from __future__ import annotations

from kafkette.protocol import apis as internal
from kafkette.protocol.api_keys import ApiKey
from kafkette.protocol.errors import Errors
from kafkette.protocol.kafka_messages import fetch, list_offsets
from kafkette.protocol.kafka_translation import TRANSLATIONS


def _list_offsets(version: int, timestamps: list[int]):
    request = list_offsets.ListOffsetsRequest(replica_id=-1, isolation_level=0, topics=[list_offsets.ListOffsetsTopic(
        name="t", partitions=[list_offsets.ListOffsetsPartition(partition_index=i, timestamp=ts)
                              for i, ts in enumerate(timestamps)])])
    answer = internal.list_offsets.ListOffsetsResponse(topics=[internal.list_offsets.ListOffsetsTopicResponse(
        name="t", partitions=[internal.list_offsets.ListOffsetsPartitionResponse(
            partition_index=i, error_code=0, timestamp=5, offset=3, leader_epoch=0) for i in range(len(timestamps))])])
    out = TRANSLATIONS[int(ApiKey.LIST_OFFSETS)].to_kafka(answer, version, request)
    return [(p.error_code, p.offset) for p in out.topics[0].partitions]


def test_max_timestamp_before_list_offsets_v7_is_unsupported_version():
    assert _list_offsets(6, [-3, -1, 7]) == [(Errors.UNSUPPORTED_VERSION, -1), (0, 3), (0, 3)]
    assert _list_offsets(7, [-3]) == [(0, 3)]


def _fetch_request(version: int):
    request = fetch.FetchRequest(replica_id=-1, max_wait_ms=0, min_bytes=1, max_bytes=1 << 20, isolation_level=0,
                                 session_id=0, session_epoch=-1, topics=[], forgotten_topics_data=[], rack_id="")
    return TRANSLATIONS[int(ApiKey.FETCH)].to_internal(request, version)


def test_fetch_carries_client_metadata_from_v11_only():
    assert _fetch_request(11).rack_id == ""
    assert _fetch_request(10).rack_id is None, "before KIP-392 a consumer is served by the leader only"
