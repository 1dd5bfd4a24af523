"""process_tuning: glibc takes the allocator settings; start-up objects leave the collector's generations;
the young generation is collected less often."""

from __future__ import annotations

import gc
import platform

from kafkette.common.process_tuning import GC_GEN0_THRESHOLD, tune_malloc, tune_process_memory


def test_glibc_accepts_the_allocator_settings():
    assert platform.libc_ver()[0] == "glibc"  # the machine this project runs on
    assert tune_malloc() is True


def test_tuning_freezes_what_is_alive():
    gc.unfreeze()
    try:
        before = gc.get_freeze_count()
        assert tune_process_memory() is True
        assert gc.get_freeze_count() > before
    finally:
        gc.unfreeze()


def test_tuning_raises_the_young_generation_threshold_only():
    saved = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    try:
        tune_process_memory()
        assert gc.get_threshold() == (GC_GEN0_THRESHOLD, 10, 10)
        assert GC_GEN0_THRESHOLD > 700
    finally:
        gc.set_threshold(*saved)
        gc.unfreeze()
