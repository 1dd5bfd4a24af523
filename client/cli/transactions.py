"""``kafkette transactions``: list, describe and abort transactions, describe a partition's producers
and find hanging transactions, as ``kafka-transactions.sh`` does.

Owns: the command group and its subcommands with Kafka's flags: ``list`` (``--duration-filter``,
``--transactional-id-pattern``), ``describe --transactional-id``, ``describe-producers --topic
--partition [--broker-id]``, ``abort --topic --partition`` with ``--start-offset`` or
``--producer-id --producer-epoch --coordinator-epoch``, ``find-hanging`` (``--broker-id`` and/or
``--topic [--partition]``, ``--max-transaction-timeout`` in minutes, 15 by default),
``forceTerminateTransaction --transactionalId`` (Kafka's spelling: fences the id's producer, which
aborts its transaction); Kafka's tables
(``ToolsUtils.prettyPrintTable``: each cell padded to its column's width, then a tab) with Kafka's
headers; and Kafka's error lines ("Failed to describe producers for partition t-0 on leader: ...").
The data comes from the AdminClient (``kafkette.client.admin_transactions``).

Kafka concept: ``kafka-transactions.sh`` (``org.apache.kafka.tools.TransactionsCommand``).
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass

import click

from kafkette.client.admin_transactions import (
    AbortTransactionSpec,
    PartitionProducerState,
    ProducerState,
    TransactionDescription,
    TransactionListing,
)
from kafkette.client.cli.shared_options import admin_client, bootstrap_server_option, run_coroutine
from kafkette.protocol.errors import Errors, KafkaError
from kafkette.protocol.topic_partition import TopicPartition

LIST_HEADERS = ("TransactionalId", "Coordinator", "ProducerId", "TransactionState")
DESCRIBE_HEADERS = (
    "CoordinatorId",
    "TransactionalId",
    "ProducerId",
    "ProducerEpoch",
    "TransactionState",
    "TransactionTimeoutMs",
    "CurrentTransactionStartTimeMs",
    "TransactionDurationMs",
    "TopicPartitions",
)
PRODUCERS_HEADERS = (
    "ProducerId",
    "ProducerEpoch",
    "LatestCoordinatorEpoch",
    "LastSequence",
    "LastTimestamp",
    "CurrentTransactionStartOffset",
)
HANGING_HEADERS = (
    "Topic",
    "Partition",
    "ProducerId",
    "ProducerEpoch",
    "CoordinatorEpoch",
    "StartOffset",
    "LastTimestamp",
    "Duration(min)",
)
CLIENT_ID = "kafkette-transactions"


def pretty_print_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """Kafka's ``ToolsUtils.prettyPrintTable`` as lines: each cell left-aligned and padded with
    spaces to its column's widest cell (header included), each followed by a tab."""
    widths = [len(h) for h in headers]
    for row in rows:
        widths = [max(w, len(cell)) for w, cell in zip(widths, row, strict=True)]
    return [
        "".join(cell.ljust(w) + "\t" for cell, w in zip(line, widths, strict=True))
        for line in [headers, *rows]
    ]


def _echo_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    for line in pretty_print_table(headers, rows):
        click.echo(line)


def _failed(message: str, exc: BaseException) -> click.ClickException:
    """Kafka's ``printErrorAndExit(message, cause)`` line (the cause's own final period dropped)."""
    return click.ClickException(
        f"{message}: {str(exc).rstrip('.')}. Enable debug logging for additional detail."
    )


def list_rows(by_broker: dict[int, list[TransactionListing]]) -> list[list[str]]:
    """``list``'s rows: per broker (by id), its coordinator's transactions."""
    return [
        [listing.transactional_id, str(broker_id), str(listing.producer_id), listing.state]
        for broker_id, listings in by_broker.items()
        for listing in listings
    ]


def describe_row(transactional_id: str, description: TransactionDescription, now_ms: int) -> list[str]:
    """``describe``'s one row; the start time and duration are ``None`` with no open transaction."""
    start = description.transaction_start_time_ms
    return [
        str(description.coordinator_id),
        transactional_id,
        str(description.producer_id),
        str(description.producer_epoch),
        description.state,
        str(description.transaction_timeout_ms),
        "None" if start is None else str(start),
        "None" if start is None else str(now_ms - start),
        ",".join(str(tp) for tp in sorted(description.topic_partitions)),
    ]


def producer_rows(state: PartitionProducerState) -> list[list[str]]:
    """``describe-producers``' rows, one per active producer."""
    return [
        [
            str(p.producer_id),
            str(p.producer_epoch),
            str(-1 if p.coordinator_epoch is None else p.coordinator_epoch),
            str(p.last_sequence),
            str(p.last_timestamp),
            "None" if p.current_transaction_start_offset is None else str(p.current_transaction_start_offset),
        ]
        for p in state.active_producers
    ]


@dataclass(frozen=True, slots=True)
class OpenTransaction:
    """A producer's open transaction on one partition (find-hanging's candidate)."""

    topic_partition: TopicPartition
    producer_state: ProducerState


def candidate_open_transactions(
    producers: dict[TopicPartition, PartitionProducerState], max_transaction_timeout_ms: int, now_ms: int
) -> list[OpenTransaction]:
    """The open transactions whose producer's last batch is older than ``max_transaction_timeout_ms``
    (Kafka's ``collectCandidateOpenTransactions``)."""
    return [
        OpenTransaction(tp, p)
        for tp, state in producers.items()
        for p in state.active_producers
        if p.current_transaction_start_offset is not None
        and now_ms - p.last_timestamp > max_transaction_timeout_ms
    ]


def hanging_transactions(
    candidates: list[OpenTransaction],
    transactional_ids: dict[int, str],
    descriptions: dict[str, TransactionDescription | None],
) -> list[OpenTransaction]:
    """The candidates no coordinator will finish (Kafka's ``filterHangingTransactions``): a producer
    id no coordinator lists, a transactional id its coordinator does not know (``descriptions``
    value None), or a partition outside the partitions its coordinator holds for the transaction."""
    hanging = []
    for candidate in candidates:
        transactional_id = transactional_ids.get(candidate.producer_state.producer_id)
        description = None if transactional_id is None else descriptions.get(transactional_id)
        if description is None or candidate.topic_partition not in description.topic_partitions:
            hanging.append(candidate)
    return hanging


def hanging_rows(hanging: list[OpenTransaction], now_ms: int) -> list[list[str]]:
    """``find-hanging``'s rows; the duration is whole minutes since the producer's last batch."""
    return [
        [
            t.topic_partition.topic,
            str(t.topic_partition.partition),
            str(t.producer_state.producer_id),
            str(t.producer_state.producer_epoch),
            str(-1 if t.producer_state.coordinator_epoch is None else t.producer_state.coordinator_epoch),
            str(
                -1
                if t.producer_state.current_transaction_start_offset is None
                else t.producer_state.current_transaction_start_offset
            ),
            str(t.producer_state.last_timestamp),
            str((now_ms - t.producer_state.last_timestamp) // 60_000),
        ]
        for t in hanging
    ]


def abort_spec_from_flags(
    tp: TopicPartition,
    start_offset: int | None,
    producer_id: int | None,
    producer_epoch: int | None,
    coordinator_epoch: int | None,
) -> AbortTransactionSpec | None:
    """The spec ``abort``'s producer flags give, or None when ``--start-offset`` is to be looked up.
    A negative ``--coordinator-epoch`` becomes 0, as Kafka's tool does (a producer whose
    transaction hung before any marker shows -1).

    Raises:
        click.UsageError: neither way of naming the transaction, both, or a missing producer flag.
    """
    if start_offset is None and producer_id is None:
        raise click.UsageError(
            "The transaction to abort must be identified either with --start-offset (for brokers on 3.0 "
            "or above) or with --producer-id, --producer-epoch, and --coordinator-epoch (for older brokers)"
        )
    if start_offset is not None:
        if producer_id is not None or producer_epoch is not None or coordinator_epoch is not None:
            raise click.UsageError(
                "Give either --start-offset or --producer-id, --producer-epoch and --coordinator-epoch, "
                "not both"
            )
        return None
    if producer_epoch is None:
        raise click.UsageError("Missing required argument --producer-epoch")
    if coordinator_epoch is None:
        raise click.UsageError("Missing required argument --coordinator-epoch")
    assert producer_id is not None
    return AbortTransactionSpec(tp, producer_id, producer_epoch, max(coordinator_epoch, 0))


def _now_ms() -> int:
    return int(time.time() * 1000)


@click.group("transactions")
def transactions() -> None:
    """Analyze the transactional state of producers; detect and abort hanging transactions
    (kafka-transactions.sh)."""


@transactions.command("list")
@click.option(
    "--duration-filter",
    type=int,
    default=None,
    help="Duration (in millis) to filter by: if < 0, all transactions will be returned; otherwise, "
    "only transactions running longer than this duration will be returned.",
)
@click.option("--transactional-id-pattern", default=None, help="Transactional id regular expression pattern.")
@bootstrap_server_option
def list_(duration_filter: int | None, transactional_id_pattern: str | None, bootstrap_server: str) -> None:
    """List transactions (every broker's coordinator)."""
    if transactional_id_pattern is not None:
        try:
            re.compile(transactional_id_pattern)
        except re.error as exc:
            raise click.BadParameter(
                f"{transactional_id_pattern!r} is not a regular expression: {exc}",
                param_hint="--transactional-id-pattern",
            ) from None

    async def run() -> dict[int, list[TransactionListing]]:
        async with admin_client(bootstrap_server, None, CLIENT_ID) as admin:
            try:
                return await admin.list_transactions_by_broker_id(
                    duration_filter_ms=duration_filter, transactional_id_pattern=transactional_id_pattern
                )
            except KafkaError as exc:
                raise _failed("Failed to list transactions", exc) from exc

    _echo_table(LIST_HEADERS, list_rows(run_coroutine(run())))


@transactions.command("describe")
@click.option("--transactional-id", required=True, help="Transactional id.")
@bootstrap_server_option
def describe(transactional_id: str, bootstrap_server: str) -> None:
    """Describe the state of an active transactional-id."""

    async def run() -> TransactionDescription:
        async with admin_client(bootstrap_server, None, CLIENT_ID) as admin:
            try:
                return (await admin.describe_transactions([transactional_id]))[transactional_id]
            except KafkaError as exc:
                raise _failed(
                    f"Failed to describe transaction state of transactional-id `{transactional_id}`", exc
                ) from exc

    description = run_coroutine(run())
    _echo_table(DESCRIBE_HEADERS, [describe_row(transactional_id, description, _now_ms())])


@transactions.command("describe-producers")
@click.option("--broker-id", type=int, default=None, help="Describe the producer state on this replica.")
@click.option("--topic", required=True, help="Topic name.")
@click.option("--partition", type=click.IntRange(0), required=True, help="Partition number.")
@bootstrap_server_option
def describe_producers(broker_id: int | None, topic: str, partition: int, bootstrap_server: str) -> None:
    """Describe the states of active producers for a topic partition."""
    tp = TopicPartition(topic, partition)

    async def run() -> PartitionProducerState:
        async with admin_client(bootstrap_server, None, CLIENT_ID) as admin:
            try:
                return (await admin.describe_producers([tp], broker_id=broker_id))[tp]
            except KafkaError as exc:
                where = "leader" if broker_id is None else f"broker {broker_id}"
                raise _failed(f"Failed to describe producers for partition {tp} on {where}", exc) from exc

    _echo_table(PRODUCERS_HEADERS, producer_rows(run_coroutine(run())))


@transactions.command("abort")
@click.option("--topic", required=True, help="Topic name.")
@click.option("--partition", type=click.IntRange(0), required=True, help="Partition number.")
@click.option("--start-offset", type=click.IntRange(0), default=None, help="Start offset of the transaction.")
@click.option("--producer-id", type=int, default=None, help="Producer id (older brokers' way).")
@click.option("--producer-epoch", type=click.IntRange(0, 32767), default=None, help="Producer epoch.")
@click.option("--coordinator-epoch", type=int, default=None, help="Coordinator epoch.")
@bootstrap_server_option
def abort(
    topic: str,
    partition: int,
    start_offset: int | None,
    producer_id: int | None,
    producer_epoch: int | None,
    coordinator_epoch: int | None,
    bootstrap_server: str,
) -> None:
    """Abort a hanging transaction (requires administrative privileges)."""
    tp = TopicPartition(topic, partition)
    given = abort_spec_from_flags(tp, start_offset, producer_id, producer_epoch, coordinator_epoch)

    async def run() -> None:
        async with admin_client(bootstrap_server, None, CLIENT_ID) as admin:
            spec = given
            if spec is None:
                try:
                    state = (await admin.describe_producers([tp]))[tp]
                except KafkaError as exc:
                    raise _failed(f"Failed to validate producer state for partition {tp}", exc) from exc
                found = [
                    p for p in state.active_producers if p.current_transaction_start_offset == start_offset
                ]
                if not found:
                    raise click.ClickException(
                        f"Could not find any open transactions starting at offset {start_offset} "
                        f"on partition {tp}"
                    )
                p = found[0]
                spec = AbortTransactionSpec(tp, p.producer_id, p.producer_epoch, p.coordinator_epoch or 0)
            try:
                await admin.abort_transaction(spec)
            except KafkaError as exc:
                raise _failed(f"Failed to abort transaction {spec}", exc) from exc

    run_coroutine(run())


@transactions.command("find-hanging")
@click.option("--broker-id", type=int, default=None, help="Broker id to search for hanging transactions.")
@click.option(
    "--max-transaction-timeout",
    type=click.IntRange(0),
    default=15,
    show_default=True,
    help="Maximum transaction timeout in minutes to limit the scope of the search.",
)
@click.option("--topic", default=None, help="Topic name to limit the search to (required with --partition).")
@click.option("--partition", type=click.IntRange(0), default=None, help="Partition number.")
@bootstrap_server_option
def find_hanging(
    broker_id: int | None,
    max_transaction_timeout: int,
    topic: str | None,
    partition: int | None,
    bootstrap_server: str,
) -> None:
    """Find hanging transactions: open longer than the maximum transaction timeout, unknown to
    their coordinator."""
    if topic is None and broker_id is None:
        raise click.UsageError(
            "The `find-hanging` command requires either --topic or --broker-id to limit the scope "
            "of the search"
        )
    if partition is not None and topic is None:
        raise click.UsageError("The --partition argument requires --topic to be provided")
    max_timeout_ms = max_transaction_timeout * 60_000

    async def run() -> list[OpenTransaction]:
        async with admin_client(bootstrap_server, None, CLIENT_ID) as admin:
            if topic is not None and partition is not None:
                partitions = [TopicPartition(topic, partition)]
            else:
                topics = [topic] if topic is not None else await admin.list_topics()
                try:
                    described = await admin.describe_topics(topics)
                except KafkaError as exc:
                    raise _failed(f"Failed to describe {len(topics)} topics", exc) from exc
                partitions = [
                    TopicPartition(name, p.partition)
                    for name, d in described.items()
                    for p in d.partitions
                    if broker_id is None or broker_id in p.replicas
                ]
            if not partitions:
                return []
            try:
                producers = await admin.describe_producers(partitions, broker_id=broker_id)
            except KafkaError as exc:
                raise _failed(
                    f"Failed to describe producers for {len(partitions)} partitions on broker {broker_id}",
                    exc,
                ) from exc
            candidates = candidate_open_transactions(producers, max_timeout_ms, _now_ms())
            if not candidates:
                return []
            producer_ids = {c.producer_state.producer_id for c in candidates}
            try:
                listings = await admin.list_transactions(producer_id_filters=producer_ids)
            except KafkaError as exc:
                raise _failed(f"Failed to list transactions for {len(producer_ids)} producers", exc) from exc
            transactional_ids = {
                t.producer_id: t.transactional_id for t in listings if t.producer_id in producer_ids
            }
            described_ids = await admin.describe_transactions_each(transactional_ids.values())
            descriptions: dict[str, TransactionDescription | None] = {}
            for transactional_id, result in described_ids.items():
                if isinstance(result, KafkaError):
                    if getattr(result, "errno", None) != Errors.TRANSACTIONAL_ID_NOT_FOUND:
                        raise _failed(f"Failed to describe {len(described_ids)} transactions", result)
                    descriptions[transactional_id] = None
                else:
                    descriptions[transactional_id] = result
            return hanging_transactions(candidates, transactional_ids, descriptions)

    hanging = run_coroutine(run())
    _echo_table(HANGING_HEADERS, hanging_rows(hanging, _now_ms()))


@transactions.command("forceTerminateTransaction")
@click.option("--transactionalId", "transactional_id", required=True, help="Transactional id.")
@bootstrap_server_option
def force_terminate_transaction(transactional_id: str, bootstrap_server: str) -> None:
    """Force abort an ongoing transaction on transactionalId (requires administrative privileges)."""

    async def run() -> None:
        async with admin_client(bootstrap_server, None, CLIENT_ID) as admin:
            try:
                await admin.force_terminate_transaction(transactional_id)
            except KafkaError as exc:
                raise _failed(f"Failed to force terminate transactionalId `{transactional_id}`", exc) from exc

    run_coroutine(run())
