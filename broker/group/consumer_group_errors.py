"""The errors a consumer group (KIP-848) raises to the request that caused them.

Owns: ``ConsumerGroupError``, which carries the Kafka error *name* (``"STALE_MEMBER_EPOCH"``,
``"FENCED_MEMBER_EPOCH"``, ``"UNKNOWN_MEMBER_ID"``, ...) and Kafka's message, so the coordinator maps it
onto ``kafkette.protocol.errors.Errors`` at its one boundary.  Does not own the error codes (the protocol
package) nor broken-invariant errors (``kafkette.protocol.errors.IllegalStateError``, Kafka's
``IllegalStateException``).

Kafka concept: the ``ApiException`` subclasses the group coordinator throws (``FencedMemberEpochException``,
``StaleMemberEpochException``, ``UnknownMemberIdException``, ``IllegalGenerationException``,
``UnsupportedVersionException``, ``GroupNotEmptyException``), answered with ``ApiError.fromThrowable``.
"""

from __future__ import annotations


class ConsumerGroupError(Exception):
    """A request refused by the consumer group model.

    Attributes:
        error: the Kafka error name, e.g. ``"FENCED_MEMBER_EPOCH"`` (an ``Errors`` member name).
        message: Kafka's error message for the response's ``ErrorMessage``.
    """

    def __init__(self, error: str, message: str) -> None:
        super().__init__(f"{error}: {message}")
        self.error = error
        self.message = message
