"""Apache Kafka as the chaos harness's cluster: the parts of LocalCluster's surface the harness and
the nemesis use, over ``tests/peers/kafka_peer.KafkaPeer`` (3 nodes in KRaft combined mode,
each a broker and a voter of the metadata quorum, on 127.0.0.1 or each in a network namespace
of its own: ``hosts`` and ``command_prefix`` from ``tests/chaos/netns.NamespaceNetwork``).

Owns: the fast-failover settings that Apache Kafka shares with Kafkette by name
(``KAFKA_FAST_FAILOVER``), ``KafkaPeerCluster`` (node pids, hard and clean stops, restarts) and
``KafkaLocator`` (the leaders of a topic's partitions from Metadata, the active controller from
DescribeQuorum, sent with ``tests/conformance/raw_client.RawKafkaClient``), and reading the
replicas' segment files after the run.  It does not own the workload's clients
(``tests/chaos/kafka_workload.py``) nor the faults (``tests/chaos/nemesis.py``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from pathlib import Path

from kafkette.client.local_cluster import HOST
from kafkette.client.topic_specs import PartitionInfo
from kafkette.protocol.apis.metadata import MetadataRequest, MetadataRequestTopic
from kafkette.protocol.apis.raft import (
    DescribeQuorumPartitionRequest,
    DescribeQuorumRequest,
    DescribeQuorumTopicRequest,
)
from kafkette.protocol.kafka_schema import KafkaSchemaError
from kafkette.protocol.record_batch import decode_records, iter_batches
from tests.cluster_configs import FAST_FAILOVER
from tests.conformance.raw_client import RawKafkaClient, error_name
from tests.peers.kafka_peer import KafkaPeer

# Apache Kafka 4.3.1's names among FAST_FAILOVER's (each checked against Kafka's jars);
# controlled.shutdown.retry.backoff.ms was ZooKeeper mode's and is gone from Kafka 4.
KAFKA_CONFIG_NAMES = frozenset(
    {
        "broker.session.timeout.ms",  # the controller fences a broker silent this long
        "broker.heartbeat.interval.ms",  # a broker's heartbeats to the controller
        "replica.lag.time.max.ms",  # a follower behind this long leaves the ISR
        "replica.fetch.backoff.ms",  # a follower's pause after a failed fetch
        "replica.high.watermark.checkpoint.interval.ms",
        "controller.quorum.election.timeout.ms",  # a voter without a leader this long stands for election
        "controller.quorum.fetch.timeout.ms",  # a follower voter that fetched nothing this long does too
    }
)
KAFKA_FAST_FAILOVER = {name: value for name, value in FAST_FAILOVER.items() if name in KAFKA_CONFIG_NAMES}
# KRaft's controller elects leaders uncleanly (unclean.leader.election.enable) in a periodic
# sweep over leaderless partitions, every unclean.leader.election.interval.ms (5 minutes by
# default, longer than a run): the negative control runs it every second.
KAFKA_UNCLEAN_SWEEP = {"unclean.leader.election.interval.ms": 1000}
METADATA_TOPIC = "__cluster_metadata"
LOOKUP_TIMEOUT_S = 3.0


class KafkaPeerCluster:
    """A 3-node Apache Kafka under the names the chaos harness uses for a LocalCluster.

    Args:
        data_dir: where the nodes keep their configs, logs and data (``node-<id>/``).
        broker_configs: ``server.properties`` entries over ``KAFKA_FAST_FAILOVER``.
        nodes: node count (each a broker and a voter).
        heap_mb: each JVM's heap (MiB).
        hosts / command_prefix: where the nodes live and how each is started (``KafkaPeer``'s
            arguments: ``NamespaceNetwork.hosts()`` and ``.command_prefix()``); 127.0.0.1 without.

    ``node_configs`` (``{node: {property: value}}``) is laid over the other settings for that
    node (the harness puts ``log.dirs`` on a tmpfs of its own there), ``node_env`` (``{node:
    {variable: value}}``) is added to that node's JVM's environment (the clock-offset and slow-fsync
    libraries); ``broker_dir(node)`` is the
    node's directory.  ``start``/``stop`` start and stop every node (clean stop: SIGTERM, Kafka's controlled
    shutdown); ``stop_broker(node, hard=True)`` is SIGKILL, ``start_broker`` restarts the node
    with its storage and waits until it serves (at most 120 s).
    """

    def __init__(
        self,
        data_dir: Path,
        broker_configs: dict[str, object] | None = None,
        nodes: int = 3,
        heap_mb: int = 384,
        hosts: Mapping[int, str] | None = None,
        command_prefix: Mapping[int, Sequence[str]] | None = None,
    ) -> None:
        self.peer = KafkaPeer(
            data_dir,
            nodes=nodes,
            heap_mb=heap_mb,
            broker_configs={**KAFKA_FAST_FAILOVER, **(broker_configs or {})},
            hosts=hosts,
            command_prefix=command_prefix,
        )
        self.broker_ids = list(self.peer.node_ids)
        self.node_configs = self.peer.node_configs
        self.node_env = self.peer.node_env

    def broker_dir(self, node: int) -> Path:
        """The node's directory (its config, output and, unless ``node_configs`` moves them, logs)."""
        return self.peer.node_dir(node)

    @property
    def bootstrap_servers(self) -> str:
        """``host:port,...`` of every node's PLAINTEXT listener."""
        return self.peer.bootstrap_servers

    def start(self) -> None:
        """Format every node's storage and start the nodes; waits until each serves.

        Raises:
            PeerUnavailable: no Java, Maven or registry.
            RuntimeError: a node did not start.
        """
        self.peer.start()

    def stop(self) -> None:
        """Stop every node (SIGTERM, SIGKILL after 60 s)."""
        self.peer.stop()

    def pid(self, node: int) -> int | None:
        """The node's JVM's pid (None when it is not running)."""
        return self.peer.pid(node)

    def is_running(self, node: int) -> bool:
        return self.peer.pid(node) is not None

    def stop_broker(self, node: int, hard: bool = True) -> None:
        """SIGKILL (``hard``) or SIGTERM the node and wait for its exit."""
        self.peer.stop_node(node, hard=hard)

    def start_broker(self, node: int) -> None:
        """Restart the node; waits until it serves.

        Raises:
            RuntimeError: it did not start within 120 s.
        """
        self.peer.start_node(node)

    def replica_records(
        self, topic: str, partition: int, node: int
    ) -> list[tuple[int, bytes | None, bytes | None]]:
        """``(offset, key, value)`` of every record in the node's segment files of the partition
        (the node stopped).  Kafka's ``<log.dirs>/<topic>-<partition>/<base offset>.log`` files are
        v2 RecordBatches back to back, the format Kafkette's record batch codec reads."""
        directory = Path(self.peer.properties(node)["log.dirs"]) / f"{topic}-{partition}"
        records = []
        for segment in sorted(directory.glob("*.log")):
            data = segment.read_bytes()
            for position, header in iter_batches(data):
                records.extend((r.offset, r.key, r.value) for r in decode_records(data, position, header))
        return records


class KafkaLocator:
    """A ``nemesis.Locator`` over Apache Kafka's protocol: Metadata (v9) for the partitions'
    leaders and ISRs, DescribeQuorum (v0) for the active controller (the leader of the
    ``__cluster_metadata`` partition 0), each asked of the nodes in turn until one answers.

    Args:
        ports: ``{node id: PLAINTEXT port}``.
        hosts: ``{node id: address}`` (127.0.0.1 for a node not named).
    """

    def __init__(self, ports: dict[int, int], hosts: Mapping[int, str] | None = None) -> None:
        self.ports = dict(ports)
        self.hosts = {node: (hosts or {}).get(node, HOST) for node in self.ports}

    def _ask(self, api: str, version: int, request: object) -> object:
        failures = []
        for node, port in self.ports.items():
            try:
                client = RawKafkaClient(self.hosts[node], port, timeout_s=LOOKUP_TIMEOUT_S)
            except OSError as exc:
                failures.append(f"node {node}: {exc}")
                continue
            try:
                return client.call(api, version, request)
            except (OSError, KafkaSchemaError) as exc:
                failures.append(f"node {node}: {exc}")
            finally:
                client.close()
        raise OSError(f"{api}: no node answered ({'; '.join(failures)})")

    async def partitions(self, topic: str) -> list[PartitionInfo]:
        request = MetadataRequest(topics=[MetadataRequestTopic(name=topic)], allow_auto_topic_creation=False)
        response = await asyncio.wait_for(
            asyncio.to_thread(self._ask, "Metadata", 9, request), LOOKUP_TIMEOUT_S * len(self.ports) + 1
        )
        for answer in response.topics:
            if answer.name == topic:
                if answer.error_code:
                    raise OSError(f"Metadata {topic}: {error_name(answer.error_code)}")
                return sorted(
                    (
                        PartitionInfo(
                            p.partition_index,
                            p.leader_id,
                            list(p.replica_nodes),
                            list(p.isr_nodes),
                            list(p.offline_replicas),
                        )
                        for p in answer.partitions
                    ),
                    key=lambda p: p.partition,
                )
        raise OSError(f"Metadata: no topic {topic} in the answer")

    async def active_controller(self) -> int:
        request = DescribeQuorumRequest(
            topics=[
                DescribeQuorumTopicRequest(
                    topic_name=METADATA_TOPIC, partitions=[DescribeQuorumPartitionRequest(partition_index=0)]
                )
            ]
        )
        response = await asyncio.wait_for(
            asyncio.to_thread(self._ask, "DescribeQuorum", 0, request), LOOKUP_TIMEOUT_S * len(self.ports) + 1
        )
        if response.error_code:
            raise OSError(f"DescribeQuorum: {error_name(response.error_code)}")
        partition = response.topics[0].partitions[0]
        if partition.error_code or partition.leader_id < 0:
            raise OSError(f"DescribeQuorum: {error_name(partition.error_code)}, leader {partition.leader_id}")
        return partition.leader_id
