"""``kafkette cluster start|status|stop``: a local cluster you can run, see and stop.

``start`` launches a LocalCluster of N brokers, prints ``bootstrap.servers=HOST:PORT,...``
once every broker is registered and records the brokers in ``<data-dir>/cluster.json``;
in the foreground it runs until SIGINT or SIGTERM and then stops them, with ``--daemon``
it returns and leaves them running.  ``status`` shows the brokers (id, address, alive,
controller: ``active`` for the metadata quorum's leader, ``voter`` for the other voters) and
the topic, partition, under-replicated and offline partition counts; ``stop`` stops a data
directory's brokers with SIGTERM (each does its controlled shutdown, the voters last,
together) and reports any it had to kill.  Does not own the
launcher (``kafkette.client.local_cluster``) or the pid file
(``kafkette.client.cluster_pid_file``).
"""

from __future__ import annotations

import signal
import tempfile
import threading
from pathlib import Path
from types import FrameType

import click

from kafkette.client.cli.shared_options import (
    admin_client,
    bootstrap_server_option,
    parse_key_value,
    run_coroutine,
)
from kafkette.client.cluster_pid_file import (
    ClusterPidFile,
    is_alive,
    read_pid_file,
    remove_pid_file,
    running_brokers,
    stop_brokers,
    write_pid_file,
)
from kafkette.client.local_cluster import LocalCluster
from kafkette.client.quorum_info import QuorumInfo
from kafkette.client.topic_specs import TopicDescription
from kafkette.protocol.errors import KafkaError


@click.group()
def cluster() -> None:
    """Run, inspect and stop a local multi-broker cluster."""


def _pid_file(data_dir: Path) -> ClusterPidFile | None:
    """``data_dir``'s pid file, or None; a corrupt one is a one-line error."""
    try:
        return read_pid_file(data_dir)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None


def _refuse_if_running(data_dir: Path) -> None:
    """Raise a one-line error when ``data_dir``'s pid file names live brokers; drop a stale one."""
    record = _pid_file(data_dir)
    if record is None:
        return
    alive = running_brokers(record)
    if not alive:
        remove_pid_file(data_dir)
        return
    pids = ", ".join(str(b.pid) for b in alive)
    raise click.ClickException(f"A cluster is already running in {data_dir} (pids {pids}); "
                               f"stop it with: kafkette cluster stop --data-dir {data_dir}")


@cluster.command("start")
@click.option("--brokers", "num_brokers", type=click.IntRange(1, 64), default=3, show_default=True,
              help="Number of brokers.")
@click.option("--data-dir", type=click.Path(file_okay=False), default=None,
              help="Directory for broker configs, logs and data (default: a new temporary directory).")
@click.option("--base-port", type=click.IntRange(1, 65535), default=None,
              help="Listener port of broker 1; broker N uses base-port+N-1 (default: free ports).")
@click.option("--config", "configs", multiple=True, metavar="KEY=VALUE",
              help="Extra server.properties entry for every broker (repeatable).")
@click.option("--controllers", type=click.Choice(["1", "3", "5"]), default=None,
              help="How many of the brokers (the first ones) are also voters of the metadata quorum "
                   "(process.roles=broker,controller)  [default: 3, or every broker of a smaller cluster]")
@click.option("--daemon", is_flag=True,
              help="Return once the cluster serves and leave it running (stop it with 'kafkette cluster stop').")
@click.option("--kafka-protocol", is_flag=True,
              help="Give every broker a second listener speaking Apache Kafka's protocol (for kcat, librdkafka, "
                   "kafka-python, aiokafka, Kafka's tools) and print kafka.bootstrap.servers.")
def start(num_brokers: int, data_dir: str | None, base_port: int | None, configs: tuple[str, ...],
          controllers: str | None, daemon: bool, kafka_protocol: bool) -> None:
    """Start N brokers and print bootstrap.servers; run until Ctrl-C, or return with --daemon."""
    overrides = dict(parse_key_value(c, "--config") for c in configs)
    if controllers is not None and int(controllers) > num_brokers:
        raise click.BadParameter(f"{controllers} voters need at least {controllers} brokers, not {num_brokers}",
                                 param_hint="'--controllers'")
    directory = Path(data_dir or tempfile.mkdtemp(prefix="kafkette-cluster-")).resolve()
    _refuse_if_running(directory)
    local = LocalCluster(num_brokers=num_brokers, data_dir=directory, base_port=base_port,
                         broker_configs=overrides, detached=daemon,
                         controllers=None if controllers is None else int(controllers), kafka_protocol=kafka_protocol)
    if daemon:
        _start_daemon(local)
        return
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        click.echo(f"Starting {num_brokers} broker(s) in {local.data_dir} ...", err=True)
        local.start()
        write_pid_file(local.data_dir, local.bootstrap_servers, tuple(local.voter_ids), local.pids(), local.ports)
        _echo_bootstrap(local)
        click.get_text_stream("stdout").flush()
        while not stop.wait(1.0):
            pass
        click.echo("Stopping brokers ...", err=True)
    finally:
        local.stop()
        remove_pid_file(local.data_dir)
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _echo_bootstrap(local: LocalCluster) -> None:
    """Print ``bootstrap.servers=...`` and, with Kafka-protocol listeners, ``kafka.bootstrap.servers=...``."""
    click.echo(f"bootstrap.servers={local.bootstrap_servers}")
    if local.kafka_protocol:
        click.echo(f"kafka.bootstrap.servers={local.kafka_bootstrap_servers}")


def _start_daemon(local: LocalCluster) -> None:
    click.echo(f"Starting {local.num_brokers} broker(s) in {local.data_dir} ...", err=True)
    local.start()  # stops what it started when a broker fails to come up
    write_pid_file(local.data_dir, local.bootstrap_servers, tuple(local.voter_ids), local.pids(), local.ports)
    _echo_bootstrap(local)
    click.echo(f"The cluster runs in the background; stop it with: kafkette cluster stop --data-dir {local.data_dir}",
               err=True)


@cluster.command("status")
@click.option("--request-timeout-ms", type=click.IntRange(1), default=10000, show_default=True)
@bootstrap_server_option
def status(request_timeout_ms: int, bootstrap_server: str, data_dir: str | None) -> None:
    """Show the nodes (id, address, alive, controller: active, voter or -) and partition counts."""
    from tabulate import tabulate  # only `cluster status` needs it

    record = _read_record(Path(data_dir)) if data_dir is not None else None
    bootstrap = bootstrap_server

    async def run() -> tuple[dict, dict[str, TopicDescription], QuorumInfo | None]:
        async with admin_client(bootstrap, request_timeout_ms, "kafkette-cluster-status") as admin:
            described = await admin.describe_cluster()
            names = await admin.list_topics()
            try:
                quorum: QuorumInfo | None = await admin.describe_metadata_quorum()
            except KafkaError:  # no active controller now: the column says so
                quorum = None
            return described, (await admin.describe_topics(names) if names else {}), quorum

    try:
        described, topics, quorum = run_coroutine(run())
    except OSError as exc:  # KafkaConnectionError and timeouts: nothing answers
        raise click.ClickException(f"No broker of {bootstrap} answers: {exc}") from None
    recorded = {b.id: b for b in record.brokers} if record is not None else {}
    exited = {b.id for b in recorded.values() if not is_alive(b)}  # Metadata lists them until their session ends
    live = {b.node_id: f"{b.host}:{b.port}" for b in described["brokers"] if b.node_id not in exited}
    leader = quorum.leader_id if quorum is not None else -1
    voters = {v.replica_id for v in quorum.voters} if quorum is not None else set(record.voter_ids if record else ())
    rows = []
    for broker_id in sorted(set(live) | set(recorded)):
        address = live.get(broker_id) or (f"127.0.0.1:{recorded[broker_id].port}" if broker_id in recorded
                                           else "?")
        role = "active" if broker_id == leader else "voter" if broker_id in voters else "-"
        rows.append([broker_id, address, "yes" if broker_id in live else "no", role])
    click.echo(tabulate(rows, headers=["Broker", "Address", "Alive", "Controller"], tablefmt="plain"))
    partitions = [p for t in topics.values() for p in t.partitions]
    under = sum(1 for p in partitions if len(p.isr) < len(p.replicas))
    offline = sum(1 for p in partitions if p.leader < 0 or p.leader not in live)
    click.echo(f"Topics: {len(topics)}, partitions: {len(partitions)}, under-replicated: {under}, offline: {offline}")


def _read_record(data_dir: Path) -> ClusterPidFile:
    """``data_dir``'s pid file; its absence is a one-line error."""
    record = _pid_file(data_dir)
    if record is None:
        raise click.ClickException(f"No cluster was started in {data_dir.resolve()} (no {data_dir / 'cluster.json'})")
    return record


@cluster.command("stop")
@click.option("--data-dir", type=click.Path(file_okay=False), required=True,
              help="Data directory of a cluster started by 'kafkette cluster start'.")
@click.option("--timeout-ms", type=click.IntRange(1), default=60000, show_default=True,
              help="How long each broker may take to stop cleanly before it is killed (ms).")
def stop(data_dir: str, timeout_ms: int) -> None:
    """Stop every broker of a data directory cleanly (controlled shutdown), killing any that hang."""
    directory = Path(data_dir).resolve()
    record = _read_record(directory)
    if not running_brokers(record):
        remove_pid_file(directory)
        raise click.ClickException(f"No cluster is running in {directory} (its brokers have all exited)")
    stopped, killed = stop_brokers(record, timeout_ms)
    remove_pid_file(directory)
    for broker in killed:
        click.echo(f"Broker {broker.id} (pid {broker.pid}) did not stop within {timeout_ms} ms; killed it", err=True)
    click.echo(f"Stopped {len(stopped) + len(killed)} broker(s) in {directory}"
               + (f" ({len(killed)} killed)" if killed else ""))
