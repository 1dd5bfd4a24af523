"""Driver-side offset lookups of the kafkette source (Spark's ``KafkaOffsetReader``).

Owns: finding the topic-partitions a subscription covers (``subscribe``,
``subscribePattern``, ``assign``) and their earliest (log start) and latest (high
watermark) offsets, and resolving ``startingOffsets``/``endingOffsets`` specs.  Each
public method is synchronous: it runs one short asyncio session (an AdminClient and a
Consumer of the SDK, both closed before it returns, every call bounded by the
consumer's ``request_timeout_ms``), because Spark calls the source from plain
threads.  Does not read records (``partition_reader``) nor plan batches
(``batch_reader``, ``stream_reader``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TypeVar

from kafkette.client.admin import AdminClient
from kafkette.client.consumer import Consumer
from kafkette.client.spark.options import (
    EARLIEST,
    LATEST,
    SECURITY_KEYWORDS,
    Assign,
    OffsetSpec,
    SourceOptions,
    Subscribe,
)
from kafkette.protocol.topic_partition import TopicPartition

T = TypeVar("T")

_SESSION_TIMEOUT_S = 120.0


class KafketteOffsetReader:
    """Looks up partitions and offsets for one kafkette source.

    Args:
        options: the parsed source options (bootstrap servers, subscription, client
            settings).
    """

    def __init__(self, options: SourceOptions) -> None:
        self._options = options

    # --- the session -----------------------------------------------------------------------

    def _run(self, work: Callable[[AdminClient, Consumer], Awaitable[T]]) -> T:
        async def session() -> T:
            settings = self._options.consumer_settings
            async with asyncio.timeout(_SESSION_TIMEOUT_S):
                async with (
                    AdminClient(
                        bootstrap_servers=self._options.bootstrap_servers,
                        request_timeout_ms=settings.get("request_timeout_ms", 30000),
                        **{k: settings[k] for k in SECURITY_KEYWORDS if k in settings},
                    ) as admin,
                    Consumer(
                        bootstrap_servers=self._options.bootstrap_servers,
                        allow_auto_create_topics=False,
                        **settings,
                    ) as consumer,
                ):
                    return await work(admin, consumer)

        return asyncio.run(session())

    async def _partitions(self, admin: AdminClient) -> list[TopicPartition]:
        subscription = self._options.subscription
        if isinstance(subscription, Assign):
            return list(subscription.partitions)
        if isinstance(subscription, Subscribe):
            existing = set(await admin.list_topics())
            topics = [t for t in subscription.topics if t in existing]
        else:
            topics = [t for t in await admin.list_topics() if subscription.matches(t)]
        if not topics:
            return []
        described = await admin.describe_topics(topics)
        return sorted(
            TopicPartition(name, p.partition)
            for name, description in described.items()
            if not description.is_internal
            for p in description.partitions
        )

    @staticmethod
    async def _list_offsets(
        consumer: Consumer, requests: Mapping[TopicPartition, int]
    ) -> dict[TopicPartition, int]:
        earliest = [tp for tp, which in requests.items() if which == EARLIEST]
        latest = [tp for tp, which in requests.items() if which == LATEST]
        out = {tp: offset for tp, offset in requests.items() if offset >= 0}
        if earliest:
            out.update(await consumer.beginning_offsets(earliest))
        if latest:
            out.update(await consumer.end_offsets(latest))
        return out

    # --- public lookups ------------------------------------------------------------------------

    def list_partitions(self) -> list[TopicPartition]:
        """The topic-partitions the subscription covers now, sorted.

        Raises:
            KafkaError: the cluster did not answer within the request timeout.
        """
        return self._run(lambda admin, consumer: self._partitions(admin))

    def list_offsets(self, requests: Mapping[TopicPartition, int]) -> dict[TopicPartition, int]:
        """Resolve ``{tp: -2 | -1 | offset}`` to offsets (-2: log start, -1: high watermark).

        Raises:
            KafkaError: a lookup failed (e.g. an unknown partition) within the request timeout.
        """
        requests = dict(requests)
        if not requests:
            return {}
        return self._run(lambda admin, consumer: self._list_offsets(consumer, requests))

    def latest_and_new_earliest(
        self, known: Iterable[TopicPartition]
    ) -> tuple[dict[TopicPartition, int], dict[TopicPartition, int]]:
        """Discover partitions, then fetch the latest offset of each and the earliest of
        those not in ``known`` (new partitions, new topics), in one session.

        Returns:
            (``{tp: high watermark}`` of every current partition,
            ``{tp: log start offset}`` of the new ones).
        """
        known = set(known)

        async def work(
            admin: AdminClient, consumer: Consumer
        ) -> tuple[dict[TopicPartition, int], dict[TopicPartition, int]]:
            partitions = await self._partitions(admin)
            requests = {tp: LATEST for tp in partitions}
            latest = await self._list_offsets(consumer, requests)
            new = [tp for tp in partitions if tp not in known]
            earliest = await self._list_offsets(consumer, dict.fromkeys(new, EARLIEST))
            return latest, earliest

        return self._run(work)

    def resolve(self, spec: OffsetSpec) -> dict[TopicPartition, int]:
        """Offsets of a ``startingOffsets``/``endingOffsets`` spec for the current partitions.

        Raises:
            ValueError: a JSON spec that does not name exactly the subscribed partitions
                (Spark's rule: "you must specify all TopicPartitions").
            KafkaError: a lookup failed.
        """

        async def work(admin: AdminClient, consumer: Consumer) -> dict[TopicPartition, int]:
            partitions = await self._partitions(admin)
            if spec.kind == "earliest":
                return await self._list_offsets(consumer, dict.fromkeys(partitions, EARLIEST))
            if spec.kind == "latest":
                return await self._list_offsets(consumer, dict.fromkeys(partitions, LATEST))
            if set(spec.offsets) != set(partitions):
                raise ValueError(
                    f"Specific offsets must name every subscribed topic-partition: subscribed "
                    f"{sorted(map(str, partitions))}, given {sorted(map(str, spec.offsets))}. "
                    f"Use -1 for latest, -2 for earliest."
                )
            return await self._list_offsets(consumer, spec.offsets)

        return self._run(work)
