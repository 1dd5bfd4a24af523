"""Differences the byte-level fuzz (``fuzz``) found between Kafkette's Kafka listener and Apache
Kafka 4.3.1 that are still to fix (or kept): one table, each entry an API, where it differs and
which error codes make it up, with the reason.

``where`` is an error code's path in Kafka's JSON message schema (``responses[].errorCode``, list
indexes as ``[]``; ``errorCode`` at the top level) or ``connection/<mutation>`` (one broker
answered, closed the connection or waited where the other did another).  ``kafka`` and
``kafkette`` are the codes each side gives where the other does not (Kafka's extra codes at that
path must all be in ``kafka``, Kafkette's in ``kafkette``; None: any).  The fuzz reports the
differences an entry covers apart and fails only on the others, so a new one cannot slip in.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class FuzzDifference:
    """One listed difference (see the module's docstring)."""

    api: str
    where: str
    kafka: frozenset[int] | None
    kafkette: frozenset[int] | None
    reason: str

    def covers(self, api: str, where: str, kafka: Iterable[int], kafkette: Iterable[int]) -> bool:
        """Whether a difference of ``api`` at ``where``, with these extra codes on each side, is this one."""
        return (
            (api, where) == (self.api, self.where)
            and (self.kafka is None or set(kafka) <= self.kafka)
            and (self.kafkette is None or set(kafkette) <= self.kafkette)
        )


def _f(codes: Iterable[int] | None) -> frozenset[int] | None:
    return None if codes is None else frozenset(codes)


FUZZ_DIFFERENCES: tuple[FuzzDifference, ...] = tuple(
    FuzzDifference(a, w, _f(k), _f(o), r)
    for a, w, k, o, r in (
        *(
            (
                "Produce",
                f"connection/{mutation}",
                None,
                None,
                "a Produce with a null record set for a partition the metadata has: Kafka leaves the request "
                "unanswered (a NullPointerException in handleProduceRequest, then another in "
                "ProduceRequest.getErrorResponse), Kafkette answers it INVALID_REQUEST for that partition",
            )
            for mutation in ("none", "flip")
        ),
        (
            "AddPartitionsToTxn",
            "connection/none",
            None,
            None,
            "an AddPartitionsToTxn v4+ (a broker's batch) naming no transaction: Kafka never answers it (its "
            "KafkaApis.handleAddPartitionsToTxnRequest sends the answer from the callback of the last "
            "transaction handled, and there is none), Kafkette answers an empty list of results",
        ),
        (
            "AlterConfigs",
            "connection/none",
            None,
            None,
            "an AlterConfigs naming two resources of unknown types under one name: Kafka's broker leaves "
            "it unanswered (its AlterConfigsResponse.errors maps both to ConfigResource(UNKNOWN, name) and "
            "throws IllegalStateException on the duplicate key while sending), Kafkette answers "
            "INVALID_REQUEST for each",
        ),
    )
)


def listed(
    api: str, where: str, kafka: Iterable[int] = (), kafkette: Iterable[int] = ()
) -> FuzzDifference | None:
    """The entry covering a difference of ``api`` at ``where`` with these extra codes on each
    side (Kafka's, Kafkette's), or None."""
    kafka, kafkette = list(kafka), list(kafkette)
    return next((d for d in FUZZ_DIFFERENCES if d.covers(api, where, kafka, kafkette)), None)
