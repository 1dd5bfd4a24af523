"""What a listener speaks: the seam between the socket server and a wire protocol.

Owns: ``WireCodec`` (turns one frame's body into a request for ``KafkaApis`` and says how its
answer is written), ``Reply`` (one request's way back: its encoding of the response and the
error answer its API allows), ``Decoded``, ``RequestDecodeError``, and the codec of
Kafkette's own msgpack protocol (``MsgpackCodec``).  Kafka's binary protocol has the other
codec (``kafkette.protocol.kafka_codec``).  Both hand the broker the same request structs
(``kafkette.protocol.apis``), so one ``KafkaApis`` serves both listeners.  Pure code, no I/O.

Kafka concept: ``RequestChannel.Request``/``RequestContext`` (a request parsed once, with what
is needed to send its response), per listener (``listener.security.protocol.map``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from kafkette.protocol.api_keys import API_REGISTRY, ApiSpec
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import (
    Buffers,
    RequestHeader,
    UnsupportedVersionError,
    decode_request,
    encode_response_buffers,
)
from kafkette.protocol.schema import SchemaError, Struct


class Reply(Protocol):
    """How one request is answered.

    Attributes:
        name: the API's name, for logs.
    """

    name: str

    def encode(self, response: Struct) -> Buffers:
        """The answer frame (length prefix included) as buffers for ``writelines``."""

    def error_response(self, code: Errors, message: str | None = None) -> Struct | None:
        """The response carrying ``code`` (and, where the API's answer has room for it, ``message``:
        the failure's message as ``errors.api_error_message`` keeps it) for the whole request, or None
        when the API has no such answer (the connection is then closed)."""


@dataclass(slots=True)
class Decoded:
    """A request ready for ``KafkaApis`` (``header``, ``spec``, ``request``) or already answered
    (``answer``), and its ``reply``."""

    reply: Reply
    header: RequestHeader | None = None
    spec: ApiSpec | None = None
    request: Struct | None = None
    answer: Struct | None = None


class RequestDecodeError(ValueError):
    """A frame that could not become a request.

    Attributes:
        code: the error to answer with (UNSUPPORTED_VERSION, INVALID_REQUEST).
        reply: how to answer it, or None when nothing can be answered (the connection is closed).
    """

    def __init__(self, message: str, code: Errors, reply: Reply | None) -> None:
        super().__init__(message)
        self.code = code
        self.reply = reply


class WireCodec(Protocol):
    """A listener's protocol.

    Attributes:
        name: what the listener speaks, for logs ("msgpack", "kafka").
    """

    name: str

    def decode(self, payload: bytes | memoryview, client_address: str = "") -> Decoded:
        """One frame's body (without its length prefix) as a request; ``client_address`` is the
        peer's IP address, put in the request's header.

        Raises:
            RequestDecodeError: answer with its code when it has a reply, else close.
            FrameError: the frame is unreadable (close the connection).
        """


@dataclass(frozen=True, slots=True)
class MsgpackReply:
    """The way back of a msgpack request: its correlation id, version and API."""

    correlation_id: int
    version: int
    spec: ApiSpec

    @property
    def name(self) -> str:
        return self.spec.key.name

    def encode(self, response: Struct) -> Buffers:
        return encode_response_buffers(self.correlation_id, response, self.version)

    def error_response(self, code: Errors, message: str | None = None) -> Struct | None:
        """The response with ``code`` as its top-level error, or None when the request's version has
        no such field (Metadata before v13, DescribeLogDirs before v3): a success-shaped answer would
        hide the error, so the connection is closed instead.  ``message`` is not carried by this
        listener's answers."""
        if not any(f.name == "error_code" for f in self.spec.response.fields_for(self.version)):
            return None
        return self.spec.response(error_code=int(code))


class MsgpackCodec:
    """Kafkette's own protocol (``kafkette.protocol.framing``): an unknown API or version is
    answered UNSUPPORTED_VERSION at the request's version (or v0 when the version is unknown),
    a body that does not match its schema INVALID_REQUEST, where the response has a top-level
    ``error_code``."""

    name = "msgpack"

    def decode(self, payload: bytes | memoryview, client_address: str = "") -> Decoded:
        try:
            header, spec, request = decode_request(payload, client_address)
        except UnsupportedVersionError as exc:
            raise RequestDecodeError(str(exc), Errors.UNSUPPORTED_VERSION, _reply_for(exc.header)) from exc
        except SchemaError as exc:
            header = getattr(exc, "header", None)
            reply = _reply_for(header) if header is not None else None
            raise RequestDecodeError(f"invalid request: {exc}", Errors.INVALID_REQUEST, reply) from exc
        return Decoded(MsgpackReply(header.correlation_id, header.api_version, spec), header, spec, request)


def _reply_for(header: RequestHeader) -> MsgpackReply | None:
    spec = API_REGISTRY.get(header.api_key)
    if spec is None:
        return None
    version = header.api_version if spec.min_version <= header.api_version <= spec.max_version else 0
    return MsgpackReply(header.correlation_id, version, spec)


MSGPACK_CODEC = MsgpackCodec()
