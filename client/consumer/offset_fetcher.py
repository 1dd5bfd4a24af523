"""ListOffsets lookups for the consumer and the admin client: earliest (-2), latest (-1),
max timestamp (-3) and by timestamp.

Owns: grouping partitions by leader into ListOffsetsRequests, one pass
(``list_offsets_once``, used by the Fetcher's background resets) and a retrying
call bounded by a timeout (``list_offsets``, behind ``beginning_offsets``,
``end_offsets`` and ``position``; ``list_offsets_and_timestamps`` behind
``offsets_for_times`` and ``AdminClient.list_offsets``), ``OffsetAndTimestamp``,
``ListOffsetsResultInfo`` and ``OffsetSpec``.
Leader errors request a metadata refresh.

Kafka concept: ``OffsetFetcher`` (``ListOffsets`` with EARLIEST/LATEST timestamps,
``offsetsForTimes``).  Does not own positions (SubscriptionState).
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from dataclasses import dataclass
from typing import NamedTuple

from kafkette.client.kafka_client import KafkaClient
from kafkette.protocol.apis.list_offsets import (
    EARLIEST_TIMESTAMP,
    LATEST_TIMESTAMP,
    MAX_TIMESTAMP,
    ListOffsetsPartition,
    ListOffsetsRequest,
    ListOffsetsResponse,
    ListOffsetsTopic,
)
from kafkette.protocol.errors import (
    Errors,
    KafkaError,
    KafkaTimeoutError,
    LeaderNotAvailableError,
    error_class,
)
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)


class OffsetAndTimestamp(NamedTuple):
    """What ``Consumer.offsets_for_times`` finds: a record's offset and timestamp (aiokafka's shape).

    Attributes:
        offset: the record's offset.
        timestamp: the record's timestamp (ms).
    """

    offset: int
    timestamp: int


@dataclass(frozen=True, slots=True)
class OffsetSpec:
    """What ``AdminClient.list_offsets`` asks of a partition (Kafka's admin ``OffsetSpec``).

    Build with ``earliest()``, ``latest()``, ``max_timestamp()`` or ``for_timestamp(ms)``.

    Attributes:
        timestamp: the ListOffsets timestamp: -2 earliest, -1 latest, -3 max timestamp,
            or a timestamp in ms (>= 0).
    """

    timestamp: int

    @classmethod
    def earliest(cls) -> OffsetSpec:
        """The log start offset."""
        return cls(EARLIEST_TIMESTAMP)

    @classmethod
    def latest(cls) -> OffsetSpec:
        """The high watermark (offset after the last committed record)."""
        return cls(LATEST_TIMESTAMP)

    @classmethod
    def max_timestamp(cls) -> OffsetSpec:
        """The first record carrying the largest timestamp (KIP-734)."""
        return cls(MAX_TIMESTAMP)

    @classmethod
    def for_timestamp(cls, timestamp_ms: int) -> OffsetSpec:
        """The first record whose timestamp is >= ``timestamp_ms``.

        Raises:
            ValueError: a negative or non-integer timestamp.
        """
        if not isinstance(timestamp_ms, int) or isinstance(timestamp_ms, bool) or timestamp_ms < 0:
            raise ValueError(f"timestamp must be an integer >= 0 (ms), got {timestamp_ms!r}")
        return cls(timestamp_ms)


class ListOffsetsResultInfo(NamedTuple):
    """One partition's ListOffsets answer (Kafka's ``ListOffsetsResultInfo``).

    Attributes:
        offset: the offset; -1 when a timestamp lookup found no record.
        timestamp: the found record's timestamp (ms); -1 for earliest/latest lookups.
        leader_epoch: leader epoch of the record's batch, or the leader's epoch for
            earliest/latest; -1 when unknown.
    """

    offset: int
    timestamp: int
    leader_epoch: int


class OffsetFetcher:
    """Looks up partition offsets by timestamp from partition leaders.

    Args:
        client: shared KafkaClient.
        request_timeout_ms: default bound of ``list_offsets`` (ms).
        retry_backoff_ms: pause between attempts (ms).
    """

    def __init__(
        self,
        client: KafkaClient,
        *,
        request_timeout_ms: int = 30000,
        retry_backoff_ms: int = 100,
        isolation_level: int = 0,
    ) -> None:
        self._client = client
        self._isolation_level = isolation_level  # 1: "latest" is the last stable offset
        self._request_timeout_ms = request_timeout_ms
        self._retry_backoff_ms = retry_backoff_ms

    async def list_offsets_once(
        self, timestamps: dict[TopicPartition, int]
    ) -> tuple[dict[TopicPartition, int], dict[TopicPartition, KafkaError]]:
        """One attempt: send ListOffsets to each partition's leader.

        Args:
            timestamps: ``{tp: -2 (earliest) | -1 (latest) | timestamp ms}``.

        Returns:
            (``{tp: offset}`` found, ``{tp: error}`` for the rest).
        """
        found, errors = await self._list_once(timestamps)
        return {tp: answer.offset for tp, answer in found.items()}, errors

    async def _list_once(
        self, timestamps: dict[TopicPartition, int]
    ) -> tuple[dict[TopicPartition, ListOffsetsResultInfo], dict[TopicPartition, KafkaError]]:
        cluster = self._client.cluster
        by_node: dict[int, dict[TopicPartition, int]] = defaultdict(dict)
        errors: dict[TopicPartition, KafkaError] = {}
        for tp, ts in timestamps.items():
            self._client.add_topic(tp.topic)
            leader = cluster.leader_for(tp)
            if leader is None or cluster.broker(leader) is None:
                code = cluster.topic_error(tp.topic)
                errors[tp] = (
                    error_class(code)(f"Topic {tp.topic}")
                    if code
                    else LeaderNotAvailableError(f"No leader known for {tp}")
                )
                continue
            by_node[leader][tp] = ts
        if errors:
            self._client.request_metadata_update()
        found: dict[TopicPartition, ListOffsetsResultInfo] = {}
        results = await asyncio.gather(
            *(self._send(node_id, tps) for node_id, tps in by_node.items()), return_exceptions=True
        )
        for tps, result in zip(by_node.values(), results, strict=True):
            if isinstance(result, KafkaError):
                for tp in tps:
                    errors[tp] = result
                continue
            if isinstance(result, BaseException):
                raise result
            node_found, node_errors = result
            found.update(node_found)
            errors.update(node_errors)
        return found, errors

    async def _send(
        self, node_id: int, timestamps: dict[TopicPartition, int]
    ) -> tuple[dict[TopicPartition, ListOffsetsResultInfo], dict[TopicPartition, KafkaError]]:
        by_topic: dict[str, list[ListOffsetsPartition]] = defaultdict(list)
        for (topic, partition), ts in timestamps.items():
            by_topic[topic].append(ListOffsetsPartition(partition_index=partition, timestamp=ts))
        request = ListOffsetsRequest(
            replica_id=-1,
            isolation_level=self._isolation_level,
            topics=[ListOffsetsTopic(name=t, partitions=parts) for t, parts in by_topic.items()],
        )
        response: ListOffsetsResponse = await self._client.send(node_id, request)
        found: dict[TopicPartition, ListOffsetsResultInfo] = {}
        errors: dict[TopicPartition, KafkaError] = {}
        for topic in response.topics:
            for part in topic.partitions:
                tp = TopicPartition(topic.name, part.partition_index)
                if tp not in timestamps:
                    continue
                if part.error_code == Errors.NONE:
                    found[tp] = ListOffsetsResultInfo(part.offset, part.timestamp, part.leader_epoch)
                else:
                    cls = error_class(part.error_code)
                    errors[tp] = cls(f"ListOffsets for {tp} failed")
                    if cls.invalid_metadata:
                        self._client.request_metadata_update()
        for tp in timestamps:
            if tp not in found and tp not in errors:
                errors[tp] = KafkaError(f"No ListOffsets answer for {tp} from broker {node_id}")
        return found, errors

    async def list_offsets(
        self, timestamps: dict[TopicPartition, int], timeout_ms: int | None = None
    ) -> dict[TopicPartition, int]:
        """Look up offsets, retrying retriable errors until ``timeout_ms``.

        Returns:
            ``{tp: offset}`` (-1 when a timestamp lookup found no record).

        Raises:
            KafkaError: as ``list_offsets_and_timestamps``.
        """
        found = await self.list_offsets_and_timestamps(timestamps, timeout_ms)
        return {tp: answer.offset for tp, answer in found.items()}

    async def list_offsets_and_timestamps(
        self, timestamps: dict[TopicPartition, int], timeout_ms: int | None = None
    ) -> dict[TopicPartition, ListOffsetsResultInfo]:
        """Look up offsets with their records' timestamps, retrying retriable errors until ``timeout_ms``.

        Args:
            timestamps: ``{tp: -3 (max timestamp) | -2 (earliest) | -1 (latest) | timestamp ms}``.
            timeout_ms: bound of the whole call, retries included (ms); default the
                request timeout.

        Returns:
            ``{tp: ListOffsetsResultInfo}``; offset -1 and timestamp -1 when no record qualifies.

        Raises:
            KafkaError: a non-retriable error for some partition (e.g. the topic is
                invalid), or the last retriable error once the timeout passes.
            KafkaTimeoutError: the timeout passed without any answer.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (timeout_ms if timeout_ms is not None else self._request_timeout_ms) / 1000
        for topic in {tp.topic for tp in timestamps}:
            await self._client.wait_for_metadata(topic, max(int((deadline - loop.time()) * 1000), 1))
        remaining = dict(timestamps)
        result: dict[TopicPartition, ListOffsetsResultInfo] = {}
        while True:
            found, errors = await self._list_once(remaining)
            result.update(found)
            for tp in found:
                remaining.pop(tp, None)
            if not remaining:
                return result
            for exc in errors.values():
                if not exc.retriable:
                    raise exc
            if loop.time() + self._retry_backoff_ms / 1000 >= deadline:
                exc = next(iter(errors.values()), None)
                if exc is not None:
                    raise exc
                raise KafkaTimeoutError(f"ListOffsets for {sorted(map(str, remaining))} timed out")
            await asyncio.sleep(self._retry_backoff_ms / 1000)
            if self._client.cluster.need_update:
                try:
                    await self._client.refresh_metadata()
                except KafkaError as exc:
                    logger.debug("Metadata refresh before ListOffsets retry failed: %s", exc)
