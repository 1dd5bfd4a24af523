"""A follower's fetcher follows the leader's log start offset and reports its own back.

Broker 2 follows a FakeLeaderEndPoint (no sockets); real Partition and Log on tmp_path.
"""

from __future__ import annotations

from broker_fakes import TP0, make_batch
from test_replica_fetcher_thread import follower as follower  # noqa: F401  (the follower harness fixture)
from test_replica_fetcher_thread import monotonic as monotonic  # noqa: F401  (fixture)

from kafkette.protocol.apis.fetch import FetchPartitionData
from kafkette.protocol.errors import Errors


def with_log_start(records=b"", high_watermark=-1, log_start_offset=-1):
    return FetchPartitionData(
        error_code=Errors.NONE,
        high_watermark=high_watermark,
        records=records,
        log_start_offset=log_start_offset,
    )


async def test_follower_raises_its_log_start_offset_to_the_leaders_and_sends_it_back(follower):
    partition = follower.host(TP0)
    await follower.add(TP0)
    follower.answer({TP0: with_log_start(make_batch(5, base_offset=0), high_watermark=5, log_start_offset=0)})
    await follower.fetcher.maybe_fetch()
    partition.log.roll("test")
    follower.answer(
        {TP0: with_log_start(make_batch(5, base_offset=5), high_watermark=10, log_start_offset=7)}
    )
    await follower.fetcher.maybe_fetch()
    assert (partition.log.log_end_offset, partition.high_watermark) == (10, 10)
    assert partition.log.log_start_offset == 7
    follower.answer({})
    await follower.fetcher.maybe_fetch()
    sent = follower.leader.requests[-1].topics[0].partitions[0]
    assert (sent.fetch_offset, sent.log_start_offset) == (10, 7)
    # the segment [0, 5) is wholly below the new log start offset: retention deletes it
    partition.log.roll("test")
    assert sorted(p.name for p in partition.log.delete_old_segments(now_ms=0)) == [
        "00000000000000000000.index.deleted",
        "00000000000000000000.log.deleted",
        "00000000000000000000.timeindex.deleted",
    ]
    assert [s.base_offset for s in partition.log.segments] == [5, 10]


async def test_follower_log_start_offset_never_passes_its_own_high_watermark(follower):
    partition = follower.host(TP0)
    await follower.add(TP0)
    follower.answer({TP0: with_log_start(make_batch(5, base_offset=0), high_watermark=3, log_start_offset=4)})
    await follower.fetcher.maybe_fetch()
    assert (partition.high_watermark, partition.log.log_start_offset) == (3, 3)
