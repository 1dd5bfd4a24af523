"""TransactionIndex (Kafka's TransactionIndex/AbortedTxn): the 34-byte entry format on disk,
collect_aborted_txns' range and completeness, truncation, and a corrupt file refused."""

from __future__ import annotations

import struct

import pytest

from kafkette.broker.log.transaction_index import (
    ENTRY_SIZE,
    AbortedTxn,
    CorruptTransactionIndexError,
    TransactionIndex,
)


def _index(tmp_path) -> TransactionIndex:
    return TransactionIndex(0, tmp_path / "00000000000000000000.txnindex")


def test_entries_are_written_in_kafkas_34_byte_format_and_read_back(tmp_path):
    index = _index(tmp_path)
    assert not index.path.exists()  # created at the first aborted transaction
    index.append(AbortedTxn(7, 0, 10, 11))
    index.append(AbortedTxn(8, 5, 20, 21))
    index.close()
    data = index.path.read_bytes()
    assert ENTRY_SIZE == 34 and len(data) == 68
    assert struct.unpack_from(">hqqqq", data, 34) == (0, 8, 5, 20, 21)
    assert _index(tmp_path).entries == [AbortedTxn(7, 0, 10, 11), AbortedTxn(8, 5, 20, 21)]


def test_collect_aborted_txns_returns_the_overlapping_entries_and_says_when_complete(tmp_path):
    index = _index(tmp_path)
    for aborted in (AbortedTxn(1, 0, 4, 5), AbortedTxn(2, 6, 9, 10), AbortedTxn(3, 12, 30, 31)):
        index.append(aborted)
    found = index.collect_aborted_txns(5, 12)
    assert found.aborted_transactions == [AbortedTxn(2, 6, 9, 10)]
    assert found.is_complete  # the entry ending at 30 is past the upper bound
    found = index.collect_aborted_txns(0, 100)
    assert [a.producer_id for a in found.aborted_transactions] == [1, 2, 3]
    assert not found.is_complete


def test_append_refuses_a_last_offset_going_backwards(tmp_path):
    index = _index(tmp_path)
    index.append(AbortedTxn(1, 0, 10, 11))
    with pytest.raises(ValueError, match="must increase sequentially"):
        index.append(AbortedTxn(2, 3, 9, 10))


def test_truncate_to_drops_entries_ending_at_or_after_the_offset_on_disk_too(tmp_path):
    index = _index(tmp_path)
    index.append(AbortedTxn(1, 0, 4, 5))
    index.append(AbortedTxn(2, 6, 9, 10))
    index.close()
    reopened = _index(tmp_path)
    reopened.truncate_to(9)
    reopened.close()
    assert _index(tmp_path).entries == [AbortedTxn(1, 0, 4, 5)]
    assert index.path.stat().st_size == ENTRY_SIZE


def test_a_file_of_a_partial_entry_is_corrupt(tmp_path):
    (tmp_path / "00000000000000000000.txnindex").write_bytes(b"\x00" * 35)
    with pytest.raises(CorruptTransactionIndexError, match="not a multiple"):
        _index(tmp_path)
