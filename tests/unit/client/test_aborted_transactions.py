"""read_committed filtering of a fetch answer: aborted transactions' batches and control batches
are dropped, per producer id from the aborted transaction's first offset to its ABORT marker."""

from __future__ import annotations

import pytest

from kafkette.client.consumer.aborted_transactions import (
    AbortedTransactionFilter,
    isolation_level_id,
)
from kafkette.client.consumer.fetcher import next_fetch_offset, parse_records
from kafkette.protocol.control_record import (
    ControlRecordType,
    EndTransactionMarker,
    build_end_txn_marker_batch,
)
from kafkette.protocol.record_batch import assign_offsets, build_kafka_batch, validate_batches
from kafkette.protocol.topic_partition import TopicPartition

TP = TopicPartition("t", 0)


def _data(pid: int, *values: str) -> bytes:
    return build_kafka_batch(
        [(None, v.encode(), None, 1000) for v in values],
        producer_id=pid,
        producer_epoch=0,
        base_sequence=0,
        transactional=pid >= 0,
    )


def _plain(*values: str) -> bytes:
    return build_kafka_batch([(None, v.encode(), None, 1000) for v in values])


def _marker(pid: int, control_type: ControlRecordType) -> bytes:
    return build_end_txn_marker_batch(pid, 0, EndTransactionMarker(control_type, 0), 1000)


def _log(*batches: bytes) -> bytes:
    """The batches at consecutive offsets from 0, as the leader stores them."""
    buf = bytearray(b"".join(batches))
    assign_offsets(buf, validate_batches(buf), 0, 0)
    return bytes(buf)


ABORT, COMMIT = ControlRecordType.ABORT, ControlRecordType.COMMIT


def _values(buf: bytes, aborted, fetch_offset: int = 0) -> list[bytes]:
    return [r.value for r in parse_records(TP, buf, fetch_offset, AbortedTransactionFilter(aborted))]


def test_interleaved_transactions_keep_only_the_committed_one():
    # offsets: 0-1 pid 1 (aborted), 2 pid 2 (committed), 3 pid 1 abort marker, 4 pid 2 commit marker
    buf = _log(_data(1, "a1", "a2"), _data(2, "c1"), _marker(1, ABORT), _marker(2, COMMIT), _plain("p"))
    assert _values(buf, [(1, 0)]) == [b"c1", b"p"]
    # read_uncommitted (no filter) keeps every data record but still drops the control batches
    assert [r.value for r in parse_records(TP, buf, 0)] == [b"a1", b"a2", b"c1", b"p"]


def test_a_producer_id_is_aborted_only_until_its_abort_marker():
    buf = _log(_data(1, "a"), _marker(1, ABORT), _data(1, "next-txn"), _marker(1, COMMIT))
    assert _values(buf, [(1, 0)]) == [b"next-txn"]


def test_an_aborted_transaction_starting_later_leaves_earlier_batches_of_the_producer():
    buf = _log(_data(1, "committed"), _marker(1, COMMIT), _data(1, "aborted"), _marker(1, ABORT))
    assert _values(buf, [(1, 2)]) == [b"committed"]


def test_non_transactional_batches_of_an_aborted_producer_id_are_kept():
    idempotent = build_kafka_batch(
        [(None, b"idem", None, 1000)], producer_id=1, producer_epoch=0, base_sequence=0
    )
    buf = _log(_data(1, "a"), idempotent, _marker(1, ABORT))
    assert _values(buf, [(1, 0)]) == [b"idem"]


def test_unordered_aborted_transactions_of_several_producers():
    buf = _log(_data(3, "x"), _data(4, "y"), _marker(4, ABORT), _marker(3, ABORT), _data(5, "z"))
    aborted = [type("A", (), {"producer_id": 4, "first_offset": 1})(), (3, 0)]
    assert _values(buf, aborted) == [b"z"]


def test_records_below_the_fetch_offset_are_dropped_and_the_position_skips_control_batches():
    buf = _log(_data(1, "a", "b"), _marker(1, COMMIT))
    assert _values(buf, [], fetch_offset=1) == [b"b"]
    only_marker = _log(_data(1, "a"), _marker(1, COMMIT))
    assert _values(only_marker, None, fetch_offset=1) == []
    assert next_fetch_offset(only_marker, 1) == 2


def test_isolation_level_names():
    assert isolation_level_id("read_committed") == 1
    assert isolation_level_id("read_uncommitted") == 0
    with pytest.raises(ValueError, match="isolation_level"):
        isolation_level_id("READ_COMMITTED")
