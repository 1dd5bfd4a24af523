"""A consumer whose fetches from a broker keep failing logs one WARNING when they start, at most
one more per 10 s while they last, and one INFO when a fetch from that broker works again."""

from __future__ import annotations

import logging

from kafkette.client.consumer.fetcher import Fetcher
from kafkette.client.consumer.subscription_state import SubscriptionState
from kafkette.protocol.apis.fetch import FetchPartitionData, FetchResponse, FetchTopicResponse
from kafkette.protocol.errors import KafkaConnectionError
from kafkette.protocol.topic_partition import TopicPartition

TP = TopicPartition("t", 0)


class FailingThenAnswering:
    """A client whose ``send`` fails ``failures`` times, then answers an empty fetch."""

    def __init__(self, failures: int) -> None:
        self.failures = failures

    async def send(self, node_id, request, *, timeout_ms=None):
        if self.failures:
            self.failures -= 1
            raise KafkaConnectionError(f"Cannot connect to broker {node_id}: connection refused")
        return FetchResponse(
            throttle_time_ms=0,
            error_code=0,
            responses=[
                FetchTopicResponse(
                    topic=TP.topic,
                    partitions=[
                        FetchPartitionData(partition_index=0, error_code=0, high_watermark=0, records=b"")
                    ],
                )
            ],
        )


async def test_fetches_failing_from_a_broker_log_once_when_they_start_and_once_when_they_work_again(caplog):
    subs = SubscriptionState(auto_offset_reset="none")
    subs.assign([TP])
    subs.seek(TP, 0)
    fetcher = Fetcher(FailingThenAnswering(failures=50), subs, None)  # type: ignore[arg-type]
    with caplog.at_level(logging.DEBUG, logger="kafkette.client.consumer.fetcher"):
        for _ in range(51):
            await fetcher._fetch(1, {TP: 0})
    lines = [(r.levelname, r.getMessage()) for r in caplog.records if r.levelno >= logging.INFO]
    assert lines == [
        (
            "WARNING",
            "[Consumer clientId=kafkette] Fetch from broker 1 failed, retrying: "
            "KafkaConnectionError: Cannot connect to broker 1: connection refused",
        ),
        ("INFO", lines[1][1]),
    ], lines
    assert lines[1][1].startswith("[Consumer clientId=kafkette] Fetch from broker 1 succeeded again after")
    assert lines[1][1].endswith("(50 failures)")
