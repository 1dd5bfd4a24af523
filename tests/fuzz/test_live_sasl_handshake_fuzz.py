"""SaslHandshake (key 17, v0-v1) and SaslAuthenticate (key 36, v0-v2) frames, valid and malformed,
sent to a SASL_PLAINTEXT listener (PLAIN and SCRAM-SHA-256/512) of Apache Kafka 4.3.1 and of
Kafkette configured alike: on each connection Kafkette answers what Kafka answers (error code,
error message, mechanisms) or closes / waits where Kafka does, and both keep serving a good SASL
client (librdkafka logged in with PLAIN) afterwards.

The exchanges come from a seeded ``random.Random`` (the seed is printed; set
``KAFKETTE_FUZZ_SEED`` to replay): valid logins, truncated frames, wrong mechanism names, garbage
and mutated auth bytes, SaslAuthenticate (or Metadata, or a second ApiVersions) before
SaslHandshake, a second SaslHandshake, and auth bytes over ``sasl.server.max.receive.size``.
SaslHandshake v0 is sent only with a mechanism the listener refuses: with an enabled one Kafka
goes on to unwrapped SASL tokens (pre-KIP-152), which Kafkette refuses (UNSUPPORTED_VERSION).
``KAFKETTE_SASL_FUZZ_EXCHANGES`` sets how many (60 unless set).
"""

from __future__ import annotations

import asyncio
import os
import random
import struct
from collections.abc import Iterator

import pytest
from confluent_kafka.admin import AdminClient

from kafkette.client import LocalCluster
from kafkette.protocol.api_keys import KAFKA_APIS
from kafkette.protocol.kafka_binary import BinaryReader
from kafkette.protocol.kafka_header import (
    KafkaRequestHeader,
    decode_response_header,
    encode_request_header,
    request_header_version,
    response_header_version,
)
from tests.conformance.run import PEER_HEAP_MB
from tests.interop.test_sasl_scram import MECHANISMS, _listener_configs
from tests.peers.kafka_peer import KafkaPeer, start_or_fail

pytestmark = pytest.mark.timeout(600)

EXCHANGES = int(os.environ.get("KAFKETTE_SASL_FUZZ_EXCHANGES", "60"))
WAIT_S = 1.0  # an incomplete frame is left waiting: the broker reads on until its idle timeout
HANDSHAKE, AUTHENTICATE, API_VERSIONS, METADATA = 17, 36, 18, 3
GOOD_PLAIN = b"\0admin\0admin-secret"
MAX_RECEIVE = 524288  # sasl.server.max.receive.size's default


@pytest.fixture(scope="module")
def sasl_pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """``{"kafka": bootstrap, "kafkette": bootstrap}``: one node each, a SASL_PLAINTEXT listener
    enabling PLAIN (user ``admin``) and SCRAM-SHA-256/512, configured alike."""
    peer = KafkaPeer(tmp_path_factory.mktemp("sasl-fuzz-kafka"), nodes=1, heap_mb=PEER_HEAP_MB)
    kafka_bootstrap = peer.add_listener(
        "SASL_PLAINTEXT", "SASL_PLAINTEXT", _listener_configs("SASL_PLAINTEXT")
    )
    start_or_fail(peer)
    try:
        with LocalCluster(
            num_brokers=1,
            data_dir=tmp_path_factory.mktemp("sasl-fuzz-kafkette"),
            kafka_protocol=True,
            broker_configs={
                "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,KAFKA:SASL_PLAINTEXT",
                **_listener_configs("KAFKA"),
            },
        ) as cluster:
            yield {"kafka": kafka_bootstrap, "kafkette": cluster.kafka_bootstrap_servers}
            assert cluster.is_running(1)
    finally:
        peer.stop()


# --- frames ----------------------------------------------------------------------------------


class Step:
    """One frame of an exchange: its bytes and how to read the answer (``api``/``version`` of a
    Kafka response, or ``raw`` for a v0 handshake's unwrapped token)."""

    def __init__(self, data: bytes, api: int | None, version: int = 0) -> None:
        self.data, self.api, self.version = data, api, version


def _request(api_key: int, version: int, correlation_id: int, **fields: object) -> bytes:
    api = KAFKA_APIS[api_key]
    flexible = api.flexible(version)
    header = KafkaRequestHeader(api_key, version, correlation_id, "sasl-fuzz")
    body = b"".join(api.request(**fields).encode(version, flexible))
    return encode_request_header(header, request_header_version(flexible)) + body


def _framed(body: bytes) -> bytes:
    return struct.pack(">i", len(body)) + body


def _handshake(rng: random.Random, mechanism: str, version: int = 1) -> Step:
    return Step(
        _framed(_request(HANDSHAKE, version, rng.randrange(2**31), mechanism=mechanism)), HANDSHAKE, version
    )


def _authenticate(rng: random.Random, token: bytes) -> Step:
    version = rng.randrange(3)
    return Step(
        _framed(_request(AUTHENTICATE, version, rng.randrange(2**31), auth_bytes=token)),
        AUTHENTICATE,
        version,
    )


def _api_versions(rng: random.Random) -> Step:
    fields = {"client_software_name": "fuzz", "client_software_version": "1"}
    return Step(_framed(_request(API_VERSIONS, 3, rng.randrange(2**31), **fields)), API_VERSIONS, 3)


def _scram_first(rng: random.Random) -> bytes:
    return b"n,,n=" + rng.choice([b"admin", b"nobody", b"a=3Db"]) + b",r=" + rng.randbytes(8).hex().encode()


def _token(rng: random.Random, mechanism: str) -> bytes:
    if mechanism == "PLAIN":
        return rng.choice(
            [
                GOOD_PLAIN,
                b"\0admin\0wrong",
                b"admin\0admin-secret",
                b"\0\0",
                b"\0nobody\0x",
                rng.randbytes(20),
            ]
        )
    return rng.choice([_scram_first(rng), b"n,,", b"y,,n=admin,r=abc", rng.randbytes(rng.randrange(40))])


def _generate(rng: random.Random) -> tuple[str, list[Step]]:
    """One exchange on a fresh connection: (kind, its frames in order)."""
    mechanisms = MECHANISMS.split(",")
    mechanism = rng.choice(mechanisms)
    kind = rng.choice(
        [
            "valid",
            "wrong-mechanism",
            "garbage-auth",
            "authenticate-first",
            "second-handshake",
            "truncated",
            "mutated",
            "out-of-turn-first",
            "oversize-auth",
            "api-versions-first",
        ]
    )
    if kind == "valid":
        return kind, [_handshake(rng, "PLAIN", 1), _authenticate(rng, GOOD_PLAIN)]
    if kind == "wrong-mechanism":
        name = rng.choice(
            ["GSSAPI", "OAUTHBEARER", "plain", "", "SCRAM-SHA-1", "PLAIN ", rng.randbytes(6).hex()]
        )
        return kind, [_handshake(rng, name, rng.randrange(2)), _authenticate(rng, GOOD_PLAIN)]
    if kind == "garbage-auth":
        return kind, [_handshake(rng, mechanism, 1), _authenticate(rng, _token(rng, mechanism))]
    if kind == "authenticate-first":
        return kind, [_authenticate(rng, _token(rng, mechanism))]
    if kind == "second-handshake":
        first = [_handshake(rng, mechanism, 1)]
        if rng.random() < 0.5:  # after a finished PLAIN login: KafkaApis answers ILLEGAL_SASL_STATE
            first = [_handshake(rng, "PLAIN", 1), _authenticate(rng, GOOD_PLAIN)]
        return kind, [*first, _handshake(rng, rng.choice(mechanisms), 1)]
    if kind == "truncated":
        step = rng.choice(
            [_handshake(rng, mechanism, rng.randrange(2)), _authenticate(rng, _token(rng, mechanism))]
        )
        body = step.data[4:]
        if rng.random() < 0.5:  # the length promises more than comes: both wait
            return kind, [Step(step.data[: 4 + rng.randrange(len(body))], step.api, step.version)]
        cut = body[: rng.randrange(8, len(body))]  # a whole frame whose request is cut short
        return kind, [Step(_framed(cut), step.api, step.version)]
    if kind == "mutated":
        handshake = _handshake(rng, mechanism, 1)
        data = bytearray(rng.choice([handshake, _authenticate(rng, _token(rng, mechanism))]).data)
        for _ in range(rng.randrange(1, 3)):
            data[rng.randrange(4, len(data))] ^= rng.randrange(1, 256)
        return kind, [handshake, Step(bytes(data), AUTHENTICATE if data[5] == AUTHENTICATE else HANDSHAKE)]
    if kind == "out-of-turn-first":  # Metadata, or a second ApiVersions, before the handshake
        versions = _api_versions(rng)
        metadata = Step(_framed(_request(METADATA, 12, rng.randrange(2**31))), METADATA, 12)
        return kind, rng.choice([[metadata], [versions, versions]])
    if kind == "oversize-auth":
        size = rng.choice([MAX_RECEIVE + 1024, 2 * MAX_RECEIVE])
        return kind, [_handshake(rng, mechanism, 1), _authenticate(rng, b"\0" + b"x" * size)]
    return kind, [_api_versions(rng), _handshake(rng, mechanism), _authenticate(rng, _token(rng, mechanism))]


# --- what a broker did -----------------------------------------------------------------------


def _describe(step: Step, body: bytes) -> tuple:
    """What an answer says: (api, error code, error message / mechanisms), or the raw token."""
    if step.api is None:
        return ("raw-token", body)
    api = KAFKA_APIS[step.api]
    flexible = api.flexible(step.version)
    try:
        reader = BinaryReader(body)
        decode_response_header(reader, response_header_version(step.api, flexible))
        answer = api.response.decode(body[reader.pos :], step.version, flexible)
    except Exception as exc:  # an answer neither decodes: compare its bytes
        return ("undecodable", type(exc).__name__, body)
    if step.api == HANDSHAKE:
        # the enabled mechanisms' order is not compared: Kafka lists them in its JAAS contexts'
        # HashMap order (PLAIN, SCRAM-SHA-512, SCRAM-SHA-256), Kafkette in sasl.enabled.mechanisms'
        return ("SaslHandshake", answer.error_code, tuple(sorted(answer.mechanisms or ())))
    if step.api == AUTHENTICATE:
        return ("SaslAuthenticate", answer.error_code, answer.error_message)
    return (api.name, answer.error_code)


async def _exchange(bootstrap: str, steps: list[Step]) -> list[tuple]:
    """Send ``steps`` on one connection, reading an answer after each.

    Returns:
        One entry per step sent: its answer described, or ``("closed",)`` / ``("waiting",)``
        (the last entry then).
    """
    host, port = bootstrap.split(",")[0].rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    outcomes: list[tuple] = []
    try:
        for step in steps:
            try:
                writer.write(step.data)
                await writer.drain()
                (length,) = struct.unpack(">i", await asyncio.wait_for(reader.readexactly(4), WAIT_S))
                body = await asyncio.wait_for(reader.readexactly(length), WAIT_S)
            except (asyncio.IncompleteReadError, ConnectionResetError, BrokenPipeError):
                outcomes.append(("closed",))
                return outcomes
            except TimeoutError:
                outcomes.append(("waiting",))
                return outcomes
            outcomes.append(_describe(step, body))
        return outcomes
    finally:
        writer.close()


def _serves_a_good_client(bootstrap: str) -> None:
    """librdkafka logged in with PLAIN lists the topics (a full SASL login and a Metadata request)."""
    admin = AdminClient(
        {
            "bootstrap.servers": bootstrap,
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "PLAIN",
            "sasl.username": "admin",
            "sasl.password": "admin-secret",
        }
    )
    assert admin.list_topics(timeout=20).brokers, f"{bootstrap} serves a good SASL client"


def test_sasl_frames_get_kafkas_answers_and_never_stop_the_broker(sasl_pair):
    seed = int(os.environ.get("KAFKETTE_FUZZ_SEED") or random.SystemRandom().randrange(1 << 31))
    print(f"live SASL handshake fuzz seed {seed} (KAFKETTE_FUZZ_SEED={seed} replays)")
    rng = random.Random(seed)
    exchanges = [_generate(rng) for _ in range(EXCHANGES)]
    divergences: list[str] = []
    kinds: dict[str, int] = {}
    for i, (kind, steps) in enumerate(exchanges):
        kinds[kind] = kinds.get(kind, 0) + 1
        kafka = asyncio.run(_exchange(sasl_pair["kafka"], steps))
        kafkette = asyncio.run(_exchange(sasl_pair["kafkette"], steps))
        if kafka != kafkette:
            divergences.append(
                f"exchange {i} ({kind}, frames {[s.data[:48] for s in steps]!r}):\n"
                f"  kafka    {kafka!r}\n  kafkette {kafkette!r}"
            )
    for bootstrap in sasl_pair.values():
        _serves_a_good_client(bootstrap)
    print(f"live SASL handshake fuzz: {EXCHANGES} exchanges: {kinds}")
    assert not divergences, f"seed {seed}: {len(divergences)} divergences:\n" + "\n".join(divergences)
