"""The token a partition leader hands out when it asks the transaction coordinator whether a producer's
partition is in its transaction, and the per-producer state that holds it (KIP-890 part 1).

Owns: ``VerificationGuard`` (an identity token; ``SENTINEL`` stands for "no verification asked", and
never verifies) and ``VerificationStateEntry`` (the guard, the lowest sequence and the epoch of a
producer being verified).  A guard is dropped when the producer's transaction starts on the partition
or a marker for it lands, so a batch verified before an abort marker cannot start a transaction after
it (a hanging transaction).

Kafka concept: ``org.apache.kafka.storage.internals.log.VerificationGuard`` and
``VerificationStateEntry``.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import ClassVar

_ids = itertools.count(1)


class VerificationGuard:
    """One verification's token: equal only to itself; ``SENTINEL`` verifies nothing."""

    SENTINEL: ClassVar[VerificationGuard]
    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = next(_ids)

    def verify(self, verifying_guard: VerificationGuard | None) -> bool:
        """Whether ``verifying_guard`` (the one a Produce request holds) is this guard and not SENTINEL
        (Kafka's ``VerificationGuard.verify``)."""
        return verifying_guard is self and self is not VerificationGuard.SENTINEL

    def __repr__(self) -> str:
        return (
            "VerificationGuard(SENTINEL)"
            if self is VerificationGuard.SENTINEL
            else f"VerificationGuard({self.value})"
        )


VerificationGuard.SENTINEL = VerificationGuard()


@dataclass(slots=True)
class VerificationStateEntry:
    """A producer being verified on one partition: its guard, the lowest base sequence and the epoch
    of the batches waiting on it (Kafka's ``VerificationStateEntry``: a retry with a lower sequence or
    a newer epoch keeps the guard and updates these)."""

    verification_guard: VerificationGuard
    lowest_sequence: int
    epoch: int

    def maybe_update_lowest_sequence_and_epoch(self, sequence: int, epoch: int) -> None:
        """A newer epoch replaces the sequence; the same epoch keeps the lower one."""
        if epoch > self.epoch:
            self.epoch = epoch
            self.lowest_sequence = sequence
        elif epoch == self.epoch and sequence < self.lowest_sequence:
            self.lowest_sequence = sequence
