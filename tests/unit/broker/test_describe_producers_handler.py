"""The DescribeProducers handler called directly over a real Partition and log on tmp_path (KIP-664):
the producers of idempotent batches, a partition this broker holds no log of, unknown topics and
partitions, an illegal topic name.

The stand-ins are the handler context's ``replica_manager.get_partition`` and its metadata cache's
``contains_topic`` and ``partition_state``.
"""

from __future__ import annotations

from types import SimpleNamespace

from broker_fakes import TP0, make_batch, make_state, new_partition

from kafkette.broker.apis import describe_producers
from kafkette.protocol.apis.describe_producers import DescribeProducersRequest, DescribeProducersRequestTopic
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.topic_partition import TopicPartition

TP1 = TopicPartition(TP0.topic, 1)


def _context(hosted: dict):
    """``hosted``: the partitions this broker holds; the metadata knows partitions 0 and 1 of TP0's topic."""
    known = {TP0, TP1}
    return SimpleNamespace(
        replica_manager=SimpleNamespace(get_partition=hosted.get),
        metadata_cache=SimpleNamespace(
            contains_topic=lambda name: name == TP0.topic,
            partition_state=lambda tp: object() if tp in known else None,
        ),
    )


async def _describe(hosted: dict, topics: dict[str, list[int]]):
    request = DescribeProducersRequest(
        topics=[DescribeProducersRequestTopic(name=k, partition_indexes=v) for k, v in topics.items()]
    )
    header = RequestHeader(api_key=61, api_version=0, correlation_id=1, client_id="test")
    response = await describe_producers.handle(_context(hosted), header, request)
    return {
        (t.name, p.partition_index): (p.error_code, p.error_message, p.active_producers)
        for t in response.topics
        for p in t.partitions
    }


async def test_each_idempotent_producer_is_listed_with_its_epoch_last_sequence_and_last_timestamp(
    log_manager,
):
    partition = new_partition(log_manager)
    partition.make_leader(make_state())
    partition.append_records_to_leader(
        bytearray(make_batch(3, producer_id=7, producer_epoch=2, base_sequence=0)), required_acks=1
    )
    partition.append_records_to_leader(
        bytearray(make_batch(2, producer_id=7, producer_epoch=2, base_sequence=3)), required_acks=1
    )
    partition.append_records_to_leader(
        bytearray(make_batch(1, producer_id=5, producer_epoch=0, base_sequence=0)), required_acks=1
    )
    partition.append_records_to_leader(bytearray(make_batch(1)), required_acks=1)  # not idempotent
    answers = await _describe({TP0: partition}, {TP0.topic: [0]})
    error, message, producers = answers[(TP0.topic, 0)]
    assert (error, message) == (Errors.NONE, None)
    assert [
        (
            s.producer_id,
            s.producer_epoch,
            s.last_sequence,
            s.last_timestamp,
            s.coordinator_epoch,
            s.current_txn_start_offset,
        )
        for s in producers
    ] == [(5, 0, 0, 1_000, -1, -1), (7, 2, 4, 1_001, -1, -1)]


async def test_a_partition_without_a_log_here_is_not_leader_or_follower_and_an_unknown_one_is_unknown(
    log_manager,
):
    answers = await _describe({}, {TP0.topic: [1, 9]})
    assert answers == {
        (TP0.topic, 1): (Errors.NOT_LEADER_OR_FOLLOWER, None, []),
        (TP0.topic, 9): (Errors.UNKNOWN_TOPIC_OR_PARTITION, None, []),
    }


async def test_unknown_topics_and_illegal_names_answer_every_partition_with_kafkas_message():
    answers = await _describe({}, {"no-such": [0, 1], "bad name!": [0]})
    unknown = (Errors.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic-partition.", [])
    assert answers[("no-such", 0)] == answers[("no-such", 1)] == unknown
    error, message, _ = answers[("bad name!", 0)]
    assert error == Errors.INVALID_TOPIC_EXCEPTION and message.startswith("Topic name is invalid")
