"""The transactions ``kafkette produce --transactional-id`` wraps its input in.

Owns: ``ConsoleTransaction``: begins a transaction before the first record, commits it every
``transaction_size`` records and at the end of input, aborts it when the command fails; does nothing
for a producer without a ``transactional_id``.  Does not own reading input or sending.

Kafka concept: the console producer's transactional mode (``--transactional-id``,
``kafka-console-producer.sh``; KIP-98 ``beginTransaction`` / ``commitTransaction``).
"""

from __future__ import annotations

import logging

from kafkette.client.producer import Producer
from kafkette.protocol.errors import KafkaError

logger = logging.getLogger(__name__)


class ConsoleTransaction:
    """The open transaction of a console producer.

    Args:
        producer: the started producer (transactional when its ``transactional_id`` is set).
        transaction_size: records per transaction (None: one transaction for the whole input).
    """

    def __init__(self, producer: Producer, transaction_size: int | None) -> None:
        self._producer = producer
        self._enabled = producer.transactional_id is not None
        self._size = transaction_size
        self._open = False
        self._records = 0

    async def before_send(self) -> None:
        """Begin a transaction unless one is open."""
        if self._enabled and not self._open:
            self._producer.begin_transaction()
            self._open = True
            self._records = 0

    async def after_send(self) -> None:
        """Count the record; commit once the transaction holds ``transaction_size`` records.

        Raises:
            KafkaError: the commit failed (ProducerFencedError, a failed record, a timeout).
        """
        if not self._open:
            return
        self._records += 1
        if self._size is not None and self._records >= self._size:
            await self.commit()

    async def commit(self) -> None:
        """Commit the open transaction, if any."""
        if self._open:
            await self._producer.commit_transaction()  # a failed commit stays open, to be aborted
            self._open = False

    async def abort(self) -> None:
        """Abort the open transaction, if any."""
        if self._open:
            self._open = False
            await self._producer.abort_transaction()

    async def abort_after_error(self) -> None:
        """After the command failed (a bad input line, a failed record or commit): abort the open
        transaction if the producer still can, so read_committed consumers are not held at its first
        offset until ``transaction.timeout.ms``; a failing abort is logged (a fenced producer's
        transaction is the newer producer's to end)."""
        try:
            await self.abort()
        except KafkaError as exc:
            logger.warning("Could not abort the open transaction: %s", exc)
