"""Shared pytest setup: real-cluster fixtures, and failing any test that leaves an unhandled
asyncio task exception."""

from __future__ import annotations

import asyncio
import gc

import pytest

from kafkette.client import LocalCluster
from tests.cluster_configs import FAST_FAILOVER


@pytest.fixture(autouse=True)
def fail_on_unhandled_task_exception(monkeypatch: pytest.MonkeyPatch):
    """Fail a test during which asyncio reported an unhandled exception (a task that died
    with nobody awaiting it, a callback that raised), on any asyncio event loop."""
    reported: list[dict] = []
    original = asyncio.base_events.BaseEventLoop.default_exception_handler

    def record(loop: asyncio.AbstractEventLoop, context: dict) -> None:
        reported.append(context)
        original(loop, context)

    monkeypatch.setattr(asyncio.base_events.BaseEventLoop, "default_exception_handler", record)
    yield
    gc.collect()  # "exception was never retrieved" is reported when the task is collected
    if reported:
        pytest.fail(
            "unhandled asyncio exception(s): "
            + "; ".join(f"{c.get('message')}: {c.get('exception')!r}" for c in reported)
        )


@pytest.fixture(scope="module")
def shared_cluster(tmp_path_factory: pytest.TempPathFactory):
    """A 3-broker cluster shared by the tests of one module (they use distinct topics)."""
    with LocalCluster(
        num_brokers=3, data_dir=tmp_path_factory.mktemp("cluster"), broker_configs=FAST_FAILOVER
    ) as c:
        yield c


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """A failed test that started clusters with ``cluster_factory`` gets the tail of each node's
    ``server.log`` in its report (CI keeps no data directories)."""
    outcome = yield
    report = outcome.get_result()
    clusters = getattr(item, "kafkette_clusters", None)
    if report.when != "call" or not report.failed or not clusters:
        return
    for index, cluster in enumerate(clusters):
        for node_id in sorted(cluster.ports):
            path = cluster.broker_dir(node_id) / "server.log"
            text = path.read_text(errors="replace") if path.exists() else ""
            lines = text.splitlines()[-SERVER_LOG_TAIL_LINES:]
            report.sections.append(
                (f"cluster{index} node {node_id} server.log (last {len(lines)} lines)", "\n".join(lines))
            )


SERVER_LOG_TAIL_LINES = 60


@pytest.fixture
def cluster_factory(tmp_path, request: pytest.FixtureRequest):
    """Start clusters with given sizes/configs; every one is stopped at teardown.  A failed
    test's report carries the tail of each node's ``server.log``."""
    started: list[LocalCluster] = []
    request.node.kafkette_clusters = started

    def make(
        num_brokers: int = 3,
        controllers: int | None = None,
        isolated_controllers: bool = False,
        **configs: object,
    ) -> LocalCluster:
        props = dict(FAST_FAILOVER)
        props.update({k.replace("_", "."): v for k, v in configs.items()})
        cluster = LocalCluster(
            num_brokers=num_brokers,
            data_dir=tmp_path / f"cluster{len(started)}",
            broker_configs=props,
            controllers=controllers,
            isolated_controllers=isolated_controllers,
        )
        cluster.start()
        started.append(cluster)
        return cluster

    yield make
    for cluster in started:
        cluster.stop()
