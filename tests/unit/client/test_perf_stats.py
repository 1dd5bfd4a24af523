"""``kafkette perf`` statistics: percentiles as Kafka's perf tools pick them, produce
figures, end-to-end latency from the send time carried in each value, the window lines and
their reporter (no broker)."""

from __future__ import annotations

import asyncio
import io

import pytest
from click.testing import CliRunner

from kafkette.client.cli.main import kafkette
from kafkette.client.cli.perf import (
    SEND_TIME,
    EndToEndStats,
    ProduceStats,
    percentile,
    windows_unless_terminal,
)


def test_percentile_takes_the_element_at_len_times_fraction_clamped_to_the_last():
    values = [float(v) for v in range(1, 101)]  # 1..100

    assert percentile(values, 0.5) == 51.0
    assert percentile(values, 0.99) == 100.0
    assert percentile(values, 1.0) == 100.0
    assert percentile([], 0.5) == 0.0


def test_produce_figures_give_rate_megabytes_and_percentiles():
    stats = ProduceStats()
    for latency_ms in (4.0, 1.0, 3.0, 2.0):
        stats.record_latency_ms(latency_ms)

    figures = stats.figures(num_records=2 * 1024 * 1024, record_size=100, elapsed_s=2.0)

    assert figures["records_per_s"] == 1024 * 1024
    assert figures["mb_per_s"] == 100.0
    latencies = (figures["p50_ms"], figures["p99_ms"], figures["max_ms"], figures["avg_ms"])
    assert latencies == (3.0, 4.0, 4.0, 2.5)
    assert "3.00 ms 50th" in stats.summary(4, 100, 1.0)


def test_end_to_end_latency_is_receipt_minus_the_send_time_in_the_value():
    stats = EndToEndStats()

    assert stats.receive(SEND_TIME.pack(1_000_000) + b"pad", received_ns=3_500_000) is True
    assert stats.receive(b"short", received_ns=9) is False
    assert stats.receive(None, received_ns=9) is False

    assert list(stats.latencies_ms) == [2.5]
    assert "Percentiles: 50th = 2.50 ms, 99th = 2.50 ms, 99.9th = 2.50 ms" in stats.summary(1.0)


def test_perf_end_to_end_refuses_records_too_short_to_carry_the_send_time():
    result = CliRunner().invoke(
        kafkette, ["perf", "end-to-end", "--topic", "t", "--num-records", "1", "--record-size", "4"]
    )

    assert result.exit_code != 0
    assert "--record-size" in result.output


def test_produce_windows_cover_the_acknowledgements_since_the_last_window():
    stats = ProduceStats()
    for latency_ms in (2.0, 4.0, 9.0):
        stats.record_latency_ms(latency_ms)
    assert stats.window(record_size=1024, elapsed_s=0.5) == (
        "3 records sent, 6.0 records/sec (0.01 MB/sec), 5.0 ms avg latency, 9.0 ms max latency."
    )
    stats.record_latency_ms(1.0)
    assert stats.window(record_size=1024, elapsed_s=1.0) == (
        "1 records sent, 1.0 records/sec (0.00 MB/sec), 1.0 ms avg latency, 1.0 ms max latency."
    )
    assert stats.window(record_size=1024, elapsed_s=5.0) == (
        "0 records sent, 0.0 records/sec (0.00 MB/sec), 0.0 ms avg latency, 0.0 ms max latency."
    )


@pytest.mark.timeout(10)
async def test_produce_windows_stop_without_swallowing_a_cancellation_of_the_command():
    # the command is cancelled (Ctrl-C) while it stops its window reporter: it stays cancelled
    block_done = asyncio.Event()

    async def command() -> None:
        async with windows_unless_terminal(ProduceStats(), record_size=100, stream=io.StringIO()):
            await block_done.wait()

    task = asyncio.ensure_future(command())
    await asyncio.sleep(0)  # the reporter runs
    block_done.set()
    await asyncio.sleep(0)  # the command leaves the block and waits for its reporter to stop
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 5)
    assert task.cancelled()
