"""``failOnDataLoss``: what the kafkette source does when offsets it should read are gone.

Owns: ``DataLossError`` and ``report_data_loss``, the one place that decides between
failing the query and skipping with a warning, with the messages of Spark's Kafka
source (``KafkaSourceProvider.INSTRUCTION_FOR_FAIL_ON_DATA_LOSS_*``).  Data is lost
when a range was deleted by retention or DeleteRecords (the log start offset passed
it), when a partition or topic disappeared, or when offsets went backwards (a topic
deleted and created again).  Does not detect any of these itself.
"""

from __future__ import annotations

import logging

FAIL_INSTRUCTION = (
    " Some data may have been lost because they are not available in Kafkette any more; either the"
    " data was aged out by Kafkette or the topic may have been deleted before all the data in the"
    " topic was processed. If you want your streaming query to continue on such cases, set the"
    ' source option "failOnDataLoss" to "false".'
)
WARN_INSTRUCTION = (
    " Some data may have been lost because they are not available in Kafkette any more; either the"
    " data was aged out by Kafkette or the topic may have been deleted before all the data in the"
    " topic was processed. If you don't want your streaming query to continue on such cases, set the"
    ' source option "failOnDataLoss" to "true".'
)


class DataLossError(RuntimeError):
    """Offsets a query must read are no longer in Kafkette and ``failOnDataLoss`` is true
    (Spark's Kafka source raises ``IllegalStateException`` in the same cases)."""


def report_data_loss(message: str, fail_on_data_loss: bool, logger: logging.Logger) -> None:
    """Fail or warn about lost offsets.

    Args:
        message: what is lost, e.g. ``"Offsets 0..9 of events-0 were deleted"``.
        fail_on_data_loss: the source option ``failOnDataLoss``.
        logger: where the warning goes when not failing.

    Raises:
        DataLossError: when ``fail_on_data_loss`` is true.
    """
    if fail_on_data_loss:
        raise DataLossError(message + FAIL_INSTRUCTION)
    logger.warning("%s%s", message, WARN_INSTRUCTION)
