"""The transition-table mechanism shared by the partition and replica state machines.

Owns: ``IllegalStateTransitionError``, the ``state.change.logger`` logger, and
``StateMachine``, a map ``key -> state`` that only changes through a transition
table (``target state -> legal previous states``).  An illegal transition is logged
to ``state.change.logger`` at ERROR and raised; it is never applied.  Does not own
the states or tables themselves (``partition_state_machine.py`` and
``replica_state_machine.py`` do), nor any decision about *when* to transition (the
controller context drives transitions while replaying metadata records).

Kafka concept: the ``assertValidPreviousStates`` check and the ``stateChangeLogger``
of Kafka's ``PartitionStateMachine`` / ``ReplicaStateMachine``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Hashable, Iterable, Mapping
from enum import Enum
from typing import Generic, TypeVar

state_change_logger = logging.getLogger("state.change.logger")

K = TypeVar("K", bound=Hashable)
S = TypeVar("S", bound=Enum)


class IllegalStateTransitionError(RuntimeError):
    """A state machine was asked for a transition its table does not allow.

    Attributes:
        key: the partition or replica that was asked to move.
        current: its current state.
        target: the refused target state.
    """

    def __init__(self, key: object, current: Enum, target: Enum, message: str) -> None:
        super().__init__(message)
        self.key = key
        self.current = current
        self.target = target


class StateMachine(Generic[K, S]):
    """A set of keys, each in one state, moved only along a legal transition table.

    Invariant: every state held was reached through a transition present in
    ``valid_previous_states``; keys never seen are in ``initial_state``.

    Args:
        kind: "partition" or "replica" (used in log messages).
        initial_state: state of unknown keys (``NonExistentPartition`` / ``NonExistentReplica``).
        valid_previous_states: ``{target: frozenset(legal previous states)}``.
        log_prefix: callable returning the identity prefix, e.g. ``[Controller id=1 epoch=3]``.
    """

    def __init__(
        self,
        kind: str,
        initial_state: S,
        valid_previous_states: Mapping[S, frozenset[S]],
        log_prefix: Callable[[], str] = lambda: "",
    ) -> None:
        self._kind = kind
        self._initial_state = initial_state
        self._valid_previous_states = valid_previous_states
        self._log_prefix = log_prefix
        self._states: dict[K, S] = {}

    def state(self, key: K) -> S:
        """Current state of ``key`` (the initial state if it was never seen)."""
        return self._states.get(key, self._initial_state)

    def is_legal(self, current: S, target: S) -> bool:
        """True when the table allows ``current -> target``."""
        return current in self._valid_previous_states.get(target, frozenset())

    def check_transition(self, key: K, current: S, target: S) -> None:
        """Raise (and log to ``state.change.logger``) unless ``current -> target`` is legal.

        Raises:
            IllegalStateTransitionError: the transition is not in the table.
        """
        if self.is_legal(current, target):
            return
        message = (
            f"{self._log_prefix()} Illegal state transition for {self._kind} {_describe(key)} "
            f"from {current.name} to {target.name}; previous state must be one of "
            f"{sorted(s.name for s in self._valid_previous_states.get(target, frozenset()))}"
        )
        state_change_logger.error(message)
        raise IllegalStateTransitionError(key, current, target, message)

    def transition(self, key: K, target: S) -> None:
        """Move ``key`` to ``target`` if legal; a move to the initial state forgets the key.

        Raises:
            IllegalStateTransitionError: illegal transition (state unchanged).
        """
        current = self.state(key)
        self.check_transition(key, current, target)
        if target == self._initial_state:
            self._states.pop(key, None)
        else:
            self._states[key] = target
        state_change_logger.debug(
            "%s Changed %s %s state from %s to %s",
            self._log_prefix(),
            self._kind,
            _describe(key),
            current.name,
            target.name,
        )

    def check_transitions(self, transitions: Iterable[tuple[K, S]]) -> None:
        """Dry-run a sequence of transitions without applying any of them.

        Used before metadata records are written, so that replaying them cannot fail.

        Raises:
            IllegalStateTransitionError: the first illegal transition of the sequence.
        """
        overlay: dict[K, S] = {}
        for key, target in transitions:
            current = overlay.get(key, self.state(key))
            self.check_transition(key, current, target)
            overlay[key] = target

    def keys_in_state(self, state: S) -> list[K]:
        """Every key currently in ``state`` (not meaningful for the initial state)."""
        return [key for key, s in self._states.items() if s == state]

    def __len__(self) -> int:
        return len(self._states)


def _describe(key: object) -> str:
    if isinstance(key, tuple) and len(key) == 2 and isinstance(key[1], int) and not isinstance(key[0], str):
        return f"{key[0]} replica {key[1]}"
    return str(key)
