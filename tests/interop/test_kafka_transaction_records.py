"""The golden bytes of ``__transaction_state`` records
(``tests/unit/transaction/fixtures/transaction_log_records.json``, which the unit tests hold
Kafkette's codec to) are still what Kafka writes: Kafka's ``TransactionLog``, with the jars of the
test peer (``tests/peers/kafka_peer.py``), prints them again
(``tests/peers/kafka/SerializeTransactionRecords.java``) and the two must be equal.  No Java or Maven
fails the test, naming what is missing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.peers import kafka_peer

GENERATOR = Path(kafka_peer.__file__).parent / "kafka" / "SerializeTransactionRecords.java"
FIXTURE = Path(__file__).parents[1] / "unit" / "transaction" / "fixtures" / "transaction_log_records.json"
GENERATOR_TIMEOUT_S = 240

pytestmark = pytest.mark.timeout(GENERATOR_TIMEOUT_S + 60)


def test_the_transaction_records_fixture_is_what_the_peers_kafka_writes():
    try:
        printed = kafka_peer.print_from_kafka(GENERATOR, GENERATOR_TIMEOUT_S)
    except kafka_peer.PeerUnavailable as exc:
        pytest.fail(f"the Apache Kafka peer cannot run here: {exc}")
    assert json.loads(printed) == json.loads(FIXTURE.read_text()), (
        f"{FIXTURE} is not what Apache Kafka {kafka_peer.KAFKA_VERSION} writes: regenerate it with "
        f"java -cp '{kafka_peer.cache_dir()}/libs/*' {GENERATOR} > {FIXTURE}"
    )
