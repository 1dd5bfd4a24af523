"""The ``__transaction_state`` record codec against the bytes Kafka 4.3.1's ``TransactionLog``
writes (``fixtures/transaction_log_records.json``, printed by
``tests/peers/kafka/SerializeTransactionRecords.java``; ``tests/interop/test_kafka_transaction_records.py``
checks the fixture is current): the same transitions encode to Kafka's bytes at each
``transaction.version`` level and Kafka's bytes read back to the same metadata."""

import json
from pathlib import Path

import pytest

from kafkette.broker.transaction.transaction_log import (
    TransactionLogError,
    TxnRecord,
    TxnTombstone,
    UnknownKeyVersion,
    UnknownValueVersion,
    key_to_bytes,
    read,
    read_txn_record_key,
    value_to_bytes,
)
from kafkette.broker.transaction.transaction_metadata import TxnTransitMetadata
from kafkette.broker.transaction.transaction_state import TransactionState, TransactionVersion
from kafkette.protocol.topic_partition import TopicPartition as TP

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "transaction_log_records.json").read_text())
S = TransactionState
NONE: frozenset[TP] = frozenset()
ONE = frozenset({TP("orders", 3)})
SEVERAL = frozenset(
    {TP("orders", 0), TP("orders", 7), TP("orders", 2), TP("payments", 1), TP("audit", 0), TP("audit", 12)}
)


def _transits(tv: TransactionVersion) -> dict[str, TxnTransitMetadata]:
    """The transitions SerializeTransactionRecords.java writes, by name."""
    t = 1700000000000
    return {
        f"tv{tv}_empty": TxnTransitMetadata(1000, -1, -1, 0, -1, 60000, S.EMPTY, NONE, -1, t, tv),
        f"tv{tv}_ongoing_one": TxnTransitMetadata(
            1000, 999, -1, 5, 4, 60000, S.ONGOING, ONE, t + 100, t + 200, tv
        ),
        f"tv{tv}_prepare_commit_several": TxnTransitMetadata(
            1000, 1000, 2000, 32767, 32766, 900000, S.PREPARE_COMMIT, SEVERAL, t + 100, t + 300, tv
        ),
        f"tv{tv}_complete_abort": TxnTransitMetadata(
            2000, 1000, -1, 0, 32766, 900000, S.COMPLETE_ABORT, NONE, t + 100, t + 400, tv
        ),
    }


CASES = [(name, tv, transit) for tv in TransactionVersion for name, transit in _transits(tv).items()]
KAFKA = {r["name"]: bytes.fromhex(r["value"]) for r in FIXTURE["records"]}
KEY = bytes.fromhex(FIXTURE["key"])


def test_fixture_is_of_the_pinned_kafka_and_covers_every_case():
    assert FIXTURE["kafka_version"] == "4.3.1"
    assert sorted(KAFKA) == sorted(name for name, _, _ in CASES)


def test_key_is_kafkas():
    assert key_to_bytes(FIXTURE["transactional_id"]) == KEY
    assert read_txn_record_key(KEY) == FIXTURE["transactional_id"]


@pytest.mark.parametrize(("name", "tv", "transit"), CASES, ids=[c[0] for c in CASES])
def test_value_is_kafkas_bytes(name, tv, transit):
    assert value_to_bytes(transit, tv).hex() == KAFKA[name].hex()


@pytest.mark.parametrize(("name", "tv", "transit"), CASES, ids=[c[0] for c in CASES])
def test_kafkas_value_reads_back(name, tv, transit):
    result = read(KEY, KAFKA[name])
    assert isinstance(result, TxnRecord)
    md = result.metadata
    assert result.transactional_id == md.transactional_id == FIXTURE["transactional_id"]
    level = tv.transaction_log_value_version
    assert (md.producer_id, md.producer_epoch, md.txn_timeout_ms, md.state) == (
        transit.producer_id,
        transit.producer_epoch,
        transit.txn_timeout_ms,
        transit.txn_state,
    )
    assert md.topic_partitions == set(transit.topic_partitions)
    assert (md.txn_start_timestamp, md.txn_last_update_timestamp) == (
        transit.txn_start_timestamp,
        transit.txn_last_update_timestamp,
    )
    assert md.last_producer_epoch == -1  # not in the log
    assert md.prev_producer_id == (transit.prev_producer_id if level else -1)
    assert md.next_producer_id == (transit.next_producer_id if level else -1)
    assert md.client_transaction_version == (tv if level else TransactionVersion.TV_0)
    assert md.pending_state is None


def test_tombstone_and_unknown_versions():
    assert read(KEY, None) == TxnTombstone(FIXTURE["transactional_id"])
    assert read(b"\x00\x01" + KEY[2:], b"") == UnknownKeyVersion(1)
    assert read(KEY, b"\x00\x02" + KAFKA["tv2_empty"][2:]) == UnknownValueVersion(2)


def test_partitions_in_the_empty_state_cannot_be_written():
    transit = TxnTransitMetadata(1, -1, -1, 0, -1, 1, S.EMPTY, ONE, -1, 0, TransactionVersion.TV_2)
    with pytest.raises(TransactionLogError, match="not expected to have any partitions"):
        value_to_bytes(transit, TransactionVersion.TV_2)


def test_malformed_values_are_clear_errors():
    with pytest.raises(TransactionLogError):
        read(KEY, KAFKA["tv1_ongoing_one"][:-3])
    bad_state = bytearray(KAFKA["tv0_complete_abort"])
    bad_state[2 + 8 + 2 + 4] = 9
    with pytest.raises(TransactionLogError, match="Unknown transaction state id 9"):
        read(KEY, bytes(bad_state))
    with pytest.raises(TransactionLogError, match="Unknown version 1"):
        read_txn_record_key(b"\x00\x01\x00\x00")
