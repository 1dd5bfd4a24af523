"""The public Producer: ``send`` enqueues a record and returns a future of its metadata.

Owns: argument checks, key/value encoding, partition choice (DefaultPartitioner),
the RecordAccumulator and the Sender, and their lifecycle (``start``/``stop``,
``async with``).  Does not own network details (KafkaClient) nor batching rules.

Kafka concept: ``KafkaProducer``; API shape of aiokafka's ``AIOKafkaProducer``.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
import time
from typing import Any

from kafkette.client.bootstrap_servers import default_bootstrap_servers
from kafkette.client.exponential_backoff import (
    DEFAULT_RECONNECT_BACKOFF_MAX_MS,
    DEFAULT_RECONNECT_BACKOFF_MS,
    DEFAULT_RETRY_BACKOFF_MAX_MS,
    DEFAULT_RETRY_BACKOFF_MS,
)
from kafkette.client.kafka_client import KafkaClient
from kafkette.client.producer.acks import DEFAULT_ACKS, Acks
from kafkette.client.producer.partitioner import DefaultPartitioner
from kafkette.client.producer.producer_batch import (
    RECORD_OVERHEAD_BYTES,
    RecordMetadata,
    record_size_in_bytes,
)
from kafkette.client.producer.record_accumulator import RecordAccumulator
from kafkette.client.producer.sender import DEFAULT_RETRIES, Sender
from kafkette.client.producer.transaction_manager import TransactionManager
from kafkette.client.producer.transactional_producer import TransactionalProducerMixin
from kafkette.client.producer.transactional_requests import TransactionalRequests
from kafkette.protocol.compression import COMPRESSION_NONE, codec_for_name
from kafkette.protocol.errors import IllegalStateError, KafkaError, KafkaTimeoutError
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)

# ``send`` lets the event loop run at least once per this many records (a sleep(0) costs
# a few microseconds; the Sender's linger timers and responses need the loop).
YIELD_EVERY_SENDS = 64
_client_ids = iter(range(1, 1 << 62))


def to_bytes(value: Any, what: str) -> bytes | None:
    """Accept bytes-like or str (UTF-8) or None.

    Raises:
        TypeError: any other type.
    """
    if value is None or type(value) is bytes:
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    raise TypeError(f"{what} must be bytes, str or None, not {type(value).__name__}")


def _check_headers(headers: Any) -> list[tuple[str, bytes | None]] | None:
    if not headers:
        return None
    out: list[tuple[str, bytes | None]] = []
    for item in headers:
        if not isinstance(item, (tuple, list)) or len(item) != 2 or not isinstance(item[0], str):
            raise TypeError("headers must be a list of (str, bytes | None) pairs")
        out.append((item[0], to_bytes(item[1], "header value")))
    return out


class Producer(TransactionalProducerMixin):
    """An asyncio producer with per-partition batching.

    Args:
        bootstrap_servers: ``"host:port,..."``; when not given, ``$KAFKETTE_BOOTSTRAP_SERVERS``, else
            ``127.0.0.1:9092`` (see ``kafkette.client.bootstrap_servers``).
        client_id: name in request headers (default ``kafkette-producer-N``).
        acks: ``"all"``/-1 (full ISR, the default), 1 (leader only) or 0 (no response, offset -1);
            see ``Acks``.
        linger_ms: how long a batch waits for more records (ms).
        max_batch_size: target batch size (bytes).
        max_buffer_size: bytes buffered before ``send`` waits for room (bytes).
        request_timeout_ms: per-request deadline (ms), and how long ``send`` waits for
            the metadata of a new topic (Kafka's ``max.block.ms``).  The producer's
            Metadata requests allow auto-creation, so a send to a topic that does not
            exist yet succeeds once the brokers (``auto.create.topics.enable``) have
            created it; LEADER_NOT_AVAILABLE and UNKNOWN_TOPIC_OR_PARTITION are retried.
        delivery_timeout_ms: a record not acknowledged this long after ``send`` fails (ms).
        retries: how many times a batch is sent again after a retriable error (Kafka's
            ``retries``; the default, 2147483647, retries until ``delivery_timeout_ms``).  0
            turns the default idempotence off, and is refused with ``enable_idempotence=True``.
        retry_backoff_ms: pause before a batch's first retry, and the least time between
            metadata refreshes (ms).
        retry_backoff_max_ms: the most those pauses grow to (ms): a batch's n-th retry waits
            about ``retry_backoff_ms * 2 ** (n - 1)``, at most this, with 20% jitter (KIP-580;
            metadata refreshes that fail or bring nothing new back off the same way).
        reconnect_backoff_ms: pause before connecting again to a broker whose connect failed
            (ms), doubling per further failure up to ``reconnect_backoff_max_ms`` (ms).  Batches
            for a leader in that pause stay queued.
        security_protocol, ssl_context, sasl_mechanism, sasl_plain_username, sasl_plain_password:
            ``PLAINTEXT`` (the default), ``SSL``, ``SASL_PLAINTEXT`` or ``SASL_SSL``, the client TLS
            context (``kafkette.client.create_ssl_context``) and the SASL login (PLAIN,
            SCRAM-SHA-256, SCRAM-SHA-512), as aiokafka takes them
            (``kafkette.client.kafka_client.KafkaClient``).
        max_in_flight_requests_per_connection: unanswered ProduceRequests per broker, hence
            batches of one partition in flight at once (pipelined; the idempotent producer's
            sequence numbers keep their order across retries).  1 sends a partition's next
            batch only after the last one was answered (Kafka's strict order without
            idempotence).
        metadata_max_age_ms: periodic metadata refresh (ms).
        enable_idempotence: stamp batches with a producer id and sequence numbers so
            the leader drops retried duplicates (KIP-98).  Default: on with acks="all"
            (as Kafka 3.0+), off otherwise; requires acks="all" and at most 5 in flight.
            When left to the default and the cluster cannot hand out producer ids,
            the producer logs a warning and carries on without idempotence.
        compression_type: None (or ``"none"``), ``"gzip"``, ``"snappy"``, ``"lz4"`` or
            ``"zstd"``: the codec each batch's records are compressed with (Kafka's
            ``compression.type``, applied per batch; aiokafka's keyword).  The broker keeps
            the batch as sent unless the topic's ``compression.type`` names another codec.
        transactional_id: Kafka's ``transactional.id``: makes the producer transactional (KIP-98;
            implies idempotence, needs acks="all"): ``start`` runs ``initTransactions``, then
            records are sent between ``begin_transaction`` and ``commit_transaction`` /
            ``abort_transaction`` (or inside ``async with producer.transaction()``).  A newer
            producer started with the same id fences this one (``ProducerFencedError``).
        transaction_timeout_ms: Kafka's ``transaction.timeout.ms``: the coordinator aborts a
            transaction left open longer than this (ms).

    Raises:
        ValueError: invalid settings, or no ``bootstrap_servers`` given and a malformed
            ``$KAFKETTE_BOOTSTRAP_SERVERS``.
    """

    def __init__(
        self,
        *,
        bootstrap_servers: str | None = None,
        client_id: str | None = None,
        acks: int | str = DEFAULT_ACKS,
        linger_ms: float = 5,
        max_batch_size: int = 16384,
        max_buffer_size: int = 32 * 1024 * 1024,
        request_timeout_ms: int = 30000,
        delivery_timeout_ms: int = 120000,
        retries: int = DEFAULT_RETRIES,
        retry_backoff_ms: int = DEFAULT_RETRY_BACKOFF_MS,
        retry_backoff_max_ms: int = DEFAULT_RETRY_BACKOFF_MAX_MS,
        reconnect_backoff_ms: int = DEFAULT_RECONNECT_BACKOFF_MS,
        reconnect_backoff_max_ms: int = DEFAULT_RECONNECT_BACKOFF_MAX_MS,
        max_in_flight_requests_per_connection: int = 5,
        metadata_max_age_ms: int = 300000,
        enable_idempotence: bool | None = None,
        compression_type: str | None = None,
        security_protocol: str = "PLAINTEXT",
        ssl_context: ssl.SSLContext | None = None,
        sasl_mechanism: str = "PLAIN",
        sasl_plain_username: str | None = None,
        sasl_plain_password: str | None = None,
        transactional_id: str | None = None,
        transaction_timeout_ms: int = 60000,
    ) -> None:
        self._acks = Acks.parse(acks)
        self.transactional_id = transactional_id
        self._transaction_timeout_ms = transaction_timeout_ms
        if transactional_id is not None:
            if enable_idempotence is False:
                raise ValueError("Cannot set a transactional_id without enabling idempotence")
            if transaction_timeout_ms < 1:
                raise ValueError(f"transaction_timeout_ms must be >= 1, got {transaction_timeout_ms}")
            enable_idempotence = True
        self.compression_type = compression_type
        compression = COMPRESSION_NONE if compression_type is None else codec_for_name(compression_type)
        if max_in_flight_requests_per_connection < 1:
            raise ValueError("max_in_flight_requests_per_connection must be >= 1")
        if type(retries) is not int or retries < 0:
            raise ValueError(f"retries must be an int >= 0, got {retries!r}")
        self._idempotence_required = bool(enable_idempotence)
        if enable_idempotence is None:
            enable_idempotence = (
                self._acks == Acks.ALL and max_in_flight_requests_per_connection <= 5 and retries > 0
            )
        elif enable_idempotence and retries == 0:
            raise ValueError("Must set retries to non-zero when using the idempotent producer")
        elif enable_idempotence and self._acks != Acks.ALL:
            raise ValueError("Must set acks to 'all' in order to use the idempotent producer")
        elif enable_idempotence and max_in_flight_requests_per_connection > 5:
            raise ValueError("max_in_flight_requests_per_connection must be <= 5 for the idempotent producer")
        self.enable_idempotence = enable_idempotence
        self._retry_backoff_ms = retry_backoff_ms
        self._retries = retries
        self.client_id = client_id or f"kafkette-producer-{next(_client_ids)}"
        self._request_timeout_ms = request_timeout_ms
        self._delivery_timeout_ms = delivery_timeout_ms
        self._client = KafkaClient(
            default_bootstrap_servers(bootstrap_servers),
            client_id=self.client_id,
            request_timeout_ms=request_timeout_ms,
            retry_backoff_ms=retry_backoff_ms,
            metadata_max_age_ms=metadata_max_age_ms,
            allow_auto_topic_creation=True,
            retry_backoff_max_ms=retry_backoff_max_ms,
            reconnect_backoff_ms=reconnect_backoff_ms,
            reconnect_backoff_max_ms=reconnect_backoff_max_ms,
            security_protocol=security_protocol,
            ssl_context=ssl_context,
            sasl_mechanism=sasl_mechanism,
            sasl_plain_username=sasl_plain_username,
            sasl_plain_password=sasl_plain_password,
        )
        self._accumulator_args = dict(
            max_batch_size=max_batch_size,
            linger_ms=linger_ms,
            max_buffer_size=max_buffer_size,
            delivery_timeout_ms=delivery_timeout_ms,
            retry_backoff_ms=retry_backoff_ms,
            retry_backoff_max_ms=retry_backoff_max_ms,
            compression=compression,
        )
        RecordAccumulator(**self._accumulator_args)  # validate settings eagerly
        self._max_in_flight = max_in_flight_requests_per_connection
        self._cluster = self._client.cluster  # read once per send
        self._partitioner = DefaultPartitioner()
        self._accumulator: RecordAccumulator | None = None
        self._sender: Sender | None = None
        # topic -> (metadata version, partitions, available partitions, {partition: TopicPartition})
        self._partition_cache: dict[str, tuple[int, list[int], list[int], dict[int, TopicPartition]]] = {}
        self._closed = False
        self._sends_since_yield = 0
        self._txn: TransactionalRequests | None = None

    # --- lifecycle -----------------------------------------------------------------------

    async def start(self) -> None:
        """Bootstrap metadata and start the sender task.

        Raises:
            KafkaConnectionError: no bootstrap server answered within ``request_timeout_ms``.
        """
        self._accumulator = RecordAccumulator(**self._accumulator_args)
        await self._client.start()
        transaction_manager = (
            TransactionManager(
                self._client,
                retry_backoff_ms=self._retry_backoff_ms,
                request_timeout_ms=self._request_timeout_ms,
                client_id=self.client_id,
                required=self._idempotence_required,
            )
            if self.enable_idempotence
            else None
        )
        if self.transactional_id is not None:
            assert transaction_manager is not None
            self._txn = TransactionalRequests(
                self._client,
                transaction_manager,
                self._accumulator,
                transactional_id=self.transactional_id,
                transaction_timeout_ms=self._transaction_timeout_ms,
                max_block_ms=self._request_timeout_ms,
                retry_backoff_ms=self._retry_backoff_ms,
            )
            try:
                await self._txn.init_transactions()
            except BaseException:
                await self._client.close()
                raise
        self._sender = Sender(
            self._client,
            self._accumulator,
            acks=int(self._acks),
            request_timeout_ms=self._request_timeout_ms,
            max_in_flight_requests_per_connection=self._max_in_flight,
            client_id=self.client_id,
            transaction_manager=transaction_manager,
            retries=self._retries,
            transactional=self._txn,
        )
        self._sender.start()

    async def stop(self, timeout: float | None = None) -> None:
        """Flush what is buffered (bounded by ``timeout`` s, default the delivery timeout),
        then stop the sender and close connections; unsent records fail."""
        if self._closed:
            return
        self._closed = True
        acc = self._accumulator
        if acc is not None:
            acc.close()
            if self._sender is not None and self._sender.running:
                try:
                    await self.flush(timeout if timeout is not None else self._delivery_timeout_ms / 1000)
                except KafkaTimeoutError:
                    logger.warning("[Producer clientId=%s] Records still pending at close", self.client_id)
        if self._sender is not None:
            await self._sender.stop()
        if acc is not None:
            acc.abort_batches(IllegalStateError("Producer closed before the record was sent"))
        await self._client.close()

    async def __aenter__(self) -> Producer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # --- sending -------------------------------------------------------------------------

    async def _partitions(self, topic: str) -> tuple[int, list[int], list[int], dict[int, TopicPartition]]:
        cluster = self._client.cluster
        cached = self._partition_cache.get(topic)
        if cached is not None and cached[0] == cluster.version:
            return cached
        parts = cluster.partitions_for_topic(topic)
        if not parts:
            parts = await self._client.wait_for_metadata(topic, self._request_timeout_ms)
        available = cluster.available_partitions_for_topic(topic)
        cached = (cluster.version, parts, available, {p: TopicPartition(topic, p) for p in parts})
        self._partition_cache[topic] = cached
        return cached

    async def partitions_for(self, topic: str) -> list[int]:
        """Sorted partition ids of ``topic`` (waits for its metadata).

        Raises:
            UnknownTopicOrPartitionError: the topic does not exist.
        """
        return (await self._partitions(topic))[1]

    def in_flight_batches(self, topic: str, partition: int) -> int:
        """Batches of the partition sent and not yet answered (0 to
        ``max_in_flight_requests_per_connection``); 0 before ``start``.  The per-partition
        view of Kafka's ``requests-in-flight`` producer metric."""
        return self._sender.in_flight_batches(TopicPartition(topic, partition)) if self._sender else 0

    async def send(
        self,
        topic: str,
        value: bytes | str | None = None,
        key: bytes | str | None = None,
        partition: int | None = None,
        headers: list[tuple[str, bytes | None]] | None = None,
        timestamp_ms: int | None = None,
    ) -> asyncio.Future[RecordMetadata]:
        """Enqueue one record; awaits only metadata of a new topic and buffer room.

        Args:
            topic: destination topic.
            value, key: bytes or str (UTF-8); None allowed.
            partition: explicit partition; otherwise murmur2(key) or the sticky partition.
            headers: list of ``(str, bytes | None)``.
            timestamp_ms: CreateTime in ms (default: now).

        Returns:
            A future resolving to RecordMetadata, or failing with the KafkaError that
            ended delivery (after retries, or ``delivery_timeout_ms``).

        Raises:
            IllegalStateError: not started, or stopped.
            TypeError / ValueError: bad arguments (e.g. a partition the topic lacks).
            UnknownTopicOrPartitionError: the topic is unknown after ``request_timeout_ms``.
            KafkaTimeoutError: no buffer room within ``delivery_timeout_ms``.
        """
        acc = self._accumulator
        if acc is None or self._closed:
            raise IllegalStateError("Producer is not started" if not self._closed else "Producer is closed")
        if self._txn is not None:
            self._txn.state.check_can_add_partition(topic, has_producer_id=True)
        # The common case (bytes or None, no headers, cached metadata) takes no extra calls:
        # this runs once per record.
        key_bytes = key if key is None or type(key) is bytes else to_bytes(key, "key")
        value_bytes = value if value is None or type(value) is bytes else to_bytes(value, "value")
        header_list = _check_headers(headers) if headers else None
        if timestamp_ms is None:
            timestamp_ms = time.time_ns() // 1_000_000
        cached = self._partition_cache.get(topic)
        if cached is None or cached[0] != self._cluster.version:
            cached = await self._partitions(topic)
        _, parts, available, tps = cached
        if header_list is None and key_bytes is None:
            size = RECORD_OVERHEAD_BYTES + (len(value_bytes) if value_bytes is not None else 0)
        else:
            size = record_size_in_bytes(key_bytes, value_bytes, header_list)
        if acc.buffered_bytes + size > acc.max_buffer_size:
            await acc.wait_for_room(size, self._delivery_timeout_ms)
        filled_before = acc.batches_filled
        fut = None
        if partition is not None:
            if type(partition) is not int or partition not in tps:
                raise ValueError(
                    f"Invalid partition {partition!r} for topic {topic} with partitions 0..{len(parts) - 1}"
                )
        elif key_bytes is not None:
            partition = self._partitioner.partition(topic, key_bytes, parts, available)
        else:
            partition = self._partitioner.sticky_partition(topic, parts, available)
            fut = acc.append(
                tps[partition],
                key_bytes,
                value_bytes,
                header_list,
                timestamp_ms,
                size,
                abort_on_new_batch=True,
            )
            if fut is None:
                partition = self._partitioner.on_new_batch(topic, parts, available, partition)
        if fut is None:
            fut = acc.append(tps[partition], key_bytes, value_bytes, header_list, timestamp_ms, size)
            if fut is None:  # only possible with abort_on_new_batch
                raise KafkaError("record was not appended")
        self._sends_since_yield += 1
        if acc.batches_filled != filled_before or self._sends_since_yield >= YIELD_EVERY_SENDS:
            # A batch is full, or records have been spread over many partitions: let the
            # Sender ship what is ready before the caller appends more (a loop of ``await
            # send()`` never suspends otherwise, and every record would wait behind the
            # whole buffer, and linger timers would not fire).
            self._sends_since_yield = 0
            await asyncio.sleep(0)
        return fut

    async def send_and_wait(self, *args: Any, **kwargs: Any) -> RecordMetadata:
        """``send`` then await the record's acknowledgement.

        Args:
            args, kwargs: exactly ``send``'s arguments (topic, value, key, partition,
                headers, timestamp_ms), positional or by name.

        Returns:
            The record's RecordMetadata once acknowledged.

        Raises:
            What ``send`` raises, and the KafkaError that ended delivery.
        """
        fut = await self.send(*args, **kwargs)
        return await fut

    async def flush(self, timeout: float | None = None) -> None:
        """Send every buffered record now and wait until each batch is completed.

        Args:
            timeout: seconds to wait (None: until done; batches still end at
                ``delivery_timeout_ms``).

        Raises:
            KafkaTimeoutError: batches still incomplete after ``timeout``.
        """
        acc = self._accumulator
        if acc is None:
            return
        acc.begin_flush()
        try:
            pending = acc.incomplete_completions()
            if pending:
                _, not_done = await asyncio.wait(pending, timeout=timeout)
                if not_done:
                    raise KafkaTimeoutError(f"Flush timed out with {len(not_done)} batches incomplete")
        finally:
            acc.end_flush()
