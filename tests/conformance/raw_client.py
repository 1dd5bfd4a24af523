"""A minimal synchronous Kafka-protocol client for the conformance scenarios that no Kafka client
library exposes (a Produce with a chosen sequence number, a Fetch past the log end, a JoinGroup
with a bad session timeout): one request, one answer, over a plain socket.

The request and response bodies are Kafkette's own schemas (``protocol/kafka_messages``), which
are checked field by field against kafka-python's (generated from Kafka's JSON specs) in
``tests/unit/protocol/test_kafka_messages_oracle.py``; the same bytes go to Apache Kafka and to
Kafkette, so whatever the schemas get wrong shows up on both sides alike.
"""

from __future__ import annotations

import socket
import ssl
import struct
from collections.abc import Callable
from typing import Any

from kafkette.protocol.api_keys import APIS, ApiSpec
from kafkette.protocol.apis.sasl import SaslAuthenticateRequest, SaslHandshakeRequest
from kafkette.protocol.errors import Errors
from kafkette.protocol.kafka_binary import BinaryReader
from kafkette.protocol.kafka_header import (
    KafkaRequestHeader,
    decode_response_header,
    encode_request_header,
    request_header_version,
    response_header_version,
)
from kafkette.protocol.kafka_schema import KafkaSchemaError, KafkaStruct
from tests.conformance.recorder import recorder_for

APIS_BY_NAME: dict[str, ApiSpec] = {api.name: api for api in APIS}
"""Every API Kafkette declares, offered on its Kafka listener or not yet (the same request then goes
to Apache Kafka and shows whatever Kafkette does with an API it does not offer)."""
_LENGTH = struct.Struct(">i")


class RawKafkaClient:
    """One connection to one broker's Kafka listener.

    Args:
        host / port: the listener.
        timeout_s: bound of each send and receive (s).
        client_id: the ``client_id`` of every request header.
        recorder: called with ``(api key, version, request body, response frame, connection)`` after each
            answered call (the frame without its 4-byte length, response header included), as the
            ``recorder.AnswerRecorder`` keeps them for Kafka's own parser; by default the one
            registered for the broker's address (``recorder.register``), if any.
        connection: the connection's name in the recording (default: ``AnswerRecorder.connection``).
        sasl_plain: ``(user, password)`` to log in with SASL/PLAIN (SaslHandshake v1, SaslAuthenticate
            v2, KIP-152) before any request, on a SASL_PLAINTEXT listener; the login is not recorded.
        ssl_context: when given, the connection is TLS with it (an SSL or SASL_SSL listener), the
            handshake done before ``__init__`` returns, the server's name checked as ``host``.

    Raises (from the constructor): ``OSError`` when the connection fails, ``PermissionError`` when
    the SASL login is refused.
    Raises (from ``call``): ``OSError`` when the connection fails or the broker closes it,
    ``KafkaSchemaError`` when the answer does not parse.
    """

    def __init__(
        self,
        host: str,
        port: int,
        timeout_s: float = 15.0,
        client_id: str = "conformance",
        recorder: Callable[[int, int, bytes, bytes, str], None] | None = None,
        connection: str | None = None,
        sasl_plain: tuple[str, str] | None = None,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        self._sock = socket.create_connection((host, port), timeout=timeout_s)
        if ssl_context is not None:
            self._sock = ssl_context.wrap_socket(self._sock, server_hostname=host)
        self._correlation_id = 0
        self._client_id = client_id
        registered = recorder_for((host, port))
        self._recorder = recorder if recorder is not None else (registered.record if registered else None)
        self._conn = connection if connection is not None else (registered.connection() if registered else "")
        self._last_body = b""
        if sasl_plain is not None:
            self._login_plain(*sasl_plain)

    def _login_plain(self, user: str, password: str) -> None:
        """SASL/PLAIN (RFC 4616) in Kafka frames: SaslHandshake v1 naming PLAIN, then one
        SaslAuthenticate v2 carrying ``\\0user\\0password``.

        Raises:
            PermissionError: either step answered an error (its name and message).
        """
        recorder, self._recorder = self._recorder, None
        try:
            handshake = self.call("SaslHandshake", 1, SaslHandshakeRequest(mechanism="PLAIN"))
            if handshake.error_code:
                raise PermissionError(f"SaslHandshake PLAIN: {error_name(handshake.error_code)}")
            token = b"\0" + user.encode() + b"\0" + password.encode()
            answer = self.call("SaslAuthenticate", 2, SaslAuthenticateRequest(auth_bytes=token))
            if answer.error_code:
                raise PermissionError(
                    f"SASL/PLAIN login of {user}: {error_name(answer.error_code)} {answer.error_message}"
                )
        finally:
            self._recorder = recorder

    def call(self, api_name: str, version: int, request: KafkaStruct) -> KafkaStruct:
        """Send ``request`` as ``api_name`` v``version``; the decoded response body."""
        api, flexible = self._send(api_name, version, request)
        size = _LENGTH.unpack(self._exactly(4))[0]
        frame = self._exactly(size)
        if self._recorder is not None:
            self._recorder(api.key, version, self._last_body, frame, self._conn)
        reader = BinaryReader(frame, KafkaSchemaError, f"{api_name} v{version} response")
        correlation_id = decode_response_header(reader, response_header_version(api.key, flexible))
        if correlation_id != self._correlation_id:
            raise KafkaSchemaError(f"correlation id {correlation_id}, expected {self._correlation_id}")
        return api.response.decode(b"", version, flexible, reader)

    def send_only(self, api_name: str, version: int, request: KafkaStruct) -> None:
        """Send without reading an answer (Produce with acks=0 gets none)."""
        self._send(api_name, version, request)

    def _send(self, api_name: str, version: int, request: KafkaStruct) -> tuple[ApiSpec, bool]:
        """Frame and send one request with the next correlation id; its API and whether the
        version is flexible (KIP-482)."""
        api = APIS_BY_NAME[api_name]
        flexible = api.flexible(version)
        self._correlation_id += 1
        head = encode_request_header(
            KafkaRequestHeader(api.key, version, self._correlation_id, self._client_id),
            request_header_version(flexible),
        )
        body = b"".join(bytes(p) for p in request.encode(version, flexible))
        self._last_body = body
        self._sock.sendall(_LENGTH.pack(len(head) + len(body)) + head + body)
        return api, flexible

    def _exactly(self, size: int) -> bytes:
        chunks = []
        while size:
            chunk = self._sock.recv(min(size, 1 << 20))
            if not chunk:
                raise OSError("the broker closed the connection")
            chunks.append(chunk)
            size -= len(chunk)
        return b"".join(chunks)

    def close(self) -> None:
        self._sock.close()


def error_name(code: int) -> str:
    """Kafka's name of an error code (``UNKNOWN_TOPIC_OR_PARTITION``; ``NONE`` for 0)."""
    try:
        return Errors(code).name
    except ValueError:
        return f"UNKNOWN_ERROR_CODE_{code}"


def plain(value: Any) -> Any:
    """A message as JSON-able data: structs become dicts, bytes become hex."""
    if isinstance(value, KafkaStruct):
        return {name: plain(getattr(value, name)) for name in value._field_names}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).hex()
    return value
