"""The consumer's Fetcher: pipelined FetchRequests per leader, decoded into records.

Owns: the fetcher task, which (1) resets positions that need it with ListOffsets,
(2) keeps one FetchRequest in flight per leader broker for every fetchable partition
(so the next fetch runs while the user processes the last): a partition without
buffered records is fetched at its position, one whose records are being handed out is
fetched once ahead, from the end of what it holds, when the high watermark is past it
(the answer waits as its next buffer and takes over when the current one is used up,
unless a seek came in between; an error answered to it ends fetching ahead of those
records, and the fetch at the position meets the error again once they are used up), and
(3) turns responses into ``ConsumerRecord`` lists (``iter_batches`` + ``decode_rows``,
dropping records below the fetch position).  Leader changes
(NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_OR_PARTITION, ...) trigger a metadata refresh
and a per-partition backoff; OFFSET_OUT_OF_RANGE resets per ``auto_offset_reset``.  A
partition the metadata names no live leader for (LEADER_NOT_AVAILABLE) is not fetched: it
is logged at WARNING once when it is found so (not per fetch) and at INFO once when it has
a leader again, and ``partitions_without_leader`` names it meanwhile.
Errors meant for the user are kept and raised by the next ``take_one``/``take_next`` (the
Consumer raises them from ``getmany`` and ``async for``).

Kafka concept: ``org.apache.kafka.clients.consumer.internals.Fetcher`` and
``OffsetFetcher`` (aiokafka's ``consumer/fetcher.py``); fetching a partition ahead of
its buffered records is librdkafka's prefetching (``queued.min.messages``), one fetch
deep: Kafka's Java consumer fetches a partition only once its buffer is drained, so
with one partition it waits a round trip per ``max.partition.fetch.bytes``.  Does not own positions
(SubscriptionState) nor the public API (Consumer).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections import defaultdict
from collections.abc import Iterator
from typing import NamedTuple

from kafkette.client.consumer.aborted_transactions import AbortedTransactionFilter, ControlBatchFilter
from kafkette.client.consumer.fetch_config import FetchConfig
from kafkette.client.consumer.offset_fetcher import OffsetFetcher
from kafkette.client.consumer.subscription_state import SubscriptionState, TopicPartitionState
from kafkette.client.fault_logger import FaultLogger
from kafkette.client.kafka_client import KafkaClient
from kafkette.common.background_tasks import BackgroundTasks, wait_for_wakeup
from kafkette.protocol.apis.fetch import (
    FetchPartition,
    FetchPartitionData,
    FetchRequest,
    FetchResponse,
    FetchTopic,
)
from kafkette.protocol.errors import (
    Errors,
    KafkaError,
    LeaderNotAvailableError,
    error_class,
)
from kafkette.protocol.record_batch import LOG_APPEND_TIME, CorruptRecordError, decode_rows, iter_batches
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)

_new_tuple = tuple.__new__


class ConsumerRecord(NamedTuple):
    """One consumed record.

    Attributes:
        timestamp: ms; ``timestamp_type`` 0 = CreateTime, 1 = LogAppendTime.
        headers: list of ``(str, bytes | None)``.
    """

    topic: str
    partition: int
    offset: int
    timestamp: int
    timestamp_type: int
    key: bytes | None
    value: bytes | None
    headers: list[tuple[str, bytes | None]]


class PartitionRecords:
    """Records fetched for one partition, handed out in order.

    ``position`` is the offset the consumer must be at for these records to be valid
    (a seek in between makes them stale).  ``next_offset`` is where a fetch ahead of them
    starts: the offset after the last whole batch they came from, or -1 for no fetch ahead
    (they reach the high watermark, or a fetch ahead was answered with an error).
    """

    __slots__ = ("tp", "records", "index", "position", "next_offset")

    def __init__(
        self, tp: TopicPartition, position: int, records: list[ConsumerRecord], next_offset: int = -1
    ) -> None:
        self.tp = tp
        self.records = records
        self.index = 0
        self.position = position
        self.next_offset = next_offset

    def take(self, max_records: int | None) -> list[ConsumerRecord]:
        end = len(self.records) if max_records is None else min(len(self.records), self.index + max_records)
        out = self.records[self.index : end] if self.index or end != len(self.records) else self.records
        self.index = end
        if out:
            self.position = out[-1].offset + 1
        return out

    @property
    def exhausted(self) -> bool:
        return self.index >= len(self.records)


def parse_records(
    tp: TopicPartition,
    buf: bytes,
    fetch_offset: int,
    batch_filter: AbortedTransactionFilter | None = None,
) -> list[ConsumerRecord]:
    """Decode every whole batch of a fetch answer, dropping offsets below ``fetch_offset``,
    control batches, and the batches ``batch_filter`` drops (read_committed: those of aborted
    transactions; it sees every batch, in offset order).

    Per batch: one CRC32C check and one msgpack call (``decode_rows``; a batch in Kafka's
    varint record encoding, as a Kafka client produces it, takes one pass over its records
    instead); per record only the ConsumerRecord itself is built (with ``tuple.__new__``: a
    NamedTuple's own constructor is a Python-level function), the consumer's hot loop.

    Raises:
        CorruptRecordError: a batch fails its CRC or cannot be decoded, or a record row
            is not ``[offset_delta, timestamp_delta, key, value, headers]``.
    """
    with _gc_paused():
        return _decode(tp, buf, fetch_offset, batch_filter or ControlBatchFilter)


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Keep the cyclic GC from running while a fetch answer is turned into records.

    Decoding allocates about three tracked containers per record that all survive (the
    records are buffered for the user), so the collector would run every 700 records
    and promote them towards the old generation, whose full collections then rescan
    every buffered record: measured on 1 MiB answers of 100-byte records, 1.9 us per
    record with the collector against 0.4 us without.  The collector's state is
    restored afterwards (it stays off if the application had turned it off); it runs
    again at the next allocation that crosses its threshold.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _decode(
    tp: TopicPartition,
    buf: bytes,
    fetch_offset: int,
    batch_filter: AbortedTransactionFilter | type[ControlBatchFilter],
) -> list[ConsumerRecord]:
    topic, partition = tp
    out: list[ConsumerRecord] = []
    append = out.append
    new = _new_tuple
    skip = batch_filter.skip
    for pos, header in iter_batches(buf, verify_crc=True):
        if skip(buf, pos, header) or header.next_offset <= fetch_offset:
            continue
        rows = decode_rows(buf, pos, header)
        base_offset = header.base_offset
        first_delta = fetch_offset - base_offset  # rows with a smaller offset delta were consumed already
        log_append = header.timestamp_type == LOG_APPEND_TIME
        ts_type = header.timestamp_type
        base_ts = header.max_timestamp if log_append else header.base_timestamp
        try:
            for delta, ts_delta, key, value, headers in rows:
                if delta < first_delta:
                    continue
                append(
                    new(
                        ConsumerRecord,
                        (
                            topic,
                            partition,
                            base_offset + delta,
                            base_ts if log_append else base_ts + ts_delta,
                            ts_type,
                            key,
                            value,
                            [(h[0], h[1]) for h in headers] if headers else headers,
                        ),
                    )
                )
        except (TypeError, ValueError, IndexError) as exc:
            raise CorruptRecordError(
                f"batch at offset {base_offset} holds a malformed record: {exc}"
            ) from exc
    return out


def _ahead_from(next_offset: int, high_watermark: int) -> int:
    """Where to fetch ahead of buffered records ending at ``next_offset``: there when the
    high watermark is past it (records are waiting), else -1 (a fetch ahead would only wait
    at the log end, holding the leader's one fetch slot)."""
    return next_offset if next_offset < high_watermark else -1


def next_fetch_offset(buf: bytes, fetch_offset: int) -> int:
    """Offset after the last whole batch of a fetch answer (``fetch_offset`` when none ends past it).

    A compacted log keeps each batch's offset range while removing records, so a batch
    may hold no record at or after the fetch offset: the position then moves past the
    batch, as Kafka's consumer does.
    """
    end = fetch_offset
    for _, header in iter_batches(buf):
        end = max(end, header.next_offset)
    return end


class Fetcher:
    """Fetches records for the assigned partitions in the background.

    Args:
        client: shared KafkaClient.
        subscriptions: the consumer's SubscriptionState.
        offset_fetcher: ListOffsets lookups for position resets.
        fetch_config: the FetchRequest's max_wait_ms / min_bytes / max_bytes / partition_max_bytes.
        request_timeout_ms: response deadline on top of ``fetch_max_wait_ms`` (ms).
        retry_backoff_ms: per-partition pause after an error (ms).
    """

    def __init__(
        self,
        client: KafkaClient,
        subscriptions: SubscriptionState,
        offset_fetcher: OffsetFetcher,
        *,
        fetch_config: FetchConfig = FetchConfig(),
        request_timeout_ms: int = 30000,
        retry_backoff_ms: int = 100,
        client_id: str = "kafkette",
    ) -> None:
        self._client = client
        self._subs = subscriptions
        self._offset_fetcher = offset_fetcher
        self._config = fetch_config
        self._request_timeout_ms = request_timeout_ms
        self._retry_backoff_ms = retry_backoff_ms
        self._log_prefix = f"[Consumer clientId={client_id}]"
        # Fetches that fail, per broker: a WARNING when they start, rate-limited, an INFO when they work.
        self._fetch_faults = FaultLogger(logger, self._log_prefix)
        self._records: dict[TopicPartition, PartitionRecords] = {}
        # The answer of a fetch sent ahead of ``_records[tp]`` (from its ``next_offset``):
        # it becomes ``_records[tp]`` once that is used up.
        self._prefetched: dict[TopicPartition, PartitionRecords] = {}
        # The records ``take_one`` hands out one at a time: (records, partition state,
        # SubscriptionState.version when they were picked).
        self._current: tuple[PartitionRecords, TopicPartitionState, int] | None = None
        self._in_flight_nodes: set[int] = set()
        self._in_flight_tps: set[TopicPartition] = set()
        self._tasks = BackgroundTasks()
        self._wakeup = asyncio.Event()
        self.data_ready = asyncio.Event()
        self._error: BaseException | None = None
        # Assigned partitions last found without a live leader (each logged once when found so).
        self._without_leader: set[TopicPartition] = set()

    def start(self) -> None:
        """Start the fetcher task (its crash is raised by the next ``fetched_records``)."""
        self._tasks.start(self._run, "consumer-fetcher", self._on_failure)

    async def stop(self, timeout_s: float = 5.0) -> None:
        """Cancel the fetcher task and in-flight fetches; await them (bounded, seconds)."""
        await self._tasks.stop(timeout_s)

    def _on_failure(self, exc: BaseException) -> None:
        self._error = KafkaError(f"Consumer fetcher task crashed: {exc!r}")
        self.data_ready.set()

    def wake(self) -> None:
        """Ask the fetcher to look again (assignment change, seek, records consumed)."""
        self._wakeup.set()

    def discard(self, tps: set[TopicPartition] | None = None) -> None:
        """Drop buffered records (of ``tps``, or of partitions no longer assigned)."""
        for buffers in (self._records, self._prefetched):
            for tp in list(buffers):
                if (tps is not None and tp in tps) or not self._subs.is_assigned(tp):
                    del buffers[tp]
        self._without_leader = {tp for tp in self._without_leader if self._subs.is_assigned(tp)}
        self.wake()

    # --- partitions without a leader -----------------------------------------------------------

    def partitions_without_leader(self) -> set[TopicPartition]:
        """The assigned partitions not fetched because the metadata names no live leader for
        them (LEADER_NOT_AVAILABLE), as the fetcher task last saw them: a partition leaves the
        set when a fetch or an offset lookup goes to its leader again."""
        return {tp for tp in self._without_leader if self._subs.is_assigned(tp)}

    def _no_leader(self, tps: list[TopicPartition]) -> None:
        """Note partitions the metadata names no live leader for; each is logged once, at WARN,
        when first found so.  A partition the metadata does not hold yet (its topic was just
        assigned, the first metadata update is under way) is not leaderless, only unknown: it is
        logged at DEBUG, as Kafka's Fetcher does when it requests a metadata update for a
        partition whose leader is missing."""
        partition = self._client.cluster.partition
        for tp in tps:
            if partition(tp) is None:
                logger.debug(
                    "%s Requesting metadata update for partition %s since its leader is not known yet",
                    self._log_prefix,
                    tp,
                )
            elif tp not in self._without_leader:
                self._without_leader.add(tp)
                logger.warning(
                    "%s Partition %s has no leader (LEADER_NOT_AVAILABLE): not fetching it until "
                    "the metadata names one; requesting metadata update",
                    self._log_prefix,
                    tp,
                )

    def _leader_found(self, tps: list[TopicPartition], leader: int) -> None:
        """Note partitions led by ``leader`` again (logged once each); cheap when none was leaderless."""
        if not self._without_leader:
            return
        for tp in tps:
            if tp in self._without_leader:
                self._without_leader.discard(tp)
                logger.info(
                    "%s Partition %s has a leader again (broker %d): fetching it",
                    self._log_prefix,
                    tp,
                    leader,
                )

    # --- handing records to the user ---------------------------------------------------------

    def raise_pending_error(self) -> None:
        """Raise (once) an error a fetch stored for the user."""
        if self._error is not None:
            exc, self._error = self._error, None
            raise exc

    def has_records(self) -> bool:
        return bool(self._records)

    def fetched_ahead(self, tp: TopicPartition) -> int:
        """How many records of ``tp`` wait behind its buffered ones, fetched ahead (for
        inspection and tests)."""
        ahead = self._prefetched.get(tp)
        return len(ahead.records) if ahead is not None else 0

    def fetched_records(
        self, tps: tuple[TopicPartition, ...], max_records: int | None
    ) -> dict[TopicPartition, list[ConsumerRecord]]:
        """Take buffered records (of ``tps`` if given), at most ``max_records`` in total,
        advancing positions.  Never waits."""
        out: dict[TopicPartition, list[ConsumerRecord]] = {}
        remaining = max_records
        for tp, pr in list(self._records.items()):
            if tps and tp not in tps:
                continue
            if not self._subs.is_assigned(tp) or self._subs.position(tp) != pr.position:
                del self._records[tp]
                self._prefetched.pop(tp, None)
                continue
            if self._subs.is_paused(tp):
                continue  # kept for when it is resumed
            taken = pr.take(remaining)
            if taken:
                out[tp] = taken
                self._subs.advance(tp, pr.position)
            if pr.exhausted:
                self._drop_consumed(tp)
            if remaining is not None:
                remaining -= len(taken)
                if remaining <= 0:
                    break
        if not self._records:
            self.data_ready.clear()
        return out

    def _drop_consumed(self, tp: TopicPartition) -> None:
        """Forget ``tp``'s records, all handed out (the position is past them): the records
        fetched ahead take their place when they start where these end, and the fetcher task
        is asked for more."""
        pr = self._records.pop(tp)
        ahead = self._prefetched.pop(tp, None)
        if ahead is not None and ahead.position == pr.next_offset:
            if ahead.position > pr.position:
                self._subs.advance(tp, ahead.position)  # past records compaction removed from the last batch
            self._records[tp] = ahead
        self._wakeup.set()
        if not self._records:
            self.data_ready.clear()

    def take_one(self) -> ConsumerRecord | None:
        """The next record of the records being handed out one at a time, its partition's
        position advanced past it; None when they are used up, no longer valid, or none are
        (``take_next`` then picks the next ones).  Never waits.

        A few checks per record (no assignment change or seek since, not paused, no reset
        pending): the path of ``async for`` and ``getone``, as aiokafka's ``Fetcher.next_record``.

        Raises:
            KafkaError: an error a fetch stored for the user (``raise_pending_error``), once.
        """
        if self._error is not None:
            self.raise_pending_error()
        current = self._current
        if current is not None:
            pr, state, version = current
            index = pr.index
            records = pr.records
            if (
                index < len(records)
                and version == self._subs.version
                and state.position == pr.position
                and not state.paused
                and state.reset_timestamp is None
            ):
                record = records[index]
                pr.index = index + 1
                state.position = pr.position = record.offset + 1
                if index + 1 == len(records):
                    self._current = None
                    if self._records.get(pr.tp) is pr:
                        self._drop_consumed(pr.tp)
                return record
            self._current = None
        return None

    def take_next(self) -> ConsumerRecord | None:
        """The first record of the next partition with buffered records (through
        ``fetched_records``), whose records ``take_one`` then hands out; None when none is
        buffered.  Never waits.

        Raises:
            KafkaError: an error a fetch stored for the user, once.
        """
        self.raise_pending_error()
        for tp, records in self.fetched_records((), 1).items():
            pr = self._records.get(tp)
            state = self._subs.assigned_state(tp)
            if pr is not None and state is not None:
                self._current = (pr, state, self._subs.version)
            return records[0]
        return None

    def send_fetches(self) -> bool:
        """Start now the fetches the fetcher task would start when woken (its next pass finds
        them in flight).  For a consumer that hands out buffered records without waiting, and
        so without letting the task run: the fetch ahead of the records it is about to hand
        out goes out while they are handed out.  Does nothing once the fetcher stopped.

        Returns:
            True when a fetch was started (its task needs one turn of the event loop to write
            its request).
        """
        if not self._tasks.running:
            return False
        in_flight = len(self._in_flight_nodes)
        self._send_fetches()
        return len(self._in_flight_nodes) > in_flight

    # --- the fetcher task ----------------------------------------------------------------

    async def _run(self) -> None:
        while True:
            self._wakeup.clear()
            await self._reset_offsets()
            wait_ms = min(self._send_fetches(), self._subs.next_backoff_expiry_ms())
            await wait_for_wakeup(self._wakeup, wait_ms)

    async def _reset_offsets(self) -> None:
        needing = self._subs.partitions_needing_reset()
        if not needing:
            return
        found, errors = await self._offset_fetcher.list_offsets_once(needing)
        if self._without_leader:
            leader_for = self._client.cluster.leader_for
            for tp in found:
                leader = leader_for(tp)
                self._leader_found([tp], -1 if leader is None else leader)
        for tp, offset in found.items():
            if self._subs.complete_reset(tp, needing[tp], offset):
                logger.info(
                    "%s Resetting offset for partition %s to position %d", self._log_prefix, tp, offset
                )
        self._no_leader([tp for tp, exc in errors.items() if isinstance(exc, LeaderNotAvailableError)])
        for tp, exc in errors.items():
            self._subs.backoff(tp, self._retry_backoff_ms)
            if not exc.retriable:
                self._error = exc
                self.data_ready.set()

    def fetch_offsets(self) -> dict[TopicPartition, int]:
        """The partitions a fetch would ask for now, each with its fetch offset: fetchable
        partitions with nothing in flight, at their position when nothing is buffered, or from
        where their buffered records end (``PartitionRecords.next_offset``) when those may be
        fetched ahead of and nothing was fetched ahead yet."""
        records = self._records
        offsets: dict[TopicPartition, int] = {}
        for tp in self._subs.fetchable_partitions():
            if tp in self._in_flight_tps:
                continue
            buffered = records.get(tp)
            if buffered is None:
                offsets[tp] = self._subs.position(tp)
            elif buffered.next_offset >= 0 and tp not in self._prefetched:
                offsets[tp] = buffered.next_offset
        return offsets

    def _send_fetches(self) -> float:
        """Send one FetchRequest to each leader of ``fetch_offsets`` without one in flight.

        Returns:
            ms until the fetcher should look again: the retry backoff when a partition has no
            leader (a metadata update was asked for), else ``inf``.
        """
        wanted = self.fetch_offsets()
        by_node, no_leader = self._client.cluster.partitions_by_leader(wanted)
        for node_id, tps in by_node.items():
            self._leader_found(tps, node_id)
            if node_id in self._in_flight_nodes:
                continue
            offsets = {tp: wanted[tp] for tp in tps}
            self._in_flight_nodes.add(node_id)
            self._in_flight_tps.update(tps)
            self._tasks.spawn(self._fetch(node_id, offsets))
        if no_leader:
            self._no_leader(no_leader)
            self._client.request_metadata_update()
            return float(self._retry_backoff_ms)
        return float("inf")

    def _build_request(self, offsets: dict[TopicPartition, int]) -> FetchRequest:
        config = self._config
        by_topic: dict[str, list[FetchPartition]] = defaultdict(list)
        for (topic, partition), offset in offsets.items():
            by_topic[topic].append(
                FetchPartition(
                    partition=partition,
                    fetch_offset=offset,
                    partition_max_bytes=config.max_partition_fetch_bytes,
                )
            )
        return FetchRequest(
            replica_id=-1,
            max_wait_ms=config.fetch_max_wait_ms,
            min_bytes=config.fetch_min_bytes,
            max_bytes=config.fetch_max_bytes,
            isolation_level=config.isolation_level,
            topics=[FetchTopic(topic=t, partitions=parts) for t, parts in by_topic.items()],
        )

    async def _fetch(self, node_id: int, offsets: dict[TopicPartition, int]) -> None:
        try:
            response: FetchResponse = await self._client.send(
                node_id,
                self._build_request(offsets),
                timeout_ms=self._request_timeout_ms + self._config.fetch_max_wait_ms,
            )
            self._handle_response(node_id, offsets, response)
            if self._fetch_faults:
                self._fetch_faults.cleared(node_id)
        except asyncio.CancelledError:
            raise
        except KafkaError as exc:
            self._fetch_faults.failed(node_id, f"Fetch from broker {node_id}", exc)
            for tp in offsets:
                self._subs.backoff(tp, self._retry_backoff_ms)
        except Exception as exc:
            logger.exception("%s Unexpected error fetching from broker %d", self._log_prefix, node_id)
            self._error = KafkaError(f"Unexpected error fetching from broker {node_id}: {exc!r}")
            self.data_ready.set()
        finally:
            self._in_flight_nodes.discard(node_id)
            self._in_flight_tps.difference_update(offsets)
            self._wakeup.set()

    def _handle_response(
        self, node_id: int, offsets: dict[TopicPartition, int], response: FetchResponse
    ) -> None:
        if response.error_code:
            raise error_class(response.error_code)(f"Fetch from broker {node_id} failed")
        for topic_data in response.responses:
            for part in topic_data.partitions:
                tp = TopicPartition(topic_data.topic, part.partition_index)
                fetch_offset = offsets.get(tp)
                if fetch_offset is None or not self._subs.is_assigned(tp):
                    continue
                position = self._subs.position(tp)
                end_offset, batch_filter = self._readable_end(part)
                if position == fetch_offset:
                    self._handle_partition(
                        tp, fetch_offset, part.error_code, end_offset, part.records, batch_filter
                    )
                    continue
                current = self._records.get(tp)
                if (
                    current is not None
                    and current.next_offset == fetch_offset
                    and current.position == position
                ):
                    self._keep_prefetched(
                        tp, current, part.error_code, end_offset, part.records, batch_filter
                    )
                # else a seek or reset happened while the fetch was in flight: the answer is stale

    def _readable_end(self, part: FetchPartitionData) -> tuple[int, AbortedTransactionFilter | None]:
        """The offset a partition's records are readable to (read_committed: the last stable offset,
        Kafka's lag and end for such a consumer; else the high watermark) and the filter of the
        answer's aborted transactions (None for read_uncommitted)."""
        if self._config.isolation_level and part.last_stable_offset >= 0:
            return part.last_stable_offset, AbortedTransactionFilter(part.aborted_transactions)
        return part.high_watermark, None

    def _keep_prefetched(
        self,
        tp: TopicPartition,
        current: PartitionRecords,
        code: int,
        high_watermark: int,
        records: bytes | None,
        batch_filter: AbortedTransactionFilter | None = None,
    ) -> None:
        """Keep the answer of a fetch sent ahead of ``tp``'s buffered records ``current`` for when
        they are used up.  An error or a corrupt answer ends fetching ahead of them (no retry
        loop while they are handed out): the fetch at the position, once they are used up,
        meets it again and handles it as any fetch's error."""
        fetch_offset = current.next_offset
        if code != Errors.NONE:
            current.next_offset = -1
            return
        self._subs.state(tp).high_watermark = high_watermark
        if not records:
            current.next_offset = _ahead_from(fetch_offset, high_watermark)  # nothing new yet
            return
        try:
            parsed = parse_records(tp, records, fetch_offset, batch_filter)
        except CorruptRecordError:
            current.next_offset = -1
            return
        next_offset = next_fetch_offset(records, fetch_offset)
        if parsed:
            self._prefetched[tp] = PartitionRecords(
                tp, fetch_offset, parsed, _ahead_from(next_offset, high_watermark)
            )
        else:
            current.next_offset = _ahead_from(next_offset, high_watermark)  # only compacted-away records

    def _handle_partition(
        self,
        tp: TopicPartition,
        fetch_offset: int,
        code: int,
        high_watermark: int,
        records: bytes | None,
        batch_filter: AbortedTransactionFilter | None = None,
    ) -> None:
        if code == Errors.NONE:
            self._subs.state(tp).high_watermark = high_watermark
            if not records:
                return
            try:
                parsed = parse_records(tp, records, fetch_offset, batch_filter)
            except CorruptRecordError as exc:
                self._error = error_class(Errors.CORRUPT_MESSAGE)(f"{tp} at offset {fetch_offset}: {exc}")
                self._subs.backoff(tp, self._retry_backoff_ms)
                self.data_ready.set()
                return
            if parsed:
                self._records[tp] = PartitionRecords(
                    tp,
                    fetch_offset,
                    parsed,
                    _ahead_from(next_fetch_offset(records, fetch_offset), high_watermark),
                )
                self.data_ready.set()
            else:
                skip_to = next_fetch_offset(records, fetch_offset)
                if skip_to > fetch_offset:
                    self._subs.advance(tp, skip_to)  # only removed records (compaction) in these batches
            return
        if code == Errors.OFFSET_OUT_OF_RANGE:
            strategy = self._subs.default_reset_timestamp
            if strategy is None:
                self._error = error_class(code)(
                    f"Fetch position {fetch_offset} is out of range for partition {tp}"
                )
                self._subs.backoff(tp, self._retry_backoff_ms)
                self.data_ready.set()
            else:
                logger.info(
                    "%s Fetch position %d is out of range for partition %s, resetting offset",
                    self._log_prefix,
                    fetch_offset,
                    tp,
                )
                self._subs.request_reset(tp, strategy)
            return
        cls = error_class(code)
        self._subs.backoff(tp, self._retry_backoff_ms)
        if cls.invalid_metadata:
            logger.info("%s %s fetching %s; refreshing metadata", self._log_prefix, cls.__name__, tp)
            self._client.request_metadata_update()
        elif not cls.retriable:
            self._error = cls(f"Fetch of {tp} at offset {fetch_offset} failed")
            self.data_ready.set()
