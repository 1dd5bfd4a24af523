"""The names of Apache Kafka's broker configs that Kafkette accepts
(``kafkette.broker.kafka_broker_config_names``) are Kafka's own: Kafka's code, with the jars of
the test peer (``tests/peers/kafka_peer.py``), prints them again
(``tests/peers/kafka/PrintBrokerConfigNames.java``) and the two lists must be equal.  No Java or
Maven fails the test, naming what is missing."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafkette.broker import kafka_broker_config_names
from tests.peers import kafka_peer

GENERATOR = Path(kafka_peer.__file__).parent / "kafka" / "PrintBrokerConfigNames.java"
GENERATOR_TIMEOUT_S = 240

pytestmark = pytest.mark.timeout(GENERATOR_TIMEOUT_S + 60)


def kafka_broker_config_names_from_kafka() -> list[str]:
    """``kafka.server.KafkaConfig.configDef().names()`` of the peer's Kafka, sorted; fails the test
    when Java or Maven is missing."""
    try:
        printed = kafka_peer.print_from_kafka(GENERATOR, GENERATOR_TIMEOUT_S)
    except kafka_peer.PeerUnavailable as exc:
        pytest.fail(f"the Apache Kafka peer cannot run here: {exc}")
    return printed.split()


def test_the_kafka_broker_config_names_are_those_of_the_peers_kafka():
    assert kafka_broker_config_names.KAFKA_VERSION == kafka_peer.KAFKA_VERSION, (
        "the peer's Kafka changed: regenerate broker/kafka_broker_config_names.py"
    )
    names = kafka_broker_config_names_from_kafka()
    assert names == sorted(names) and len(names) > 300, names[:20]
    missing = sorted(set(names) - kafka_broker_config_names.KAFKA_BROKER_CONFIG_NAMES)
    not_kafkas = sorted(kafka_broker_config_names.KAFKA_BROKER_CONFIG_NAMES - set(names))
    assert not missing and not not_kafkas, (
        f"broker/kafka_broker_config_names.py differs from Apache Kafka {kafka_peer.KAFKA_VERSION}: missing "
        f"{missing}; not Kafka's {not_kafkas}; regenerate it from java -cp '{kafka_peer.cache_dir()}/libs/*' "
        f"{GENERATOR}"
    )
