"""controller.quorum.voters against process.roles: a controller must be a voter, a voter is listed once."""

from __future__ import annotations

import pytest

from kafkette.broker.config import ConfigError, KafkaConfig


def _config(**props: str) -> KafkaConfig:
    return KafkaConfig(
        {"node.id": "2", "controller.quorum.voters": "1@127.0.0.1:9092,2@127.0.0.1:9093", **props}
    )


def test_a_controller_role_needs_the_node_among_the_voters():
    assert _config(**{"process.roles": "broker,controller"}).node_id == 2
    with pytest.raises(
        ConfigError,
        match=r"the node id 3 must be included in the set of voters "
        r"controller.quorum.voters=\[1, 2\]",
    ):
        _config(**{"node.id": "3", "process.roles": "controller"})


def test_a_broker_only_node_need_not_be_a_voter():
    assert _config(**{"node.id": "3", "process.roles": "broker"}).node_id == 3


def test_a_voter_listed_twice_is_refused():
    with pytest.raises(ConfigError, match="a node id appears twice"):
        _config(**{"controller.quorum.voters": "1@127.0.0.1:9092,1@127.0.0.1:9093"})


def test_a_node_about_to_start_needs_the_voters_a_broker_only_node_too():
    _config(**{"node.id": "3", "process.roles": "broker"}).require_quorum()
    alone = KafkaConfig(
        {"node.id": "3", "process.roles": "broker"}
    )  # its parts can be built without a quorum
    with pytest.raises(
        ConfigError,
        match=r"^If using process.roles, either controller.quorum.bootstrap.servers "
        r"must contain .* A broker reaches the controllers at "
        r"controller.quorum.voters \(id@host:port of every voter\).$",
    ):
        alone.require_quorum()
