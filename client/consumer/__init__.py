"""The consumer: Consumer (public API), Fetcher, OffsetFetcher, SubscriptionState."""

from kafkette.client.consumer.consumer import Consumer
from kafkette.client.consumer.consumer_coordinator import ConsumerRebalanceListener
from kafkette.client.consumer.fetcher import ConsumerRecord
from kafkette.client.consumer.offset_fetcher import ListOffsetsResultInfo, OffsetAndTimestamp, OffsetSpec

__all__ = [
    "Consumer",
    "ConsumerRebalanceListener",
    "ConsumerRecord",
    "ListOffsetsResultInfo",
    "OffsetAndTimestamp",
    "OffsetSpec",
]
