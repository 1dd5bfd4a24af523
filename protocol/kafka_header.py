"""The request and response headers of Kafka's binary protocol.

Owns: ``KafkaRequestHeader`` (api key, api version, correlation id, client id, tagged fields)
with its encoding at header versions 0 to 2 and the response header (correlation id, tagged
fields) at versions 0 and 1, and which header version a message uses: a flexible API version
(KIP-482) has request header v2 and response header v1, an older one v1 and v0, and
ApiVersions' response always has header v0 so that a client can read it whatever it asked.
The client id keeps its int16 length in header v2 (Kafka's ``RequestHeader.json`` gives it no
flexible versions).  Does not own the bodies or the API table (which versions are flexible).
Pure code, no I/O.

Kafka concept: ``RequestHeader`` / ``ResponseHeader`` (``RequestHeaderData``,
``ResponseHeaderData``) and ``ApiKeys.requestHeaderVersion`` / ``responseHeaderVersion``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kafkette.protocol.api_keys import ApiKey
from kafkette.protocol.kafka_binary import I16, I32, BinaryReader, write_nullable_string, write_tagged_fields


class KafkaHeaderError(ValueError):
    """A header that is truncated or malformed (the connection that sent it is closed)."""


@dataclass(frozen=True)
class KafkaRequestHeader:
    """One request's header.

    Attributes:
        api_key / api_version: which API and version the body is.
        correlation_id: echoed in the response.
        client_id: the client's id (None when the client sent null; absent in header v0).
        tagged_fields: ``{tag: raw bytes}`` (header v2), none defined by Kafka today.
    """

    api_key: int
    api_version: int
    correlation_id: int
    client_id: str | None = None
    tagged_fields: dict[int, bytes] = field(default_factory=dict)


def request_header_version(flexible: bool) -> int:
    """2 for a flexible API version, else 1."""
    return 2 if flexible else 1


def response_header_version(api_key: int, flexible: bool) -> int:
    """1 for a flexible API version, else 0; always 0 for ApiVersions."""
    return 1 if flexible and api_key != ApiKey.API_VERSIONS else 0


def encode_request_header(header: KafkaRequestHeader, header_version: int) -> bytes:
    """The header's bytes at ``header_version`` (0, 1 or 2).

    Raises:
        ValueError: an unknown header version.
    """
    if header_version not in (0, 1, 2):
        raise ValueError(f"request header version {header_version} does not exist")
    out = I16.pack(header.api_key) + I16.pack(header.api_version) + I32.pack(header.correlation_id)
    if header_version >= 1:
        out += write_nullable_string(header.client_id)
    if header_version >= 2:
        out += write_tagged_fields(header.tagged_fields)
    return out


def peek_api(data: bytes | bytearray | memoryview) -> tuple[int, int]:
    """``(api_key, api_version)`` from a request's first 4 bytes, to choose its header version.

    Raises:
        KafkaHeaderError: fewer than 4 bytes.
    """
    if len(data) < 4:
        raise KafkaHeaderError(f"a request of {len(data)} bytes has no api key and version")
    return I16.unpack_from(data, 0)[0], I16.unpack_from(data, 2)[0]


def decode_request_header(reader: BinaryReader, header_version: int) -> KafkaRequestHeader:
    """Read a request header at ``header_version`` from ``reader`` (left at the body).

    Raises:
        KafkaHeaderError (or the reader's error): truncated or malformed.
        ValueError: an unknown header version.
    """
    if header_version not in (0, 1, 2):
        raise ValueError(f"request header version {header_version} does not exist")
    api_key, api_version, correlation_id = reader.i16(), reader.i16(), reader.i32()
    client_id = reader.nullable_string() if header_version >= 1 else None
    tagged = reader.tagged_fields() if header_version >= 2 else {}
    return KafkaRequestHeader(api_key, api_version, correlation_id, client_id, tagged)


def encode_response_header(correlation_id: int, header_version: int) -> bytes:
    """A response header at ``header_version`` (0 or 1; no tagged fields).

    Raises:
        ValueError: an unknown header version.
    """
    if header_version not in (0, 1):
        raise ValueError(f"response header version {header_version} does not exist")
    return I32.pack(correlation_id) + (write_tagged_fields() if header_version == 1 else b"")


def decode_response_header(reader: BinaryReader, header_version: int) -> int:
    """The correlation id of a response header at ``header_version`` (tagged fields skipped).

    Raises:
        KafkaHeaderError (or the reader's error): truncated or malformed.
        ValueError: an unknown header version.
    """
    if header_version not in (0, 1):
        raise ValueError(f"response header version {header_version} does not exist")
    correlation_id = reader.i32()
    if header_version == 1:
        reader.tagged_fields()
    return correlation_id
