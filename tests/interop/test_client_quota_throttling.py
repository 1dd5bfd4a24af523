"""A producer held to its ``producer_byte_rate`` quota and a consumer to its
``consumer_byte_rate`` (KIP-13, KIP-55, KIP-219), on Apache Kafka 4.3.1 and on Kafkette configured
the same way: each quota set with Kafka's own ``kafka-configs.sh`` for the client's id, then
confluent-kafka (librdkafka, unchanged) produces or consumes as fast as it can; the broker answers
with ``throttle_time_ms`` (a throttled fetch empty) and mutes the connection.  The consumer's rate
once the quota window (Kafka's default, 11 samples of 1 s, set explicitly) has filled is within
10% of its quota; the producer's, averaged over two windows (its rate saws, see below), is at most
the quota plus 10% and not stopped; a producer of another client id is not held back.  A producer
with acks=0, which gets no answer to carry a throttle time, is held by its muted connection: what
the broker appends stays within the window's burst plus the quota's rate.  Rates are
measured at the client and printed.  A client over a tiny ``request_percentage`` quota (KIP-124)
asking for metadata is told to back off (librdkafka's ``throttle_cb``) for at most one quota window,
and another client id asking as often is not.  A client with a ``controller_mutation_rate`` quota
(KIP-599) of 1 partition/s (a burst of 11) creating topics with kafka-python (CreateTopics v7,
DeleteTopics v6: strict) gets the topic that overdraws the bucket and THROTTLING_QUOTA_EXCEEDED for
the topics after it, and a deletion while the bucket is overdrawn is refused the same way."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from kafka import KafkaAdminClient

from kafkette.client import LocalCluster
from tests.peers.kafka_peer import KafkaPeer, start_or_fail

pytestmark = pytest.mark.timeout(600)

QUOTA_BYTES_PER_S = 200_000
WINDOW_CONFIGS = {"quota.window.num": "11", "quota.window.size.seconds": "1"}
VALUE = b"x" * 2000
WARM_UP_S = 12.0  # the quota window (11 samples of 1 s) fills: the first burst is allowed
MEASURE_S = 10.0
# A producer's rate saws: each time the sample holding its last burst leaves the 11 s window, a new
# burst of up to 10 windows' worth is let through, then each request is throttled about 1 s; so its
# rate is averaged over two whole windows (2 s to 24 s), which hold exactly one such burst.
PRODUCER_WARM_UP_S = 2.0
PRODUCER_MEASURE_S = 22.0
TIMEOUT_S = 30


@pytest.fixture(scope="module", params=["kafka", "kafkette"])
def bootstrap(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One broker's Kafka-protocol bootstrap, Apache Kafka's or Kafkette's, with the same quota window."""
    if request.param == "kafkette":
        with LocalCluster(
            num_brokers=1,
            data_dir=tmp_path_factory.mktemp("quota-kafkette"),
            kafka_protocol=True,
            broker_configs=WINDOW_CONFIGS,
        ) as cluster:
            yield cluster.kafka_bootstrap_servers
        return
    peer = KafkaPeer(tmp_path_factory.mktemp("quota-kafka"), nodes=1, heap_mb=384)
    for node in peer.node_ids:
        peer.node_configs[node] = dict(WINDOW_CONFIGS)
    start_or_fail(peer)
    try:
        yield peer.bootstrap_servers
    finally:
        peer.stop()


def _set_quota(
    bootstrap: str, client_id: str, quota: str = "producer_byte_rate", value: float = QUOTA_BYTES_PER_S
) -> None:
    done = subprocess.run(
        [
            *KafkaPeer.tool_command("kafka.admin.ConfigCommand"),
            "--bootstrap-server",
            bootstrap,
            "--entity-type",
            "clients",
            "--entity-name",
            client_id,
            "--alter",
            "--add-config",
            f"{quota}={value}",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-1500:]


def _delivered_rate(bootstrap: str, topic: str, client_id: str, warm_up_s: float, measure_s: float) -> float:
    """Bytes per second delivered in ``measure_s`` after ``warm_up_s`` of producing flat out."""
    producer = Producer(
        {
            "bootstrap.servers": bootstrap,
            "client.id": client_id,
            "acks": 1,
            # the Java producer's 16 KiB batches (librdkafka's default is 1 MB): many requests per
            # quota window, so the window measures the rate, not how many 1 MB requests fell in it
            "batch.size": 16384,
            "queue.buffering.max.messages": 1000,  # a short queue: flush() at the end stays short
        }
    )
    delivered: list[tuple[float, int]] = []

    def on_delivery(err, msg) -> None:
        if err is None:
            delivered.append((time.monotonic(), len(msg.value())))

    start = time.monotonic()
    end = start + warm_up_s + measure_s
    while time.monotonic() < end:
        try:
            producer.produce(topic, VALUE, on_delivery=on_delivery)
        except BufferError:  # the producer's queue is full: the broker is holding it back
            producer.poll(0.05)
        producer.poll(0)
    producer.flush(TIMEOUT_S)
    window = [size for at, size in delivered if start + warm_up_s <= at < end]
    return sum(window) / measure_s


def test_a_producer_is_held_to_its_byte_rate_and_another_client_is_not(bootstrap):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic("quota-topic", 1, 1)])["quota-topic"].result(timeout=TIMEOUT_S)
    _set_quota(bootstrap, "quota-app")
    time.sleep(1)  # the quota reaches the broker (Kafka: from the metadata log)
    held = _delivered_rate(bootstrap, "quota-topic", "quota-app", PRODUCER_WARM_UP_S, PRODUCER_MEASURE_S)
    free = _delivered_rate(bootstrap, "quota-topic", "free-app", 1.0, 4.0)
    print(f"held {held:.0f} B/s, free {free:.0f} B/s, quota {QUOTA_BYTES_PER_S} B/s")
    # one burst and then about one throttled request a second: about half the quota on both brokers
    assert QUOTA_BYTES_PER_S * 0.3 <= held <= QUOTA_BYTES_PER_S * 1.1, held
    assert free > held * 10, (free, held)


ACKS0_PRODUCE_S = 12.0


def _appended_bytes_with_acks_0(bootstrap: str, topic: str, client_id: str, produce_s: float) -> int:
    """Bytes the broker appended to ``topic`` (its high watermark times the value size, read when
    producing stops) while a producer with acks=0, which waits for no answer, sends flat out for
    ``produce_s`` seconds."""
    producer = Producer(
        {
            "bootstrap.servers": bootstrap,
            "client.id": client_id,
            "acks": 0,
            "batch.size": 16384,
            "queue.buffering.max.messages": 1000,
        }
    )
    watcher = Consumer({"bootstrap.servers": bootstrap, "group.id": f"watch-{client_id}"})
    try:
        _, before = watcher.get_watermark_offsets(TopicPartition(topic, 0), timeout=TIMEOUT_S)
        end = time.monotonic() + produce_s
        while time.monotonic() < end:
            try:
                producer.produce(topic, VALUE)
            except BufferError:  # the producer's queue is full: its connection is muted
                producer.poll(0.05)
            producer.poll(0)
        _, after = watcher.get_watermark_offsets(TopicPartition(topic, 0), timeout=TIMEOUT_S)
    finally:
        producer.purge()
        producer.flush(TIMEOUT_S)
        watcher.close()
    return (after - before) * len(VALUE)


def test_an_acks_0_producer_is_held_to_its_byte_rate_by_a_muted_connection(bootstrap):
    """acks=0 gets no answer to carry a throttle time: the broker mutes the connection instead
    (Kafka's ``sendNoOpResponseExemptThrottle``), so what it appends stays near the quota (the
    window's first burst of up to 11 samples, then the rate) while another client id is not held."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic("quota-acks0", 1, 1)])["quota-acks0"].result(timeout=TIMEOUT_S)
    _set_quota(bootstrap, "quota-acks0-app")
    time.sleep(1)
    held = _appended_bytes_with_acks_0(bootstrap, "quota-acks0", "quota-acks0-app", ACKS0_PRODUCE_S)
    free = _appended_bytes_with_acks_0(bootstrap, "quota-acks0", "free-acks0-app", 4.0)
    bound = QUOTA_BYTES_PER_S * (11 + ACKS0_PRODUCE_S) * 1.1
    print(f"acks=0: held {held} B in {ACKS0_PRODUCE_S} s (bound {bound:.0f} B), free {free} B in 4 s")
    assert 0 < held <= bound, (held, bound)
    assert free > held, (free, held)


def _consumed_rate(bootstrap: str, topic: str, client_id: str) -> float:
    """Bytes per second consumed in ``MEASURE_S`` after ``WARM_UP_S`` of consuming flat out."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "client.id": client_id,
            "group.id": f"group-{client_id}",
            "auto.offset.reset": "earliest",
            "max.partition.fetch.bytes": 65536,  # many fetches per quota window (the default is 1 MB)
        }
    )
    consumer.subscribe([topic])
    start = time.monotonic()
    end = start + WARM_UP_S + MEASURE_S
    measured = 0
    try:
        while (now := time.monotonic()) < end:
            msg = consumer.poll(0.2)
            if msg is not None and msg.error() is None and now >= start + WARM_UP_S:
                measured += len(msg.value())
    finally:
        consumer.close()
    return measured / MEASURE_S


def test_a_consumer_is_held_to_its_byte_rate(bootstrap):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic("quota-fetch", 1, 1)])["quota-fetch"].result(timeout=TIMEOUT_S)
    producer = Producer({"bootstrap.servers": bootstrap, "client.id": "filler"})
    for _ in range(4000):  # 8 MB: more than the quota lets through in the whole test
        while True:
            try:
                producer.produce("quota-fetch", VALUE)
                break
            except BufferError:
                producer.poll(0.05)
    assert producer.flush(TIMEOUT_S) == 0
    _set_quota(bootstrap, "quota-consumer", "consumer_byte_rate")
    time.sleep(1)
    held = _consumed_rate(bootstrap, "quota-fetch", "quota-consumer")
    print(f"consumed {held:.0f} B/s, quota {QUOTA_BYTES_PER_S} B/s")
    assert QUOTA_BYTES_PER_S * 0.9 <= held <= QUOTA_BYTES_PER_S * 1.1, held


def _throttle_events(bootstrap: str, client_id: str, requests: int) -> list[float]:
    """The throttle times (s) a librdkafka client of ``client_id`` is told (``throttle_cb``) while it
    asks for the cluster's metadata ``requests`` times (stopping at the first throttle)."""
    throttles: list[float] = []
    producer = Producer(
        {
            "bootstrap.servers": bootstrap,
            "client.id": client_id,
            "throttle_cb": lambda event: throttles.append(event.throttle_time),
        }
    )
    deadline = time.monotonic() + TIMEOUT_S
    for _ in range(requests):
        producer.list_topics(timeout=TIMEOUT_S)
        producer.poll(0)
        if throttles or time.monotonic() > deadline:
            break
    producer.poll(0.5)
    producer.flush(TIMEOUT_S)
    return throttles


def test_a_client_over_its_request_percentage_is_throttled_and_another_client_is_not(bootstrap):
    _set_quota(bootstrap, "greedy-app", "request_percentage", 0.01)  # 0.01% of one handler's time
    time.sleep(1)
    throttled = _throttle_events(bootstrap, "greedy-app", 500)
    free = _throttle_events(bootstrap, "polite-app", 100)
    print(f"throttle times (s): over the quota {throttled}, another client id {free}")
    assert throttled, "no Metadata answer carried a throttle time"
    assert all(0 < t <= 1.0 for t in throttled), throttled  # at most one quota window (1 s)
    assert free == []


def _kafka_python_admin(bootstrap: str, client_id: str) -> KafkaAdminClient:
    """kafka-python's admin client: it asks with the newest CreateTopics/DeleteTopics versions (strict
    quotas), and answers each topic's error code when told not to raise."""
    return KafkaAdminClient(
        bootstrap_servers=bootstrap, client_id=client_id, request_timeout_ms=TIMEOUT_S * 1000
    )


def _codes(result: dict) -> dict[str, int]:
    return {topic["name"]: topic["error_code"] for topic in result["topics"]}


def test_a_client_over_its_controller_mutation_rate_has_topics_refused(bootstrap):
    _set_quota(bootstrap, "mutator", "controller_mutation_rate", 1)  # 1 partition/s, a burst of 11
    time.sleep(1)
    admin = _kafka_python_admin(bootstrap, "mutator")
    try:
        first = admin.create_topics(
            {"mutate-a": {"num_partitions": 10, "replication_factor": 1}}, raise_errors=False
        )
        # 1 token left: the next topic may overdraw the bucket, the one after it is refused
        second = admin.create_topics(
            {
                "mutate-b": {"num_partitions": 10, "replication_factor": 1},
                "mutate-c": {"num_partitions": 1, "replication_factor": 1},
            },
            raise_errors=False,
        )
    finally:
        admin.close()
    print(f"first {_codes(first)}, second {_codes(second)}")
    assert _codes(first) == {"mutate-a": 0}
    assert _codes(second) == {"mutate-b": 0, "mutate-c": 89}  # THROTTLING_QUOTA_EXCEEDED
    refused = next(t for t in second["topics"] if t["name"] == "mutate-c")
    assert refused["error_message"] is None  # the code's default message is left out (ApiError.fromThrowable)
    admin = _kafka_python_admin(bootstrap, "mutator")  # a new connection: the old one is muted
    try:
        deleted = admin.delete_topics(["mutate-a"], raise_errors=False)
    finally:
        admin.close()
    print(f"delete {deleted}")
    assert [(t["name"], t["error_code"]) for t in deleted["topics"]] == [("mutate-a", 89)]
    assert deleted["topics"][0]["topic_id"] is not None  # the topic's id, as the controller found it
    other = _kafka_python_admin(bootstrap, "not-a-mutator")
    try:
        assert _codes(
            other.create_topics(
                {"free-d": {"num_partitions": 20, "replication_factor": 1}}, raise_errors=False
            )
        ) == {"free-d": 0}
    finally:
        other.close()
