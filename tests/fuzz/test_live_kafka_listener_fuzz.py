"""Malformed Kafka-protocol frames sent to a live broker's Kafka listener: each connection is
answered (a well-formed Kafka response echoing the correlation id) or closed, the broker never
dies, and librdkafka on other connections keeps producing and consuming.

The frames come from a seeded ``random.Random`` (the seed is printed; set
``KAFKETTE_FUZZ_SEED`` to replay): raw bytes, framed bytes, a valid header of every API and
version (and versions beyond) followed by random bytes, valid requests with bytes flipped, and
frames cut short.  ``KAFKETTE_LIVE_FUZZ_FRAMES`` sets how many (300 unless set).
"""

from __future__ import annotations

import asyncio
import os
import random
import struct
from collections.abc import Callable

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition

from kafkette.client import LocalCluster
from kafkette.protocol.api_keys import KAFKA_APIS
from kafkette.protocol.kafka_header import KafkaRequestHeader, encode_request_header, request_header_version
from tests.fuzz.live_frames import send_frame

pytestmark = pytest.mark.timeout(600)

FRAMES = int(os.environ.get("KAFKETTE_LIVE_FUZZ_FRAMES", "300"))
CHECK_EVERY = 50
TOPIC = "kafka-fuzz-healthy"


def _valid_request(rng: random.Random) -> bytes:
    """A whole valid request frame body (header and a default body) of a random API and version."""
    api = KAFKA_APIS[rng.choice(sorted(KAFKA_APIS))]
    version = rng.randrange(api.min_version, api.max_version + 1)
    header = KafkaRequestHeader(api.key, version, rng.randrange(2**31), "fuzz")
    head = encode_request_header(header, request_header_version(api.flexible(version)))
    return head + b"".join(api.request().encode(version, api.flexible(version)))


def _generate(rng: random.Random) -> tuple[str, bytes]:
    """One malformed input: (kind, bytes to send)."""
    kind = rng.choice(["raw", "framed-bytes", "header-and-junk", "mutated", "cut-short", "huge-length"])
    if kind == "raw":
        return kind, rng.randbytes(rng.randrange(1, 64))
    if kind == "framed-bytes":
        body = rng.randbytes(rng.randrange(64))
    elif kind == "header-and-junk":
        key = rng.choice(sorted(KAFKA_APIS) + [rng.randrange(100)])
        api = KAFKA_APIS.get(key)
        version = rng.randrange(0, (api.max_version if api else 5) + 3)
        flexible = api.flexible(version) if api else rng.random() < 0.5
        header = KafkaRequestHeader(key, version, rng.randrange(2**31), rng.choice([None, "fuzz"]))
        body = encode_request_header(header, request_header_version(flexible)) + rng.randbytes(
            rng.randrange(48)
        )
    elif kind == "mutated":
        valid = bytearray(_valid_request(rng))
        for _ in range(rng.randrange(1, 4)):
            valid[rng.randrange(len(valid))] ^= rng.randrange(1, 256)
        body = bytes(valid)
    elif kind == "cut-short":
        body = _valid_request(rng)
        return kind, struct.pack(">i", len(body)) + body[: rng.randrange(len(body))]
    else:
        return kind, struct.pack(">i", rng.choice([2**31 - 1, -5, 200 * 1024 * 1024])) + rng.randbytes(8)
    return kind, struct.pack(">i", len(body)) + body


def _echoes_correlation_id(data: bytes) -> Callable[[bytes], None]:
    sent = struct.unpack_from(">i", data, 8)[0] if len(data) >= 12 else None

    def check(body: bytes) -> None:
        assert struct.unpack_from(">i", body, 0)[0] == sent, "an answer echoes the correlation id"

    return check


def _round_trip(bootstrap: str, n: int) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all"})
    producer.produce(TOPIC, value=b"healthy-%d" % n, partition=0)
    assert producer.flush(20) == 0
    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": "fuzz-check", "enable.auto.commit": False}
    )
    try:
        _, high = consumer.get_watermark_offsets(TopicPartition(TOPIC, 0), timeout=20)
        consumer.assign([TopicPartition(TOPIC, 0, high - 1)])
        msg = None
        for _ in range(100):
            msg = consumer.poll(0.2)
            if msg is not None and msg.error() is None:
                break
        assert msg is not None and msg.value() == b"healthy-%d" % n
    finally:
        consumer.close()


def test_malformed_kafka_frames_never_stop_the_broker_from_serving_others(tmp_path):
    seed = int(os.environ.get("KAFKETTE_FUZZ_SEED") or random.SystemRandom().randrange(1 << 31))
    print(f"live Kafka listener fuzz seed {seed} (KAFKETTE_FUZZ_SEED={seed} replays)")
    rng = random.Random(seed)
    with LocalCluster(num_brokers=1, data_dir=tmp_path, kafka_protocol=True) as cluster:
        port = cluster.kafka_ports[1]
        bootstrap = cluster.kafka_bootstrap_servers
        _round_trip(bootstrap, -1)  # auto-creates the topic
        outcomes: dict[str, int] = {}
        for i in range(FRAMES):
            kind, data = _generate(rng)
            result = asyncio.run(send_frame(port, data, _echoes_correlation_id(data)))
            outcomes[result] = outcomes.get(result, 0) + 1
            assert cluster.is_running(1), f"seed {seed}: the broker died on frame {i} ({kind}): {data[:64]!r}"
            if i % CHECK_EVERY == CHECK_EVERY - 1:
                _round_trip(bootstrap, i)
        _round_trip(bootstrap, FRAMES)
        print(f"live Kafka listener fuzz: {FRAMES} frames: {outcomes}")
        assert cluster.is_running(1)
        assert outcomes.get("answered", 0) > 0 and outcomes.get("closed", 0) > 0, outcomes
