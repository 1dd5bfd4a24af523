"""FaultLogger: a retry loop logs once when a fault starts, at most once per 10 s per key while it
lasts, and once when it clears (manual clock, the records caught by caplog)."""

from __future__ import annotations

import logging

import pytest

from kafkette.client.fault_logger import FaultLogger
from kafkette.protocol.errors import NotEnoughReplicasError
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger("tests.fault_logger")
TP0, TP1 = TopicPartition("t", 0), TopicPartition("t", 1)


class ManualClock:
    def __init__(self) -> None:
        self.now_s = 1000.0

    def __call__(self) -> float:
        return self.now_s


def lines(caplog: pytest.LogCaptureFixture, level: int = logging.INFO) -> list[tuple[str, str]]:
    return [
        (r.levelname, r.getMessage()) for r in caplog.records if r.name == logger.name and r.levelno >= level
    ]


@pytest.fixture
def faults(caplog: pytest.LogCaptureFixture) -> tuple[FaultLogger, ManualClock]:
    caplog.set_level(logging.DEBUG, logger=logger.name)
    clock = ManualClock()
    return FaultLogger(logger, "[Producer clientId=p]", clock=clock), clock


def test_a_fault_is_logged_when_it_starts_and_when_it_clears_and_not_per_retry(faults, caplog):
    log, clock = faults
    error = NotEnoughReplicasError("ISR below min.insync.replicas")
    assert log.failed(TP0, "Produce to topic-partition t-0", error)
    for _ in range(50):  # every 100 ms for 5 s
        clock.now_s += 0.1
        assert not log.failed(TP0, "Produce to topic-partition t-0", error)
    assert TP0 in log and log.failing() == [TP0]
    assert log.cleared(TP0)
    assert not log.cleared(TP0)  # once
    assert lines(caplog) == [
        ("WARNING", f"[Producer clientId=p] Produce to topic-partition t-0 failed, retrying: {error}"),
        (
            "INFO",
            "[Producer clientId=p] Produce to topic-partition t-0 succeeded again after 5.0 s (51 failures)",
        ),
    ]
    assert len(lines(caplog, logging.DEBUG)) == 52  # the retries in between, at DEBUG


def test_while_a_fault_lasts_at_most_one_line_per_key_per_ten_seconds(faults, caplog):
    log, clock = faults
    for _ in range(600):  # every 100 ms for 60 s, two partitions
        log.failed(TP0, "Produce to topic-partition t-0", "NOT_ENOUGH_REPLICAS")
        log.failed(TP1, "Produce to topic-partition t-1", "NOT_LEADER_OR_FOLLOWER")
        clock.now_s += 0.1
    log.cleared(TP0)
    log.cleared(TP1)
    for tp in (TP0, TP1):
        per_key = [line for line in lines(caplog) if f"t-{tp.partition} " in line[1]]
        # The rule's bound: 1 WARNING when it starts, 1 per 10 s while it lasts, 1 INFO when it clears.
        assert len(per_key) <= 1 + 60 // 10 + 1, per_key
        assert [level for level, _ in per_key] == ["WARNING"] * (len(per_key) - 1) + ["INFO"]
    still = [text for _, text in lines(caplog) if "still failing" in text]
    assert still[0] == (
        "[Producer clientId=p] Produce to topic-partition t-0 still failing after 10 s "
        "(101 failures), retrying: NOT_ENOUGH_REPLICAS"
    )


def test_the_start_message_can_be_the_loops_own_and_forget_drops_a_fault_silently(faults, caplog):
    log, clock = faults
    log.failed(
        ("127.0.0.1", 9092),
        "Connection to node 3 (127.0.0.1:9092)",
        "refused",
        start_message="Connection to node 3 (127.0.0.1:9092) could not be established. Node may not be "
        "available: refused",
    )
    log.forget(("127.0.0.1", 9092))
    assert not log
    clock.now_s += 1
    log.failed(("127.0.0.1", 9092), "Connection to node 3 (127.0.0.1:9092)", "refused")
    assert [text for _, text in lines(caplog)] == [
        "[Producer clientId=p] Connection to node 3 (127.0.0.1:9092) could not be established. "
        "Node may not be available: refused",
        "[Producer clientId=p] Connection to node 3 (127.0.0.1:9092) failed, retrying: refused",
    ]


def test_a_negative_interval_is_refused():
    with pytest.raises(ValueError, match="interval_ms"):
        FaultLogger(logger, "[x]", interval_ms=-1)
