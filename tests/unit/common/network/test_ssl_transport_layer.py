"""SslTransportLayer on real sockets (127.0.0.1): frames both ways through TLS (small, large, many at
once with read back-pressure), ``close_notify`` answered, the TLS alert of a refused client
certificate reaching the client, and a handshake that never comes cut off."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from kafkette.common.network.frame_stream import QUEUED_HIGH_FRAMES, FrameStream, start_frame_server
from kafkette.common.network.ssl_transport_layer import SslTransportLayer
from kafkette.protocol.framing import frame
from tests.tls_certificates import CertificateAuthority, Issued

TIMEOUT_S = 10


class Tls:
    def __init__(self, directory: Path) -> None:
        self.ca = CertificateAuthority(directory)
        self.server = self.ca.issue("server", "localhost", server=True)
        self.client = self.ca.issue("client", "alice", unit="clients")
        self.expired_client = self.ca.issue("expired-client", "bob", unit="clients", expired=True)

    def server_context(self, require_client_certificate: bool = False) -> ssl.SSLContext:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(str(self.server.bundle))
        if require_client_certificate:
            context.load_verify_locations(str(self.ca.files.certificate))
            context.verify_mode = ssl.CERT_REQUIRED
        return context

    def client_context(self, certificate: Issued | None = None) -> ssl.SSLContext:
        context = ssl.create_default_context(cafile=str(self.ca.files.certificate))
        if certificate is not None:
            context.load_cert_chain(str(certificate.bundle))
        return context


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> Tls:
    return Tls(tmp_path_factory.mktemp("certs"))


async def _echo(stream: FrameStream) -> None:
    """Answer every frame with itself; close once the client has."""
    try:
        while True:
            body = await stream.read_frame()
            stream.writelines([frame(bytes(body))])
            await stream.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        stream.close()


@pytest.fixture
async def echo_server(tls: Tls) -> AsyncIterator[Callable[[ssl.SSLContext], asyncio.Future[int]]]:
    tasks: list[asyncio.Task[None]] = []
    servers: list[asyncio.Server] = []

    async def start(context: ssl.SSLContext) -> int:
        server = await start_frame_server(
            lambda stream: tasks.append(asyncio.create_task(_echo(stream))),
            "127.0.0.1",
            0,
            64 * 1024 * 1024,
            ssl_context=context,
        )
        servers.append(server)
        return server.sockets[0].getsockname()[1]

    yield start  # type: ignore[misc]
    for server in servers:
        server.close()
        await server.wait_closed()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def _read_frame(reader: asyncio.StreamReader) -> bytes:
    size = int.from_bytes(await reader.readexactly(4), "big")
    return await reader.readexactly(size)


async def test_frames_small_and_large_go_both_ways_and_close_notify_is_answered(tls, echo_server):
    port = await echo_server(tls.server_context())
    reader, writer = await asyncio.open_connection(
        "127.0.0.1", port, ssl=tls.client_context(), server_hostname="localhost"
    )
    bodies = [b"", b"hello", bytes(range(256)) * 300, b"x" * (5 * 1024 * 1024)]
    for body in bodies:
        writer.write(frame(body))
    await writer.drain()
    for body in bodies:
        assert await asyncio.wait_for(_read_frame(reader), TIMEOUT_S) == body
    writer.close()
    # the client's close_notify gets the server's: the close completes without waiting out a timeout
    await asyncio.wait_for(writer.wait_closed(), 2)


async def test_more_frames_than_the_protocol_queues_are_all_delivered_after_it_resumes(tls, echo_server):
    port = await echo_server(tls.server_context())
    reader, writer = await asyncio.open_connection(
        "127.0.0.1", port, ssl=tls.client_context(), server_hostname="localhost"
    )
    count = 3 * QUEUED_HIGH_FRAMES  # written at once: the frame protocol pauses reading, then resumes
    writer.write(b"".join(frame(i.to_bytes(4, "big")) for i in range(count)))
    await writer.drain()
    got = [await asyncio.wait_for(_read_frame(reader), TIMEOUT_S) for _ in range(count)]
    assert [int.from_bytes(body, "big") for body in got] == list(range(count))
    writer.close()
    await asyncio.wait_for(writer.wait_closed(), 2)


async def test_an_expired_client_certificate_is_refused_with_a_tls_alert(tls, echo_server):
    port = await echo_server(tls.server_context(require_client_certificate=True))
    with pytest.raises(ssl.SSLError) as refused:
        # TLS 1.3: the client may finish its side first and meet the alert on its first read
        reader, writer = await asyncio.open_connection(
            "127.0.0.1", port, ssl=tls.client_context(tls.expired_client), server_hostname="localhost"
        )
        writer.write(frame(b"hello"))
        await asyncio.wait_for(_read_frame(reader), TIMEOUT_S)
    assert "ALERT_CERTIFICATE_EXPIRED" in str(refused.value), refused.value
    # and a client with a good certificate is served
    reader, writer = await asyncio.open_connection(
        "127.0.0.1", port, ssl=tls.client_context(tls.client), server_hostname="localhost"
    )
    writer.write(frame(b"hello"))
    assert await asyncio.wait_for(_read_frame(reader), TIMEOUT_S) == b"hello"
    writer.close()
    await asyncio.wait_for(writer.wait_closed(), 2)


async def test_a_connection_that_never_starts_its_handshake_is_closed_after_the_timeout(tls):
    loop = asyncio.get_running_loop()
    made: list[FrameStream] = []
    server = await loop.create_server(
        lambda: SslTransportLayer(tls.server_context(), FrameStream(1024, made.append), 0.2), "127.0.0.1", 0
    )
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.sockets[0].getsockname()[1])
        assert await asyncio.wait_for(reader.read(), TIMEOUT_S) == b""  # closed by the server
        assert made == []  # the frame protocol never saw the connection
        writer.close()
    finally:
        server.close()
        await server.wait_closed()
