"""``kafkette metadata-quorum describe --status | --replication``: the metadata quorum, as Kafka prints it.

Owns: the command and its two outputs.  ``--status``: ``ClusterId``, ``LeaderId``,
``LeaderEpoch``, ``HighWatermark``, ``MaxFollowerLag``, ``MaxFollowerLagTimeMs``,
``CurrentVoters``, ``CurrentObservers``, one per line.  ``--replication``: a table with
``NodeId``, ``LogEndOffset``, ``Lag``, ``LastFetchTimestamp``, ``LastCaughtUpTimestamp``
and ``Status`` (Leader, Follower or Observer), the leader first.  The data comes from
``AdminClient.describe_metadata_quorum``.  Kafka concept: ``kafka-metadata-quorum.sh``
(``MetadataQuorumCommand``).
"""

from __future__ import annotations

import time

import click

from kafkette.client.cli.shared_options import admin_client, bootstrap_server_option, run_coroutine
from kafkette.client.quorum_info import QuorumInfo


def status_lines(cluster_id: str | None, info: QuorumInfo, now_ms: int) -> list[str]:
    """The ``--status`` output, one ``Name:   value`` line per field, as Kafka aligns them."""
    fields = [
        ("ClusterId", cluster_id or ""),
        ("LeaderId", info.leader_id),
        ("LeaderEpoch", info.leader_epoch),
        ("HighWatermark", info.high_watermark),
        ("MaxFollowerLag", info.max_follower_lag()),
        ("MaxFollowerLagTimeMs", info.max_follower_lag_time_ms(now_ms)),
        ("CurrentVoters", "[" + ",".join(str(v) for v in sorted(v.replica_id for v in info.voters)) + "]"),
        (
            "CurrentObservers",
            "[" + ",".join(str(o) for o in sorted(o.replica_id for o in info.observers)) + "]",
        ),
    ]
    return [f"{name + ':':<24}{value}" for name, value in fields]


def replication_rows(info: QuorumInfo) -> list[list[object]]:
    """The ``--replication`` rows: the leader, the other voters, then observers."""
    voters = sorted(info.voters, key=lambda v: (v.replica_id != info.leader_id, v.replica_id))
    rows: list[list[object]] = []
    for replica, kind in [*((v, "Follower") for v in voters), *((o, "Observer") for o in info.observers)]:
        status = "Leader" if replica.replica_id == info.leader_id else kind
        rows.append(
            [
                replica.replica_id,
                replica.log_end_offset,
                info.lag(replica),
                replica.last_fetch_timestamp,
                replica.last_caught_up_timestamp,
                status,
            ]
        )
    return rows


@click.group("metadata-quorum")
def metadata_quorum() -> None:
    """Describe the controllers' metadata quorum."""


@metadata_quorum.command("describe")
@click.option(
    "--status", "show_status", is_flag=True, help="Leader, epoch, high watermark, lag, voters, observers."
)
@click.option(
    "--replication", "show_replication", is_flag=True, help="Log end offset and lag of every replica."
)
@click.option("--request-timeout-ms", type=click.IntRange(1), default=30000, show_default=True)
@bootstrap_server_option
def describe(
    show_status: bool, show_replication: bool, request_timeout_ms: int, bootstrap_server: str
) -> None:
    """Describe the metadata quorum (one of --status and --replication)."""
    from tabulate import tabulate  # only --replication needs it

    if show_status == show_replication:
        raise click.UsageError("Give exactly one of --status and --replication")

    async def run() -> tuple[str | None, QuorumInfo]:
        async with admin_client(bootstrap_server, request_timeout_ms, "kafkette-metadata-quorum") as admin:
            cluster_id = (await admin.describe_cluster())["cluster_id"]
            return cluster_id, await admin.describe_metadata_quorum()

    cluster_id, info = run_coroutine(run())
    if show_status:
        click.echo("\n".join(status_lines(cluster_id, info, int(time.time() * 1000))))
        return
    click.echo(
        tabulate(
            replication_rows(info),
            tablefmt="plain",
            headers=[
                "NodeId",
                "LogEndOffset",
                "Lag",
                "LastFetchTimestamp",
                "LastCaughtUpTimestamp",
                "Status",
            ],
        )
    )
