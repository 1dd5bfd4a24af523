"""Idempotent-producer state: the producer id, its epoch and per-partition sequences.

Owns: obtaining a producer id with InitProducerId (from any broker, retried with
backoff), the next sequence number of each partition, stamping a batch with
``(producer_id, producer_epoch, base_sequence)`` the first time it is drained (a
retry resends the same stamp, so the leader recognises and dedupes it), the end of
the sequences acknowledged per partition (an OUT_OF_ORDER_SEQUENCE_NUMBER for a batch
that is not the next one is only a batch sent behind an earlier failed one, and is
retried), and starting over with a new producer id after a batch failed for good (its
sequence range would otherwise leave a gap and every later batch would be refused;
batches still holding the old stamp are stamped again when they are next drained).
Transactional requests are ``transactional_requests``'s; here only the producer id they obtain
(``set_producer_id``) and the transactional bit of stamped batches.

Kafka concept: ``TransactionManager`` in its idempotent-only role (KIP-98).
Does not own batching or sending.
"""

from __future__ import annotations

import asyncio
import logging

from kafkette.client.kafka_client import KafkaClient
from kafkette.client.producer.producer_batch import ProducerBatch
from kafkette.protocol.apis.producer_ids import InitProducerIdRequest, InitProducerIdResponse
from kafkette.protocol.errors import KafkaError, KafkaTimeoutError, error_class
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)

NO_PRODUCER_ID = -1
MAX_SEQUENCE = 0x7FFFFFFF


class TransactionManager:
    """Producer id, epoch and sequence numbers of one idempotent producer.

    Args:
        client: for InitProducerId.
        retry_backoff_ms: pause between InitProducerId attempts (ms).
        request_timeout_ms: bound of ``ensure_producer_id`` (ms).
        client_id: for log messages.
        required: True when idempotence was asked for explicitly: a cluster that cannot
            hand out producer ids then fails the batches; False (the default-on case)
            lets the Sender carry on without idempotence.
    """

    def __init__(
        self,
        client: KafkaClient,
        *,
        retry_backoff_ms: int = 100,
        request_timeout_ms: int = 30000,
        client_id: str = "kafkette",
        required: bool = False,
    ) -> None:
        self._client = client
        self.required = required
        self._retry_backoff_ms = retry_backoff_ms
        self._request_timeout_ms = request_timeout_ms
        self._log_prefix = f"[Producer clientId={client_id}]"
        self.producer_id = NO_PRODUCER_ID
        self.producer_epoch = -1
        self.transactional = False  # set by a transactional producer: batches carry the flag
        self._sequences: dict[TopicPartition, int] = {}
        self._acked_end: dict[TopicPartition, int] = {}  # sequence after the last acknowledged batch

    @property
    def has_producer_id(self) -> bool:
        return self.producer_id != NO_PRODUCER_ID

    async def ensure_producer_id(self) -> None:
        """Obtain a producer id unless one is held.

        Raises:
            KafkaError: a non-retriable InitProducerId error.
            KafkaTimeoutError: no id within ``request_timeout_ms``.
        """
        if self.has_producer_id:
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._request_timeout_ms / 1000
        last_exc: BaseException | None = None
        while True:
            try:
                response: InitProducerIdResponse = await self._client.send_to_any(
                    InitProducerIdRequest(transactional_id=None, transaction_timeout_ms=-1)
                )
                if response.error_code == 0:
                    self.producer_id = response.producer_id
                    self.producer_epoch = response.producer_epoch
                    self._sequences.clear()
                    self._acked_end.clear()
                    logger.info(
                        "%s ProducerId set to %d with epoch %d",
                        self._log_prefix,
                        self.producer_id,
                        self.producer_epoch,
                    )
                    return
                exc = error_class(response.error_code)("InitProducerId failed")
                if not exc.retriable:
                    raise exc
                last_exc = exc
            except (KafkaTimeoutError, KafkaError) as exc:
                if not exc.retriable:
                    raise
                last_exc = exc
            if loop.time() + self._retry_backoff_ms / 1000 >= deadline:
                raise KafkaTimeoutError(f"Could not obtain a producer id: {last_exc}")
            await asyncio.sleep(self._retry_backoff_ms / 1000)

    def set_producer_id(self, producer_id: int, producer_epoch: int) -> None:
        """Take the producer id and epoch a transactional InitProducerId answered (sequences restart)."""
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch
        self._sequences.clear()
        self._acked_end.clear()
        logger.info("%s ProducerId set to %d with epoch %d", self._log_prefix, producer_id, producer_epoch)

    def stamp(self, batch: ProducerBatch) -> None:
        """Give a drained batch the producer id, epoch and its base sequence, once per
        producer id: a retry keeps its stamp, a batch stamped under a producer id since
        reset gets a new one."""
        producer_id = self.producer_id
        if producer_id == NO_PRODUCER_ID or (
            batch.producer_id == producer_id and batch.producer_epoch == self.producer_epoch
        ):
            return
        tp = batch.tp
        sequences = self._sequences
        sequence = sequences.get(tp, 0)
        batch.stamp(producer_id, self.producer_epoch, sequence, self.transactional)
        sequences[tp] = (sequence + len(batch.rows)) & MAX_SEQUENCE

    def on_acknowledged(self, batch: ProducerBatch) -> None:
        """Note that ``batch`` was written (its sequences are now the partition's end)."""
        producer_id = batch.producer_id
        if producer_id == self.producer_id and producer_id != NO_PRODUCER_ID:
            self._acked_end[batch.tp] = (batch.base_sequence + len(batch.rows)) & MAX_SEQUENCE

    def is_next_sequence(self, batch: ProducerBatch) -> bool:
        """True when ``batch`` directly follows every acknowledged batch of its partition
        under the current producer id (an OUT_OF_ORDER_SEQUENCE_NUMBER for it is then a
        real gap on the broker, not a batch sent behind a failed one)."""
        return (
            batch.producer_id == self.producer_id
            and batch.producer_epoch == self.producer_epoch
            and batch.base_sequence == self._acked_end.get(batch.tp, 0)
        )

    def reset_producer_id(self, reason: BaseException) -> None:
        """Drop the producer id (a batch failed for good); the next drain gets a new one."""
        if not self.has_producer_id:
            return
        logger.info(
            "%s Resetting producer id %d after a failed batch: %s", self._log_prefix, self.producer_id, reason
        )
        self.producer_id = NO_PRODUCER_ID
        self.producer_epoch = -1
        self._sequences.clear()
        self._acked_end.clear()
