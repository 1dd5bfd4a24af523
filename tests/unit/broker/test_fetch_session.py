"""Fetch sessions (KIP-227): the cache's creation, eviction and the contexts' answers, as Kafka's
``FetchSessionCache`` / ``FetchManager.newContext`` / ``CachedPartition`` decide them."""

from __future__ import annotations

import random

import pytest

from kafkette.broker.fetch_session import (
    FINAL_EPOCH,
    INITIAL_EPOCH,
    INVALID_SESSION_ID,
    FetchManager,
    FetchSessionCache,
    FullFetchContext,
    IncrementalFetchContext,
    SessionErrorContext,
    SessionlessFetchContext,
    TopicIdPartition,
    next_epoch,
)
from kafkette.protocol.apis.fetch import FetchPartition, FetchPartitionData
from kafkette.protocol.errors import Errors

ZERO = bytes(16)
ID_A = bytes(range(1, 17))
A0 = TopicIdPartition(ZERO, "a", 0)
A1 = TopicIdPartition(ZERO, "a", 1)
B0 = TopicIdPartition(ZERO, "b", 0)


def _request(offset: int = 0) -> FetchPartition:
    return FetchPartition(partition=0, fetch_offset=offset, partition_max_bytes=1 << 20)


def _data(
    partition: int = 0, high_watermark: int = 3, log_start_offset: int = 0, records: bytes = b"", error=0
) -> FetchPartitionData:
    return FetchPartitionData(
        partition_index=partition,
        error_code=int(error),
        high_watermark=high_watermark,
        log_start_offset=log_start_offset,
        records=records,
    )


def _manager(slots: int = 10) -> FetchManager:
    return FetchManager(FetchSessionCache(slots, eviction_ms=1000, rng=random.Random(7)))


def _open(manager: FetchManager, parts=(A0, A1), now_ms: int = 0, version: int = 12) -> int:
    """A full fetch at epoch 0 of ``parts``, answered with high watermark 3 each: the session id."""
    context = manager.new_context(
        version, 0, INITIAL_EPOCH, False, {tp: _request() for tp in parts}, [], now_ms
    )
    assert isinstance(context, FullFetchContext)
    error, session_id, sent = context.response([(tp, _data(tp.partition)) for tp in parts], now_ms)
    assert (error, len(sent)) == (0, len(parts))
    return session_id


def test_next_epoch_counts_up_wraps_to_one_and_keeps_final():
    assert [next_epoch(0), next_epoch(5), next_epoch(0x7FFFFFFF), next_epoch(FINAL_EPOCH)] == [1, 6, 1, -1]


def test_a_full_fetch_at_epoch_zero_creates_a_session_expecting_epoch_one():
    manager = _manager()
    session_id = _open(manager)
    assert session_id != INVALID_SESSION_ID
    session = manager.cache.get(session_id)
    assert session is not None and session.epoch == 1 and not session.uses_topic_ids
    assert [c.high_watermark for c in session.partitions.values()] == [3, 3]


def test_a_full_fetch_at_the_final_epoch_is_sessionless_and_closes_the_session_it_names():
    manager = _manager()
    session_id = _open(manager)
    context = manager.new_context(12, session_id, FINAL_EPOCH, False, {A0: _request()}, [], 5)
    assert isinstance(context, SessionlessFetchContext) and not isinstance(context, FullFetchContext)
    assert context.response([(A0, _data())], 5) == (0, INVALID_SESSION_ID, [(A0, _data())])
    assert manager.cache.get(session_id) is None


def test_an_incremental_fetch_answers_only_the_partitions_with_something_new():
    manager = _manager()
    session_id = _open(manager)
    context = manager.new_context(12, session_id, 1, False, {}, [], 10)
    assert isinstance(context, IncrementalFetchContext)
    assert [tp for tp, _ in context.partitions({})] == [A0, A1]  # every partition of the session is read
    new_records = _data(0, high_watermark=4, records=b"batch")
    error, same_id, sent = context.response([(A0, new_records), (A1, _data(1))], 10)
    assert (error, same_id, sent) == (0, session_id, [(A0, new_records)])
    session = manager.cache.get(session_id)
    assert list(session.partitions) == [("a", 1), ("a", 0)]  # the answered one goes last (round robin)
    assert session.epoch == 2


@pytest.mark.parametrize(
    "changed",
    [
        _data(0, log_start_offset=1),
        _data(0, error=Errors.NOT_LEADER_OR_FOLLOWER),
        FetchPartitionData(partition_index=0, high_watermark=3, log_start_offset=0, preferred_read_replica=2),
    ],
    ids=["log-start-offset", "error", "preferred-read-replica"],
)
def test_a_new_log_start_offset_an_error_or_a_preferred_replica_is_answered(changed):
    manager = _manager()
    session_id = _open(manager, parts=(A0,))
    context = manager.new_context(12, session_id, 1, False, {}, [], 10)
    assert context.response([(A0, changed)], 10)[2] == [(A0, changed)]


def test_after_an_error_the_partition_is_answered_again_once_it_clears():
    manager = _manager()
    session_id = _open(manager, parts=(A0,))
    context = manager.new_context(12, session_id, 1, False, {}, [], 10)
    context.response([(A0, _data(error=Errors.NOT_LEADER_OR_FOLLOWER))], 10)
    context = manager.new_context(12, session_id, 2, False, {}, [], 20)
    assert context.response([(A0, _data())], 20)[2] == [(A0, _data())]  # high watermark was reset to -1


def test_an_incremental_fetch_adds_updates_and_forgets_partitions():
    manager = _manager()
    session_id = _open(manager)
    context = manager.new_context(12, session_id, 1, False, {B0: _request(), A0: _request(2)}, [A1], 10)
    session = manager.cache.get(session_id)
    assert list(session.partitions) == [("a", 0), ("b", 0)]
    assert session.partitions[("a", 0)].request.fetch_offset == 2
    # the added partition has never been answered, so it is answered even without records
    assert context.response([(A0, _data()), (B0, _data())], 10)[2] == [(B0, _data())]


def test_forgetting_every_partition_closes_the_session_and_serves_the_fetch_sessionless():
    manager = _manager()
    session_id = _open(manager)
    context = manager.new_context(12, session_id, 1, False, {}, [A0, A1], 10)
    assert isinstance(context, SessionlessFetchContext)
    assert manager.cache.get(session_id) is None


@pytest.mark.parametrize(
    ("session_id_delta", "epoch", "version", "error"),
    [
        (1, 1, 12, Errors.FETCH_SESSION_ID_NOT_FOUND),
        (0, 2, 12, Errors.INVALID_FETCH_SESSION_EPOCH),
        (0, 1, 13, Errors.FETCH_SESSION_TOPIC_ID_ERROR),
    ],
    ids=["unknown-session", "wrong-epoch", "topic-ids-changed"],
)
def test_an_incremental_fetch_of_the_wrong_session_epoch_or_version_is_refused(
    session_id_delta, epoch, version, error
):
    manager = _manager()
    session_id = _open(manager)
    context = manager.new_context(version, session_id + session_id_delta, epoch, False, {}, [], 10)
    assert isinstance(context, SessionErrorContext)
    assert list(context.partitions({})) == []
    assert context.response([], 10) == (int(error), INVALID_SESSION_ID, [])
    assert manager.cache.get(session_id).epoch == 1  # the session is left as it was


def test_an_answer_to_an_epoch_overtaken_by_a_later_fetch_is_invalid_fetch_session_epoch():
    manager = _manager()
    session_id = _open(manager)
    first = manager.new_context(12, session_id, 1, False, {}, [], 10)
    manager.new_context(12, session_id, 2, False, {}, [], 11)
    assert first.response([(A0, _data())], 12) == (int(Errors.INVALID_FETCH_SESSION_EPOCH), session_id, [])


def test_a_session_by_topic_id_names_a_topic_once_the_metadata_knows_its_id():
    manager = _manager()
    unknown = TopicIdPartition(ID_A, None, 0)
    context = manager.new_context(13, 0, INITIAL_EPOCH, False, {unknown: _request()}, [], 0)
    _, session_id, _ = context.response(
        [(unknown, _data(error=Errors.UNKNOWN_TOPIC_ID, high_watermark=-1))], 0
    )
    assert manager.cache.get(session_id).uses_topic_ids
    context = manager.new_context(13, session_id, 1, False, {}, [], 10)
    assert [tp for tp, _ in context.partitions({ID_A: "a"})] == [TopicIdPartition(ID_A, "a", 0)]


def test_no_session_is_created_when_the_cache_has_no_slots():
    manager = _manager(slots=0)
    context = manager.new_context(12, 0, INITIAL_EPOCH, False, {A0: _request()}, [], 0)
    assert context.response([(A0, _data())], 0)[1] == INVALID_SESSION_ID


def test_a_full_cache_evicts_a_session_unused_for_longer_than_the_eviction_time():
    cache = FetchSessionCache(1, eviction_ms=1000, rng=random.Random(1))
    manager = FetchManager(cache)
    old = _open(manager, now_ms=0)
    assert _open(manager, now_ms=500) == INVALID_SESSION_ID  # full, and the old one is recent
    new = _open(manager, now_ms=1001)
    assert new != INVALID_SESSION_ID and cache.get(old) is None and len(cache) == 1


def test_a_followers_session_evicts_a_smaller_consumer_session_but_not_a_larger_one():
    cache = FetchSessionCache(1, eviction_ms=1000, rng=random.Random(2))
    consumer = cache.maybe_create_session(0, False, 2, False, dict)
    assert cache.maybe_create_session(10, False, 5, False, dict) == INVALID_SESSION_ID  # consumers wait
    follower = cache.maybe_create_session(10, True, 1, False, dict)
    assert follower != INVALID_SESSION_ID and cache.get(consumer) is None
    # a follower's session is evictable by nobody before the eviction time
    assert cache.maybe_create_session(20, True, 9, False, dict) == INVALID_SESSION_ID


def test_a_consumers_session_older_than_the_eviction_time_is_evicted_only_by_a_larger_one():
    cache = FetchSessionCache(1, eviction_ms=1000, rng=random.Random(3))
    first = cache.maybe_create_session(0, False, 3, False, lambda: {("a", p): None for p in range(3)})
    cache.touch(cache.get(first), 1500)  # used again after its eviction time: evictable by all
    assert cache.maybe_create_session(1600, False, 2, False, dict) == INVALID_SESSION_ID
    assert cache.maybe_create_session(1600, False, 3, False, dict) == INVALID_SESSION_ID  # ties keep it
    assert cache.maybe_create_session(1600, False, 4, False, dict) != INVALID_SESSION_ID
    assert cache.get(first) is None


def test_the_cache_refuses_a_negative_size():
    with pytest.raises(ValueError):
        FetchSessionCache(-1)
