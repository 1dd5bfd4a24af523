"""The request/answer pairs of the conformance scenarios' raw Kafka-protocol connections, kept by
scenario so that Apache Kafka's own classes can parse every answer (``kafka_parser``).

Owns the recording only (what was sent and received, in order); not the parsing nor the
comparison.  Each pair is one JSON line: target, scenario, seq (its position in the scenario), conn (the
connection: ``<scenario it was opened in>#<how many that scenario opened before>``, the same on
both clusters since scenarios open their connections in program order), api_key, api_version, request (base64
of the request body, header excluded) and response (base64 of the response frame without its 4-byte length,
response header included).  ``recording_proxy`` keeps the connections of a real client (librdkafka)
in the same format.
"""

from __future__ import annotations

import base64
import json
import threading
from pathlib import Path
from typing import Any


class AnswerRecorder:
    """The pairs of one target, in the order they were answered.

    Attributes:
        scenario: the id of the scenario running now (set by the runner before each scenario).
        pairs: the recorded pairs as JSON-able dicts.
    """

    def __init__(self) -> None:
        self.scenario = ""
        self.pairs: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._seq: dict[str, int] = {}
        self._opened: dict[str, int] = {}

    def connection(self) -> str:
        """A name for a connection opened now: the running scenario and its ordinal there."""
        with self._lock:
            n = self._opened.get(self.scenario, 0)
            self._opened[self.scenario] = n + 1
            return f"{self.scenario}#{n}"

    def record(self, api_key: int, api_version: int, request: bytes, response: bytes, conn: str = "") -> None:
        """Keep one answered request.

        Args:
            conn: the connection's name (``connection()``).
            api_key / api_version: the request's (``ApiKeys`` id and version).
            request: the request body (bytes, header excluded).
            response: the response frame (bytes, header included, length prefix excluded).
        """
        with self._lock:
            seq = self._seq.get(self.scenario, 0)
            self._seq[self.scenario] = seq + 1
            self.pairs.append(
                {
                    "scenario": self.scenario,
                    "seq": seq,
                    "conn": conn,
                    "api_key": api_key,
                    "api_version": api_version,
                    "request": base64.b64encode(request).decode(),
                    "response": base64.b64encode(response).decode(),
                }
            )

    def write(self, path: Path, target: str) -> Path:
        """Write the pairs as JSON lines (each with ``target``) to ``path``; the path."""
        path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock:
            lines = [json.dumps({"target": target, **pair}) for pair in self.pairs]
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        return path


_BY_ADDRESS: dict[tuple[str, int], AnswerRecorder] = {}


def register(address: tuple[str, int], recorder: AnswerRecorder) -> None:
    """Make ``recorder`` the one of every raw connection to ``address`` (host, port) opened
    without one of its own (the scenarios' group members open theirs directly)."""
    _BY_ADDRESS[address] = recorder


def recorder_for(address: tuple[str, int]) -> AnswerRecorder | None:
    """The recorder registered for ``address``, or None."""
    return _BY_ADDRESS.get(address)
