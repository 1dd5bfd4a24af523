"""The transaction coordinator's request logic, as pure functions over ``TransactionStateManager``:
each returns the error to answer or the transition to write, and does no I/O.

Owns: the checks and state moves of InitProducerId with a ``transactional.id``,
AddPartitionsToTxn (and AddOffsetsToTxn, which adds the group's ``__consumer_offsets`` partition;
and v4+'s ``verify_only`` check a partition leader makes, KIP-890),
EndTxn (transactions V1 and KIP-890's V2, where every EndTxn bumps the epoch and a retry is
recognised by the bumped epoch) and DescribeTransactions, with Kafka's error answers:
INVALID_REQUEST (an empty transactional id), INVALID_TRANSACTION_TIMEOUT, NOT_COORDINATOR and
COORDINATOR_LOAD_IN_PROGRESS (from the lookup), INVALID_PRODUCER_ID_MAPPING (unknown id, or another
producer id), PRODUCER_FENCED (an older epoch), CONCURRENT_TRANSACTIONS (a transition pending, or
markers being written), INVALID_TXN_STATE (commit after abort and the like),
TRANSACTIONAL_ID_NOT_FOUND (DescribeTransactions of an unknown or expiring id).
Does not own: writing the returned ``TxnTransitMetadata`` to ``__transaction_state`` and calling
``TransactionMetadata.complete_transition_to`` once written, sending the markers, nor the
producer id blocks (``generate_producer_id`` is handed in).

Kafka concept: ``kafka.coordinator.transaction.TransactionCoordinator`` (``handleInitProducerId``,
``prepareInitProducerIdTransit``, ``handleAddPartitionsToTransaction``,
``handleVerifyPartitionsInTransaction``, ``endTransaction``,
``endTransactionWithTV1``, ``handleDescribeTransactions``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from kafkette.broker.transaction.transaction_metadata import (
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    SHORT_MAX,
    IllegalTransactionStateError,
    TransactionMetadata,
    TxnTransitMetadata,
    is_epoch_exhausted,
)
from kafkette.broker.transaction.transaction_state import TransactionState, TransactionVersion
from kafkette.broker.transaction.transaction_state_manager import (
    CoordinatorEpochAndTxnMetadata,
    TransactionStateManager,
)
from kafkette.protocol.apis.transactions import DescribeTransactionsState, DescribeTransactionsTopicData
from kafkette.protocol.errors import Errors, KafkaError, error_code_for
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)

S = TransactionState


@dataclass(frozen=True)
class CoordinatorResult:
    """What a request comes to: an error to answer now, or a transition to write first.

    Attributes:
        error: NONE when ``transit`` is to be written (or nothing is to be done), else the answer.
        coordinator_epoch: the partition's epoch the transition is written at (None: no write).
        transit: the prepared transition (its metadata now has a pending state), or None;
            a PREPARE_EPOCH_FENCE transit is not written (see ``handle_init_producer_id``).
        producer_id / producer_epoch: what to answer with NONE and no write (EndTxn V2 retries),
            else -1.
    """

    error: Errors
    coordinator_epoch: int | None = None
    transit: TxnTransitMetadata | None = None
    producer_id: int = NO_PRODUCER_ID
    producer_epoch: int = NO_PRODUCER_EPOCH

    @property
    def writes(self) -> bool:
        """Whether ``transit`` must be written before answering."""
        return self.transit is not None


def _error(error: Errors) -> CoordinatorResult:
    return CoordinatorResult(error)


def _write(coordinator_epoch: int, transit: TxnTransitMetadata) -> CoordinatorResult:
    return CoordinatorResult(Errors.NONE, coordinator_epoch, transit)


def _illegal_state(transactional_id: str, state: TransactionState) -> IllegalTransactionStateError:
    message = (
        f"Found transactionalId {transactional_id} with state {state.name}. "
        "This is illegal as we should never have transitioned to this state."
    )
    logger.error(message)
    return IllegalTransactionStateError(message)


def _invalid_state_transition(
    transactional_id: str, state: TransactionState, committed: bool
) -> CoordinatorResult:
    logger.warning(
        "TransactionalId: %s's state is %s, but received transaction marker result to send: %s",
        transactional_id,
        state.state_name,
        "COMMIT" if committed else "ABORT",
    )
    return _error(Errors.INVALID_TXN_STATE)


def _existing(
    manager: TransactionStateManager, transactional_id: str
) -> CoordinatorEpochAndTxnMetadata | CoordinatorResult:
    """The metadata of a transactional id a producer already initialised, or the error to answer:
    INVALID_REQUEST (empty id), the lookup's, or INVALID_PRODUCER_ID_MAPPING (unknown id)."""
    if not transactional_id:
        return _error(Errors.INVALID_REQUEST)
    found = manager.get_transaction_state(transactional_id)
    if isinstance(found, Errors):
        return _error(found)
    if found is None:
        return _error(Errors.INVALID_PRODUCER_ID_MAPPING)
    return found


def handle_init_producer_id(
    manager: TransactionStateManager,
    transactional_id: str,
    transaction_timeout_ms: int,
    expected_producer_id_and_epoch: tuple[int, int] | None,
    generate_producer_id: Callable[[], int],
    now_ms: int,
) -> CoordinatorResult:
    """InitProducerId of a transactional producer.

    Args:
        manager: the coordinator's state.
        transactional_id: the request's ``transactional_id`` (not None: an idempotent producer's
            request goes to the producer id manager alone).
        transaction_timeout_ms: the request's timeout, ms.
        expected_producer_id_and_epoch: v3+'s ``(producer_id, producer_epoch)`` when not -1: a
            producer recovering keeps its id if it is still its own.
        generate_producer_id: the next producer id (raises a ``KafkaError`` when none can be had).
        now_ms: now, ms since the epoch.

    Returns:
        An error, or the transition to write: EMPTY with the bumped epoch (or a new producer id
        when the epoch is exhausted), answered with its producer id and epoch once written.  For
        an ONGOING transaction the transit is PREPARE_EPOCH_FENCE, which is never written: the
        caller aborts the transaction with ``handle_end_transaction(..., producer_id,
        transit.producer_epoch, committed=False, <the cluster's transaction.version>,
        is_from_client=False)``, writes that, and answers CONCURRENT_TRANSACTIONS (or the abort's
        error), so the producer retries and gets the next epoch.

    Raises:
        IllegalTransactionStateError: the id is DEAD or PREPARE_EPOCH_FENCE with no pending state.
    """
    if not transactional_id:
        return _error(Errors.INVALID_REQUEST)
    if not manager.validate_transaction_timeout_ms(transaction_timeout_ms):
        return _error(Errors.INVALID_TRANSACTION_TIMEOUT)
    found = manager.get_transaction_state(transactional_id)
    if found is None:
        try:
            created = TransactionMetadata(
                transactional_id,
                generate_producer_id(),
                NO_PRODUCER_ID,
                NO_PRODUCER_ID,
                NO_PRODUCER_EPOCH,
                NO_PRODUCER_EPOCH,
                transaction_timeout_ms,
                S.EMPTY,
                (),
                -1,
                now_ms,
                TransactionVersion.TV_0,
            )
        except KafkaError as exc:
            return _error(error_code_for(exc))
        found = manager.get_transaction_state(transactional_id, created)
    if isinstance(found, Errors) or found is None:
        return _error(found if isinstance(found, Errors) else Errors.UNKNOWN_SERVER_ERROR)
    md = found.transaction_metadata
    if md.pending_transition_in_progress:
        return _error(Errors.CONCURRENT_TRANSACTIONS)
    if expected_producer_id_and_epoch is not None:
        expected_id, expected_epoch = expected_producer_id_and_epoch
        valid = (
            md.producer_epoch == NO_PRODUCER_EPOCH
            or expected_id == md.producer_id
            or (expected_id == md.prev_producer_id and is_epoch_exhausted(expected_epoch))
        )
        if not valid:
            return _error(Errors.PRODUCER_FENCED)
    if md.state in (S.PREPARE_ABORT, S.PREPARE_COMMIT):
        return _error(Errors.CONCURRENT_TRANSACTIONS)
    if md.state in (S.COMPLETE_ABORT, S.COMPLETE_COMMIT, S.EMPTY):
        try:
            if md.is_producer_epoch_exhausted and (
                expected_producer_id_and_epoch is None
                or expected_producer_id_and_epoch[1] == md.producer_epoch
            ):
                transit = md.prepare_producer_id_rotation(
                    generate_producer_id(),
                    transaction_timeout_ms,
                    now_ms,
                    expected_producer_id_and_epoch is not None,
                )
            else:
                expected_epoch = (
                    None if expected_producer_id_and_epoch is None else expected_producer_id_and_epoch[1]
                )
                transit = md.prepare_increment_producer_epoch(transaction_timeout_ms, expected_epoch, now_ms)
        except KafkaError as exc:
            return _error(error_code_for(exc))
        return _write(found.coordinator_epoch, transit)
    if md.state is S.ONGOING:
        return _write(found.coordinator_epoch, md.prepare_fence_producer_epoch())
    raise _illegal_state(transactional_id, md.state)


def handle_add_partitions_to_transaction(
    manager: TransactionStateManager,
    transactional_id: str,
    producer_id: int,
    producer_epoch: int,
    partitions: Iterable[TopicPartition],
    client_transaction_version: TransactionVersion,
    now_ms: int,
) -> CoordinatorResult:
    """AddPartitionsToTxn (and AddOffsetsToTxn, with the group's ``__consumer_offsets`` partition).

    Returns:
        An error (NONE with no write when every partition is already in the ONGOING
        transaction), or the ONGOING transition to write.
    """
    found = _existing(manager, transactional_id)
    if isinstance(found, CoordinatorResult):
        return found
    md = found.transaction_metadata
    added = set(partitions)
    if md.pending_transition_in_progress:
        return _error(Errors.CONCURRENT_TRANSACTIONS)
    if md.producer_id != producer_id:
        return _error(Errors.INVALID_PRODUCER_ID_MAPPING)
    if md.producer_epoch != producer_epoch:
        return _error(Errors.PRODUCER_FENCED)
    if md.state in (S.PREPARE_COMMIT, S.PREPARE_ABORT):
        return _error(Errors.CONCURRENT_TRANSACTIONS)
    if md.state is S.ONGOING and added <= md.topic_partitions:
        return _error(Errors.NONE)
    return _write(
        found.coordinator_epoch, md.prepare_add_partitions(added, now_ms, client_transaction_version)
    )


def handle_verify_partitions_in_transaction(
    manager: TransactionStateManager,
    transactional_id: str,
    producer_id: int,
    producer_epoch: int,
    partitions: Iterable[TopicPartition],
) -> dict[TopicPartition, Errors]:
    """AddPartitionsToTxn v4+ with ``verify_only`` (KIP-890): whether each partition is in the
    producer's transaction, for a partition leader about to append a transactional batch.

    Returns:
        Per partition: NONE (in the transaction), TRANSACTION_ABORTABLE (not in it), or the
        request's error for all (INVALID_REQUEST, the lookup's, INVALID_PRODUCER_ID_MAPPING,
        PRODUCER_FENCED, CONCURRENT_TRANSACTIONS while the markers are written).
    """
    asked = list(dict.fromkeys(partitions))
    found = _existing(manager, transactional_id)
    if isinstance(found, CoordinatorResult):
        return dict.fromkeys(asked, found.error)
    md = found.transaction_metadata
    if md.producer_id != producer_id:
        error = Errors.INVALID_PRODUCER_ID_MAPPING
    elif md.producer_epoch != producer_epoch:
        error = Errors.PRODUCER_FENCED
    elif md.state in (S.PREPARE_COMMIT, S.PREPARE_ABORT):
        error = Errors.CONCURRENT_TRANSACTIONS
    else:
        return {
            tp: Errors.NONE if tp in md.topic_partitions else Errors.TRANSACTION_ABORTABLE for tp in asked
        }
    return dict.fromkeys(asked, error)


def handle_end_transaction(
    manager: TransactionStateManager,
    transactional_id: str,
    producer_id: int,
    producer_epoch: int,
    committed: bool,
    client_transaction_version: TransactionVersion,
    generate_producer_id: Callable[[], int],
    now_ms: int,
    is_from_client: bool = True,
) -> CoordinatorResult:
    """EndTxn: commit or abort the producer's transaction (``is_from_client`` False: the
    coordinator aborting a timed-out or fenced transaction itself).

    Returns:
        An error; NONE with no write for a retry of an EndTxn already done (V2 answers it with
        the current producer id and epoch); or the PREPARE_COMMIT/PREPARE_ABORT transition to write,
        after which the markers are sent and ``prepare_complete`` follows.

    Raises:
        IllegalTransactionStateError: the id is DEAD or PREPARE_EPOCH_FENCE with no pending state.
    """
    found = _existing(manager, transactional_id)
    if isinstance(found, CoordinatorResult):
        return found
    epoch, md = found.coordinator_epoch, found.transaction_metadata
    if client_transaction_version.supports_epoch_bump:
        return _end_transaction_v2(
            epoch, md, producer_id, producer_epoch, committed, client_transaction_version,
            generate_producer_id, now_ms, is_from_client,
        )  # fmt: skip
    return _end_transaction_v1(epoch, md, producer_id, producer_epoch, committed, now_ms, is_from_client)


def _end_transaction_v1(
    coordinator_epoch: int,
    md: TransactionMetadata,
    producer_id: int,
    producer_epoch: int,
    committed: bool,
    now_ms: int,
    is_from_client: bool,
) -> CoordinatorResult:
    if md.producer_id != producer_id:
        return _error(Errors.INVALID_PRODUCER_ID_MAPPING)
    if (is_from_client and producer_epoch != md.producer_epoch) or producer_epoch < md.producer_epoch:
        return _error(Errors.PRODUCER_FENCED)
    if md.pending_state is not None and md.pending_state is not S.PREPARE_EPOCH_FENCE:
        return _error(Errors.CONCURRENT_TRANSACTIONS)
    if md.state is S.ONGOING:
        next_state = S.PREPARE_COMMIT if committed else S.PREPARE_ABORT
        if next_state is S.PREPARE_ABORT and md.pending_state is S.PREPARE_EPOCH_FENCE:
            md.pending_state = None
            md.producer_epoch = producer_epoch
            md.last_producer_epoch = NO_PRODUCER_EPOCH
        transit = md.prepare_abort_or_commit(
            next_state, TransactionVersion.TV_0, NO_PRODUCER_ID, now_ms, False
        )
        return _write(coordinator_epoch, transit)
    same_result = (md.state is S.COMPLETE_COMMIT) == committed
    if md.state in (S.COMPLETE_COMMIT, S.COMPLETE_ABORT) and same_result:
        return _error(Errors.NONE)
    if md.state in (S.PREPARE_COMMIT, S.PREPARE_ABORT) and (md.state is S.PREPARE_COMMIT) == committed:
        return _error(Errors.CONCURRENT_TRANSACTIONS)
    if md.state in (S.DEAD, S.PREPARE_EPOCH_FENCE):
        raise _illegal_state(md.transactional_id, md.state)
    return _invalid_state_transition(md.transactional_id, md.state, committed)


def _end_transaction_v2(
    coordinator_epoch: int,
    md: TransactionMetadata,
    producer_id: int,
    producer_epoch: int,
    committed: bool,
    client_transaction_version: TransactionVersion,
    generate_producer_id: Callable[[], int],
    now_ms: int,
    is_from_client: bool,
) -> CoordinatorResult:
    is_epoch_fence = md.pending_state is S.PREPARE_EPOCH_FENCE
    retry_on_overflow = (
        not is_epoch_fence
        and md.prev_producer_id == producer_id
        and producer_epoch == SHORT_MAX - 1
        and md.producer_epoch == 0
    )
    retry_on_epoch_bump = not is_epoch_fence and md.producer_epoch == producer_epoch + 1
    if is_epoch_fence:
        valid_epoch = (
            not is_from_client or producer_epoch == md.producer_epoch
        ) and producer_epoch >= md.producer_epoch
    elif md.state in (S.ONGOING, S.EMPTY, S.DEAD, S.PREPARE_EPOCH_FENCE):
        valid_epoch = producer_epoch == md.producer_epoch
    elif md.state in (S.PREPARE_COMMIT, S.PREPARE_ABORT):
        valid_epoch = retry_on_epoch_bump
    else:
        valid_epoch = retry_on_epoch_bump or retry_on_overflow or producer_epoch == md.producer_epoch
    is_retry = retry_on_epoch_bump or retry_on_overflow

    def complete(next_state: TransactionState, no_partition_added: bool) -> CoordinatorResult:
        try:
            next_producer_id = generate_producer_id() if md.is_producer_epoch_exhausted else NO_PRODUCER_ID
        except KafkaError as exc:
            return _error(error_code_for(exc))
        if next_state is S.PREPARE_ABORT and is_epoch_fence:
            md.pending_state = None
        transit = md.prepare_abort_or_commit(
            next_state, client_transaction_version, next_producer_id, now_ms, no_partition_added
        )
        return _write(coordinator_epoch, transit)

    def done() -> CoordinatorResult:
        return CoordinatorResult(Errors.NONE, producer_id=md.producer_id, producer_epoch=md.producer_epoch)

    if md.pending_state is not None and not is_epoch_fence:
        return _error(Errors.CONCURRENT_TRANSACTIONS)
    if md.producer_id != producer_id and not retry_on_overflow:
        return _error(Errors.INVALID_PRODUCER_ID_MAPPING)
    if not valid_epoch:
        return _error(Errors.PRODUCER_FENCED)
    state = md.state
    if state is S.ONGOING:
        return complete(S.PREPARE_COMMIT if committed else S.PREPARE_ABORT, False)
    if state is S.COMPLETE_COMMIT:
        if committed:
            return done() if is_retry else _invalid_state_transition(md.transactional_id, state, committed)
        if is_retry:
            return _invalid_state_transition(md.transactional_id, state, committed)
        return complete(S.PREPARE_ABORT, True)
    if state is S.COMPLETE_ABORT:
        if not committed:
            return done() if is_retry else complete(S.PREPARE_ABORT, True)
        return _invalid_state_transition(md.transactional_id, state, committed)
    if state in (S.PREPARE_COMMIT, S.PREPARE_ABORT):
        if (state is S.PREPARE_COMMIT) == committed:
            return _error(Errors.CONCURRENT_TRANSACTIONS)
        return _invalid_state_transition(md.transactional_id, state, committed)
    if state is S.EMPTY:
        if not committed:
            return complete(S.PREPARE_ABORT, True)
        return _invalid_state_transition(md.transactional_id, state, committed)
    raise _illegal_state(md.transactional_id, state)


def handle_describe_transactions(
    manager: TransactionStateManager, transactional_id: str
) -> DescribeTransactionsState:
    """DescribeTransactions' answer for one transactional id (its partitions grouped by topic).

    Errors: INVALID_REQUEST (empty id), NOT_COORDINATOR / COORDINATOR_LOAD_IN_PROGRESS,
    TRANSACTIONAL_ID_NOT_FOUND (unknown, or DEAD: being expired).
    """
    answer = DescribeTransactionsState(transactional_id=transactional_id, transaction_state="")
    if not transactional_id:
        answer.error_code = Errors.INVALID_REQUEST
        return answer
    found = manager.get_transaction_state(transactional_id)
    if isinstance(found, Errors):
        answer.error_code = found
        return answer
    if found is None or found.transaction_metadata.state is S.DEAD:
        answer.error_code = Errors.TRANSACTIONAL_ID_NOT_FOUND
        return answer
    md = found.transaction_metadata
    topics: dict[str, list[int]] = {}
    for tp in sorted(md.topic_partitions):
        topics.setdefault(tp.topic, []).append(tp.partition)
    answer.error_code = Errors.NONE
    answer.producer_id = md.producer_id
    answer.producer_epoch = md.producer_epoch
    answer.transaction_state = md.state.state_name
    answer.transaction_timeout_ms = md.txn_timeout_ms
    answer.transaction_start_time_ms = md.txn_start_timestamp
    answer.topics = [DescribeTransactionsTopicData(topic=t, partitions=p) for t, p in topics.items()]
    return answer
