"""TopicPartition: the (topic, partition) pair that names a partition everywhere.

Kafka concept: ``org.apache.kafka.common.TopicPartition``; shape of aiokafka's.
"""

from __future__ import annotations

from typing import NamedTuple


class TopicPartition(NamedTuple):
    """A partition of a topic: ``TopicPartition("flights", 0)``; prints as ``flights-0``."""

    topic: str
    partition: int

    def __str__(self) -> str:
        return f"{self.topic}-{self.partition}"

    @classmethod
    def parse(cls, text: str) -> TopicPartition:
        """Parse a log directory name ``<topic>-<partition>``.

        Raises:
            ValueError: no ``-<int>`` suffix.
        """
        topic, sep, partition = text.rpartition("-")
        if not sep or not topic or not partition.isdigit():
            raise ValueError(f"{text!r} is not <topic>-<partition>")
        return cls(topic, int(partition))
