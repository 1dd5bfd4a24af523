"""The asyncio client core shared by AdminClient, Producer and Consumer.

Owns: the bootstrap list, one ``BrokerConnection`` per broker address (dead ones are
dropped and reopened on next use, after the address's reconnect backoff:
``reconnect.backoff.ms`` doubling per failed connect up to ``reconnect.backoff.max.ms``,
``ClusterConnectionStates``), the ``ClusterMetadata`` cache and the background task that
refreshes it (on request, on ``metadata.max.age.ms``, never faster than its backoff:
``retry.backoff.ms`` growing to ``retry.backoff.max.ms``), request routing (to a node, to
any broker, to the controller), and the log lines of its two retry loops, connects and
metadata refreshes (a WARNING when a broker cannot be reached or no broker answers
Metadata, at most one more per 10 s while it lasts, an INFO when it is over:
``FaultLogger``).  Does not own batching, fetching or admin logic.

Kafka concept: ``NetworkClient`` + ``Metadata`` updater (aiokafka's ``AIOKafkaClient``).
"""

from __future__ import annotations

import asyncio
import logging
import random
import ssl
from collections.abc import Iterable
from typing import Any

from kafkette.client.cluster_connection_states import ClusterConnectionStates
from kafkette.client.cluster_metadata import ClusterMetadata
from kafkette.client.exponential_backoff import (
    DEFAULT_RECONNECT_BACKOFF_MAX_MS,
    DEFAULT_RECONNECT_BACKOFF_MS,
    DEFAULT_RETRY_BACKOFF_MAX_MS,
    DEFAULT_RETRY_BACKOFF_MS,
)
from kafkette.client.fault_logger import FaultLogger
from kafkette.common.background_tasks import SHUTDOWN_TIMEOUT_S, ShutdownableTask, cancel_and_wait
from kafkette.common.network.client_security import ClientSecurity
from kafkette.common.network.connection import BrokerConnection
from kafkette.common.security.sasl_client import sasl_client
from kafkette.protocol.apis.metadata import MetadataRequest, MetadataRequestTopic, MetadataResponse
from kafkette.protocol.errors import (
    Errors,
    KafkaConnectionError,
    KafkaError,
    KafkaTimeoutError,
    error_class,
)
from kafkette.protocol.schema import Struct

logger = logging.getLogger(__name__)

Address = tuple[str, int]


def parse_bootstrap_servers(bootstrap_servers: str | Iterable[str]) -> list[Address]:
    """Parse ``"host:port,host:port"`` (or a list of ``host:port``) into addresses.

    Raises:
        ValueError: empty list, an entry without a valid port, or a host that is no host name
            (``broker..example``: the resolver could not even encode it).
    """
    entries = bootstrap_servers.split(",") if isinstance(bootstrap_servers, str) else list(bootstrap_servers)
    out: list[Address] = []
    for entry in entries:
        entry = entry.strip()
        if not entry:
            continue
        host, sep, port = entry.rpartition(":")
        if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"Invalid bootstrap server {entry!r}: expected host:port")
        host = host.strip("[]")
        try:
            host.encode("idna")
        except UnicodeError:
            raise ValueError(f"Invalid bootstrap server {entry!r}: {host!r} is not a host name") from None
        out.append((host, int(port)))
    if not out:
        raise ValueError("bootstrap_servers must name at least one host:port")
    return out


AUTHENTICATION_ERRORS = tuple(
    error_class(code)
    for code in (
        Errors.SASL_AUTHENTICATION_FAILED,
        Errors.UNSUPPORTED_SASL_MECHANISM,
        Errors.ILLEGAL_SASL_STATE,
    )
)
"""A refused login: fatal to the operation, not retried (Kafka's ``AuthenticationException``)."""

SECURITY_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
SASL_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")


def client_security(
    security_protocol: str = "PLAINTEXT",
    ssl_context: ssl.SSLContext | None = None,
    sasl_mechanism: str = "PLAIN",
    sasl_plain_username: str | None = None,
    sasl_plain_password: str | None = None,
) -> ClientSecurity:
    """What a client's connections do, from aiokafka's keywords (Kafka's ``security.protocol``,
    ``sasl.mechanism`` and the login of ``sasl.jaas.config``).

    Returns:
        A ``ClientSecurity``: TLS with ``ssl_context`` for ``SSL`` / ``SASL_SSL``, a login with the
        mechanism for ``SASL_PLAINTEXT`` / ``SASL_SSL``.

    Raises:
        ValueError: an unknown protocol or mechanism, ``SSL`` / ``SASL_SSL`` without an
            ``ssl_context``, or SASL without a user name and password (aiokafka's rules).
    """
    protocol = str(security_protocol).upper()
    if protocol not in SECURITY_PROTOCOLS:
        raise ValueError(
            f"Invalid value {security_protocol} for security_protocol: one of {', '.join(SECURITY_PROTOCOLS)}"
        )
    if protocol in ("SSL", "SASL_SSL") and ssl_context is None:
        raise ValueError(f'`ssl_context` is mandatory if security_protocol=="{protocol}"')
    tls = ssl_context if protocol in ("SSL", "SASL_SSL") else None
    if not protocol.startswith("SASL_"):
        return ClientSecurity(tls)
    if sasl_mechanism not in SASL_MECHANISMS:
        raise ValueError(
            f"Invalid value {sasl_mechanism} for sasl_mechanism: one of {', '.join(SASL_MECHANISMS)}"
        )
    if sasl_plain_username is None or sasl_plain_password is None:
        raise ValueError("sasl_plain_username and sasl_plain_password required for PLAIN or SCRAM sasl")
    username, password = sasl_plain_username, sasl_plain_password
    return ClientSecurity(tls, lambda: sasl_client(sasl_mechanism, username, password))


def _checked_metadata(response: MetadataResponse) -> MetadataResponse:
    """``response``, unless its top-level ``error_code`` (Metadata v13+, KIP-1102) refuses the whole
    request (e.g. ILLEGAL_SASL_STATE from a SASL listener the client did not log in to).

    Raises:
        KafkaError: the class of that error code.
    """
    code = getattr(response, "error_code", 0) or 0
    if code:
        raise error_class(code)(f"Metadata refused: {Errors(code).name}")
    return response


def _reason(exc: BaseException | None) -> str:
    """The bare message of a client error (without the class-name prefix)."""
    if exc is None:
        return "no answer"
    return str(exc.args[0]) if exc.args else type(exc).__name__


class KafkaClient:
    """Connections, metadata and routing for one client instance.

    Args:
        bootstrap_servers: ``"host:port,..."`` used until the first Metadata answer.
        client_id: sent in every request header.
        request_timeout_ms: per-request deadline, and the bound of ``start()`` (ms).
        retry_backoff_ms: minimum pause between metadata refreshes (ms; ``retry.backoff.ms``).
        retry_backoff_max_ms: the most the pause between metadata refreshes grows to while
            they fail or bring nothing new (ms; ``retry.backoff.max.ms``).
        reconnect_backoff_ms: pause before connecting again to an address whose connect
            failed (ms; ``reconnect.backoff.ms``), doubling per further failure...
        reconnect_backoff_max_ms: ...up to this (ms; ``reconnect.backoff.max.ms``).
        metadata_max_age_ms: periodic refresh interval (ms).
        allow_auto_topic_creation: Metadata v1 flag; False keeps unknown topics unknown.
        security_protocol: ``PLAINTEXT``, ``SSL``, ``SASL_PLAINTEXT`` or ``SASL_SSL`` (Kafka's
            ``security.protocol``): the brokers' listener's.
        ssl_context: the TLS context of every connection for ``SSL`` and ``SASL_SSL``
            (``kafkette.client.create_ssl_context``, or any ``ssl.SSLContext`` for a client).
        sasl_mechanism, sasl_plain_username, sasl_plain_password: the login of every connection
            for ``SASL_PLAINTEXT`` and ``SASL_SSL``: ``PLAIN``, ``SCRAM-SHA-256`` or ``SCRAM-SHA-512``
            (aiokafka's keywords; Kafka's ``sasl.mechanism`` and ``sasl.jaas.config``).

    Raises:
        ValueError: a bad timeout or security setting (see ``client_security``).

    Lifecycle: ``await start()`` bootstraps (raises KafkaConnectionError when no
    bootstrap server answers within ``request_timeout_ms``); ``await close()`` cancels
    the metadata task and closes every connection.
    """

    def __init__(
        self,
        bootstrap_servers: str | Iterable[str],
        *,
        client_id: str = "kafkette",
        request_timeout_ms: int = 30000,
        retry_backoff_ms: int = DEFAULT_RETRY_BACKOFF_MS,
        retry_backoff_max_ms: int = DEFAULT_RETRY_BACKOFF_MAX_MS,
        reconnect_backoff_ms: int = DEFAULT_RECONNECT_BACKOFF_MS,
        reconnect_backoff_max_ms: int = DEFAULT_RECONNECT_BACKOFF_MAX_MS,
        metadata_max_age_ms: int = 300000,
        allow_auto_topic_creation: bool = False,
        security_protocol: str = "PLAINTEXT",
        ssl_context: ssl.SSLContext | None = None,
        sasl_mechanism: str = "PLAIN",
        sasl_plain_username: str | None = None,
        sasl_plain_password: str | None = None,
    ) -> None:
        if request_timeout_ms <= 0:
            raise ValueError("request_timeout_ms must be > 0")
        self._security = client_security(
            security_protocol, ssl_context, sasl_mechanism, sasl_plain_username, sasl_plain_password
        )
        self._bootstrap = parse_bootstrap_servers(bootstrap_servers)
        self.client_id = client_id
        self.request_timeout_ms = request_timeout_ms
        self.retry_backoff_ms = retry_backoff_ms
        self.allow_auto_topic_creation = allow_auto_topic_creation
        self.cluster = ClusterMetadata(
            metadata_max_age_ms=metadata_max_age_ms,
            retry_backoff_ms=retry_backoff_ms,
            retry_backoff_max_ms=retry_backoff_max_ms,
        )
        self._connection_states = ClusterConnectionStates(reconnect_backoff_ms, reconnect_backoff_max_ms)
        log_prefix = f"[Client clientId={self.client_id}]"
        self._connection_faults = FaultLogger(logger, log_prefix)
        self._metadata_faults = FaultLogger(logger, log_prefix)
        self._conns: dict[Address, BrokerConnection] = {}
        self._conn_locks: dict[Address, asyncio.Lock] = {}
        self._topics: set[str] = set()
        self._md_task = ShutdownableTask(
            "kafka-client-metadata", log_prefix=f"[Client clientId={self.client_id}]"
        )
        self._md_refresh: asyncio.Task[None] | None = None
        self._md_wakeup = asyncio.Event()
        self._closed = False

    # --- lifecycle --------------------------------------------------------------------

    async def start(self) -> None:
        """Bootstrap: fetch metadata from any bootstrap server, then start the refresher.

        Raises:
            KafkaConnectionError: no bootstrap server answered within ``request_timeout_ms``.
            SaslAuthenticationFailedError, UnsupportedSaslMechanismError, IllegalSaslStateError:
                a bootstrap server refused the login (at once: Kafka's clients do not retry it).
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.request_timeout_ms / 1000
        last_exc: BaseException | None = None
        while True:
            try:
                await self._refresh_from(list(self._bootstrap))
                break
            except AUTHENTICATION_ERRORS:
                await self.close()
                raise
            except KafkaError as exc:
                last_exc = exc
            remaining_s = deadline - loop.time()
            if remaining_s <= 0:
                servers = ",".join(f"{h}:{p}" for h, p in self._bootstrap)
                await self.close()
                raise KafkaConnectionError(
                    f"Unable to bootstrap from {servers}: {_reason(last_exc)}"
                ) from last_exc
            # a backoff reaching past the deadline ends at it, for one last attempt
            await asyncio.sleep(min(self.cluster.backoff_remaining_ms() / 1000, remaining_s))
        self._md_task.start(self._metadata_loop)

    async def close(self) -> None:
        """Cancel the metadata tasks and close every connection (idempotent)."""
        self._closed = True
        await self._md_task.shutdown()
        await cancel_and_wait([self._md_refresh], SHUTDOWN_TIMEOUT_S)
        self._md_refresh = None
        conns, self._conns = list(self._conns.values()), {}
        await asyncio.gather(*(c.close() for c in conns), return_exceptions=True)

    # --- topics of interest and metadata ------------------------------------------------

    def add_topic(self, topic: str) -> None:
        """Track ``topic`` in every metadata refresh; requests a refresh when new."""
        if topic not in self._topics:
            self._topics.add(topic)
            self.cluster.request_update_for_new_topics()
            self._md_wakeup.set()

    @property
    def topics(self) -> set[str]:
        return set(self._topics)

    def request_metadata_update(self, reset_backoff: bool = True) -> None:
        """Ask the refresher for new metadata as soon as the refresh backoff allows.

        Args:
            reset_backoff: False when asking in order to retry an operation (a leader that
                moved or cannot be reached): the refresh backoff then keeps growing towards
                ``retry_backoff_max_ms`` while the answers bring nothing new.
        """
        self.cluster.request_update(reset_backoff)
        self._md_wakeup.set()

    def connection_delay_ms(self, node_id: int) -> float:
        """Milliseconds before a connect to broker ``node_id`` may be tried (0 when connected,
        unknown, or its reconnect backoff is over; Kafka's ``NetworkClient.connectionDelay``)."""
        broker = self.cluster.broker(node_id)
        if broker is None:
            return 0.0
        return self._connection_states.connection_delay_ms((broker.host, broker.port))

    async def refresh_metadata(self) -> None:
        """Refresh metadata now (single flight: concurrent callers share one request).

        Raises:
            KafkaConnectionError: no known broker answered.
        """
        if self._md_refresh is None or self._md_refresh.done():
            self._md_refresh = asyncio.get_running_loop().create_task(
                self._refresh_once(), name="metadata-refresh"
            )
            # Callers may all be cancelled; the failure is still consumed here.
            self._md_refresh.add_done_callback(lambda t: t.cancelled() or t.exception())
        await asyncio.shield(self._md_refresh)

    async def wait_for_metadata(self, topic: str, timeout_ms: int | None = None) -> list[int]:
        """Return the partition ids of ``topic``, refreshing metadata until it is known.

        Args:
            topic: the topic; it is added to the tracked topics.
            timeout_ms: bound (default ``request_timeout_ms``).

        Raises:
            UnknownTopicOrPartitionError: the topic is still unknown at the deadline.
            KafkaError: a non-retriable topic error (e.g. InvalidTopicError).
            KafkaTimeoutError: no metadata could be fetched before the deadline.
        """
        parts = self.cluster.partitions_for_topic(topic)
        if parts:
            return parts
        self.add_topic(topic)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (timeout_ms if timeout_ms is not None else self.request_timeout_ms) / 1000
        last_exc: BaseException | None = None
        while True:
            try:
                await self.refresh_metadata()
            except KafkaError as exc:
                last_exc = exc
            parts = self.cluster.partitions_for_topic(topic)
            if parts:
                return parts
            code = self.cluster.topic_error(topic)
            if code and not error_class(code).retriable:
                raise error_class(code)(f"Topic {topic}: {error_class(code).message}")
            remaining = deadline - loop.time()
            if remaining <= 0:
                if code == Errors.UNKNOWN_TOPIC_OR_PARTITION:
                    raise error_class(code)(
                        f"Topic {topic} not present in metadata after "
                        f"{timeout_ms or self.request_timeout_ms} ms"
                    )
                raise KafkaTimeoutError(
                    f"Metadata for topic {topic} not available: {last_exc or 'no answer'}"
                )
            await asyncio.sleep(min(self.retry_backoff_ms / 1000, remaining))

    async def _metadata_loop(self) -> None:
        while not self._closed:
            ttl = self.cluster.ttl_ms()
            if ttl > 0:
                self._md_wakeup.clear()
                try:
                    async with asyncio.timeout(ttl / 1000):
                        await self._md_wakeup.wait()
                except TimeoutError:
                    pass
                continue
            try:
                await self.refresh_metadata()
            except KafkaError as exc:
                self._metadata_faults.failed("metadata", "Metadata refresh", exc)
            else:
                if self._metadata_faults:
                    self._metadata_faults.cleared("metadata")

    async def _refresh_once(self) -> None:
        backoff = self.cluster.backoff_remaining_ms()
        if backoff > 0:
            await asyncio.sleep(backoff / 1000)
        brokers = list(self.cluster.brokers().values())
        random.shuffle(brokers)
        connected = [
            b for b in brokers if (c := self._conns.get((b.host, b.port))) is not None and c.connected
        ]
        # Brokers whose reconnect backoff is over first (a sort is stable: random order within).
        others = sorted(
            (b for b in brokers if b not in connected),
            key=lambda b: self._connection_states.connection_delay_ms((b.host, b.port)) > 0,
        )
        candidates = [(b.host, b.port) for b in connected + others]
        candidates += [a for a in self._bootstrap if a not in candidates]
        await self._refresh_from(candidates)

    async def _refresh_from(self, addresses: list[Address]) -> None:
        topics = sorted(self._topics)
        request = MetadataRequest(
            topics=[MetadataRequestTopic(name=t) for t in topics],
            allow_auto_topic_creation=self.allow_auto_topic_creation,
        )
        last_exc: BaseException | None = None
        for address in addresses:
            try:
                response = _checked_metadata(await self._send_to_address(address, request))
            except AUTHENTICATION_ERRORS:
                self.cluster.failed_update()
                raise
            except KafkaError as exc:
                last_exc = exc
                continue
            self.cluster.update(response, topics)
            return
        self.cluster.failed_update()
        raise KafkaConnectionError(f"No broker answered Metadata: {_reason(last_exc)}") from last_exc

    async def metadata_for(self, topics: list[str] | None) -> MetadataResponse:
        """Send one Metadata request (``None`` = all topics) to any broker and cache it.

        Returns:
            The MetadataResponse (topic errors are left for the caller to inspect).
        """
        request = MetadataRequest(
            topics=None if topics is None else [MetadataRequestTopic(name=t) for t in topics],
            allow_auto_topic_creation=False,
        )
        response: MetadataResponse = _checked_metadata(await self.send_to_any(request))
        self.cluster.update(response, topics)
        return response

    # --- connections and routing ----------------------------------------------------------

    def _node_name(self, address: Address) -> str | None:
        """``node 3 (host:port)`` for a broker of the metadata, None for another address (a
        bootstrap server, whose failures ``start`` reports itself)."""
        for broker in self.cluster.brokers().values():
            if (broker.host, broker.port) == address:
                return f"node {broker.node_id} ({address[0]}:{address[1]})"
        return None

    async def _connection(self, address: Address) -> BrokerConnection:
        conn = self._conns.get(address)
        if conn is not None and conn.connected:
            return conn
        lock = self._conn_locks.setdefault(address, asyncio.Lock())
        async with lock:
            conn = self._conns.get(address)
            if conn is not None and conn.connected:
                return conn
            if conn is not None:
                self._conns.pop(address, None)
                await conn.close()
            delay_ms = self._connection_states.connection_delay_ms(address)
            if delay_ms > 0:  # reconnect backoff (at most reconnect.backoff.max.ms)
                await asyncio.sleep(delay_ms / 1000)
            if self._closed:
                raise KafkaConnectionError("client is closed")
            conn = BrokerConnection(
                address[0],
                address[1],
                client_id=self.client_id,
                request_timeout_ms=self.request_timeout_ms,
                security=self._security,
            )
            try:
                await conn.connect()
            except KafkaConnectionError as exc:
                self._connection_states.connect_failed(address)
                node = self._node_name(address)
                if node is not None:
                    self._connection_faults.failed(
                        address,
                        f"Connection to {node}",
                        _reason(exc),
                        start_message=(
                            f"Connection to {node} could not be established. Node may not be available: "
                            f"{_reason(exc)}"
                        ),
                    )
                raise
            self._connection_states.connected(address)
            if self._connection_faults:
                self._connection_faults.cleared(address)
            self._conns[address] = conn
            logger.debug("[Client clientId=%s] Connected to %s:%d", self.client_id, *address)
            return conn

    async def _send_to_address(self, address: Address, request: Struct, **kwargs: Any) -> Any:
        conn = await self._connection(address)
        try:
            return await conn.send(request, **kwargs)
        except (KafkaConnectionError, KafkaTimeoutError):
            if self._conns.get(address) is conn:
                del self._conns[address]
            await conn.close()
            raise

    async def send_to_address(
        self, host: str, port: int, request: Struct, *, timeout_ms: int | None = None
    ) -> Any:
        """Send ``request`` to the broker at ``host:port`` (one a response named, such as a
        group's coordinator, perhaps not yet in the metadata) and return its response.

        Raises:
            KafkaConnectionError: refused or lost connection (the connection is dropped).
            KafkaTimeoutError: no response in time (the connection is dropped).
        """
        return await self._send_to_address((host, port), request, timeout_ms=timeout_ms)

    async def get_connection(self, node_id: int) -> BrokerConnection:
        """Return an open connection to broker ``node_id`` (opening it if needed).

        Raises:
            KafkaConnectionError: the broker is unknown or cannot be reached.
        """
        broker = self.cluster.broker(node_id)
        if broker is None:
            self.request_metadata_update()
            raise KafkaConnectionError(f"Broker {node_id} is not in the cluster metadata")
        return await self._connection((broker.host, broker.port))

    async def send(
        self, node_id: int, request: Struct, *, timeout_ms: int | None = None, expect_response: bool = True
    ) -> Any:
        """Send ``request`` to broker ``node_id`` and return its response.

        Args:
            node_id: destination broker id.
            request: a registered request struct.
            timeout_ms: response deadline (default ``request_timeout_ms``).
            expect_response: False for Produce with acks=0 (returns None).

        Raises:
            KafkaConnectionError: unknown broker, refused or lost connection (the
                connection is dropped and a metadata refresh requested).
            KafkaTimeoutError: no response in time (the connection is dropped).
        """
        broker = self.cluster.broker(node_id)
        if broker is None:
            self.request_metadata_update(reset_backoff=False)
            raise KafkaConnectionError(f"Broker {node_id} is not in the cluster metadata")
        try:
            return await self._send_to_address(
                (broker.host, broker.port), request, timeout_ms=timeout_ms, expect_response=expect_response
            )
        except (KafkaConnectionError, KafkaTimeoutError):
            self.request_metadata_update(reset_backoff=False)
            raise

    async def send_to_any(self, request: Struct, *, timeout_ms: int | None = None) -> Any:
        """Send to a connected broker if any, else any known broker, else a bootstrap server.

        Raises:
            KafkaConnectionError: no broker could be reached.
        """
        brokers = list(self.cluster.brokers().values())
        random.shuffle(brokers)
        addresses = [(b.host, b.port) for b in brokers]
        # Connected brokers first, then those whose reconnect backoff is over, then the rest.
        addresses.sort(
            key=lambda a: (
                not (a in self._conns and self._conns[a].connected),
                self._connection_states.connection_delay_ms(a) > 0,
            )
        )
        addresses += [a for a in self._bootstrap if a not in addresses]
        last_exc: BaseException | None = None
        for address in addresses:
            try:
                return await self._send_to_address(address, request, timeout_ms=timeout_ms)
            except (KafkaConnectionError, KafkaTimeoutError) as exc:
                last_exc = exc
        self.request_metadata_update()
        raise KafkaConnectionError(f"No broker could be reached: {_reason(last_exc)}") from last_exc

    async def send_to_controller(self, request: Struct, *, timeout_ms: int | None = None) -> Any:
        """Send to the active controller (``controller_id`` of the cached metadata).

        Raises:
            KafkaConnectionError: no controller is known or it cannot be reached.
        """
        controller_id = self.cluster.controller_id
        if controller_id < 0 or self.cluster.broker(controller_id) is None:
            await self.refresh_metadata()
            controller_id = self.cluster.controller_id
            if controller_id < 0:
                raise KafkaConnectionError("No controller is known in the cluster metadata")
        return await self.send(controller_id, request, timeout_ms=timeout_ms)
