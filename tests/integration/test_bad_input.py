"""Bad frames and bad CLI input get clear errors; the broker keeps serving."""

from __future__ import annotations

import asyncio
import os
import struct
import subprocess
import sys
from pathlib import Path

import msgpack
import pytest

from kafkette.client import AdminClient
from kafkette.protocol.apis.api_versions import ApiVersionsResponse
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import decode_response_envelope

KAFKETTE = Path(sys.executable).parent / "kafkette"


async def _exchange(port: int, payload: bytes, timeout_s: float = 5) -> bytes | None:
    """Send raw bytes; return one response frame body, or None when the broker closed."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(payload)
        await writer.drain()
        try:
            (length,) = struct.unpack(">i", await asyncio.wait_for(reader.readexactly(4), timeout_s))
            return await asyncio.wait_for(reader.readexactly(length), timeout_s)
        except asyncio.IncompleteReadError:
            return None
    finally:
        writer.close()


def _frame(body: bytes) -> bytes:
    return struct.pack(">i", len(body)) + body


async def _still_serving(cluster) -> None:
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers) as admin:
        assert isinstance(await admin.list_topics(), list)


def _first_port(cluster) -> int:
    return int(cluster.bootstrap_servers.split(",")[0].rsplit(":", 1)[1])


async def test_garbage_frame_closes_only_that_connection(shared_cluster):
    assert await _exchange(_first_port(shared_cluster), _frame(os.urandom(64) + b"\xc1")) is None
    await _still_serving(shared_cluster)


async def test_oversized_frame_closes_only_that_connection(shared_cluster):
    assert await _exchange(_first_port(shared_cluster), struct.pack(">i", 2**31 - 1) + b"x" * 16) is None
    await _still_serving(shared_cluster)


async def test_wrong_field_types_get_invalid_request(shared_cluster):
    body = msgpack.packb([18, 0, 77, "bad-client", [1, 2]])  # ApiVersions with ints for strings
    answer = await _exchange(_first_port(shared_cluster), _frame(body))
    assert answer is not None
    correlation_id, raw = decode_response_envelope(answer)
    assert correlation_id == 77
    assert ApiVersionsResponse.from_wire(raw, 0).error_code == Errors.INVALID_REQUEST
    # Metadata has no top-level error field: the broker closes that connection.
    assert (
        await _exchange(_first_port(shared_cluster), _frame(msgpack.packb([3, 1, 78, None, ["x", 1]])))
        is None
    )
    await _still_serving(shared_cluster)


async def test_unsupported_version_is_answered(shared_cluster):
    answer = await _exchange(_first_port(shared_cluster), _frame(msgpack.packb([18, 99, 5, None, []])))
    correlation_id, raw = decode_response_envelope(answer)
    assert correlation_id == 5
    assert ApiVersionsResponse.from_wire(raw, 0).error_code == Errors.UNSUPPORTED_VERSION


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(KAFKETTE), *args], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--partitions", "1", "--replication-factor", "4"], "Replication factor"),
        (["--partitions", "0", "--replication-factor", "1"], "partitions"),
        (["--replica-assignment", "1:x"], "replica-assignment"),
        (["--replica-assignment", "1:1"], "replica"),
        (["--replica-assignment", "1:2", "--partitions", "2"], "replica-assignment"),
    ],
)
def test_cli_topic_creation_errors_print_one_line_and_fail(shared_cluster, args, message):
    result = _cli(
        "topics", "create", "cli-bad", *args, "--bootstrap-server", shared_cluster.bootstrap_servers
    )
    assert result.returncode != 0
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert message.lower() in lines[0].lower(), lines[0]
