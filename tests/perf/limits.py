"""What the machine can do, measured in the same run as the workloads.

Owns two limits: raw asyncio+uvloop loopback bandwidth between two processes (a
sender writing 64 KiB chunks through ``StreamWriter`` to a receiver process that
counts bytes and answers one byte at the end), and sequential disk write (1 MiB
``os.write`` calls into one file, to the page cache, and again with ``fdatasync`` at
the end).  ``python -m tests.perf.limits loopback-receiver --bytes N`` is the receiver
process.  Does not own the table (``bench_report``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

from kafkette.client.cli.perf import MB
from kafkette.client.cli.shared_options import run_coroutine
from kafkette.client.local_cluster import HOST

CHUNK_BYTES = 64 * 1024
DISK_WRITE_BYTES = 1024 * 1024
TIMEOUT_S = 300.0


class _CountingReceiver(asyncio.Protocol):
    """Counts received bytes; answers ``b"k"`` once ``expected`` arrived."""

    def __init__(self, expected: int, done: asyncio.Future) -> None:
        self._expected = expected
        self._received = 0
        self._done = done
        self._transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self._received += len(data)
        if self._received >= self._expected and self._transport is not None and not self._done.done():
            self._transport.write(b"k")
            self._done.set_result(None)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self._done.done():
            self._done.set_exception(ConnectionError(f"sender left after {self._received} bytes"))


async def _receive(total_bytes: int) -> None:
    done = asyncio.get_running_loop().create_future()
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: _CountingReceiver(total_bytes, done), HOST, 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    try:
        await asyncio.wait_for(done, timeout=TIMEOUT_S)
        await asyncio.sleep(0.1)  # let the answer leave before closing
    finally:
        server.close()
        await server.wait_closed()


async def _send(port: int, total_bytes: int) -> float:
    reader, writer = await asyncio.open_connection(HOST, port)
    chunk = memoryview(os.urandom(CHUNK_BYTES))
    try:
        start = time.perf_counter()
        sent = 0
        while sent < total_bytes:
            writer.write(chunk)
            sent += CHUNK_BYTES
            await writer.drain()
        await asyncio.wait_for(reader.readexactly(1), timeout=TIMEOUT_S)
        return time.perf_counter() - start
    finally:
        writer.close()
        await writer.wait_closed()


def loopback_mb_per_s(total_bytes: int) -> float:
    """Send ``total_bytes`` (rounded up to 64 KiB) to a receiver process over 127.0.0.1; MB/s (2**20).

    Raises:
        RuntimeError: the receiver did not start or failed.
    """
    total_bytes = -(-total_bytes // CHUNK_BYTES) * CHUNK_BYTES
    receiver = subprocess.Popen(
        [sys.executable, "-m", "tests.perf.limits", "loopback-receiver", "--bytes", str(total_bytes)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert receiver.stdout is not None
        line = receiver.stdout.readline().strip()
        if not line.isdigit():
            raise RuntimeError(f"loopback receiver did not start (exit {receiver.poll()})")
        elapsed = run_coroutine(_send(int(line), total_bytes))
        if receiver.wait(timeout=TIMEOUT_S) != 0:
            raise RuntimeError(f"loopback receiver exited {receiver.returncode}")
    finally:
        if receiver.poll() is None:
            receiver.kill()
            receiver.wait(timeout=TIMEOUT_S)
    return total_bytes / MB / elapsed


def disk_write_mb_per_s(directory: Path, total_bytes: int, sync: bool) -> float:
    """Write ``total_bytes`` sequentially (1 MiB writes) into a new file under ``directory``; MB/s.

    Args:
        sync: when True the time includes one ``fdatasync`` at the end (data on disk).
    """
    block = os.urandom(DISK_WRITE_BYTES)
    path = directory / f"disk-limit-{'sync' if sync else 'cache'}.bin"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        start = time.perf_counter()
        written = 0
        while written < total_bytes:
            written += os.write(fd, block)
        if sync:
            os.fdatasync(fd)
        elapsed = time.perf_counter() - start
    finally:
        os.close(fd)
        path.unlink()
    return written / MB / elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="The loopback limit's receiver process")
    parser.add_argument("command", choices=["loopback-receiver"])
    parser.add_argument("--bytes", type=int, required=True)
    args = parser.parse_args(argv)
    run_coroutine(_receive(args.bytes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
