"""A recording TCP proxy in front of each broker's Kafka-protocol listener, so that the connections
of a real client (librdkafka, Kafka's Java clients) are kept as request/answer pairs for Apache
Kafka's own parser (``kafka_parser``), as the raw connections of the conformance scenarios are.

Owns the forwarding (one proxy port per broker on 127.0.0.1, bytes passed on frame by frame in
both directions, unchanged) and the splitting of the frames: the 4-byte length, the request
header (api key, api version, correlation id, client id, and the tagged fields of header v2 for a
flexible API version, KIP-482) and the response's correlation id, by which each answer is paired
with its request on its connection.  Each answered request goes to an ``recorder.AnswerRecorder``
(``record``: the request body without its header, the response frame without its length, header
included), one ``AnswerRecorder.connection`` name per client connection.

Does not own what the client sees: nothing is rewritten, so a broker's Metadata answers must already
advertise the proxy (``advertised.listeners`` of the Kafka listener set to the proxy's port, see
``advertised_listeners``); the client then never connects past the proxy.
"""

from __future__ import annotations

import asyncio
import struct
import threading
from collections.abc import Mapping
from concurrent.futures import Future
from dataclasses import dataclass

from kafkette.protocol.api_keys import APIS
from kafkette.protocol.kafka_binary import BinaryReader
from kafkette.protocol.kafka_header import decode_request_header, request_header_version
from tests.conformance.recorder import AnswerRecorder

HOST = "127.0.0.1"
MAX_FRAME_BYTES = 256 * 1024 * 1024
START_TIMEOUT_S = 10.0
STOP_TIMEOUT_S = 10.0
_LENGTH = struct.Struct(">i")
_FLEXIBLE_FROM = {int(api.key): api.flexible_from for api in APIS}


@dataclass(frozen=True)
class Request:
    """One request read off a connection.

    Attributes:
        api_key / api_version / correlation_id: from its header.
        body: the request body (header excluded).
    """

    api_key: int
    api_version: int
    correlation_id: int
    body: bytes


def split_request(frame: bytes) -> Request:
    """The header fields and the body of a request frame (without its length): header v2 for a
    flexible version of the API (Kafka's spec, as Kafkette declares every API), else v1.

    Raises:
        ValueError: the header is truncated or malformed.
    """
    api_key, api_version = struct.unpack_from(">hh", frame, 0)
    flexible_from = _FLEXIBLE_FROM.get(api_key)
    flexible = flexible_from is not None and api_version >= flexible_from
    reader = BinaryReader(frame)
    header = decode_request_header(reader, request_header_version(flexible))
    return Request(api_key, api_version, header.correlation_id, bytes(frame[reader.pos :]))


async def _read_frame(reader: asyncio.StreamReader) -> bytes | None:
    """The next frame without its length, or None at the end of the stream.

    Raises:
        ValueError: an impossible length.
    """
    try:
        (length,) = _LENGTH.unpack(await reader.readexactly(_LENGTH.size))
        if not 0 <= length <= MAX_FRAME_BYTES:
            raise ValueError(f"frame length {length}")
        return await reader.readexactly(length)
    except (asyncio.IncompleteReadError, ConnectionError):
        return None


class RecordingProxy:
    """One listening port per broker, each forwarding to that broker's Kafka listener and
    recording every answered request into ``recorder``.

    Args:
        upstreams: ``{broker id: (host, port)}`` of the brokers' Kafka listeners (they need not
            be up before a client connects through the proxy).
        recorder: where the pairs go; its ``scenario`` at the moment of each answer labels it.
        host: the address the proxy listens on.

    Attributes:
        ports: ``{broker id: proxy port}`` once started.
        problems: what could not be recorded (a request header that did not parse, an answer
            whose correlation id no pending request had: the bytes were forwarded all the same;
            a frame with an impossible length, which ends its connection), one line each.

    Use as ``with RecordingProxy(...) as proxy:`` or ``start()``/``stop()``.
    """

    def __init__(
        self, upstreams: Mapping[int, tuple[str, int]], recorder: AnswerRecorder, host: str = HOST
    ) -> None:
        self._upstreams = dict(upstreams)
        self._recorder = recorder
        self._host = host
        self.ports: dict[int, int] = {}
        self.problems: list[str] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._servers: list[asyncio.Server] = []
        self._connections: set[asyncio.Task[None]] = set()

    def bootstrap_servers(self) -> str:
        """``"127.0.0.1:p1,..."``: the proxy ports, in broker id order."""
        return ",".join(f"{self._host}:{self.ports[b]}" for b in sorted(self.ports))

    def start(self) -> RecordingProxy:
        """Listen (an event loop of its own in a daemon thread); returns self once every port is bound."""
        loop = asyncio.new_event_loop()
        self._loop = loop
        self._thread = threading.Thread(target=loop.run_forever, name="recording-proxy", daemon=True)
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._listen(), loop).result(START_TIMEOUT_S)
        return self

    def stop(self) -> None:
        """Close the ports and every connection, then end the thread."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        done: Future[None] = asyncio.run_coroutine_threadsafe(self._close(), loop)
        try:
            done.result(STOP_TIMEOUT_S)
        finally:
            loop.call_soon_threadsafe(loop.stop)
            thread.join(STOP_TIMEOUT_S)
            if not thread.is_alive():
                loop.close()
            self._loop = self._thread = None

    def __enter__(self) -> RecordingProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def _listen(self) -> None:
        for broker, upstream in sorted(self._upstreams.items()):

            async def serve(
                reader: asyncio.StreamReader,
                writer: asyncio.StreamWriter,
                upstream: tuple[str, int] = upstream,
            ) -> None:
                task = asyncio.current_task()
                assert task is not None
                self._connections.add(task)
                try:
                    await self._serve(upstream, reader, writer)
                finally:
                    self._connections.discard(task)

            server = await asyncio.start_server(serve, self._host, 0)
            self._servers.append(server)
            self.ports[broker] = server.sockets[0].getsockname()[1]

    async def _close(self) -> None:
        for server in self._servers:
            server.close()
        for task in list(self._connections):
            task.cancel()
        await asyncio.gather(*self._connections, return_exceptions=True)
        for server in self._servers:
            await server.wait_closed()
        self._servers.clear()

    async def _serve(
        self,
        upstream: tuple[str, int],
        client_reader: asyncio.StreamReader,
        client_writer: asyncio.StreamWriter,
    ) -> None:
        conn = self._recorder.connection()
        try:
            broker_reader, broker_writer = await asyncio.open_connection(*upstream)
        except OSError:
            client_writer.close()
            return
        pending: dict[int, Request] = {}
        directions = [
            asyncio.create_task(self._requests(conn, client_reader, broker_writer, pending)),
            asyncio.create_task(self._answers(conn, broker_reader, client_writer, pending)),
        ]
        try:
            done, _ = await asyncio.wait(directions, return_when=asyncio.FIRST_COMPLETED)
            for task in done:  # a peer closing its end is the ordinary end; anything else is not
                exc = task.exception()
                if exc is not None and not isinstance(exc, ConnectionError):
                    self.problems.append(f"{conn}: the connection ended on {exc!r}")
        finally:
            for task in directions:
                task.cancel()
            await asyncio.gather(*directions, return_exceptions=True)
            for writer in (broker_writer, client_writer):
                writer.close()

    async def _requests(
        self,
        conn: str,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        pending: dict[int, Request],
    ) -> None:
        while (frame := await _read_frame(reader)) is not None:
            try:
                request = split_request(frame)
            except (ValueError, struct.error) as exc:
                self.problems.append(f"{conn}: a request header that does not parse ({exc})")
            else:
                pending[request.correlation_id] = request
            writer.write(_LENGTH.pack(len(frame)) + frame)
            await writer.drain()

    async def _answers(
        self,
        conn: str,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        pending: dict[int, Request],
    ) -> None:
        while (frame := await _read_frame(reader)) is not None:
            (correlation_id,) = struct.unpack_from(">i", frame, 0) if len(frame) >= 4 else (None,)
            request = pending.pop(correlation_id, None) if correlation_id is not None else None
            if request is None:
                self.problems.append(f"{conn}: an answer with correlation id {correlation_id} no request had")
            else:  # recorded before the client sees it: an answer the client acted on is in the recording
                self._recorder.record(request.api_key, request.api_version, request.body, frame, conn)
            writer.write(_LENGTH.pack(len(frame)) + frame)
            await writer.drain()


def advertised_listeners(host: str, plaintext_port: int, proxy_port: int) -> str:
    """A broker's ``advertised.listeners`` that publishes the proxy as its Kafka listener (and its
    own kafkette listener, which the brokers and the SDK reach directly)."""
    return f"PLAINTEXT://{host}:{plaintext_port},KAFKA://{host}:{proxy_port}"
