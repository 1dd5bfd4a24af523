"""ControllerConfig: every setting the controller reads, given to it explicitly.

Owns: the frozen ``ControllerConfig``.  The controller never reads a node's
``server.properties`` or the broker's ``KafkaConfig``: the process that runs it
(``kafkette.broker.server``, Kafka's ``KafkaRaftServer``) builds this from the node's
properties, so that a controller-only node needs no broker code.

Kafka concept: the explicit settings of ``QuorumController.Builder``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from kafkette.common.network.client_security import PLAINTEXT, ClientSecurity


@dataclass(frozen=True)
class ControllerConfig:
    """The controller's settings, with Kafka's property names as attributes.

    Attributes:
        node_id: ``node.id`` of the node running the controller.
        cluster_id: ``cluster.id``.
        num_partitions: ``num.partitions``, for CreateTopics without a count.
        default_replication_factor: ``default.replication.factor``.
        unclean_leader_election_enable: ``unclean.leader.election.enable`` (cluster-wide).
        delete_topic_enable: ``delete.topic.enable``.
        auto_leader_rebalance_enable: ``auto.leader.rebalance.enable``.
        leader_imbalance_per_broker_percentage: ``leader.imbalance.per.broker.percentage`` (%).
        leader_imbalance_check_interval_seconds: ``leader.imbalance.check.interval.seconds`` (s).
        broker_session_timeout_ms: ``broker.session.timeout.ms`` (ms).
        broker_heartbeat_interval_ms: ``broker.heartbeat.interval.ms`` (ms).
        request_timeout_ms: ``request.timeout.ms``, the bound of each controller event (ms).
        controller_socket_timeout_ms: ``controller.socket.timeout.ms``, of requests to brokers (ms).
        topic_config_defaults: ``{topic config name: value}`` a topic without an override
            has (the node's broker properties, else Kafka's defaults), as DescribeConfigs
            shows them.
        static_topic_config_names: the topic configs whose broker synonym the node's
            ``server.properties`` sets (described with source STATIC_BROKER_CONFIG).
        group_broker_settings: the node's ``group.*`` properties as set (``{name: value}``):
            the defaults and bounds of group configs (``kafkette.common.group_config``).
        controller_listener_name: the listener the voters of ``controller.quorum.voters`` are reached on
            (``controller.listener.names``' first, else the node's kafkette listener), which DescribeQuorum
            v2 names for each voter (KIP-853).
        controller_security: TLS and SASL of the voters' requests to each other over the controller
            listener (plaintext by default).
        inter_broker_security: TLS and SASL of the active controller's requests to the brokers over
            the inter-broker listener (plaintext by default).
    """

    node_id: int
    cluster_id: str = "kafkette-cluster"
    num_partitions: int = 1
    default_replication_factor: int = 1
    unclean_leader_election_enable: bool = False
    delete_topic_enable: bool = True
    auto_leader_rebalance_enable: bool = True
    leader_imbalance_per_broker_percentage: int = 10
    leader_imbalance_check_interval_seconds: int = 300
    broker_session_timeout_ms: int = 9000
    broker_heartbeat_interval_ms: int = 2000
    request_timeout_ms: int = 30000
    controller_socket_timeout_ms: int = 30000
    topic_config_defaults: Mapping[str, str] = field(default_factory=dict)
    static_topic_config_names: frozenset[str] = frozenset()
    group_broker_settings: Mapping[str, str] = field(default_factory=dict)
    controller_listener_name: str = "CONTROLLER"
    controller_security: ClientSecurity = field(default=PLAINTEXT, compare=False)
    inter_broker_security: ClientSecurity = field(default=PLAINTEXT, compare=False)
