"""server.properties with Apache Kafka's keys: every key of Kafka's broker config table is
accepted (the ones Kafkette does not use are listed for one start-up warning), a key that is
neither Kafka's nor Kafkette's is refused with the closest known names, and Kafka's synonyms
(``broker.id``, ``log.dir``, ``metadata.log.dir``), controller and inter-broker listeners and
``controller.quorum.bootstrap.servers`` follow Kafka's ``KafkaConfig`` rules."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kafkette.broker.config import (
    BROKER_CONFIGS,
    INTERNAL_BROKER_CONFIGS,
    SECURITY_CONFIG_NAMES,
    ConfigError,
    KafkaConfig,
)
from kafkette.broker.kafka_broker_config_names import KAFKA_BROKER_CONFIG_NAMES
from kafkette.common.security.standard_authorizer import StandardAuthorizerConfig

pytestmark = pytest.mark.timeout(30)

KAFKA_SAMPLE = Path(__file__).resolve().parents[2] / "peers" / "kafka" / "server.properties"
COMBINED = {
    "node.id": "1",
    "process.roles": "broker,controller",
    "controller.quorum.voters": "1@localhost:9093",
    "listeners": "PLAINTEXT://:9092,CONTROLLER://:9093",
    "controller.listener.names": "CONTROLLER",
}


def _config(**props: str) -> KafkaConfig:
    return KafkaConfig({"node.id": "1", **props})


def test_a_misspelled_kafka_key_is_refused_naming_the_closest_one():
    with pytest.raises(ConfigError) as raised:
        _config(**{"num.netwrk.threads": "3"})
    assert (
        str(raised.value) == "Unknown configuration 'num.netwrk.threads'. Did you mean 'num.network.threads'?"
    )


def test_a_misspelled_key_close_to_several_names_them_all_and_counts_the_other_unknown_keys():
    with pytest.raises(ConfigError) as raised:
        _config(**{"log.dri": "/d", "zzz.qqq": "1"})
    assert str(raised.value) == (
        "Unknown configuration 'log.dri'. Did you mean one of: 'log.dir', 'log.dirs'? (and 1 more: zzz.qqq)"
    )


def test_a_key_far_from_every_known_one_says_it_is_neither_kafkettes_nor_kafkas():
    with pytest.raises(
        ConfigError,
        match=r"^Unknown configuration 'zzz.qqq' \(no such config in Kafkette or "
        r"Apache Kafka 4.3.1\)$",
    ):
        _config(**{"zzz.qqq": "1"})


def test_every_key_of_kafkas_broker_config_table_is_accepted_and_the_unused_ones_listed():
    ours = {key.name for key in (*BROKER_CONFIGS, *INTERNAL_BROKER_CONFIGS)}
    unused = sorted(KAFKA_BROKER_CONFIG_NAMES - ours - SECURITY_CONFIG_NAMES - {"authorizer.class.name"})
    config = _config(**dict.fromkeys(unused, "any value: not read"))  # a class name is read: see below
    assert config.unused_configs == unused
    assert {
        "num.network.threads",
        "num.io.threads",
        "socket.send.buffer.bytes",
        "socket.receive.buffer.bytes",
        "num.recovery.threads.per.data.dir",
        "transaction.two.phase.commit.enable",
        "share.coordinator.state.topic.min.isr",
        "ssl.keymanager.algorithm",
    } <= set(unused)
    assert "listener.security.protocol.map" not in unused  # read by the listeners


def test_the_security_configs_the_listeners_read_are_not_listed_unused():
    config = _config(
        **{
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,KAFKA:PLAINTEXT",
            "ssl.keystore.location": "/k.pem",
            "listener.name.kafka.ssl.truststore.location": "/t.pem",
            "listener.name.kafka.scram-sha-256.sasl.jaas.config": "x",
            "ssl.keymanager.algorithm": "SunX509",
        }
    )
    assert config.unused_configs == ["ssl.keymanager.algorithm"]


def test_kafkas_per_listener_form_of_a_key_is_accepted_and_listed_unused():
    config = _config(
        **{
            "listener.name.controller.ssl.keymanager.algorithm": "SunX509",
            "listener.name.sasl_ssl.plain.sasl.login.class": "x",
        }
    )
    assert config.unused_configs == [
        "listener.name.controller.ssl.keymanager.algorithm",
        "listener.name.sasl_ssl.plain.sasl.login.class",
    ]
    with pytest.raises(
        ConfigError, match="Unknown configuration 'listener.name.controller.ssl.keystore.locaton'"
    ):
        _config(**{"listener.name.controller.ssl.keystore.locaton": "/k.jks"})


def test_a_used_key_keeps_its_validation():
    with pytest.raises(ConfigError, match="Invalid value abc for configuration log.segment.bytes"):
        _config(**{"log.segment.bytes": "abc", "num.io.threads": "8"})


def test_kafkas_sample_server_properties_is_accepted_listing_the_keys_kafkette_does_not_use():
    config = KafkaConfig.from_file(str(KAFKA_SAMPLE))
    assert config.unused_configs == [
        "num.io.threads",
        "num.network.threads",
        "num.recovery.threads.per.data.dir",
        "share.coordinator.state.topic.min.isr",
        "share.coordinator.state.topic.replication.factor",
        "socket.receive.buffer.bytes",
        "socket.send.buffer.bytes",
    ]
    assert (config.node_id, config.log_dirs, config.metadata_log_dir) == (
        1,
        ["/tmp/kraft-combined-logs"],
        "/tmp/kraft-combined-logs",
    )
    assert config.listener == ("", 9092)  # PLAINTEXT, the brokers' and the SDK's; CONTROLLER is the voters'
    assert [e.name for e in config.controller_endpoints] == ["CONTROLLER"]
    assert config.quorum_voters == {1: ("localhost", 9093)}


# --- log.dir, log.dirs, metadata.log.dir ----------------------------------------------------


def test_log_dir_alone_sets_the_log_dirs():
    config = _config(**{"log.dir": "/data/a,/data/b"})
    assert (config.log_dirs, config.metadata_log_dir, config.unused_configs) == (
        ["/data/a", "/data/b"],
        "/data/a",
        [],
    )


def test_log_dirs_wins_over_log_dir_which_is_then_listed_unused():
    config = _config(**{"log.dir": "/data/a", "log.dirs": "/data/b"})
    assert (config.log_dirs, config.unused_configs) == (["/data/b"], ["log.dir"])


def test_metadata_log_dir_places_the_metadata_log_else_the_first_log_dir():
    assert _config(**{"log.dirs": "/d1,/d2"}).metadata_log_dir == "/d1"
    assert _config(**{"log.dirs": "/d1", "metadata.log.dir": "/meta"}).metadata_log_dir == "/meta"


# --- broker.id ------------------------------------------------------------------------------


def test_broker_id_alone_is_the_node_id():
    config = KafkaConfig({"broker.id": "3"})
    assert (config.node_id, config.broker_id) == (3, 3)


def test_broker_id_and_node_id_must_be_equal():
    assert KafkaConfig({"broker.id": "3", "node.id": "3"}).node_id == 3
    with pytest.raises(
        ConfigError,
        match=r"^You must set `node.id` to the same value as `broker.id` "
        r"\(node.id=3, broker.id=4\)$",
    ):
        KafkaConfig({"broker.id": "4", "node.id": "3"})


def test_a_bad_broker_id_is_named_and_neither_id_is_missing_reported():
    with pytest.raises(ConfigError, match="Invalid value x for configuration broker.id"):
        KafkaConfig({"broker.id": "x"})
    with pytest.raises(ConfigError, match="Missing required configuration 'node.id'"):
        KafkaConfig({"log.dirs": "/d"})


# --- controller.listener.names, inter.broker.listener.name ------------------------------------


def test_the_brokers_listener_is_not_the_controllers_even_when_listed_first():
    config = KafkaConfig({**COMBINED, "listeners": "CONTROLLER://127.0.0.1:9093,PLAINTEXT://127.0.0.1:9092"})
    assert config.listener == ("127.0.0.1", 9092)
    assert [(e.name, e.port) for e in config.controller_endpoints] == [("CONTROLLER", 9093)]


def test_without_controller_listener_names_the_controller_shares_the_brokers_listener():
    config = _config(**{"listeners": "PLAINTEXT://127.0.0.1:9092"})
    assert [e.name for e in config.controller_endpoints] == ["PLAINTEXT"]


@pytest.mark.parametrize(
    ("props", "message"),
    [
        (
            {"controller.listener.names": "CTRL"},
            "controller.listener.names must contain at least one value appearing in the 'listeners' "
            "configuration when running the KRaft controller role",
        ),
        (
            {"controller.listener.names": "CONTROLLER,CTRL"},
            "controller.listener.names must only contain values appearing in the 'listeners' configuration "
            "when running the KRaft controller role",
        ),
        (
            {"process.roles": "broker", "node.id": "2"},
            "controller.listener.names must not contain a value appearing in the 'listeners' configuration "
            "when running KRaft with just the broker role",
        ),
        (
            {"process.roles": "controller"},
            "The listeners config must only contain KRaft controller listeners from "
            "controller.listener.names when process.roles=controller",
        ),
        (
            {"listeners": "CONTROLLER://:9093"},
            "There must be at least one broker advertised listener. Perhaps all listeners appear in "
            "controller.listener.names?",
        ),
        (
            {"inter.broker.listener.name": "CONTROLLER"},
            "inter.broker.listener.name must be a listener name defined in advertised.listeners. The valid "
            "options based on currently configured listeners are PLAINTEXT",
        ),
        (
            {
                "listeners": "PLAINTEXT://:9092,CONTROLLER://:9093,KAFKA://:9094",
                "inter.broker.listener.name": "KAFKA",
            },
            "Invalid value KAFKA for configuration inter.broker.listener.name: it speaks kafka",
        ),
        (
            {"listener.wire.protocol.map": "CONTROLLER:kafka"},
            "Invalid value for configuration listener.wire.protocol.map: CONTROLLER is a listener of "
            "controller.listener.names; the controller speaks kafkette",
        ),
    ],
)
def test_controller_and_inter_broker_listeners_follow_kafkas_rules(props, message):
    with pytest.raises(ConfigError, match="^" + re.escape(message)):
        KafkaConfig({**COMBINED, **props})


def test_inter_broker_listener_name_picks_the_brokers_listener():
    config = KafkaConfig(
        {
            **COMBINED,
            "listeners": "PLAINTEXT://:9092,CONTROLLER://:9093,INTERNAL://:9095",
            "inter.broker.listener.name": "INTERNAL",
        }
    )
    assert config.listener == ("", 9095)
    assert config.unused_configs == []


def test_a_controller_only_node_listens_on_its_controller_listener():
    config = KafkaConfig(
        {**COMBINED, "process.roles": "controller", "listeners": "CONTROLLER://127.0.0.1:9093"}
    )
    assert config.listener == ("127.0.0.1", 9093)


# --- controller.quorum.bootstrap.servers --------------------------------------------------------


def test_bootstrap_servers_alone_naming_this_controller_make_it_the_only_voter():
    props = {key: value for key, value in COMBINED.items() if key != "controller.quorum.voters"}
    config = KafkaConfig({**props, "controller.quorum.bootstrap.servers": "localhost:9093"})
    assert config.quorum_voters == {1: ("localhost", 9093)}
    assert config.quorum_from_bootstrap_servers and config.unused_configs == []


def test_bootstrap_servers_beside_voters_are_listed_unused():
    config = KafkaConfig({**COMBINED, "controller.quorum.bootstrap.servers": "localhost:9093"})
    assert (config.quorum_from_bootstrap_servers, config.unused_configs) == (
        False,
        ["controller.quorum.bootstrap.servers"],
    )


@pytest.mark.parametrize(
    "props",
    [
        {
            "controller.quorum.bootstrap.servers": "localhost:9093,localhost:9094"
        },  # a dynamic quorum of several
        {"controller.quorum.bootstrap.servers": "localhost:9099"},  # not this node's controller listener
        {
            "controller.quorum.bootstrap.servers": "localhost:9093",
            "process.roles": "broker",
            "node.id": "2",
            "listeners": "PLAINTEXT://:9092",
        },  # a broker: which node ids are the voters?
    ],
)
def test_a_dynamic_quorum_is_refused_asking_for_controller_quorum_voters(props):
    base = {key: value for key, value in COMBINED.items() if key != "controller.quorum.voters"}
    with pytest.raises(
        ConfigError,
        match=r"^controller.quorum.bootstrap.servers without controller.quorum.voters "
        r"\(a dynamic quorum, KIP-853\).*set controller.quorum.voters",
    ):
        KafkaConfig({**base, **props})


def test_a_controller_without_voters_or_bootstrap_servers_gets_kafkas_message():
    base = {key: value for key, value in COMBINED.items() if key != "controller.quorum.voters"}
    with pytest.raises(
        ConfigError,
        match="^If using process.roles, either controller.quorum.bootstrap.servers must "
        "contain the set of bootstrap controllers or controller.quorum.voters must "
        "contain a parseable set of controllers.$",
    ):
        KafkaConfig(base)


STANDARD_AUTHORIZER = "org.apache.kafka.metadata.authorizer.StandardAuthorizer"


def test_kafkas_standard_authorizer_is_accepted_with_its_super_users_and_default():
    config = KafkaConfig(
        {
            **COMBINED,
            "authorizer.class.name": STANDARD_AUTHORIZER,
            "super.users": "User:admin; User:CN=broker,O=kafka",
            "allow.everyone.if.no.acl.found": "true",
        }
    )
    assert config.authorizer is not None
    assert config.authorizer.super_users == {"User:admin", "User:CN=broker,O=kafka"}
    assert config.authorizer.allow_everyone_if_no_acl_found is True
    assert config.unused_configs == []
    assert KafkaConfig({**COMBINED, "authorizer.class.name": STANDARD_AUTHORIZER}).authorizer == (
        StandardAuthorizerConfig(frozenset(), False)
    )


def test_no_authorizer_is_kafkas_default_and_its_settings_are_then_unused():
    assert KafkaConfig(COMBINED).authorizer is None
    config = KafkaConfig({**COMBINED, "authorizer.class.name": "", "super.users": "User:admin"})
    assert config.authorizer is None
    assert config.unused_configs == ["authorizer.class.name", "super.users"]


@pytest.mark.parametrize("authorizer", ["my.Authorizer", "kafka.security.authorizer.AclAuthorizer"])
def test_an_authorizer_other_than_kafkas_standard_one_is_refused_naming_the_config(authorizer):
    with pytest.raises(
        ConfigError,
        match=f"^Invalid value {re.escape(authorizer)} for configuration authorizer.class.name: only "
        f"{re.escape(STANDARD_AUTHORIZER)} is supported$",
    ):
        KafkaConfig({**COMBINED, "authorizer.class.name": authorizer})


def test_a_super_user_that_is_not_type_and_name_is_refused():
    with pytest.raises(
        ConfigError, match="expected a string in format principalType:principalName but got admin"
    ):
        KafkaConfig({**COMBINED, "authorizer.class.name": STANDARD_AUTHORIZER, "super.users": "admin"})
