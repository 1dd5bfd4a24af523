"""ControllerChannelManager: the controller's request pipes to live brokers.

Owns: one ``RequestSendThread`` (an asyncio task, kept under Kafka's name) and one
bounded FIFO queue per live broker, each with its own ``BrokerConnection`` to the
broker's registered host:port.  A request is sent when every earlier request to that
broker has been answered (one in flight per broker, so brokers see controller requests
in order).  Connection errors and timeouts are retried with exponential backoff until
the send succeeds or the broker is removed (fenced); removal fails that broker's
queued futures.  Any request struct goes through it (LeaderAndIsr, UpdateMetadata,
StopReplica); the returned future carries the broker's response, and
``ControllerBrokerRequestBatch`` turns a StopReplica response (or a failed future)
into one callback per partition.  Does not decide what to send and does not
interpret response error codes beyond logging them.

Kafka concept: ``ControllerChannelManager`` / ``RequestSendThread``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from kafkette.common.background_tasks import ShutdownableTask
from kafkette.common.network.connection import BrokerConnection
from kafkette.protocol.errors import KafkaConnectionError, KafkaTimeoutError
from kafkette.protocol.schema import Struct

logger = logging.getLogger(__name__)

STOP_TIMEOUT_S = 10.0

ConnectionFactory = Callable[..., Any]


class RequestSendThread:
    """Sends queued requests to one broker, in order, retrying until success or removal.

    Args:
        controller_id: this controller's node id (log prefix, client id).
        broker_id, host, port: the destination broker.
        request_timeout_ms: per-attempt response deadline (``controller.socket.timeout.ms``).
        max_queued_requests: bound on requests waiting for this broker.
        retry_backoff_ms, max_retry_backoff_ms: exponential backoff between attempts.
        connection_factory: ``BrokerConnection``-like class (tests pass a fake).
    """

    def __init__(
        self,
        controller_id: int,
        broker_id: int,
        host: str,
        port: int,
        *,
        request_timeout_ms: int,
        max_queued_requests: int,
        retry_backoff_ms: int,
        max_retry_backoff_ms: int,
        connection_factory: ConnectionFactory,
    ) -> None:
        self.broker_id = broker_id
        self.host = host
        self.port = port
        self._controller_id = controller_id
        self._request_timeout_ms = request_timeout_ms
        self._retry_backoff_ms = retry_backoff_ms
        self._max_retry_backoff_ms = max_retry_backoff_ms
        self._connection_factory = connection_factory
        self._queue: asyncio.Queue[tuple[Struct, asyncio.Future[Any]]] = asyncio.Queue(max_queued_requests)
        self._connection: Any = None
        self._current: asyncio.Future[Any] | None = None
        self.unreachable = False  # the last attempt to reach the broker failed (until one succeeds)
        self.outstanding: set[asyncio.Future[Any]] = set()  # queued or in flight, not answered yet
        self._prefix = f"[RequestSendThread controllerId={controller_id}, brokerId={broker_id}]"
        self.send_task = ShutdownableTask(
            f"controller-send-{broker_id}",
            log_prefix=self._prefix,
            on_failure=lambda exc: self._fail_queued(
                KafkaConnectionError(f"controller channel to broker {broker_id} failed: {exc!r}")
            ),
        )
        self.send_task.start(self._run)

    def enqueue(self, request: Struct) -> asyncio.Future[Any]:
        """Queue ``request``; the future gets the response struct.

        The future fails with ``KafkaConnectionError`` if the broker is removed first,
        or at once if the queue is full (the request is then not sent).
        """
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        future.add_done_callback(mark_retrieved)
        self.outstanding.add(future)
        future.add_done_callback(self.outstanding.discard)
        try:
            self._queue.put_nowait((request, future))
        except asyncio.QueueFull:
            logger.error(
                "%s Request queue full (%d); dropping %s",
                self._prefix,
                self._queue.maxsize,
                type(request).__name__,
            )
            future.set_exception(
                KafkaConnectionError(f"controller request queue to broker {self.broker_id} is full")
            )
        return future

    async def _run(self) -> None:
        try:
            while True:
                request, future = await self._queue.get()
                if future.done():
                    continue
                self._current = future
                response = await self._send_with_retries(request)
                self._current = None
                error_code = getattr(response, "error_code", 0)
                if error_code:
                    logger.warning(
                        "%s %s answered with error code %d", self._prefix, type(request).__name__, error_code
                    )
                if not future.done():
                    future.set_result(response)
        except asyncio.CancelledError:
            self._fail_queued(
                KafkaConnectionError(f"broker {self.broker_id} removed from the controller channel")
            )
            raise
        finally:
            if self._connection is not None:
                connection, self._connection = self._connection, None
                await asyncio.shield(connection.close())

    async def _send_with_retries(self, request: Struct) -> Any:
        backoff_ms = self._retry_backoff_ms
        attempt = 0
        while True:
            attempt += 1
            try:
                if self._connection is None:
                    connection = self._connection_factory(
                        self.host,
                        self.port,
                        client_id=f"controller-{self._controller_id}",
                        request_timeout_ms=self._request_timeout_ms,
                    )
                    await connection.connect()
                    self._connection = connection
                response = await self._connection.send(request, timeout_ms=self._request_timeout_ms)
                self.unreachable = False
                return response
            except (KafkaConnectionError, KafkaTimeoutError, OSError) as exc:
                self.unreachable = True
                log = logger.warning if attempt == 1 or attempt % 10 == 0 else logger.debug
                log(
                    "%s %s to %s:%d failed (attempt %d): %s; retrying in %d ms",
                    self._prefix,
                    type(request).__name__,
                    self.host,
                    self.port,
                    attempt,
                    exc,
                    backoff_ms,
                )
                if self._connection is not None:
                    connection, self._connection = self._connection, None
                    await connection.close()
                await asyncio.sleep(backoff_ms / 1000)
                backoff_ms = min(max(1, backoff_ms) * 2, self._max_retry_backoff_ms)

    def _fail_queued(self, exc: BaseException) -> None:
        if self._current is not None and not self._current.done():
            self._current.set_exception(exc)
        self._current = None
        while not self._queue.empty():
            _, future = self._queue.get_nowait()
            if not future.done():
                future.set_exception(exc)


class ControllerChannelManager:
    """Request pipes from the controller to each live broker.

    Args:
        controller_id: this controller's node id.
        request_timeout_ms: per-attempt deadline (``controller.socket.timeout.ms``).
        max_queued_requests: per-broker queue bound.
        retry_backoff_ms, max_retry_backoff_ms: backoff between failed attempts (ms).
        connection_factory: ``BrokerConnection`` or a test fake with the same
            ``connect`` / ``send`` / ``close`` methods.
    """

    def __init__(
        self,
        controller_id: int,
        *,
        request_timeout_ms: int = 30000,
        max_queued_requests: int = 10000,
        retry_backoff_ms: int = 100,
        max_retry_backoff_ms: int = 2000,
        connection_factory: ConnectionFactory = BrokerConnection,
    ) -> None:
        if max_queued_requests < 1:
            raise ValueError(f"max_queued_requests must be >= 1, got {max_queued_requests}")
        self.controller_id = controller_id
        self._request_timeout_ms = request_timeout_ms
        self._max_queued_requests = max_queued_requests
        self._retry_backoff_ms = retry_backoff_ms
        self._max_retry_backoff_ms = max_retry_backoff_ms
        self._connection_factory = connection_factory
        self._threads: dict[int, RequestSendThread] = {}
        self._retired: set[asyncio.Task[None]] = set()

    @property
    def broker_ids(self) -> list[int]:
        """Brokers that currently have a channel, sorted."""
        return sorted(self._threads)

    async def start(self) -> None:
        """Nothing to start until brokers are added (kept for the start/stop contract)."""

    def add_broker(self, broker_id: int, host: str, port: int) -> None:
        """Open a channel to ``broker_id`` (replacing one with a different address).

        Must be called on the event loop.
        """
        existing = self._threads.get(broker_id)
        if existing is not None:
            if (existing.host, existing.port) == (host, port):
                return
            self.remove_broker(broker_id)
        self._threads[broker_id] = RequestSendThread(
            self.controller_id,
            broker_id,
            host,
            port,
            request_timeout_ms=self._request_timeout_ms,
            max_queued_requests=self._max_queued_requests,
            retry_backoff_ms=self._retry_backoff_ms,
            max_retry_backoff_ms=self._max_retry_backoff_ms,
            connection_factory=self._connection_factory,
        )
        logger.info(
            "[Controller id=%d] Added channel to broker %d at %s:%d",
            self.controller_id,
            broker_id,
            host,
            port,
        )

    def remove_broker(self, broker_id: int) -> None:
        """Close the channel to ``broker_id``: its queued requests fail, its task is cancelled
        (and awaited by ``stop``)."""
        thread = self._threads.pop(broker_id, None)
        if thread is None:
            return
        task = thread.send_task.initiate_shutdown()
        if task is not None:
            self._retired.add(task)
            task.add_done_callback(self._retired.discard)
        logger.info("[Controller id=%d] Removed channel to broker %d", self.controller_id, broker_id)

    def awaiting_unreachable_brokers(self) -> set[asyncio.Future[Any]]:
        """The futures of requests queued for, or in flight to, brokers whose last attempt failed
        (a broker that died and is not fenced yet): a caller that waits for the brokers'
        acknowledgements stops waiting for these, as KRaft's controller answers without them."""
        return {f for thread in self._threads.values() if thread.unreachable for f in thread.outstanding}

    def send(self, broker_id: int, request: Struct) -> asyncio.Future[Any]:
        """Queue ``request`` for ``broker_id``.

        Returns:
            A future with the response struct; it fails with ``KafkaConnectionError``
            when there is no channel to that broker or the broker is removed first.
        """
        thread = self._threads.get(broker_id)
        if thread is None:
            future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            future.add_done_callback(mark_retrieved)
            future.set_exception(KafkaConnectionError(f"no controller channel to broker {broker_id}"))
            return future
        return thread.enqueue(request)

    async def stop(self) -> None:
        """Remove every broker, then await all send tasks (bounded)."""
        for broker_id in list(self._threads):
            self.remove_broker(broker_id)
        if self._retired:
            await asyncio.wait(set(self._retired), timeout=STOP_TIMEOUT_S)


def mark_retrieved(future: asyncio.Future[Any]) -> None:
    """Mark a failed send as seen: most sends are fire-and-forget, and a failure is already logged."""
    if not future.cancelled():
        future.exception()
