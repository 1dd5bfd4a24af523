"""Hypothesis profiles for the fuzz tests.

``ci`` (the default, what ``make test`` runs): ``KAFKETTE_FUZZ_EXAMPLES`` examples per target
(200 unless set), derandomized, so a CI failure replays exactly.  ``long`` (``make fuzz``):
random inputs, ``KAFKETTE_FUZZ_EXAMPLES`` per target; Hypothesis prints the seed of a failing
run (``--hypothesis-seed=N`` replays it) and the smallest failing input.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

EXAMPLES = int(os.environ.get("KAFKETTE_FUZZ_EXAMPLES", "200"))
_COMMON = dict(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)
settings.register_profile("ci", derandomize=True, **_COMMON)
settings.register_profile("long", derandomize=False, **_COMMON)
settings.load_profile(os.environ.get("KAFKETTE_FUZZ_PROFILE", "ci"))
