"""Transactions (KIP-98) as a Kafka client drives them, request by request: FindCoordinator for a
transactional id, InitProducerId with it, AddPartitionsToTxn (v3, a client's), transactional
Produce, EndTxn COMMIT and ABORT with the coordinator writing the markers, then what a
READ_COMMITTED Fetch and ListOffsets answer (the last stable offset, the aborted transactions);
DescribeTransactions of the result; AddOffsetsToTxn and TxnOffsetCommit with the offsets stable
only after the commit; ListTransactions' filters; and the coordinator's refusals: an EndTxn with
nothing to end, an unknown transactional id, a stale epoch after a new InitProducerId, a partition
of an unknown topic, a transactional Produce for a partition never added (KIP-890 verification).

Producer ids differ between the clusters (each hands out its own blocks): the answers keep only
what a client compares (errors, epochs, offsets, states, partitions).
"""

from __future__ import annotations

import time
from typing import Any

from kafkette.protocol.apis.find_coordinator import COORDINATOR_TYPE_TRANSACTION, FindCoordinatorRequest
from kafkette.protocol.apis.offsets import OffsetFetchRequest, OffsetFetchRequestTopic
from kafkette.protocol.apis.producer_ids import InitProducerIdRequest
from kafkette.protocol.apis.transactions import (
    AddOffsetsToTxnRequest,
    AddPartitionsToTxnRequest,
    AddPartitionsToTxnTopic,
    DescribeTransactionsRequest,
    EndTxnRequest,
    ListTransactionsRequest,
    TxnOffsetCommitRequest,
    TxnOffsetCommitRequestPartition,
    TxnOffsetCommitRequestTopic,
)
from tests.conformance.catalogue import scenario
from tests.conformance.scenarios.groups import coordinator as group_coordinator
from tests.conformance.scenarios.produce import (
    PRODUCE_V,
    batch,
    fetch_raw,
    leader_or_lowest,
    list_offsets,
    new_topic,
    partition_answer,
    produce_request,
)
from tests.conformance.target import ScenarioError, Target, code_name

READ_COMMITTED = 1
RETRIABLE = {
    "COORDINATOR_NOT_AVAILABLE",
    "COORDINATOR_LOAD_IN_PROGRESS",
    "NOT_COORDINATOR",
    "CONCURRENT_TRANSACTIONS",
}
WAIT_S = 30.0


def _retrying(call: Any, error_of: Any) -> Any:
    """``call()`` again (every 0.2 s, up to ``WAIT_S``) while its error is retriable."""
    deadline = time.monotonic() + WAIT_S
    while True:
        answer = call()
        if code_name(error_of(answer)) not in RETRIABLE:
            return answer
        if time.monotonic() > deadline:
            raise ScenarioError(f"still {code_name(error_of(answer))} after {WAIT_S:.0f} s")
        time.sleep(0.2)


def coordinator(t: Target, transactional_id: str) -> int:
    """The node coordinating ``transactional_id`` (FindCoordinator v4, key type 1)."""
    answer = _retrying(
        lambda: t.call(
            "FindCoordinator",
            4,
            FindCoordinatorRequest(
                key_type=COORDINATOR_TYPE_TRANSACTION, coordinator_keys=[transactional_id]
            ),
        ),
        lambda a: a.coordinators[0].error_code,
    )
    if answer.coordinators[0].error_code:
        raise ScenarioError(f"FindCoordinator answered {code_name(answer.coordinators[0].error_code)}")
    return answer.coordinators[0].node_id


def init(t: Target, transactional_id: str, node: int) -> tuple[int, int]:
    """InitProducerId v4 with ``transactional_id`` at its coordinator: (producer id, epoch)."""
    answer = _retrying(
        lambda: t.call(
            "InitProducerId",
            4,
            InitProducerIdRequest(transactional_id=transactional_id, transaction_timeout_ms=60000),
            node,
        ),
        lambda a: a.error_code,
    )
    if answer.error_code:
        raise ScenarioError(f"InitProducerId answered {code_name(answer.error_code)}")
    return answer.producer_id, answer.producer_epoch


def add_partitions(
    t: Target, transactional_id: str, producer: tuple[int, int], node: int, topics: dict[str, list[int]]
) -> dict[str, dict[int, str]]:
    """AddPartitionsToTxn v3: ``{topic: {partition: error}}``."""
    answer = _retrying(
        lambda: t.call(
            "AddPartitionsToTxn",
            3,
            AddPartitionsToTxnRequest(
                v3_and_below_transactional_id=transactional_id,
                v3_and_below_producer_id=producer[0],
                v3_and_below_producer_epoch=producer[1],
                v3_and_below_topics=[
                    AddPartitionsToTxnTopic(name=n, partitions=p) for n, p in topics.items()
                ],
            ),
            node,
        ),
        lambda a: a.results_by_topic_v3_and_below[0].results_by_partition[0].partition_error_code,
    )
    return {
        r.name: {p.partition_index: code_name(p.partition_error_code) for p in r.results_by_partition}
        for r in answer.results_by_topic_v3_and_below
    }


def end_txn(t: Target, transactional_id: str, producer: tuple[int, int], node: int, commit: bool) -> str:
    """EndTxn v3 (COMMIT or ABORT): its error."""
    answer = _retrying(
        lambda: t.call(
            "EndTxn",
            3,
            EndTxnRequest(
                transactional_id=transactional_id,
                producer_id=producer[0],
                producer_epoch=producer[1],
                committed=commit,
            ),
            node,
        ),
        lambda a: a.error_code,
    )
    return code_name(answer.error_code)


def transactional_produce(
    t: Target, topic: str, producer: tuple[int, int], values: list[bytes], sequence: int = 0
) -> dict[str, Any]:
    """A transactional batch of ``values`` to ``topic``-0 (Produce v9 with the transactional id
    ``topic``): the partition's answer."""
    records = batch(
        values,
        producer_id=producer[0],
        producer_epoch=producer[1],
        base_sequence=sequence,
        transactional=True,
    )
    request = produce_request(topic, records)
    request.transactional_id = topic
    answer = t.call("Produce", PRODUCE_V, request, leader_or_lowest(t, topic))
    return partition_answer(answer.responses[0].partition_responses[0])


def read_committed(t: Target, topic: str) -> dict[str, Any]:
    """A READ_COMMITTED Fetch of ``topic``-0 from offset 0 once its last stable offset reached its
    high watermark (the markers written): what a client compares."""
    deadline = time.monotonic() + WAIT_S
    while True:
        _, part = fetch_raw(t, topic, 0, isolation_level=READ_COMMITTED)
        if part is not None and part.last_stable_offset == part.high_watermark:
            break
        if time.monotonic() > deadline:
            raise ScenarioError(f"{topic}-0 never became stable")
        time.sleep(0.1)
    return {
        "error": code_name(part.error_code),
        "high_watermark": part.high_watermark,
        "last_stable_offset": part.last_stable_offset,
        "aborted_first_offsets": [a.first_offset for a in part.aborted_transactions or []],
        "latest_read_committed": list_offsets(t, topic, -1, isolation_level=READ_COMMITTED)["offset"],
    }


def describe(t: Target, transactional_id: str, node: int) -> dict[str, Any]:
    """DescribeTransactions v0 of ``transactional_id`` at ``node``: error, state, epoch, topics."""
    [state] = t.call(
        "DescribeTransactions", 0, DescribeTransactionsRequest(transactional_ids=[transactional_id]), node
    ).transaction_states
    return {
        "error": code_name(state.error_code),
        "state": state.transaction_state,
        "producer_epoch": state.producer_epoch,
        "timeout_ms": state.transaction_timeout_ms,
        "topics": sorted((x.topic, sorted(x.partitions)) for x in state.topics),
    }


def _end_to_end(t: Target, topic: str, commit: bool) -> dict[str, Any]:
    new_topic(t, topic)
    node = coordinator(t, topic)
    producer = init(t, topic, node)
    out: dict[str, Any] = {"epoch": producer[1]}
    out["add"] = add_partitions(t, topic, producer, node, {topic: [0]})
    out["produce"] = transactional_produce(t, topic, producer, [b"a", b"b"])
    out["open"] = describe(t, topic, node)
    out["end"] = end_txn(t, topic, producer, node, commit)
    out["read_committed"] = read_committed(t, topic)
    deadline = time.monotonic() + WAIT_S
    while (state := describe(t, topic, node))["state"].startswith("Prepare") and time.monotonic() < deadline:
        time.sleep(0.1)
    out["after"] = state
    return out


@scenario("txn/commit")
def _commit(t: Target) -> Any:
    """Init, add a partition, two transactional records, EndTxn COMMIT: the partition's LSO moves
    past the marker, nothing listed aborted; the transaction ends CompleteCommit with no partitions."""
    return _end_to_end(t, "txn-commit", commit=True)


@scenario("txn/abort")
def _abort(t: Target) -> Any:
    """The same with EndTxn ABORT: a READ_COMMITTED Fetch lists the aborted transaction from offset 0;
    CompleteAbort."""
    return _end_to_end(t, "txn-abort", commit=False)


@scenario("txn/end-txn-with-nothing-to-end")
def _end_empty(t: Target) -> Any:
    """EndTxn COMMIT and ABORT right after InitProducerId (state Empty)."""
    node = coordinator(t, "txn-empty")
    producer = init(t, "txn-empty", node)
    return {
        "commit": end_txn(t, "txn-empty", producer, node, commit=True),
        "abort": end_txn(t, "txn-empty", producer, node, commit=False),
    }


@scenario("txn/unknown-transactional-id")
def _unknown_id(t: Target) -> Any:
    """AddPartitionsToTxn and EndTxn for a transactional id never initialized, and its description."""
    new_topic(t, "txn-unknown")
    node = coordinator(t, "txn-never-initialized")
    return {
        "add": add_partitions(t, "txn-never-initialized", (4242, 0), node, {"txn-unknown": [0]}),
        "end": end_txn(t, "txn-never-initialized", (4242, 0), node, commit=True),
        "describe": describe(t, "txn-never-initialized", node),
    }


@scenario("txn/stale-epoch-after-a-new-init")
def _fenced(t: Target) -> Any:
    """A second InitProducerId bumps the epoch (aborting the open transaction); the first
    producer's AddPartitionsToTxn and EndTxn are then fenced."""
    topic = "txn-fenced"
    new_topic(t, topic)
    node = coordinator(t, topic)
    first = init(t, topic, node)
    add_partitions(t, topic, first, node, {topic: [0]})
    transactional_produce(t, topic, first, [b"zombie"])
    second = init(t, topic, node)
    return {
        "epochs": [first[1], second[1]],
        "same_producer_id": first[0] == second[0],
        "add_with_old_epoch": add_partitions(t, topic, first, node, {topic: [0]}),
        "end_with_old_epoch": end_txn(t, topic, first, node, commit=True),
        "read_committed": read_committed(t, topic),
    }


@scenario("txn/add-partitions-of-an-unknown-topic")
def _unknown_topic(t: Target) -> Any:
    """AddPartitionsToTxn naming a partition that does not exist beside one that does."""
    topic = "txn-add-unknown"
    new_topic(t, topic)
    node = coordinator(t, topic)
    producer = init(t, topic, node)
    return add_partitions(t, topic, producer, node, {topic: [0, 7], "txn-no-such-topic": [0]})


@scenario("txn/produce-to-a-partition-not-added")
def _not_added(t: Target) -> Any:
    """A transactional Produce v9 for a partition never added to the transaction: the leader
    verifies it with the coordinator (KIP-890) and refuses it; nothing is appended."""
    topic = "txn-not-added"
    new_topic(t, topic)
    node = coordinator(t, topic)
    producer = init(t, topic, node)
    return {
        "produce": transactional_produce(t, topic, producer, [b"hanging"]),
        "latest": list_offsets(t, topic, -1)["offset"],
    }


def _stable_offsets(t: Target, node: int, group: str, topic: str) -> dict[str, Any]:
    """OffsetFetch v7 of ``topic``-0 with ``require_stable``: error and committed offset."""
    request = OffsetFetchRequest(
        group_id=group,
        require_stable=True,
        topics=[OffsetFetchRequestTopic(name=topic, partition_indexes=[0])],
    )
    [part] = t.call("OffsetFetch", 7, request, node).topics[0].partitions
    return {"error": code_name(part.error_code), "offset": part.committed_offset}


@scenario("txn/offsets-sent-to-the-transaction")
def _offsets(t: Target) -> Any:
    """AddOffsetsToTxn then TxnOffsetCommit v3 (a group with no members: generation -1): an
    OffsetFetch requiring stable offsets answers UNSTABLE_OFFSET_COMMIT until EndTxn COMMIT, then
    the offset; TxnOffsetCommit of an unknown partition and of a stale epoch."""
    topic, group = "txn-offsets", "txn-offsets-group"
    new_topic(t, topic)
    node = coordinator(t, topic)
    producer = init(t, topic, node)
    add = _retrying(
        lambda: t.call(
            "AddOffsetsToTxn",
            3,
            AddOffsetsToTxnRequest(
                transactional_id=topic, producer_id=producer[0], producer_epoch=producer[1], group_id=group
            ),
            node,
        ),
        lambda a: a.error_code,
    )
    group_node = group_coordinator(t, group)

    def commit(partition: int, epoch: int) -> list[Any]:
        request = TxnOffsetCommitRequest(
            transactional_id=topic,
            group_id=group,
            producer_id=producer[0],
            producer_epoch=epoch,
            generation_id=-1,
            member_id="",
            topics=[
                TxnOffsetCommitRequestTopic(
                    name=topic,
                    partitions=[
                        TxnOffsetCommitRequestPartition(
                            partition_index=partition, committed_offset=7, committed_metadata="m"
                        )
                    ],
                )
            ],
        )
        answer = t.call("TxnOffsetCommit", 3, request, group_node)
        return [[p.partition_index, code_name(p.error_code)] for x in answer.topics for p in x.partitions]

    out: dict[str, Any] = {"add_offsets": code_name(add.error_code)}
    out["unknown_partition"] = commit(5, producer[1])
    out["commit"] = commit(0, producer[1])
    out["pending"] = _stable_offsets(t, group_node, group, topic)
    out["end"] = end_txn(t, topic, producer, node, commit=True)
    deadline = time.monotonic() + WAIT_S
    while (stable := _stable_offsets(t, group_node, group, topic))[
        "error"
    ] != "NONE" and time.monotonic() < deadline:
        time.sleep(0.1)
    out["committed"] = stable
    return out


@scenario("txn/list-transactions")
def _list(t: Target) -> Any:
    """ListTransactions v1 at each transactional id's coordinator, filtered by state (Ongoing, and a
    state Kafka does not know) and by a producer id no one has: the open transaction is listed."""
    topic = "txn-listed"
    new_topic(t, topic)
    node = coordinator(t, topic)
    producer = init(t, topic, node)
    add_partitions(t, topic, producer, node, {topic: [0]})

    def listed(states: list[str], producer_ids: list[int]) -> dict[str, Any]:
        answer = t.call(
            "ListTransactions",
            1,
            ListTransactionsRequest(
                state_filters=states, producer_id_filters=producer_ids, duration_filter=-1
            ),
            node,
        )
        return {
            "error": code_name(answer.error_code),
            "unknown_state_filters": sorted(answer.unknown_state_filters),
            "mine": sorted(
                (s.transactional_id, s.transaction_state)
                for s in answer.transaction_states
                if s.transactional_id == topic
            ),
        }

    out = {
        "ongoing": listed(["Ongoing"], []),
        "unknown_state": listed(["Ongoing", "Sleeping"], []),
        "other_producer": listed([], [123456789]),
    }
    end_txn(t, topic, producer, node, commit=False)
    return out
