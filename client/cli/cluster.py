"""``kafkette cluster start``: a LocalCluster of N brokers in the foreground.

Prints ``bootstrap.servers=HOST:PORT,...`` once every broker is registered, runs
until SIGINT or SIGTERM, then stops its brokers.  Does not own the launcher
(``kafkette.client.local_cluster``).
"""

from __future__ import annotations

import signal
import tempfile
import threading
from types import FrameType

import click

from kafkette.client.local_cluster import LocalCluster


@click.group()
def cluster() -> None:
    """Run a local multi-broker cluster."""


@cluster.command("start")
@click.option("--brokers", "num_brokers", type=click.IntRange(1, 64), default=3, show_default=True,
              help="Number of brokers.")
@click.option("--data-dir", type=click.Path(file_okay=False), default=None,
              help="Directory for broker configs, logs and data (default: a new temporary directory).")
@click.option("--base-port", type=click.IntRange(1, 65535), default=None,
              help="Listener port of broker 1; broker N uses base-port+N-1 (default: free ports).")
@click.option("--config", "configs", multiple=True, metavar="KEY=VALUE",
              help="Extra server.properties entry for every broker (repeatable).")
def start(num_brokers: int, data_dir: str | None, base_port: int | None, configs: tuple[str, ...]) -> None:
    """Start N brokers, print bootstrap.servers, run until Ctrl-C."""
    from kafkette.client.cli.shared_options import parse_key_value

    overrides = dict(parse_key_value(c, "--config") for c in configs)
    data_dir = data_dir or tempfile.mkdtemp(prefix="kafkette-cluster-")
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    local = LocalCluster(num_brokers=num_brokers, data_dir=data_dir, base_port=base_port,
                         broker_configs=overrides)
    try:
        click.echo(f"Starting {num_brokers} broker(s) in {local.data_dir} ...", err=True)
        local.start()
        click.echo(f"bootstrap.servers={local.bootstrap_servers}")
        click.get_text_stream("stdout").flush()
        while not stop.wait(1.0):
            pass
        click.echo("Stopping brokers ...", err=True)
    finally:
        local.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
