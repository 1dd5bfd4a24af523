"""CLI argument handling of topics alter/delete/elect-leaders and configs (no broker)."""

from __future__ import annotations

import pytest

from kafkette.client import ConfigEntry, ConfigResource, ConfigSource
from kafkette.client.admin import PartitionInfo, TopicDescription
from kafkette.client.cli.configs import (
    format_entries,
    parse_add_config,
    parse_delete_config,
    split_config_list,
)
from kafkette.client.cli.topics import (
    colliding_topics,
    filter_partitions,
    new_partition_assignments,
    topic_summary_line,
)
from tests.unit.client.cli_runner import assert_one_line_error, run


def test_topics_alter_needs_partitions():
    assert_one_line_error(run("topics", "alter", "t"), "--partitions is required")


def test_topics_alter_refuses_zero_partitions():
    assert_one_line_error(run("topics", "alter", "t", "--partitions", "0"), "greater than 0")


def test_topics_alter_refuses_an_assignment_longer_than_the_partition_count():
    result = run("topics", "alter", "t", "--partitions", "2", "--replica-assignment", "1,2,3")
    assert_one_line_error(result, "lists 3 partitions")


def test_topics_alter_reports_a_bad_replica_assignment():
    assert_one_line_error(
        run("topics", "alter", "t", "--partitions", "3", "--replica-assignment", "1:1"), "duplicate"
    )


def test_topics_delete_needs_a_name():
    assert_one_line_error(run("topics", "delete"), "missing option '--topic'")


def test_elect_leaders_partition_needs_a_topic():
    assert_one_line_error(run("topics", "elect-leaders", "--partition", "0"), "needs a topic")


def test_elect_leaders_refuses_an_unknown_election_type():
    assert_one_line_error(run("topics", "elect-leaders", "t", "--election-type", "random"), "election-type")


def test_configs_need_a_known_entity_type():
    assert_one_line_error(run("configs", "describe", "--entity-type", "ips"), "entity-type")
    assert_one_line_error(run("configs", "describe"), "entity-type")


def test_configs_alter_needs_a_name_and_a_change():
    assert_one_line_error(
        run("configs", "alter", "--entity-type", "topics", "--add-config", "a=1"), "--entity-name"
    )
    assert_one_line_error(
        run("configs", "alter", "--entity-type", "topics", "--entity-name", "t"),
        "--add-config and/or --delete-config",
    )


def test_configs_alter_refuses_malformed_flags():
    base = ("configs", "alter", "--entity-type", "topics", "--entity-name", "t")
    assert_one_line_error(run(*base, "--add-config", "oops"), "key=val")
    assert_one_line_error(run(*base, "--add-config", "a=1", "--delete-config", "a"), "both added and deleted")
    assert_one_line_error(run(*base, "--delete-config", "a=1"), "config names only")


def test_configs_broker_name_must_be_an_id():
    result = run(
        "configs", "alter", "--entity-type", "brokers", "--entity-name", "one", "--add-config", "a=1"
    )
    assert_one_line_error(result, "broker id")


def test_add_config_splits_outside_brackets():
    assert split_config_list("a=1, b=[x,y] ,") == ["a=1", "b=[x,y]"]
    assert parse_add_config("retention.ms=1000,cleanup.policy=[delete,compact]") == {
        "retention.ms": "1000",
        "cleanup.policy": "delete,compact",
    }
    assert parse_delete_config("a, b") == ["a", "b"]
    with pytest.raises(ValueError):
        split_config_list("a=[1,2")


def test_alter_assignment_may_list_every_partition_or_only_the_new_ones():
    full = {0: [1, 2], 1: [2, 3], 2: [3, 1], 3: [1, 3]}
    assert new_partition_assignments(full, 4, 2) == [[3, 1], [1, 3]]
    assert new_partition_assignments({0: [3, 1], 1: [1, 3]}, 4, 2) == [[3, 1], [1, 3]]
    with pytest.raises(ValueError, match="all 4 partitions or the 2 new ones"):
        new_partition_assignments({0: [1, 2], 1: [2, 3], 2: [3, 1]}, 4, 2)


def test_describe_filters_keep_under_replicated_and_unavailable_partitions():
    description = TopicDescription(
        "t",
        [
            PartitionInfo(0, 1, [1, 2], [1, 2], []),
            PartitionInfo(1, 2, [2, 3], [2], []),
            PartitionInfo(2, -1, [3], [3], [3]),
            PartitionInfo(3, 3, [3, 1], [3, 1], []),
        ],
    )
    live = {1, 2}
    under = filter_partitions({"t": description}, live, under_replicated=True, unavailable=False)
    assert [p.partition for p in under["t"].partitions] == [1]
    unavailable = filter_partitions({"t": description}, live, under_replicated=False, unavailable=True)
    assert [p.partition for p in unavailable["t"].partitions] == [2, 3]
    assert filter_partitions(
        {"t": description}, {1, 2, 3}, under_replicated=False, unavailable=True
    ).keys() == {"t"}
    assert filter_partitions({"t": description}, {1, 2, 3}, under_replicated=False, unavailable=False) == {}


def test_topic_summary_shows_only_overrides():
    description = TopicDescription(
        "t", [PartitionInfo(0, 1, [1, 2], [1, 2], []), PartitionInfo(1, 2, [2, 1], [2], [])]
    )
    line = topic_summary_line(
        description,
        {
            "min.insync.replicas": ConfigEntry("min.insync.replicas", "2", ConfigSource.DYNAMIC_TOPIC_CONFIG),
            "segment.bytes": ConfigEntry("segment.bytes", "1073741824", ConfigSource.DEFAULT_CONFIG),
        },
    )
    assert line.split("\t") == [
        "Topic: t",
        "PartitionCount: 2",
        "ReplicationFactor: 2",
        "Configs: min.insync.replicas=2",
    ]


def test_configs_describe_prints_dynamic_entries_unless_all():
    resource = ConfigResource("topic", "t")
    entries = {
        "min.insync.replicas": ConfigEntry("min.insync.replicas", "2", ConfigSource.DYNAMIC_TOPIC_CONFIG),
        "segment.bytes": ConfigEntry("segment.bytes", "1073741824", ConfigSource.DEFAULT_CONFIG),
    }
    assert format_entries(resource, entries, False).splitlines() == [
        "Dynamic configs for topic t are:",
        "  min.insync.replicas=2 sensitive=false source=DYNAMIC_TOPIC_CONFIG",
    ]
    assert len(format_entries(resource, entries, True).splitlines()) == 3


def test_colliding_topics_map_dot_and_underscore_to_one_character():
    existing = ["metrics.cpu", "metrics_cpu", "metrics-cpu", "a.b_c"]
    assert colliding_topics("metrics_cpu", existing) == ["metrics.cpu"]
    assert colliding_topics("metrics.cpu", existing) == ["metrics_cpu"]
    assert colliding_topics("a_b.c", existing) == ["a.b_c"]
    assert colliding_topics("metrics.mem", existing) == []
