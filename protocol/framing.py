"""Framing: 4-byte big-endian length, then a msgpack body.

Request body: ``[api_key, api_version, correlation_id, client_id, body]``.
Response body: ``[correlation_id, body]``.  ``body`` is the message schema's wire
list for that version (``kafkette.protocol.schema``).  No I/O here: callers read
``LENGTH.size`` bytes, then ``length`` bytes, and hand them to the decoders.

Kafka concept: the request header v1 and the size-delimited frames of Kafka's
``NetworkReceive`` (``socket.request.max.bytes`` bounds a frame).
"""

from __future__ import annotations

import functools
import struct
from dataclasses import dataclass
from typing import Any

import msgpack

from kafkette.protocol.api_keys import API_REGISTRY, ApiSpec, spec_for_request
from kafkette.protocol.schema import (
    Array,
    Bytes,
    FieldType,
    Nullable,
    Records,
    SchemaError,
    Struct,
    StructType,
)

LENGTH = struct.Struct(">i")
DEFAULT_MAX_FRAME_BYTES = 104857600  # socket.request.max.bytes default (100 MiB)


class FrameError(ValueError):
    """A frame cannot be decoded at all (bad length, not msgpack, bad header)."""


class UnsupportedVersionError(FrameError):
    """The header is readable but names an API key or version this build lacks.

    Attributes:
        header: the decoded ``RequestHeader`` so the broker can answer it.
    """

    def __init__(self, message: str, header: RequestHeader) -> None:
        super().__init__(message)
        self.header = header


@dataclass(frozen=True, slots=True)
class RequestHeader:
    """Request header fields (Kafka's RequestHeader v1), and the listener the request came in on
    (None: a msgpack listener; else its name, such as ``KAFKA``), as Kafka's ``RequestContext``
    carries its ``listenerName``: Metadata and FindCoordinator answer with that listener's
    addresses; and, as ``RequestContext`` does, the client's address and its authenticated
    principal (``User:ANONYMOUS`` on a connection that did not authenticate)."""

    api_key: int
    api_version: int
    correlation_id: int
    client_id: str | None
    listener_name: str | None = None
    client_address: str = ""  # the client's IP address (Kafka's RequestContext.clientAddress)
    principal: str = "User:ANONYMOUS"  # who sent it (Kafka's RequestContext.principal, toString form)


SPLICE_MIN_BYTES = 4096
"""A bytes field at least this long is not copied into the msgpack body but passed on
as its own buffer (record batches in Produce requests and Fetch responses)."""

Buffers = list[bytes | memoryview]


def frame(body: bytes) -> bytes:
    """Prefix ``body`` with its 4-byte big-endian length."""
    return LENGTH.pack(len(body)) + body


def check_frame_length(length: int, max_bytes: int = DEFAULT_MAX_FRAME_BYTES) -> None:
    """Validate a frame length read from the wire.

    Raises:
        FrameError: negative, or larger than ``max_bytes`` (``socket.request.max.bytes``).
    """
    if length < 0 or length > max_bytes:
        raise FrameError(f"frame length {length} outside 0..{max_bytes} (socket.request.max.bytes)")


def encode_request(request: Struct, api_version: int, correlation_id: int, client_id: str | None) -> bytes:
    """Encode a request as a whole frame (length prefix included).

    Args:
        request: a registered request struct.
        api_version: the version to encode (fields outside its range are left out).
        correlation_id: int32 echoed by the response.
        client_id: free-form client name, or None.
    """
    return b"".join(encode_request_buffers(request, api_version, correlation_id, client_id))


def encode_request_buffers(
    request: Struct, api_version: int, correlation_id: int, client_id: str | None
) -> Buffers:
    """Encode a request as buffers whose concatenation is the frame (for ``writelines``).

    Same bytes as ``encode_request``, but record batches (bytes fields of at least
    ``SPLICE_MIN_BYTES``) are not copied: they are buffers of the list themselves.

    Args: as ``encode_request``.
    """
    spec = spec_for_request(request)
    wire = [int(spec.key), api_version, correlation_id, client_id, request.to_wire(api_version)]
    return _encode_buffers(wire, _carries_bytes(type(request)))


def decode_request(
    payload: bytes | memoryview, client_address: str = ""
) -> tuple[RequestHeader, ApiSpec, Struct]:
    """Decode a request frame body (without its length prefix); ``client_address`` (the peer's
    IP address) goes into the header.

    Returns:
        (header, spec, request struct).

    Raises:
        FrameError: not msgpack or no usable header (close the connection).
        UnsupportedVersionError: unknown key or version (answer UNSUPPORTED_VERSION).
        SchemaError: the body does not match the schema (answer INVALID_REQUEST);
            ``err.header`` is set to the decoded header.
    """
    try:
        obj = msgpack.unpackb(payload, raw=False, use_list=True, strict_map_key=True)
    except Exception as exc:  # msgpack raises several unrelated types
        raise FrameError(f"frame is not valid msgpack: {exc}") from exc
    if type(obj) is not list or len(obj) != 5:
        raise FrameError("request frame must be [api_key, api_version, correlation_id, client_id, body]")
    api_key, api_version, correlation_id, client_id, body = obj
    if type(api_key) is not int or type(api_version) is not int or type(correlation_id) is not int:
        raise FrameError("request header fields api_key, api_version, correlation_id must be integers")
    if client_id is not None and type(client_id) is not str:
        raise FrameError("request header client_id must be a string or nil")
    header = RequestHeader(api_key, api_version, correlation_id, client_id, None, client_address)
    spec = API_REGISTRY.get(api_key)
    if spec is None:
        raise UnsupportedVersionError(f"unknown api_key {api_key}", header)
    if not spec.min_version <= api_version <= spec.max_version:
        raise UnsupportedVersionError(
            f"{spec.key.name} v{api_version} unsupported (supported {spec.min_version}-{spec.max_version})",
            header,
        )
    try:
        request = spec.request.from_wire(body, api_version)
    except SchemaError as exc:
        exc.header = header  # type: ignore[attr-defined]
        raise
    return header, spec, request


def encode_response(correlation_id: int, response: Struct, api_version: int) -> bytes:
    """Encode a response as a whole frame (length prefix included)."""
    return b"".join(encode_response_buffers(correlation_id, response, api_version))


def encode_response_buffers(correlation_id: int, response: Struct, api_version: int) -> Buffers:
    """Encode a response as buffers whose concatenation is the frame (for ``writelines``).

    Same bytes as ``encode_response``; record batches read from segment files (bytes
    fields of at least ``SPLICE_MIN_BYTES``) go to the socket without being copied
    into the msgpack body.
    """
    return _encode_buffers([correlation_id, response.to_wire(api_version)], _carries_bytes(type(response)))


def _encode_buffers(wire: list[Any], splice: bool) -> Buffers:
    """msgpack ``wire`` into ``[length prefix, body parts...]``, large bytes spliced in as they are."""
    if not splice:
        body = msgpack.packb(wire, use_bin_type=True)
        return [LENGTH.pack(len(body)), body]
    buffers: Buffers = [b""]
    chunk = bytearray()
    _pack_spliced(wire, msgpack.Packer(use_bin_type=True, autoreset=True), chunk, buffers)
    if chunk:
        buffers.append(bytes(chunk))
    buffers[0] = LENGTH.pack(sum(len(b) for b in buffers))
    return buffers


def _pack_spliced(value: Any, packer: msgpack.Packer, chunk: bytearray, buffers: Buffers) -> None:
    """Append msgpack of ``value`` to ``chunk``; a large bytes value closes the chunk and is
    appended to ``buffers`` after its bin header (the bytes msgpack itself would write)."""
    kind = type(value)
    if kind is list:
        if not _splices_below(value):  # one msgpack call for the whole list
            chunk += packer.pack(value)
            return
        chunk += packer.pack_array_header(len(value))
        for item in value:
            _pack_spliced(item, packer, chunk, buffers)
    elif (kind is bytes or kind is memoryview) and len(value) >= SPLICE_MIN_BYTES:
        size = len(value)
        chunk += BIN32_HEADER.pack(0xC6, size) if size > 0xFFFF else BIN16_HEADER.pack(0xC5, size)
        buffers.append(bytes(chunk))
        chunk.clear()
        buffers.append(value)
    else:
        chunk += packer.pack(value)


def _splices_below(value: list[Any]) -> bool:
    """Whether ``value`` may hold a bytes value to splice: a large one in it or in a list it holds,
    or a list nested two deep (looked at by the recursion).  The second level is looked at here,
    without a call per item: a produce request's partitions are lists of scalars and records."""
    for item in value:
        item_kind = type(item)
        if item_kind is list:
            for inner in item:
                inner_kind = type(inner)
                if inner_kind is list or (
                    (inner_kind is bytes or inner_kind is memoryview) and len(inner) >= SPLICE_MIN_BYTES
                ):
                    return True
        elif (item_kind is bytes or item_kind is memoryview) and len(item) >= SPLICE_MIN_BYTES:
            return True
    return False


BIN16_HEADER = struct.Struct(">BH")
BIN32_HEADER = struct.Struct(">BI")


@functools.cache
def _carries_bytes(cls: type[Struct]) -> bool:
    """True when some version of ``cls`` has a bytes field, at any depth (worth splicing)."""
    return any(_type_carries_bytes(field.type) for field in cls.FIELDS)


def _type_carries_bytes(field_type: FieldType) -> bool:
    if isinstance(field_type, (Nullable, Array)):
        return _type_carries_bytes(field_type.inner)
    if isinstance(field_type, StructType):
        return _carries_bytes(field_type.cls)
    return field_type is Bytes or field_type is Records


def decode_response_envelope(payload: bytes | memoryview) -> tuple[int, Any]:
    """Split a response frame body into (correlation_id, raw body list).

    Raises:
        FrameError: not msgpack or not ``[correlation_id, body]``.
    """
    try:
        obj = msgpack.unpackb(payload, raw=False, use_list=True, strict_map_key=True)
    except Exception as exc:
        raise FrameError(f"response is not valid msgpack: {exc}") from exc
    if type(obj) is not list or len(obj) != 2 or type(obj[0]) is not int:
        raise FrameError("response frame must be [correlation_id, body]")
    return obj[0], obj[1]
