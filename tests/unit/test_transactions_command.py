"""``kafkette transactions``' pure parts: Kafka's ``prettyPrintTable`` layout, each subcommand's rows,
find-hanging's candidate and hanging filters, ``abort``'s flag rules, and bad flags ending in one
``Error:`` line with a non-zero exit before any broker is contacted."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from kafkette.client.admin_transactions import (
    AbortTransactionSpec,
    PartitionProducerState,
    ProducerState,
    TransactionDescription,
    TransactionListing,
)
from kafkette.client.cli.main import kafkette
from kafkette.client.cli.transactions import (
    OpenTransaction,
    abort_spec_from_flags,
    candidate_open_transactions,
    describe_row,
    hanging_rows,
    hanging_transactions,
    list_rows,
    pretty_print_table,
    producer_rows,
)
from kafkette.protocol.topic_partition import TopicPartition

TP0 = TopicPartition("t", 0)
TP1 = TopicPartition("t", 1)
NOW = 10_000_000


def _producer(pid: int, start: int | None, last_timestamp: int, coordinator_epoch: int | None = None):
    return ProducerState(pid, 2, 5, last_timestamp, coordinator_epoch, start)


def test_table_pads_each_cell_to_its_column_then_a_tab():
    assert pretty_print_table(["A", "Longer"], [["xyz", "1"], ["", "22"]]) == [
        "A  \tLonger\t",
        "xyz\t1     \t",
        "   \t22    \t",
    ]
    assert pretty_print_table(["Only"], []) == ["Only\t"]


def test_list_rows_name_each_listing_s_coordinator():
    rows = list_rows(
        {1: [TransactionListing("a", 7, "Ongoing")], 2: [TransactionListing("b", 8, "CompleteCommit")]}
    )
    assert rows == [["a", "1", "7", "Ongoing"], ["b", "2", "8", "CompleteCommit"]]


def test_describe_row_with_and_without_an_open_transaction():
    open_ = TransactionDescription(3, "Ongoing", 7, 1, 60000, NOW - 1500, frozenset({TP1, TP0}))
    assert describe_row("tx", open_, NOW) == [
        "3", "tx", "7", "1", "Ongoing", "60000", str(NOW - 1500), "1500", "t-0,t-1",
    ]  # fmt: skip
    done = TransactionDescription(3, "CompleteAbort", 7, 2, 60000, None, frozenset())
    assert describe_row("tx", done, NOW)[6:] == ["None", "None", ""]


def test_producer_rows_show_unknown_epochs_as_minus_one_and_no_transaction_as_none():
    state = PartitionProducerState([_producer(7, 12, 99, 4), _producer(8, None, 98)])
    assert producer_rows(state) == [["7", "2", "4", "5", "99", "12"], ["8", "2", "-1", "5", "98", "None"]]


def test_candidates_are_open_transactions_older_than_the_timeout():
    timeout = 15 * 60_000
    old, fresh, closed = (
        _producer(1, 0, NOW - timeout - 1),
        _producer(2, 4, NOW - timeout),
        _producer(3, None, 0),
    )
    candidates = candidate_open_transactions(
        {TP0: PartitionProducerState([old, fresh, closed])}, timeout, NOW
    )
    assert candidates == [OpenTransaction(TP0, old)]


def test_hanging_unless_the_coordinator_holds_the_partition_in_the_transaction():
    unknown_pid = OpenTransaction(TP0, _producer(1, 0, 0))
    unknown_id = OpenTransaction(TP0, _producer(2, 0, 0))
    held = OpenTransaction(TP0, _producer(3, 0, 0))
    other_partition = OpenTransaction(TP1, _producer(3, 0, 0))
    description = TransactionDescription(1, "Ongoing", 3, 2, 60000, 1, frozenset({TP0}))
    hanging = hanging_transactions(
        [unknown_pid, unknown_id, held, other_partition],
        {2: "gone", 3: "held"},
        {"gone": None, "held": description},
    )
    assert hanging == [unknown_pid, unknown_id, other_partition]
    assert hanging_rows([held], NOW + 3 * 60_000 - 1) == [["t", "0", "3", "2", "-1", "0", "0", "169"]]


def test_abort_flags():
    assert abort_spec_from_flags(TP0, 5, None, None, None) is None
    assert abort_spec_from_flags(TP0, None, 7, 1, -1) == AbortTransactionSpec(TP0, 7, 1, 0)
    assert abort_spec_from_flags(TP0, None, 7, 1, 4) == AbortTransactionSpec(TP0, 7, 1, 4)
    for flags, message in [
        ((None, None, None, None), "must be identified either with --start-offset"),
        ((5, 7, None, None), "not both"),
        ((None, 7, None, 3), "Missing required argument --producer-epoch"),
        ((None, 7, 1, None), "Missing required argument --coordinator-epoch"),
    ]:
        with pytest.raises(click.UsageError, match=message):
            abort_spec_from_flags(TP0, *flags)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["list", "--duration-filter", "soon"], "'soon' is not a valid integer"),
        (["list", "--transactional-id-pattern", "("], "is not a regular expression"),
        (["describe"], "Missing option '--transactional-id'"),
        (["describe-producers", "--topic", "t"], "Missing option '--partition'"),
        (["describe-producers", "--topic", "t", "--partition", "-1"], "--partition"),
        (["abort", "--topic", "t", "--partition", "0"], "must be identified either with --start-offset"),
        (["abort", "--topic", "t", "--partition", "0", "--producer-id", "4"], "--producer-epoch"),
        (["find-hanging"], "requires either --topic or --broker-id"),
        (["find-hanging", "--broker-id", "1", "--partition", "0"], "--partition argument requires --topic"),
        (["find-hanging", "--topic", "t", "--max-transaction-timeout", "-1"], "--max-transaction-timeout"),
        (["forceTerminateTransaction"], "Missing option '--transactionalId'"),
    ],
)
def test_bad_flags_are_one_error_line(args, message):
    result = CliRunner().invoke(kafkette, ["transactions", *args, "--bootstrap-server", "127.0.0.1:1"])
    assert result.exit_code != 0
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and message in lines[0], result.stderr
