"""Differences the byte-level fuzz (``fuzz``) found between Kafkette's Kafka listener and Apache
Kafka 4.3.1 and that are still to fix (or kept): one table, each entry an API and where it
differs, either an error code's path in Kafka's JSON message schema (``responses[].errorCode``,
list indexes as ``[]``) or ``connection/<mutation>`` (one broker answered, closed the connection
or waited where the other did another), with the reason.

The fuzz reports these apart and fails only on a difference not listed here.
"""

from __future__ import annotations

FUZZ_DIFFERENCES: dict[tuple[str, str], str] = {
}


def listed(api: str, where: str) -> str | None:
    """The reason a difference of ``api`` at ``where`` is listed, or None."""
    return FUZZ_DIFFERENCES.get((api, where))
