"""The consumer's SubscriptionState: assigned partitions and their fetch positions.

Owns: the manual assignment, per-partition position (the next offset to hand to the
user), pending offset resets (``seek_to_beginning``/``seek_to_end``, an unknown
position, or OFFSET_OUT_OF_RANGE under ``auto_offset_reset``), per-partition retry
backoff and the last high watermark seen.  Pure state, no I/O and no asyncio; the
Fetcher reads and advances it.

Kafka concept: ``org.apache.kafka.clients.consumer.internals.SubscriptionState``
(``assign`` only; group subscriptions come with consumer groups later).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from kafkette.protocol.apis.list_offsets import EARLIEST_TIMESTAMP, LATEST_TIMESTAMP
from kafkette.protocol.errors import IllegalStateError
from kafkette.protocol.topic_partition import TopicPartition

_STRATEGIES = {"earliest": EARLIEST_TIMESTAMP, "latest": LATEST_TIMESTAMP, "none": None}


def parse_offset_reset(auto_offset_reset: str) -> int | None:
    """Map ``"earliest"``/``"latest"``/``"none"`` to a ListOffsets timestamp (or None).

    Raises:
        ValueError: any other value.
    """
    if auto_offset_reset not in _STRATEGIES:
        raise ValueError(
            f"auto_offset_reset must be 'earliest', 'latest' or 'none', got {auto_offset_reset!r}"
        )
    return _STRATEGIES[auto_offset_reset]


class TopicPartitionState:
    """Fetch state of one assigned partition.

    Attributes:
        position: next offset to return to the user (None = unknown).
        reset_timestamp: pending reset (-2 earliest, -1 latest) or None.
        high_watermark: last high watermark from a fetch (-1 unknown).
        backoff_until_ms: no fetch before this time (after an error), monotonic ms.
        paused: neither fetched nor returned until resumed (``Consumer.pause``, or while a
            rebalance takes the partition away).
    """

    __slots__ = ("position", "reset_timestamp", "high_watermark", "backoff_until_ms", "paused")

    def __init__(self) -> None:
        self.position: int | None = None
        self.reset_timestamp: int | None = None
        self.high_watermark = -1
        self.backoff_until_ms = 0.0
        self.paused = False


class SubscriptionState:
    """Assignment and positions of one consumer.

    Args:
        auto_offset_reset: ``"earliest"``, ``"latest"`` or ``"none"``.
        clock: monotonic clock in seconds.

    ``version`` increases on every assignment change or seek, so a fetch started
    before it can be recognised as stale.
    """

    def __init__(
        self, auto_offset_reset: str = "latest", clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.default_reset_timestamp = parse_offset_reset(auto_offset_reset)
        self._clock = clock
        self._assignment: dict[TopicPartition, TopicPartitionState] = {}
        self.version = 0

    def now_ms(self) -> float:
        return self._clock() * 1000.0

    # --- assignment ------------------------------------------------------------------------

    def assign(self, partitions: Iterable[TopicPartition]) -> None:
        """Replace the assignment; partitions kept keep their positions.

        Raises:
            TypeError: an element is not a TopicPartition.
        """
        new: dict[TopicPartition, TopicPartitionState] = {}
        for tp in partitions:
            if not isinstance(tp, TopicPartition):
                raise TypeError(f"assign() takes TopicPartition objects, got {type(tp).__name__}")
            new[tp] = self._assignment.get(tp) or TopicPartitionState()
        self._assignment = new
        self.version += 1

    def assignment(self) -> set[TopicPartition]:
        return set(self._assignment)

    def is_assigned(self, tp: TopicPartition) -> bool:
        return tp in self._assignment

    def assigned_state(self, tp: TopicPartition) -> TopicPartitionState | None:
        """The state of ``tp``, or None when it is not assigned (a new assignment gives new
        states only to partitions it adds)."""
        return self._assignment.get(tp)

    def state(self, tp: TopicPartition) -> TopicPartitionState:
        """The state of an assigned partition.

        Raises:
            IllegalStateError: ``tp`` is not assigned.
        """
        state = self._assignment.get(tp)
        if state is None:
            raise IllegalStateError(f"No current assignment for partition {tp}")
        return state

    # --- positions --------------------------------------------------------------------------

    def seek(self, tp: TopicPartition, offset: int) -> None:
        """Set the next fetch position of ``tp`` and cancel any pending reset.

        Raises:
            IllegalStateError: ``tp`` is not assigned.
            ValueError: negative or non-integer offset.
        """
        if type(offset) is not int or offset < 0:
            raise ValueError(f"offset must be a non-negative int, got {offset!r}")
        state = self.state(tp)
        state.position = offset
        state.reset_timestamp = None
        state.backoff_until_ms = 0.0
        self.version += 1

    def advance(self, tp: TopicPartition, next_offset: int) -> None:
        """Move the position after records were handed to the user (no version bump)."""
        self._assignment[tp].position = next_offset

    def position(self, tp: TopicPartition) -> int | None:
        """The next offset to return for ``tp`` (None while unknown or a reset is pending)."""
        state = self.state(tp)
        return None if state.reset_timestamp is not None else state.position

    def request_reset(self, tp: TopicPartition, timestamp: int) -> None:
        """Schedule a reset of ``tp`` to the earliest (-2) or latest (-1) offset."""
        state = self.state(tp)
        state.reset_timestamp = timestamp
        state.backoff_until_ms = 0.0
        self.version += 1

    def reset_timestamp(self, tp: TopicPartition) -> int | None:
        """The ListOffsets timestamp ``tp`` must be reset with, or None if its position is valid.

        Raises:
            IllegalStateError: the position is unknown and ``auto_offset_reset`` is "none".
        """
        state = self.state(tp)
        if state.reset_timestamp is not None:
            return state.reset_timestamp
        if state.position is not None:
            return None
        if self.default_reset_timestamp is None:
            raise IllegalStateError(
                f"No offset for partition {tp} and auto_offset_reset='none'; seek() first"
            )
        return self.default_reset_timestamp

    def partitions_needing_reset(self) -> dict[TopicPartition, int]:
        """``{tp: timestamp}`` of partitions whose position must come from ListOffsets.

        Partitions with an unknown position under ``auto_offset_reset="none"`` are left
        out (``reset_timestamp`` raises for them when the user asks).
        """
        now = self.now_ms()
        out: dict[TopicPartition, int] = {}
        for tp, state in self._assignment.items():
            if state.backoff_until_ms > now:
                continue
            if state.reset_timestamp is not None:
                out[tp] = state.reset_timestamp
            elif state.position is None and self.default_reset_timestamp is not None:
                out[tp] = self.default_reset_timestamp
        return out

    def complete_reset(self, tp: TopicPartition, timestamp: int, offset: int) -> bool:
        """Apply a ListOffsets answer if ``tp`` still waits for that reset.

        Returns:
            True when applied.
        """
        state = self._assignment.get(tp)
        if state is None:
            return False
        pending = state.reset_timestamp
        if pending is None and state.position is None:
            pending = self.default_reset_timestamp
        if pending != timestamp:
            return False
        state.position = offset
        state.reset_timestamp = None
        self.version += 1
        return True

    def fetchable_partitions(self) -> list[TopicPartition]:
        """Assigned partitions, not paused, with a valid position and no active backoff."""
        now = self.now_ms()
        return [
            tp
            for tp, state in self._assignment.items()
            if state.position is not None
            and state.reset_timestamp is None
            and state.backoff_until_ms <= now
            and not state.paused
        ]

    def pause(self, partitions: Iterable[TopicPartition]) -> None:
        """Stop fetching and returning records of assigned ``partitions`` (others are ignored)."""
        for tp in partitions:
            if tp in self._assignment:
                self._assignment[tp].paused = True

    def resume(self, partitions: Iterable[TopicPartition]) -> None:
        """Fetch and return records of ``partitions`` again."""
        for tp in partitions:
            if tp in self._assignment:
                self._assignment[tp].paused = False

    def paused(self) -> set[TopicPartition]:
        """The paused assigned partitions."""
        return {tp for tp, state in self._assignment.items() if state.paused}

    def is_paused(self, tp: TopicPartition) -> bool:
        state = self._assignment.get(tp)
        return state is not None and state.paused

    def backoff(self, tp: TopicPartition, backoff_ms: float) -> None:
        """Do not fetch or reset ``tp`` for ``backoff_ms`` after an error."""
        state = self._assignment.get(tp)
        if state is not None:
            state.backoff_until_ms = self.now_ms() + backoff_ms

    def next_backoff_expiry_ms(self) -> float:
        """ms until the earliest active per-partition backoff ends (inf if none)."""
        now = self.now_ms()
        waits = [s.backoff_until_ms - now for s in self._assignment.values() if s.backoff_until_ms > now]
        return min(waits) if waits else float("inf")
