"""The value parsers of ``kafkette consumer-groups --reset-offsets``."""

from __future__ import annotations

import click
import pytest

from kafkette.client.cli.consumer_groups import parse_datetime_ms, parse_duration_ms, parse_topic_partitions


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("PT1H", 3_600_000),
        ("PT1H30M", 5_400_000),
        ("P1DT2H", 93_600_000),
        ("PT0.5S", 500),
        ("pt10m", 600_000),
        ("P2D", 172_800_000),
    ],
)
def test_iso_durations(text: str, ms: int) -> None:
    assert parse_duration_ms(text) == ms


@pytest.mark.parametrize("text", ["P", "PT", "1H", "an hour", "PT-1H"])
def test_bad_durations(text: str) -> None:
    with pytest.raises(click.BadParameter, match="is not a duration"):
        parse_duration_ms(text)


def test_datetimes_are_utc_unless_zoned() -> None:
    assert parse_datetime_ms("1970-01-01T00:00:01.500") == 1500
    assert parse_datetime_ms("1970-01-01T01:00:00+01:00") == 0
    with pytest.raises(click.BadParameter, match="is not a date-time"):
        parse_datetime_ms("yesterday")


def test_topic_partitions() -> None:
    assert parse_topic_partitions("orders") == ("orders", None)
    assert parse_topic_partitions("orders:0,2") == ("orders", [0, 2])
    for bad in ("orders:x", "orders:-1", ":0"):
        with pytest.raises(click.BadParameter, match="is not TOPIC or TOPIC:PARTITION,PARTITION"):
            parse_topic_partitions(bad)
