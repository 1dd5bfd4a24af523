"""The producer: Producer (public API), RecordAccumulator, Sender, DefaultPartitioner."""

from kafkette.client.producer.partitioner import DefaultPartitioner, murmur2, to_positive
from kafkette.client.producer.producer import Producer
from kafkette.client.producer.producer_batch import RecordMetadata

__all__ = ["DefaultPartitioner", "Producer", "RecordMetadata", "murmur2", "to_positive"]
