"""Compression codecs for record batch payloads, under Kafka's codec ids and names.

Owns: the codec ids stored in bits 0-2 of a batch's attributes (Kafka's
``CompressionType``: 0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd), the maps between
those ids and Kafka's names (producer ``compression.type`` and topic
``compression.type``, which adds ``producer`` and ``uncompressed``), and
``compress``/``decompress`` of one payload through well-kept libraries: gzip from
the standard library, ``lz4.frame``, ``zstandard`` and ``cramjam``'s snappy.

Two framings, one per record encoding of a batch (``kafkette.protocol.record_batch``):

    codec   compress / decompress              compress_kafka / decompress_kafka
            (Kafkette's msgpack records)       (Kafka's varint records)
    gzip    one gzip member                    the same (decompress: any members)
    snappy  the snappy framing format          xerial's stream framing (below); decompress
            (chunks with CRC32C checksums)     also takes one raw snappy block, as
                                               librdkafka may send and Java reads
    lz4     an LZ4 frame, content checksum     an LZ4 frame of independent blocks, no
                                               content size or checksum (Java's
                                               ``KafkaLZ4BlockInputStream`` reads no linked
                                               blocks); decompress: any one LZ4 frame
    zstd    one zstd frame, with checksum      one zstd frame (decompress: one or more)

xerial's snappy stream (``org.xerial.snappy.SnappyOutputStream``, Kafka's Java codec):
the 8-byte magic (byte 0x82, ``SNAPPY``, byte 0), int32 version 1, int32 compatible version 1, then
blocks of an int32 length (big-endian) and one raw snappy block of at most
``XERIAL_BLOCK_BYTES`` uncompressed bytes.

Also owns ``CorruptRecordError`` (re-exported by ``kafkette.protocol.record_batch``, which
imports this module): a corrupt compressed payload is a corrupt batch.

Does not own the batch layout, which bytes get compressed (``record_batch``), nor
when the broker recompresses (``kafkette.broker.log.log_validator``).  Pure code, no I/O.

Kafka concept: ``org.apache.kafka.common.record.CompressionType`` and its codecs.
"""

from __future__ import annotations

import gzip
import struct
import zlib

import cramjam
import lz4.frame
import zstandard

from kafkette.protocol.errors import Errors, UnsupportedCompressionTypeError

COMPRESSION_NONE = 0
COMPRESSION_GZIP = 1
COMPRESSION_SNAPPY = 2
COMPRESSION_LZ4 = 3
COMPRESSION_ZSTD = 4

CODEC_BY_NAME: dict[str, int] = {
    "none": COMPRESSION_NONE,
    "gzip": COMPRESSION_GZIP,
    "snappy": COMPRESSION_SNAPPY,
    "lz4": COMPRESSION_LZ4,
    "zstd": COMPRESSION_ZSTD,
}
"""Producer ``compression.type`` names -> codec id (Kafka's names)."""

NAME_BY_CODEC: dict[int, str] = {codec: name for name, codec in CODEC_BY_NAME.items()}
"""Codec id -> Kafka's name."""

TOPIC_COMPRESSION_PRODUCER = "producer"
"""Topic ``compression.type`` value that keeps each batch as the producer sent it."""

GZIP_LEVEL = 6  # java.util.zip.Deflater's default, as Kafka's gzip codec
ZSTD_LEVEL = 3  # zstd's default level, as Kafka's

XERIAL_MAGIC = b"\x82SNAPPY\x00"
XERIAL_HEADER = XERIAL_MAGIC + struct.pack(">ii", 1, 1)  # magic, version 1, compatible version 1
XERIAL_BLOCK_BYTES = 32 * 1024  # uncompressed bytes per block: SnappyOutputStream's default, as Kafka's
_BLOCK_LENGTH = struct.Struct(">i")
_DECOMPRESS_ERRORS = (
    OSError,
    EOFError,
    zlib.error,
    RuntimeError,
    ValueError,
    zstandard.ZstdError,
    cramjam.DecompressionError,
)


class CorruptRecordError(ValueError):
    """A batch is malformed: bad length, bad magic, a CRC mismatch, or a compressed
    payload that does not decompress (Kafka's ``CorruptRecordException``, wire error
    CORRUPT_MESSAGE)."""

    errno = Errors.CORRUPT_MESSAGE


def codec_for_name(name: str) -> int:
    """Codec id for a producer ``compression_type`` name.

    Args:
        name: one of ``none``, ``gzip``, ``snappy``, ``lz4``, ``zstd`` (case-insensitive).

    Returns:
        The codec id (``COMPRESSION_*``).

    Raises:
        ValueError: an unknown name; the message lists the valid ones.
    """
    codec = CODEC_BY_NAME.get(name.lower()) if isinstance(name, str) else None
    if codec is None:
        raise ValueError(f"Invalid compression type {name!r}: expected one of {', '.join(CODEC_BY_NAME)}")
    return codec


def topic_codec(compression_type: str) -> int | None:
    """Codec the broker stores a topic's batches with (topic ``compression.type``).

    Args:
        compression_type: ``producer``, ``uncompressed`` or a codec name.

    Returns:
        None for ``producer`` (keep the producer's codec), else the codec id
        (``uncompressed`` is ``COMPRESSION_NONE``).

    Raises:
        ValueError: an unknown name.
    """
    if compression_type == TOPIC_COMPRESSION_PRODUCER:
        return None
    if compression_type == "uncompressed":
        return COMPRESSION_NONE
    return codec_for_name(compression_type)


def check_codec(codec: int) -> int:
    """Return ``codec`` when it is a known codec id.

    Raises:
        UnsupportedCompressionTypeError: ids 5-7 (or any other unknown id); Kafka
            error 76 UNSUPPORTED_COMPRESSION_TYPE.
    """
    if codec not in NAME_BY_CODEC:
        raise UnsupportedCompressionTypeError(
            f"Unknown compression codec id {codec}: expected one of "
            + ", ".join(f"{c} ({n})" for c, n in NAME_BY_CODEC.items())
        )
    return codec


def compress(codec: int, data: bytes | bytearray | memoryview, level: int | None = None) -> bytes:
    """Compress one payload with ``codec``.

    Args:
        codec: a ``COMPRESSION_*`` id; ``COMPRESSION_NONE`` returns the bytes unchanged.
        data: the uncompressed payload (may be empty).
        level: the codec's level (a topic's ``compression.gzip.level``, ``compression.lz4.level``
            or ``compression.zstd.level``, KIP-390); None or -1 for the codec's default.

    Returns:
        The compressed bytes (a gzip member, an LZ4 frame, a zstd frame or a snappy
        framed stream).

    Raises:
        UnsupportedCompressionTypeError: an unknown codec id.
    """
    check_codec(codec)
    if codec == COMPRESSION_NONE:
        return bytes(data)
    if codec == COMPRESSION_GZIP:
        return gzip.compress(data, compresslevel=_gzip_level(level), mtime=0)
    if codec == COMPRESSION_LZ4:
        return lz4.frame.compress(data, content_checksum=True, compression_level=_lz4_level(level))
    if codec == COMPRESSION_ZSTD:
        return zstandard.ZstdCompressor(level=_zstd_level(level), write_checksum=True).compress(data)
    return bytes(cramjam.snappy.compress(bytes(data)))


def _gzip_level(level: int | None) -> int:
    return GZIP_LEVEL if level is None or level == -1 else level


def _lz4_level(level: int | None) -> int:
    # Kafka's LZ4 levels run 1-17 (9 its default); the lz4 frame library's run 0-16 (16 its maximum)
    return 0 if level is None else min(level, 16)


def _zstd_level(level: int | None) -> int:
    return ZSTD_LEVEL if level is None else level


def decompress(codec: int, data: bytes | bytearray | memoryview) -> bytes:
    """Decompress one payload written by ``compress(codec, ...)``.

    Args:
        codec: a ``COMPRESSION_*`` id; ``COMPRESSION_NONE`` returns the bytes unchanged.
        data: the compressed payload.

    Returns:
        The uncompressed bytes.

    Raises:
        CorruptRecordError: the payload is not valid for the codec (bad magic,
            checksum, truncated frame, trailing garbage); the message names the codec.
        UnsupportedCompressionTypeError: an unknown codec id.
    """
    return _decompress(codec, data, kafka_framing=False)


def compress_kafka(codec: int, data: bytes | bytearray | memoryview, level: int | None = None) -> bytes:
    """Compress one payload with ``codec`` in Kafka's framing (the records of a batch in Kafka's
    varint encoding, as Kafka's clients and brokers read them; see the module docstring).

    Args:
        codec: a ``COMPRESSION_*`` id; ``COMPRESSION_NONE`` returns the bytes unchanged.
        data: the uncompressed payload (may be empty).
        level: the codec's level (KIP-390), None or -1 for the codec's default (as ``compress``).

    Returns:
        The compressed bytes: a gzip member, xerial's snappy stream, an LZ4 frame of
        independent blocks, or a zstd frame.

    Raises:
        UnsupportedCompressionTypeError: an unknown codec id.

    Kafka concept: ``CompressionType.wrapForOutput`` (``GzipOutputStream``,
    ``SnappyOutputStream``, ``KafkaLZ4BlockOutputStream``, ``ZstdOutputStream``).
    """
    check_codec(codec)
    if codec == COMPRESSION_NONE:
        return bytes(data)
    if codec == COMPRESSION_GZIP:
        return gzip.compress(data, compresslevel=_gzip_level(level), mtime=0)
    if codec == COMPRESSION_LZ4:
        return lz4.frame.compress(
            data,
            block_linked=False,
            content_checksum=False,
            store_size=False,
            compression_level=_lz4_level(level),
        )
    if codec == COMPRESSION_ZSTD:
        return zstandard.ZstdCompressor(level=_zstd_level(level)).compress(data)
    return _xerial_compress(data)


def decompress_kafka(codec: int, data: bytes | bytearray | memoryview) -> bytes:
    """Decompress one payload in Kafka's framing (from ``compress_kafka`` or a Kafka client).

    Snappy takes xerial's stream (recognised by its magic) or one raw snappy block; zstd
    takes one or more frames; gzip one or more members; lz4 exactly one frame.

    Args:
        codec: a ``COMPRESSION_*`` id; ``COMPRESSION_NONE`` returns the bytes unchanged.
        data: the compressed payload.

    Returns:
        The uncompressed bytes.

    Raises:
        CorruptRecordError: the payload is not valid for the codec (bad magic or version,
            a truncated frame or block, a checksum mismatch, trailing garbage); the message
            names the codec.
        UnsupportedCompressionTypeError: an unknown codec id.

    Kafka concept: ``CompressionType.wrapForInput``.
    """
    return _decompress(codec, data, kafka_framing=True)


def _decompress(codec: int, data: bytes | bytearray | memoryview, kafka_framing: bool) -> bytes:
    check_codec(codec)
    if codec == COMPRESSION_NONE:
        return bytes(data)
    try:
        if codec == COMPRESSION_GZIP:
            return gzip.decompress(data)
        if codec == COMPRESSION_LZ4:
            return _lz4_decompress(data)
        if codec == COMPRESSION_ZSTD:
            return _zstd_decompress(data, many_frames=kafka_framing)
        if kafka_framing:
            return _snappy_kafka_decompress(data)
        return bytes(cramjam.snappy.decompress(bytes(data)))
    except CorruptRecordError:
        raise
    except _DECOMPRESS_ERRORS as exc:
        framing = " in Kafka's framing" if kafka_framing else ""
        raise CorruptRecordError(
            f"{NAME_BY_CODEC[codec]} payload of {len(data)} bytes{framing} does not decompress: {exc}"
        ) from exc


def _xerial_compress(data: bytes | bytearray | memoryview) -> bytes:
    view = memoryview(data)
    parts = [XERIAL_HEADER]
    compress_raw = cramjam.snappy.compress_raw
    for start in range(0, len(view), XERIAL_BLOCK_BYTES):
        block = compress_raw(view[start : start + XERIAL_BLOCK_BYTES])
        parts.append(_BLOCK_LENGTH.pack(len(block)))
        parts.append(bytes(block))
    return b"".join(parts)


def _snappy_kafka_decompress(data: bytes | bytearray | memoryview) -> bytes:
    view = memoryview(data)
    if view[: len(XERIAL_MAGIC)] != XERIAL_MAGIC:
        return bytes(cramjam.snappy.decompress_raw(view))
    if len(view) < len(XERIAL_HEADER):
        raise CorruptRecordError(f"snappy payload of {len(view)} bytes has a truncated xerial header")
    version, compatible = struct.unpack_from(">ii", view, len(XERIAL_MAGIC))
    if compatible > 1:  # a reader of version 1 reads what says it is compatible with 1
        raise CorruptRecordError(
            f"xerial snappy stream version {version} needs a reader of version {compatible}"
        )
    parts = []
    pos, end = len(XERIAL_HEADER), len(view)
    decompress_raw = cramjam.snappy.decompress_raw
    while pos < end:
        if end - pos < 4:
            raise CorruptRecordError(f"xerial snappy stream ends inside a block length at byte {pos}")
        (length,) = _BLOCK_LENGTH.unpack_from(view, pos)
        pos += 4
        if length < 0 or pos + length > end:
            raise CorruptRecordError(
                f"xerial snappy block of {length} bytes at byte {pos} overruns {end} bytes"
            )
        parts.append(bytes(decompress_raw(view[pos : pos + length])))
        pos += length
    return b"".join(parts)


def _lz4_decompress(data: bytes | bytearray | memoryview) -> bytes:
    decompressor = lz4.frame.LZ4FrameDecompressor()
    out = decompressor.decompress(data)
    if not decompressor.eof or decompressor.unused_data:
        raise CorruptRecordError(f"lz4 payload of {len(data)} bytes is not exactly one whole LZ4 frame")
    return out


def _zstd_decompress(data: bytes | bytearray | memoryview, many_frames: bool = False) -> bytes:
    decompressor = zstandard.ZstdDecompressor().decompressobj()
    out = decompressor.decompress(data)
    if many_frames:
        parts = [out]
        while decompressor.eof and decompressor.unused_data:
            rest = decompressor.unused_data
            decompressor = zstandard.ZstdDecompressor().decompressobj()
            parts.append(decompressor.decompress(rest))
        out = b"".join(parts)
    if not decompressor.eof or decompressor.unused_data:
        whole = "whole zstd frames" if many_frames else "exactly one whole zstd frame"
        raise CorruptRecordError(f"zstd payload of {len(data)} bytes is not {whole}")
    return out
