"""The consumer: Consumer (public API), Fetcher, OffsetFetcher, SubscriptionState."""

from client.consumer.consumer import Consumer
from client.consumer.fetcher import ConsumerRecord

__all__ = ["Consumer", "ConsumerRecord"]
