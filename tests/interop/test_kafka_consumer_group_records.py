"""The golden bytes of KIP-848 consumer group records
(``tests/unit/broker/group/fixtures/consumer_group_records.json``, which the unit tests hold
Kafkette's codec to) are still what Kafka writes: Kafka's code, with the jars of the test peer
(``tests/peers/kafka_peer.py``), prints them again (``tests/peers/kafka/SerializeGroupRecords.java``)
and the two must be equal.  No Java or Maven fails the test, naming what is missing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.peers import kafka_peer

GENERATOR = Path(kafka_peer.__file__).parent / "kafka" / "SerializeGroupRecords.java"
FIXTURE = Path(__file__).parents[1] / "unit" / "broker" / "group" / "fixtures" / "consumer_group_records.json"
GENERATOR_TIMEOUT_S = 240

pytestmark = pytest.mark.timeout(GENERATOR_TIMEOUT_S + 60)


def test_the_consumer_group_records_fixture_is_what_the_peers_kafka_writes():
    try:
        printed = kafka_peer.print_from_kafka(GENERATOR, GENERATOR_TIMEOUT_S)
    except kafka_peer.PeerUnavailable as exc:
        pytest.fail(f"the Apache Kafka peer cannot run here: {exc}")
    fixture = json.loads(FIXTURE.read_text())
    assert fixture["kafka_version"] == kafka_peer.KAFKA_VERSION
    assert json.loads(printed) == fixture, (
        f"{FIXTURE} is not what Apache Kafka {kafka_peer.KAFKA_VERSION} writes: regenerate it with "
        f"java -cp '{kafka_peer.cache_dir()}/libs/*' {GENERATOR} > {FIXTURE}"
    )
