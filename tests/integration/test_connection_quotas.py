"""A broker under connection abuse keeps serving the others: ``max.connections.per.ip``,
``connections.max.idle.ms`` (a slowloris frame, one byte a second, is closed as idle), a
client that never reads its answers and ``queued.max.request.bytes`` (a request waits while
another connection holds the memory pool), on a real broker process."""

from __future__ import annotations

import asyncio

import pytest

from kafkette.client import AdminClient, LocalCluster
from kafkette.protocol.apis.api_versions import ApiVersionsRequest
from kafkette.protocol.framing import encode_request

pytestmark = pytest.mark.timeout(180)

IDLE_MS = 1500
PER_IP = 6


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    configs = {"max.connections.per.ip": PER_IP, "connections.max.idle.ms": IDLE_MS}
    with LocalCluster(num_brokers=1, data_dir=tmp_path_factory.mktemp("quotas"), broker_configs=configs) as c:
        yield c


async def _closed_by_broker(reader: asyncio.StreamReader, timeout_s: float) -> bool:
    try:
        async with asyncio.timeout(timeout_s):
            while await reader.read(4096):
                pass
        return True
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


async def _serving(cluster) -> None:
    async with AdminClient(bootstrap_servers=cluster.bootstrap_servers, request_timeout_ms=5000) as admin:
        assert isinstance(await admin.list_topics(), list)


async def test_connections_beyond_max_connections_per_ip_are_closed_and_freed_slots_serve_again(cluster):
    port = cluster.ports[1]
    opened = [await asyncio.open_connection("127.0.0.1", port) for _ in range(PER_IP)]
    extra_reader, extra_writer = await asyncio.open_connection("127.0.0.1", port)
    assert await _closed_by_broker(extra_reader, 5)
    for _, writer in opened:
        writer.close()
    extra_writer.close()
    await asyncio.sleep(0.3)
    await _serving(cluster)


async def test_an_idle_connection_and_a_slowloris_frame_are_closed_after_connections_max_idle_ms(cluster):
    port = cluster.ports[1]
    idle_reader, idle_writer = await asyncio.open_connection("127.0.0.1", port)
    slow_reader, slow_writer = await asyncio.open_connection("127.0.0.1", port)
    request = encode_request(ApiVersionsRequest(), 0, 1, "slowloris")

    async def trickle() -> None:
        for byte in request[:-1]:  # never the last byte
            slow_writer.write(bytes([byte]))
            await asyncio.sleep(0.25)

    trickler = asyncio.create_task(trickle())
    try:
        assert not await _closed_by_broker(idle_reader, IDLE_MS / 1000 / 2)  # not before the idle time
        assert await _closed_by_broker(idle_reader, 10)
        assert await _closed_by_broker(slow_reader, 10)
        await _serving(cluster)
    finally:
        trickler.cancel()
        await asyncio.gather(trickler, return_exceptions=True)
        idle_writer.close()
        slow_writer.close()


async def test_a_client_that_never_reads_its_answers_does_not_stop_the_others(cluster):
    reader, writer = await asyncio.open_connection("127.0.0.1", cluster.ports[1])
    request = encode_request(ApiVersionsRequest(), 0, 1, "never-reads")
    try:
        for _ in range(20):  # 20,000 requests, never reading an answer
            writer.write(request * 1000)
            try:
                await asyncio.wait_for(writer.drain(), 0.5)
            except (TimeoutError, ConnectionError):
                break  # the broker stopped reading: its queue for this connection is full
        await _serving(cluster)
    finally:
        writer.transport.abort()


@pytest.fixture(scope="module")
def pooled_cluster(tmp_path_factory):
    configs = {"socket.request.max.bytes": POOL_BYTES, "queued.max.request.bytes": POOL_BYTES}
    with LocalCluster(num_brokers=1, data_dir=tmp_path_factory.mktemp("pool"), broker_configs=configs) as c:
        yield c


POOL_BYTES = 1 << 20


async def test_queued_max_request_bytes_holds_requests_back_until_memory_is_given_back(pooled_cluster):
    port = pooled_cluster.ports[1]
    hog_reader, hog_writer = await asyncio.open_connection("127.0.0.1", port)
    hog_writer.write(POOL_BYTES.to_bytes(4, "big") + b"\x95")  # announces 1 MiB: the whole pool, reserved
    await hog_writer.drain()
    await asyncio.sleep(0.5)
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(encode_request(ApiVersionsRequest(), 0, 7, "waits-for-memory"))
        await writer.drain()
        with pytest.raises(TimeoutError):  # not read while the pool is empty
            await asyncio.wait_for(reader.readexactly(4), 1.5)
        hog_writer.transport.abort()  # its reservation goes back with the connection
        length = int.from_bytes(await asyncio.wait_for(reader.readexactly(4), 10), "big")
        assert 0 < length < POOL_BYTES and len(await reader.readexactly(length)) == length
        await _serving(pooled_cluster)
    finally:
        writer.close()
        hog_writer.close()
