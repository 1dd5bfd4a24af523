"""The AdminClient: topics, partitions, configs and leaders, through the controller.

Owns: ``AdminClient`` — CreateTopics, CreatePartitions, DeleteTopics, ElectLeaders and
the topic half of DescribeConfigs / IncrementalAlterConfigs go to the controller and
are retried after a metadata refresh on NOT_CONTROLLER or a lost connection; broker
configs go to the broker they name; Metadata serves listing and describing.  Does not
own connections or the metadata cache (KafkaClient), nor the request shapes
(``kafkette.client.topic_specs``, ``kafkette.client.config_resource``).

Kafka concept: ``org.apache.kafka.clients.admin.Admin`` (``createTopics``,
``createPartitions``, ``deleteTopics``, ``electLeaders``, ``describeConfigs``,
``incrementalAlterConfigs``, ``listTopics``, ``describeTopics``, ``describeCluster``,
``deleteRecords`` at partition leaders);
shape of aiokafka's ``AIOKafkaAdminClient``.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from kafkette.client.admin_acls import AclAdminCalls
from kafkette.client.admin_quotas import QuotaAdminCalls
from kafkette.client.admin_scram import ScramAdminCalls
from kafkette.client.admin_transactions import TransactionAdminCalls
from kafkette.client.bootstrap_servers import default_bootstrap_servers
from kafkette.client.cluster_metadata import BrokerMetadata
from kafkette.client.config_resource import (
    ConfigEntry,
    ConfigResource,
    ConfigResourceType,
    alter_resource,
    describe_resource,
    normalize_alter_ops,
    read_described,
    resource_error,
)
from kafkette.client.consumer.offset_fetcher import ListOffsetsResultInfo, OffsetFetcher, OffsetSpec
from kafkette.client.exponential_backoff import (
    DEFAULT_RECONNECT_BACKOFF_MAX_MS,
    DEFAULT_RECONNECT_BACKOFF_MS,
    DEFAULT_RETRY_BACKOFF_MAX_MS,
)
from kafkette.client.group_coordinator_channel import GroupCoordinatorChannel
from kafkette.client.group_descriptions import ConsumerGroupDescription, ConsumerGroupListing, describe
from kafkette.client.kafka_client import KafkaClient
from kafkette.client.offset_and_metadata import (
    OffsetAndMetadata,
    commit_group_error,
    committed_offsets,
    offset_commit_request,
    raise_commit_errors,
)
from kafkette.client.quorum_info import QuorumInfo
from kafkette.client.topic_specs import (
    NewPartitions,
    NewTopic,
    PartitionInfo,
    TopicDescription,
    normalize_replica_assignment,
)
from kafkette.common.topic_names import CLUSTER_METADATA_TOPIC_NAME
from kafkette.protocol.apis.configs import (
    DescribeConfigsRequest,
    DescribeConfigsResponse,
    IncrementalAlterConfigsRequest,
    IncrementalAlterConfigsResponse,
)
from kafkette.protocol.apis.create_partitions import CreatePartitionsRequest, CreatePartitionsResponse
from kafkette.protocol.apis.create_topics import CreateTopicsRequest, CreateTopicsResponse
from kafkette.protocol.apis.delete_records import (
    DeleteRecordsPartition,
    DeleteRecordsRequest,
    DeleteRecordsResponse,
    DeleteRecordsTopic,
)
from kafkette.protocol.apis.delete_topics import DeleteTopicsRequest, DeleteTopicsResponse, DeleteTopicState
from kafkette.protocol.apis.elect_leaders import (
    ELECTION_PREFERRED,
    ELECTION_UNCLEAN,
    ElectLeadersRequest,
    ElectLeadersResponse,
    ElectLeadersTopicPartitions,
)
from kafkette.protocol.apis.group_admin import (
    DeleteGroupsRequest,
    DescribedGroup,
    DescribeGroupsRequest,
    ListGroupsRequest,
    OffsetDeleteRequest,
    OffsetDeleteRequestPartition,
    OffsetDeleteRequestTopic,
    OffsetDeleteResponse,
)
from kafkette.protocol.apis.offsets import OffsetFetchRequest, OffsetFetchRequestTopic
from kafkette.protocol.apis.raft import (
    DescribeQuorumPartitionRequest,
    DescribeQuorumRequest,
    DescribeQuorumResponse,
    DescribeQuorumTopicRequest,
)
from kafkette.protocol.errors import Errors, KafkaConnectionError, KafkaError, KafkaTimeoutError, error_class
from kafkette.protocol.schema import Struct
from kafkette.protocol.topic_partition import TopicPartition

__all__ = [
    "AdminClient",
    "NewPartitions",
    "NewTopic",
    "PartitionInfo",
    "TopicDescription",
    "normalize_replica_assignment",
]

_ELECTION_TYPES = {"preferred": ELECTION_PREFERRED, "unclean": ELECTION_UNCLEAN}


def _topic_error(code: int, message: str | None, topic: str) -> KafkaError:
    """The exception for a per-topic error code, with the server's message when it sent one."""
    cls = error_class(code)
    return cls(message) if message else cls(f"Topic '{topic}': {cls.message}")


logger = logging.getLogger(__name__)


def _offset_delete_group_error(response: OffsetDeleteResponse) -> int:
    """The group-level error of an OffsetDelete answer, or the first partition's coordinator error."""
    if response.error_code != Errors.NONE:
        return response.error_code
    return commit_group_error(response)


def _not_quorum_leader(response: DescribeQuorumResponse) -> bool:
    """True when a DescribeQuorum answer came from a node that is not the quorum's leader."""
    if response.error_code == Errors.NOT_CONTROLLER:
        return True
    partitions = [p for t in response.topics for p in t.partitions]
    return bool(partitions) and partitions[0].error_code == Errors.NOT_LEADER_OR_FOLLOWER


class AdminClient(AclAdminCalls, ScramAdminCalls, QuotaAdminCalls, TransactionAdminCalls):
    """Administrative operations on topics and the cluster; ACLs, SCRAM users, client quotas and
    transactions come from the mixins (``admin_acls``, ``admin_scram``, ``admin_quotas``,
    ``admin_transactions``).

    Args:
        bootstrap_servers: ``"host:port,..."``; when not given, ``$KAFKETTE_BOOTSTRAP_SERVERS``, else
            ``127.0.0.1:9092`` (see ``kafkette.client.bootstrap_servers``).
        request_timeout_ms: bound of each operation, retries included (ms).
        client_id: name in request headers.
        retry_backoff_ms: pause between retries (ms).
        retry_backoff_max_ms, reconnect_backoff_ms, reconnect_backoff_max_ms: Kafka's
            ``retry.backoff.max.ms`` (the most the pause between metadata refreshes that
            fail or bring nothing new grows to) and reconnect backoff per broker, in ms
            (``kafkette.client.kafka_client.KafkaClient``).
        security_protocol, ssl_context, sasl_mechanism, sasl_plain_username, sasl_plain_password:
            ``PLAINTEXT`` (the default), ``SSL``, ``SASL_PLAINTEXT`` or ``SASL_SSL``, the client TLS
            context (``kafkette.client.create_ssl_context``) and the SASL login (PLAIN,
            SCRAM-SHA-256, SCRAM-SHA-512), as aiokafka takes them
            (``kafkette.client.kafka_client.KafkaClient``).

    Raises:
        ValueError: no ``bootstrap_servers`` given and ``$KAFKETTE_BOOTSTRAP_SERVERS`` is malformed.
    """

    def __init__(
        self,
        *,
        bootstrap_servers: str | None = None,
        request_timeout_ms: int = 30000,
        client_id: str = "kafkette-admin",
        retry_backoff_ms: int = 100,
        retry_backoff_max_ms: int = DEFAULT_RETRY_BACKOFF_MAX_MS,
        reconnect_backoff_ms: int = DEFAULT_RECONNECT_BACKOFF_MS,
        reconnect_backoff_max_ms: int = DEFAULT_RECONNECT_BACKOFF_MAX_MS,
        security_protocol: str = "PLAINTEXT",
        ssl_context: ssl.SSLContext | None = None,
        sasl_mechanism: str = "PLAIN",
        sasl_plain_username: str | None = None,
        sasl_plain_password: str | None = None,
    ) -> None:
        self._request_timeout_ms = request_timeout_ms
        self._retry_backoff_ms = retry_backoff_ms
        self._client = KafkaClient(
            default_bootstrap_servers(bootstrap_servers),
            client_id=client_id,
            request_timeout_ms=request_timeout_ms,
            retry_backoff_ms=retry_backoff_ms,
            retry_backoff_max_ms=retry_backoff_max_ms,
            reconnect_backoff_ms=reconnect_backoff_ms,
            reconnect_backoff_max_ms=reconnect_backoff_max_ms,
            security_protocol=security_protocol,
            ssl_context=ssl_context,
            sasl_mechanism=sasl_mechanism,
            sasl_plain_username=sasl_plain_username,
            sasl_plain_password=sasl_plain_password,
        )

    async def start(self) -> None:
        """Bootstrap. Raises KafkaConnectionError when no server answers in time."""
        await self._client.start()

    async def close(self) -> None:
        """Close connections (idempotent)."""
        await self._client.close()

    async def __aenter__(self) -> AdminClient:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # --- topics ----------------------------------------------------------------------

    async def create_topics(
        self, new_topics: Iterable[NewTopic], timeout_ms: int | None = None, validate_only: bool = False
    ) -> None:
        """Create topics through the controller; returns once each has leaders.

        Args:
            new_topics: the topics.
            timeout_ms: how long the controller may wait for leaders (ms; default
                ``request_timeout_ms``).
            validate_only: validate without creating.

        Raises:
            TopicAlreadyExistsError, InvalidReplicationFactorError, InvalidPartitionsError,
            InvalidReplicaAssignmentError, InvalidTopicError, InvalidConfigError, ...: the
                first topic's error, with the server's error_message.
            KafkaTimeoutError / KafkaConnectionError: no controller answered in time.
        """
        topics = [t.to_creatable() for t in new_topics]
        if not topics:
            return
        timeout_ms = self._request_timeout_ms if timeout_ms is None else timeout_ms
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (timeout_ms + self._request_timeout_ms) / 1000
        pending = {t.name: t for t in topics}
        first_error: KafkaError | None = None
        last_exc: BaseException | None = None
        while pending:
            request = CreateTopicsRequest(
                topics=list(pending.values()), timeout_ms=timeout_ms, validate_only=validate_only
            )
            try:
                response: CreateTopicsResponse = await self._client.send_to_controller(
                    request, timeout_ms=timeout_ms + self._request_timeout_ms
                )
            except (KafkaConnectionError, KafkaTimeoutError) as exc:
                last_exc = exc
            else:
                for result in response.topics:
                    if result.name not in pending:
                        continue
                    if result.error_code == Errors.NOT_CONTROLLER:
                        last_exc = error_class(result.error_code)(result.error_message or "")
                        continue
                    del pending[result.name]
                    if result.error_code != Errors.NONE and first_error is None:
                        cls = error_class(result.error_code)
                        first_error = (
                            cls(result.error_message)
                            if result.error_message
                            else cls(f"Topic '{result.name}': {cls.message}")
                        )
            if not pending:
                break
            if loop.time() + self._retry_backoff_ms / 1000 >= deadline:
                raise KafkaTimeoutError(f"CreateTopics did not complete in time: {last_exc}") from last_exc
            logger.info("[AdminClient] Retrying CreateTopics for %s: %s", sorted(pending), last_exc)
            await asyncio.sleep(self._retry_backoff_ms / 1000)
            try:
                await self._client.refresh_metadata()
            except KafkaError as exc:
                last_exc = exc
        if first_error is not None:
            raise first_error

    # --- controller requests -----------------------------------------------------------

    async def _send_to_controller(
        self,
        build: Callable[[], Struct],
        not_controller: Callable[[Any], bool],
        server_timeout_ms: int,
        what: str,
    ) -> Any:
        """Send ``build()`` to the active controller until it answers as the controller.

        A lost connection, a client-side timeout or a NOT_CONTROLLER answer (as judged
        by ``not_controller(response)``) leads to a metadata refresh and another try,
        ``retry_backoff_ms`` apart, within ``server_timeout_ms + request_timeout_ms``.

        Returns:
            The first response that is not NOT_CONTROLLER.

        Raises:
            KafkaTimeoutError: no controller answered in time (the cause is chained).
        """
        loop = asyncio.get_running_loop()
        budget_ms = server_timeout_ms + self._request_timeout_ms
        deadline = loop.time() + budget_ms / 1000
        last_exc: BaseException | None = None
        while True:
            try:
                response = await self._client.send_to_controller(build(), timeout_ms=budget_ms)
            except (KafkaConnectionError, KafkaTimeoutError) as exc:
                last_exc = exc
            else:
                if not not_controller(response):
                    return response
                last_exc = error_class(Errors.NOT_CONTROLLER)(
                    f"Broker {self._client.cluster.controller_id} is not the controller"
                )
            if loop.time() + self._retry_backoff_ms / 1000 >= deadline:
                raise KafkaTimeoutError(f"{what} did not complete in time: {last_exc}") from last_exc
            logger.info("[AdminClient] Retrying %s: %s", what, last_exc)
            await asyncio.sleep(self._retry_backoff_ms / 1000)
            try:
                await self._client.refresh_metadata()
            except KafkaError as exc:
                last_exc = exc

    def _server_timeout(self, timeout_ms: int | None) -> int:
        if timeout_ms is None:
            return self._request_timeout_ms
        if type(timeout_ms) is not int or timeout_ms < 0:
            raise ValueError(f"timeout_ms must be an int >= 0, got {timeout_ms!r}")
        return timeout_ms

    async def create_partitions(
        self,
        topic_partitions: Mapping[str, NewPartitions],
        timeout_ms: int | None = None,
        validate_only: bool = False,
    ) -> None:
        """Raise the partition count of topics (CreatePartitions, at the controller).

        New partitions are online (led) when this returns, unless the controller's
        ``timeout_ms`` passed first.

        Args:
            topic_partitions: ``{topic: NewPartitions(total_count, new_assignments)}``.
            timeout_ms: how long the controller may wait for the new partitions' leaders
                (ms; default ``request_timeout_ms``).
            validate_only: check without changing anything.

        Raises:
            TypeError / ValueError: malformed arguments.
            InvalidPartitionsError: the count does not increase (INVALID_PARTITIONS);
            InvalidReplicaAssignmentError, UnknownTopicOrPartitionError,
            InvalidReplicationFactorError, RequestTimedOutError, ...: the first topic's
                error, with the server's message.
            KafkaTimeoutError: no controller answered in time.
        """
        if not isinstance(topic_partitions, Mapping):
            raise TypeError("create_partitions takes {topic name: NewPartitions}")
        topics = []
        for name, spec in topic_partitions.items():
            if not isinstance(spec, NewPartitions):
                raise TypeError(
                    f"partitions of topic {name!r} must be a NewPartitions, not {type(spec).__name__}"
                )
            topics.append(spec.to_request_topic(name))
        if not topics:
            return
        server_timeout_ms = self._server_timeout(timeout_ms)
        response: CreatePartitionsResponse = await self._send_to_controller(
            lambda: CreatePartitionsRequest(
                topics=topics, timeout_ms=server_timeout_ms, validate_only=validate_only
            ),
            lambda r: any(x.error_code == Errors.NOT_CONTROLLER for x in r.results),
            server_timeout_ms,
            "CreatePartitions",
        )
        self._raise_first_topic_error([t.name for t in topics], response.results)

    async def delete_topics(self, topics: Iterable[str], timeout_ms: int | None = None) -> None:
        """Delete topics (DeleteTopics, at the controller); returns once their removal is
        committed to the metadata log (brokers delete the logs afterwards, in the background).

        Args:
            topics: topic names.
            timeout_ms: how long the controller may take to answer (ms; default
                ``request_timeout_ms``).

        Raises:
            TypeError: ``topics`` is a single string.
            UnknownTopicOrPartitionError, TopicDeletionDisabledError, InvalidTopicError,
            RequestTimedOutError: the first topic's error, with the server's message.
            KafkaTimeoutError: no controller answered in time.
        """
        if isinstance(topics, (str, bytes)):
            raise TypeError("delete_topics takes a list of topic names, not a single string")
        names = list(dict.fromkeys(topics))
        if any(not isinstance(n, str) or not n for n in names):
            raise ValueError("topic names must be non-empty strings")
        if not names:
            return
        server_timeout_ms = self._server_timeout(timeout_ms)
        response: DeleteTopicsResponse = await self._send_to_controller(
            lambda: DeleteTopicsRequest(
                topics=[DeleteTopicState(name=n) for n in names],  # v6 on
                topic_names=names,  # up to v5
                timeout_ms=server_timeout_ms,
            ),
            lambda r: any(x.error_code == Errors.NOT_CONTROLLER for x in r.responses),
            server_timeout_ms,
            "DeleteTopics",
        )
        self._raise_first_topic_error(names, response.responses)
        self._client.request_metadata_update()

    @staticmethod
    def _raise_first_topic_error(names: list[str], results: Iterable[Any]) -> None:
        by_name = {r.name: r for r in results}
        for name in names:
            result = by_name.get(name)
            if result is not None and result.error_code != Errors.NONE:
                raise _topic_error(result.error_code, result.error_message, name)

    async def elect_leaders(
        self,
        topics: Iterable[str | TopicPartition] | None = None,
        election_type: str = "preferred",
        timeout_ms: int | None = None,
    ) -> dict[TopicPartition, KafkaError | None]:
        """Elect leaders (ElectLeaders, at the controller): the preferred replica, or with
        ``"unclean"`` any live replica of a leaderless partition.

        Args:
            topics: None for every partition of every topic; else topic names (each
                meaning all of its partitions) and/or ``TopicPartition`` s.
            election_type: ``"preferred"`` or ``"unclean"``.
            timeout_ms: how long the controller may wait for the elections (ms).

        Returns:
            ``{TopicPartition: None | KafkaError}`` — None when the partition got its
            leader; else e.g. ``ElectionNotNeededError`` (already led by it),
            ``PreferredLeaderNotAvailableError``, ``EligibleLeadersNotAvailableError``,
            ``UnknownTopicOrPartitionError``.

        Raises:
            ValueError: an unknown election type.
            UnknownTopicOrPartitionError: a named topic does not exist.
            KafkaError: a request-level error code (with the server's message).
            KafkaTimeoutError: no controller answered in time.
        """
        kind = _ELECTION_TYPES.get(election_type.lower()) if isinstance(election_type, str) else None
        if kind is None:
            raise ValueError(f"election_type must be 'preferred' or 'unclean', got {election_type!r}")
        topic_partitions: list[ElectLeadersTopicPartitions] | None = None
        if topics is not None:
            if isinstance(topics, (str, bytes)):
                raise TypeError(
                    "elect_leaders takes a list of topic names or TopicPartitions, not a single string"
                )
            wanted: dict[str, set[int]] = {}
            items = list(topics)
            names = [t for t in items if isinstance(t, str)]
            if names:
                for name, description in (await self.describe_topics(names)).items():
                    wanted.setdefault(name, set()).update(p.partition for p in description.partitions)
            for item in items:
                if isinstance(item, TopicPartition):
                    wanted.setdefault(item.topic, set()).add(item.partition)
                elif not isinstance(item, str):
                    raise TypeError(
                        f"elect_leaders items must be topic names or TopicPartitions, not {item!r}"
                    )
            topic_partitions = [
                ElectLeadersTopicPartitions(topic=t, partitions=sorted(p)) for t, p in wanted.items()
            ]
            if not topic_partitions:
                return {}
        server_timeout_ms = self._server_timeout(timeout_ms)
        response: ElectLeadersResponse = await self._send_to_controller(
            lambda: ElectLeadersRequest(
                election_type=kind, topic_partitions=topic_partitions, timeout_ms=server_timeout_ms
            ),
            lambda r: r.error_code == Errors.NOT_CONTROLLER,
            server_timeout_ms,
            "ElectLeaders",
        )
        if response.error_code != Errors.NONE:
            raise error_class(response.error_code)()
        out: dict[TopicPartition, KafkaError | None] = {}
        for topic_result in response.replica_election_results:
            for p in topic_result.partition_result:
                tp = TopicPartition(topic_result.topic, p.partition_id)
                if p.error_code == Errors.NONE:
                    out[tp] = None
                else:
                    cls = error_class(p.error_code)
                    out[tp] = (
                        cls(p.error_message) if p.error_message else cls(f"Partition {tp}: {cls.message}")
                    )
        self._client.request_metadata_update()
        return dict(sorted(out.items()))

    async def list_topics(self) -> list[str]:
        """Names of every topic, sorted.

        Raises:
            KafkaConnectionError: no broker answered.
        """
        response = await self._client.metadata_for(None)
        return sorted(t.name for t in response.topics if t.error_code == Errors.NONE)

    async def describe_topics(self, topics: Iterable[str] | None = None) -> dict[str, TopicDescription]:
        """Leaders, replicas and ISR of each partition of ``topics`` (None: every topic).

        Returns:
            ``{name: TopicDescription}``.

        Raises:
            UnknownTopicOrPartitionError: a named topic does not exist.
            KafkaConnectionError: no broker answered.
        """
        names = None if topics is None else list(topics)
        response = await self._client.metadata_for(names)
        out: dict[str, TopicDescription] = {}
        for topic in response.topics:
            if topic.error_code not in (Errors.NONE, Errors.LEADER_NOT_AVAILABLE):
                cls = error_class(topic.error_code)
                raise cls(f"Topic '{topic.name}': {cls.message}")
            partitions = sorted(
                (
                    PartitionInfo(
                        p.partition_index,
                        p.leader_id,
                        list(p.replica_nodes),
                        list(p.isr_nodes),
                        list(p.offline_replicas),
                    )
                    for p in topic.partitions
                ),
                key=lambda info: info.partition,
            )
            out[topic.name] = TopicDescription(topic.name, partitions, topic.is_internal)
        if names is not None:
            missing = [n for n in names if n not in out]
            if missing:
                raise error_class(Errors.UNKNOWN_TOPIC_OR_PARTITION)(f"Topic '{missing[0]}' does not exist")
        return dict(sorted(out.items()))

    async def describe_cluster(self) -> dict[str, Any]:
        """``{"cluster_id": str | None, "controller_id": int, "brokers": [BrokerMetadata]}``
        (brokers sorted by node id).

        Raises:
            KafkaConnectionError: no broker answered.
        """
        response = await self._client.metadata_for([])
        brokers = [BrokerMetadata(b.node_id, b.host, b.port, b.rack) for b in response.brokers]
        return {
            "cluster_id": response.cluster_id,
            "controller_id": response.controller_id,
            "brokers": sorted(brokers, key=lambda b: b.node_id),
        }

    async def find_coordinator(self, group_id: str, timeout_ms: int | None = None) -> int:
        """The node id of the broker coordinating ``group_id`` (FindCoordinator, as aiokafka's
        ``AIOKafkaAdminClient.find_coordinator``): the leader of the group's partition of
        ``__consumer_offsets``, which the first call of a cluster creates.
        COORDINATOR_NOT_AVAILABLE (the topic being created, a partition without leader) and a
        lost connection are retried ``retry_backoff_ms`` apart until ``timeout_ms``
        (``request_timeout_ms`` by default).

        Raises:
            KafkaTimeoutError: no coordinator within the timeout (the last error chained).
            KafkaError: another error of the group's answer (its class named after the code).
        """
        return await self._group_channel(group_id).find(self._server_timeout(timeout_ms))

    def _group_channel(self, group_id: str) -> GroupCoordinatorChannel:
        return GroupCoordinatorChannel(self._client, group_id, retry_backoff_ms=self._retry_backoff_ms)

    async def list_consumer_group_offsets(
        self, group_id: str, partitions: Iterable[TopicPartition] | None = None, timeout_ms: int | None = None
    ) -> dict[TopicPartition, OffsetAndMetadata]:
        """The offsets ``group_id`` has committed (OffsetFetch at its coordinator; Kafka's
        ``Admin.listConsumerGroupOffsets``).

        Args:
            group_id: the group.
            partitions: only these (None: every partition the group has committed).
            timeout_ms: bound, coordinator retries included (``request_timeout_ms`` by default).

        Returns:
            ``{partition: OffsetAndMetadata}``, sorted; a partition asked for without a
            committed offset is left out.

        Raises:
            InvalidGroupIdError: an empty group id.
            KafkaTimeoutError: the coordinator did not answer in time.
        """
        topics = None
        if partitions is not None:
            by_topic: dict[str, list[int]] = {}
            for tp in partitions:
                by_topic.setdefault(tp.topic, []).append(tp.partition)
            topics = [
                OffsetFetchRequestTopic(name=n, partition_indexes=sorted(ps)) for n, ps in by_topic.items()
            ]
        response = await self._group_channel(group_id).send(
            lambda: OffsetFetchRequest(group_id=group_id, topics=topics),
            lambda r: r.error_code,
            self._server_timeout(timeout_ms),
        )
        return {
            tp: value
            for tp, value in sorted(committed_offsets(group_id, response).items())
            if value is not None
        }

    async def alter_consumer_group_offsets(
        self,
        group_id: str,
        offsets: Mapping[TopicPartition, OffsetAndMetadata | int],
        timeout_ms: int | None = None,
    ) -> None:
        """Commit ``offsets`` for ``group_id`` (OffsetCommit outside group management; Kafka's
        ``Admin.alterConsumerGroupOffsets``).

        Raises:
            InvalidGroupIdError: an empty group id.
            UnknownTopicOrPartitionError: a partition that does not exist (nothing committed
                for it; the others are).
            OffsetMetadataTooLargeError: metadata over ``offset.metadata.max.bytes``.
            KafkaTimeoutError: the coordinator did not answer in time.
        """
        values = {
            tp: v if isinstance(v, OffsetAndMetadata) else OffsetAndMetadata(int(v))
            for tp, v in offsets.items()
        }
        response = await self._group_channel(group_id).send(
            lambda: offset_commit_request(group_id, values),
            commit_group_error,
            self._server_timeout(timeout_ms),
        )
        raise_commit_errors(group_id, response)

    async def list_consumer_groups(
        self, states: Iterable[str] = (), timeout_ms: int | None = None
    ) -> list[ConsumerGroupListing]:
        """Every consumer group of the cluster (ListGroups at every live broker, as Kafka's
        ``Admin.listConsumerGroups``), optionally only those in ``states``.

        Returns:
            The listings, sorted by group id.

        Raises:
            KafkaTimeoutError: a broker still loading its groups did not finish in time.
            KafkaConnectionError: a broker could not be reached.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._server_timeout(timeout_ms) / 1000
        await self._client.refresh_metadata()
        found: dict[str, ConsumerGroupListing] = {}
        for node_id in sorted(self._client.cluster.brokers()):
            while True:
                response = await self._client.send(node_id, ListGroupsRequest(states_filter=list(states)))
                if response.error_code != Errors.COORDINATOR_LOAD_IN_PROGRESS or loop.time() >= deadline:
                    break
                await asyncio.sleep(self._retry_backoff_ms / 1000)
            if response.error_code != Errors.NONE:
                cls = error_class(response.error_code)
                raise cls(f"ListGroups at broker {node_id} failed: {cls.message}")
            for g in response.groups:
                found[g.group_id] = ConsumerGroupListing(g.group_id, not g.protocol_type, g.group_state)
        return [found[g] for g in sorted(found)]

    async def describe_consumer_groups(
        self, group_ids: Iterable[str], timeout_ms: int | None = None
    ) -> dict[str, ConsumerGroupDescription]:
        """State, assignor and members (with their partitions) of each group (DescribeGroups at
        each group's coordinator; Kafka's ``Admin.describeConsumerGroups``); a group the
        coordinator does not know is Dead (from DescribeGroups v6 answered GROUP_ID_NOT_FOUND).

        Raises:
            InvalidGroupIdError: an empty group id.
            KafkaTimeoutError: a coordinator did not answer in time.
        """
        out: dict[str, ConsumerGroupDescription] = {}
        for group_id in group_ids:
            channel = self._group_channel(group_id)
            response = await channel.send(
                lambda g=group_id: DescribeGroupsRequest(groups=[g]),
                lambda r: r.groups[0].error_code,
                self._server_timeout(timeout_ms),
            )
            (group,) = response.groups
            if group.error_code == Errors.GROUP_ID_NOT_FOUND:  # DescribeGroups v6+ (KIP-1043)
                group = DescribedGroup(group_id=group_id, group_state="Dead")
            elif group.error_code != Errors.NONE:
                cls = error_class(group.error_code)
                raise cls(f"DescribeGroups of group {group_id!r} failed: {cls.message}")
            assert channel.coordinator is not None
            out[group_id] = describe(group, channel.coordinator[0])
        return out

    async def delete_consumer_groups(self, group_ids: Iterable[str], timeout_ms: int | None = None) -> None:
        """Delete groups without members, with their committed offsets (DeleteGroups at each
        group's coordinator; Kafka's ``Admin.deleteConsumerGroups``).

        Raises:
            NonEmptyGroupError: a group still has members (it and the groups after it stay).
            GroupIdNotFoundError: a group does not exist.
            KafkaTimeoutError: a coordinator did not answer in time.
        """
        for group_id in group_ids:
            response = await self._group_channel(group_id).send(
                lambda g=group_id: DeleteGroupsRequest(groups_names=[g]),
                lambda r: r.results[0].error_code,
                self._server_timeout(timeout_ms),
            )
            code = response.results[0].error_code
            if code != Errors.NONE:
                cls = error_class(code)
                raise cls(f"Deleting group {group_id!r} failed: {cls.message}")

    async def delete_consumer_group_offsets(
        self, group_id: str, partitions: Iterable[TopicPartition], timeout_ms: int | None = None
    ) -> None:
        """Delete committed offsets of ``group_id`` (OffsetDelete; Kafka's
        ``Admin.deleteConsumerGroupOffsets``).

        Raises:
            GroupSubscribedToTopicError: a member of the group is subscribed to the topic.
            GroupIdNotFoundError: the group does not exist.
            KafkaTimeoutError: the coordinator did not answer in time.
        """
        by_topic: dict[str, list[int]] = {}
        for tp in partitions:
            by_topic.setdefault(tp.topic, []).append(tp.partition)
        request = OffsetDeleteRequest(
            group_id=group_id,
            topics=[
                OffsetDeleteRequestTopic(
                    name=t, partitions=[OffsetDeleteRequestPartition(partition_index=p) for p in sorted(ps)]
                )
                for t, ps in sorted(by_topic.items())
            ],
        )
        response = await self._group_channel(group_id).send(
            lambda: request, _offset_delete_group_error, self._server_timeout(timeout_ms)
        )
        if response.error_code != Errors.NONE:
            cls = error_class(response.error_code)
            raise cls(f"Deleting offsets of group {group_id!r} failed: {cls.message}")
        for topic in response.topics:
            for p in topic.partitions:
                if p.error_code != Errors.NONE:
                    cls = error_class(p.error_code)
                    raise cls(
                        f"Deleting the offset of group {group_id!r} for {topic.name}-{p.partition_index} "
                        f"failed: {cls.message}"
                    )

    async def describe_metadata_quorum(self, timeout_ms: int | None = None) -> QuorumInfo:
        """The metadata quorum: leader, leader epoch, high watermark, voters and observers
        (Kafka's ``Admin.describeMetadataQuorum``, DescribeQuorum, KIP-836), as its leader (the
        active controller) sees them; a voter that is not the leader is asked again after a
        metadata refresh, as a NOT_CONTROLLER answer is.

        Raises:
            KafkaTimeoutError: no controller answered within the timeout.
            KafkaError: the quorum's error (its class named after the code).
        """
        response: DescribeQuorumResponse = await self._send_to_controller(
            lambda: DescribeQuorumRequest(
                topics=[
                    DescribeQuorumTopicRequest(
                        topic_name=CLUSTER_METADATA_TOPIC_NAME,
                        partitions=[DescribeQuorumPartitionRequest(partition_index=0)],
                    )
                ]
            ),
            _not_quorum_leader,
            self._server_timeout(timeout_ms),
            "DescribeQuorum",
        )
        if response.error_code != Errors.NONE:
            raise error_class(response.error_code)(response.error_message or "DescribeQuorum failed")
        partition = response.topics[0].partitions[0]
        if partition.error_code != Errors.NONE:
            raise error_class(partition.error_code)(partition.error_message or "DescribeQuorum failed")
        return QuorumInfo.from_wire(partition)

    async def list_offsets(
        self, topic_partition_offsets: Mapping[TopicPartition, OffsetSpec], timeout_ms: int | None = None
    ) -> dict[TopicPartition, ListOffsetsResultInfo]:
        """Offsets by spec from each partition's leader (Kafka's ``Admin.listOffsets``, ListOffsets).

        Args:
            topic_partition_offsets: ``{TopicPartition: OffsetSpec}`` (earliest, latest,
                max_timestamp, for_timestamp).
            timeout_ms: bound of the call, retries included (ms); default ``request_timeout_ms``.

        Returns:
            ``{TopicPartition: ListOffsetsResultInfo(offset, timestamp, leader_epoch)}``;
            offset -1 and timestamp -1 when a timestamp spec matches no record below the
            high watermark.

        Raises:
            TypeError: a key is not a TopicPartition or a value not an OffsetSpec.
            KafkaError: e.g. UnknownTopicOrPartitionError, or the last retriable error
                (KafkaTimeoutError when none) once the timeout passes.
        """
        timestamps: dict[TopicPartition, int] = {}
        for tp, spec in topic_partition_offsets.items():
            if not isinstance(tp, TopicPartition) or not isinstance(spec, OffsetSpec):
                raise TypeError(f"expected TopicPartition: OffsetSpec, got {tp!r}: {spec!r}")
            timestamps[tp] = spec.timestamp
        if not timestamps:
            return {}
        fetcher = OffsetFetcher(
            self._client, request_timeout_ms=self._request_timeout_ms, retry_backoff_ms=self._retry_backoff_ms
        )
        return await fetcher.list_offsets_and_timestamps(timestamps, timeout_ms)

    # --- records -----------------------------------------------------------------------

    async def delete_records(
        self, records_to_delete: Mapping[TopicPartition, int], timeout_ms: int | None = None
    ) -> dict[TopicPartition, int]:
        """Delete every record below the given offsets (DeleteRecords, at each partition's leader).

        The leader moves its log start offset at once and answers when every live
        replica has moved its own (the low watermark reached the offset) or its
        ``timeout_ms`` passed.  Leader changes and unknown leaders are retried after a
        metadata refresh within ``timeout_ms + request_timeout_ms``.

        Kafka concept: ``Admin.deleteRecords`` (KIP-107), ``kafka-delete-records.sh``.

        Args:
            records_to_delete: ``{TopicPartition: offset}``; -1 means the high watermark.
            timeout_ms: how long each leader may wait for its followers (ms; default
                ``request_timeout_ms``).

        Returns:
            ``{TopicPartition: low watermark}`` (the new first offset of each partition).

        Raises:
            TypeError / ValueError: malformed arguments (an offset below -1).
            OffsetOutOfRangeError: an offset above the partition's high watermark.
            UnknownTopicOrPartitionError: an unknown topic or partition.
            PolicyViolationError: the topic's ``cleanup.policy`` does not contain ``delete``.
            RequestTimedOutError: the followers did not catch up within ``timeout_ms``.
            KafkaTimeoutError: no leader answered in time.
            The first failing partition's error (in argument order) is raised, naming it.
        """
        if not isinstance(records_to_delete, Mapping):
            raise TypeError("delete_records takes {TopicPartition: offset}")
        wanted: dict[TopicPartition, int] = {}
        for tp, offset in records_to_delete.items():
            if not isinstance(tp, TopicPartition):
                raise TypeError(f"delete_records keys must be TopicPartitions, not {tp!r}")
            if type(offset) is not int or offset < -1:
                raise ValueError(f"offset of {tp} must be an int >= -1 (-1 = high watermark), got {offset!r}")
            wanted[tp] = offset
        if not wanted:
            return {}
        server_timeout_ms = self._server_timeout(timeout_ms)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (server_timeout_ms + self._request_timeout_ms) / 1000
        topics = list(dict.fromkeys(tp.topic for tp in wanted))
        descriptions = await self.describe_topics(topics)  # caches leaders; unknown topics raise here
        for tp in wanted:
            self._client.add_topic(tp.topic)
            if all(p.partition != tp.partition for p in descriptions[tp.topic].partitions):
                raise error_class(Errors.UNKNOWN_TOPIC_OR_PARTITION)(f"Partition {tp} does not exist")
        low_watermarks: dict[TopicPartition, int] = {}
        failures: dict[TopicPartition, KafkaError] = {}
        remaining = dict(wanted)
        while True:
            retry: dict[TopicPartition, KafkaError] = {}
            by_leader: dict[int, dict[TopicPartition, int]] = {}
            for tp, offset in remaining.items():
                leader = self._client.cluster.leader_for(tp)
                if leader is None or leader < 0:
                    retry[tp] = error_class(Errors.LEADER_NOT_AVAILABLE)(f"No leader known for {tp}")
                else:
                    by_leader.setdefault(leader, {})[tp] = offset
            answers = await asyncio.gather(
                *(
                    self._delete_records_at(node_id, offsets, server_timeout_ms)
                    for node_id, offsets in by_leader.items()
                ),
                return_exceptions=True,
            )
            for offsets, answer in zip(by_leader.values(), answers, strict=True):
                if isinstance(answer, (KafkaConnectionError, KafkaTimeoutError)):
                    retry.update(dict.fromkeys(offsets, answer))
                    continue
                if isinstance(answer, BaseException):
                    raise answer
                for tp, (low_watermark, code) in answer.items():
                    if code == Errors.NONE:
                        low_watermarks[tp] = low_watermark
                        continue
                    cls = error_class(code)
                    exc = cls(f"Partition {tp}: {cls.message}")
                    if cls.invalid_metadata:
                        retry[tp] = exc
                    else:
                        failures[tp] = exc
                for tp in offsets:
                    if tp not in answer:
                        retry[tp] = KafkaError(f"No DeleteRecords answer for {tp}")
            if not retry:
                break
            if loop.time() + self._retry_backoff_ms / 1000 >= deadline:
                failures.update(retry)
                break
            logger.info(
                "[AdminClient] Retrying DeleteRecords for %s: %s",
                sorted(map(str, retry)),
                next(iter(retry.values())),
            )
            remaining = {tp: wanted[tp] for tp in retry}
            await asyncio.sleep(self._retry_backoff_ms / 1000)
            try:
                await self._client.refresh_metadata()
            except KafkaError as exc:
                logger.debug("[AdminClient] Metadata refresh before DeleteRecords retry failed: %s", exc)
        for tp in wanted:
            if tp in failures:
                raise failures[tp]
        return {tp: low_watermarks[tp] for tp in wanted}

    async def _delete_records_at(
        self, node_id: int, offsets: dict[TopicPartition, int], server_timeout_ms: int
    ) -> dict[TopicPartition, tuple[int, int]]:
        """One DeleteRecords to broker ``node_id``; returns ``{tp: (low watermark, error code)}``."""
        by_topic: dict[str, list[DeleteRecordsPartition]] = {}
        for tp, offset in offsets.items():
            by_topic.setdefault(tp.topic, []).append(
                DeleteRecordsPartition(partition_index=tp.partition, offset=offset)
            )
        request = DeleteRecordsRequest(
            topics=[DeleteRecordsTopic(name=t, partitions=p) for t, p in by_topic.items()],
            timeout_ms=server_timeout_ms,
        )
        response: DeleteRecordsResponse = await self._client.send(
            node_id, request, timeout_ms=server_timeout_ms + self._request_timeout_ms
        )
        return {
            TopicPartition(topic.name, p.partition_index): (p.low_watermark, p.error_code)
            for topic in response.topics
            for p in topic.partitions
        }

    # --- configs -----------------------------------------------------------------------

    async def _broker_id(self, resource: ConfigResource) -> int:
        """The node id a BROKER resource names, refreshing metadata once if it is unknown.

        Raises:
            BrokerNotAvailableError: no live broker has that id.
        """
        node_id = int(resource.name)
        if self._client.cluster.broker(node_id) is None:
            await self._client.refresh_metadata()
        if self._client.cluster.broker(node_id) is None:
            raise error_class(Errors.BROKER_NOT_AVAILABLE)(
                f"Broker {node_id} is not a live broker of the cluster"
            )
        return node_id

    async def describe_configs(
        self,
        resources: Iterable[ConfigResource],
        config_names: Iterable[str] | None = None,
    ) -> dict[ConfigResource, dict[str, ConfigEntry]]:
        """Describe the configs of topics and groups (at the controller) and brokers (at each broker).

        Args:
            resources: ``ConfigResource(ConfigResourceType.TOPIC, name)`` /
                ``ConfigResource(ConfigResourceType.BROKER, "1")`` /
                ``ConfigResource(ConfigResourceType.GROUP, group_id)`` (KIP-848's group configs:
                an override has source GROUP_CONFIG).
            config_names: only these configs (None: every config).

        Returns:
            ``{resource: {name: ConfigEntry}}`` in request order; entries sorted by name.
            A topic override has source DYNAMIC_TOPIC_CONFIG; an inherited value the
            broker's source (STATIC_BROKER_CONFIG or DEFAULT_CONFIG).

        Raises:
            TypeError: an element is not a ConfigResource.
            UnknownTopicOrPartitionError, BrokerNotAvailableError, InvalidRequestError, ...:
                the first resource's error, with the server's message.
            KafkaTimeoutError / KafkaConnectionError: no broker answered in time.
        """
        wanted = list(dict.fromkeys(resources))
        if any(not isinstance(r, ConfigResource) for r in wanted):
            raise TypeError("describe_configs takes ConfigResource objects")
        names = None if config_names is None else list(config_names)
        results: dict[ConfigResource, Any] = {}
        topics = [
            r for r in wanted if r.resource_type in (ConfigResourceType.TOPIC, ConfigResourceType.GROUP)
        ]
        if topics:
            response: DescribeConfigsResponse = await self._send_to_controller(
                lambda: DescribeConfigsRequest(resources=[describe_resource(r, names) for r in topics]),
                lambda resp: any(x.error_code == Errors.NOT_CONTROLLER for x in resp.results),
                0,
                "DescribeConfigs",
            )
            self._collect(topics, response.results, results)
        for resource in (r for r in wanted if r.resource_type is ConfigResourceType.BROKER):
            node_id = await self._broker_id(resource)
            answer: DescribeConfigsResponse = await self._client.send(
                node_id, DescribeConfigsRequest(resources=[describe_resource(resource, names)])
            )
            self._collect([resource], answer.results, results)
        out: dict[ConfigResource, dict[str, ConfigEntry]] = {}
        for resource in wanted:
            result = results[resource]
            error = resource_error(result.error_code, result.error_message, resource)
            if error is not None:
                raise error
            out[resource] = read_described(result)
        return out

    @staticmethod
    def _collect(
        resources: list[ConfigResource], answered: Iterable[Any], into: dict[ConfigResource, Any]
    ) -> None:
        """Match per-resource results to the resources asked for (a missing one is an error)."""
        by_key = {(int(r.resource_type), r.resource_name): r for r in answered}
        for resource in resources:
            result = by_key.get((int(resource.resource_type), resource.name))
            if result is None:
                raise error_class(Errors.UNKNOWN_SERVER_ERROR)(f"No result for {resource} in the response")
            into[resource] = result

    async def alter_configs(self, configs: Mapping[ConfigResource, Any], validate_only: bool = False) -> None:
        """Change configs incrementally (IncrementalAlterConfigs): topic and group configs at the
        controller, broker configs at the broker named (at the controller when that
        broker answers NOT_CONTROLLER).

        Args:
            configs: ``{ConfigResource: changes}`` where changes is ``{name: value}``
                (SET; None DELETEs the override, restoring the default) or a list of
                ``AlterConfigOp`` / ``(name, op, value)`` with op in SET, DELETE,
                APPEND, SUBTRACT.
            validate_only: check without changing anything.

        Raises:
            TypeError / ValueError: malformed arguments.
            InvalidConfigError (names the key), UnknownTopicOrPartitionError,
            InvalidRequestError, BrokerNotAvailableError, ...: the first resource's
                error, with the server's message.
            KafkaTimeoutError: no controller answered in time.
        """
        if not isinstance(configs, Mapping):
            raise TypeError("alter_configs takes {ConfigResource: changes}")
        entries: dict[ConfigResource, Any] = {}
        for resource, changes in configs.items():
            if not isinstance(resource, ConfigResource):
                raise TypeError(f"alter_configs keys must be ConfigResource objects, not {resource!r}")
            entries[resource] = alter_resource(resource, normalize_alter_ops(changes))
        if not entries:
            return
        results: dict[ConfigResource, Any] = {}
        to_controller = [
            r for r in entries if r.resource_type in (ConfigResourceType.TOPIC, ConfigResourceType.GROUP)
        ]
        for resource in (r for r in entries if r.resource_type is ConfigResourceType.BROKER):
            node_id = await self._broker_id(resource)
            answer: IncrementalAlterConfigsResponse = await self._client.send(
                node_id,
                IncrementalAlterConfigsRequest(resources=[entries[resource]], validate_only=validate_only),
            )
            if any(x.error_code == Errors.NOT_CONTROLLER for x in answer.responses):
                to_controller.append(resource)
            else:
                self._collect([resource], answer.responses, results)
        if to_controller:
            response: IncrementalAlterConfigsResponse = await self._send_to_controller(
                lambda: IncrementalAlterConfigsRequest(
                    resources=[entries[r] for r in to_controller], validate_only=validate_only
                ),
                lambda resp: any(x.error_code == Errors.NOT_CONTROLLER for x in resp.responses),
                0,
                "IncrementalAlterConfigs",
            )
            self._collect(to_controller, response.responses, results)
        for resource in entries:
            result = results[resource]
            error = resource_error(result.error_code, result.error_message, resource)
            if error is not None:
                raise error
