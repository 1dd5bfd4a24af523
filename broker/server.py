"""KafkaServer: one broker process, owning every component and its start/stop order.

Owns: LogManager, MetadataCache, ReplicaManager, the controller channel, the
lifecycle and AlterPartition managers, the dynamic broker configs, the
AutoTopicCreationManager, the QuorumController (a voter of the metadata quorum, the
active controller while it leads) when ``process.roles`` has ``controller``, and the
SocketServer.  Start-up: logs (recovery), replica
manager, controller, listener, then registration.  Shutdown (SIGTERM/SIGINT):
controlled shutdown (ControlledShutdown to the controller, which moves our
leaderships away while we still serve; ``controlled.shutdown.enable``), then tell
the controller we leave (last heartbeat), stop accepting, stop replication and
answer delayed requests, close connections, stop the controller, flush logs and
write the clean-shutdown marker, each step bounded in time.

Kafka concept: ``KafkaServer``/``BrokerServer`` (startup and shutdown sequences).
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
import time
from typing import Any

from kafkette.broker.acl_store import AclStore
from kafkette.broker.alter_partition_manager import AlterPartitionManager
from kafkette.broker.apis.apis_context import ApisContext
from kafkette.broker.apis.kafka_apis import KafkaApis
from kafkette.broker.auto_topic_creation_manager import AutoTopicCreationManager
from kafkette.broker.broker_features import feature_flags
from kafkette.broker.broker_lifecycle_manager import BrokerLifecycleManager
from kafkette.broker.client_quota_manager import ClientQuotaManager
from kafkette.broker.client_request_quota_manager import ClientRequestQuotaManager
from kafkette.broker.config import ConfigError, KafkaConfig
from kafkette.broker.controller_mutation_quota_manager import ControllerMutationQuotaManager
from kafkette.broker.dynamic_broker_config import DynamicBrokerConfig
from kafkette.broker.group.consumer_group_settings import consumer_group_settings, group_config_manager
from kafkette.broker.group.group_coordinator import GroupCoordinator
from kafkette.broker.group.group_metadata_manager import GroupMetadataManager
from kafkette.broker.group.group_metadata_topic import group_metadata_topic
from kafkette.broker.log.log_config import LogConfig
from kafkette.broker.log.log_manager import LogManager
from kafkette.broker.metadata_cache import MetadataCache
from kafkette.broker.node_to_controller_channel import NodeToControllerChannelManager
from kafkette.broker.producer_id_manager import ProducerIdManager
from kafkette.broker.replica_manager import ReplicaManager
from kafkette.broker.sasl_listener_config import enabled_mechanisms, sasl_listener_factory
from kafkette.broker.scram_credential_cache import ScramCredentialCache
from kafkette.broker.server_logging import configure_logging, kafka_logs_dir
from kafkette.broker.ssl_listener_config import ssl_listener_options
from kafkette.broker.transaction.add_partitions_to_txn_manager import AddPartitionsToTxnManager
from kafkette.broker.transaction.transaction_coordinator_service import (
    TransactionCoordinatorService,
    build_transaction_coordinator,
)
from kafkette.broker.transaction.transaction_state_manager import partition_for
from kafkette.broker.transaction.transaction_state_topic import transaction_state_topic
from kafkette.common.client_quota_entity import CONSUMER_BYTE_RATE, PRODUCER_BYTE_RATE
from kafkette.common.kafka_scheduler import KafkaScheduler
from kafkette.common.network.socket_server import SocketServer
from kafkette.common.process_tuning import tune_process_memory
from kafkette.common.security.sasl_server import PLAIN
from kafkette.common.security.security_protocol_map import SASL_PROTOCOLS, listener_security_protocol
from kafkette.common.topic_config import TOPIC_CONFIG_DEFS
from kafkette.common.topic_names import GROUP_METADATA_TOPIC_NAME, TRANSACTION_STATE_TOPIC_NAME
from kafkette.controller.controller_config import ControllerConfig
from kafkette.controller.controller_server import ControllerServer
from kafkette.controller.raft.raft_config import RaftConfig
from kafkette.protocol.apis.create_topics import CreatableTopic
from kafkette.protocol.kafka_codec import FeatureFlags, KafkaWireCodec

logger = logging.getLogger(__name__)

SHUTDOWN_STEP_TIMEOUT_S = 15
CONTROLLED_SHUTDOWN_TIMEOUT_MS = 12000
"""Bound on the whole controlled shutdown (all attempts and backoffs), in ms."""


def controller_config(config: KafkaConfig) -> ControllerConfig:
    """The controller's settings from a node's properties (Kafka's ``QuorumController.Builder``).

    Topic config defaults are the node's effective log settings (``log.segment.bytes``
    for ``segment.bytes``, ...); a topic config is "static" when ``server.properties``
    sets one of its broker synonyms.
    """
    static = frozenset(
        name for name, key in TOPIC_CONFIG_DEFS.items() if any(s in config.originals for s in key.synonyms)
    )
    return ControllerConfig(
        node_id=config.node_id,
        cluster_id=config.cluster_id,
        num_partitions=config.num_partitions,
        default_replication_factor=config.default_replication_factor,
        unclean_leader_election_enable=config.unclean_leader_election_enable,
        delete_topic_enable=config.delete_topic_enable,
        auto_leader_rebalance_enable=config.auto_leader_rebalance_enable,
        leader_imbalance_per_broker_percentage=config.leader_imbalance_per_broker_percentage,
        leader_imbalance_check_interval_seconds=config.leader_imbalance_check_interval_seconds,
        broker_session_timeout_ms=config.broker_session_timeout_ms,
        broker_heartbeat_interval_ms=config.broker_heartbeat_interval_ms,
        request_timeout_ms=config.request_timeout_ms,
        controller_socket_timeout_ms=config.controller_socket_timeout_ms,
        topic_config_defaults=LogConfig.from_broker(config).to_topic_configs(),
        static_topic_config_names=static,
        group_broker_settings={k: str(v) for k, v in config.originals.items() if k.startswith("group.")},
        controller_listener_name=(
            config.controller_listener_names[0]
            if config.controller_listener_names
            else config.controller_endpoints[0].name
        ),
        controller_security=config.controller_security,
        inter_broker_security=config.inter_broker_security,
    )


def raft_config(config: KafkaConfig) -> RaftConfig:
    """The metadata quorum's settings from a node's ``controller.quorum.*`` properties."""
    return RaftConfig(
        election_timeout_ms=config.controller_quorum_election_timeout_ms,
        fetch_timeout_ms=config.controller_quorum_fetch_timeout_ms,
        election_backoff_max_ms=config.controller_quorum_election_backoff_max_ms,
        request_timeout_ms=config.controller_quorum_request_timeout_ms,
        retry_backoff_ms=config.controller_quorum_retry_backoff_ms,
        metadata_log_max_record_bytes_between_snapshots=config.metadata_log_max_record_bytes_between_snapshots,
    )


class KafkaServer:
    """A broker (and, with the controller role, a voter of the metadata quorum).

    Args:
        config: the validated broker configuration.
    """

    def __init__(self, config: KafkaConfig) -> None:
        self.config = config
        self.broker_id = config.node_id
        # The node's one scheduler of periodic jobs (Kafka's kafkaScheduler of BrokerServer).
        self.scheduler = KafkaScheduler(log_prefix=f"[KafkaScheduler id={config.node_id}]")
        self.log_manager = LogManager(config, scheduler=self.scheduler)
        self.metadata_cache = MetadataCache(config.node_id, config.cluster_id)
        self.scram_credentials = ScramCredentialCache()  # the SCRAM users the controller sent (KIP-554)
        # the ACLs the controller sent, with StandardAuthorizer's decision (KIP-801); None: no authorizer
        self.authorizer = AclStore(config.authorizer) if config.authorizer is not None else None
        self.controller_channel = NodeToControllerChannelManager(config)
        self.lifecycle_manager = BrokerLifecycleManager(
            config,
            self.controller_channel,
            offline_replicas=self.log_manager.offline_logs,
            fatal_fault_handler=self._on_fatal_fault,
        )
        self.alter_partition_manager = AlterPartitionManager(
            config.node_id, lambda: self.lifecycle_manager.broker_epoch, self.controller_channel
        )
        self.producer_id_manager = ProducerIdManager(
            config.node_id, lambda: self.lifecycle_manager.broker_epoch, self.controller_channel
        )
        self.dynamic_config = DynamicBrokerConfig(config)
        self.replica_manager: ReplicaManager | None = None
        self.auto_topic_creation_manager: AutoTopicCreationManager | None = None
        self.group_coordinator: GroupCoordinator | None = None
        self.transaction_coordinator: TransactionCoordinatorService | None = None
        self.add_partitions_to_txn_manager: AddPartitionsToTxnManager | None = None
        self.controller = None
        self.socket_server: SocketServer | None = None
        self.kafka_socket_servers: list[SocketServer] = []  # listeners speaking Kafka's protocol
        self.controller_socket_servers: list[SocketServer] = []  # controller.listener.names (not published)
        self.shutdown_requested = asyncio.Event()
        self.fatal_error: BaseException | None = None
        self._prefix = f"[KafkaServer id={self.broker_id}]"

    def _on_fatal_fault(self, error: BaseException) -> None:
        """A fault the node cannot run with (committed metadata that cannot be loaded, a quorum
        or controller that disagrees on ``controller.quorum.voters`` or ``cluster.id``): shut
        down, and exit with an error (Kafka's ``ProcessTerminatingFaultHandler``)."""
        logger.error("%s Fatal fault, shutting down: %r", self._prefix, error)
        self.fatal_error = error
        self.shutdown_requested.set()

    def _internal_topic(self, name: str) -> CreatableTopic | None:
        """The CreateTopics entry of an internal topic (Kafka's ``creatableTopic``), None for others."""
        config = self.config
        if name == TRANSACTION_STATE_TOPIC_NAME:
            return transaction_state_topic(
                config.transaction_state_log_num_partitions,
                config.transaction_state_log_replication_factor,
                config.transaction_state_log_min_isr,
                config.transaction_state_log_segment_bytes,
                len(self.metadata_cache.live_brokers),
            )
        if name != GROUP_METADATA_TOPIC_NAME:
            return None
        return group_metadata_topic(
            config.offsets_topic_num_partitions,
            config.offsets_topic_replication_factor,
            config.offsets_topic_segment_bytes,
            len(self.metadata_cache.live_brokers),
        )

    def _feature_flags(self) -> FeatureFlags:
        """The feature flags the Kafka listener's ApiVersions answers give (KIP-584)."""
        return feature_flags(self.metadata_cache.metadata_offset)

    def _transaction_partition_count(self) -> int:
        """Partitions of ``__transaction_state``: the topic's, or ``transaction.state.log.num.partitions``
        before it exists."""
        count = self.metadata_cache.num_partitions(TRANSACTION_STATE_TOPIC_NAME)
        return count if count is not None else self.config.transaction_state_log_num_partitions

    def _offsets_partition_count(self) -> int:
        """Partitions of ``__consumer_offsets``: the topic's, or ``offsets.topic.num.partitions``
        before it exists (Kafka's ``groupMetadataTopicPartitionCount``)."""
        count = self.metadata_cache.num_partitions(GROUP_METADATA_TOPIC_NAME)
        return count if count is not None else self.config.offsets_topic_num_partitions

    async def startup(self) -> None:
        """Start every component; raises on a failure that stops start-up (bad log dir, port in use)."""
        logger.info("%s Starting", self._prefix)
        await self.log_manager.start()
        self.replica_manager = ReplicaManager(
            self.config,
            self.log_manager,
            self.metadata_cache,
            self.alter_partition_manager,
            scheduler=self.scheduler,
        )
        if self.config.is_controller:
            from kafkette.controller.quorum_controller import QuorumController

            self.controller = QuorumController(
                controller_config(self.config),
                voters=self.config.quorum_voters,
                metadata_log_dir=self.config.metadata_log_dir,
                raft_config=raft_config(self.config),
                fatal_fault_handler=self._on_fatal_fault,
                scheduler=self.scheduler,
            )
            self.controller_channel.controller_hint = self.controller.leader_id
            await self.controller.start()
        self.dynamic_config.add_reconfigurable(self.replica_manager.reconfigure_log_defaults)
        self.dynamic_config.add_reconfigurable(self.replica_manager.update_replication_quotas)
        self.auto_topic_creation_manager = AutoTopicCreationManager(
            self.broker_id,
            self.controller_channel,
            request_timeout_ms=self.config.request_timeout_ms,
            internal_topic=self._internal_topic,
        )
        self.group_coordinator = GroupCoordinator(
            GroupMetadataManager(
                self.broker_id,
                self.replica_manager,
                partition_count=self._offsets_partition_count,
                commit_timeout_ms=self.config.offsets_commit_timeout_ms,
                time_ms=self.scheduler.time.milliseconds,
            ),
            self.metadata_cache,
            offset_metadata_max_bytes=self.config.offset_metadata_max_bytes,
            min_session_timeout_ms=self.config.group_min_session_timeout_ms,
            max_session_timeout_ms=self.config.group_max_session_timeout_ms,
            initial_rebalance_delay_ms=self.config.group_initial_rebalance_delay_ms,
            max_group_size=self.config.group_max_size,
            offsets_retention_ms=self.config.offsets_retention_minutes * 60_000,
            retention_check_interval_ms=self.config.offsets_retention_check_interval_ms,
            scheduler=self.scheduler,
            consumer_group_settings=consumer_group_settings(self.config),
            group_config_manager=group_config_manager(self.config),
        )
        self.transaction_coordinator = build_transaction_coordinator(
            self.config,
            self.replica_manager,
            self.metadata_cache,
            self.producer_id_manager,
            self._transaction_partition_count,
            self.scheduler.time.milliseconds,
        )
        self.add_partitions_to_txn_manager = AddPartitionsToTxnManager(
            self.broker_id,
            self.metadata_cache,
            lambda transactional_id: partition_for(transactional_id, self._transaction_partition_count()),
            security=self.config.inter_broker_security,
            request_timeout_ms=self.config.request_timeout_ms,
        )
        self.replica_manager.add_partitions_to_txn_manager = self.add_partitions_to_txn_manager
        self.dynamic_config.add_reconfigurable(self.replica_manager.update_transaction_verification)
        quota_window = (self.config.quota_window_num, self.config.quota_window_size_seconds * 1000)
        apis = KafkaApis(
            ApisContext(
                self.config,
                self.replica_manager,
                self.metadata_cache,
                self.controller,
                self.producer_id_manager,
                dynamic_config=self.dynamic_config,
                auto_topic_creation_manager=self.auto_topic_creation_manager,
                controller_channel=self.controller_channel,
                group_coordinator=self.group_coordinator,
                transaction_coordinator=self.transaction_coordinator,
                scram_credentials=self.scram_credentials,
                authorizer=self.authorizer,
                produce_quotas=ClientQuotaManager(PRODUCER_BYTE_RATE, *quota_window),
                fetch_quotas=ClientQuotaManager(CONSUMER_BYTE_RATE, *quota_window),
                request_quotas=ClientRequestQuotaManager(*quota_window),
                controller_mutation_quotas=ControllerMutationQuotaManager(*quota_window),
            )
        )
        host, port = self.config.listener
        sasl = self._sasl_listeners()
        tls = self._ssl_listeners()
        self.socket_server = SocketServer(
            host,
            port,
            apis.handle,
            broker_id=self.broker_id,
            authenticator_factory=sasl.get(self.config.listener_name),
            **tls.get(self.config.listener_name, {}),
            **listener_options(self.config),
            one_at_a_time=apis.bound_by_quota,
        )
        await self.socket_server.start()
        registered = []
        for endpoint in self.config.listener_endpoints:
            server = self.socket_server
            if endpoint.wire_protocol == "kafka":
                server = SocketServer(
                    endpoint.host,
                    endpoint.port,
                    apis.handle,
                    broker_id=self.broker_id,
                    codec=KafkaWireCodec(endpoint.name, self._feature_flags),
                    authenticator_factory=sasl.get(endpoint.name),
                    **tls.get(endpoint.name, {}),
                    **listener_options(self.config),
                    one_at_a_time=apis.bound_by_quota,
                )
                self.kafka_socket_servers.append(server)
                await server.start()
            elif endpoint.name in self.config.controller_listener_names:
                server = SocketServer(
                    endpoint.host,
                    endpoint.port,
                    apis.handle,
                    broker_id=self.broker_id,
                    authenticator_factory=sasl.get(endpoint.name),
                    **tls.get(endpoint.name, {}),
                    **listener_options(self.config),
                )
                self.controller_socket_servers.append(server)
                await server.start()
                continue  # the voters' address, not published to clients
            elif (endpoint.host, endpoint.port) != (host, port):
                continue  # a second kafkette listener is not served (brokers and the SDK use the first)
            registered.append(
                (endpoint.name, endpoint.advertised_host, endpoint.advertised_port or server.bound_port)
            )
        self.lifecycle_manager.listeners = sorted(
            registered, key=lambda e: e[0] in {s.codec.listener_name for s in self.kafka_socket_servers}
        )
        self.replica_manager.start()
        self.group_coordinator.start()
        self.transaction_coordinator.start()
        self.alter_partition_manager.start()
        self.log_manager.log_dir_failure_channel.add_listener(
            self.lifecycle_manager.propagate_offline_replica
        )
        self.lifecycle_manager.start()
        logger.info("%s Started", self._prefix)

    def _sasl_listeners(self) -> dict[str, Any]:
        """The per-connection authenticator makers of the listeners that are SASL_PLAINTEXT or
        SASL_SSL (``listener.security.protocol.map``), Kafka's and the node's own alike.

        Raises:
            ConfigError: a bad SASL setting (named).
        """
        out = {}
        for endpoint in self.config.listener_endpoints:
            factory = sasl_listener_factory(
                self.config.originals, endpoint.name, self.scram_credentials.credential, _monotonic_ms
            )
            if factory is not None:
                out[endpoint.name] = factory
        return out

    def _ssl_listeners(self) -> dict[str, dict[str, Any]]:
        """The TLS context and principal maker of the listeners that are SSL or SASL_SSL
        (``listener.security.protocol.map``); each listener's ``SslFactory`` is told of dynamic
        config updates (``listener.name.<l>.ssl.keystore.location`` ... reload its certificate).

        Raises:
            ConfigError: a bad ``ssl.*`` setting (named).
        """
        out = {}
        for endpoint in self.config.listener_endpoints:
            options = ssl_listener_options(self.config.originals, endpoint.name)
            if options is not None:
                out[endpoint.name] = options
                self.dynamic_config.add_listener_reconfigurable(options["ssl_factory"])
        return out

    def _socket_servers(self) -> list[SocketServer]:
        """Every listener this node serves: the brokers' and the SDK's, Kafka's, the controller's."""
        main = [self.socket_server] if self.socket_server is not None else []
        return main + self.kafka_socket_servers + self.controller_socket_servers

    async def shutdown(self) -> None:
        """Stop in order; each step bounded by SHUTDOWN_STEP_TIMEOUT_S."""
        logger.info("%s Shutting down", self._prefix)

        async def step(name: str, coro: object) -> None:
            try:
                await asyncio.wait_for(coro, SHUTDOWN_STEP_TIMEOUT_S)  # type: ignore[arg-type]
            except Exception:
                logger.exception("%s Shutdown step %s failed", self._prefix, name)

        if (
            self.config.controlled_shutdown_enable
            and self.socket_server is not None
            and self.fatal_error is None
        ):
            await step(
                "controlled shutdown",
                self.lifecycle_manager.controlled_shutdown(
                    max_retries=self.config.controlled_shutdown_max_retries,
                    retry_backoff_ms=self.config.controlled_shutdown_retry_backoff_ms,
                    timeout_ms=CONTROLLED_SHUTDOWN_TIMEOUT_MS,
                ),
            )
        await step("lifecycle", self.lifecycle_manager.stop(controlled=True))
        for server in self._socket_servers():
            await step("stop accepting", server.stop_accepting())
        if self.auto_topic_creation_manager is not None:
            await step("auto topic creation", self.auto_topic_creation_manager.stop())
        if self.group_coordinator is not None:
            await step("group coordinator", self.group_coordinator.stop())
        if self.transaction_coordinator is not None:
            await step("transaction coordinator", self.transaction_coordinator.stop())
        if self.add_partitions_to_txn_manager is not None:
            await step("add partitions to txn manager", self.add_partitions_to_txn_manager.close())
        if self.replica_manager is not None:
            await step("replica manager", self.replica_manager.stop())
        await step("alter partition manager", self.alter_partition_manager.stop())
        for server in self._socket_servers():
            await step("socket server", server.stop())
        if self.controller is not None:
            await step("controller", self.controller.stop())
        await step("controller channel", self.controller_channel.close())
        await step("scheduler", self.scheduler.shutdown())
        await step("log manager", self.log_manager.stop())
        logger.info("%s Shut down completed", self._prefix)


def log_config_notes(config: KafkaConfig) -> None:
    """Say once, at start-up, what of ``server.properties`` is accepted but not used (one WARN
    naming every such Kafka key) and a quorum read from ``controller.quorum.bootstrap.servers``.

    Args:
        config: the node's validated configuration (``unused_configs``,
            ``quorum_from_bootstrap_servers``).
    """
    if config.unused_configs:
        logger.warning(
            "[KafkaConfig] Apache Kafka configs accepted, not used: %s", ", ".join(config.unused_configs)
        )
    if config.quorum_from_bootstrap_servers:
        logger.info(
            "[KafkaConfig] controller.quorum.voters is not set: node %d is the only voter of the metadata "
            "quorum, at %s (controller.quorum.bootstrap.servers, as after kafka-storage format --standalone)",
            config.node_id,
            config.controller_quorum_voters[0].partition("@")[2],
        )


def controller_server(config: KafkaConfig) -> ControllerServer:
    """A controller-only node (``process.roles=controller``): a voter and its listener, no broker.
    A SASL_PLAINTEXT or SASL_SSL listener authenticates with PLAIN (the JAAS config's
    ``user_NAME`` entries); the brokers and the other voters log in with
    ``sasl.mechanism.controller.protocol``.

    Raises:
        ConfigError: its SASL listener enables a SCRAM mechanism (a controller-only node does not
            publish the metadata log's SCRAM credentials to its listener: PLAIN is what it serves),
            or a bad ``ssl.*`` or SASL setting (named).
    """
    listener = config.listener_name
    options: dict[str, Any] = {
        **(ssl_listener_options(config.originals, listener) or {}),
        **listener_options(config),
    }
    if listener_security_protocol(config.originals, listener) in SASL_PROTOCOLS:
        scram = [m for m in enabled_mechanisms(config.originals, listener) if m != PLAIN]
        if scram:
            raise ConfigError(
                f"Invalid value {','.join(scram)} for configuration sasl.enabled.mechanisms: listener "
                f"{listener} of controller-only node {config.node_id} serves PLAIN only (a controller-only "
                f"node does not publish the metadata log's SCRAM credentials to its listener)"
            )
        options["authenticator_factory"] = sasl_listener_factory(
            config.originals, listener, _no_scram_credentials, _monotonic_ms
        )
    return ControllerServer(
        controller_config(config),
        voters=config.quorum_voters,
        metadata_log_dir=config.metadata_log_dir,
        raft_config=raft_config(config),
        listener=config.listener,
        listener_options=options,
    )


def _no_scram_credentials(user: str, mechanism: Any) -> None:
    """A controller-only node's SCRAM lookup: it has none (its listener serves PLAIN only)."""
    return None


def listener_options(config: KafkaConfig) -> dict[str, int]:
    """The listener's bounds from ``config``, as ``SocketServer`` keyword arguments: Kafka's
    ``socket.request.max.bytes``, ``queued.max.requests``, ``max.connections``,
    ``max.connections.per.ip``, ``connections.max.idle.ms`` and ``queued.max.request.bytes``."""
    return {
        "max_request_bytes": config.socket_request_max_bytes,
        "max_queued_requests": config.queued_max_requests,
        "max_connections": config.max_connections,
        "max_connections_per_ip": config.max_connections_per_ip,
        "connections_max_idle_ms": config.connections_max_idle_ms,
        "queued_max_request_bytes": config.queued_max_request_bytes,
    }


class FatalFaultError(RuntimeError):
    """The node stopped on a fault it cannot run with (the message names it)."""


async def serve(config: KafkaConfig) -> None:
    """Run a node (a broker, with or without the controller role, or a controller-only node) until
    SIGTERM or SIGINT (or a fatal fault), then shut it down cleanly.

    Raises:
        FatalFaultError: the node stopped on a fatal fault.
    """
    server = KafkaServer(config) if config.is_broker else controller_server(config)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, server.shutdown_requested.set)
    try:
        await server.startup()
        tune_process_memory()  # after start-up: what the broker loaded leaves the collector's generations
        await server.shutdown_requested.wait()
    finally:
        await server.shutdown()
    if server.fatal_error is not None:
        raise FatalFaultError(f"fatal fault: {server.fatal_error}") from server.fatal_error


def run_broker(config_path: str, log_dir: str | None = None) -> int:
    """Entry point of ``kafkette broker start`` and ``python -m kafkette.broker``.

    Args:
        config_path: the node's ``server.properties``.
        log_dir: the ``--log-dir`` flag: where ``server.log`` and ``state-change.log`` go
            (default ``$LOG_DIR``, else beside the first log dir: ``kafka_logs_dir``).

    Returns:
        Process exit code: 0 after a clean shutdown, 1 for a configuration error, a start-up
        failure or a fatal fault.
    """
    try:
        config = KafkaConfig.from_file(config_path)
        config.require_quorum()
    except ConfigError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 1
    try:
        configure_logging(config.node_id, kafka_logs_dir(config.log_dirs, log_dir))
        log_config_notes(config)
        import uvloop

        uvloop.run(serve(config))
    except ConfigError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 1
    except (OSError, FatalFaultError) as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 1
    return 0


def _monotonic_ms() -> int:
    return int(time.monotonic() * 1000)
