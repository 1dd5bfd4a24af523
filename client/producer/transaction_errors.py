"""What an error in a transactional request's answer does to the producer.

Owns: ``TxnErrorAction`` and ``txn_error_action`` (for each transactional API, an answer's error
code -> retry, find the coordinator again and retry, the abortable error state, the abortable one
if the coordinator can bump the epoch, or the fatal one) with the exception the producer keeps.
Does not own sending or the state itself (``transaction_state``).

Kafka concept: the ``handleResponse`` of ``TransactionManager``'s ``InitProducerIdHandler``,
``AddPartitionsToTxnHandler``, ``AddOffsetsToTxnHandler``, ``TxnOffsetCommitHandler`` and
``EndTxnHandler`` (KIP-98; TRANSACTION_ABORTABLE from KIP-890).
"""

from __future__ import annotations

from enum import StrEnum

from kafkette.protocol.errors import Errors, KafkaError, default_message, error_class


class TxnErrorAction(StrEnum):
    """What the producer does with an error of a transactional request's answer."""

    NONE = "none"  # success
    RETRY = "retry"  # the same request again, after retry.backoff.ms
    FIND_COORDINATOR = "find_coordinator"  # FindCoordinator again, then the same request
    ABORTABLE = "abortable"  # ABORTABLE_ERROR: the application must abort the transaction
    ABORTABLE_IF_POSSIBLE = (
        "abortable_if_possible"  # ABORTABLE_ERROR when the epoch can be bumped, else FATAL
    )
    FATAL = "fatal"  # FATAL_ERROR: only close is left


TRANSACTION_APIS = ("InitProducerId", "AddPartitionsToTxn", "AddOffsetsToTxn", "TxnOffsetCommit", "EndTxn")

_FENCED = frozenset({Errors.INVALID_PRODUCER_EPOCH, Errors.PRODUCER_FENCED})
_COORDINATOR_MOVED = frozenset({Errors.COORDINATOR_NOT_AVAILABLE, Errors.NOT_COORDINATOR})
_FATAL_AS_IS = frozenset(
    {
        Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
        Errors.INVALID_TXN_STATE,
        Errors.INVALID_PRODUCER_ID_MAPPING,
    }
)


def _exception(error: Errors, text: str | None = None) -> KafkaError:
    cls = error_class(error)
    return cls(text) if text is not None else cls()


def txn_error_action(
    api: str, error: Errors, *, aborting: bool = False
) -> tuple[TxnErrorAction, KafkaError | None]:
    """The action for ``error`` in an answer to ``api``, and the exception the producer keeps.

    Args:
        api: one of ``TRANSACTION_APIS`` (Kafka's API names).
        error: the answer's error code (for AddPartitionsToTxn and TxnOffsetCommit: one
            partition's; the caller combines them as Kafka does).
        aborting: EndTxn only: the request was an abort (a TRANSACTION_ABORTABLE answer to an abort
            is fatal, or the abort would be retried forever).

    Returns:
        ``(action, exception)``: the exception is None for NONE, RETRY and FIND_COORDINATOR; a fenced
        producer always keeps ``ProducerFencedError`` (INVALID_PRODUCER_EPOCH from an older
        coordinator means the same).

    Raises:
        ValueError: ``api`` is not a transactional API.
    """
    if api not in TRANSACTION_APIS:
        raise ValueError(f"not a transactional API: {api!r}")
    if error is Errors.NONE:
        return TxnErrorAction.NONE, None
    if error in _FENCED:
        return TxnErrorAction.FATAL, _exception(Errors.PRODUCER_FENCED)
    if api == "TxnOffsetCommit":
        return _txn_offset_commit(error)
    if error in _COORDINATOR_MOVED:
        return TxnErrorAction.FIND_COORDINATOR, None
    if error_class(error).retriable:  # CONCURRENT_TRANSACTIONS, COORDINATOR_LOAD_IN_PROGRESS, ...
        return TxnErrorAction.RETRY, None
    if api == "InitProducerId":
        if error in (Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, Errors.CLUSTER_AUTHORIZATION_FAILED):
            return TxnErrorAction.ABORTABLE, _exception(error)
        if error is Errors.TRANSACTION_ABORTABLE:
            return TxnErrorAction.ABORTABLE, _exception(error)
        return TxnErrorAction.FATAL, KafkaError(
            f"Unexpected error in InitProducerIdResponse; {_message(error)}"
        )
    if error in _FATAL_AS_IS:
        return TxnErrorAction.FATAL, _exception(error)
    if error is Errors.UNKNOWN_PRODUCER_ID:
        return TxnErrorAction.ABORTABLE_IF_POSSIBLE, _exception(error)
    if api == "EndTxn" and aborting and error is Errors.TRANSACTION_ABORTABLE:
        return TxnErrorAction.FATAL, KafkaError("Failed to abort transaction")
    if error is Errors.TRANSACTION_ABORTABLE:
        return TxnErrorAction.ABORTABLE, _exception(error)
    if api == "AddPartitionsToTxn":  # TOPIC_AUTHORIZATION_FAILED, OPERATION_NOT_ATTEMPTED, any other
        return TxnErrorAction.ABORTABLE, _exception(error)
    if api == "AddOffsetsToTxn":
        if error is Errors.GROUP_AUTHORIZATION_FAILED:
            return TxnErrorAction.ABORTABLE, _exception(error)
        return TxnErrorAction.FATAL, KafkaError(
            f"Unexpected error in AddOffsetsToTxnResponse: {_message(error)}"
        )
    return TxnErrorAction.FATAL, KafkaError(f"Unhandled error in EndTxnResponse: {_message(error)}")


def _txn_offset_commit(error: Errors) -> tuple[TxnErrorAction, KafkaError | None]:
    if error in _COORDINATOR_MOVED or error is Errors.REQUEST_TIMED_OUT:
        return TxnErrorAction.FIND_COORDINATOR, None  # the group coordinator's
    if error_class(error).retriable:
        return TxnErrorAction.RETRY, None
    if error in (Errors.GROUP_AUTHORIZATION_FAILED, Errors.FENCED_INSTANCE_ID, Errors.TRANSACTION_ABORTABLE):
        return TxnErrorAction.ABORTABLE, _exception(error)
    if error in (Errors.UNKNOWN_MEMBER_ID, Errors.ILLEGAL_GENERATION):
        return TxnErrorAction.ABORTABLE, KafkaError(
            f"Transaction offset Commit failed due to consumer group metadata mismatch: {_message(error)}"
        )
    if error is Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED:
        return TxnErrorAction.FATAL, _exception(error)
    return TxnErrorAction.FATAL, KafkaError(f"Unexpected error in TxnOffsetCommitResponse: {_message(error)}")


def _message(error: Errors) -> str:
    return default_message(error)
