"""Reading the load average and waiting, bounded, for a quiet machine (``tests.perf.machine_load``),
on fake ``/proc/loadavg`` readings and a fake clock (no sleeping)."""

import pytest

from tests.perf.machine_load import load_average, parse_load_average, wait_until_quiet

pytestmark = pytest.mark.timeout(10)


class FakeMachine:
    """``/proc/loadavg`` readings in turn (the last one repeats) and a clock that sleeping moves."""

    def __init__(self, one_minute: list[float]) -> None:
        self.readings, self.now, self.slept = list(one_minute), 0.0, []

    def read(self) -> str:
        value = self.readings.pop(0) if len(self.readings) > 1 else self.readings[0]
        return f"{value:.2f} 0.50 0.40 2/120 3000\n"

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds

    def clock(self) -> float:
        return self.now


def test_the_three_load_averages_are_read_from_the_start_of_the_line():
    assert parse_load_average("0.65 0.58 1.33 6/119 2217\n") == {"1m": 0.65, "5m": 0.58, "15m": 1.33}
    with pytest.raises(ValueError, match="loadavg"):
        parse_load_average("busy")
    assert load_average(lambda: "x y z") is None


def test_a_quiet_machine_is_measured_at_once():
    machine, lines = FakeMachine([0.4]), []

    quiet = wait_until_quiet(
        lines.append, max_wait_s=600, poll_s=60, read=machine.read, sleep=machine.sleep, clock=machine.clock
    )

    assert (quiet.quiet, quiet.load["1m"], quiet.waited_s, machine.slept, lines) == (True, 0.4, 0.0, [], [])


def test_a_busy_machine_is_polled_until_the_one_minute_load_falls_below_the_threshold():
    machine, lines = FakeMachine([3.2, 1.7, 0.9]), []

    quiet = wait_until_quiet(
        lines.append,
        below=1.0,
        max_wait_s=5400,
        poll_s=60,
        read=machine.read,
        sleep=machine.sleep,
        clock=machine.clock,
    )

    assert (quiet.quiet, quiet.load["1m"], quiet.waited_s) == (True, 0.9, 120.0)
    assert machine.slept == [60, 60] and len(lines) == 2 and "3.20" in lines[0]


def test_the_wait_is_bounded_and_then_says_the_machine_is_busy():
    machine, lines = FakeMachine([2.5]), []

    quiet = wait_until_quiet(
        lines.append, max_wait_s=150, poll_s=60, read=machine.read, sleep=machine.sleep, clock=machine.clock
    )

    assert (quiet.quiet, quiet.waited_s) == (False, 150.0)
    assert machine.slept == [60, 60, 30]
    assert "busy machine" in lines[-1]


def test_without_a_wait_the_load_is_read_once_and_recorded():
    machine, lines = FakeMachine([2.5]), []

    quiet = wait_until_quiet(lines.append, read=machine.read, sleep=machine.sleep, clock=machine.clock)

    assert (quiet.quiet, quiet.load["1m"], machine.slept, lines) == (False, 2.5, [], [])


def test_an_unreadable_load_average_is_measured_anyway_and_said():
    lines = []

    def unreadable() -> str:
        raise OSError("no /proc")

    quiet = wait_until_quiet(
        lines.append, max_wait_s=600, read=unreadable, sleep=lambda s: None, clock=lambda: 0.0
    )

    assert (quiet.quiet, quiet.load) == (False, None)
    assert "cannot read" in lines[0]
