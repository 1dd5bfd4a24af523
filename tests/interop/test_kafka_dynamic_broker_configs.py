"""What Kafkette knows of Kafka's dynamic broker configs (``kafkette.broker.kafka_dynamic_broker_configs``:
each broker config's type and update mode, the SSL configs that need a listener prefix) is Kafka's
own: Kafka's code, with the jars of the test peer (``tests/peers/kafka_peer.py``), prints it again
(``tests/peers/kafka/PrintDynamicBrokerConfigs.java``) and the two must be equal.  No Java or Maven
fails the test, naming what is missing."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafkette.broker import kafka_dynamic_broker_configs as generated
from tests.peers import kafka_peer

GENERATOR = Path(kafka_peer.__file__).parent / "kafka" / "PrintDynamicBrokerConfigs.java"
GENERATOR_TIMEOUT_S = 240

pytestmark = pytest.mark.timeout(GENERATOR_TIMEOUT_S + 60)


def test_the_dynamic_broker_config_table_is_that_of_the_peers_kafka():
    try:
        printed = kafka_peer.print_from_kafka(GENERATOR, GENERATOR_TIMEOUT_S)
    except kafka_peer.PeerUnavailable as exc:
        pytest.fail(f"the Apache Kafka peer cannot run here: {exc}")
    rows = [line.split() for line in printed.splitlines() if line.strip()]
    security = {row[1] for row in rows if row[0] == "security"}
    table = {row[0]: (row[1], row[2]) for row in rows if row[0] != "security"}

    ours = {
        name: (kind, generated.KAFKA_BROKER_UPDATE_MODES[name])
        for name, kind in generated.KAFKA_BROKER_CONFIG_TYPES.items()
    }
    assert len(table) > 300 and "background.threads" in table
    differing = sorted(set(table.items()) ^ set(ours.items()))
    assert not differing and security == generated.KAFKA_DYNAMIC_SECURITY_CONFIGS, (
        f"broker/kafka_dynamic_broker_configs.py differs from Apache Kafka {kafka_peer.KAFKA_VERSION}: "
        f"{differing[:20]}; regenerate it from java -cp '{kafka_peer.cache_dir()}/libs/*' {GENERATOR}"
    )
