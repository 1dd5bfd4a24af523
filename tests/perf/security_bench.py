"""What security costs, as figures: throughput and connection set-up over SASL_SSL against
PLAINTEXT on Kafkette and Apache Kafka 4.3.1, and the authorizer's cost with 10,000 ACLs.

``python -m tests.perf.security_bench [--quick]`` measures, on 127.0.0.1:

1. **throughput**: ``--records`` records of 1 KiB (``--size``) produced, then consumed, by
   confluent-kafka (librdkafka) with its defaults (acks=all, its batching and linger), each run
   in a fresh client process, into a new topic of 3 partitions with replication factor 3, over
   PLAINTEXT and over SASL_SSL with SCRAM-SHA-512; against Kafkette (3 brokers, a LocalCluster,
   its Kafka-protocol listener; SASL_SSL is ``LocalCluster(security="SASL_SSL")``, its admin
   super user) and Apache Kafka 4.3.1 (3 combined nodes, ``tests/peers/kafka_peer.py``, 512 MiB
   heap each, a SASL_SSL listener configured as ``tests/sasl_ssl_clusters.py`` does for the
   interop tests, a SCRAM-SHA-512 user, no authorizer); and Kafkette's own SDK (Producer /
   Consumer, defaults) against Kafkette's msgpack listener.  Produce is timed from the
   producer's creation to the end of its flush, consume from the consumer's creation (assigned
   to the 3 partitions from offset 0) to the last record.  ``--rounds`` rounds, the median kept.
2. **handshake**: ``--connections`` times, a new librdkafka client with one bootstrap broker
   timed from its creation to its first Metadata answer (``list_topics``): TCP connect, TLS
   handshake, ApiVersions, SaslHandshake and the SCRAM-SHA-512 exchange (4096 iterations), then
   Metadata; PLAINTEXT the same without TLS and SASL.  Median and p99.
3. **authorizer**: in process, ``StandardAuthorizerData.authorize`` of a READ on the topic
   ``app-7-orders`` by ``User:bench`` with 0, 100 and 10,000 ACLs of other users (half LITERAL,
   half PREFIXED, ``security_figures.bench_acls``) plus the caller's own PREFIXED ALLOW; and end
   to end, on the SASL_SSL Kafkette cluster, the latency of a Metadata request for that topic
   by ``User:bench`` (librdkafka, connection open) with only the caller's ACL, then with the
   10,000 others added through CreateAcls (the time CreateAcls took is reported too).

Prints Markdown tables and writes ``tests/perf/results/security-<UTC timestamp>.json``.  A
measurement, not a test: nothing asserts on the figures.  ``--only kafkette|kafka|authorizer``
runs one part.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import confluent_kafka

from tests.perf.machine_load import add_quiet_arguments, load_average, wait_until_quiet
from tests.perf.results_file import write_result
from tests.perf.security_figures import (
    BENCH_TOPIC,
    BENCH_USER,
    bench_acls,
    caller_acl,
    latency_summary,
    markdown_rows,
    median_run,
    throughput,
)

PARTITIONS = 3
REPLICATION_FACTOR = 3
CLIENT_TIMEOUT_S = 300
REQUEST_TIMEOUT_S = 30
SCRAM_ITERATIONS = 4096
BENCH_PASSWORD = "bench-secret"
ACL_BATCH = 1000
FULL = {
    "records": 50_000,
    "rounds": 3,
    "connections": 50,
    "metadata_requests": 300,
    "authorize_calls": 50_000,
}
QUICK = {"records": 5_000, "rounds": 1, "connections": 10, "metadata_requests": 50, "authorize_calls": 5_000}


def _log(message: str) -> None:
    print(f"[security] {message}", file=sys.stderr, flush=True)


# --- one client run, in a process of its own ------------------------------------------------------


def _confluent_run(conf: dict, topic: str, records: int, size: int) -> dict:
    from confluent_kafka import Consumer, Producer

    from tests.perf.confluent_produce import consume_all, produce_all

    value = os.urandom(size)
    started = time.perf_counter()
    producer = Producer(conf)
    produce_all(producer, topic, value, records, partitions=PARTITIONS)
    produced = time.perf_counter() - started
    started = time.perf_counter()
    consumer = Consumer({**conf, "group.id": f"security-bench-{os.getpid()}", "enable.auto.commit": False})
    consume_all(consumer, topic, records, PARTITIONS, CLIENT_TIMEOUT_S)
    return {"produce_s": produced, "consume_s": time.perf_counter() - started}


async def _sdk_run(conf: dict, topic: str, records: int, size: int) -> dict:
    import ssl

    from kafkette.client import Consumer, Producer, TopicPartition

    settings: dict = {"bootstrap_servers": conf["bootstrap"]}
    if conf.get("ca"):
        settings.update(
            security_protocol="SASL_SSL",
            ssl_context=ssl.create_default_context(cafile=conf["ca"]),
            sasl_mechanism="SCRAM-SHA-512",
            sasl_plain_username=conf["user"],
            sasl_plain_password=conf["password"],
        )
    value = os.urandom(size)
    started = time.perf_counter()
    async with Producer(**settings) as producer:
        for index in range(records):
            await producer.send(topic, value, partition=index % PARTITIONS)
        await producer.flush()
    produced = time.perf_counter() - started
    started = time.perf_counter()
    count = 0
    async with Consumer(**settings, auto_offset_reset="earliest") as consumer:
        consumer.assign([TopicPartition(topic, p) for p in range(PARTITIONS)])
        deadline = time.monotonic() + CLIENT_TIMEOUT_S
        while count < records and time.monotonic() < deadline:
            for batch in (await consumer.getmany(timeout_ms=1000)).values():
                count += len(batch)
    if count < records:
        raise RuntimeError(f"Kafkette's SDK read {count} of {records} records")
    return {"produce_s": produced, "consume_s": time.perf_counter() - started}


def _client_main(args: argparse.Namespace) -> int:
    """The ``client`` subcommand: one run; its configuration as JSON on stdin (it may hold a
    password), one JSON line of seconds on stdout."""
    conf = json.loads(sys.stdin.read())
    if args.client == "sdk":
        figures = asyncio.run(_sdk_run(conf, args.topic, args.records, args.size))
    else:
        figures = _confluent_run(conf, args.topic, args.records, args.size)
    print(json.dumps(figures))
    return 0


def _client_process(client: str, conf: dict, topic: str, records: int, size: int) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "tests.perf.security_bench", "client", "--client", client, "--topic", topic]
        + ["--records", str(records), "--size", str(size)],
        input=json.dumps(conf),
        capture_output=True,
        text=True,
        timeout=CLIENT_TIMEOUT_S * 2,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{client} failed: {(done.stderr or done.stdout).strip()[-600:]}")
    seconds = json.loads(done.stdout.strip().splitlines()[-1])
    return {
        "produce": throughput(records, size, seconds["produce_s"]),
        "consume": throughput(records, size, seconds["consume_s"]),
    }


# --- the measures -------------------------------------------------------------------------------


def _create_topic(admin_conf: dict, topic: str) -> None:
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient(admin_conf)
    admin.create_topics([NewTopic(topic, PARTITIONS, REPLICATION_FACTOR)])[topic].result(
        timeout=REQUEST_TIMEOUT_S
    )
    deadline = time.monotonic() + REQUEST_TIMEOUT_S
    while time.monotonic() < deadline:  # every partition has a leader before the clock starts
        partitions = admin.list_topics(topic, timeout=REQUEST_TIMEOUT_S).topics[topic].partitions
        if len(partitions) == PARTITIONS and all(p.leader >= 0 for p in partitions.values()):
            return
        time.sleep(0.1)
    raise RuntimeError(f"topic {topic}: no leader for every partition after {REQUEST_TIMEOUT_S} s")


def measure_throughput(
    name: str, client: str, conf: dict, admin_conf: dict, records: int, size: int, rounds: int
) -> dict:
    """``rounds`` runs of ``client`` (``confluent-kafka`` with librdkafka config ``conf``, or
    ``sdk`` with ``{"bootstrap", "ca", "user", "password"}``), each into a new topic made with
    ``admin_conf``, after one discarded warm-up run of a fifth of ``records``; the median run
    with every run's figures."""
    warmup_topic = f"security-{name}-{client}-warmup-{os.getpid()}"
    _create_topic(admin_conf, warmup_topic)
    _client_process(client, conf, warmup_topic, max(1000, records // 5), size)
    runs = []
    for round_index in range(rounds):
        topic = f"security-{name}-{client}-{round_index}-{os.getpid()}"
        _create_topic(admin_conf, topic)
        runs.append(_client_process(client, conf, topic, records, size))
        _log(f"{name} {client} round {round_index + 1}: {runs[-1]}")
    return {**median_run(runs), "runs": runs}


def handshake_seconds(host: str, port: int, login: dict | None) -> float:
    """Seconds from TCP connect to the first Metadata answer on a new connection to ``host:port``:
    connect, then with ``login`` (``{"ca", "user", "password"}``) the TLS handshake and
    SaslHandshake v1 + SaslAuthenticate v2 of SCRAM-SHA-512 (Kafka's ``SaslClientAuthenticator``
    order: ApiVersions first), then Metadata v12 for no topic.

    Raises:
        OSError: the connection failed; KafkaError: the login was refused.
    """
    import ssl

    from kafkette.common.security.sasl_client import sasl_authenticate, sasl_client
    from kafkette.protocol.api_keys import APIS
    from kafkette.protocol.apis.api_versions import ApiVersionsRequest
    from kafkette.protocol.apis.metadata import MetadataRequest
    from tests.conformance.raw_client import RawKafkaClient

    context = ssl.create_default_context(cafile=login["ca"]) if login else None
    names = {api.key: api.name for api in APIS}
    started = time.perf_counter()
    client = RawKafkaClient(host, port, timeout_s=REQUEST_TIMEOUT_S, ssl_context=context)
    try:
        client.call(
            "ApiVersions", 3, ApiVersionsRequest(client_software_name="bench", client_software_version="1")
        )
        if login:

            async def send(api_key: int, version: int, request: object) -> object:
                return client.call(names[api_key], version, request)

            coroutine = sasl_authenticate(
                send, sasl_client("SCRAM-SHA-512", login["user"], login["password"])
            )
            try:
                coroutine.send(None)  # never suspends: each send is a blocking call
            except StopIteration:
                pass
        client.call("Metadata", 12, MetadataRequest(topics=[]))
        return time.perf_counter() - started
    finally:
        client.close()


def measure_handshakes(bootstrap: str, login: dict | None, connections: int) -> dict:
    """Median and p99 of ``connections`` ``handshake_seconds`` to the first broker of
    ``bootstrap``, after 3 discarded (warm-up) ones."""
    host, _, port = bootstrap.split(",")[0].rpartition(":")
    timings = [handshake_seconds(host, int(port), login) for _ in range(connections + 3)]
    return latency_summary(timings[3:])


def measure_authorizer(calls: int) -> list[dict]:
    """In process: µs per ``authorize`` of a READ on ``app-7-orders`` by ``User:bench`` with 0,
    100 and 10,000 other ACLs (the median of 5 batches of ``calls``), and the same for
    ``authorize_by_resource_type`` (Kafka's IDEMPOTENT_WRITE fallback)."""
    from kafkette.common.security.acl import AclOperation, KafkaPrincipal, ResourceType
    from kafkette.common.security.standard_authorizer import StandardAcl, StandardAuthorizerData

    principal = KafkaPrincipal("User", BENCH_USER)
    rows = []
    for count in (0, 100, 10_000):
        data = StandardAuthorizerData()
        started = time.perf_counter()
        for index, binding in enumerate([*bench_acls(count), *([caller_acl()] if count else [])]):
            data.add_acl(index, StandardAcl.from_acl_binding(binding))
        load_s = time.perf_counter() - started

        def timed(call: Callable[[], object], repeat: int) -> float:
            batches = []
            for _ in range(5):
                started = time.perf_counter()
                for _ in range(repeat):
                    call()
                batches.append((time.perf_counter() - started) / repeat)
            return statistics.median(batches)

        def authorize(data: StandardAuthorizerData = data) -> object:
            return data.authorize(principal, "127.0.0.1", AclOperation.READ, ResourceType.TOPIC, BENCH_TOPIC)

        def by_type(data: StandardAuthorizerData = data) -> object:
            return data.authorize_by_resource_type(
                principal, "127.0.0.1", AclOperation.WRITE, ResourceType.TOPIC
            )

        per_call = timed(authorize, calls)
        per_type_call = timed(by_type, max(1, calls // 100))
        rows.append(
            {
                "acls": len(data),
                "us_per_call": round(per_call * 1e6, 2),
                "calls_per_s": round(1 / per_call),
                "decision": authorize().name,
                "load_ms": round(load_s * 1000, 1),
                "authorize_by_resource_type_us": round(per_type_call * 1e6, 1),
            }
        )
        _log(f"authorizer: {rows[-1]}")
    return rows


def measure_acl_end_to_end(cluster, requests: int) -> dict:  # noqa: ANN001 - a LocalCluster
    """On the SASL_SSL Kafkette cluster: ``User:bench`` (SCRAM-SHA-512) asks Metadata for
    ``app-7-orders`` ``requests`` times on one open connection, with its own ACL only, then with
    the 10,000 ACLs of ``bench_acls`` added through CreateAcls."""
    from confluent_kafka import Producer
    from confluent_kafka.admin import (
        AclBinding,
        AclOperation,
        AclPermissionType,
        AdminClient,
        ResourcePatternType,
        ResourceType,
        ScramCredentialInfo,
        ScramMechanism,
        UserScramCredentialUpsertion,
    )

    admin_conf = cluster.kafka_admin_client_config
    admin = AdminClient(admin_conf)
    upsertion = UserScramCredentialUpsertion(
        BENCH_USER,
        ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, SCRAM_ITERATIONS),
        BENCH_PASSWORD.encode(),
    )
    for future in admin.alter_user_scram_credentials([upsertion]).values():
        future.result(timeout=REQUEST_TIMEOUT_S)
    _create_topic(admin_conf, BENCH_TOPIC)

    def confluent(binding) -> AclBinding:  # noqa: ANN001 - a kafkette AclBinding
        pattern, entry = binding.pattern, binding.entry
        return AclBinding(
            ResourceType[pattern.resource_type.name],
            pattern.name,
            ResourcePatternType[pattern.pattern_type.name],
            entry.principal,
            entry.host,
            AclOperation[entry.operation.name],
            AclPermissionType[entry.permission_type.name],
        )

    def create(bindings: list) -> float:
        started = time.perf_counter()
        for start in range(0, len(bindings), ACL_BATCH):
            for future in admin.create_acls(
                [confluent(b) for b in bindings[start : start + ACL_BATCH]]
            ).values():
                future.result(timeout=REQUEST_TIMEOUT_S)
        return time.perf_counter() - started

    create([caller_acl()])
    bench_conf = {
        **admin_conf,
        "sasl.username": BENCH_USER,
        "sasl.password": BENCH_PASSWORD,
    }
    producer = Producer(bench_conf)

    def metadata_latency() -> dict:
        deadline = time.monotonic() + REQUEST_TIMEOUT_S
        while BENCH_TOPIC not in producer.list_topics(BENCH_TOPIC, timeout=REQUEST_TIMEOUT_S).topics or (
            producer.list_topics(BENCH_TOPIC, timeout=REQUEST_TIMEOUT_S).topics[BENCH_TOPIC].error is not None
        ):
            if time.monotonic() > deadline:
                raise RuntimeError(f"User:{BENCH_USER} cannot describe {BENCH_TOPIC}")
            time.sleep(0.2)
        timings = []
        for _ in range(20):  # warm-up, discarded
            producer.list_topics(BENCH_TOPIC, timeout=REQUEST_TIMEOUT_S)
        for _ in range(requests):
            started = time.perf_counter()
            producer.list_topics(BENCH_TOPIC, timeout=REQUEST_TIMEOUT_S)
            timings.append(time.perf_counter() - started)
        return latency_summary(timings)

    without = metadata_latency()
    _log(f"metadata with 1 ACL: {without}")
    create_s = create(bench_acls(10_000))
    time.sleep(1)  # every broker has replayed the last AccessControlEntryRecord
    loaded = admin.describe_acls(
        __import__("confluent_kafka.admin", fromlist=["AclBindingFilter"]).AclBindingFilter(
            ResourceType.ANY,
            None,
            ResourcePatternType.ANY,
            None,
            None,
            AclOperation.ANY,
            AclPermissionType.ANY,
        )
    ).result(timeout=REQUEST_TIMEOUT_S)
    with_acls = metadata_latency()
    _log(f"metadata with {len(loaded)} ACLs: {with_acls}")
    return {
        "request": f"Metadata for {BENCH_TOPIC} by User:{BENCH_USER} (list_topics, one connection)",
        "caller_acl_only": without,
        "with_10000_more": with_acls,
        "acls_described": len(loaded),
        "create_acls_10000_s": round(create_s, 2),
    }


# --- the clusters -------------------------------------------------------------------------------


@contextmanager
def kafkette_cluster(data_dir: Path, security: str) -> Iterator:
    from kafkette.client import LocalCluster

    with LocalCluster(3, data_dir=data_dir, kafka_protocol=True, security=security) as cluster:
        yield cluster


def run_kafkette(sizes: dict, size: int) -> tuple[list[dict], list[dict], dict | None]:
    throughputs, handshakes, acl = [], [], None
    for security in ("PLAINTEXT", "SASL_SSL"):
        with tempfile.TemporaryDirectory() as data_dir, kafkette_cluster(Path(data_dir), security) as cluster:
            _log(f"Kafkette {security}: 3 brokers up")
            if security == "SASL_SSL":
                conf = cluster.kafka_admin_client_config
                sdk = {
                    "bootstrap": cluster.bootstrap_servers,
                    "ca": conf["ssl.ca.location"],
                    "user": conf["sasl.username"],
                    "password": conf["sasl.password"],
                }
            else:
                conf = {"bootstrap.servers": cluster.kafka_bootstrap_servers}
                sdk = {"bootstrap": cluster.bootstrap_servers}
            for client, client_conf in (("confluent-kafka", conf), ("sdk", sdk)):
                figures = measure_throughput(
                    f"kafkette-{security.lower()}",
                    client,
                    client_conf,
                    conf,
                    sizes["records"],
                    size,
                    sizes["rounds"],
                )
                name = "confluent-kafka" if client == "confluent-kafka" else "Kafkette SDK"
                throughputs.append({"broker": "Kafkette", "client": name, "security": security, **figures})
            handshakes.append(
                {
                    "broker": "Kafkette",
                    "security": security,
                    **measure_handshakes(
                        conf["bootstrap.servers"],
                        sdk if security == "SASL_SSL" else None,
                        sizes["connections"],
                    ),
                }
            )
            if security == "SASL_SSL":
                acl = measure_acl_end_to_end(cluster, sizes["metadata_requests"])
    return throughputs, handshakes, acl


def run_kafka(sizes: dict, size: int) -> tuple[list[dict], list[dict]]:
    from tests.peers.kafka_peer import DEFAULT_HEAP_MB
    from tests.sasl_ssl_clusters import SCRAM_USERS, client_conf, kafka_peer_sasl_ssl
    from tests.tls_certificates import CertificateAuthority

    throughputs, handshakes = [], []
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "certs").mkdir()
        ca = CertificateAuthority(Path(tmp) / "certs")
        bundle = str(ca.issue("broker", "broker", server=True).bundle)
        with kafka_peer_sasl_ssl(
            Path(tmp) / "kafka", bundle, str(ca.files.certificate), 3, DEFAULT_HEAP_MB
        ) as (
            peer,
            served,
        ):
            _log("Apache Kafka: 3 nodes up")
            user, password = SCRAM_USERS["SCRAM-SHA-512"]
            confs = {
                "PLAINTEXT": ({"bootstrap.servers": peer.bootstrap_servers},) * 2,
                "SASL_SSL": (
                    client_conf(served, user, password, "SCRAM-SHA-512"),
                    client_conf(served, "admin", "admin-secret"),
                ),
            }
            logins = {"PLAINTEXT": None, "SASL_SSL": {"ca": served.ca, "user": user, "password": password}}
            for security, (conf, admin_conf) in confs.items():
                figures = measure_throughput(
                    f"kafka-{security.lower()}",
                    "confluent-kafka",
                    conf,
                    admin_conf,
                    sizes["records"],
                    size,
                    sizes["rounds"],
                )
                throughputs.append(
                    {"broker": "Apache Kafka", "client": "confluent-kafka", "security": security, **figures}
                )
                handshakes.append(
                    {
                        "broker": "Apache Kafka",
                        "security": security,
                        **measure_handshakes(
                            conf["bootstrap.servers"], logins[security], sizes["connections"]
                        ),
                    }
                )
    return throughputs, handshakes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.perf.security_bench",
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--quick", action="store_true", help="few records and connections, one round (~2 min)"
    )
    parser.add_argument("--records", type=int, help=f"records per run (default {FULL['records']:,})")
    parser.add_argument("--size", type=int, default=1024, help="value size in bytes (default 1024)")
    parser.add_argument(
        "--rounds", type=int, help=f"runs per client, the median kept (default {FULL['rounds']})"
    )
    parser.add_argument("--connections", type=int, help=f"handshakes timed (default {FULL['connections']})")
    parser.add_argument("--only", choices=("kafkette", "kafka", "authorizer"), help="run one part only")
    add_quiet_arguments(parser)
    sub = parser.add_subparsers(dest="command")
    client = sub.add_parser("client", help="(internal) one client run; configuration as JSON on stdin")
    client.add_argument("--client", choices=("confluent-kafka", "sdk"), required=True)
    client.add_argument("--topic", required=True)
    client.add_argument("--records", type=int, required=True)
    client.add_argument("--size", type=int, required=True)
    args = parser.parse_args(argv)
    if args.command == "client":
        return _client_main(args)
    sizes = dict(QUICK if args.quick else FULL)
    for key in ("records", "rounds", "connections"):
        if getattr(args, key) is not None:
            if getattr(args, key) < 1:
                parser.error(f"--{key} must be at least 1")
            sizes[key] = getattr(args, key)
    quiet = wait_until_quiet(_log, below=args.quiet_below, max_wait_s=args.wait_quiet_s)
    started = time.monotonic()
    result: dict = {
        "method": {
            "records": sizes["records"],
            "value_bytes": args.size,
            "rounds": sizes["rounds"],
            "connections": sizes["connections"],
            "topic": f"{PARTITIONS} partitions, replication factor {REPLICATION_FACTOR}",
            "clusters": "Kafkette: 3 brokers (LocalCluster, Kafka-protocol listener; SDK on msgpack); "
            "Apache Kafka 4.3.1: 3 combined nodes, 512 MiB heap",
            "clients": f"confluent-kafka {confluent_kafka.version()} defaults, fresh process per run; "
            "SASL_SSL with SCRAM-SHA-512",
            "load_before": quiet.load,
            "quiet": quiet.quiet,
        }
    }
    if args.only in (None, "authorizer"):
        result["authorizer"] = {"in_process": measure_authorizer(sizes["authorize_calls"])}
    if args.only in (None, "kafkette"):
        throughputs, handshakes, acl = run_kafkette(sizes, args.size)
        result.setdefault("throughput", []).extend(throughputs)
        result.setdefault("handshake", []).extend(handshakes)
        result.setdefault("authorizer", {})["end_to_end"] = acl
    if args.only in (None, "kafka"):
        throughputs, handshakes = run_kafka(sizes, args.size)
        result.setdefault("throughput", []).extend(throughputs)
        result.setdefault("handshake", []).extend(handshakes)
    result["wall_s"] = round(time.monotonic() - started, 1)
    result["method"]["load_after"] = load_average()
    print("\n".join(markdown_rows(result)))
    if acl_figures := result.get("authorizer", {}).get("end_to_end"):
        print(json.dumps(acl_figures, indent=2))
    path = write_result("security", "tests.perf.security_bench", result)
    print(f"wall time {result['wall_s']} s; JSON: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
