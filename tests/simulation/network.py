"""The simulated network of the quorum simulation: one seeded queue of messages in flight.

Owns: ``Faults`` (the probabilities of the safety phase), ``Envelope`` (a message with its
endpoints and their incarnations) and ``SimulatedNetwork``: delivery after a random
delay (so messages overtake each other), drops, duplicates, links cut between two nodes
or around one node, and healing.  A connection lives as long as both ends' processes:
a message whose sender or receiver restarted since it was sent is not delivered, as a
reset TCP connection loses what was in flight (so an answer never reaches a later
incarnation of the node that asked).  Does not own the nodes, the clock or randomness:
both are passed in.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

DEFAULT_DELAY_MS = 20  # the largest delay of a fault-free network (ms)


@dataclass
class Faults:
    """Probabilities per message (drop, duplicate) or per 10 ms step (the rest) of the safety phase.

    ``max_delay_ms`` bounds a message's delay; ``crash`` is per live node, ``restart`` per
    crashed node; ``partition`` cuts one link, ``isolate`` every link of one node; ``heal``
    restores every link.
    """

    drop: float = 0.05
    duplicate: float = 0.03
    max_delay_ms: int = 60
    crash: float = 0.004
    restart: float = 0.05
    partition: float = 0.01
    isolate: float = 0.003
    heal: float = 0.05

    @classmethod
    def swarm(cls, rng: random.Random) -> Faults:
        """Probabilities drawn at random for one seed (swarm testing: some seeds lose many
        messages, some crash often, some keep nodes cut off for long), so that the seeds
        together reach more kinds of runs than one fixed mix would."""
        return cls(
            drop=rng.uniform(0, 0.2),
            duplicate=rng.uniform(0, 0.1),
            max_delay_ms=rng.randint(5, 200),
            crash=rng.uniform(0, 0.01),
            restart=rng.uniform(0.005, 0.1),
            partition=rng.uniform(0, 0.03),
            isolate=rng.uniform(0, 0.01),
            heal=rng.uniform(0.005, 0.1),
        )


@dataclass(order=True)
class Envelope:
    """A message in flight, ordered by delivery time then send order."""

    deliver_at_ms: int
    seq: int
    source: int = field(compare=False)
    source_incarnation: int = field(compare=False)
    destination: int = field(compare=False)
    destination_incarnation: int = field(compare=False)
    message: Any = field(compare=False)


class SimulatedNetwork:
    """Messages between ``node_ids``, delayed, dropped and duplicated by ``rng``.

    Args:
        rng: the simulation's one source of randomness.
        node_ids: every node.
    """

    def __init__(self, rng: random.Random, node_ids: list[int]) -> None:
        self._rng = rng
        self._node_ids = sorted(node_ids)
        self._queue: list[Envelope] = []
        self._seq = 0
        self._cut: set[frozenset[int]] = set()

    def connected(self, a: int, b: int) -> bool:
        return frozenset((a, b)) not in self._cut

    def send(
        self,
        now_ms: int,
        source: tuple[int, int],
        destination: tuple[int, int],
        message: Any,
        faults: Faults | None,
    ) -> None:
        """Queue ``message`` from ``source`` to ``destination`` ((node id, incarnation) each).

        A cut link loses it; with ``faults`` it may be dropped or duplicated, and each copy is
        delayed by 1 to ``faults.max_delay_ms`` ms (``DEFAULT_DELAY_MS`` without faults).
        """
        if not self.connected(source[0], destination[0]):
            return
        copies = 1
        if faults is not None:
            if self._rng.random() < faults.drop:
                return
            if self._rng.random() < faults.duplicate:
                copies = 2
        for _ in range(copies):
            delay = self._rng.randint(1, faults.max_delay_ms if faults else DEFAULT_DELAY_MS)
            self._seq += 1
            envelope = Envelope(now_ms + delay, self._seq, *source, *destination, message)
            heapq.heappush(self._queue, envelope)

    def due(self, now_ms: int) -> Iterator[Envelope]:
        """Take out, in delivery order, every message due by ``now_ms`` whose link is not cut."""
        while self._queue and self._queue[0].deliver_at_ms <= now_ms:
            envelope = heapq.heappop(self._queue)
            if self.connected(envelope.source, envelope.destination):
                yield envelope

    def inject(self, faults: Faults) -> list[str]:
        """Cut, isolate or heal at random per ``faults``.

        Returns:
            What changed, for the trace.
        """
        events = []
        if self._rng.random() < faults.partition:
            a, b = self._rng.sample(self._node_ids, 2)
            self._cut.add(frozenset((a, b)))
            events.append(f"cut {a}-{b}")
        if self._rng.random() < faults.isolate:
            node = self._rng.choice(self._node_ids)
            self._cut |= {frozenset((node, other)) for other in self._node_ids if other != node}
            events.append(f"isolate {node}")
        if self._cut and self._rng.random() < faults.heal:
            self._cut.clear()
            events.append("heal")
        return events

    def heal(self) -> None:
        """Restore every link."""
        self._cut.clear()
