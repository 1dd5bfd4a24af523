"""Unit tests of ``kafka_parser``: the masks, the pairing of the two clusters' answers, and the
Java parser itself on answers made by Kafkette's own codec (needs Java 17 and the Kafka jars of
the Apache Kafka peer, as the conformance suite)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from kafkette.protocol.apis.fetch import FetchPartitionData, FetchResponse, FetchTopicResponse
from kafkette.protocol.kafka_header import encode_response_header
from tests.conformance import kafka_parser
from tests.conformance.kafka_parser import MASKED, differences, masked, pair_up

pytestmark = pytest.mark.timeout(120)


def _fetch_frame(records: bytes | None, version: int = 12) -> bytes:
    answer = FetchResponse(
        throttle_time_ms=0,
        error_code=0,
        session_id=0,
        responses=[
            FetchTopicResponse(
                topic="t",
                partitions=[
                    FetchPartitionData(
                        partition_index=0,
                        error_code=0,
                        high_watermark=0,
                        last_stable_offset=0,
                        log_start_offset=0,
                        aborted_transactions=None,
                        records=records,
                    )
                ],
            )
        ],
    )
    body = b"".join(bytes(p) for p in answer.encode(version, True))
    return encode_response_header(7, 1) + body


def _pair(tmp_path: Path, frame: bytes) -> Path:
    path = tmp_path / "kafkette.jsonl"
    path.write_text(
        json.dumps(
            {
                "target": "kafkette",
                "scenario": "s",
                "seq": 0,
                "api_key": 1,
                "api_version": 12,
                "request": "",
                "response": base64.b64encode(frame).decode(),
            }
        )
        + "\n"
    )
    return path


def test_kafkas_parser_accepts_a_fetch_answer_with_an_empty_record_set(tmp_path):
    [result] = kafka_parser.parse([_pair(tmp_path, _fetch_frame(b""))])
    assert result["ok"], result
    assert result["parsed"]["responses"][0]["partitions"][0]["recordsSizeInBytes"] == 0


def test_kafkas_parser_rejects_a_fetch_answer_with_a_null_record_set(tmp_path):
    [result] = kafka_parser.parse([_pair(tmp_path, _fetch_frame(None))])
    assert not result["ok"]
    assert "null record set for t-0" in result["error"]


def test_kafkas_parser_rejects_an_answer_with_bytes_it_would_not_write_back(tmp_path):
    [result] = kafka_parser.parse([_pair(tmp_path, _fetch_frame(b"") + b"\x00")])
    assert not result["ok"]
    assert "1 bytes left after parsing FETCH v12" in result["error"]


def test_masks_hide_varying_fields_but_keep_an_unset_id():
    answer = {
        "throttleTimeMs": 5,
        "topics": [
            {"name": "a", "topicId": "AAAAAAAAAAAAAAAAAAAAAA"},
            {"name": "b", "topicId": "WBl_IQJeS-2NRaQ0P2a4AQ"},
        ],
    }
    assert masked(answer, "CreateTopics") == {
        "throttleTimeMs": MASKED,
        "topics": [{"name": "a", "topicId": "AAAAAAAAAAAAAAAAAAAAAA"}, {"name": "b", "topicId": MASKED}],
    }


def test_metadata_topics_are_compared_sorted_by_name_without_consumer_offsets():
    kafka = {"topics": [{"name": "b"}, {"name": "a"}]}
    ours = {"topics": [{"name": "__consumer_offsets"}, {"name": "a"}, {"name": "b"}]}
    assert masked(kafka, "Metadata") == masked(ours, "Metadata")
    assert masked(kafka, "Fetch") != masked(ours, "Fetch")


def test_differences_name_the_field_path_and_both_values():
    assert differences({"a": [{"b": None}]}, {"a": [{"b": []}]}) == ["a[0].b: null != []"]


def test_a_wait_polling_the_same_request_is_compared_at_the_answer_it_settled_on():
    def answers(target: str, count: int) -> list[dict]:
        return [
            {"target": target, "scenario": "s", "seq": i, "api_key": 3, "api_version": 12}
            for i in range(count)
        ]

    kafka, ours = answers("kafka", 5), answers("kafkette", 2)
    requests = {(r["target"], "s", r["seq"]): "same" for r in kafka + ours}
    pairs, unpaired = pair_up(kafka, ours, requests)
    assert [(a["seq"], b["seq"]) for a, b in pairs] == [(4, 1)]
    assert unpaired == 0
