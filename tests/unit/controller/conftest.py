"""Fixtures for controller unit tests: a fake channel manager, a manual clock, a controller."""

from __future__ import annotations

import random

import pytest
from controller_fakes import FakeChannelManager, ManualClock, make_config
from local_metadata_log import MetadataLog

from kafkette.controller.controller import KafkaController


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def channel() -> FakeChannelManager:
    return FakeChannelManager()


@pytest.fixture
async def controller(tmp_path, clock, channel):
    ctrl = KafkaController(
        make_config(),
        metadata_log=MetadataLog(tmp_path),
        channel_manager=channel,
        clock_ms=clock,
        rng=random.Random(7),
    )
    await ctrl.start()
    yield ctrl
    await ctrl.stop()
