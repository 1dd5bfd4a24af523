"""The public Consumer: manual assignment or a group subscription, seeks, commits,
``getmany`` and ``async for``.

Owns: the consumer's lifecycle (``start``/``stop``, ``async with``) and its public
API over SubscriptionState (positions), Fetcher (background fetching), OffsetFetcher
(ListOffsets) and, with a ``group_id``, ConsumerCoordinator (membership, assignment,
commits).

Kafka concept: ``KafkaConsumer`` (``assign``, ``subscribe``, ``commitSync``,
``committed``); API shape of aiokafka's ``AIOKafkaConsumer``.
"""

from __future__ import annotations

import asyncio
import logging
import re
import ssl
from collections.abc import Iterable, Mapping, Sequence

from kafkette.client.bootstrap_servers import default_bootstrap_servers
from kafkette.client.consumer.aborted_transactions import isolation_level_id
from kafkette.client.consumer.assignors import PartitionAssignor, assignor_for
from kafkette.client.consumer.consumer_coordinator import ConsumerCoordinator, ConsumerRebalanceListener
from kafkette.client.consumer.fetch_config import FetchConfig
from kafkette.client.consumer.fetcher import ConsumerRecord, Fetcher
from kafkette.client.consumer.offset_fetcher import OffsetAndTimestamp, OffsetFetcher
from kafkette.client.consumer.subscription_state import SubscriptionState
from kafkette.client.exponential_backoff import (
    DEFAULT_RECONNECT_BACKOFF_MAX_MS,
    DEFAULT_RECONNECT_BACKOFF_MS,
    DEFAULT_RETRY_BACKOFF_MAX_MS,
)
from kafkette.client.kafka_client import KafkaClient
from kafkette.client.offset_and_metadata import OffsetAndMetadata
from kafkette.protocol.apis.list_offsets import EARLIEST_TIMESTAMP, LATEST_TIMESTAMP
from kafkette.protocol.errors import Errors, IllegalStateError, error_class
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)

_client_ids = iter(range(1, 1 << 62))


class Consumer:
    """An asyncio consumer of manually assigned partitions.

    Args:
        bootstrap_servers: ``"host:port,..."``; when not given, ``$KAFKETTE_BOOTSTRAP_SERVERS``, else
            ``127.0.0.1:9092`` (see ``kafkette.client.bootstrap_servers``).
        client_id: name in request headers (default ``kafkette-consumer-N``).
        auto_offset_reset: where to start without a valid position, or after
            OFFSET_OUT_OF_RANGE: ``"earliest"``, ``"latest"`` or ``"none"`` (raise).
        fetch_max_wait_ms: how long the broker may hold a fetch for ``fetch_min_bytes`` (ms).
        fetch_min_bytes: bytes the broker waits for before answering (bytes).
        fetch_max_bytes: bound of one fetch response (bytes).
        max_partition_fetch_bytes: bound per partition per fetch (bytes).
        request_timeout_ms: per-request deadline (ms).
        retry_backoff_ms: pause after errors (ms).
        retry_backoff_max_ms, reconnect_backoff_ms, reconnect_backoff_max_ms: Kafka's
            ``retry.backoff.max.ms`` (the most the pause between metadata refreshes that
            fail or bring nothing new grows to) and reconnect backoff per broker, in ms
            (``kafkette.client.kafka_client.KafkaClient``).
        security_protocol, ssl_context, sasl_mechanism, sasl_plain_username, sasl_plain_password:
            ``PLAINTEXT`` (the default), ``SSL``, ``SASL_PLAINTEXT`` or ``SASL_SSL``, the client TLS
            context (``kafkette.client.create_ssl_context``) and the SASL login (PLAIN,
            SCRAM-SHA-256, SCRAM-SHA-512), as aiokafka takes them
            (``kafkette.client.kafka_client.KafkaClient``).
        allow_auto_create_topics: Metadata's allow_auto_topic_creation flag (Kafka's
            ``allow.auto.create.topics``, default true): when False, assigning or
            asking for an unknown topic never creates it.
        group_id: the consumer group (``group.id``); needed by ``subscribe``, ``commit`` and
            ``committed``.
        enable_auto_commit: commit the positions every ``auto_commit_interval_ms`` (ms), before
            a rebalance and on ``stop``.
        session_timeout_ms: the group drops this member after this long without a heartbeat
            (ms; Kafka's default 45 s, within the brokers' ``group.min/max.session.timeout.ms``).
        heartbeat_interval_ms: heartbeat period (ms), below ``session_timeout_ms``.
        max_poll_interval_ms: the member leaves its group when ``getmany`` is not called for
            this long (ms).
        rebalance_timeout_ms: how long a rebalance waits for this member to rejoin (ms;
            default ``max_poll_interval_ms``).
        partition_assignment_strategy: assignor names ("range", "roundrobin") or objects, in
            order of preference.
        group_instance_id: ``group.instance.id``, making this consumer a static member
            (KIP-345): ``stop`` does not leave the group, and a restart with the same id within
            ``session_timeout_ms`` gets its partitions back without a rebalance (an older
            instance still running is fenced: FencedInstanceIdError).
        isolation_level: ``"read_uncommitted"`` (the default: every record up to the high
            watermark) or ``"read_committed"`` (only committed transactions' records, up to the
            last stable offset; "latest" resets to it), Kafka's ``isolation.level`` (KIP-98).

    Raises:
        ValueError: invalid settings, or no ``bootstrap_servers`` given and a malformed
            ``$KAFKETTE_BOOTSTRAP_SERVERS``.
    """

    def __init__(
        self,
        *,
        bootstrap_servers: str | None = None,
        client_id: str | None = None,
        auto_offset_reset: str = "latest",
        fetch_max_wait_ms: int = 500,
        fetch_min_bytes: int = 1,
        fetch_max_bytes: int = 52428800,
        max_partition_fetch_bytes: int = 1048576,
        request_timeout_ms: int = 30000,
        retry_backoff_ms: int = 100,
        retry_backoff_max_ms: int = DEFAULT_RETRY_BACKOFF_MAX_MS,
        reconnect_backoff_ms: int = DEFAULT_RECONNECT_BACKOFF_MS,
        reconnect_backoff_max_ms: int = DEFAULT_RECONNECT_BACKOFF_MAX_MS,
        metadata_max_age_ms: int = 300000,
        allow_auto_create_topics: bool = True,
        group_id: str | None = None,
        enable_auto_commit: bool = True,
        auto_commit_interval_ms: int = 5000,
        session_timeout_ms: int = 45000,
        heartbeat_interval_ms: int = 3000,
        max_poll_interval_ms: int = 300000,
        rebalance_timeout_ms: int | None = None,
        partition_assignment_strategy: Sequence[str | PartitionAssignor] = ("range",),
        group_instance_id: str | None = None,
        security_protocol: str = "PLAINTEXT",
        ssl_context: ssl.SSLContext | None = None,
        sasl_mechanism: str = "PLAIN",
        sasl_plain_username: str | None = None,
        sasl_plain_password: str | None = None,
        isolation_level: str = "read_uncommitted",
    ) -> None:
        fetch_config = FetchConfig(
            fetch_max_wait_ms,
            fetch_min_bytes,
            fetch_max_bytes,
            max_partition_fetch_bytes,
            isolation_level_id(isolation_level),
        )
        self.isolation_level = isolation_level
        self.client_id = client_id or f"kafkette-consumer-{next(_client_ids)}"
        self._request_timeout_ms = request_timeout_ms
        self._subscriptions = SubscriptionState(auto_offset_reset)
        self._client = KafkaClient(
            default_bootstrap_servers(bootstrap_servers),
            client_id=self.client_id,
            request_timeout_ms=request_timeout_ms,
            retry_backoff_ms=retry_backoff_ms,
            metadata_max_age_ms=metadata_max_age_ms,
            allow_auto_topic_creation=allow_auto_create_topics,
            retry_backoff_max_ms=retry_backoff_max_ms,
            reconnect_backoff_ms=reconnect_backoff_ms,
            reconnect_backoff_max_ms=reconnect_backoff_max_ms,
            security_protocol=security_protocol,
            ssl_context=ssl_context,
            sasl_mechanism=sasl_mechanism,
            sasl_plain_username=sasl_plain_username,
            sasl_plain_password=sasl_plain_password,
        )
        self._offset_fetcher = OffsetFetcher(
            self._client,
            request_timeout_ms=request_timeout_ms,
            retry_backoff_ms=retry_backoff_ms,
            isolation_level=fetch_config.isolation_level,
        )
        self._fetcher = Fetcher(
            self._client,
            self._subscriptions,
            self._offset_fetcher,
            fetch_config=fetch_config,
            request_timeout_ms=request_timeout_ms,
            retry_backoff_ms=retry_backoff_ms,
            client_id=self.client_id,
        )
        self.group_id = group_id
        self._coordinator: ConsumerCoordinator | None = None
        if group_id is not None:
            if not 0 < heartbeat_interval_ms < session_timeout_ms:
                raise ValueError(
                    f"heartbeat_interval_ms ({heartbeat_interval_ms}) must be above 0 and below "
                    f"session_timeout_ms ({session_timeout_ms})"
                )
            assignors = [assignor_for(a) if isinstance(a, str) else a for a in partition_assignment_strategy]
            if not assignors:
                raise ValueError("partition_assignment_strategy needs at least one assignor")
            self._coordinator = ConsumerCoordinator(
                self._client,
                self._subscriptions,
                self._fetcher.discard,
                group_id=group_id,
                session_timeout_ms=session_timeout_ms,
                rebalance_timeout_ms=rebalance_timeout_ms or max_poll_interval_ms,
                heartbeat_interval_ms=heartbeat_interval_ms,
                max_poll_interval_ms=max_poll_interval_ms,
                enable_auto_commit=enable_auto_commit,
                auto_commit_interval_ms=auto_commit_interval_ms,
                assignors=assignors,
                request_timeout_ms=request_timeout_ms,
                retry_backoff_ms=retry_backoff_ms,
                group_instance_id=group_instance_id,
                metadata_max_age_ms=metadata_max_age_ms,
            )
        self._started = False
        self._closed = False

    # --- lifecycle -----------------------------------------------------------------------

    async def start(self) -> None:
        """Bootstrap metadata and start the fetcher.

        Raises:
            KafkaConnectionError: no bootstrap server answered within ``request_timeout_ms``.
        """
        await self._client.start()
        self._fetcher.start()
        self._started = True

    async def stop(self) -> None:
        """Stop the fetcher and close connections (idempotent)."""
        if self._closed:
            return
        self._closed = True
        if self._coordinator is not None:
            await self._coordinator.close()
        await self._fetcher.stop()
        await self._client.close()

    async def __aenter__(self) -> Consumer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def _check_open(self) -> None:
        if not self._started or self._closed:
            raise IllegalStateError("Consumer is not started" if not self._closed else "Consumer is closed")

    # --- assignment and positions ------------------------------------------------------------

    def assign(self, partitions: Iterable[TopicPartition]) -> None:
        """Consume exactly these partitions (replaces the previous assignment).

        Raises:
            TypeError: an element is not a TopicPartition.
        """
        if self._coordinator is not None and self._coordinator.subscribed:
            raise IllegalStateError(
                "Subscription to topics and manual partition assignment are mutually exclusive"
            )
        partitions = list(partitions)
        self._subscriptions.assign(partitions)
        for tp in partitions:
            self._client.add_topic(tp.topic)
        self._fetcher.discard()

    def subscribe(
        self,
        topics: Iterable[str] = (),
        pattern: str | None = None,
        listener: ConsumerRebalanceListener | None = None,
    ) -> None:
        """Consume ``topics`` (or every topic whose whole name matches the regular expression
        ``pattern``, new ones found every ``metadata_max_age_ms``) as a member of
        ``group_id``: the group shares their partitions among its members and moves them when
        members come and go (``listener`` is told).

        Raises:
            IllegalStateError: not started, or partitions were assigned by hand.
            InvalidGroupIdError: the consumer has no ``group_id``.
            ValueError: neither or both of topics and pattern, or a pattern that does not compile.
        """
        self._check_open()
        coordinator = self._group_coordinator()
        names = list(topics) if not isinstance(topics, str) else [topics]
        if bool(names) == (pattern is not None):
            raise ValueError(
                "Subscription must be topics or pattern, not both nor neither (use unsubscribe() to stop)"
            )
        compiled = None
        if pattern is not None:
            try:
                compiled = re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"pattern {pattern!r} is not a regular expression: {exc}") from None
        if self._subscriptions.assignment() and not coordinator.subscribed:
            raise IllegalStateError(
                "Subscription to topics and manual partition assignment are mutually exclusive"
            )
        coordinator.subscribe(names, listener, compiled)

    async def unsubscribe(self) -> None:
        """Leave the group and stop consuming its partitions."""
        await self._group_coordinator().unsubscribe()

    def subscription(self) -> set[str]:
        """The subscribed topics."""
        return set(self._coordinator.topics) if self._coordinator is not None else set()

    async def commit(self, offsets: Mapping[TopicPartition, OffsetAndMetadata | int] | None = None) -> None:
        """Commit ``offsets`` (default: the position of every assigned partition) to the group.

        Raises:
            InvalidGroupIdError: the consumer has no ``group_id``.
            RebalanceInProgressError, IllegalGenerationError, UnknownMemberIdError: the group
                rebalanced meanwhile (the partitions may be someone else's now).
            KafkaError: another commit error (class named after the code).
        """
        self._check_open()
        await self._group_coordinator().commit(offsets)

    async def committed(self, tp: TopicPartition) -> int | None:
        """The group's committed offset of ``tp``, None when it has none.

        Raises:
            InvalidGroupIdError: the consumer has no ``group_id``.
        """
        self._check_open()
        value = (await self._group_coordinator().committed([tp]))[tp]
        return None if value is None else value.offset

    def _group_coordinator(self) -> ConsumerCoordinator:
        if self._coordinator is None:
            raise error_class(Errors.INVALID_GROUP_ID)(
                "To use the group management or offset commit APIs, you "
                "must provide a valid group_id in the consumer configuration."
            )
        return self._coordinator

    def pause(self, *partitions: TopicPartition) -> None:
        """Stop fetching and returning records of these assigned partitions until ``resume``
        (their positions, and a group's assignment, stay; Kafka's ``KafkaConsumer.pause``)."""
        self._subscriptions.pause(partitions)

    def resume(self, *partitions: TopicPartition) -> None:
        """Fetch and return records of paused partitions again."""
        self._subscriptions.resume(partitions)
        self._fetcher.wake()

    def paused(self) -> set[TopicPartition]:
        """The paused partitions."""
        return self._subscriptions.paused()

    def assignment(self) -> set[TopicPartition]:
        """The currently assigned partitions."""
        return self._subscriptions.assignment()

    async def partitions_for_topic(self, topic: str) -> set[int]:
        """Partition ids of ``topic`` (waits for its metadata).

        Raises:
            UnknownTopicOrPartitionError: the topic is unknown after ``request_timeout_ms``.
        """
        return set(await self._client.wait_for_metadata(topic, self._request_timeout_ms))

    def seek(self, tp: TopicPartition, offset: int) -> None:
        """Fetch ``tp`` from ``offset`` next (buffered records of ``tp`` are dropped).

        Raises:
            IllegalStateError: ``tp`` is not assigned.
            ValueError: negative offset.
        """
        self._subscriptions.seek(tp, offset)
        self._fetcher.discard({tp})

    def _request_reset(self, tps: tuple[TopicPartition, ...], timestamp: int) -> None:
        targets = tps or tuple(self._subscriptions.assignment())
        for tp in targets:
            self._subscriptions.request_reset(tp, timestamp)
        self._fetcher.discard(set(targets))

    async def seek_to_beginning(self, *partitions: TopicPartition) -> None:
        """Move ``partitions`` (default: all assigned) to their log start offsets.

        The reset is requested at once and resolved by the fetcher in the background
        (ListOffsets -2); ``position`` waits for it.  A coroutine, as in aiokafka.

        Raises:
            IllegalStateError: a partition is not assigned.
        """
        self._request_reset(partitions, EARLIEST_TIMESTAMP)

    async def seek_to_end(self, *partitions: TopicPartition) -> None:
        """Move ``partitions`` (default: all assigned) to their high watermarks
        (ListOffsets -1, resolved in the background like ``seek_to_beginning``).

        Raises:
            IllegalStateError: a partition is not assigned.
        """
        self._request_reset(partitions, LATEST_TIMESTAMP)

    async def position(self, tp: TopicPartition) -> int:
        """The offset of the next record ``getmany`` will return for ``tp``.

        Resolves a pending reset first (ListOffsets, bounded by ``request_timeout_ms``).

        Raises:
            IllegalStateError: not assigned, or no position and ``auto_offset_reset="none"``.
            KafkaError: the ListOffsets lookup failed.
        """
        self._check_open()
        while True:
            timestamp = self._subscriptions.reset_timestamp(tp)
            if timestamp is None:
                position = self._subscriptions.position(tp)
                if position is not None:
                    return position
                continue
            offsets = await self._offset_fetcher.list_offsets({tp: timestamp}, self._request_timeout_ms)
            self._subscriptions.complete_reset(tp, timestamp, offsets[tp])
            self._fetcher.wake()

    async def beginning_offsets(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        """Log start offsets of ``partitions`` (ListOffsets -2).

        Raises:
            KafkaError: lookup failed within ``request_timeout_ms``.
        """
        self._check_open()
        return await self._offset_fetcher.list_offsets(dict.fromkeys(partitions, EARLIEST_TIMESTAMP))

    async def end_offsets(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        """High watermarks of ``partitions`` (ListOffsets -1): the offset after the last
        committed record.

        Raises:
            KafkaError: lookup failed within ``request_timeout_ms``.
        """
        self._check_open()
        return await self._offset_fetcher.list_offsets(dict.fromkeys(partitions, LATEST_TIMESTAMP))

    async def offsets_for_times(
        self, timestamps: Mapping[TopicPartition, int]
    ) -> dict[TopicPartition, OffsetAndTimestamp | None]:
        """The earliest offset of each partition whose record timestamp is >= the given one.

        Kafka's ``KafkaConsumer.offsetsForTimes`` (ListOffsets by timestamp), in
        aiokafka's shape.  Only records below the high watermark are considered.

        Args:
            timestamps: ``{TopicPartition: timestamp ms}`` (each >= 0).

        Returns:
            ``{TopicPartition: OffsetAndTimestamp(offset, timestamp)}`` with the found
            record's offset and timestamp (ms), or None for a partition holding no such
            record.

        Raises:
            ValueError: a negative timestamp.
            TypeError: a key is not a TopicPartition.
            KafkaError: lookup failed within ``request_timeout_ms``.
        """
        for tp, ts in timestamps.items():
            if not isinstance(tp, TopicPartition):
                raise TypeError(f"expected TopicPartition, got {tp!r}")
            if not isinstance(ts, int) or isinstance(ts, bool) or ts < 0:
                raise ValueError(
                    f"The target time for partition {tp} is {ts!r}. The target time cannot be negative."
                )
        self._check_open()
        if not timestamps:
            return {}
        found = await self._offset_fetcher.list_offsets_and_timestamps(
            dict(timestamps), self._request_timeout_ms
        )
        return {
            tp: None if answer.offset < 0 else OffsetAndTimestamp(answer.offset, answer.timestamp)
            for tp, answer in found.items()
        }

    def partitions_without_leader(self) -> set[TopicPartition]:
        """The assigned partitions this consumer is not fetching because the cluster's metadata
        names no live leader for them (LEADER_NOT_AVAILABLE: e.g. the only replica's broker is
        down).  Each is logged at WARNING once when found so, and at INFO once when it has a
        leader again (then it leaves this set and is fetched from its position).

        Returns:
            The partitions, as the background fetcher last saw them (empty when every
            assigned partition has a leader).
        """
        return self._fetcher.partitions_without_leader()

    def highwater(self, tp: TopicPartition) -> int:
        """The high watermark seen in the last fetch of ``tp`` (-1 before any)."""
        return self._subscriptions.state(tp).high_watermark

    # --- consuming ---------------------------------------------------------------------------

    async def getmany(
        self, *partitions: TopicPartition, timeout_ms: int = 0, max_records: int | None = None
    ) -> dict[TopicPartition, list[ConsumerRecord]]:
        """Return buffered records, waiting up to ``timeout_ms`` when none are ready.

        Args:
            partitions: restrict to these (default: every assigned partition).
            timeout_ms: how long to wait for records (ms); 0 returns at once (after one turn
                of the event loop when a fetch was started).
            max_records: bound on the total number of records returned.

        Returns:
            ``{TopicPartition: [ConsumerRecord, ...]}`` in offset order per partition
            (empty when nothing arrived in time).

        Raises:
            IllegalStateError: not started.
            OffsetOutOfRangeError: out of range with ``auto_offset_reset="none"``.
            KafkaError: another non-retriable fetch error.
        """
        self._check_open()
        if self._coordinator is not None:
            self._coordinator.poll()
        if max_records is not None and max_records < 1:
            raise ValueError("max_records must be >= 1")
        fetcher = self._fetcher
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_ms / 1000
        await self._start_fetches_ahead()
        while True:
            fetcher.raise_pending_error()
            records = fetcher.fetched_records(partitions, max_records)
            if records:
                return records
            remaining = deadline - loop.time()
            if remaining <= 0:
                return {}
            fetcher.data_ready.clear()
            fetcher.wake()
            try:
                async with asyncio.timeout(remaining):
                    await fetcher.data_ready.wait()
            except TimeoutError:
                pass

    async def getone(self, *partitions: TopicPartition) -> ConsumerRecord:
        """Wait for and return the next record (of ``partitions`` if given).

        Raises:
            What ``getmany`` raises.
        """
        if not partitions:
            record = self._take_one()
            if record is not None:
                return record
        while True:
            records = await self.getmany(*partitions, timeout_ms=1000, max_records=1)
            for batch in records.values():
                return batch[0]

    def __aiter__(self) -> Consumer:
        return self

    async def __anext__(self) -> ConsumerRecord:
        if self._closed:
            raise StopAsyncIteration
        # ``_take_one`` inlined: this runs once per record of every ``async for``.
        if not self._started:
            self._check_open()
        if self._coordinator is not None:
            self._coordinator.poll()
        record = self._fetcher.take_one()
        return record if record is not None else await self._first_of_next_records()

    async def _first_of_next_records(self) -> ConsumerRecord:
        """The first record of the next buffered records (after starting the fetch ahead of
        them, ``_start_fetches_ahead``), waiting for a fetch when none are buffered."""
        await self._start_fetches_ahead()
        record = self._fetcher.take_next()
        return record if record is not None else await self.getone()

    async def _start_fetches_ahead(self) -> None:
        """Start the fetches that can go out now and, when one did, let it write its request
        (one turn of the event loop): records handed out without waiting would otherwise keep
        the fetcher task from running until they are used up, and each buffer's end would
        wait a whole fetch.  Runs before records are taken, never between taking them and
        handing them out: a cancellation here loses nothing."""
        if self._fetcher.send_fetches():
            await asyncio.sleep(0)

    def _take_one(self) -> ConsumerRecord | None:
        """A buffered record of any assigned partition, without waiting (None when none):
        what ``getmany`` does before it waits, for one record.

        Raises:
            IllegalStateError: not started, or closed.
            KafkaError: an error a fetch stored for the user.
        """
        if not self._started or self._closed:
            self._check_open()
        if self._coordinator is not None:
            self._coordinator.poll()
        fetcher = self._fetcher
        record = fetcher.take_one()
        return record if record is not None else fetcher.take_next()
