"""CLI argument handling: Kafka's --replica-assignment syntax and one-line errors (no broker)."""

from __future__ import annotations

import pytest

from kafkette.client.admin import PartitionInfo, TopicDescription
from kafkette.client.cli.produce import key_separator_from, split_line
from kafkette.client.cli.topics import describe_table, parse_replica_assignment
from tests.unit.client.cli_runner import assert_one_line_error, run


def test_replica_assignment_groups_are_partitions_in_order():
    assert parse_replica_assignment("1:2,2:3,3:1") == {0: [1, 2], 1: [2, 3], 2: [3, 1]}
    assert parse_replica_assignment(" 4 ") == {0: [4]}


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "must not be empty"),
        ("1:x", "integers"),
        ("1:1", "duplicate"),
        ("1:2,3", "different replication factor"),
        ("1:2,,2:3", "empty broker id"),
        ("1:", "empty broker id"),
        ("-1:2", ">= 0"),
    ],
)
def test_bad_replica_assignments_are_refused_with_a_reason(text, fragment):
    with pytest.raises(ValueError, match=fragment):
        parse_replica_assignment(text)


def test_topics_create_refuses_zero_partitions():
    assert_one_line_error(
        run("topics", "create", "t", "--partitions", "0"), "partitions must be greater than 0"
    )


def test_topics_create_refuses_an_out_of_range_replication_factor():
    assert_one_line_error(run("topics", "create", "t", "--replication-factor", "0"), "replication factor")


def test_topics_create_refuses_replica_assignment_with_partitions():
    result = run("topics", "create", "t", "--replica-assignment", "1:2", "--partitions", "2")
    assert_one_line_error(result, "--replica-assignment can't be used with --partitions")


def test_topics_create_reports_a_bad_replica_assignment():
    assert_one_line_error(run("topics", "create", "t", "--replica-assignment", "1:x"), "--replica-assignment")


def test_topics_create_reports_a_bad_config_entry():
    assert_one_line_error(run("topics", "create", "t", "--partitions", "1", "--config", "oops"), "key=value")


def test_missing_argument_and_unknown_command_are_one_line_errors():
    assert_one_line_error(run("topics", "create"), "missing option '--topic'")
    assert_one_line_error(run("topics", "crate"), "no such command")
    assert_one_line_error(run("produce"), "--topic")


def test_bad_bootstrap_server_is_a_one_line_error():
    assert_one_line_error(run("topics", "list", "--bootstrap-server", "no-port"), "bootstrap server")


def test_produce_refuses_unknown_properties():
    assert_one_line_error(run("produce", "--topic", "t", "--property", "nope=1"), "unknown --property")


def test_consume_refuses_unknown_properties():
    assert_one_line_error(
        run("consume", "--topic", "t", "--property", "print.colour=true"), "unknown --property"
    )
    assert_one_line_error(
        run("consume", "--topic", "t", "--property", "print.value=x"), "must be true or false"
    )


def test_perf_produce_refuses_zero_throughput():
    result = run(
        "perf", "produce", "--topic", "t", "--num-records", "1", "--record-size", "1", "--throughput", "0"
    )
    assert_one_line_error(result, "--throughput")


def test_help_exits_zero():
    result = run("--help")
    assert result.exit_code == 0 and "topics" in result.output


def test_key_separator_comes_from_the_flag_or_kafka_properties():
    assert key_separator_from(":", ()) == b":"
    assert key_separator_from(None, ("parse.key=true",)) == b"\t"
    assert key_separator_from(None, ("parse.key=true", "key.separator=|")) == b"|"
    assert key_separator_from(None, ()) is None


def test_lines_split_at_the_first_separator():
    assert split_line(b"JFK:a:b", b":", 1) == (b"JFK", b"a:b")
    assert split_line(b"plain", None, 1) == (None, b"plain")


def test_describe_table_has_kafka_columns():
    table = describe_table({"t": TopicDescription("t", [PartitionInfo(0, 2, [2, 3], [2], [])])})
    header, row = table.splitlines()
    assert header.split() == ["Topic", "Partition", "Leader", "Replicas", "Isr"]
    assert row.split() == ["t", "0", "2", "2,3", "2"]
