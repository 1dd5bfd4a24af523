"""The producer: Producer (public API), Acks, RecordAccumulator, Sender, DefaultPartitioner."""

from kafkette.client.producer.acks import Acks
from kafkette.client.producer.partitioner import DefaultPartitioner, murmur2, to_positive
from kafkette.client.producer.producer import Producer
from kafkette.client.producer.producer_batch import RecordMetadata

__all__ = ["Acks", "DefaultPartitioner", "Producer", "RecordMetadata", "murmur2", "to_positive"]
