"""A sweep of the Kafka listener's APIs for Kafka's own parser (``kafka_parser``): at every
version the listener offers (``KAFKA_APIS``), one request whose fields are all blank (no topics,
no groups, empty names), sent to the lowest node of each cluster and recorded as the scenario
``_sweep/<Api>/v<version>``, so that every API and version has at least one answer to parse and
compare, most of them an error path (INVALID_GROUP_ID for an empty group id).

Owns only the blank requests and their sending; what the scenarios ask lives in ``scenarios/``.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

from kafkette.protocol.kafka_messages import KAFKA_APIS
from kafkette.protocol.kafka_schema import BYTES, RECORDS, STRING, Array, KafkaSchemaError, KafkaStruct
from tests.conformance.target import Target

SWEEP_PREFIX = "_sweep/"
SWEEP_BUDGET_S = 180.0
# A field whose blank value would not get an answer (acks=0) or would wait on the broker.
SET: dict[str, dict[str, Any]] = {"Produce": {"acks": -1, "timeout_ms": 1000},
                                  "Fetch": {"max_wait_ms": 0, "max_bytes": 1024, "replica_id": -1},
                                  "InitProducerId": {"transaction_timeout_ms": 60000}}


def blank(cls: type[KafkaStruct], version: int, values: dict[str, Any] | None = None) -> KafkaStruct:
    """A ``cls`` whose fields present at ``version`` are blank: its default, else an empty list,
    string or byte string where the version allows no null; ``values`` set by name."""
    fields: dict[str, Any] = {}
    for f in cls.FIELDS:
        value = f.default()
        if value is None and f.in_version(version) and not f.nullable_in(version):
            if isinstance(f.type, Array):
                value = []
            elif f.type is STRING:
                value = ""
            elif f.type in (BYTES, RECORDS):
                value = b""
            elif f.struct_cls is not None:
                value = blank(f.struct_cls, version)
        fields[f.name] = value
    fields.update(values or {})
    return cls(**fields)


def sweep(target: Target) -> None:
    """Send the blank request of every API at every version the listener offers to ``target``'s
    lowest node, each recorded as its own scenario; a request the broker does not answer (it
    closes the connection) is left out, and the sweep stops after ``SWEEP_BUDGET_S``."""
    node = min(target.addresses)
    deadline = time.monotonic() + SWEEP_BUDGET_S
    for api in sorted(KAFKA_APIS.values(), key=lambda a: a.key):
        for version in range(api.min_version, api.max_version + 1):
            if time.monotonic() > deadline:
                return
            target.recorder.scenario = f"{SWEEP_PREFIX}{api.name}/v{version}"
            try:
                target.raw(node).call(api.name, version, blank(api.request, version, SET.get(api.name)))
            except (OSError, KafkaSchemaError):
                with contextlib.suppress(OSError):
                    target.drop_raw(node)
