"""The chaos harness's checker: what was acknowledged against what can be read.

In the manner of Jepsen's Kafka ``queue`` and ``list-append`` checkers.  Every value is sent
once (the workload never resends above the client; the idempotent producer retries below
it), so a value is a unique witness of one send.  Given the sends (acknowledged with a
partition and offset, failed, or never answered) and one or more reads of whole partitions
(the last one after the faults healed), ``check`` counts:

- ``lost``: acknowledged and absent from the final read (Jepsen's ``lost-write``/``unseen``);
- ``unexpected``: read but never sent (a corrupt or invented value);
- ``duplicated``: one value at two offsets of the final read (idempotence broken);
- ``reordered``: acknowledged values of one producer and partition whose offsets in the
  final read do not follow the order in which they were sent;
- ``moved``: an acknowledged value read at another offset than the one acknowledged;
- ``inconsistent_offsets``: one offset holding two different values across reads (Jepsen's
  ``inconsistent-offsets``: an offset changed meaning, a read-back of truncated data);
- ``skipped_by_group``: offsets below a consumer group's committed offset that none of the
  group's consumers read, or committed offsets past the end of the log (a commit that ran
  ahead of consumption, or survived a truncation: the group would never deliver those).

Pure logic, no I/O: ``tests/chaos/workload.py`` collects the sends and reads.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Send:
    """One send of the workload.

    Attributes:
        producer: the producer's index.
        seq: its position in that producer's sends (0, 1, ...).
        value: the unique value (bytes).
        partition: the partition it was sent to.
        offset: the acknowledged offset, None when the send failed or was never answered
            (its outcome is unknown: it may or may not be in the log).
    """

    producer: int
    seq: int
    value: bytes
    partition: int
    offset: int | None = None

    @property
    def acknowledged(self) -> bool:
        """True when the broker acknowledged the send (an offset came back)."""
        return self.offset is not None


Read = Sequence[tuple[int, int, bytes]]  # (partition, offset, value) of one read of every partition


@dataclass
class Report:
    """What ``check`` found; every list holds the offending values (or offsets), sorted."""

    acknowledged: int = 0
    sent: int = 0
    read: int = 0
    lost: list[bytes] = field(default_factory=list)
    unexpected: list[bytes] = field(default_factory=list)
    duplicated: list[bytes] = field(default_factory=list)
    reordered: list[bytes] = field(default_factory=list)
    moved: list[bytes] = field(default_factory=list)
    inconsistent_offsets: list[tuple[int, int]] = field(default_factory=list)
    skipped_by_group: list[tuple[int, int]] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        """True when nothing was lost, invented, duplicated, reordered, moved or skipped."""
        return not (
            self.lost
            or self.unexpected
            or self.duplicated
            or self.reordered
            or self.moved
            or self.inconsistent_offsets
            or self.skipped_by_group
        )

    def summary(self) -> str:
        """One line: counts of each anomaly."""
        return (
            f"acknowledged {self.acknowledged} of {self.sent} sent, read {self.read}: lost {len(self.lost)}, "
            f"unexpected {len(self.unexpected)}, duplicated {len(self.duplicated)}, "
            f"reordered {len(self.reordered)}, moved {len(self.moved)}, "
            f"inconsistent offsets {len(self.inconsistent_offsets)}, skipped by the group "
            f"{len(self.skipped_by_group)}"
        )


def check(
    sends: Iterable[Send],
    reads: Sequence[Read],
    group_read: Read | None = None,
    committed: dict[int, int] | None = None,
) -> Report:
    """Compare the sends with the reads.

    Args:
        sends: every send of the run, acknowledged or not.
        reads: reads of every partition, oldest first; the last is the final read, taken
            after the faults healed.  Earlier reads only feed ``inconsistent_offsets``.
        group_read: what the consumer group's members read (with repeats after rebalances);
            it feeds ``inconsistent_offsets`` and ``skipped_by_group``.
        committed: ``{partition: the group's committed offset}`` after the faults healed.

    Returns:
        The Report.

    Raises:
        ValueError: no read, or two sends with the same value (the workload's values must be unique).
    """
    if not reads:
        raise ValueError("check needs at least the final read")
    by_value: dict[bytes, Send] = {}
    for send in sends:
        if send.value in by_value:
            raise ValueError(f"value {send.value!r} was sent twice; the workload's values must be unique")
        by_value[send.value] = send
    final = reads[-1]
    report = Report(
        sent=len(by_value), acknowledged=sum(1 for s in by_value.values() if s.acknowledged), read=len(final)
    )

    at: dict[bytes, list[tuple[int, int]]] = defaultdict(
        list
    )  # value -> [(partition, offset)] in the final read
    for partition, offset, value in final:
        at[value].append((partition, offset))
    report.unexpected = sorted({v for v in at if v not in by_value})
    report.duplicated = sorted(v for v, places in at.items() if len(set(places)) > 1)
    report.lost = sorted(s.value for s in by_value.values() if s.acknowledged and s.value not in at)
    report.moved = sorted(
        s.value
        for s in by_value.values()
        if s.acknowledged and s.value in at and (s.partition, s.offset) not in at[s.value]
    )
    report.reordered = _reordered(by_value.values(), at)

    held: dict[tuple[int, int], bytes] = {}
    inconsistent: set[tuple[int, int]] = set()
    for read in [*reads[:-1], *([group_read] if group_read is not None else []), final]:
        for partition, offset, value in read:
            seen = held.setdefault((partition, offset), value)
            if seen != value:
                inconsistent.add((partition, offset))
    report.inconsistent_offsets = sorted(inconsistent)
    if committed:
        report.skipped_by_group = _skipped_by_group(final, group_read or [], committed)
    return report


def _skipped_by_group(final: Read, group_read: Read, committed: dict[int, int]) -> list[tuple[int, int]]:
    """Offsets of the final read below the committed offset of their partition that the group
    never read, and committed offsets past the end of the final read."""
    seen = {(p, o) for p, o, _ in group_read}
    ends: dict[int, int] = {}
    for partition, offset, _ in final:
        ends[partition] = max(ends.get(partition, 0), offset + 1)
    skipped = {(p, o) for p, o, _ in final if o < committed.get(p, 0) and (p, o) not in seen}
    skipped.update((p, ends.get(p, 0)) for p, c in committed.items() if c > ends.get(p, 0))
    return sorted(skipped)


def _reordered(sends: Iterable[Send], at: dict[bytes, list[tuple[int, int]]]) -> list[bytes]:
    """Acknowledged values read at an offset below that of a value their producer acknowledged
    earlier on the same partition (the first occurrence of each value counts)."""
    streams: dict[tuple[int, int], list[Send]] = defaultdict(list)
    for send in sends:
        if send.acknowledged and send.value in at:
            streams[(send.producer, send.partition)].append(send)
    bad: list[bytes] = []
    for (_, partition), stream in streams.items():
        stream.sort(key=lambda s: s.seq)
        highest = -1
        for send in stream:
            offsets = [o for p, o in at[send.value] if p == partition]
            if not offsets:
                continue  # read on another partition: counted as moved
            offset = min(offsets)
            if offset < highest:
                bad.append(send.value)
            else:
                highest = offset
    return sorted(bad)
