"""The security benchmark's pure side (``tests.perf.security_figures``): the ACL set it loads
(distinct, half LITERAL half PREFIXED, the caller's topic under one prefix), the latency summary
(median and nearest-rank p99 in ms), throughput in records/s and MiB/s, the median run, and the
Markdown rows; plain figures, no processes."""

import pytest

from kafkette.common.security.acl import AclOperation, KafkaPrincipal, PatternType, ResourceType
from kafkette.common.security.standard_authorizer import (
    AuthorizationResult,
    StandardAcl,
    StandardAuthorizerData,
)
from tests.perf.security_figures import (
    BENCH_TOPIC,
    bench_acls,
    caller_acl,
    latency_summary,
    markdown_rows,
    median_run,
    percentile,
    throughput,
)

pytestmark = pytest.mark.timeout(10)


def test_the_acls_are_distinct_half_literal_half_prefixed_and_one_prefix_covers_the_callers_topic():
    acls = bench_acls(10_000)

    assert len(set(acls)) == 10_000
    assert sum(a.pattern.pattern_type is PatternType.LITERAL for a in acls) == 5_000
    prefixes = [a.pattern.name for a in acls if a.pattern.pattern_type is PatternType.PREFIXED]
    assert [p for p in prefixes if BENCH_TOPIC.startswith(p)] == ["app-7-"]
    assert all(a.entry.principal != caller_acl().entry.principal for a in acls)


def test_the_other_users_acls_do_not_change_the_callers_decision():
    data = StandardAuthorizerData()
    for index, binding in enumerate([*bench_acls(1_000), caller_acl()]):
        data.add_acl(index, StandardAcl.from_acl_binding(binding))
    bench = KafkaPrincipal("User", "bench")

    assert data.authorize(bench, "127.0.0.1", AclOperation.READ, ResourceType.TOPIC, BENCH_TOPIC) is (
        AuthorizationResult.ALLOWED
    )
    assert data.authorize(bench, "127.0.0.1", AclOperation.READ, ResourceType.TOPIC, "topic-0") is (
        AuthorizationResult.DENIED
    )


def test_a_negative_acl_count_is_refused():
    with pytest.raises(ValueError, match="count must be >= 0"):
        bench_acls(-1)


def test_p99_is_the_nearest_rank_value_never_an_interpolation():
    values = [float(v) for v in range(1, 101)]

    assert percentile(values, 99) == 99.0
    assert percentile(values, 100) == 100.0
    assert percentile([5.0, 1.0, 3.0], 99) == 5.0
    assert percentile([5.0, 1.0, 3.0], 50) == 3.0


def test_percentile_refuses_nothing_and_out_of_range_ranks():
    with pytest.raises(ValueError, match="no values"):
        percentile([], 50)
    with pytest.raises(ValueError, match="q must be"):
        percentile([1.0], 0)


def test_latency_summary_gives_milliseconds_from_seconds():
    summary = latency_summary([0.002, 0.001, 0.003, 0.010])

    assert summary == {"count": 4, "median_ms": 2.5, "p99_ms": 10.0, "min_ms": 1.0}


def test_throughput_in_records_and_mebibytes_per_second():
    assert throughput(50_000, 1024, 2.0) == {"records_per_s": 25_000, "mb_per_s": 24.41}
    with pytest.raises(ValueError, match="seconds must be > 0"):
        throughput(1, 1, 0)


def test_the_median_run_takes_produce_and_consume_each_at_its_median():
    def run(produce: int, consume: int) -> dict:
        return {
            "produce": {"records_per_s": produce, "mb_per_s": 0},
            "consume": {"records_per_s": consume, "mb_per_s": 0},
        }

    middle = median_run([run(1, 30), run(3, 10), run(2, 20)])

    assert middle["produce"]["records_per_s"] == 2
    assert middle["consume"]["records_per_s"] == 20
    assert median_run([run(1, 1), run(2, 2)])["produce"]["records_per_s"] == 1  # the lower middle
    with pytest.raises(ValueError, match="no runs"):
        median_run([])


def test_markdown_rows_hold_one_line_per_figure():
    figures = {"records_per_s": 25_000, "mb_per_s": 24.41}
    result = {
        "throughput": [
            {
                "broker": "Kafkette",
                "client": "confluent-kafka",
                "security": "SASL_SSL",
                "produce": figures,
                "consume": figures,
            }
        ],
        "handshake": [{"broker": "Kafkette", "security": "SASL_SSL", "median_ms": 14.6, "p99_ms": 35.4}],
        "authorizer": {
            "in_process": [
                {"acls": 10_001, "us_per_call": 15.2, "calls_per_s": 65_676, "decision": "ALLOWED"}
            ]
        },
    }

    lines = markdown_rows(result)

    assert "| Kafkette | confluent-kafka | SASL_SSL | 25,000 (24.41) | 25,000 (24.41) |" in lines
    assert "| Kafkette | SASL_SSL | 14.6 | 35.4 |" in lines
    assert "| 10,001 | 15.2 | 65,676 | ALLOWED |" in lines
