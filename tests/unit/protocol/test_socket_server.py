"""SocketServer: ordered responses on a pipelined connection and isolation of bad input.

The listener is the unit under test, so these tests use real loopback sockets (port 0)
with raw frames; the request handler is a stub.
"""

from __future__ import annotations

import asyncio
import errno

import msgpack
import pytest

from kafkette.common.network.frame_stream import FrameStream
from kafkette.common.network.socket_server import CLOSE_CONNECTION, Connection, NoOpResponse, SocketServer
from kafkette.protocol.api_keys import ApiKey
from kafkette.protocol.apis.api_versions import ApiVersionsRequest, ApiVersionsResponse
from kafkette.protocol.apis.produce import ProduceRequest
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import LENGTH, decode_response_envelope, encode_request, frame
from tests.unit.protocol.frame_stream_fakes import RecordingTransport, feed

MAX_REQUEST_BYTES = 4096
WAIT_S = 5.0
STUB_VERSION = 1
"""The ApiVersions version the stub answers at (its ``throttle_time_ms`` is Kafka's v1+)."""


class StubHandler:
    """Answers ApiVersions with ``throttle_time_ms`` = the correlation id.

    ``hold_first`` makes the first request wait until a later one has been handled.
    ``fail_on`` raises for that correlation id.
    """

    def __init__(self) -> None:
        self.hold_first = False
        self.fail_on: int | None = None
        self.close_on: int | None = None
        self.no_answer_on: dict[int, int] = {}  # correlation id -> its NoOpResponse's throttle time (ms)
        self.handled: list[int] = []
        self._later_handled = asyncio.Event()

    async def __call__(self, header, spec, request):
        if header.correlation_id == self.fail_on:
            raise RuntimeError("handler failure")
        if header.correlation_id == self.close_on:
            return CLOSE_CONNECTION
        if header.correlation_id in self.no_answer_on:
            self.handled.append(header.correlation_id)
            return NoOpResponse(self.no_answer_on[header.correlation_id])
        if self.hold_first and not self.handled and header.correlation_id == 1:
            self.handled.append(-1)  # mark the first request as started
            await asyncio.wait_for(self._later_handled.wait(), WAIT_S)
        else:
            self._later_handled.set()
        self.handled.append(header.correlation_id)
        return ApiVersionsResponse(error_code=0, api_keys=[], throttle_time_ms=header.correlation_id)


@pytest.fixture
def handler():
    return StubHandler()


@pytest.fixture
async def server(handler):
    server = SocketServer(
        "127.0.0.1", 0, handler, max_request_bytes=MAX_REQUEST_BYTES, max_queued_requests=16, broker_id=1
    )
    await server.start()
    yield server
    await server.stop()


class Client:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    @classmethod
    async def connect(cls, server: SocketServer) -> Client:
        return cls(*await asyncio.open_connection("127.0.0.1", server.bound_port))

    async def send_raw(self, data: bytes) -> None:
        self.writer.write(data)
        await self.writer.drain()

    async def send(self, correlation_id: int, request=None) -> None:
        await self.send_raw(
            encode_request(request or ApiVersionsRequest(), STUB_VERSION, correlation_id, "test")
        )

    async def receive(self, version: int = STUB_VERSION) -> tuple[int, ApiVersionsResponse]:
        async with asyncio.timeout(WAIT_S):
            (length,) = LENGTH.unpack(await self.reader.readexactly(LENGTH.size))
            correlation_id, body = decode_response_envelope(await self.reader.readexactly(length))
        return correlation_id, ApiVersionsResponse.from_wire(body, version)

    async def closed_by_server(self) -> bool:
        async with asyncio.timeout(WAIT_S):
            return await self.reader.read(1) == b""

    async def close(self) -> None:
        self.writer.close()
        try:
            await self.writer.wait_closed()
        except ConnectionError:
            pass


def raw_request(api_key: int, api_version: int, correlation_id: int, body) -> bytes:
    return frame(msgpack.packb([api_key, api_version, correlation_id, "test", body], use_bin_type=True))


async def test_responses_come_back_in_request_order_when_the_first_handler_is_slower(server, handler):
    handler.hold_first = True
    client = await Client.connect(server)
    await client.send(1)
    await client.send(2)
    first = await client.receive()
    second = await client.receive()
    assert handler.handled == [-1, 2, 1], "the second request was handled before the first finished"
    assert [first[0], second[0]] == [1, 2]
    assert [first[1].throttle_time_ms, second[1].throttle_time_ms] == [1, 2]
    await client.close()


async def test_a_client_bound_by_a_quota_has_its_requests_handled_one_at_a_time():
    """Kafka mutes a channel while one of its requests is handled; a quota's client is served so
    here from its first request: the second waits until the held first one is answered, while
    another client's pipelined requests are handled side by side."""
    gate = asyncio.Event()
    started: list[tuple[str, int]] = []

    async def handle(header, spec, request):
        started.append((header.client_id, header.correlation_id))
        if header.correlation_id == 1:
            await asyncio.wait_for(gate.wait(), WAIT_S)
        return ApiVersionsResponse(error_code=0, api_keys=[], throttle_time_ms=0)

    server = SocketServer(
        "127.0.0.1",
        0,
        handle,
        max_request_bytes=MAX_REQUEST_BYTES,
        max_queued_requests=16,
        broker_id=1,
        one_at_a_time=lambda header: header.client_id == "bound",
    )
    await server.start()
    try:
        for client_id in ("bound", "free"):
            client = await Client.connect(server)
            for correlation_id in (1, 2):
                await client.send_raw(
                    encode_request(ApiVersionsRequest(), STUB_VERSION, correlation_id, client_id)
                )
            await asyncio.sleep(0.2)
            held = [c for who, c in started if who == client_id]
            assert held == ([1] if client_id == "bound" else [1, 2]), started
            gate.set()
            assert [(await client.receive())[0] for _ in range(2)] == [1, 2]
            assert [c for who, c in started if who == client_id] == [1, 2]
            gate.clear()
            await client.close()
    finally:
        await server.stop()


async def test_a_no_op_response_answers_nothing_and_mutes_the_connection(server, handler):
    """An acks=0 Produce over its quota (``NoOpResponse``): no answer, and the next request is
    read only once its throttle time is over."""
    handler.no_answer_on = {1: 300}
    client = await Client.connect(server)
    await client.send(1)
    await asyncio.sleep(0.05)  # handled: the connection is muted
    loop = asyncio.get_running_loop()
    started = loop.time()
    await client.send(2)
    correlation_id, _ = await client.receive()
    assert correlation_id == 2  # nothing answered the first
    assert loop.time() - started >= 0.2  # the muted connection held the second back
    assert handler.handled == [1, 2]
    await client.close()


async def test_garbage_frame_closes_only_that_connection(server):
    bad = await Client.connect(server)
    good = await Client.connect(server)
    await bad.send_raw(frame(b"\xc1\xc1 not msgpack"))
    assert await bad.closed_by_server()
    await good.send(5)
    assert (await good.receive())[0] == 5
    await bad.close()
    await good.close()


async def test_frame_with_a_bad_header_closes_the_connection(server):
    client = await Client.connect(server)
    await client.send_raw(frame(msgpack.packb(["not", "a", "header"])))
    assert await client.closed_by_server()
    await client.close()


async def test_oversized_frame_closes_the_connection_before_reading_the_body(server):
    client = await Client.connect(server)
    await client.send_raw(LENGTH.pack(MAX_REQUEST_BYTES + 1) + b"\x00" * 16)
    assert await client.closed_by_server()
    await client.close()


async def test_frame_of_exactly_max_request_bytes_is_accepted(server):
    client = await Client.connect(server)
    body = ["kafkette-python", "0"]
    overhead = len(msgpack.packb([int(ApiKey.API_VERSIONS), 0, 3, "", body], use_bin_type=True))
    client_id = "x" * (MAX_REQUEST_BYTES - overhead - 2)  # a str of this size has a 3-byte header, not 1
    payload = msgpack.packb([int(ApiKey.API_VERSIONS), 0, 3, client_id, body], use_bin_type=True)
    assert len(payload) == MAX_REQUEST_BYTES
    await client.send_raw(frame(payload))
    assert (await client.receive(0))[0] == 3
    await client.close()


async def test_schema_error_on_an_api_with_a_top_level_error_code_is_answered_invalid_request(
    server, handler
):
    client = await Client.connect(server)
    await client.send_raw(raw_request(int(ApiKey.API_VERSIONS), 0, 7, [123, "0"]))
    correlation_id, response = await client.receive(0)
    assert (correlation_id, response.error_code) == (7, Errors.INVALID_REQUEST)
    assert handler.handled == []
    await client.send(8)
    assert (await client.receive())[0] == 8, "the connection stays usable"
    await client.close()


async def test_schema_error_on_an_api_without_a_top_level_error_code_closes_the_connection(server):
    client = await Client.connect(server)
    assert "error_code" not in ProduceRequest._field_names
    await client.send_raw(raw_request(int(ApiKey.PRODUCE), 0, 7, ["wrong"]))
    assert await client.closed_by_server()
    await client.close()


async def test_unsupported_version_is_answered_unsupported_version(server):
    client = await Client.connect(server)
    await client.send_raw(raw_request(int(ApiKey.API_VERSIONS), 99, 4, ["kafkette-python", "0"]))
    correlation_id, response = await client.receive(0)
    assert (correlation_id, response.error_code) == (4, Errors.UNSUPPORTED_VERSION)
    await client.close()


async def test_unknown_api_key_closes_the_connection(server):
    client = await Client.connect(server)
    await client.send_raw(raw_request(999, 0, 4, []))
    assert await client.closed_by_server()
    await client.close()


async def test_handler_failure_is_answered_unknown_server_error_in_order(server, handler):
    handler.fail_on = 1
    client = await Client.connect(server)
    await client.send(1)
    await client.send(2)
    first = await client.receive()
    second = await client.receive()
    assert (first[0], first[1].error_code) == (1, Errors.UNKNOWN_SERVER_ERROR)
    assert (second[0], second[1].error_code) == (2, Errors.NONE)
    await client.close()


async def test_a_handler_answering_close_connection_closes_it_after_the_answers_before(server, handler):
    handler.close_on = 2
    client = await Client.connect(server)
    await client.send(1)
    await client.send(2)
    assert (await client.receive())[0] == 1
    assert await client.closed_by_server()
    await client.close()


async def test_stop_closes_open_connections(handler):
    server = SocketServer(
        "127.0.0.1", 0, handler, max_request_bytes=MAX_REQUEST_BYTES, max_queued_requests=16, broker_id=1
    )
    await server.start()
    client = await Client.connect(server)
    await client.send(1)
    await client.receive()
    async with asyncio.timeout(WAIT_S):
        await server.stop()
    assert await client.closed_by_server()
    await client.close()


async def test_answers_ready_together_leave_in_one_write_in_request_order(handler):
    server = SocketServer(
        "127.0.0.1", 0, handler, max_request_bytes=MAX_REQUEST_BYTES, max_queued_requests=16, broker_id=1
    )
    transport = RecordingTransport()
    stream = FrameStream(MAX_REQUEST_BYTES)
    stream.connection_made(transport)
    feed(
        stream,
        b"".join(
            encode_request(ApiVersionsRequest(), 0, correlation_id, "test") for correlation_id in range(1, 6)
        ),
    )
    stream.eof_received()
    await asyncio.wait_for(Connection(server, stream).run(), WAIT_S)
    assert len(transport.calls) == 1
    data, ids = transport.calls[0], []
    while data:
        (length,) = LENGTH.unpack_from(data)
        ids.append(decode_response_envelope(data[4 : 4 + length])[0])
        data = data[4 + length :]
    assert ids == [1, 2, 3, 4, 5]


async def _limited_server(handler, **limits) -> SocketServer:
    server = SocketServer(
        "127.0.0.1",
        0,
        handler,
        max_request_bytes=MAX_REQUEST_BYTES,
        max_queued_requests=16,
        broker_id=1,
        **limits,
    )
    await server.start()
    return server


async def test_max_connections_per_ip_closes_the_extra_connection_as_it_is_accepted(handler):
    server = await _limited_server(handler, max_connections_per_ip=2)
    try:
        first, second = await Client.connect(server), await Client.connect(server)
        for client in (first, second):
            await client.send(1)
            assert (await client.receive())[0] == 1
        third = await Client.connect(server)
        assert await third.closed_by_server()
        assert server.refused_connections == 1 and server.connection_count == 2
        await first.close()
        await asyncio.wait_for(_until(lambda: server.connection_count == 1), WAIT_S)
        fourth = await Client.connect(server)  # a slot came free
        await fourth.send(4)
        assert (await fourth.receive())[0] == 4
        for client in (second, third, fourth):
            await client.close()
    finally:
        await server.stop()


async def test_max_connections_closes_connections_beyond_the_listener_limit(handler):
    server = await _limited_server(handler, max_connections=1)
    try:
        kept = await Client.connect(server)
        await kept.send(1)
        assert (await kept.receive())[0] == 1
        extra = await Client.connect(server)
        assert await extra.closed_by_server()
        await kept.send(2)
        assert (await kept.receive())[0] == 2  # the kept connection is served on
        await kept.close()
        await extra.close()
    finally:
        await server.stop()


async def test_connections_max_idle_ms_closes_an_idle_connection_but_not_one_waiting_for_an_answer(handler):
    server = await _limited_server(handler, connections_max_idle_ms=200)
    try:
        idle = await Client.connect(server)
        await idle.send(1)
        assert (await idle.receive())[0] == 1
        assert await idle.closed_by_server()  # no request for 200 ms
        await idle.close()
    finally:
        await server.stop()
    held = StubHandler()
    held.hold_first = True  # the first request is in flight longer than the idle time
    server = await _limited_server(held, connections_max_idle_ms=200)
    try:
        waiting = await Client.connect(server)
        await waiting.send(1)
        await asyncio.sleep(0.5)
        await waiting.send(2)  # lets the first finish
        assert [(await waiting.receive())[0], (await waiting.receive())[0]] == [1, 2]
        await waiting.close()
    finally:
        await server.stop()


async def _until(predicate) -> None:
    while not predicate():
        await asyncio.sleep(0.01)


async def test_a_busy_port_is_named_with_its_address(server, handler):
    taken = SocketServer(
        "127.0.0.1",
        server.bound_port,
        handler,
        max_request_bytes=MAX_REQUEST_BYTES,
        max_queued_requests=16,
        broker_id=2,
    )
    with pytest.raises(OSError) as raised:
        await taken.start()
    assert str(raised.value) == f"cannot listen on 127.0.0.1:{server.bound_port}: address already in use"
    assert raised.value.errno == errno.EADDRINUSE


async def test_a_failed_request_on_the_kafka_listener_is_answered_item_by_item_not_closed(handler):
    """A handler raising on the Kafka listener for an API with no top-level error code (ListOffsets)
    is answered as Kafka's ``ListOffsetsRequest.getErrorResponse``: every partition with the error,
    offset and timestamp -1; the connection stays open."""
    import struct

    from kafkette.protocol.apis.list_offsets import ListOffsetsPartition, ListOffsetsRequest, ListOffsetsTopic
    from kafkette.protocol.kafka_codec import KafkaWireCodec
    from kafkette.protocol.kafka_header import (
        KafkaRequestHeader,
        encode_request_header,
        request_header_version,
    )

    handler.fail_on = 9
    server = SocketServer(
        "127.0.0.1",
        0,
        handler,
        max_request_bytes=MAX_REQUEST_BYTES,
        max_queued_requests=16,
        broker_id=1,
        codec=KafkaWireCodec(),
    )
    await server.start()
    try:
        request = ListOffsetsRequest(
            replica_id=-1,
            isolation_level=0,
            topics=[
                ListOffsetsTopic(
                    name="t", partitions=[ListOffsetsPartition(partition_index=0, timestamp=-1)]
                ),
                ListOffsetsTopic(
                    name="u", partitions=[ListOffsetsPartition(partition_index=3, timestamp=-2)]
                ),
            ],
        )
        head = encode_request_header(KafkaRequestHeader(2, 5, 9, "test"), request_header_version(False))
        payload = head + b"".join(bytes(p) for p in request.encode(5, False))
        client = await Client.connect(server)
        await client.send_raw(LENGTH.pack(len(payload)) + payload)
        async with asyncio.timeout(WAIT_S):
            (length,) = LENGTH.unpack(await client.reader.readexactly(LENGTH.size))
            body = await client.reader.readexactly(length)
        correlation_id, _throttle, topic_count = struct.unpack_from(">iii", body)
        pos, answers = 12, []
        for _ in range(topic_count):
            (name_length,) = struct.unpack_from(">h", body, pos)
            name = body[pos + 2 : pos + 2 + name_length].decode()
            pos += 2 + name_length
            (partition_count,) = struct.unpack_from(">i", body, pos)
            pos += 4
            for _ in range(partition_count):
                answers.append((name, *struct.unpack_from(">ihqqi", body, pos)))
                pos += 26
        assert correlation_id == 9 and pos == len(body)
        assert answers == [
            ("t", 0, Errors.UNKNOWN_SERVER_ERROR, -1, -1, -1),
            ("u", 3, Errors.UNKNOWN_SERVER_ERROR, -1, -1, -1),
        ]
        await client.send_raw(LENGTH.pack(len(payload)) + payload)  # the connection is still open
        async with asyncio.timeout(WAIT_S):
            assert await client.reader.read(4) != b""
        await client.close()
    finally:
        await server.stop()


async def _kafka_answer_to_a_failed_describe_cluster(failure: BaseException):
    """The DescribeCluster v0 answer of the Kafka listener whose handler raised ``failure``."""
    from kafkette.protocol.api_keys import KAFKA_APIS
    from kafkette.protocol.kafka_binary import BinaryReader
    from kafkette.protocol.kafka_codec import KafkaWireCodec
    from kafkette.protocol.kafka_header import (
        KafkaRequestHeader,
        decode_response_header,
        encode_request_header,
        request_header_version,
    )

    async def failing(header, spec, request):
        raise failure

    api = KAFKA_APIS[ApiKey.DESCRIBE_CLUSTER]
    server = SocketServer(
        "127.0.0.1",
        0,
        failing,
        max_request_bytes=MAX_REQUEST_BYTES,
        max_queued_requests=16,
        broker_id=1,
        codec=KafkaWireCodec(),
    )
    await server.start()
    try:
        head = encode_request_header(
            KafkaRequestHeader(int(ApiKey.DESCRIBE_CLUSTER), 0, 4, "test"), request_header_version(True)
        )
        payload = head + b"".join(bytes(p) for p in api.request().encode(0, True))
        client = await Client.connect(server)
        await client.send_raw(LENGTH.pack(len(payload)) + payload)
        async with asyncio.timeout(WAIT_S):
            (length,) = LENGTH.unpack(await client.reader.readexactly(LENGTH.size))
            reader = BinaryReader(await client.reader.readexactly(length))
        await client.close()
        assert decode_response_header(reader, 1) == 4
        return api.response.decode(b"", 0, True, reader)
    finally:
        await server.stop()


async def test_a_request_failed_as_a_whole_carries_the_failures_message_as_kafkas_api_error_keeps_it():
    """Kafka's ``KafkaApis.handle`` answers a request that threw with ``getErrorResponse(e)``; for
    DescribeCluster that writes ``ApiError.fromThrowable(e).message()``: the exception's own message,
    null when it is the error's default one or the error is UNKNOWN_SERVER_ERROR."""
    from kafkette.protocol.errors import InvalidRequestError, NotControllerError

    answer = await _kafka_answer_to_a_failed_describe_cluster(InvalidRequestError("no such endpoint"))
    assert (answer.error_code, answer.error_message) == (Errors.INVALID_REQUEST, "no such endpoint")
    answer = await _kafka_answer_to_a_failed_describe_cluster(NotControllerError())
    assert (answer.error_code, answer.error_message) == (Errors.NOT_CONTROLLER, None)
    answer = await _kafka_answer_to_a_failed_describe_cluster(RuntimeError("internal detail"))
    assert (answer.error_code, answer.error_message) == (Errors.UNKNOWN_SERVER_ERROR, None)
