"""The catalogue of conformance scenarios: each a short sequence of requests a Kafka client makes,
run against Apache Kafka and against Kafkette, returning what a user can observe (error names,
offsets, watermarks, configs, group states) as JSON-able data that must come out equal.

Scenario modules live in ``tests/conformance/scenarios/`` and register with ``@scenario(...)``
(or ``register`` for a family generated from a table).  Ids are ``area/what`` and unique; every
scenario uses topic and group names of its own, so they run one after another on one cluster.
Scenarios marked ``disruptive`` stop and restart a broker and run after all the others.
Each scenario belongs to one suite, the pair of clusters it needs: ``MAIN`` (PLAINTEXT, no
authorizer) or ``AUTHORIZATION`` (Kafka's StandardAuthorizer and SASL/PLAIN users, ``run.SUITES``).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tests.conformance.target import Target

MAIN = "main"
AUTHORIZATION = "authorization"
SUITE_NAMES = (MAIN, AUTHORIZATION)


@dataclass(frozen=True)
class Scenario:
    """One scenario.

    Attributes:
        id: ``area/what`` (``topics/create/name-too-long``).
        doc: one line on what it does and what Kafka does.
        run: ``run(target) -> observable``; the observable is compared as JSON.
        disruptive: it stops and starts a broker (run last, one at a time).
        suite: the clusters it runs on (``MAIN`` or ``AUTHORIZATION``).
    """

    id: str
    doc: str
    run: Callable[[Target], Any]
    disruptive: bool = False
    suite: str = MAIN

    @property
    def area(self) -> str:
        return self.id.split("/", 1)[0]


SCENARIOS: dict[str, Scenario] = {}


def register(
    scenario_id: str, doc: str, run: Callable[[Target], Any], disruptive: bool = False, suite: str = MAIN
) -> None:
    """Add one scenario.

    Raises:
        ValueError: the id is taken or has no area, or the suite is not one of ``SUITE_NAMES``.
    """
    if suite not in SUITE_NAMES:
        raise ValueError(f"conformance scenario {scenario_id!r}: unknown suite {suite!r}")
    if scenario_id in SCENARIOS:
        raise ValueError(f"conformance scenario {scenario_id!r} is registered twice")
    if "/" not in scenario_id:
        raise ValueError(f"conformance scenario id {scenario_id!r} has no area (area/what)")
    SCENARIOS[scenario_id] = Scenario(scenario_id, doc, run, disruptive, suite)


def scenario(
    scenario_id: str, disruptive: bool = False, suite: str = MAIN
) -> Callable[[Callable[[Target], Any]], Callable[[Target], Any]]:
    """Decorator form of ``register``; the function's docstring's first line is the scenario's doc."""

    def decorate(fn: Callable[[Target], Any]) -> Callable[[Target], Any]:
        register(
            scenario_id,
            (fn.__doc__ or "").strip().splitlines()[0] if fn.__doc__ else "",
            fn,
            disruptive,
            suite,
        )
        return fn

    return decorate


def load(suite: str = MAIN) -> list[Scenario]:
    """Import every scenario module; the scenarios of ``suite`` in run order (the disruptive ones
    last)."""
    from tests.conformance import scenarios

    for module in pkgutil.iter_modules(scenarios.__path__):
        importlib.import_module(f"{scenarios.__name__}.{module.name}")
    ordered = sorted((s for s in SCENARIOS.values() if s.suite == suite), key=lambda s: s.disruptive)
    return ordered
