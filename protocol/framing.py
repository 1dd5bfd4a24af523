"""Framing: 4-byte big-endian length, then a msgpack body.

Request body: ``[api_key, api_version, correlation_id, client_id, body]``.
Response body: ``[correlation_id, body]``.  ``body`` is the message schema's wire
list for that version (``protocol.schema``).  No I/O here: callers read
``LENGTH.size`` bytes, then ``length`` bytes, and hand them to the decoders.

Kafka concept: the request header v1 and the size-delimited frames of Kafka's
``NetworkReceive`` (``socket.request.max.bytes`` bounds a frame).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

import msgpack

from protocol.api_keys import API_REGISTRY, ApiSpec, spec_for_request
from protocol.schema import SchemaError, Struct

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
    """Request header fields (Kafka's RequestHeader v1)."""

    api_key: int
    api_version: int
    correlation_id: int
    client_id: str | None


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
    spec = spec_for_request(request)
    body = msgpack.packb(
        [int(spec.key), api_version, correlation_id, client_id, request.to_wire(api_version)],
        use_bin_type=True,
    )
    return LENGTH.pack(len(body)) + body


def decode_request(payload: bytes | memoryview) -> tuple[RequestHeader, ApiSpec, Struct]:
    """Decode a request frame body (without its length prefix).

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
    header = RequestHeader(api_key, api_version, correlation_id, client_id)
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
    body = msgpack.packb([correlation_id, response.to_wire(api_version)], use_bin_type=True)
    return LENGTH.pack(len(body)) + body


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
