"""``kafkette consume``'s last line and exit code: ``Processed a total of N messages``, the
partitions it could not read for want of a leader, 130 after SIGINT and 143 after SIGTERM
(no broker)."""

from __future__ import annotations

import signal

from kafkette.client.cli.consume import ConsumeResult
from kafkette.protocol.topic_partition import TopicPartition


def test_the_summary_is_kafkas_line_when_every_partition_was_read():
    assert ConsumeResult(count=30).summary() == "Processed a total of 30 messages"


def test_the_summary_names_the_partitions_without_a_leader_in_order():
    result = ConsumeResult(
        count=21, not_read={TopicPartition("t", 10), TopicPartition("t", 2), TopicPartition("a", 0)}
    )
    assert (
        result.summary()
        == "Processed a total of 21 messages; partitions not read (no leader): a-0, t-2, t-10"
    )


def test_sigterm_exits_143_sigint_130_and_the_end_0():
    # Kafka's console consumer (checked with Apache Kafka 4.3.1's ConsoleConsumer): SIGTERM 143, SIGINT 130
    assert ConsumeResult(stopped_by=signal.SIGTERM).exit_code() == 143
    assert ConsumeResult(stopped_by=signal.SIGINT).exit_code() == 130
    assert ConsumeResult().exit_code() == 0
