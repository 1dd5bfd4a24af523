"""Topic lifecycle: CreateTopics' validation rules (names, `.`/`_` collisions, replication factor,
partition counts, configs, validate_only, manual assignments), CreatePartitions, DeleteTopics and
auto-creation through Metadata, as Kafka's ``ReplicationControlManager`` and ``Topic`` apply them.

Requests go raw (CreateTopics v7, CreatePartitions v3, DeleteTopics v5 and v6, Metadata v12), so that
the answer's every field (error, partition count, replication factor, the configs of a created
topic) is seen as a client sees it.
"""

from __future__ import annotations

import time
from typing import Any

from kafkette.protocol.apis.create_partitions import (
    CreatePartitionsAssignment,
    CreatePartitionsRequest,
    CreatePartitionsTopic,
)
from kafkette.protocol.apis.create_topics import (
    CreatableReplicaAssignment,
    CreatableTopic,
    CreatableTopicConfig,
    CreateTopicsRequest,
)
from kafkette.protocol.apis.delete_topics import DeleteTopicsRequest, DeleteTopicState
from kafkette.protocol.apis.metadata import MetadataRequest, MetadataRequestTopic
from tests.conformance.catalogue import register, scenario
from tests.conformance.target import Target, code_name

CREATE_V = 7


def shape(partitions: list[Any]) -> list[dict[str, Any]]:
    """What a replica assignment looks like without naming brokers: per partition its replica
    count, whether the replicas are distinct, whether the leader is one of them and the ISR size."""
    return [
        {
            "replicas": len(p.replica_nodes),
            "distinct": len(set(p.replica_nodes)) == len(p.replica_nodes),
            "leader_in_replicas": p.leader_id in p.replica_nodes,
            "isr": len(p.isr_nodes),
        }
        for p in partitions
    ]


def create(
    t: Target,
    name: str,
    partitions: int = 1,
    rf: int = 1,
    configs: dict[str, str | None] | None = None,
    assignments: dict[int, list[int]] | None = None,
    validate_only: bool = False,
) -> dict[str, Any]:
    """CreateTopics v7 for one topic; the answer's error, partition count and replication factor."""
    topic = CreatableTopic(
        name=name,
        num_partitions=partitions,
        replication_factor=rf,
        assignments=[
            CreatableReplicaAssignment(partition_index=i, broker_ids=b)
            for i, b in (assignments or {}).items()
        ],
        configs=[CreatableTopicConfig(name=k, value=v) for k, v in (configs or {}).items()],
    )
    answer = t.call(
        "CreateTopics",
        CREATE_V,
        CreateTopicsRequest(topics=[topic], timeout_ms=30000, validate_only=validate_only),
    )
    result = answer.topics[0]
    out = {"error": code_name(result.error_code)}
    if result.error_code == 0:
        out.update(num_partitions=result.num_partitions, replication_factor=result.replication_factor)
    return out


def create_and_describe(t: Target, name: str, **kwargs: Any) -> dict[str, Any]:
    """``create`` and, when it succeeded and was not validate_only, the topic's assignment shape."""
    out = create(t, name, **kwargs)
    if out["error"] == "NONE" and not kwargs.get("validate_only"):
        out["shape"] = shape(t.wait_topic(name))
    return out


# --- names ----------------------------------------------------------------------------------

NAMES = {
    "single-char": "a",
    "all-legal-chars": "Legal.name_with-all-9",
    "249-chars": "n" * 249,
    "empty": "",
    "dot": ".",
    "dot-dot": "..",
    "250-chars": "n" * 250,
    "space": "has space",
    "slash": "has/slash",
    "dollar": "has$dollar",
    "colon": "has:colon",
    "non-ascii": "caf\u00e9",
    "tab": "has\ttab",
}
for _label, _name in NAMES.items():
    register(
        f"topics/create/name-{_label}",
        f"CreateTopics with the name {_name[:20]!r} (legal: [a-zA-Z0-9._-]{{1,249}})",
        lambda t, n=_name: create(t, n),
    )


@scenario("topics/create/already-exists")
def _already_exists(t: Target) -> Any:
    """Creating a topic twice: the second gets TOPIC_ALREADY_EXISTS."""
    return [create(t, "twice"), create(t, "twice")]


@scenario("topics/create/collides-dot-then-underscore")
def _collides_dot(t: Target) -> Any:
    """``col.a`` then ``col_a``: the second collides (INVALID_TOPIC_EXCEPTION), as the metrics names would."""
    return [create(t, "col.a"), create(t, "col_a")]


@scenario("topics/create/collides-underscore-then-dot")
def _collides_underscore(t: Target) -> Any:
    """``col_b`` then ``col.b``: the second collides."""
    return [create(t, "col_b"), create(t, "col.b")]


@scenario("topics/create/duplicate-in-one-request")
def _duplicate_in_request(t: Target) -> Any:
    """One CreateTopics naming the same topic twice: Kafka answers INVALID_REQUEST for it."""
    topic = CreatableTopic(name="dup-in-request", num_partitions=1, replication_factor=1)
    answer = t.call("CreateTopics", CREATE_V, CreateTopicsRequest(topics=[topic, topic], timeout_ms=30000))
    return sorted((r.name, code_name(r.error_code)) for r in answer.topics)


@scenario("topics/create/mixed-batch")
def _mixed_batch(t: Target) -> Any:
    """One request with a good and a bad topic: each gets its own answer."""
    good = CreatableTopic(name="batch-good", num_partitions=2, replication_factor=2)
    bad = CreatableTopic(name="batch-bad", num_partitions=1, replication_factor=7)
    answer = t.call("CreateTopics", CREATE_V, CreateTopicsRequest(topics=[good, bad], timeout_ms=30000))
    return sorted(
        (r.name, code_name(r.error_code), r.num_partitions, r.replication_factor) for r in answer.topics
    )


# --- replication factor and partition counts ---------------------------------------------------

for _label, _rf in {
    "rf-1": 1,
    "rf-2": 2,
    "rf-3": 3,
    "rf-4-above-brokers": 4,
    "rf-0": 0,
    "rf-default": -1,
    "rf-minus-2": -2,
}.items():
    register(
        f"topics/create/{_label}",
        f"CreateTopics with replication factor {_rf} on 3 brokers",
        lambda t, rf=_rf, lbl=_label: create_and_describe(t, f"create-{lbl}", partitions=3, rf=rf),
    )

for _label, _count in {
    "partitions-1": 1,
    "partitions-50": 50,
    "partitions-0": 0,
    "partitions-default": -1,
    "partitions-minus-2": -2,
}.items():
    register(
        f"topics/create/{_label}",
        f"CreateTopics with {_count} partitions",
        lambda t, n=_count, lbl=_label: create_and_describe(t, f"create-{lbl}", partitions=n, rf=1),
    )


# --- configs -------------------------------------------------------------------------------------

BAD_CONFIGS: dict[str, dict[str, str | None]] = {
    "unknown-name": {"no.such.config": "1"},
    "cleanup-policy-bogus": {"cleanup.policy": "bogus"},
    "retention-ms-not-a-number": {"retention.ms": "abc"},
    "retention-ms-below-minus-1": {"retention.ms": "-2"},
    "min-isr-0": {"min.insync.replicas": "0"},
    "compression-brotli": {"compression.type": "brotli"},
    "timestamp-type-bogus": {"message.timestamp.type": "WallClock"},
    "max-message-bytes-negative": {"max.message.bytes": "-1"},
    "segment-bytes-below-1mib": {"segment.bytes": "1048575"},
    "segment-bytes-1mib": {"segment.bytes": "1048576"},
    "remote-storage-enable": {"remote.storage.enable": "true"},
    "gzip-level-0": {"compression.gzip.level": "0"},
    "timestamp-after-negative": {"message.timestamp.after.max.ms": "-1"},
    "removed-in-kafka-4-format-version": {"message.format.version": "2.5"},
    "removed-in-kafka-4-timestamp-difference": {"message.timestamp.difference.max.ms": "1000"},
    "dirty-ratio-above-1": {"min.cleanable.dirty.ratio": "1.5"},
    "unclean-not-boolean": {"unclean.leader.election.enable": "sometimes"},
    "null-value": {"retention.ms": None},
}
for _label, _configs in BAD_CONFIGS.items():
    register(
        f"topics/create/config-{_label}",
        f"CreateTopics with the config {_configs}",
        lambda t, c=_configs, lbl=_label: create(t, f"cfg-{lbl}", configs=c),
    )

GOOD_CONFIGS: dict[str, dict[str, str]] = {
    "compact": {"cleanup.policy": "compact"},
    "compact-delete": {"cleanup.policy": "compact,delete"},
    "retention": {"retention.ms": "60000", "retention.bytes": "1048576"},
    "log-append-time": {"message.timestamp.type": "LogAppendTime"},
    "compression-zstd": {"compression.type": "zstd"},
    "min-isr-2": {"min.insync.replicas": "2"},
}


def _create_with_configs(t: Target, name: str, configs: dict[str, str]) -> Any:
    """CreateTopics v7 with ``configs``; the error and, for each config set, the value and source
    the answer reports (KIP-525)."""
    topic = CreatableTopic(
        name=name,
        num_partitions=1,
        replication_factor=1,
        configs=[CreatableTopicConfig(name=k, value=v) for k, v in configs.items()],
    )
    result = t.call("CreateTopics", CREATE_V, CreateTopicsRequest(topics=[topic], timeout_ms=30000)).topics[0]
    reported = {
        c.name: [c.value, c.config_source, c.read_only] for c in (result.configs or []) if c.name in configs
    }
    return {"error": code_name(result.error_code), "configs": reported}


for _label, _configs in GOOD_CONFIGS.items():
    register(
        f"topics/create/config-{_label}",
        f"CreateTopics with {_configs}: accepted, and reported back as set",
        lambda t, c=_configs, lbl=_label: _create_with_configs(t, f"cfg-ok-{lbl}", c),
    )


@scenario("topics/create/configs-reported-count")
def _configs_reported(t: Target) -> Any:
    """CreateTopics v7's answer lists every topic config with its value and source (KIP-525)."""
    topic = CreatableTopic(name="cfg-reported", num_partitions=1, replication_factor=1)
    result = t.call("CreateTopics", CREATE_V, CreateTopicsRequest(topics=[topic], timeout_ms=30000)).topics[0]
    return sorted(c.name for c in (result.configs or []))


# --- validate_only -------------------------------------------------------------------------------


@scenario("topics/create/validate-only-valid")
def _validate_only_valid(t: Target) -> Any:
    """validate_only on a valid topic: NONE with its partition count, and the topic is not created."""
    out = create(t, "validate-only-ok", partitions=4, rf=2, validate_only=True)
    time.sleep(0.5)
    out["exists_after"] = bool(t.partitions("validate-only-ok"))
    return out


@scenario("topics/create/validate-only-invalid-rf")
def _validate_only_invalid(t: Target) -> Any:
    """validate_only still checks the replication factor."""
    return create(t, "validate-only-bad", partitions=1, rf=5, validate_only=True)


@scenario("topics/create/validate-only-existing")
def _validate_only_existing(t: Target) -> Any:
    """validate_only on an existing topic: TOPIC_ALREADY_EXISTS."""
    return [create(t, "validate-only-existing"), create(t, "validate-only-existing", validate_only=True)]


@scenario("topics/create/validate-only-bad-config")
def _validate_only_bad_config(t: Target) -> Any:
    """validate_only checks configs too."""
    return create(t, "validate-only-cfg", configs={"cleanup.policy": "nope"}, validate_only=True)


# --- manual assignments --------------------------------------------------------------------------

ASSIGNMENTS: dict[str, dict[int, list[int]]] = {
    "two-partitions": {0: [1, 2], 1: [2, 3]},
    "single-replica": {0: [3]},
    "duplicate-broker": {0: [1, 1]},
    "unknown-broker": {0: [1, 9]},
    "gap-in-partition-ids": {0: [1], 2: [2]},
    "unequal-replica-counts": {0: [1], 1: [1, 2]},
    "empty-replicas": {0: []},
    "not-from-zero": {1: [1], 2: [2]},
}


def _assigned(t: Target, name: str, assignments: dict[int, list[int]]) -> Any:
    out = create(t, name, partitions=-1, rf=-1, assignments=assignments)
    if out["error"] == "NONE":
        out["replicas"] = [list(p.replica_nodes) for p in t.wait_topic(name)]
    return out


for _label, _assignment in ASSIGNMENTS.items():
    register(
        f"topics/create/assignment-{_label}",
        f"CreateTopics with the manual assignment {_assignment}",
        lambda t, a=_assignment, lbl=_label: _assigned(t, f"assign-{lbl}", a),
    )


@scenario("topics/create/assignment-with-partition-count")
def _assignment_and_count(t: Target) -> Any:
    """A manual assignment together with a partition count: INVALID_REQUEST."""
    return create(t, "assign-and-count", partitions=2, rf=-1, assignments={0: [1], 1: [2]})


@scenario("topics/create/assignment-with-replication-factor")
def _assignment_and_rf(t: Target) -> Any:
    """A manual assignment together with a replication factor: INVALID_REQUEST."""
    return create(t, "assign-and-rf", partitions=-1, rf=1, assignments={0: [1]})


# --- CreatePartitions -----------------------------------------------------------------------------


def create_partitions(
    t: Target, name: str, count: int, assignments: list[list[int]] | None = None, validate_only: bool = False
) -> str:
    """CreatePartitions v3 for one topic; the error's name."""
    topic = CreatePartitionsTopic(
        name=name,
        count=count,
        assignments=None
        if assignments is None
        else [CreatePartitionsAssignment(broker_ids=b) for b in assignments],
    )
    answer = t.call(
        "CreatePartitions",
        3,
        CreatePartitionsRequest(topics=[topic], timeout_ms=30000, validate_only=validate_only),
    )
    return code_name(answer.results[0].error_code)


def _partitions_case(
    t: Target,
    name: str,
    start: int,
    count: int,
    assignments: list[list[int]] | None = None,
    validate_only: bool = False,
    rf: int = 1,
) -> Any:
    created = create(t, name, partitions=start, rf=rf)
    error = create_partitions(t, name, count, assignments, validate_only)
    time.sleep(0.3)
    view = t.wait_topic(name, count if error == "NONE" and not validate_only else start)
    out: dict[str, Any] = {"create": created["error"], "error": error, "partitions": len(view)}
    if assignments is not None and error == "NONE":
        out["new_replicas"] = [list(p.replica_nodes) for p in view[start:]]
    return out


PARTITION_CASES: dict[str, dict[str, Any]] = {
    "grow-1-to-3": {"start": 1, "count": 3},
    "same-count": {"start": 2, "count": 2},
    "shrink": {"start": 3, "count": 2},
    "validate-only": {"start": 1, "count": 4, "validate_only": True},
    "with-assignment": {"start": 1, "count": 3, "assignments": [[2], [3]]},
    "assignment-wrong-length": {"start": 1, "count": 3, "assignments": [[2]]},
    "assignment-unknown-broker": {"start": 1, "count": 2, "assignments": [[9]]},
    "assignment-wrong-rf": {"start": 1, "count": 2, "assignments": [[1, 2]]},
    "grow-replicated": {"start": 1, "count": 4, "rf": 3},
}
for _label, _case in PARTITION_CASES.items():
    register(
        f"topics/create-partitions/{_label}",
        f"CreatePartitions: {_case}",
        lambda t, c=_case, lbl=_label: _partitions_case(t, f"cp-{lbl}", **c),
    )


@scenario("topics/create-partitions/unknown-topic")
def _cp_unknown(t: Target) -> Any:
    """CreatePartitions on a topic that does not exist: UNKNOWN_TOPIC_OR_PARTITION."""
    return create_partitions(t, "cp-no-such-topic", 3)


@scenario("topics/create-partitions/duplicate-in-one-request")
def _cp_duplicate(t: Target) -> Any:
    """One CreatePartitions naming a topic twice: INVALID_REQUEST for it."""
    create(t, "cp-dup")
    topic = CreatePartitionsTopic(name="cp-dup", count=2, assignments=None)
    answer = t.call("CreatePartitions", 3, CreatePartitionsRequest(topics=[topic, topic], timeout_ms=30000))
    return sorted((r.name, code_name(r.error_code)) for r in answer.results)


# --- DeleteTopics -----------------------------------------------------------------------------------


def delete(t: Target, *names: str) -> list[Any]:
    """DeleteTopics v5; ``(name, error)`` per topic answered, sorted."""
    answer = t.call("DeleteTopics", 5, DeleteTopicsRequest(topic_names=list(names), timeout_ms=30000))
    return sorted((r.name, code_name(r.error_code)) for r in answer.responses)


@scenario("topics/delete/existing")
def _delete_existing(t: Target) -> Any:
    """DeleteTopics on an existing topic: NONE, and no broker lists it afterwards."""
    create(t, "del-existing", partitions=2, rf=2)
    t.wait_topic("del-existing")
    out = delete(t, "del-existing")
    t.wait_absent("del-existing")
    return out


@scenario("topics/delete/unknown")
def _delete_unknown(t: Target) -> Any:
    """DeleteTopics on a topic that does not exist: UNKNOWN_TOPIC_OR_PARTITION."""
    return delete(t, "del-no-such-topic")


@scenario("topics/delete/twice")
def _delete_twice(t: Target) -> Any:
    """Deleting a topic twice: the second gets UNKNOWN_TOPIC_OR_PARTITION."""
    create(t, "del-twice")
    t.wait_topic("del-twice")
    first = delete(t, "del-twice")
    t.wait_absent("del-twice")
    return [first, delete(t, "del-twice")]


@scenario("topics/delete/mixed")
def _delete_mixed(t: Target) -> Any:
    """One DeleteTopics with an existing and an unknown topic: an answer for each."""
    create(t, "del-mixed")
    t.wait_topic("del-mixed")
    return delete(t, "del-mixed", "del-mixed-unknown")


@scenario("topics/delete/recreate-starts-empty")
def _delete_recreate(t: Target) -> Any:
    """A topic deleted and created again under the same name starts at offset 0."""
    create(t, "del-recreate")
    t.wait_topic("del-recreate")
    first = t.produce_values("del-recreate", [b"a", b"b", b"c"])
    delete(t, "del-recreate")
    t.wait_absent("del-recreate")
    again = create(t, "del-recreate")
    t.wait_topic("del-recreate")
    return {"first": first, "again": again["error"], "second": t.produce_values("del-recreate", [b"x"])}


def _topic_id(t: Target, name: str) -> bytes:
    """``name``'s topic id, as Metadata v12 answers it."""
    return next(x.topic_id for x in t.metadata([name], auto_create=False, version=12).topics)


def delete_v6(t: Target, topics: list[tuple[str | None, bytes]], ids: dict[bytes, str]) -> list[Any]:
    """DeleteTopics v6 of ``(name or None, topic id)`` entries; ``(name, topic id, error, message)`` per
    answer, sorted, each topic id written as its key in ``ids`` ("zero" for the zero id, "other" for an id
    not there): topic ids are random, so the answers compare by which topic they name."""
    request = DeleteTopicsRequest(
        topics=[DeleteTopicState(name=name, topic_id=topic_id) for name, topic_id in topics], timeout_ms=30000
    )
    answer = t.call("DeleteTopics", 6, request)
    return sorted(
        (
            r.name or "",
            "zero" if r.topic_id == bytes(16) else ids.get(r.topic_id, "other"),
            code_name(r.error_code),
            r.error_message or "",
        )
        for r in answer.responses
    )


@scenario("topics/delete/v6-by-id")
def _delete_v6_by_id(t: Target) -> Any:
    """DeleteTopics v6 naming a topic by its id alone (KIP-516): NONE, answered with the topic's name and
    id, and no broker lists it afterwards."""
    create(t, "del-v6-by-id")
    t.wait_topic("del-v6-by-id")
    topic_id = _topic_id(t, "del-v6-by-id")
    out = delete_v6(t, [(None, topic_id)], {topic_id: "del-v6-by-id"})
    t.wait_absent("del-v6-by-id")
    return out


@scenario("topics/delete/v6-by-name")
def _delete_v6_by_name(t: Target) -> Any:
    """DeleteTopics v6 naming a topic with the zero id: NONE, answered with the topic's id."""
    create(t, "del-v6-by-name")
    t.wait_topic("del-v6-by-name")
    topic_id = _topic_id(t, "del-v6-by-name")
    out = delete_v6(t, [("del-v6-by-name", bytes(16))], {topic_id: "del-v6-by-name"})
    t.wait_absent("del-v6-by-name")
    return out


@scenario("topics/delete/v6-unknown")
def _delete_v6_unknown(t: Target) -> Any:
    """DeleteTopics v6 with an id no topic has (UNKNOWN_TOPIC_ID, the name null) and a name no topic has
    (UNKNOWN_TOPIC_OR_PARTITION, the zero id)."""
    ghost = bytes(range(1, 17))
    return delete_v6(t, [(None, ghost), ("del-v6-no-such-topic", bytes(16))], {ghost: "ghost"})


@scenario("topics/delete/v6-invalid-entries")
def _delete_v6_invalid(t: Target) -> Any:
    """DeleteTopics v6 with neither a name nor an id, a name and an id, an id given twice and a name whose
    id is also given: INVALID_REQUEST in Kafka's words for each, and no topic deleted."""
    create(t, "del-v6-twice")
    create(t, "del-v6-name-and-id")
    t.wait_topic("del-v6-twice")
    t.wait_topic("del-v6-name-and-id")
    twice, both = _topic_id(t, "del-v6-twice"), _topic_id(t, "del-v6-name-and-id")
    ids = {twice: "del-v6-twice", both: "del-v6-name-and-id"}
    out = delete_v6(
        t,
        [
            (None, bytes(16)),
            ("del-v6-named", twice),
            (None, twice),
            (None, twice),
            (None, both),
            ("del-v6-name-and-id", bytes(16)),
        ],
        ids,
    )
    return {"answers": out, "still_listed": [bool(t.partitions(n)) for n in ids.values()]}


@scenario("topics/delete/v6-mixed")
def _delete_v6_mixed(t: Target) -> Any:
    """DeleteTopics v6 deleting one topic by id and another by name in one request: NONE for both."""
    create(t, "del-v6-mixed-a")
    create(t, "del-v6-mixed-b")
    t.wait_topic("del-v6-mixed-a")
    t.wait_topic("del-v6-mixed-b")
    a, b = _topic_id(t, "del-v6-mixed-a"), _topic_id(t, "del-v6-mixed-b")
    out = delete_v6(t, [(None, a), ("del-v6-mixed-b", bytes(16))], {a: "del-v6-mixed-a", b: "del-v6-mixed-b"})
    t.wait_absent("del-v6-mixed-a")
    t.wait_absent("del-v6-mixed-b")
    return out


# --- auto-creation -------------------------------------------------------------------------------------


def _auto(t: Target, name: str, allow: bool, version: int = 12) -> Any:
    answer = t.metadata([name], auto_create=allow, version=version)
    first = [code_name(x.error_code) for x in answer.topics]
    if allow and first and first[0] in ("NONE", "LEADER_NOT_AVAILABLE", "UNKNOWN_TOPIC_OR_PARTITION"):
        deadline = time.monotonic() + 15
        while not t.partitions(name) and time.monotonic() < deadline:
            t.metadata([name], auto_create=False)
            time.sleep(0.1)
    view = t.partitions(name)
    return {
        "first_answer": first,
        "created": bool(view),
        "partitions": len(view),
        "replication_factor": len(view[0].replica_nodes) if view else None,
    }


@scenario("topics/auto-create/metadata-allowed")
def _auto_allowed(t: Target) -> Any:
    """Metadata with allow_auto_topic_creation for an unknown topic creates it with num.partitions
    and default.replication.factor (the first answer says it has no leader yet)."""
    return _auto(t, "auto-allowed", True)


@scenario("topics/auto-create/metadata-not-allowed")
def _auto_not_allowed(t: Target) -> Any:
    """Metadata without allow_auto_topic_creation: UNKNOWN_TOPIC_OR_PARTITION, nothing created."""
    return _auto(t, "auto-not-allowed", False)


@scenario("topics/auto-create/metadata-v3-implies-allowed")
def _auto_v3(t: Target) -> Any:
    """Metadata v3 has no allow flag: it auto-creates."""
    answer = t.call("Metadata", 3, MetadataRequest(topics=[MetadataRequestTopic(name="auto-v3")]))
    first = [code_name(x.error_code) for x in answer.topics]
    t.wait_topic("auto-v3", timeout_s=15)
    return {"first_answer": first, "partitions": len(t.partitions("auto-v3"))}


@scenario("topics/auto-create/invalid-name")
def _auto_invalid(t: Target) -> Any:
    """Metadata auto-creation of an illegal name: INVALID_TOPIC_EXCEPTION, nothing created."""
    return _auto(t, "bad name!", True)


@scenario("topics/auto-create/producer")
def _auto_producer(t: Target) -> Any:
    """A librdkafka producer writing to an unknown topic: the broker auto-creates it, the record lands at
    0."""
    return {
        "offsets": t.produce_values("auto-by-producer", [b"v"]),
        "partitions": len(t.wait_topic("auto-by-producer")),
    }
