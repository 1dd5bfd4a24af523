"""The consumer: Consumer (public API), Fetcher, OffsetFetcher, SubscriptionState."""

from client.consumer.consumer import Consumer
from client.consumer.fetcher import ConsumerRecord
from client.consumer.offset_fetcher import ListOffsetsResultInfo, OffsetAndTimestamp, OffsetSpec

__all__ = ["Consumer", "ConsumerRecord", "ListOffsetsResultInfo", "OffsetAndTimestamp", "OffsetSpec"]
