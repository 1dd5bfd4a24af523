"""process_tuning: glibc takes the allocator settings; start-up objects leave the collector's generations."""

from __future__ import annotations

import gc
import platform

from kafkette.client.process_tuning import tune_malloc, tune_process_memory


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
