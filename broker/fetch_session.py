"""Fetch sessions (KIP-227): the broker remembers what a fetcher asked for, so that its next
fetch names only what changed and the answer carries only partitions with something new.

Owns ``FetchSession`` (one fetcher's partitions, epoch and last use), ``FetchSessionCache`` (the
bounded set of sessions, with Kafka's eviction rule) and ``FetchManager``, which turns a request's
session id and epoch into a ``FetchContext``: which partitions to read, and which of the answers to
send.  Pure logic: the caller passes the time (``now_ms``, ms) and reads the logs; no I/O, no
asyncio.  Does not own the reading (``broker/apis/fetch.py``, ``ReplicaManager``).

Session ids and epochs (Kafka's ``FetchMetadata``): a request at epoch 0 (INITIAL) or -1 (FINAL) is
a full fetch, naming every partition; a full fetch at epoch 0 creates a session when the cache has
room (its id in the answer; 0 when none was made), at -1 it is sessionless; a full fetch naming a
session id closes that session.  Any other epoch is an incremental fetch of session ``session_id``,
whose epoch must be the one the session expects (1 after its creation, then each next one):
FETCH_SESSION_ID_NOT_FOUND for an unknown session, INVALID_FETCH_SESSION_EPOCH for another epoch,
FETCH_SESSION_TOPIC_ID_ERROR when the request's version names topics otherwise than the session's
first one did (by id from v13, KIP-516).  An incremental fetch adds or updates the partitions it
names, drops its forgotten ones; a session left without partitions is closed and the fetch served
sessionless.

Kafka concept: ``kafka.server.FetchSession`` / ``FetchSessionCache`` / ``FetchManager`` and
``org.apache.kafka.server.CachedPartition``.  Kafka shards its cache in 8 (each with an eighth of
the slots); this one is a single cache of ``max.incremental.fetch.session.cache.slots`` sessions.
"""

from __future__ import annotations

import logging
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from kafkette.protocol.apis.fetch import FetchPartitionData
from kafkette.protocol.errors import Errors

logger = logging.getLogger(__name__)

INVALID_SESSION_ID = 0
"""No session: a sessionless fetch's session id, and an answer's when none was created."""

INITIAL_EPOCH = 0
"""A full fetch that asks for a new session."""

FINAL_EPOCH = -1
"""A full fetch without a session (and the close of one named)."""

MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS = 120_000
"""A session unused this long may be evicted by any new one, and an unprivileged (consumer) one
by a follower's after this long since its creation (Kafka's
``KafkaBroker.MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS``, not a config)."""

MAX_EPOCH = 0x7FFFFFFF


def next_epoch(epoch: int) -> int:
    """The epoch after ``epoch``: FINAL stays FINAL, the largest int32 wraps to 1 (Kafka's
    ``FetchMetadata.nextEpoch``)."""
    if epoch < 0:
        return FINAL_EPOCH
    return 1 if epoch == MAX_EPOCH else epoch + 1


class TopicIdPartition(NamedTuple):
    """A partition as a fetch names it: ``topic_id`` (16 bytes; all zero before v13) and
    ``topic`` (None for an id the broker does not know), Kafka's ``TopicIdPartition``."""

    topic_id: bytes
    topic: str | None
    partition: int


def _session_key(tp: TopicIdPartition, uses_topic_ids: bool) -> tuple[bytes | str | None, int]:
    """A partition's key in a session: its topic id when the session names topics by id (the
    name may be resolved later), else its name."""
    return (tp.topic_id if uses_topic_ids else tp.topic, tp.partition)


@dataclass
class CachedPartition:
    """One partition of a session: the fetcher's latest request for it, and what the fetcher was
    last told of it (``high_watermark`` -1 after an error or before any answer, so that the next
    answer includes it; ``local_log_start_offset``).

    Kafka concept: ``CachedPartition`` (``maybeUpdateResponseData`` decides whether a partition
    goes in an incremental answer).
    """

    topic_id_partition: TopicIdPartition
    request: Any
    high_watermark: int = -1
    local_log_start_offset: int = -1

    def maybe_update_response_data(self, data: FetchPartitionData, update: bool) -> bool:
        """Whether ``data`` must be sent: records, a new high watermark or log start offset, a
        preferred read replica, an error or a diverging epoch; with ``update`` it is remembered
        (an error makes the high watermark -1, so the partition is sent again once it clears)."""
        must_respond = bool(data.records)
        if self.high_watermark != data.high_watermark:
            must_respond = True
            if update:
                self.high_watermark = data.high_watermark
        if self.local_log_start_offset != data.log_start_offset:
            must_respond = True
            if update:
                self.local_log_start_offset = data.log_start_offset
        if data.preferred_read_replica != -1:
            must_respond = True
        if data.error_code != Errors.NONE:
            if update:
                self.high_watermark = -1
            must_respond = True
        diverging = data.diverging_epoch
        if diverging is not None and diverging.epoch != -1:
            must_respond = True
        return must_respond


@dataclass
class FetchSession:
    """One fetcher's session.

    Attributes:
        id: the session id (never 0).
        privileged: created by a follower's fetch (evicts consumers' sessions sooner).
        partitions: by session key, in the order they are read (an answered partition moves to the
            end, so the byte limits go round the partitions).
        uses_topic_ids: created by a v13+ fetch (KIP-516); its fetches must stay v13+, and older ones
            below v13.
        creation_ms / last_used_ms: times (ms) of creation and of the last fetch.
        epoch: the epoch the next incremental fetch must carry.
    """

    id: int
    privileged: bool
    partitions: dict[tuple[bytes | str | None, int], CachedPartition]
    uses_topic_ids: bool
    creation_ms: int
    last_used_ms: int
    epoch: int
    evictable_by_privileged: bool = field(default=False, repr=False)
    evictable_by_all: bool = field(default=False, repr=False)

    def update(
        self, fetch_data: dict[TopicIdPartition, Any], to_forget: list[TopicIdPartition]
    ) -> tuple[list[TopicIdPartition], list[TopicIdPartition], list[TopicIdPartition]]:
        """Apply an incremental fetch: add the partitions it names for the first time, take its
        new request for those already there, drop the forgotten ones.

        Returns:
            ``(added, updated, removed)``.
        """
        added, updated, removed = [], [], []
        for tp, request in fetch_data.items():
            key = _session_key(tp, self.uses_topic_ids)
            cached = self.partitions.get(key)
            if cached is None:
                self.partitions[key] = CachedPartition(tp, request)
                added.append(tp)
            else:
                cached.request = request
                updated.append(tp)
        for tp in to_forget:
            if self.partitions.pop(_session_key(tp, self.uses_topic_ids), None) is not None:
                removed.append(tp)
        return added, updated, removed

    def evictable_key(self) -> tuple[bool, int, int]:
        """Kafka's ``EvictableKey``: unprivileged before privileged, then fewer partitions, then id."""
        return (self.privileged, len(self.partitions), self.id)


class FetchSessionCache:
    """At most ``max_entries`` sessions (``max.incremental.fetch.session.cache.slots``).

    A new session takes a free slot; with none free it may evict one (Kafka's ``tryEvict``): the
    least recently used session if unused for more than ``eviction_ms``; else the smallest
    evictable session by ``(privileged, partitions, id)``, unless the new one is smaller.  A
    session is evictable by a follower's new session when it is a consumer's or older than
    ``eviction_ms``, by a consumer's only when older than ``eviction_ms`` (as of its last use).
    """

    def __init__(
        self,
        max_entries: int,
        eviction_ms: int = MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS,
        rng: random.Random | None = None,
    ) -> None:
        if max_entries < 0:
            raise ValueError(f"max_entries must be >= 0, got {max_entries}")
        self.max_entries = max_entries
        self.eviction_ms = eviction_ms
        self._rng = rng or random.Random()
        self._sessions: dict[int, FetchSession] = {}

    def __len__(self) -> int:
        return len(self._sessions)

    def get(self, session_id: int) -> FetchSession | None:
        return self._sessions.get(session_id)

    def remove(self, session_id: int) -> FetchSession | None:
        """Drop a session; the dropped one, or None if there was none."""
        return self._sessions.pop(session_id, None)

    def touch(self, session: FetchSession, now_ms: int) -> None:
        """Mark ``session`` used at ``now_ms`` and recompute whether it may be evicted."""
        session.last_used_ms = now_ms
        aged = now_ms - session.creation_ms > self.eviction_ms
        session.evictable_by_privileged = not session.privileged or aged
        session.evictable_by_all = aged

    def maybe_create_session(
        self,
        now_ms: int,
        privileged: bool,
        size: int,
        uses_topic_ids: bool,
        create_partitions: Callable[[], dict[tuple[bytes | str | None, int], CachedPartition]],
    ) -> int:
        """A new session (epoch 1) if there is room or one can be evicted.

        Returns:
            The new session's id, or ``INVALID_SESSION_ID`` when none was created.
        """
        if len(self._sessions) >= self.max_entries and not self._try_evict(privileged, size, now_ms):
            logger.debug("No fetch session created for privileged=%s, size=%d.", privileged, size)
            return INVALID_SESSION_ID
        session = FetchSession(
            self._new_session_id(),
            privileged,
            create_partitions(),
            uses_topic_ids,
            now_ms,
            now_ms,
            next_epoch(INITIAL_EPOCH),
        )
        self.touch(session, now_ms)
        self._sessions[session.id] = session
        return session.id

    def _new_session_id(self) -> int:
        while True:
            session_id = self._rng.randint(1, MAX_EPOCH)
            if session_id not in self._sessions:
                return session_id

    def _try_evict(self, privileged: bool, size: int, now_ms: int) -> bool:
        if not self._sessions:
            return False
        stalest = min(self._sessions.values(), key=lambda s: (s.last_used_ms, s.id))
        if now_ms - stalest.last_used_ms > self.eviction_ms:
            logger.debug("Evicting stale FetchSession %d.", stalest.id)
            del self._sessions[stalest.id]
            return True
        evictable = [
            s
            for s in self._sessions.values()
            if (s.evictable_by_privileged if privileged else s.evictable_by_all)
        ]
        if not evictable:
            return False
        first = min(evictable, key=FetchSession.evictable_key)
        if (privileged, size, 0) < first.evictable_key():
            return False
        logger.debug("Evicting FetchSession %d for a new one of %d partitions.", first.id, size)
        del self._sessions[first.id]
        return True


class FetchContext(ABC):
    """What one Fetch reads and answers: ``partitions()`` to read, then ``response(updates)``
    gives ``(error_code, session_id, updates to send)``."""

    @abstractmethod
    def partitions(self, topic_names: dict[bytes, str]) -> Iterator[tuple[TopicIdPartition, Any]]:
        """The partitions to read, each with its request data (a ``FetchPartition``); an
        incremental fetch names a topic id it could not before by ``topic_names`` (id -> name)."""

    @abstractmethod
    def response(
        self, updates: list[tuple[TopicIdPartition, FetchPartitionData]], now_ms: int
    ) -> tuple[int, int, list[tuple[TopicIdPartition, FetchPartitionData]]]:
        """The answer's top-level error code, session id and partitions, from the answers
        ``updates`` of the partitions read, at ``now_ms``."""


class SessionErrorContext(FetchContext):
    """A fetch refused for its session: the error, session id 0, no partitions."""

    def __init__(self, error: Errors) -> None:
        self.error = error

    def partitions(self, topic_names: dict[bytes, str]) -> Iterator[tuple[TopicIdPartition, Any]]:
        return iter(())

    def response(
        self, updates: list[tuple[TopicIdPartition, FetchPartitionData]], now_ms: int
    ) -> tuple[int, int, list[tuple[TopicIdPartition, FetchPartitionData]]]:
        return int(self.error), INVALID_SESSION_ID, []


class SessionlessFetchContext(FetchContext):
    """A full fetch without a session: every partition asked, answered in full, session id 0."""

    def __init__(self, fetch_data: dict[TopicIdPartition, Any]) -> None:
        self.fetch_data = fetch_data

    def partitions(self, topic_names: dict[bytes, str]) -> Iterator[tuple[TopicIdPartition, Any]]:
        return iter(self.fetch_data.items())

    def response(
        self, updates: list[tuple[TopicIdPartition, FetchPartitionData]], now_ms: int
    ) -> tuple[int, int, list[tuple[TopicIdPartition, FetchPartitionData]]]:
        return int(Errors.NONE), INVALID_SESSION_ID, updates


class FullFetchContext(SessionlessFetchContext):
    """A full fetch at epoch 0: answered in full, and a new session of its partitions (as answered)
    when the cache has room."""

    def __init__(
        self,
        cache: FetchSessionCache,
        fetch_data: dict[TopicIdPartition, Any],
        uses_topic_ids: bool,
        is_from_follower: bool,
    ) -> None:
        super().__init__(fetch_data)
        self.cache = cache
        self.uses_topic_ids = uses_topic_ids
        self.is_from_follower = is_from_follower

    def response(
        self, updates: list[tuple[TopicIdPartition, FetchPartitionData]], now_ms: int
    ) -> tuple[int, int, list[tuple[TopicIdPartition, FetchPartitionData]]]:
        def create_partitions() -> dict[tuple[bytes | str | None, int], CachedPartition]:
            cached: dict[tuple[bytes | str | None, int], CachedPartition] = {}
            for tp, data in updates:
                cached[_session_key(tp, self.uses_topic_ids)] = CachedPartition(
                    tp, self.fetch_data.get(tp), data.high_watermark, data.log_start_offset
                )
            return cached

        session_id = self.cache.maybe_create_session(
            now_ms, self.is_from_follower, len(updates), self.uses_topic_ids, create_partitions
        )
        return int(Errors.NONE), session_id, updates


class IncrementalFetchContext(FetchContext):
    """An incremental fetch of ``session``: every partition of the session is read, and only those
    with something new are answered (and moved to the end of the session's order)."""

    def __init__(self, session: FetchSession, request_epoch: int) -> None:
        self.session = session
        self.request_epoch = request_epoch

    def partitions(self, topic_names: dict[bytes, str]) -> Iterator[tuple[TopicIdPartition, Any]]:
        for cached in list(self.session.partitions.values()):
            tp = cached.topic_id_partition
            if self.session.uses_topic_ids and tp.topic is None and tp.topic_id in topic_names:
                tp = cached.topic_id_partition = tp._replace(topic=topic_names[tp.topic_id])
            yield tp, cached.request

    def response(
        self, updates: list[tuple[TopicIdPartition, FetchPartitionData]], now_ms: int
    ) -> tuple[int, int, list[tuple[TopicIdPartition, FetchPartitionData]]]:
        session = self.session
        if session.epoch != next_epoch(self.request_epoch):
            return int(Errors.INVALID_FETCH_SESSION_EPOCH), session.id, []
        kept = []
        for tp, data in updates:
            key = _session_key(tp, session.uses_topic_ids)
            cached = session.partitions.get(key)
            if cached is not None and cached.maybe_update_response_data(data, update=True):
                session.partitions[key] = session.partitions.pop(key)
                kept.append((tp, data))
        return int(Errors.NONE), session.id, kept


class FetchManager:
    """Turns a Fetch's session id and epoch into its ``FetchContext`` (Kafka's
    ``FetchManager.newContext``), over one ``FetchSessionCache``."""

    def __init__(self, cache: FetchSessionCache) -> None:
        self.cache = cache

    def new_context(
        self,
        version: int,
        session_id: int,
        epoch: int,
        is_from_follower: bool,
        fetch_data: dict[TopicIdPartition, Any],
        to_forget: list[TopicIdPartition],
        now_ms: int,
    ) -> FetchContext:
        """The context of one Fetch.

        Args:
            version: the request's version (v13+ names topics by id).
            session_id / epoch: the request's (KIP-227; before v7 there are none: 0 and -1).
            is_from_follower: a follower's fetch (its session is privileged).
            fetch_data: the partitions the request names, with their request data.
            to_forget: the request's forgotten partitions.
            now_ms: the time (ms).
        """
        if epoch in (INITIAL_EPOCH, FINAL_EPOCH):
            if session_id != INVALID_SESSION_ID and self.cache.remove(session_id) is not None:
                logger.debug("Full fetch closed fetch session %d.", session_id)
            if epoch == FINAL_EPOCH:
                return SessionlessFetchContext(fetch_data)
            return FullFetchContext(self.cache, fetch_data, version >= 13, is_from_follower)
        session = self.cache.get(session_id)
        if session is None:
            return SessionErrorContext(Errors.FETCH_SESSION_ID_NOT_FOUND)
        if session.epoch != epoch:
            return SessionErrorContext(Errors.INVALID_FETCH_SESSION_EPOCH)
        if session.uses_topic_ids != (version >= 13):
            return SessionErrorContext(Errors.FETCH_SESSION_TOPIC_ID_ERROR)
        session.update(fetch_data, to_forget)
        if not session.partitions:
            self.cache.remove(session.id)
            return SessionlessFetchContext(fetch_data)
        self.cache.touch(session, now_ms)
        session.epoch = next_epoch(session.epoch)
        return IncrementalFetchContext(session, epoch)
