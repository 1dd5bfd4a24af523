"""The chaos harness on a real 3-broker cluster: kill -9 and SIGSTOP of leaders and the active
controller lose, duplicate and reorder nothing acknowledged; the negative control (acks=1,
lagging followers, unclean election) loses records, so the checker can see loss.

Each run prints its seed; replay one with ``python -m tests.chaos.run --seed SEED --scenario NAME --runs 1``.
"""

from __future__ import annotations

import random

import pytest

from tests.chaos.run import SCENARIOS, run_once

pytestmark = pytest.mark.timeout(600)


def test_kills_and_pauses_of_leaders_and_the_controller_lose_nothing_acknowledged(tmp_path):
    seed = random.SystemRandom().randrange(1 << 31)
    result = run_once(SCENARIOS["kill-pause-mixed"], seed, faults=3, data_dir=tmp_path)
    assert result.report.acknowledged > 500, f"seed {seed}: too few acknowledged to judge"
    assert result.valid, f"seed {seed}: {result.report.summary()}, diverged {result.diverged}"
    assert len(result.injected) == 3 and len(result.unavailable_s) == 3


def test_the_negative_control_loses_acknowledged_records(tmp_path):
    seed = random.SystemRandom().randrange(1 << 31)
    result = run_once(SCENARIOS["control-acks1-unclean-kill-leader"], seed, faults=2, data_dir=tmp_path)
    assert result.report.lost, f"seed {seed}: acks=1 with lagging followers lost nothing: {result.report.summary()}"
