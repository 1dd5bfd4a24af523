"""The states of a transaction at its coordinator, and the ``transaction.version`` feature.

Owns: ``TransactionState`` (Kafka's eight states, their ids in ``__transaction_state``, their names
in DescribeTransactions and ListTransactions, which states may precede each, and in which a
transactional id may expire) and ``TransactionVersion`` (the feature levels of KIP-890: 0 the
original protocol, 1 flexible ``TransactionLogValue`` records, 2 an epoch bump on every EndTxn).
Does not own the transitions themselves (``transaction_metadata``).

State transitions (the valid previous states of each)::

    Empty              <- Empty, CompleteCommit, CompleteAbort           (InitProducerId)
    Ongoing            <- Ongoing, Empty, CompleteCommit, CompleteAbort  (AddPartitions/AddOffsets)
    PrepareCommit      <- Ongoing                                        (EndTxn commit)
    PrepareAbort       <- Ongoing, PrepareEpochFence, Empty, CompleteCommit, CompleteAbort
                          (EndTxn abort, a timed-out transaction; the last three only with v2)
    CompleteCommit     <- PrepareCommit                                  (markers written)
    CompleteAbort      <- PrepareAbort                                   (markers written)
    Dead               <- Empty, CompleteAbort, CompleteCommit           (transactional id expired)
    PrepareEpochFence  <- Ongoing                                        (fencing a producer)

Kafka concept: ``org.apache.kafka.coordinator.transaction.TransactionState``,
``org.apache.kafka.server.common.TransactionVersion``.
"""

from __future__ import annotations

from enum import Enum, IntEnum


class TransactionState(Enum):
    """A transaction's state: ``value`` is its id (the ``TransactionStatus`` int8 of a
    ``TransactionLogValue``); ``state_name`` its name on the wire; ``expiration_allowed`` whether
    its transactional id may expire in it."""

    EMPTY = (0, "Empty", True)
    ONGOING = (1, "Ongoing", False)
    PREPARE_COMMIT = (2, "PrepareCommit", False)
    PREPARE_ABORT = (3, "PrepareAbort", False)
    COMPLETE_COMMIT = (4, "CompleteCommit", True)
    COMPLETE_ABORT = (5, "CompleteAbort", True)
    DEAD = (6, "Dead", False)
    PREPARE_EPOCH_FENCE = (7, "PrepareEpochFence", False)

    def __init__(self, state_id: int, state_name: str, expiration_allowed: bool) -> None:
        self.id = state_id
        self.state_name = state_name
        self.expiration_allowed = expiration_allowed

    @property
    def valid_previous_states(self) -> frozenset[TransactionState]:
        """The states from which a transition into this one is valid."""
        return _VALID_PREVIOUS_STATES[self]

    @classmethod
    def from_id(cls, state_id: int) -> TransactionState:
        """The state of a ``TransactionStatus`` id.

        Raises:
            ValueError: an id of no state (Kafka: ``IllegalStateException``).
        """
        state = _BY_ID.get(state_id)
        if state is None:
            raise ValueError(f"Unknown transaction state id {state_id} from the transaction status message")
        return state

    @classmethod
    def from_name(cls, name: str) -> TransactionState | None:
        """The state named ``name`` (``Ongoing``), or None (ListTransactions' unknown state filters)."""
        return _BY_NAME.get(name)


_S = TransactionState
_VALID_PREVIOUS_STATES: dict[TransactionState, frozenset[TransactionState]] = {
    _S.EMPTY: frozenset({_S.EMPTY, _S.COMPLETE_COMMIT, _S.COMPLETE_ABORT}),
    _S.ONGOING: frozenset({_S.ONGOING, _S.EMPTY, _S.COMPLETE_COMMIT, _S.COMPLETE_ABORT}),
    _S.PREPARE_COMMIT: frozenset({_S.ONGOING}),
    _S.PREPARE_ABORT: frozenset(
        {_S.ONGOING, _S.PREPARE_EPOCH_FENCE, _S.EMPTY, _S.COMPLETE_COMMIT, _S.COMPLETE_ABORT}
    ),
    _S.COMPLETE_COMMIT: frozenset({_S.PREPARE_COMMIT}),
    _S.COMPLETE_ABORT: frozenset({_S.PREPARE_ABORT}),
    _S.DEAD: frozenset({_S.EMPTY, _S.COMPLETE_ABORT, _S.COMPLETE_COMMIT}),
    _S.PREPARE_EPOCH_FENCE: frozenset({_S.ONGOING}),
}
_BY_ID = {s.id: s for s in TransactionState}
_BY_NAME = {s.state_name: s for s in TransactionState}


class TransactionVersion(IntEnum):
    """The ``transaction.version`` feature level a transaction's client speaks (KIP-890).

    TV_0: the original protocol; TV_1: ``TransactionLogValue`` version 1 (flexible, tagged
    fields); TV_2: the producer epoch is bumped on every EndTxn (AddPartitionsToTxn v4+ and
    EndTxn v5+ clients).
    """

    TV_0 = 0
    TV_1 = 1
    TV_2 = 2

    @property
    def transaction_log_value_version(self) -> int:
        """The ``TransactionLogValue`` version records of this level are written in."""
        return 1 if self >= TransactionVersion.TV_1 else 0

    @property
    def supports_epoch_bump(self) -> bool:
        """Whether EndTxn bumps the producer epoch (transactions V2)."""
        return self >= TransactionVersion.TV_2

    @classmethod
    def for_add_partitions_to_txn(cls, request_version: int) -> TransactionVersion:
        """The client's version as AddPartitionsToTxn's request version shows it (v4+: TV_2)."""
        return cls.TV_2 if request_version > 3 else cls.TV_0

    @classmethod
    def for_end_txn(cls, request_version: int) -> TransactionVersion:
        """The client's version as EndTxn's request version shows it (v5+: TV_2)."""
        return cls.TV_2 if request_version > 4 else cls.TV_0


TRANSACTION_VERSION_FEATURE_NAME = "transaction.version"
"""The feature's name in ApiVersions and the controller's finalized features."""
LATEST_PRODUCTION_TRANSACTION_VERSION = TransactionVersion.TV_2
"""The level a new cluster finalizes (Kafka 4.3's ``TransactionVersion.LATEST_PRODUCTION``)."""
