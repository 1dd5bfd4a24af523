"""The producer's ``acks``: ``Acks.parse`` reads Kafka's spellings, and every command that
produces takes one ``--acks`` flag whose default is Kafka's producer default, ``all`` (in-process,
no broker)."""

from __future__ import annotations

import click
import pytest

from kafkette.client.cli.main import kafkette
from kafkette.client.producer import Acks, Producer

pytestmark = pytest.mark.timeout(30)


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("all", Acks.ALL),
        ("ALL", Acks.ALL),
        (-1, Acks.ALL),
        ("-1", Acks.ALL),
        (0, Acks.NONE),
        ("0", Acks.NONE),
        (1, Acks.LEADER),
        ("1", Acks.LEADER),
    ],
)
def test_acks_reads_kafkas_spellings_as_the_wire_values(given, expected):
    assert Acks.parse(given) is expected


@pytest.mark.parametrize("given", [2, "2", "leader", True, ""])
def test_acks_refuses_any_other_value_by_naming_the_ones_it_takes(given):
    with pytest.raises(ValueError, match=r"acks must be one of 'all', -1, 0, 1"):
        Acks.parse(given)


def test_the_producer_waits_for_every_in_sync_replica_unless_told_otherwise():
    assert Producer()._acks is Acks.ALL


def _acks_options() -> dict[str, click.Option]:
    found = {}
    stack = [("kafkette", kafkette)]
    while stack:
        path, command = stack.pop()
        if isinstance(command, click.Group):
            stack += [(f"{path} {name}", sub) for name, sub in command.commands.items()]
        for param in command.params:
            if isinstance(param, click.Option) and "--acks" in param.opts:
                found[path] = param
    return found


def test_every_command_that_produces_defaults_to_acks_all():
    options = _acks_options()
    assert {"kafkette produce", "kafkette perf produce", "kafkette perf end-to-end"} <= set(options)
    assert {path: option.default for path, option in options.items()} == dict.fromkeys(options, "all")


def test_the_console_producer_also_takes_kafkas_request_required_acks():
    assert _acks_options()["kafkette produce"].opts == ["--acks", "--request-required-acks"]
