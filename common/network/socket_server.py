"""A node's TCP listener and per-connection request processing (brokers and controllers alike).

Owns: the asyncio server, one ``Connection`` per client socket (a reader loop and a
writer loop), and the guarantee that responses on a connection leave in request
order even though requests are handled concurrently (pipelining).  A connection
holds at most ``queued.max.requests`` requests in flight before reading pauses.

What a listener speaks is its ``WireCodec`` (``kafkette.protocol.wire_codec``): Kafkette's
msgpack protocol or Kafka's binary protocol; both frame with a 4-byte length and hand the
handler the same request structs.  Bad input never reaches other connections: a frame longer
than ``socket.request.max.bytes`` or one the codec cannot read closes that connection alone;
what the codec can answer (UNSUPPORTED_VERSION, INVALID_REQUEST) is answered, and an answer
that cannot be encoded closes the connection, and so does a handler answering
``CLOSE_CONNECTION`` (an acks=0 Produce that failed).

Connection quotas, with Kafka's names: a connection beyond ``max.connections`` in all or
``max.connections.per.ip`` from one address is closed as it is accepted (Kafka's
``ConnectionQuotas``; Kafka's acceptor waits for a free slot under ``max.connections``
instead), and a connection that sends no request for ``connections.max.idle.ms`` while
none of its requests is in flight is closed (a frame trickling in counts as idle).  An answer
carrying a ``throttle_time_ms`` (a client over its quota) mutes its connection: the next request
read waits until that time is over (KIP-219), and from then on the connection's requests are
handled one at a time, as Kafka handles every connection's; so are those of a client a quota
applies to from its first request (a producer with acks=0, which pipelines without bound, would
otherwise get hundreds of requests appended before the first throttle mutes it).

Kafka concept: ``SocketServer``/``Processor`` (channel muting replaced by ordered
per-connection response queues).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import socket
import ssl
from collections.abc import Awaitable, Callable

from kafkette.common.network.frame_stream import FrameStream, start_frame_server
from kafkette.common.network.memory_pool import MemoryPool
from kafkette.common.security.listener_ssl_factory import SslFactory
from kafkette.common.security.sasl_server_authenticator import ANONYMOUS, SaslServerAuthenticator
from kafkette.protocol.api_keys import ApiSpec
from kafkette.protocol.errors import Errors, KafkaError, api_error_message, error_code_for
from kafkette.protocol.framing import FrameError, RequestHeader
from kafkette.protocol.schema import Struct
from kafkette.protocol.wire_codec import MSGPACK_CODEC, Decoded, Reply, RequestDecodeError, WireCodec

logger = logging.getLogger(__name__)

_MAX_COALESCED = 64  # answers written with one writelines call at most
_NEXT = ("next",)  # marker: nothing taken from the response queue yet
INT_MAX = 2**31 - 1  # Kafka's default of max.connections and max.connections.per.ip (no limit)


class CloseConnectionResponse:
    """A handler's answer that closes the connection instead of answering, once every answer
    before it is written (Kafka's ``RequestChannel.CloseConnectionResponse``): a Produce with
    acks=0 that failed for some partition, so that a producer, which waits for no answer,
    notices, refreshes its metadata and reconnects."""

    def __repr__(self) -> str:
        return "CLOSE_CONNECTION"


CLOSE_CONNECTION = CloseConnectionResponse()


@dataclasses.dataclass(frozen=True)
class NoOpResponse:
    """A handler's "no answer" that still mutes the connection (Kafka's
    ``RequestChannel.NoOpResponse`` after ``sendNoOpResponseExemptThrottle``): a Produce with
    acks=0 over its ``producer_byte_rate`` quota gets no answer, and its connection reads nothing
    more for ``throttle_time_ms`` (ms).  A plain ``None`` is the same without the mute."""

    throttle_time_ms: int


RequestHandler = Callable[
    [RequestHeader, ApiSpec, Struct], Awaitable[Struct | CloseConnectionResponse | NoOpResponse | None]
]

__all__ = [
    "CLOSE_CONNECTION",
    "CloseConnectionResponse",
    "Connection",
    "Decoded",
    "NoOpResponse",
    "SocketServer",
    "WireCodec",
]


MUTED_WAIT_S = 60.0
"""Longest a throttled connection's next request waits for the ones before it to be handled."""


class Connection:
    """One client connection: reads frames, dispatches them, writes answers in order."""

    def __init__(self, server: SocketServer, stream: FrameStream) -> None:
        self._server = server
        self._stream = stream
        peer = stream.get_extra_info("peername")
        self.peer = f"{peer[0]}:{peer[1]}" if peer else "?"
        self.ip = peer[0] if peer else "?"
        self._responses: asyncio.Queue[tuple[Reply, asyncio.Future[Struct | None]] | None] = asyncio.Queue(
            maxsize=server.max_queued_requests
        )
        self._handlers: set[asyncio.Task[Struct | None]] = set()
        factory = server.authenticator_factory
        self._authenticator: SaslServerAuthenticator | None = factory() if factory is not None else None
        self.principal = ANONYMOUS
        self._refused = False  # an SSL client whose certificate names no principal: closed at once
        ssl_object = stream.get_extra_info("ssl_object")
        if ssl_object is not None and server.ssl_principal is not None:
            # an SSL listener's principal: the client certificate's (SASL_SSL: until SASL names one)
            principal = server.ssl_principal(ssl_object.getpeercert(binary_form=True))
            self._refused = principal is None
            self.principal = principal or ANONYMOUS
        self._closing = False  # the last answer is to be written, then the connection closed
        self._unmute_at = 0.0  # loop time before which no request is read (a throttled client, KIP-219)
        # once throttled (or once a request shows its client is bound by a quota), requests are
        # handled one at a time, as Kafka's channel is muted while one is being handled
        self._throttled = False

    async def run(self) -> None:
        if self._refused:
            self._stream.close()
            return
        writer_task = asyncio.get_running_loop().create_task(
            self._write_loop(), name=f"conn-write-{self.peer}"
        )
        try:
            await self._read_loop()
        finally:
            if self._stream.is_closing():
                for task in self._handlers:
                    task.cancel()
            await self._responses.put(None)
            try:
                await asyncio.wait_for(writer_task, self._server.drain_timeout_s)
            except (TimeoutError, asyncio.CancelledError):
                writer_task.cancel()
                await asyncio.gather(writer_task, return_exceptions=True)
            for task in self._handlers:
                task.cancel()
            await asyncio.gather(*self._handlers, return_exceptions=True)
            self._stream.close()

    def abort(self) -> None:
        """Close the socket at once; the read loop then ends and in-flight handlers are cancelled."""
        self._stream.abort()

    async def _read_loop(self) -> None:
        stream = self._stream
        idle_s = (
            self._server.connections_max_idle_ms / 1000 if self._server.connections_max_idle_ms >= 0 else None
        )
        while True:
            try:
                async with asyncio.timeout(idle_s):
                    payload = await stream.read_frame()
            except TimeoutError:
                if self._handlers or not self._responses.empty():
                    continue  # a request in flight (a long-polling fetch): not idle
                logger.info(
                    "[SocketServer] Closing connection from %s: idle for more than "
                    "connections.max.idle.ms=%d",
                    self.peer,
                    self._server.connections_max_idle_ms,
                )
                return
            except asyncio.IncompleteReadError:
                return
            except (ConnectionError, OSError):
                return
            except FrameError as exc:
                logger.warning("[SocketServer] Closing connection from %s: %s", self.peer, exc)
                return
            authenticator = self._authenticator
            if (
                authenticator is not None
                and not authenticator.authenticated
                and len(payload) > authenticator.max_receive_size
            ):  # Kafka's SaslServerAuthenticator: InvalidReceiveException, the connection is closed
                logger.info(
                    "[SocketServer] Closing connection from %s: a %d-byte frame before authentication "
                    "(sasl.server.max.receive.size=%d)",
                    self.peer,
                    len(payload),
                    authenticator.max_receive_size,
                )
                stream.release(len(payload))
                return
            if self._throttled:
                await self._wait_until_unmuted()
            try:
                decoded = self._server.codec.decode(payload, self.ip)
            except (RequestDecodeError, FrameError) as exc:
                stream.release(len(payload))  # dropped: its queued.max.request.bytes go back at once
                if not await self._answer_decode_error(exc):
                    return
                continue
            if self._authenticator is not None and not await self._authenticate(decoded, len(payload)):
                if self._closing:
                    return
                continue
            if self.principal != ANONYMOUS and self._authenticator is None and decoded.header is not None:
                decoded.header = dataclasses.replace(decoded.header, principal=self.principal)
            header = decoded.header
            if not self._throttled and header is not None and self._server.one_at_a_time(header):
                self._throttled = True  # a quota's client: no request is handled beside another
                await self._wait_until_unmuted()
            if decoded.answer is not None:  # answered by the codec itself (Kafka's ApiVersions)
                stream.release(len(payload))
                await self._put_ready(decoded.reply, decoded.answer)
                continue
            size = len(payload)
            task = asyncio.get_running_loop().create_task(
                self._server.handler(decoded.header, decoded.spec, decoded.request)
            )  # type: ignore[arg-type]
            self._handlers.add(task)
            task.add_done_callback(lambda done, n=size: self._handled(done, n))
            await self._responses.put((decoded.reply, task))

    async def _authenticate(self, decoded: Decoded, size: int) -> bool:
        """Put a request through the connection's SASL authentication; True when the broker's
        handlers (or the codec's own answer) take it, False when it was answered here (or the
        connection is to be closed: ``_closing``).  Once authenticated, the requests carry the
        connection's principal."""
        authenticator = self._authenticator
        assert authenticator is not None
        if decoded.header is not None:
            api_key, api_version = decoded.header.api_key, decoded.header.api_version
        else:  # answered by the codec (ApiVersions, a refusal): the reply knows its API
            api = getattr(decoded.reply, "api", None) or getattr(decoded.reply, "spec", None)
            api_key, api_version = (int(api.key), getattr(decoded.reply, "version", 0)) if api else (-1, 0)
        outcome = authenticator.intercept(api_key, api_version, decoded.request)
        if outcome is None:
            if authenticator.principal != self.principal:
                self.principal = authenticator.principal
            if decoded.header is not None and self.principal != ANONYMOUS:
                decoded.header = dataclasses.replace(decoded.header, principal=self.principal)
            return True
        self._stream.release(size)
        response = outcome.response
        if response is None and outcome.error_code is not None:
            response = decoded.reply.error_response(outcome.error_code, outcome.error_message)
        if response is not None:
            await self._put_ready(decoded.reply, response)
        if outcome.close:
            logger.info(
                "[SocketServer] Closing connection from %s after a failed SASL authentication (%s)",
                self.peer,
                outcome.error_message or getattr(response, "error_message", None) or "refused",
            )
            self._closing = True
        elif authenticator.authenticated:
            self.principal = authenticator.principal
        return False

    def _handled(self, task: asyncio.Task[Struct | None], size: int) -> None:
        """A request was handled: forget its task and give its bytes back to the memory pool; an
        answer with a ``throttle_time_ms`` mutes the connection for that long from now."""
        self._handlers.discard(task)
        self._stream.release(size)
        if task.cancelled() or task.exception() is not None:
            return
        throttle_ms = getattr(task.result(), "throttle_time_ms", 0)
        if isinstance(throttle_ms, int) and throttle_ms > 0:
            self._throttled = True
            unmute_at = asyncio.get_running_loop().time() + throttle_ms / 1000
            self._unmute_at = max(self._unmute_at, unmute_at)

    async def _wait_until_unmuted(self) -> None:
        """Hold a request just read while the connection is muted (KIP-219).  A connection that
        was throttled once is then served one request at a time, as Kafka serves every channel: its
        requests in flight finish (and say whether to mute) before the next one is taken, so a
        client cannot pipeline past its quota.  Bounded: the handlers by ``MUTED_WAIT_S``, the mute
        by the throttle time."""
        if self._handlers:
            await asyncio.wait(set(self._handlers), timeout=MUTED_WAIT_S)
        muted_s = self._unmute_at - asyncio.get_running_loop().time()
        if muted_s > 0:  # the request waits as Kafka's muted channel leaves it unread
            await asyncio.sleep(muted_s)

    async def _answer_decode_error(self, exc: Exception) -> bool:
        """Answer a request that did not decode, where its API allows; False closes the connection."""
        if isinstance(exc, RequestDecodeError) and exc.reply is not None:
            response = exc.reply.error_response(exc.code)
            logger.warning(
                "[SocketServer] %s from %s (%s): %s", exc.code.name, self.peer, exc.reply.name, exc
            )
            if response is not None:
                await self._put_ready(exc.reply, response)
                return True
        logger.warning("[SocketServer] Closing connection from %s: %s", self.peer, exc)
        return False

    async def _put_ready(self, reply: Reply, response: Struct) -> None:
        fut: asyncio.Future[Struct | None] = asyncio.get_running_loop().create_future()
        fut.set_result(response)
        await self._responses.put((reply, fut))

    async def _write_loop(self) -> None:
        """Write answers in request order.

        Answers that are ready one after another (pipelined requests) leave in one
        ``writelines`` call, at most ``_MAX_COALESCED`` at a time: one system call and
        one wake-up of the client instead of one per answer.  Record batches are passed
        to the socket as they were read (``encode_response_buffers``), not copied.
        """
        stream = self._stream
        responses = self._responses
        buffers: list[bytes | memoryview] = []
        coalesced = 0
        item = await responses.get()
        while item is not None:
            reply, fut = item
            try:
                response = await fut
            except asyncio.CancelledError:
                if not fut.cancelled():
                    raise
                self._write_buffers(buffers)
                return
            except KafkaError as exc:
                code = error_code_for(exc)
                logger.warning(
                    "[SocketServer] %s from %s answered with %s: %s", reply.name, self.peer, code.name, exc
                )
                response = reply.error_response(code, api_error_message(exc, code))
            except Exception:
                logger.exception("[SocketServer] Handler for %s from %s failed", reply.name, self.peer)
                response = reply.error_response(Errors.UNKNOWN_SERVER_ERROR)
                if response is None:
                    self._write_buffers(buffers)
                    stream.close()
                    return
            if response is CLOSE_CONNECTION:
                logger.info(
                    "[SocketServer] Closing connection from %s as its %s asked", self.peer, reply.name
                )
                self._write_buffers(buffers)
                stream.close()
                return
            if response is not None and not isinstance(response, NoOpResponse):  # acks=0: no answer
                try:
                    buffers += reply.encode(response)
                except Exception:  # an answer that does not fit its schema: the connection cannot go on
                    logger.exception(
                        "[SocketServer] Answer to %s from %s could not be encoded", reply.name, self.peer
                    )
                    self._write_buffers(buffers)
                    stream.close()
                    return
                coalesced += 1
            if not responses.empty():
                item = responses.get_nowait()
                if item is not None and item[1].done() and coalesced < _MAX_COALESCED:
                    continue  # its answer is ready: write it together with the ones before
            else:
                item = _NEXT
            if buffers:
                try:
                    stream.writelines(buffers)
                    # always: a client that never reads its answers must not grow the
                    # transport's buffer (Kafka mutes a channel until its response is sent)
                    await stream.drain()
                except (ConnectionError, OSError):
                    return
                buffers = []
                coalesced = 0
            if item is _NEXT:
                item = await responses.get()

    def _write_buffers(self, buffers: list[bytes | memoryview]) -> None:
        """Hand answers already encoded to the transport before the write loop ends."""
        if buffers:
            try:
                self._stream.writelines(buffers)
            except (ConnectionError, OSError):
                pass


def listen_error(host: str, port: int, exc: OSError) -> OSError:
    """A failed bind as one line that names the address, not the event loop's wording.

    Args:
        host: the listener's host.
        port: the listener's port.
        exc: what the bind raised.

    Returns:
        ``OSError("cannot listen on HOST:PORT: address already in use")`` with ``exc``'s ``errno``.
    """
    reason = os.strerror(exc.errno) if exc.errno else str(exc)
    error = OSError(f"cannot listen on {host}:{port}: {reason[:1].lower()}{reason[1:]}")
    error.errno = exc.errno
    return error


def _bound_by_no_quota(header: RequestHeader) -> bool:
    """A listener without quotas: every connection handles pipelined requests concurrently."""
    return False


class SocketServer:
    """Accepts connections on the broker's listener.

    Args:
        host, port: where to listen (port 0 picks a free port; see ``bound_port``).
        handler: ``(header, spec, request) -> response | None``; raising makes the
            connection answer UNKNOWN_SERVER_ERROR (or close if it cannot).
        max_request_bytes: ``socket.request.max.bytes``.
        max_queued_requests: ``queued.max.requests`` per connection.
        max_connections: ``max.connections``, connections at most (Kafka's default: no limit).
        max_connections_per_ip: ``max.connections.per.ip``, connections from one address at most.
        connections_max_idle_ms: ``connections.max.idle.ms`` (ms; -1 never closes an idle connection).
        queued_max_request_bytes: ``queued.max.request.bytes``, bytes of requests being read and
            handled across connections (a ``MemoryPool``; -1 or 0: no bound).
        codec: what the listener speaks (``kafkette.protocol.wire_codec``): Kafkette's msgpack
            protocol by default, or Kafka's binary protocol (``KafkaWireCodec``).
        authenticator_factory: a SASL listener's (``SASL_PLAINTEXT``): makes each connection's
            ``SaslServerAuthenticator``; until it completes only ApiVersions, SaslHandshake and
            SaslAuthenticate are served, then requests carry its principal.  None: no SASL.
        ssl_context: an SSL listener's TLS context (``ssl_factory.ssl_server_context``); None: plaintext.
        ssl_factory: instead of ``ssl_context``, an SSL listener's reloadable context
            (``SslFactory``); the listener owns the watch of its store files, started with the
            listener and stopped with it.
        ssl_store_watch_interval_ms: with ``ssl_factory``, how often the store files are polled
            (ms; 0: never).
        ssl_principal: an SSL listener's principal of a connection from its client certificate (DER
            bytes, None without one): ``User:<mapped DN>`` or ``User:ANONYMOUS``; None refuses the
            connection (no mapping rule applies: Kafka fails its authentication).
        one_at_a_time: whether a request's client is bound by a quota; from the first such request
            on, its connection handles one request at a time (Kafka handles every connection's so),
            so that the throttle decided for one mutes the connection before the next is handled.
            Other connections keep handling pipelined requests concurrently.
    """

    def __init__(
        self,
        host: str,
        port: int,
        handler: RequestHandler,
        *,
        max_request_bytes: int,
        max_queued_requests: int,
        broker_id: int,
        max_connections: int = INT_MAX,
        max_connections_per_ip: int = INT_MAX,
        connections_max_idle_ms: int = 600_000,
        queued_max_request_bytes: int = -1,
        codec: WireCodec = MSGPACK_CODEC,
        authenticator_factory: Callable[[], SaslServerAuthenticator] | None = None,
        ssl_context: ssl.SSLContext | None = None,
        ssl_factory: SslFactory | None = None,
        ssl_store_watch_interval_ms: int = 0,
        ssl_principal: Callable[[bytes | None], str] | None = None,
        one_at_a_time: Callable[[RequestHeader], bool] | None = None,
    ) -> None:
        self.host = host
        self.one_at_a_time = one_at_a_time or _bound_by_no_quota
        self.codec = codec
        self.authenticator_factory = authenticator_factory
        self.ssl_factory = ssl_factory
        self.ssl_context = ssl_factory.context if ssl_factory is not None else ssl_context
        self._ssl_store_watch_interval_ms = ssl_store_watch_interval_ms
        self.ssl_principal = ssl_principal
        self.port = port
        self.handler = handler
        self.max_request_bytes = max_request_bytes
        self.max_queued_requests = max_queued_requests
        self.max_connections = max_connections
        self.max_connections_per_ip = max_connections_per_ip
        self.connections_max_idle_ms = connections_max_idle_ms
        self.memory_pool = MemoryPool(queued_max_request_bytes) if queued_max_request_bytes > 0 else None
        self._per_ip: dict[str, int] = {}
        self.refused_connections = 0  # closed as accepted by max.connections or max.connections.per.ip
        self.drain_timeout_s = 5.0
        self._server: asyncio.Server | None = None
        self._connections: dict[Connection, asyncio.Task[None]] = {}
        self._broker_id = broker_id
        self.bound_port = port

    async def start(self) -> None:
        """Bind and start accepting.

        Raises:
            OSError: the address is in use or cannot be bound; the message is ``cannot listen on
                HOST:PORT: REASON`` (``errno`` kept), as Kafka's ``SocketServer`` names the
                address it failed to bind.
        """
        try:
            self._server = await start_frame_server(
                self._accept,
                self.host,
                self.port,
                self.max_request_bytes,
                memory_pool=self.memory_pool,
                ssl_context=self.ssl_context,
            )
        except OSError as exc:
            raise listen_error(self.host, self.port, exc) from exc
        self.bound_port = self._server.sockets[0].getsockname()[1]
        if self.ssl_factory is not None:
            self.ssl_factory.start(self._ssl_store_watch_interval_ms)
        logger.info(
            "[SocketServer brokerId=%d] Listening on %s:%d (%s)",
            self._broker_id,
            self.host,
            self.bound_port,
            self.codec.name,
        )

    def _accept(self, stream: FrameStream) -> None:
        peername = stream.get_extra_info("peername")
        ip = peername[0] if peername else "?"
        if len(self._connections) >= self.max_connections:
            limit = ("max.connections", self.max_connections)
        elif self._per_ip.get(ip, 0) >= self.max_connections_per_ip:
            limit = ("max.connections.per.ip", self.max_connections_per_ip)
        else:
            limit = None
        if limit is not None:  # Kafka's ConnectionQuotas: refused before anything is built for it
            self.refused_connections += 1
            logger.warning(
                "[SocketServer brokerId=%d] Closing connection from %s: %s=%d reached",
                self._broker_id,
                ip,
                *limit,
            )
            stream.abort()
            return
        sock = stream.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        connection = Connection(self, stream)
        self._per_ip[ip] = self._per_ip.get(ip, 0) + 1
        task = asyncio.get_running_loop().create_task(connection.run(), name=f"conn-{connection.peer}")
        self._connections[connection] = task
        task.add_done_callback(lambda _: self._forget(connection))

    def _forget(self, connection: Connection) -> None:
        self._connections.pop(connection, None)
        left = self._per_ip.get(connection.ip, 0) - 1
        if left > 0:
            self._per_ip[connection.ip] = left
        else:
            self._per_ip.pop(connection.ip, None)

    @property
    def connection_count(self) -> int:
        """Connections open now."""
        return len(self._connections)

    async def stop_accepting(self) -> None:
        if self._server is not None:
            self._server.close()

    async def stop(self) -> None:
        """Stop accepting, then close every connection and wait (bounded) until they end.

        Closing the transport ends each connection's read loop normally, so the
        connection tasks (owned here) finish without cancellation; any still running
        after ``drain_timeout_s`` are cancelled and awaited.
        """
        await self.stop_accepting()
        if self.ssl_factory is not None:
            await self.ssl_factory.stop()
        for connection in list(self._connections):
            connection.abort()
        tasks = list(self._connections.values())
        if tasks:
            _, pending = await asyncio.wait(tasks, timeout=self.drain_timeout_s)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        if self._server is not None:
            try:
                await asyncio.wait_for(self._server.wait_closed(), 5)
            except TimeoutError:
                pass
            self._server = None
