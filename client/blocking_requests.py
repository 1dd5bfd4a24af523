"""One request on a new blocking socket to a broker's msgpack listener (over TLS and after the SASL
login when asked): how the synchronous, loop-free ``LocalCluster`` checks readiness (Metadata) and
gives a secure cluster's admin its SCRAM credential (AlterUserScramCredentials), and how tests ask a
broker one thing without an event loop.

Owns: ``blocking_request``, ``fetch_metadata`` and the blocking ``sasl_client.Send`` they log in
with.  Does not own connections that live longer than one request (``kafkette.client.kafka_client``).

Kafka concept: a one-shot ``NetworkClient`` exchange (as Kafka's test harness' ``connectAndReceive``).
"""

from __future__ import annotations

import itertools
import socket
from collections.abc import Callable
from typing import Any

from kafkette.common.network.client_security import PLAINTEXT as PLAINTEXT_SECURITY
from kafkette.common.network.client_security import ClientSecurity
from kafkette.common.security.sasl_client import sasl_authenticate
from kafkette.protocol.api_keys import API_REGISTRY, ApiKey
from kafkette.protocol.apis.metadata import MetadataRequest, MetadataResponse
from kafkette.protocol.framing import LENGTH, decode_response_envelope, encode_request

HOST = "127.0.0.1"
_correlation_ids = itertools.count(1)


def fetch_metadata(
    port: int, timeout_s: float = 2.0, host: str = HOST, security: ClientSecurity = PLAINTEXT_SECURITY
) -> MetadataResponse:
    """Send one Metadata request (no topics, at the msgpack listener's top version) to
    ``host:port`` with a blocking socket (over TLS, and after the SASL login, as ``security`` asks).

    Raises:
        OSError: connection or I/O failure (including timeouts and failed TLS handshakes).
        ValueError: an undecodable answer.
        KafkaError: the listener refused the SASL login (SaslAuthenticationFailedError ...).
    """
    return blocking_request(port, ApiKey.METADATA, _METADATA, timeout_s, host, security)


def blocking_request(
    port: int,
    api_key: ApiKey,
    request: Any,
    timeout_s: float = 2.0,
    host: str = HOST,
    security: ClientSecurity = PLAINTEXT_SECURITY,
) -> Any:
    """Send one request (at the msgpack listener's top version of ``api_key``) to ``host:port``
    on a new blocking socket (over TLS, and after the SASL login, as ``security`` asks) and return
    the decoded response.

    Raises:
        OSError: connection or I/O failure (including timeouts and failed TLS handshakes).
        ValueError: an undecodable answer.
        KafkaError: the listener refused the SASL login (SaslAuthenticationFailedError ...).
    """
    with socket.create_connection((host, port), timeout=timeout_s) as plain:
        sock = plain
        if security.ssl_context is not None:
            sock = security.ssl_context.wrap_socket(plain, server_hostname=host)
        if security.sasl is not None:
            _run_to_completion(sasl_authenticate(_blocking_send(sock), security.sasl()))
        version = API_REGISTRY[api_key].max_version
        return _run_to_completion(_blocking_send(sock)(api_key, version, request))


_METADATA = MetadataRequest(topics=[], allow_auto_topic_creation=False)


def _blocking_send(sock: socket.socket) -> Callable[[int, int, Any], Any]:
    """A ``sasl_client.Send`` over a blocking socket: the request written, its answer read."""

    async def send(api_key: int, version: int, request: Any) -> Any:
        correlation_id = next(_correlation_ids) & 0x7FFFFFFF
        sock.sendall(encode_request(request, version, correlation_id, "kafkette-local-cluster"))
        (length,) = LENGTH.unpack(_recv_exactly(sock, LENGTH.size))
        if length < 0 or length > 64 * 1024 * 1024:
            raise ValueError(f"implausible response length {length}")
        _, body = decode_response_envelope(_recv_exactly(sock, length))
        return API_REGISTRY[ApiKey(api_key)].response.from_wire(body, version)

    return send


def _run_to_completion(coroutine: Any) -> Any:
    """Run a coroutine that never suspends (its awaits do blocking I/O) to its result, in or out
    of an event loop."""
    try:
        coroutine.send(None)
    except StopIteration as stop:
        return stop.value
    coroutine.close()
    raise RuntimeError("the coroutine suspended")


def _recv_exactly(sock: socket.socket, size: int) -> bytes:
    chunks = bytearray()
    while len(chunks) < size:
        chunk = sock.recv(size - len(chunks))
        if not chunk:
            raise ConnectionError("connection closed by the broker")
        chunks += chunk
    return bytes(chunks)
