"""One TCP connection to one broker: pipelined requests, responses matched in order.

Owns: the socket, a reader task, and a FIFO of in-flight requests (futures keyed by
correlation id).  Responses arrive in request order (the broker guarantees it);
closing the connection, or losing it, fails every in-flight future with
``KafkaConnectionError`` chained to the cause.  Used by the client core and by the
broker itself (replica fetchers, controller channel, lifecycle manager), as Kafka's
brokers use the clients module's ``NetworkClient``.

Kafka concept: ``NetworkClient``/``KafkaChannel``; shape from ``aiokafka/conn.py``.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import random
import socket
import time
from typing import Any

from kafkette.common.background_tasks import ShutdownableTask
from kafkette.common.network.client_security import PLAINTEXT, ClientSecurity
from kafkette.common.network.frame_stream import FrameStream, open_frame_stream
from kafkette.common.security.sasl_client import SaslClient, sasl_authenticate
from kafkette.protocol.api_keys import ApiKey, spec_for_request
from kafkette.protocol.errors import KafkaConnectionError, KafkaTimeoutError
from kafkette.protocol.framing import (
    DEFAULT_MAX_FRAME_BYTES,
    FrameError,
    decode_response_envelope,
    encode_request_buffers,
)
from kafkette.protocol.schema import SchemaError, Struct

logger = logging.getLogger(__name__)

REAUTH_WINDOW = (0.85, 0.95)
"""The part of the session lifetime after which the client re-authenticates, drawn at random in
this range per session (Kafka's ``SaslClientAuthenticator``: 85% for latency and clock drift, plus
up to 10% jitter against re-authentication storms)."""
SASL_API_KEYS = frozenset({ApiKey.SASL_HANDSHAKE, ApiKey.SASL_AUTHENTICATE})


class BrokerConnection:
    """A pipelined connection to ``host:port``.

    Args:
        host, port: broker address.
        client_id: sent in every request header.
        request_timeout_ms: default per-request deadline (ms).
        max_in_flight: bound on requests awaiting a response; ``send`` waits for room.
        security: TLS and SASL for a listener whose ``security.protocol`` asks for them
            (``ClientSecurity``; plaintext by default): the TLS handshake and then the SASL
            exchange (SaslHandshake v1, SaslAuthenticate, KIP-152) run inside ``connect``.  When
            the broker gives the session a lifetime (``connections.max.reauth.ms``, KIP-368), the
            first request sent after 85-95% of it re-authenticates the connection first (the
            same exchange, on the same connection); requests sent meanwhile wait for it, requests
            already in flight are answered as usual.

    Use ``await connect()`` (or ``async with``), then ``await send(request)``.
    """

    def __init__(
        self,
        host: str,
        port: int,
        *,
        client_id: str = "kafkette",
        request_timeout_ms: int = 30000,
        max_in_flight: int = 1000,
        max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES,
        security: ClientSecurity = PLAINTEXT,
    ) -> None:
        self.host = host
        self.port = port
        self.client_id = client_id
        self.request_timeout_ms = request_timeout_ms
        self._max_frame_bytes = max_frame_bytes
        self._security = security
        self._stream: FrameStream | None = None
        self._read_task = ShutdownableTask(
            f"conn-read-{host}:{port}",
            log_prefix=f"[BrokerConnection {host}:{port}]",
            on_failure=lambda exc: self._fail_all(
                KafkaConnectionError(f"connection to {host}:{port} failed: {exc!r}")
            ),
        )
        self._in_flight: collections.deque[tuple[int, type[Struct], int, asyncio.Future[Struct]]] = (
            collections.deque()
        )
        self._slots = asyncio.Semaphore(max_in_flight)
        self._correlation_id = 0
        self._closed_exc: BaseException | None = None
        self._reauthenticate_at: float | None = None  # time.monotonic() seconds; None: never
        self._reauthenticated: asyncio.Event | None = None  # set while a re-authentication runs

    def __repr__(self) -> str:
        return f"<BrokerConnection {self.host}:{self.port}>"

    @property
    def connected(self) -> bool:
        return self._stream is not None and self._closed_exc is None

    async def connect(self, timeout_ms: int | None = None) -> BrokerConnection:
        """Open the TCP connection (its TLS session, and its SASL login, as ``security`` asks).

        Raises:
            KafkaConnectionError: refused, unreachable, a failed TLS handshake (the server's
                certificate not trusted, or not for this host), or not done within the timeout.
            SaslAuthenticationFailedError, UnsupportedSaslMechanismError, IllegalSaslStateError:
                the listener refused the login (the connection is closed).
        """
        timeout = (timeout_ms if timeout_ms is not None else self.request_timeout_ms) / 1000
        try:
            async with asyncio.timeout(timeout):
                self._stream = await open_frame_stream(
                    self.host, self.port, self._max_frame_bytes, self._security.ssl_context
                )
        except (TimeoutError, OSError) as exc:
            raise KafkaConnectionError(f"cannot connect to {self.host}:{self.port}: {exc!r}") from exc
        sock = self._stream.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._read_task.start(self._read_loop)
        if self._security.sasl is not None:
            await self._authenticate(self._security.sasl(), timeout)
        return self

    async def _authenticate(self, client: SaslClient, timeout_s: float) -> None:
        """Run the SASL exchange (on the fresh connection, or again when its session is ending);
        close the connection when the login fails.  A session lifetime in the answer sets when the
        next re-authentication is due."""

        async def send(api_key: int, api_version: int, request: Struct) -> Any:
            return await self._send(request, api_version=api_version)

        try:
            async with asyncio.timeout(timeout_s):
                lifetime_ms = await sasl_authenticate(send, client)
        except TimeoutError as exc:
            await self.close()
            raise KafkaConnectionError(f"SASL authentication to {self.host}:{self.port} timed out") from exc
        except BaseException:
            await self.close()
            raise
        self._reauthenticate_at = None
        if lifetime_ms > 0:
            self._reauthenticate_at = time.monotonic() + lifetime_ms * random.uniform(*REAUTH_WINDOW) / 1000

    async def _maybe_reauthenticate(self) -> None:
        """Re-authenticate first when the session is past its re-authentication time (KIP-368);
        a request sent while another caller re-authenticates waits for it (``_send``).

        Raises:
            The errors of ``connect``'s login (the connection is then closed).
        """
        due = self._reauthenticate_at
        if due is None or time.monotonic() < due or self._reauthenticated is not None:
            return
        assert self._security.sasl is not None
        self._reauthenticated = asyncio.Event()
        try:
            logger.debug("[BrokerConnection %s:%d] Re-authenticating (KIP-368)", self.host, self.port)
            await self._authenticate(self._security.sasl(), self.request_timeout_ms / 1000)
        finally:
            self._reauthenticated.set()
            self._reauthenticated = None

    async def __aenter__(self) -> BrokerConnection:
        return await self.connect()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _next_correlation_id(self) -> int:
        self._correlation_id = (self._correlation_id + 1) & 0x7FFFFFFF
        return self._correlation_id

    async def send(
        self,
        request: Struct,
        *,
        api_version: int | None = None,
        timeout_ms: int | None = None,
        expect_response: bool = True,
    ) -> Any:
        """Send ``request`` and return the decoded response struct (re-authenticating the
        connection first when its SASL session is ending, KIP-368).

        Args:
            request: a registered request struct.
            api_version: defaults to the API's ``send_version`` (the highest version this build
                speaks, but Fetch's v12, which names topics by name).
            timeout_ms: deadline for the response (default ``request_timeout_ms``).
            expect_response: False for Produce with acks=0 (returns None at once).

        Raises:
            KafkaConnectionError: the connection is closed or lost.
            KafkaTimeoutError: no response in time (the connection is then closed,
                since later responses can no longer be matched).
            SaslAuthenticationFailedError ...: a re-authentication was refused (the connection
                is then closed).
        """
        if self._reauthenticate_at is not None:  # a SASL session with a lifetime
            await self._maybe_reauthenticate()
        return await self._send(
            request, api_version=api_version, timeout_ms=timeout_ms, expect_response=expect_response
        )

    async def _wait_for_reauthentication(self, request: Struct, timeout_s: float) -> None:
        """Hold a request other than SaslHandshake / SaslAuthenticate while a re-authentication
        runs (the broker would refuse it mid-exchange and close the connection)."""
        while self._reauthenticated is not None and spec_for_request(request).key not in SASL_API_KEYS:
            try:
                async with asyncio.timeout(timeout_s):
                    await self._reauthenticated.wait()
            except TimeoutError as exc:
                raise KafkaTimeoutError(
                    f"re-authentication to {self.host}:{self.port} not done within {timeout_s}s"
                ) from exc

    async def _send(
        self,
        request: Struct,
        *,
        api_version: int | None = None,
        timeout_ms: int | None = None,
        expect_response: bool = True,
    ) -> Any:
        """``send`` without the re-authentication check (the SASL exchange's own requests)."""
        if self._closed_exc is not None or self._stream is None:
            raise KafkaConnectionError(
                f"connection to {self.host}:{self.port} is closed"
            ) from self._closed_exc
        spec = spec_for_request(request)
        version = spec.send_version if api_version is None else api_version
        timeout = (timeout_ms if timeout_ms is not None else self.request_timeout_ms) / 1000
        if self._reauthenticated is not None:
            await self._wait_for_reauthentication(request, timeout)
        if self._closed_exc is not None:
            raise KafkaConnectionError(
                f"connection to {self.host}:{self.port} is closed"
            ) from self._closed_exc
        correlation_id = self._next_correlation_id()
        data = encode_request_buffers(request, version, correlation_id, self.client_id)
        if not expect_response:
            self._stream.writelines(data)
            await self._drain()
            return None
        await self._acquire_slot(timeout)
        while self._reauthenticated is not None and spec.key not in SASL_API_KEYS:
            self._slots.release()  # a re-authentication began while this request waited for a slot
            await self._wait_for_reauthentication(request, timeout)
            await self._acquire_slot(timeout)
        fut: asyncio.Future[Struct] = asyncio.get_running_loop().create_future()
        try:
            if self._closed_exc is not None:
                raise KafkaConnectionError(
                    f"connection to {self.host}:{self.port} is closed"
                ) from self._closed_exc
            self._in_flight.append((correlation_id, spec.response, version, fut))
            self._stream.writelines(data)  # record batches go to the socket uncopied
            await self._drain()
            try:
                # asyncio.timeout, not wait_for: on 3.11 wait_for may swallow a cancellation that
                # races with the response.  No shield: a future cancelled with its caller stays in
                # ``_in_flight`` in order, and the read loop skips it when its response comes.
                async with asyncio.timeout(timeout):
                    return await fut
            except TimeoutError as exc:
                err = KafkaTimeoutError(
                    f"{spec.key.name} to {self.host}:{self.port} timed out after {timeout * 1000:.0f} ms"
                )
                self._fail_all(err)
                raise err from exc
        finally:
            self._slots.release()

    async def _acquire_slot(self, timeout_s: float) -> None:
        """Take an in-flight slot, waiting at most ``timeout_s`` when none is free.

        Raises:
            KafkaTimeoutError: no slot in time.
        """
        if not self._slots.locked():
            await self._slots.acquire()  # a free slot: taken at once, no timer armed for it
            return
        try:
            async with asyncio.timeout(timeout_s):
                await self._slots.acquire()
        except TimeoutError as exc:
            raise KafkaTimeoutError(
                f"no in-flight slot to {self.host}:{self.port} within {timeout_s}s"
            ) from exc

    async def _drain(self) -> None:
        assert self._stream is not None
        try:
            await self._stream.drain()
        except (OSError, RuntimeError) as exc:
            err = KafkaConnectionError(f"write to {self.host}:{self.port} failed: {exc!r}")
            self._fail_all(err)
            raise err from exc

    async def _read_loop(self) -> None:
        stream = self._stream
        assert stream is not None
        try:
            while True:
                payload = await stream.read_frame()
                correlation_id, body = decode_response_envelope(payload)
                if not self._in_flight:
                    raise FrameError(f"unexpected response with correlation id {correlation_id}")
                expected_id, response_cls, version, fut = self._in_flight.popleft()
                if correlation_id != expected_id:
                    raise FrameError(f"correlation id {correlation_id} does not match expected {expected_id}")
                if fut.done():
                    continue
                try:
                    fut.set_result(response_cls.from_wire(body, version))
                except SchemaError as exc:
                    fut.set_exception(
                        KafkaConnectionError(f"malformed response from {self.host}:{self.port}: {exc}")
                    )
        except asyncio.CancelledError:
            self._fail_all(KafkaConnectionError(f"connection to {self.host}:{self.port} closed"))
            raise
        except (asyncio.IncompleteReadError, OSError, FrameError) as exc:
            err = KafkaConnectionError(f"connection to {self.host}:{self.port} lost: {exc!r}")
            err.__cause__ = exc
            self._fail_all(err)

    def _fail_all(self, exc: BaseException) -> None:
        if self._closed_exc is None:
            self._closed_exc = exc
        while self._in_flight:
            _, _, _, fut = self._in_flight.popleft()
            if not fut.done():
                fut.set_exception(exc)
                # The sender may have stopped waiting (timeout or cancellation): mark
                # the exception retrieved so asyncio does not log it as lost.
                fut.exception()
        if self._stream is not None:
            self._stream.close()

    async def close(self) -> None:
        """Close the socket, fail in-flight requests, and wait (at most 1 s) for the reader task.

        Cancelling the caller while it waits here propagates; the reader task's own
        cancellation is not re-raised.
        """
        self._fail_all(KafkaConnectionError(f"connection to {self.host}:{self.port} closed by client"))
        if self._stream is not None:
            self._stream.abort()
        await self._read_task.shutdown(1)
