"""Which brokers a ``kafkette`` client command bootstraps from, and failing fast when none listens.

Owns: the order in which a command's bootstrap servers are chosen
(``resolve_bootstrap_servers``), reading them from a data directory's ``cluster.json``
(``servers_of_data_dir``) and the check a command makes before its first request
(``check_a_bootstrap_server_listens``): when every bootstrap address refuses the
connection (or names a host that does not exist), the command ends at once with one line
naming the addresses, where they came from and how to give others, instead of retrying
for ``request.timeout.ms``.  Nothing listening is not a passing state for a command run
by hand; a broker that accepts slowly, a connection that times out or one address of
several refusing are left to the SDK's own retries (Kafka's ``request.timeout.ms``,
``reconnect.backoff.ms``), so a cluster with one broker down keeps working.  Does not own
the click options (``kafkette.client.cli.shared_options``) nor the SDK's default
(``kafkette.client.bootstrap_servers``).

The order, highest first (a flag typed on the command line beats the properties file, as
``--command-config``'s other properties do; the environment comes below both, as a
shell-wide default)::

    --bootstrap-server HOST:PORT,...   or   --data-dir DIR (DIR/cluster.json)   (not both)
    bootstrap.servers in --command-config FILE
    $KAFKETTE_BOOTSTRAP_SERVERS
    127.0.0.1:9092
"""

from __future__ import annotations

import asyncio
import errno
import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import click

from kafkette.client.bootstrap_servers import (
    BOOTSTRAP_SERVERS_ENV,
    DEFAULT_BOOTSTRAP_SERVERS,
    bootstrap_servers_from_environment,
    check_bootstrap_servers,
)
from kafkette.client.client_properties import read_properties_file
from kafkette.client.cluster_pid_file import pid_file_path, read_pid_file
from kafkette.client.kafka_client import parse_bootstrap_servers

# How long the check waits for an address that neither accepts nor refuses (ms); past it the
# command goes on and the SDK's request.timeout.ms applies.
CHECK_TIMEOUT_MS = 1000

DEFAULT_SOURCE = f"the default, as {BOOTSTRAP_SERVERS_ENV} is not set"
HOW_TO_GIVE_OTHERS = (
    f"give others with --bootstrap-server HOST:PORT, --data-dir DIR (of 'kafkette cluster "
    f"start --data-dir DIR') or export {BOOTSTRAP_SERVERS_ENV}=HOST:PORT,..."
)

# errno of a connect that no retry can make succeed: nothing listens (ECONNREFUSED), or the
# address cannot be used from this host at all (EADDRNOTAVAIL: ::1 without IPv6).
_NOTHING_THERE = {errno.ECONNREFUSED: "connection refused", errno.EADDRNOTAVAIL: "address not available"}
_UNKNOWN_HOST = {socket.EAI_NONAME} | ({socket.EAI_NODATA} if hasattr(socket, "EAI_NODATA") else set())


@dataclass(frozen=True)
class BootstrapServers:
    """A command's bootstrap servers and where they came from.

    Attributes:
        servers: ``"host:port,..."``, checked.
        source: for messages: ``"--bootstrap-server"``, ``"bootstrap.servers in FILE"``,
            ``"DIR/cluster.json"``, ``"KAFKETTE_BOOTSTRAP_SERVERS"`` or ``DEFAULT_SOURCE``.
    """

    servers: str
    source: str


def servers_of_data_dir(data_dir: str | os.PathLike[str]) -> str:
    """The bootstrap servers ``kafkette cluster start --data-dir DIR`` recorded in ``DIR/cluster.json``.

    Raises:
        click.ClickException: no such file (the message names it and how to start a cluster
            there), or a file that is not a cluster pid file.
    """
    directory = Path(data_dir).resolve()
    try:
        record = read_pid_file(directory)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    if record is None:
        raise click.ClickException(
            f"No cluster was started in {directory} (no {pid_file_path(directory)}); "
            f"start one with: kafkette cluster start --daemon --data-dir {directory}"
        )
    return record.bootstrap_servers


def resolve_bootstrap_servers(
    *,
    bootstrap_server: str | None,
    data_dir: str | os.PathLike[str] | None,
    command_config: str | None,
    environ: Mapping[str, str] | None = None,
) -> BootstrapServers:
    """Choose a command's bootstrap servers (the order is in the module docstring).

    Args:
        bootstrap_server: ``--bootstrap-server`` as typed, or None.
        data_dir: ``--data-dir`` as typed, or None.
        command_config: the ``--command-config`` (or ``--producer.config``, ...) file, or None.
        environ: the environment (default ``os.environ``).

    Returns:
        The servers, checked, and their source.

    Raises:
        click.UsageError: both ``--bootstrap-server`` and ``--data-dir``, or a malformed
            value (the message names the flag, file or variable it came from).
        click.ClickException: ``--data-dir`` without a ``cluster.json``.
    """
    if bootstrap_server is not None and data_dir is not None:
        raise click.UsageError("Give one of --bootstrap-server and --data-dir, not both")
    try:
        if bootstrap_server is not None:
            return BootstrapServers(
                check_bootstrap_servers(bootstrap_server, "--bootstrap-server"), "--bootstrap-server"
            )
        if data_dir is not None:
            source = str(pid_file_path(Path(data_dir).resolve()))
            return BootstrapServers(check_bootstrap_servers(servers_of_data_dir(data_dir), source), source)
        if command_config is not None:
            configured = read_properties_file(command_config).get("bootstrap.servers")
            if configured is not None:
                return BootstrapServers(
                    check_bootstrap_servers(configured, command_config),
                    f"bootstrap.servers in {command_config}",
                )
        from_environment = bootstrap_servers_from_environment(environ)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    if from_environment is not None:
        return BootstrapServers(from_environment, BOOTSTRAP_SERVERS_ENV)
    return BootstrapServers(DEFAULT_BOOTSTRAP_SERVERS, DEFAULT_SOURCE)


def describe_default(environ: Mapping[str, str] | None = None) -> str:
    """What ``--bootstrap-server`` falls back to now, for ``--help``: ``$KAFKETTE_BOOTSTRAP_SERVERS``'s
    value when set, else ``127.0.0.1:9092``."""
    raw = (os.environ if environ is None else environ).get(BOOTSTRAP_SERVERS_ENV, "")
    if raw.strip():
        return f"{raw.strip()} from {BOOTSTRAP_SERVERS_ENV}"
    return f"{DEFAULT_BOOTSTRAP_SERVERS} ({BOOTSTRAP_SERVERS_ENV} is not set)"


async def _nothing_there(host: str, port: int) -> str | None:
    """Try one TCP connection to ``host:port`` (each address it resolves to, in turn).

    Returns:
        Why no broker can answer there (``"connection refused"``, ``"unknown host"``), or
        None when an address accepted, or failed in a way a retry may not repeat
        (unreachable, reset, a DNS server not answering).
    """
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        return "unknown host" if exc.errno in _UNKNOWN_HOST else None
    reasons: list[str] = []
    for family, kind, proto, _, address in infos:
        try:
            with socket.socket(family, kind, proto) as sock:
                sock.setblocking(False)
                await loop.sock_connect(sock, address)
            return None  # a listener: the connection is closed unused, the broker drops it
        except OSError as exc:
            if exc.errno not in _NOTHING_THERE:
                return None
            reasons.append(_NOTHING_THERE[exc.errno])
    return "connection refused" if "connection refused" in reasons or not reasons else reasons[0]


async def check_a_bootstrap_server_listens(
    bootstrap: BootstrapServers, timeout_ms: int = CHECK_TIMEOUT_MS
) -> None:
    """Fail at once when no bootstrap address can ever answer: every one refuses the connection
    or names an unknown host.

    All addresses are tried together; the check returns as soon as one accepts (that
    connection is closed unused) or fails otherwise, and after ``timeout_ms`` (ms) when some
    neither accept nor refuse: those cases are left to the SDK's own timeouts.

    Raises:
        click.ClickException: every address refused, one line: ``No broker of
            127.0.0.1:1,127.0.0.1:2 answers: connection refused (bootstrap servers from
            --bootstrap-server); give others with ...``.
    """
    addresses = parse_bootstrap_servers(bootstrap.servers)
    tasks = [asyncio.ensure_future(_nothing_there(host, port)) for host, port in addresses]
    try:
        async with asyncio.timeout(timeout_ms / 1000):
            for done in asyncio.as_completed(tasks):
                if await done is None:
                    return
    except TimeoutError:
        return
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    reasons = [task.result() for task in tasks]
    if len(set(reasons)) == 1:
        why = reasons[0]
    else:
        why = ", ".join(
            f"{host}:{port} {reason}" for (host, port), reason in zip(addresses, reasons, strict=True)
        )
    raise click.ClickException(
        f"No broker of {bootstrap.servers} answers: {why} (bootstrap servers from "
        f"{bootstrap.source}); {HOW_TO_GIVE_OTHERS}"
    )
