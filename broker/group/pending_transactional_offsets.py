"""The offsets committed inside transactions that have not ended yet (KIP-98, KIP-447).

Owns: the pending transactional offsets per producer id (written to ``__consumer_offsets`` in a
transactional batch of that producer, not visible to OffsetFetch), the open transactions per group and
partition (what ``require_stable`` and offset expiration look at), and what a transaction's end does to
them: on COMMIT each pending offset becomes the committed one unless the partition's committed offset
was written at a higher ``__consumer_offsets`` offset (Kafka keeps the most recent record, so that
compaction of the topic cannot materialize an older commit); on ABORT they are dropped.  A tombstone of
a partition drops its pending offsets of every producer.  Pure code: the ``GroupMetadataManager``
applies it while serving and while loading a partition.

Kafka concept: ``OffsetMetadataManager.pendingTransactionalOffsets`` / ``OpenTransactions``,
``replay`` (transactional records, tombstones) and ``replayEndTransactionMarker``;
``TransactionResult``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from kafkette.broker.group.coordinator_records import OffsetCommitValue
from kafkette.protocol.topic_partition import TopicPartition


class TransactionResult(Enum):
    """How a transaction ended (Kafka's ``TransactionResult``; the control record type: 0 ABORT, 1 COMMIT)."""

    ABORT = 0
    COMMIT = 1


@dataclass(frozen=True)
class PendingOffset:
    """A transactional offset commit and the ``__consumer_offsets`` offset of its record
    (Kafka's ``OffsetAndMetadata.recordOffset``)."""

    value: OffsetCommitValue
    record_offset: int


CommittedOffsets = dict[str, dict[TopicPartition, OffsetCommitValue]]
"""``{group_id: {partition: committed offset}}``."""
RecordOffsets = dict[str, dict[TopicPartition, int]]
"""``{group_id: {partition: __consumer_offsets offset of the committed offset's record}}``."""


class PendingTransactionalOffsets:
    """Pending transactional offsets by producer id, and the open transactions by group and partition."""

    def __init__(self) -> None:
        self._pending: dict[int, dict[str, dict[TopicPartition, PendingOffset]]] = {}
        self._open: dict[str, dict[TopicPartition, set[int]]] = {}

    def add(
        self,
        producer_id: int,
        group_id: str,
        tp: TopicPartition,
        value: OffsetCommitValue,
        record_offset: int,
    ) -> None:
        """Keep a transactional commit of ``producer_id`` pending (a later one of the same producer for
        the same partition replaces it)."""
        self._pending.setdefault(producer_id, {}).setdefault(group_id, {})[tp] = PendingOffset(
            value, record_offset
        )
        self._open.setdefault(group_id, {}).setdefault(tp, set()).add(producer_id)

    def has_pending(self, group_id: str, tp: TopicPartition) -> bool:
        """True when a transaction not yet ended has committed an offset of ``tp`` for ``group_id``
        (Kafka's ``hasPendingTransactionalOffsets``)."""
        return tp in self._open.get(group_id, {})

    def group_has_pending(self, group_id: str) -> bool:
        """True when a transaction not yet ended has committed an offset for ``group_id``."""
        return bool(self._open.get(group_id))

    def pending_partitions(self, group_id: str) -> list[TopicPartition]:
        """The partitions of ``group_id`` with pending transactional offsets, sorted."""
        return sorted(self._open.get(group_id, {}))

    def pending_offset(self, producer_id: int, group_id: str, tp: TopicPartition) -> PendingOffset | None:
        """The offset ``producer_id`` has committed for ``tp`` in its open transaction, None if none."""
        return self._pending.get(producer_id, {}).get(group_id, {}).get(tp)

    def group_ids(self) -> list[str]:
        """The groups with pending offsets, sorted."""
        return sorted(self._open)

    def producer_ids(self) -> list[int]:
        """The producers with pending offsets, sorted."""
        return sorted(self._pending)

    def tombstone(self, group_id: str, tp: TopicPartition) -> None:
        """A tombstone of ``tp`` for ``group_id`` was written: every producer's pending offset of it goes."""
        producers = self._open.get(group_id, {}).pop(tp, set())
        for producer_id in producers:
            groups = self._pending.get(producer_id, {})
            groups.get(group_id, {}).pop(tp, None)
            if group_id in groups and not groups[group_id]:
                del groups[group_id]
            if producer_id in self._pending and not groups:
                del self._pending[producer_id]
        if group_id in self._open and not self._open[group_id]:
            del self._open[group_id]

    def drop_groups(self, belongs: Callable[[str], bool]) -> None:
        """Forget the pending offsets of the groups ``belongs`` selects (their partition was unloaded)."""
        for group_id in [g for g in self._open if belongs(g)]:
            for tp in list(self._open[group_id]):
                self.tombstone(group_id, tp)

    def merge(self, other: PendingTransactionalOffsets) -> None:
        """Add the pending offsets of ``other`` (a partition just loaded; its groups are not here yet)."""
        for producer_id, groups in other._pending.items():
            for group_id, offsets in groups.items():
                for tp, pending in offsets.items():
                    self.add(producer_id, group_id, tp, pending.value, pending.record_offset)

    def complete(
        self,
        producer_id: int,
        result: TransactionResult,
        committed: CommittedOffsets,
        record_offsets: RecordOffsets,
        belongs: Callable[[str], bool] = lambda _group_id: True,
    ) -> int:
        """End ``producer_id``'s transaction for the groups ``belongs`` selects (those of the
        ``__consumer_offsets`` partition the marker was written to).

        On COMMIT a pending offset replaces the committed one unless that one's record is at a higher
        ``__consumer_offsets`` offset; on ABORT it is dropped.  ``committed`` and ``record_offsets`` are
        updated in place.

        Returns:
            How many offsets became committed.
        """
        groups = self._pending.get(producer_id)
        if not groups:
            return 0
        materialized = 0
        for group_id in [g for g in groups if belongs(g)]:
            offsets = groups.pop(group_id)
            open_by_tp = self._open.get(group_id, {})
            for tp, pending in offsets.items():
                producers = open_by_tp.get(tp)
                if producers is not None:
                    producers.discard(producer_id)
                    if not producers:
                        del open_by_tp[tp]
                if result is not TransactionResult.COMMIT:
                    continue
                existing = record_offsets.get(group_id, {}).get(tp)
                if (
                    tp not in committed.get(group_id, {})
                    or existing is None
                    or pending.record_offset > existing
                ):
                    committed.setdefault(group_id, {})[tp] = pending.value
                    record_offsets.setdefault(group_id, {})[tp] = pending.record_offset
                    materialized += 1
            if group_id in self._open and not open_by_tp:
                del self._open[group_id]
        if not groups:
            del self._pending[producer_id]
        return materialized
