"""A sweep of the Kafka listener's APIs for Kafka's own parser (``kafka_parser``): at every
version the listener offers (``KAFKA_APIS``), one request whose fields are all blank (no topics,
no groups, empty names), sent to the lowest node of each cluster and recorded as the scenario
``_sweep/<Api>/v<version>``, so that every API and version has at least one answer to parse and
compare, most of them an error path (UNKNOWN_MEMBER_ID for a member of no group).

Owns only the blank requests and their sending; what the scenarios ask lives in ``scenarios/``.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

from kafkette.protocol.api_keys import KAFKA_APIS
from kafkette.protocol.apis.find_coordinator import FindCoordinatorRequest
from kafkette.protocol.kafka_schema import BYTES, RECORDS, STRING, Array, KafkaSchemaError, KafkaStruct
from tests.conformance.target import Target

SWEEP_PREFIX = "_sweep/"
SWEEP_GROUP = "conformance-sweep"
# The group APIs: their blank request names SWEEP_GROUP and goes to its coordinator, so that the
# answer does not depend on where each cluster placed the group (NOT_COORDINATOR elsewhere).
GROUP_APIS = frozenset(
    {"OffsetCommit", "OffsetFetch", "JoinGroup", "Heartbeat", "LeaveGroup", "SyncGroup", "OffsetDelete"}
)
SWEEP_BUDGET_S = 180.0
# A field whose blank value would not get an answer (acks=0) or would wait on the broker.
SET: dict[str, dict[str, Any]] = {
    "Produce": {"acks": -1, "timeout_ms": 1000},
    "Fetch": {"max_wait_ms": 0, "max_bytes": 1024, "replica_id": -1},
    "InitProducerId": {"transaction_timeout_ms": 60000},
}


def blank(cls: type[KafkaStruct], version: int, values: dict[str, Any] | None = None) -> KafkaStruct:
    """A ``cls`` whose fields present at ``version`` are blank: its default, else an empty list,
    string or byte string where the version allows no null; ``values`` set by name."""
    fields: dict[str, Any] = {}
    for f in cls.kafka_fields():
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


def coordinator(target: Target, timeout_s: float = 30.0) -> int:
    """The node coordinating ``SWEEP_GROUP`` (FindCoordinator v0, retried while the cluster has
    none yet: Kafka creates __consumer_offsets at the first ask); the lowest node when none
    answers in ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError, KafkaSchemaError):
            answer = target.call("FindCoordinator", 0, FindCoordinatorRequest(key=SWEEP_GROUP))
            if answer.error_code == 0 and answer.node_id in target.addresses:
                return answer.node_id
        time.sleep(0.2)
    return min(target.addresses)


def sweep(target: Target) -> None:
    """Send the blank request of every API at every version the listener offers to ``target``'s
    lowest node (a group API's, naming ``SWEEP_GROUP``, to its coordinator), each recorded as
    its own scenario; a request the broker does not answer (it closes the connection) is left
    out, and the sweep stops after ``SWEEP_BUDGET_S``."""
    target.recorder.scenario = f"{SWEEP_PREFIX}coordinator"
    group_node = coordinator(target)
    deadline = time.monotonic() + SWEEP_BUDGET_S
    for api in sorted(KAFKA_APIS.values(), key=lambda a: a.key):
        group = api.name in GROUP_APIS
        node = group_node if group else min(target.addresses)
        values = {**SET.get(api.name, {}), **({"group_id": SWEEP_GROUP} if group else {})}
        for version in range(api.min_version, api.max_version + 1):
            if time.monotonic() > deadline:
                return
            target.recorder.scenario = f"{SWEEP_PREFIX}{api.name}/v{version}"
            try:
                target.raw(node).call(api.name, version, blank(api.request, version, values))
            except (OSError, KafkaSchemaError):
                with contextlib.suppress(OSError):
                    target.drop_raw(node)
