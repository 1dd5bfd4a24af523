"""What Kafkette lists for Kafka's broker configs nobody set
(``kafkette.broker.kafka_broker_config_defaults``) is Kafka's own: Kafka's code, with the jars of the test
peer (``tests/peers/kafka_peer.py``), prints it again (``tests/peers/kafka/PrintBrokerConfigDefaults.java``)
and the two must be equal.  No Java or Maven fails the test, naming what is missing."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafkette.broker.kafka_broker_config_defaults import KAFKA_BROKER_CONFIG_DEFAULTS
from tests.peers import kafka_peer

GENERATOR = Path(kafka_peer.__file__).parent / "kafka" / "PrintBrokerConfigDefaults.java"
GENERATOR_TIMEOUT_S = 240

pytestmark = pytest.mark.timeout(GENERATOR_TIMEOUT_S + 60)


def test_the_broker_config_defaults_are_those_of_the_peers_kafka():
    try:
        printed = kafka_peer.print_from_kafka(GENERATOR, GENERATOR_TIMEOUT_S)
    except kafka_peer.PeerUnavailable as exc:
        pytest.fail(f"the Apache Kafka peer cannot run here: {exc}")
    rows = [line.split("\t", 1) for line in printed.splitlines() if line.strip()]
    table = {name: None if value == "<null>" else value for name, value in rows}
    assert len(table) > 300 and table["background.threads"] == "10"
    differing = sorted(set(table.items()) ^ set(KAFKA_BROKER_CONFIG_DEFAULTS.items()), key=str)
    assert not differing, (
        f"broker/kafka_broker_config_defaults.py differs from Apache Kafka {kafka_peer.KAFKA_VERSION}: "
        f"{differing[:20]}; regenerate it from java -cp '{kafka_peer.cache_dir()}/libs/*' {GENERATOR}"
    )
