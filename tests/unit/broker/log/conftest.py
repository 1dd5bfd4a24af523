"""Shared helpers for the log layer tests: batches built with protocol.record_batch."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from kafkette.broker.log.log_config import LogConfig
from kafkette.protocol.record_batch import build_batch


def _make_batch(
    records: int = 1,
    *,
    value_bytes: int = 10,
    base_offset: int = 0,
    leader_epoch: int = -1,
    timestamp_ms: int = 1_000,
) -> bytes:
    return build_batch(
        [(b"k%d" % i, b"v" * value_bytes, None, timestamp_ms + i) for i in range(records)],
        base_offset=base_offset,
        partition_leader_epoch=leader_epoch,
    )


@pytest.fixture
def make_batch() -> Callable[..., bytes]:
    """``make_batch(records=1, value_bytes=10, base_offset=0, leader_epoch=-1)`` -> batch bytes."""
    return _make_batch


@pytest.fixture
def small_config() -> LogConfig:
    """A config with small segments and an index entry for every append."""
    return LogConfig(
        segment_bytes=1024, index_interval_bytes=0, segment_index_bytes=4096, max_message_bytes=100_000
    )


def _flip_byte(path: Path, index: int, mask: int) -> bytearray:
    data = bytearray(path.read_bytes())
    data[index] ^= mask
    path.write_bytes(data)
    return data


@pytest.fixture
def flip_byte() -> Callable[[Path, int, int], bytearray]:
    """``flip_byte(path, index, mask)``: XOR one byte of a file in place (a CRC failure).

    Returns the file's new bytes.
    """
    return _flip_byte
