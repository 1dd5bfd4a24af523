"""The settled machine before every benchmark run: the ``/proc/meminfo`` parser and the bounded
wait after ``os.sync()``, on fake meminfo text and a fake clock (no sleeps, no real sync)."""

from __future__ import annotations

import pytest

from tests.perf.settle import MIB, pending_writeback_bytes, settle_page_cache

MEMINFO = """MemTotal:       24567892 kB
MemFree:        20001234 kB
Cached:          1234567 kB
Dirty:              2968 kB
Writeback:           512 kB
AnonPages:        345678 kB
WritebackTmp:     999999 kB
HugePages_Total:       0
"""


def meminfo(dirty_kb: int, writeback_kb: int) -> str:
    return f"MemTotal: 24567892 kB\nDirty: {dirty_kb} kB\nWriteback: {writeback_kb} kB\nWritebackTmp: 7 kB\n"


def test_pending_writeback_is_dirty_plus_writeback_in_bytes_and_ignores_writeback_tmp():
    assert pending_writeback_bytes(MEMINFO) == (2968 + 512) * 1024
    assert pending_writeback_bytes(meminfo(0, 0)) == 0


@pytest.mark.parametrize(
    "text, message",
    [
        ("MemTotal: 1 kB\nWriteback: 0 kB\n", "no Dirty line"),
        ("Dirty: 12 kB\n", "no Writeback line"),
        ("Dirty: twelve kB\nWriteback: 0 kB\n", "unexpected /proc/meminfo line"),
        ("Dirty: 12 MB\nWriteback: 0 kB\n", "unexpected /proc/meminfo line"),
    ],
)
def test_meminfo_without_a_readable_dirty_or_writeback_line_is_an_error(text, message):
    with pytest.raises(ValueError, match=message):
        pending_writeback_bytes(text)


class FakeMachine:
    """``/proc/meminfo`` readings in turn, a clock that ``sleep`` advances, and a sync counter."""

    def __init__(self, pending_mib: list[int]) -> None:
        self.pending_mib = pending_mib
        self.now = 100.0
        self.syncs = 0
        self.reads = 0
        self.sleeps: list[float] = []
        self.lines: list[str] = []

    def read_meminfo(self) -> str:
        value = self.pending_mib[min(self.reads, len(self.pending_mib) - 1)]
        self.reads += 1
        return meminfo(value * 1024 // 2, value * 1024 - value * 1024 // 2)

    def sync(self) -> None:
        self.syncs += 1

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    def settle(self, **kwargs):
        return settle_page_cache(
            self.lines.append,
            read_meminfo=self.read_meminfo,
            sync=self.sync,
            sleep=self.sleep,
            clock=lambda: self.now,
            **kwargs,
        )


def test_settling_syncs_then_polls_until_dirty_plus_writeback_is_below_64_mib():
    machine = FakeMachine([900, 300, 64, 63])

    settled = machine.settle()

    assert machine.syncs == 1
    assert settled.settled and settled.pending_bytes == 63 * MIB
    assert machine.reads == 4 and machine.sleeps == pytest.approx([0.2, 0.2, 0.2])
    assert settled.waited_s == pytest.approx(0.6)
    assert machine.lines == []


def test_an_already_settled_machine_does_not_wait():
    machine = FakeMachine([1])

    assert machine.settle().settled
    assert machine.sleeps == [] and machine.syncs == 1


def test_settling_stops_at_the_bound_logs_one_line_and_goes_on():
    machine = FakeMachine([500])

    settled = machine.settle(max_wait_s=1.0)

    assert not settled.settled and settled.pending_bytes == 500 * MIB
    assert settled.waited_s == pytest.approx(1.0)
    assert sum(machine.sleeps) == pytest.approx(1.0)
    assert len(machine.lines) == 1 and "500 MiB dirty + writeback after 1 s" in machine.lines[0]


def test_an_unreadable_meminfo_logs_one_line_and_goes_on_unsettled():
    lines: list[str] = []

    def unreadable() -> str:
        raise FileNotFoundError("/proc/meminfo")

    settled = settle_page_cache(
        lines.append,
        read_meminfo=unreadable,
        sync=lambda: None,
        sleep=lambda s: pytest.fail("must not wait"),
        clock=lambda: 0.0,
    )

    assert not settled.settled and settled.pending_bytes is None
    assert len(lines) == 1 and "cannot read pending writeback" in lines[0]
