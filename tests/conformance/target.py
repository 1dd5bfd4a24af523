"""One broker cluster the conformance scenarios run against (Apache Kafka or Kafkette), with the
client handles and waits every scenario needs.

Both clusters are built alike (``CLUSTER_NODES`` nodes, ids 1..n, every node a broker and a
voter, the same broker configs ``SHARED_BROKER_CONFIGS``), and each scenario sees only what a
Kafka client can: its bootstrap servers, the addresses of the brokers' Kafka listeners, and a way
to stop and start a node (a controlled shutdown, SIGTERM, on both).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from kafkette.protocol.apis.metadata import MetadataRequest, MetadataRequestTopic
from tests.conformance.raw_client import RawKafkaClient, error_name
from tests.conformance.recorder import AnswerRecorder, register

CLUSTER_NODES = 3
# Set on both clusters: what Kafka's quickstart would leave at its default but a test cannot wait for.
SHARED_BROKER_CONFIGS: dict[str, object] = {"group.initial.rebalance.delay.ms": 0}
WAIT_S = 30.0


class ScenarioError(AssertionError):
    """A scenario could not reach the state it needed (a wait ran out); the message says which."""


@dataclass
class Target:
    """A running cluster as the scenarios see it.

    Attributes:
        name: ``"kafka"`` or ``"kafkette"``.
        bootstrap: ``"127.0.0.1:p1,..."`` of the Kafka-protocol listeners.
        addresses: ``{node id: (host, port)}`` of each broker's Kafka-protocol listener.
        stop_node / start_node: a controlled shutdown (SIGTERM) of one node and its restart
            (returns once it serves again).
        recorder: keeps every request/answer pair of the raw connections, by scenario.
        users: ``{user: password}`` of the SASL/PLAIN users of a SASL_PLAINTEXT listener (empty on
            a PLAINTEXT one).
        user: the user every client and raw connection of this target logs in as (None: no SASL).
    """

    name: str
    bootstrap: str
    addresses: dict[int, tuple[str, int]]
    stop_node: Callable[[int], None]
    start_node: Callable[[int], None]
    recorder: AnswerRecorder = field(default_factory=AnswerRecorder, repr=False)
    users: dict[str, str] = field(default_factory=dict, repr=False)
    user: str | None = None
    _views: dict[str, Target] = field(default_factory=dict, repr=False)
    _admin: AdminClient | None = field(default=None, repr=False)
    _raw: dict[int, RawKafkaClient] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for address in self.addresses.values():
            register(address, self.recorder)

    # --- clients ---------------------------------------------------------------------------

    def as_user(self, user: str) -> Target:
        """The same cluster seen by SASL/PLAIN user ``user`` (one of ``users``): its own clients
        and raw connections, the same recorder; kept, and closed with this target.

        Raises:
            KeyError: ``user`` is not one of ``users``.
        """
        view = self._views.get(user)
        if view is None:
            self.users[user]  # noqa: B018 - KeyError for an unknown user
            view = replace(self, user=user, _views={}, _admin=None, _raw={})
            self._views[user] = view
        return view

    def client_security(self) -> dict[str, str]:
        """librdkafka's settings for logging in as ``user`` (SASL_PLAINTEXT, PLAIN); {} without one."""
        if self.user is None:
            return {}
        return {
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "PLAIN",
            "sasl.username": self.user,
            "sasl.password": self.users[self.user],
        }

    def admin(self) -> AdminClient:
        """The cluster's AdminClient (confluent-kafka; one per target, kept)."""
        if self._admin is None:
            self._admin = AdminClient(
                {"bootstrap.servers": self.bootstrap, "socket.timeout.ms": 10000, **self.client_security()}
            )
        return self._admin

    def producer(self, **conf: Any) -> Producer:
        """A new confluent-kafka Producer (``conf`` in librdkafka's dotted names, ``_`` for ``.``)."""
        return Producer(
            {
                "bootstrap.servers": self.bootstrap,
                "linger.ms": 0,
                "message.timeout.ms": 15000,
                **self.client_security(),
                **{k.replace("_", "."): v for k, v in conf.items()},
            }
        )

    def consumer(self, group: str, **conf: Any) -> Consumer:
        """A new confluent-kafka Consumer of ``group`` reading from the earliest offset by default."""
        settings = {
            "bootstrap.servers": self.bootstrap,
            "group.id": group,
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "session.timeout.ms": 10000,
            "heartbeat.interval.ms": 1000,
            **self.client_security(),
        }
        settings.update({k.replace("_", "."): v for k, v in conf.items()})
        return Consumer(settings)

    def raw(self, node: int | None = None) -> RawKafkaClient:
        """A raw Kafka-protocol connection to ``node`` (default: the lowest running one), kept;
        a connection the broker closed is replaced on the next call."""
        node = node if node is not None else min(self.addresses)
        client = self._raw.get(node)
        if client is None:
            client = RawKafkaClient(
                *self.addresses[node],
                recorder=self.recorder.record,
                connection="target" if self.user is None else f"target-{self.user}",
                sasl_plain=None if self.user is None else (self.user, self.users[self.user]),
            )
            self._raw[node] = client
        return client

    def call(self, api: str, version: int, request: Any, node: int | None = None) -> Any:
        """``raw(node).call(...)``, reconnecting once if the kept connection was closed."""
        node = node if node is not None else min(self.addresses)
        try:
            return self.raw(node).call(api, version, request)
        except OSError:
            self.drop_raw(node)
            return self.raw(node).call(api, version, request)

    def drop_raw(self, node: int) -> None:
        client = self._raw.pop(node, None)
        if client is not None:
            client.close()

    def close(self) -> None:
        for view in self._views.values():
            view.close()
        for node in list(self._raw):
            self.drop_raw(node)

    # --- metadata and waits ----------------------------------------------------------------

    def metadata(
        self,
        topics: list[str] | None = None,
        node: int | None = None,
        auto_create: bool = False,
        version: int = 12,
    ) -> Any:
        """A Metadata response (v12 by default) from ``node``; ``topics=None`` asks for all."""
        request = MetadataRequest(
            topics=None if topics is None else [MetadataRequestTopic(name=t) for t in topics],
            allow_auto_topic_creation=auto_create,
        )
        return self.call("Metadata", version, request, node)

    def partitions(self, topic: str, node: int | None = None) -> list[Any]:
        """The topic's partitions in a Metadata answer, by index ([] when unknown)."""
        answer = self.metadata([topic], node)
        for t in answer.topics:
            if t.name == topic and t.error_code == 0:
                return sorted(t.partitions, key=lambda p: p.partition_index)
        return []

    def wait_topic(self, topic: str, partitions: int | None = None, timeout_s: float = WAIT_S) -> list[Any]:
        """Wait until every running broker knows ``topic`` with a leader for each partition
        (and ``partitions`` of them when given); its partitions as the lowest node sees them.

        Raises:
            ScenarioError: not within ``timeout_s``.
        """
        deadline = time.monotonic() + timeout_s
        while True:
            views = [self.partitions(topic, node) for node in self.addresses]
            if all(
                v and all(p.leader_id >= 0 for p in v) and (partitions is None or len(v) == partitions)
                for v in views
            ):
                return views[0]
            if time.monotonic() > deadline:
                raise ScenarioError(
                    f"{self.name}: topic {topic} did not get leaders on every broker in {timeout_s} s"
                )
            time.sleep(0.05)

    def wait_absent(self, topic: str, timeout_s: float = WAIT_S) -> None:
        """Wait until no running broker lists ``topic``.

        Raises:
            ScenarioError: not within ``timeout_s``.
        """
        deadline = time.monotonic() + timeout_s
        while any(self.partitions(topic, node) for node in self.addresses):
            if time.monotonic() > deadline:
                raise ScenarioError(f"{self.name}: topic {topic} was still listed after {timeout_s} s")
            time.sleep(0.05)

    def leader(self, topic: str, partition: int = 0) -> int:
        """The node id leading ``topic``-``partition`` (waits for one)."""
        return self.wait_topic(topic)[partition].leader_id

    # --- admin shortcuts ---------------------------------------------------------------------

    def create_topic(
        self,
        name: str,
        partitions: int = 1,
        replication_factor: int = 1,
        config: dict[str, str] | None = None,
        wait: bool = True,
    ) -> str:
        """Create a topic with AdminClient; ``"NONE"`` or the error's name.  With ``wait`` a
        created topic is waited for on every broker."""
        topic = NewTopic(
            name, num_partitions=partitions, replication_factor=replication_factor, config=config or {}
        )
        outcome = admin_outcome(self.admin().create_topics([topic], operation_timeout=30)[name])
        if outcome == "NONE" and wait:
            self.wait_topic(name, partitions if partitions > 0 else None)
        return outcome

    def produce_values(self, topic: str, values: list[bytes], partition: int = 0, **conf: Any) -> list[Any]:
        """Produce ``values`` to one partition with a confluent-kafka Producer and flush; per value
        its offset or its error's name."""
        producer = self.producer(**conf)
        outcomes: list[Any] = [None] * len(values)

        def report(index: int) -> Callable[[Any, Any], None]:
            def on_delivery(err: KafkaError | None, msg: Any) -> None:
                outcomes[index] = err.name() if err is not None else msg.offset()

            return on_delivery

        for i, value in enumerate(values):
            producer.produce(topic, value, partition=partition, on_delivery=report(i))
        remaining = producer.flush(30)
        if remaining:
            raise ScenarioError(f"{self.name}: {remaining} records undelivered after 30 s")
        return outcomes


def admin_outcome(future: Any, timeout_s: float = 30) -> Any:
    """An AdminClient future's result: ``"NONE"`` when it succeeded without a value, the value
    otherwise, or the error's name (``TOPIC_ALREADY_EXISTS``)."""
    try:
        value = future.result(timeout=timeout_s)
    except KafkaException as exc:
        return exc.args[0].name()
    return "NONE" if value is None else value


def code_name(code: int) -> str:
    """Kafka's name of an error code."""
    return error_name(code)
