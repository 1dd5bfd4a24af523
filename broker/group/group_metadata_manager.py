"""GroupMetadataManager: the committed offsets of the groups this broker coordinates.

Owns: which ``__consumer_offsets`` partitions this broker leads (each loaded from its log
when it becomes leader, dropped when it stops: Kafka's ``onElection`` / ``onResignation``),
the offsets committed by the groups of those partitions (a cache of the log), and the
writes of new commits (one record batch per commit, appended with acks=all; the cache
changes only once the append is acknowledged).  Owns the loading tasks and cancels and
awaits them on ``stop``.  Does not own group membership, request validation or the
records' byte layout (``coordinator_records``), nor the state of KIP-848 consumer groups: their
records (types 3 to 8 and 16) are decoded while loading and handed, per group in log order, to
``on_consumer_group_records``.

Kafka concept: ``GroupMetadataManager`` (``loadGroupsAndOffsets``, ``storeOffsets``,
``getOffsets``, ``removeGroupsForPartition``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from kafkette.broker.group.consumer_group_records import ConsumerGroupKey, ConsumerGroupValue
from kafkette.broker.group.coordinator_records import (
    CoordinatorRecordError,
    GroupMetadataKey,
    GroupMetadataValue,
    OffsetCommitKey,
    OffsetCommitValue,
    decode_group_metadata_value,
    decode_key,
    decode_offset_commit_value,
    decode_value,
    encode_key,
    encode_value,
)
from kafkette.broker.group.group_metadata_topic import partition_for
from kafkette.broker.group.pending_transactional_offsets import (
    PendingTransactionalOffsets,
    RecordOffsets,
    TransactionResult,
)
from kafkette.broker.replica_manager import ReplicaManager
from kafkette.common.background_tasks import cancel_and_wait
from kafkette.common.topic_names import GROUP_METADATA_TOPIC_NAME
from kafkette.protocol.errors import Errors, KafkaError, error_code_for
from kafkette.protocol.kafka_binary import I16
from kafkette.protocol.record_batch import (
    CONTROL_MASK,
    TRANSACTIONAL_MASK,
    BatchHeader,
    Record,
    build_batch,
    build_kafka_batch,
    decode_records,
    iter_batches,
)
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)

LOAD_BUFFER_BYTES = 5 * 1024 * 1024
"""Bytes read per step while loading a partition (Kafka's ``offsets.load.buffer.size``)."""
STOP_TIMEOUT_S = 5.0

# Kafka's GroupMetadataManager.storeOffsets maps the append's errors to what a client can act on
_COMMIT_ERRORS = {
    Errors.UNKNOWN_TOPIC_OR_PARTITION: Errors.COORDINATOR_NOT_AVAILABLE,
    Errors.NOT_ENOUGH_REPLICAS: Errors.COORDINATOR_NOT_AVAILABLE,
    Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND: Errors.COORDINATOR_NOT_AVAILABLE,
    Errors.REQUEST_TIMED_OUT: Errors.COORDINATOR_NOT_AVAILABLE,
    Errors.NOT_LEADER_OR_FOLLOWER: Errors.NOT_COORDINATOR,
    Errors.KAFKA_STORAGE_ERROR: Errors.NOT_COORDINATOR,
    Errors.MESSAGE_TOO_LARGE: Errors.INVALID_COMMIT_OFFSET_SIZE,
    Errors.RECORD_LIST_TOO_LARGE: Errors.INVALID_COMMIT_OFFSET_SIZE,
    Errors.INVALID_FETCH_SIZE: Errors.INVALID_COMMIT_OFFSET_SIZE,
}


ConsumerGroupRecords = dict[str, list[tuple[ConsumerGroupKey, ConsumerGroupValue | None]]]
"""``{group_id: [(key, value or None for a tombstone), ...]}``: the KIP-848 consumer group records of
a ``__consumer_offsets`` partition, per group in log order."""


@dataclass
class _LoadedOffsets:
    """What loading a partition has replayed so far: committed offsets, their record offsets and the
    pending transactional offsets."""

    offsets: dict[str, dict[TopicPartition, OffsetCommitValue]]
    record_offsets: RecordOffsets
    pending: PendingTransactionalOffsets


def _offset_commit_records(
    group_id: str, offsets: Mapping[TopicPartition, OffsetCommitValue], now_ms: int
) -> tuple[dict[TopicPartition, OffsetCommitValue], list[tuple[bytes | None, bytes | None, None, int]]]:
    """The commits with a ``commit_timestamp`` of 0 set to ``now_ms``, and their records
    ``(key, value, headers, timestamp)`` in the same order."""
    stamped = {
        tp: v if v.commit_timestamp else OffsetCommitValue(v.offset, v.leader_epoch, v.metadata, now_ms)
        for tp, v in offsets.items()
    }
    records: list[tuple[bytes | None, bytes | None, None, int]] = [
        (encode_key(OffsetCommitKey(group_id, tp.topic, tp.partition)), encode_value(value), None, now_ms)
        for tp, value in stamped.items()
    ]
    return stamped, records


def _wall_clock_ms() -> int:
    return int(time.time() * 1000)


class GroupMetadataManager:
    """The offsets of the groups whose ``__consumer_offsets`` partition this broker leads.

    Args:
        broker_id: this broker (log prefix).
        replica_manager: where ``__consumer_offsets`` partitions are read and appended.
        partition_count: the number of ``__consumer_offsets`` partitions (the topic's, or
            ``offsets.topic.num.partitions`` before it exists).
        commit_timeout_ms: how long a commit waits for the ISR
            (``offsets.commit.timeout.ms``).
        time_ms: wall clock (ms since the epoch) for commit timestamps.

    ``on_groups_loaded`` (set by the coordinator) is called with ``{group_id:
    GroupMetadataValue}`` of each partition once it has loaded.  ``on_consumer_group_records``
    (set by whatever replays KIP-848 consumer groups, Kafka's ``GroupMetadataManager.replay``
    overloads) is called with ``(partition, ConsumerGroupRecords)`` once the partition has loaded,
    before ``on_groups_loaded``; while it is None those records are decoded (a malformed one is
    logged and skipped, as any other) and not kept.
    """

    def __init__(
        self,
        broker_id: int,
        replica_manager: ReplicaManager,
        *,
        partition_count: Callable[[], int],
        commit_timeout_ms: int = 5000,
        time_ms: Callable[[], int] = _wall_clock_ms,
    ) -> None:
        self._replica_manager = replica_manager
        self._partition_count = partition_count
        self._commit_timeout_ms = commit_timeout_ms
        self._time_ms = time_ms
        self._owned: dict[int, int] = {}  # loaded partition -> leader epoch
        self._loading: dict[int, tuple[int, asyncio.Task[None]]] = {}  # partition -> (epoch, task)
        self._offsets: dict[str, dict[TopicPartition, OffsetCommitValue]] = {}
        self._record_offsets: RecordOffsets = {}  # the __consumer_offsets offset of each committed offset
        self._pending = PendingTransactionalOffsets()
        self._stopped = False
        self.on_groups_loaded: Callable[[dict[str, GroupMetadataValue]], None] | None = None
        self.on_consumer_group_records: Callable[[int, ConsumerGroupRecords], None] | None = None
        self._prefix = f"[GroupMetadataManager brokerId={broker_id}]"

    # ------------------------------------------------------------------ ownership

    def partition_for(self, group_id: str) -> int:
        """The ``__consumer_offsets`` partition of ``group_id``."""
        return partition_for(group_id, self._partition_count())

    def coordinator_error(self, group_id: str) -> Errors:
        """NONE when this broker coordinates ``group_id`` and has loaded it;
        COORDINATOR_LOAD_IN_PROGRESS while its partition loads; NOT_COORDINATOR otherwise."""
        partition = self.partition_for(group_id)
        if partition in self._owned:
            return Errors.NONE
        return Errors.COORDINATOR_LOAD_IN_PROGRESS if partition in self._loading else Errors.NOT_COORDINATOR

    def on_election(self, partition: int, leader_epoch: int) -> None:
        """This broker became leader of ``__consumer_offsets-<partition>``: load its groups.

        A second election of the same epoch is ignored; a newer one reloads.
        """
        if self._stopped or self._owned.get(partition) == leader_epoch:
            return
        current = self._loading.get(partition)
        if current is not None:
            if current[0] == leader_epoch:
                return
            current[1].cancel()
        self._drop_partition(partition)
        task = asyncio.get_running_loop().create_task(
            self._load(partition, leader_epoch), name=f"group-load-{partition}"
        )
        self._loading[partition] = (leader_epoch, task)
        task.add_done_callback(lambda t, p=partition: self._load_done(p, t))

    def on_resignation(self, partition: int) -> None:
        """This broker is no longer leader of ``__consumer_offsets-<partition>``: its groups go
        (requests for them answer NOT_COORDINATOR)."""
        loading = self._loading.pop(partition, None)
        if loading is not None:
            loading[1].cancel()
        if self._owned.pop(partition, None) is not None or loading is not None:
            logger.info("%s Unloaded __consumer_offsets-%d", self._prefix, partition)
        self._drop_partition(partition)

    def _drop_partition(self, partition: int) -> None:
        for group in [g for g in self._offsets if self.partition_for(g) == partition]:
            del self._offsets[group]
            self._record_offsets.pop(group, None)
        self._pending.drop_groups(lambda g: self.partition_for(g) == partition)

    def _load_done(self, partition: int, task: asyncio.Task[None]) -> None:
        if self._loading.get(partition, (None, None))[1] is task:
            del self._loading[partition]
        if not task.cancelled() and task.exception() is not None:
            logger.error(
                "%s Loading __consumer_offsets-%d failed: %r", self._prefix, partition, task.exception()
            )

    async def _load(self, partition: int, leader_epoch: int) -> None:
        """Read the partition from its log start to its log end, then own it."""
        tp = TopicPartition(GROUP_METADATA_TOPIC_NAME, partition)
        started = time.monotonic()
        offsets: dict[str, dict[TopicPartition, OffsetCommitValue]] = {}
        groups: dict[str, GroupMetadataValue] = {}
        consumer_groups: ConsumerGroupRecords = {}
        loaded = _LoadedOffsets(offsets, {}, PendingTransactionalOffsets())
        host = self._replica_manager.get_partition(tp)
        if host is None:
            raise KafkaError(f"{tp} is not hosted here")
        log = host.leader_log(leader_epoch)
        position = log.log_start_offset
        records = 0
        while position < log.log_end_offset:
            data = log.read(position, LOAD_BUFFER_BYTES, log.log_end_offset, True).records
            if not data:
                break
            for pos, header in iter_batches(data):
                if header.attributes & CONTROL_MASK:  # a transaction's COMMIT or ABORT marker
                    if header.base_offset >= position:
                        self._replay_marker(loaded, header.producer_id, data, pos, header, tp)
                    position = max(position, header.last_offset + 1)
                    continue
                producer_id = header.producer_id if header.attributes & TRANSACTIONAL_MASK else -1
                for record in decode_records(data, pos, header):
                    if record.offset >= position:
                        records += 1
                        self._replay(loaded, groups, consumer_groups, record, producer_id, tp)
                position = max(position, header.last_offset + 1)
            await asyncio.sleep(0)  # let other requests in between steps
        self._offsets.update(offsets)
        self._record_offsets.update(loaded.record_offsets)
        self._pending.merge(loaded.pending)
        self._owned[partition] = leader_epoch
        if self.on_consumer_group_records is not None:
            self.on_consumer_group_records(partition, consumer_groups)
        if self.on_groups_loaded is not None:
            self.on_groups_loaded(groups)
        logger.info(
            "%s Loaded %d groups' offsets, %d groups' metadata and %d consumer groups' records from %s "
            "(%d records up to offset %d) in %.0f ms",
            self._prefix,
            len(offsets),
            len(groups),
            len(consumer_groups),
            tp,
            records,
            position,
            (time.monotonic() - started) * 1000,
        )

    def _replay(
        self,
        loaded: _LoadedOffsets,
        groups: dict[str, GroupMetadataValue],
        consumer_groups: ConsumerGroupRecords,
        record: Record,
        producer_id: int,
        tp: TopicPartition,
    ) -> None:
        """Replay one record of a loading partition (Kafka's ``GroupCoordinatorShard.replay``): an offset
        commit of a transactional batch (``producer_id`` >= 0) is kept pending for its producer."""
        key, value, offset = record.key, record.value, record.offset
        if key is None:
            logger.warning("%s Skipping a record without key at %s offset %d", self._prefix, tp, offset)
            return
        try:
            decoded = decode_key(key)
            if isinstance(decoded, OffsetCommitKey):
                group_tp = decoded.topic_partition
                if value is None:
                    loaded.offsets.setdefault(decoded.group, {}).pop(group_tp, None)
                    loaded.record_offsets.get(decoded.group, {}).pop(group_tp, None)
                    loaded.pending.tombstone(decoded.group, group_tp)
                elif producer_id >= 0:
                    loaded.pending.add(
                        producer_id, decoded.group, group_tp, decode_offset_commit_value(value), offset
                    )
                else:
                    loaded.offsets.setdefault(decoded.group, {})[group_tp] = decode_offset_commit_value(value)
                    loaded.record_offsets.setdefault(decoded.group, {})[group_tp] = offset
            elif isinstance(decoded, GroupMetadataKey) and value is None:
                groups.pop(decoded.group, None)  # the group was deleted (its offsets by their own tombstones)
            elif isinstance(decoded, GroupMetadataKey):
                groups[decoded.group] = decode_group_metadata_value(value)
            else:  # a KIP-848 consumer group record: decoded here, replayed by its consumer
                consumer_record = (decoded, None if value is None else decode_value(decoded, value))
                if self.on_consumer_group_records is not None:
                    consumer_groups.setdefault(decoded.group_id, []).append(consumer_record)  # type: ignore[arg-type]
        except CoordinatorRecordError as exc:
            logger.warning(
                "%s Skipping an undecodable record at %s offset %d: %s", self._prefix, tp, offset, exc
            )

    def _replay_marker(
        self,
        loaded: _LoadedOffsets,
        producer_id: int,
        data: bytes | bytearray | memoryview,
        pos: int,
        header: BatchHeader,
        tp: TopicPartition,
    ) -> None:
        """Replay a control batch of a loading partition: its record's key (version 0, type 0 ABORT or
        1 COMMIT) ends ``producer_id``'s transaction (Kafka's ``replayEndTransactionMarker``)."""
        try:
            key = decode_records(data, pos, header)[0].key or b""
            version, kind = I16.unpack_from(key, 0)[0], I16.unpack_from(key, 2)[0]
        except Exception as exc:  # a malformed control batch: logged and skipped, as any other record
            logger.warning(
                "%s Skipping an undecodable control batch at %s offset %d: %r",
                self._prefix,
                tp,
                header.base_offset,
                exc,
            )
            return
        if version != 0 or kind not in (0, 1):
            return  # another control record (a KRaft or a future one): not a transaction marker
        loaded.pending.complete(producer_id, TransactionResult(kind), loaded.offsets, loaded.record_offsets)

    # ------------------------------------------------------------------ offsets

    async def store_offsets(
        self, group_id: str, offsets: Mapping[TopicPartition, OffsetCommitValue]
    ) -> dict[TopicPartition, Errors]:
        """Append the commits as one batch (acks=all) and, once acknowledged, cache them.

        Args:
            group_id: a group this broker coordinates (``coordinator_error`` is NONE).
            offsets: ``{partition: committed offset}``; a ``commit_timestamp`` of 0 is set to now.

        Returns:
            ``{partition: error}``: NONE, or the append's error as Kafka maps it
            (COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR, INVALID_COMMIT_OFFSET_SIZE, ...).
        """
        if not offsets:
            return {}
        now = self._time_ms()
        stamped, records = _offset_commit_records(group_id, offsets, now)
        code, base_offset = await self._append_batch(group_id, build_batch(records))
        if code != Errors.NONE:
            return dict.fromkeys(stamped, code)
        self._offsets.setdefault(group_id, {}).update(stamped)
        record_offsets = self._record_offsets.setdefault(group_id, {})
        for index, tp in enumerate(stamped):
            record_offsets[tp] = base_offset + index
        return dict.fromkeys(stamped, Errors.NONE)

    async def store_transactional_offsets(
        self,
        group_id: str,
        producer_id: int,
        producer_epoch: int,
        offsets: Mapping[TopicPartition, OffsetCommitValue],
    ) -> dict[TopicPartition, Errors]:
        """Append transactional commits as one transactional batch of ``producer_id`` (acks=all) and,
        once acknowledged, keep them pending until the transaction ends (``complete_transaction``):
        OffsetFetch does not see them meanwhile.

        Args:
            group_id: a group this broker coordinates.
            producer_id / producer_epoch: the transactional producer's (set on the batch, with the
                transactional attribute).
            offsets: ``{partition: committed offset}``; a ``commit_timestamp`` of 0 is set to now.

        Returns:
            ``{partition: error}`` as ``store_offsets``.

        Kafka concept: ``OffsetMetadataManager.commitTransactionalOffset`` and its replay.
        """
        if not offsets:
            return {}
        now = self._time_ms()
        stamped, records = _offset_commit_records(group_id, offsets, now)
        batch = build_kafka_batch(
            records,
            producer_id=producer_id,
            producer_epoch=producer_epoch,
            base_sequence=self._next_sequence(group_id, producer_id, producer_epoch),
            transactional=True,
        )
        code, base_offset = await self._append_batch(group_id, batch)
        if code != Errors.NONE:
            return dict.fromkeys(stamped, code)
        for index, (tp, value) in enumerate(stamped.items()):
            self._pending.add(producer_id, group_id, tp, value, base_offset + index)
        return dict.fromkeys(stamped, Errors.NONE)

    def _next_sequence(self, group_id: str, producer_id: int, producer_epoch: int) -> int:
        """The base sequence of the producer's next batch in the group's partition: the log checks the
        sequence of every batch with a producer id (Kafka skips that check for a coordinator's append,
        ``AppendOrigin.COORDINATOR``), so the coordinator continues the producer's sequence there (0 in
        a new epoch)."""
        partition = self.partition_for(group_id)
        host = self._replica_manager.get_partition(TopicPartition(GROUP_METADATA_TOPIC_NAME, partition))
        epoch = self._owned.get(partition)
        if host is None or epoch is None:
            return 0
        try:
            entry = host.leader_log(epoch).producer_state_manager.entries.get(producer_id)
        except KafkaError:
            return 0
        if entry is None or entry.producer_epoch != producer_epoch:
            return 0
        return entry.last_seq + 1

    def complete_transaction(
        self, producer_id: int, partitions: Iterable[int], result: TransactionResult
    ) -> int:
        """A COMMIT or ABORT marker of ``producer_id`` was written to these ``__consumer_offsets``
        partitions: its pending offsets of their groups become committed (COMMIT, unless a later
        non-transactional commit of the partition is at a higher log offset) or are dropped (ABORT).

        Returns:
            How many offsets became committed.

        Kafka concept: ``OffsetMetadataManager.replayEndTransactionMarker``.
        """
        wanted = {p for p in partitions if p in self._owned}
        return self._pending.complete(
            producer_id,
            result,
            self._offsets,
            self._record_offsets,
            lambda group_id: self.partition_for(group_id) in wanted,
        )

    def pending_partitions(self, group_id: str) -> list[TopicPartition]:
        """The partitions of ``group_id`` with pending transactional offsets, sorted."""
        return self._pending.pending_partitions(group_id)

    def has_pending_transactional_offsets(self, group_id: str, tp: TopicPartition | None = None) -> bool:
        """True when an open transaction has committed an offset of ``tp`` (of any partition when None)
        for ``group_id`` (Kafka's ``hasPendingTransactionalOffsets``)."""
        if tp is None:
            return self._pending.group_has_pending(group_id)
        return self._pending.has_pending(group_id, tp)

    async def delete_offsets(self, group_id: str, partitions: Iterable[TopicPartition] | None) -> Errors:
        """Write tombstones for committed offsets of ``group_id`` (acks=all) and, once
        acknowledged, forget them.

        Args:
            group_id: a group this broker coordinates.
            partitions: the offsets to delete; None deletes the group: every offset and its
                group metadata (Kafka's ``GroupMetadataManager.deleteGroups``).

        Returns:
            NONE, or the append's error as Kafka maps it.
        """
        committed = self._offsets.get(group_id, {})
        pending = set(self._pending.pending_partitions(group_id))
        if partitions is None:
            targets = list(dict.fromkeys([*committed, *sorted(pending)]))
        else:  # a tombstone also for a partition with only pending transactional offsets, as Kafka
            targets = [tp for tp in partitions if tp in committed or tp in pending]
        records: list[tuple[bytes | None, bytes | None, None, int]] = [
            (encode_key(OffsetCommitKey(group_id, tp.topic, tp.partition)), None, None, self._time_ms())
            for tp in targets
        ]
        if partitions is None:
            records.append((encode_key(GroupMetadataKey(group_id)), None, None, self._time_ms()))
        if not records:
            return Errors.NONE
        code = await self._append(group_id, records)
        if code == Errors.NONE:
            record_offsets = self._record_offsets.get(group_id, {})
            for tp in targets:
                committed.pop(tp, None)
                record_offsets.pop(tp, None)
                self._pending.tombstone(group_id, tp)
            if not committed:
                self._offsets.pop(group_id, None)
                self._record_offsets.pop(group_id, None)
        return code

    async def _append(
        self, group_id: str, records: list[tuple[bytes | None, bytes | None, None, int]]
    ) -> Errors:
        """Append records to the group's partition with acks=all; the error as Kafka maps it."""
        return (await self._append_batch(group_id, build_batch(records)))[0]

    async def _append_batch(self, group_id: str, batch: bytes) -> tuple[Errors, int]:
        """Append one batch to the group's partition with acks=all.

        Returns:
            ``(error as Kafka maps it, base offset of the batch, -1 on error)``.
        """
        partition = self.partition_for(group_id)
        target = TopicPartition(GROUP_METADATA_TOPIC_NAME, partition)
        epoch = self._owned.get(partition)
        base_offset = -1
        try:
            statuses = await self._replica_manager.append_records(
                self._commit_timeout_ms, -1, {target: batch}, internal_topics_allowed=True
            )
            code = Errors(statuses[target].error)
            base_offset = statuses[target].base_offset
        except Exception as exc:  # the append itself failed (an I/O error, a bug): nothing changes
            logger.exception("%s Appending to %s for group %s failed", self._prefix, target, group_id)
            code = error_code_for(exc)
        if code == Errors.NONE and self._owned.get(partition) != epoch:
            code = Errors.NOT_COORDINATOR  # leadership moved while the append waited
        if code != Errors.NONE:
            code = _COMMIT_ERRORS.get(code, code)
            logger.info("%s Write of group %s failed: %s", self._prefix, group_id, code.name)
        return code, base_offset

    async def append_records(self, group_id: str, records: list[tuple[bytes, bytes | None]]) -> Errors:
        """Append a consumer group's records (key and value bytes, None for a tombstone) as one batch with
        acks=all (Kafka's ``CoordinatorRuntime`` write of a ``CoordinatorResult``).

        Returns:
            NONE, or the append's error as Kafka maps it.
        """
        now = self._time_ms()
        return await self._append(group_id, [(key, value, None, now) for key, value in records])

    async def store_group(self, group_id: str, value: GroupMetadataValue) -> Errors:
        """Write a group's metadata after a rebalance (acks=all), so that the partition's next
        leader knows its generation and members (Kafka's ``storeGroup``).

        Returns:
            NONE, or the append's error as Kafka maps it.
        """
        return await self._append(
            group_id, [(encode_key(GroupMetadataKey(group_id)), encode_value(value), None, self._time_ms())]
        )

    def fetch_offsets(
        self, group_id: str, partitions: Iterable[TopicPartition] | None
    ) -> dict[TopicPartition, OffsetCommitValue | None]:
        """The committed offsets of ``group_id``.

        Args:
            group_id: a group this broker coordinates.
            partitions: the partitions asked for (None: every partition it has committed).

        Returns:
            ``{partition: committed offset or None when it has none}``.
        """
        committed = self._offsets.get(group_id, {})
        if partitions is None:
            return dict(committed)
        return {tp: committed.get(tp) for tp in partitions}

    def loading(self) -> bool:
        """True while a partition of this broker is still loading."""
        return bool(self._loading)

    def has_offsets(self, group_id: str) -> bool:
        """True when ``group_id`` has committed (or pending transactional) offsets in a loaded
        partition: Kafka's simple group, created by its first commit."""
        return bool(self._offsets.get(group_id)) or self._pending.group_has_pending(group_id)

    def group_ids(self) -> list[str]:
        """The groups with committed (or pending transactional) offsets in the loaded partitions, sorted."""
        return sorted(g for g in {*self._offsets, *self._pending.group_ids()} if self.has_offsets(g))

    async def stop(self) -> None:
        """Cancel and await the loading tasks; drop every partition."""
        self._stopped = True
        await cancel_and_wait([task for _, task in self._loading.values()], STOP_TIMEOUT_S)
        self._loading.clear()
        self._owned.clear()
        self._offsets.clear()
        self._record_offsets.clear()
        self._pending = PendingTransactionalOffsets()
