"""Fixtures shared by the broker unit tests: a real LogManager on ``tmp_path``."""

from __future__ import annotations

import pytest
from broker_fakes import make_config

from kafkette.broker.log.log_manager import LogManager


@pytest.fixture
async def log_manager(tmp_path):
    """A started LogManager (node 1) over ``tmp_path / "logs"``, stopped after the test."""
    async with LogManager(make_config(tmp_path / "logs")) as manager:
        yield manager
