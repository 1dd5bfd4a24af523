"""Malformed frames sent to a live broker: each connection is answered with an error or closed,
the broker never dies, and a client on another connection keeps producing and consuming.

The frames come from a seeded ``random.Random`` (the seed is printed; set
``KAFKETTE_FUZZ_SEED`` to replay): raw bytes, framed bytes, framed msgpack of random shape
under every API key and version, mutated valid requests, and frames cut short.
``KAFKETTE_LIVE_FUZZ_FRAMES`` sets how many (300 unless set).
"""

from __future__ import annotations

import asyncio
import os
import random
import struct

import msgpack
import pytest

from kafkette.client import AdminClient, LocalCluster, NewTopic, Producer, TopicPartition
from kafkette.protocol.api_keys import API_REGISTRY
from kafkette.protocol.apis.api_versions import ApiVersionsRequest
from kafkette.protocol.framing import FrameError, decode_response_envelope, encode_request
from tests.cluster_helpers import consume_from_beginning
from tests.fuzz.live_frames import send_frame

pytestmark = pytest.mark.timeout(600)

FRAMES = int(os.environ.get("KAFKETTE_LIVE_FUZZ_FRAMES", "300"))
CHECK_EVERY = 50
TOPIC = "fuzz-healthy"


def _random_value(rng: random.Random, depth: int = 0):
    kind = rng.randrange(8 if depth < 3 else 5)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([0, 1, -1, 2**31 - 1, -(2**31), 2**63 - 1, rng.randrange(-1000, 1000)])
    if kind == 2:
        return "".join(rng.choice("ab_-.\u00e9\u2603") for _ in range(rng.randrange(12)))
    if kind == 3:
        return rng.randbytes(rng.randrange(16))
    if kind == 4:
        return rng.random() > 0.5
    if kind in (5, 6):
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(6))]
    return {str(rng.randrange(5)): _random_value(rng, depth + 1) for _ in range(rng.randrange(3))}


def _generate(rng: random.Random) -> tuple[str, bytes]:
    """One malformed input: (kind, bytes to send)."""
    kind = rng.choice(["raw", "framed-bytes", "framed-msgpack", "mutated", "cut-short", "huge-length"])
    if kind == "raw":
        return kind, rng.randbytes(rng.randrange(1, 64))
    if kind == "framed-bytes":
        body = rng.randbytes(rng.randrange(64))
    elif kind == "framed-msgpack":
        key = rng.choice(sorted(API_REGISTRY))
        spec = API_REGISTRY[key]
        version = rng.randrange(spec.min_version, spec.max_version + 2)
        body = msgpack.packb(
            [key, version, rng.randrange(2**31), rng.choice([None, "fuzz"]), _random_value(rng)],
            use_bin_type=True,
        )
    elif kind == "mutated":
        valid = bytearray(encode_request(ApiVersionsRequest(), 0, 7, "fuzz")[4:])
        for _ in range(rng.randrange(1, 4)):
            valid[rng.randrange(len(valid))] ^= rng.randrange(1, 256)
        body = bytes(valid)
    elif kind == "cut-short":
        body = encode_request(ApiVersionsRequest(), 0, 7, "fuzz")[4:]
        return kind, struct.pack(">i", len(body)) + body[: rng.randrange(len(body))]
    else:
        return kind, struct.pack(">i", rng.choice([2**31 - 1, -5, 200 * 1024 * 1024])) + rng.randbytes(8)
    return kind, struct.pack(">i", len(body)) + body


async def _round_trip(bootstrap: str, producer: Producer, n: int) -> None:
    await (await producer.send(TOPIC, b"healthy-%d" % n, partition=0))
    records = await consume_from_beginning(bootstrap, [TopicPartition(TOPIC, 0)], timeout_s=20)
    assert records[-1].value == b"healthy-%d" % n


def test_malformed_frames_never_stop_the_broker_from_serving_others(tmp_path):
    seed = int(os.environ.get("KAFKETTE_FUZZ_SEED") or random.SystemRandom().randrange(1 << 31))
    print(f"live broker fuzz seed {seed} (KAFKETTE_FUZZ_SEED={seed} replays)")
    rng = random.Random(seed)
    with LocalCluster(num_brokers=1, data_dir=tmp_path) as cluster:
        port = cluster.ports[1]

        async def run() -> dict[str, int]:
            outcomes: dict[str, int] = {}
            async with Producer(bootstrap_servers=cluster.bootstrap_servers, acks="all") as producer:
                async with AdminClient(bootstrap_servers=cluster.bootstrap_servers) as admin:
                    await admin.create_topics([NewTopic(TOPIC, 1, 1)])
                await _round_trip(cluster.bootstrap_servers, producer, -1)
                for i in range(FRAMES):
                    kind, data = _generate(rng)
                    try:
                        result = await send_frame(port, data, decode_response_envelope)
                    except FrameError as exc:
                        raise AssertionError(
                            f"seed {seed} frame {i} ({kind}): malformed answer {exc}"
                        ) from exc
                    outcomes[result] = outcomes.get(result, 0) + 1
                    assert cluster.is_running(1), (
                        f"seed {seed}: the broker died on frame {i} ({kind}): {data[:64]!r}"
                    )
                    if i % CHECK_EVERY == CHECK_EVERY - 1:
                        await _round_trip(cluster.bootstrap_servers, producer, i)
                await _round_trip(cluster.bootstrap_servers, producer, FRAMES)
            return outcomes

        outcomes = asyncio.run(run())
        print(f"live broker fuzz: {FRAMES} frames: {outcomes}")
        assert cluster.is_running(1)
        assert outcomes.get("answered", 0) > 0 and outcomes.get("closed", 0) > 0, outcomes
