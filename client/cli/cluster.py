"""``kafkette cluster start|status|stop|restart-broker``: a local cluster you can run, see and stop.

``start`` launches a LocalCluster of N brokers, prints ``bootstrap.servers=HOST:PORT,...``
(and ``kafka.bootstrap.servers=...`` with ``--kafka-protocol``) on stdout once every broker is
registered (and, with ``--security sasl_ssl``, ``admin.properties=PATH``: the admin's client
properties), and on stderr the ``export KAFKETTE_BOOTSTRAP_SERVERS=...`` line that makes client
commands and the SDK find it; it records the brokers in ``<data-dir>/cluster.json``.  A node
that exits while the cluster starts fails the start at once, named with its exit code, reason
and log, and the others are stopped.  On a data directory that holds a cluster, ``start``
starts it again as its ``server.properties`` say (same ports, a user's edits kept; a port
another process took moves, said in one line), or, when some of its brokers run, only the
others.  In the foreground it says when it is ready and when a broker exits, and runs until
SIGINT or SIGTERM (then it stops the cluster) or until no broker runs (``cluster stop`` from
another shell); with ``--daemon`` it returns and leaves them running.  ``restart-broker``
stops one broker cleanly (when it runs) and starts it again.  ``status`` shows the brokers (id,
address, the Kafka-protocol listener's address when there is one, alive, controller:
``active`` for the metadata quorum's leader, ``voter`` for the other voters) and the topic,
partition, under-replicated and offline partition counts; ``stop`` stops a data directory's
brokers with SIGTERM (each does its controlled shutdown, the voters last, together) and reports
any it had to kill.  Does not own the launcher (``kafkette.client.local_cluster``), the on-disk
layout (``kafkette.client.local_cluster_layout``), the foreground supervision
(``kafkette.client.cli.cluster_supervisor``) or the pid file
(``kafkette.client.cluster_pid_file``).
"""

from __future__ import annotations

import shlex
import signal
import tempfile
import threading
from collections.abc import Iterable
from pathlib import Path
from types import FrameType

import click

from kafkette.client.bootstrap_servers import BOOTSTRAP_SERVERS_ENV
from kafkette.client.cli.cluster_supervisor import ClusterSupervisor
from kafkette.client.cli.shared_options import (
    admin_client,
    bootstrap_server_option,
    parse_key_value,
    run_coroutine,
)
from kafkette.client.cluster_pid_file import (
    BrokerProcess,
    ClusterPidFile,
    is_alive,
    read_pid_file,
    remove_pid_file,
    running_brokers,
    stop_brokers,
    write_pid_file,
)
from kafkette.client.local_cluster import FAILED_START_STOP_TIMEOUT_S, LocalCluster
from kafkette.client.local_cluster_layout import ClusterLayout, read_cluster_layout, set_properties
from kafkette.client.local_cluster_security import admin_properties_path
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


@cluster.command("start")
@click.option(
    "--brokers",
    "num_brokers",
    type=click.IntRange(1, 64),
    default=None,
    help="Number of brokers  [default: 3, or as many as the data directory holds]",
)
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Directory for broker configs, logs and data (default: a new temporary directory). "
    "A directory that holds a cluster starts it again as its server.properties say "
    "(same ports); with some of its brokers running, only the others start.",
)
@click.option(
    "--base-port",
    type=click.IntRange(1, 65535),
    default=None,
    help="Listener port of broker 1; broker N uses base-port+N-1 (default: free ports).",
)
@click.option(
    "--config",
    "configs",
    multiple=True,
    metavar="KEY=VALUE",
    help="Extra server.properties entry for every broker (repeatable); on a data directory that "
    "holds a cluster, set in each node's server.properties.",
)
@click.option(
    "--controllers",
    type=click.Choice(["1", "3", "5"]),
    default=None,
    help="How many of the brokers (the first ones) are also voters of the metadata quorum "
    "(process.roles=broker,controller)  [default: 3, or every broker of a smaller cluster]",
)
@click.option(
    "--daemon",
    is_flag=True,
    help="Return once the cluster serves and leave it running (stop it with 'kafkette cluster stop').",
)
@click.option(
    "--kafka-protocol",
    is_flag=True,
    help="Give every broker a second listener speaking Apache Kafka's protocol (for kcat, librdkafka, "
    "kafka-python, aiokafka, Kafka's tools) and print kafka.bootstrap.servers.",
)
@click.option(
    "--security",
    type=click.Choice(["plaintext", "sasl_ssl"], case_sensitive=False),
    default=None,
    help="plaintext, or sasl_ssl: a CA and broker certificates in the data directory, SASL_SSL "
    "listeners, an admin super user (SCRAM-SHA-512, random password) and DATA_DIR/admin.properties, "
    "its client properties (--command-config), whose path is printed  [default: plaintext, or as the "
    "data directory's cluster is]",
)
def start(
    num_brokers: int | None,
    data_dir: str | None,
    base_port: int | None,
    configs: tuple[str, ...],
    controllers: str | None,
    daemon: bool,
    kafka_protocol: bool,
    security: str | None,
) -> None:
    """Start N brokers and print bootstrap.servers; run until Ctrl-C, or return with --daemon."""
    overrides = dict(parse_key_value(c, "--config") for c in configs)
    directory = Path(data_dir).resolve() if data_dir is not None else None
    running = _running_brokers(directory) if directory is not None else []
    try:
        layout = read_cluster_layout(directory) if directory is not None else None
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    if directory is None or layout is None:  # a new cluster: --controllers counts among its brokers
        if controllers is not None and int(controllers) > (num_brokers or 3):
            raise click.BadParameter(
                f"{controllers} voters need at least {controllers} brokers, not {num_brokers or 3}",
                param_hint="'--controllers'",
            )
        local = LocalCluster(
            num_brokers=num_brokers or 3,
            data_dir=directory or tempfile.mkdtemp(prefix="kafkette-cluster-"),
            base_port=base_port,
            broker_configs=overrides,
            detached=daemon,
            controllers=None if controllers is None else int(controllers),
            kafka_protocol=kafka_protocol,
            security=security or "PLAINTEXT",
        )
    else:
        _check_flags_fit(directory, layout, num_brokers, base_port, controllers, kafka_protocol, security)
        local = _existing_cluster(directory, running, overrides, detached=daemon or bool(running))
    if running:
        _start_missing(local)
    elif daemon:
        _start_daemon(local)
    else:
        _start_foreground(local)


def _running_brokers(directory: Path) -> list[BrokerProcess]:
    """The brokers of ``directory``'s pid file that run; refuses a cluster that runs whole, drops
    a pid file none of whose brokers runs."""
    record = _pid_file(directory)
    if record is None:
        return []
    alive = running_brokers(record)
    if not alive:
        remove_pid_file(directory)
        return []
    try:
        layout = read_cluster_layout(directory)
    except ValueError:
        layout = None
    nodes = set(layout.nodes) if layout is not None else {b.id for b in record.brokers}
    if nodes <= {b.id for b in alive}:
        pids = ", ".join(str(b.pid) for b in alive)
        raise click.ClickException(
            f"A cluster is already running in {directory} (pids {pids}); "
            f"stop it with: kafkette cluster stop --data-dir {directory}"
        )
    return alive


def _check_flags_fit(
    directory: Path,
    layout: ClusterLayout,
    num_brokers: int | None,
    base_port: int | None,
    controllers: str | None,
    kafka_protocol: bool,
    security: str | None,
) -> None:
    """Refuse, in one line, layout flags that differ from the cluster ``directory`` holds."""
    secure = admin_properties_path(directory).is_file()
    brokers = layout.broker_ids
    first_port = layout.nodes[brokers[0]].port if brokers else None
    has_kafka = any(n.kafka_port is not None for n in layout.nodes.values())
    misfits = [
        flag
        for flag, fits in (
            (f"--brokers {num_brokers}", num_brokers is None or num_brokers == len(brokers)),
            (f"--controllers {controllers}", controllers is None or int(controllers) == len(layout.voters)),
            (f"--base-port {base_port}", base_port is None or base_port == first_port),
            ("--kafka-protocol", not kafka_protocol or has_kafka),
            (f"--security {security}", security is None or (security.upper() == "SASL_SSL") == secure),
        )
        if not fits
    ]
    if misfits:
        raise click.ClickException(
            f"{directory} holds a cluster of {len(brokers)} broker(s) ({len(layout.voters)} voter(s), "
            f"broker 1 on port {first_port}, {'with' if has_kafka else 'no'} Kafka-protocol listeners"
            f"{', sasl_ssl' if secure else ''}) "
            f"that {', '.join(misfits)} does not fit; "
            f"start it without {'them' if len(misfits) > 1 else 'it'}, edit its server.properties, "
            f"or use a new --data-dir"
        )


def _existing_cluster(
    directory: Path, running: list[BrokerProcess], overrides: dict[str, str], detached: bool
) -> LocalCluster:
    """The cluster ``directory`` holds, ready to start the nodes that do not run: ``--config``
    entries set in each node's server.properties, ports that another process took moved (a line
    each)."""
    try:
        local = LocalCluster.from_data_dir(directory, running=running, detached=detached)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    if overrides:
        if running:
            raise click.ClickException(
                f"--config sets every node's server.properties, and brokers {_ids(running)} of {directory} "
                f"run; stop the cluster first, or edit the server.properties of the brokers that do not run"
            )
        for node_id in local.node_ids:
            set_properties(local.config_path(node_id), overrides)
        click.echo(
            f"Set {', '.join(f'{k}={v}' for k, v in overrides.items())} in the server.properties of "
            f"nodes {_ids(local.node_ids)}",
            err=True,
        )
    for line in local.move_taken_ports([n for n in local.node_ids if not local.is_running(n)]):
        click.echo(line, err=True)
    return local


def _ids(items: Iterable[int | BrokerProcess]) -> str:
    return ", ".join(str(i.id if isinstance(i, BrokerProcess) else i) for i in items)


def _record(local: LocalCluster) -> ClusterPidFile:
    """Write ``cluster.json`` for the running nodes of ``local``."""
    return write_pid_file(
        local.data_dir,
        local.bootstrap_servers,
        tuple(local.voter_ids),
        local.pids(),
        local.ports,
        local.kafka_ports,
        local.kafka_bootstrap_servers if local.kafka_protocol else "",
    )


def _echo_bootstrap(local: LocalCluster) -> None:
    """Print ``bootstrap.servers=...`` and, with Kafka-protocol listeners, ``kafka.bootstrap.servers=...``
    (stdout, which scripts parse), then the line that makes client commands and the SDK find the
    cluster (stderr)."""
    click.echo(f"bootstrap.servers={local.bootstrap_servers}")
    if local.kafka_protocol:
        click.echo(f"kafka.bootstrap.servers={local.kafka_bootstrap_servers}")
    if local.security != "PLAINTEXT":
        click.echo(f"admin.properties={local.admin_properties_path}")
    click.get_text_stream("stdout").flush()
    click.echo(f"export {BOOTSTRAP_SERVERS_ENV}={shlex.quote(local.bootstrap_servers)}", err=True)
    if local.security != "PLAINTEXT":
        command_config = shlex.quote(str(local.admin_properties_path))
        click.echo(
            f"The admin user's client properties (mode 0600): {local.admin_properties_path}; use them "
            f"with: kafkette topics list --command-config {command_config}"
            + (
                f" (Kafka's tools: --bootstrap-server {local.kafka_bootstrap_servers} --command-config "
                f"{command_config})"
                if local.kafka_protocol
                else ""
            ),
            err=True,
        )


def _start_missing(local: LocalCluster) -> None:
    """Start the nodes of a partly running cluster that do not run, and return (they keep running)."""
    down = [n for n in local.node_ids if not local.is_running(n)]
    click.echo(
        f"Brokers {_ids(local.pids())} of {local.data_dir} run; starting node(s) {_ids(down)} ...", err=True
    )
    local.start()  # stops what it started when a node fails to come up
    _record(local)
    _echo_bootstrap(local)
    click.echo(
        f"Started node(s) {_ids(down)}; stop the cluster with: kafkette cluster stop --data-dir "
        f"{local.data_dir}",
        err=True,
    )


def _start_daemon(local: LocalCluster) -> None:
    click.echo(f"Starting {local.num_brokers} broker(s) in {local.data_dir} ...", err=True)
    local.start()  # stops what it started when a broker fails to come up
    _record(local)
    _echo_bootstrap(local)
    click.echo(
        "The cluster runs in the background; stop it with: "
        f"kafkette cluster stop --data-dir {local.data_dir}",
        err=True,
    )


def _start_foreground(local: LocalCluster) -> None:
    """Start ``local``, say it is ready, and supervise it until Ctrl-C, SIGTERM, ``kafkette cluster
    stop`` or the exit of every broker (see ``ClusterSupervisor``)."""
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        click.echo(f"Starting {local.num_brokers} broker(s) in {local.data_dir} ...", err=True)
        try:
            local.start()
            record = _record(local)
        except BaseException:
            local.stop()
            raise
        _echo_bootstrap(local)
        click.echo(
            f"Ready: bootstrap.servers={local.bootstrap_servers}, data dir {local.data_dir}; Ctrl-C stops it",
            err=True,
        )
        exit_code = ClusterSupervisor(local, record, lambda line: click.echo(line, err=True)).run(stop)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if exit_code:
        raise SystemExit(exit_code)


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
    exited = {
        b.id for b in recorded.values() if not is_alive(b)
    }  # Metadata lists them until their session ends
    live = {b.node_id: f"{b.host}:{b.port}" for b in described["brokers"] if b.node_id not in exited}
    leader = quorum.leader_id if quorum is not None else -1
    voters = (
        {v.replica_id for v in quorum.voters}
        if quorum is not None
        else set(record.voter_ids if record else ())
    )
    kafka_addresses = {
        b.id: f"127.0.0.1:{b.kafka_port}" for b in recorded.values() if b.kafka_port is not None
    }
    rows = []
    for broker_id in sorted(set(live) | set(recorded)):
        address = live.get(broker_id) or (
            f"127.0.0.1:{recorded[broker_id].port}" if broker_id in recorded else "?"
        )
        role = "active" if broker_id == leader else "voter" if broker_id in voters else "-"
        rows.append(
            [
                broker_id,
                address,
                *([kafka_addresses.get(broker_id, "-")] if kafka_addresses else []),
                "yes" if broker_id in live else "no",
                role,
            ]
        )
    headers = ["Broker", "Address", *(["Kafka address"] if kafka_addresses else []), "Alive", "Controller"]
    click.echo(tabulate(rows, headers=headers, tablefmt="plain"))
    partitions = [p for t in topics.values() for p in t.partitions]
    under = sum(1 for p in partitions if len(p.isr) < len(p.replicas))
    offline = sum(1 for p in partitions if p.leader < 0 or p.leader not in live)
    click.echo(
        f"Topics: {len(topics)}, partitions: {len(partitions)}, under-replicated: {under}, offline: {offline}"
    )


def _read_record(data_dir: Path) -> ClusterPidFile:
    """``data_dir``'s pid file; its absence is a one-line error."""
    record = _pid_file(data_dir)
    if record is None:
        raise click.ClickException(
            f"No cluster was started in {data_dir.resolve()} (no {data_dir / 'cluster.json'})"
        )
    return record


@cluster.command("stop")
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False),
    required=True,
    help="Data directory of a cluster started by 'kafkette cluster start'.",
)
@click.option(
    "--timeout-ms",
    type=click.IntRange(1),
    default=60000,
    show_default=True,
    help="How long each broker may take to stop cleanly before it is killed (ms).",
)
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
        click.echo(
            f"Broker {broker.id} (pid {broker.pid}) did not stop within {timeout_ms} ms; killed it", err=True
        )
    click.echo(
        f"Stopped {len(stopped) + len(killed)} broker(s) in {directory}"
        + (f" ({len(killed)} killed)" if killed else "")
    )


@cluster.command("restart-broker")
@click.argument("broker_id", type=click.IntRange(0), metavar="BROKER_ID")
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False),
    required=True,
    help="Data directory of a cluster started by 'kafkette cluster start'.",
)
@click.option(
    "--timeout-ms",
    type=click.IntRange(1),
    default=60000,
    show_default=True,
    help="How long a running broker may take to stop cleanly before it is killed (ms).",
)
def restart_broker(broker_id: int, data_dir: str, timeout_ms: int) -> None:
    """Restart one broker of a running cluster: stop it cleanly when it runs (controlled shutdown),
    start it again with its server.properties (same port unless another process took it), and
    wait until every running broker lists it."""
    directory = Path(data_dir).resolve()
    record = _read_record(directory)
    alive = running_brokers(record)
    if not alive:
        remove_pid_file(directory)
        raise click.ClickException(
            f"No broker of {directory} runs; start the cluster with: "
            f"kafkette cluster start --data-dir {directory}"
        )
    try:
        local = LocalCluster.from_data_dir(
            directory, running=[b for b in alive if b.id != broker_id], detached=True
        )
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    if broker_id not in local.node_ids:
        raise click.ClickException(
            f"{directory} has no node {broker_id}; its nodes are {_ids(local.node_ids)}"
        )
    kind = local.node_kind(broker_id)
    for broker in (b for b in alive if b.id == broker_id):
        stopped, killed = stop_brokers(
            ClusterPidFile(record.bootstrap_servers, record.voter_ids, (broker,)), timeout_ms
        )
        click.echo(
            f"Stopped {kind} {broker_id} (pid {broker.pid})"
            + (f"; it did not stop within {timeout_ms} ms, killed it" if killed else ""),
            err=True,
        )
    for line in local.move_taken_ports([broker_id]):
        click.echo(line, err=True)
    try:
        local.start_broker(broker_id)
    except BaseException:
        local.stop(timeout_s=FAILED_START_STOP_TIMEOUT_S)
        _record(local)  # the broker is down: the record says so
        raise
    _record(local)
    _echo_bootstrap(local)
    click.echo(
        f"Restarted {kind} {broker_id} (pid {local.pid(broker_id)}) on "
        f"{local.hosts[broker_id]}:{local.ports[broker_id]}",
        err=True,
    )
