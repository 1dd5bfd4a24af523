"""ControllerMutationQuotaManager: ``controller_mutation_rate`` quotas (KIP-599), the partitions a
user and/or client id may create or delete per second.

Owns: one token bucket per quota group (the (user, client id) tags ``ClientQuotaManager`` gives,
with Kafka's precedence), holding up to ``quota * quota.window.num * quota.window.size.seconds``
tokens and refilled at ``quota`` tokens per second; each partition created (CreateTopics,
CreatePartitions) or deleted (DeleteTopics) takes a token.  A request gets a
``ControllerMutationQuota``: strict (the newer API versions) refuses a topic while the bucket is
below zero, permissive (older versions) takes its tokens anyway; either gives the throttle time
``-tokens / quota * 1000`` ms, the time the bucket needs to be back at zero.  Does not own which
topics a request names or answering them (``broker/apis/controller_mutation_quota.py``).

Kafka concept: ``ControllerMutationQuotaManager``, ``StrictControllerMutationQuota``,
``PermissiveControllerMutationQuota``, ``org.apache.kafka.common.metrics.stats.TokenBucket``.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafkette.broker.client_quota_manager import ClientQuotaManager
from kafkette.common.client_quota_entity import CONTROLLER_MUTATION_RATE


@dataclass
class TokenBucket:
    """Tokens refilled at the quota's rate up to a burst (Kafka's ``TokenBucket``); a new bucket is
    full.

    Attributes:
        burst_s: ``quota.window.num * quota.window.size.seconds`` (s): the burst is this many
            seconds of the quota.
    """

    burst_s: float
    tokens: float | None = None
    last_update_ms: int = 0

    def measure(self, quota: float, now_ms: int) -> float:
        """The tokens left at ``now_ms`` for a quota of ``quota`` tokens per second (below zero:
        over the quota)."""
        self._refill(quota, now_ms)
        return self.tokens  # type: ignore[return-value]

    def record(self, quota: float, value: float, now_ms: int) -> None:
        """Take ``value`` tokens (a negative value gives them back) at ``now_ms``."""
        self._refill(quota, now_ms)
        self.tokens = min(quota * self.burst_s, self.tokens - value)  # type: ignore[operator]

    def _refill(self, quota: float, now_ms: int) -> None:
        burst = quota * self.burst_s
        if self.tokens is None:
            self.tokens = burst
        else:
            self.tokens = min(burst, self.tokens + quota * (now_ms - self.last_update_ms) / 1000)
        self.last_update_ms = now_ms


class ControllerMutationQuota:
    """One request's view of its quota group's bucket.

    Args:
        bucket: the group's token bucket; None for no quota (nothing is ever refused or throttled).
        quota: the group's ``controller_mutation_rate`` (partitions per second).
        strict: refuse a topic while the bucket is below zero (CreateTopics v6+, DeleteTopics v5+,
            CreatePartitions v3+); else take its tokens anyway.
        max_throttle_time_ms: the bound of a throttle under a zero quota (one whole quota window).
    """

    def __init__(
        self, bucket: TokenBucket | None, quota: float, strict: bool, max_throttle_time_ms: int
    ) -> None:
        self._bucket = bucket
        self._quota = quota
        self.strict = strict
        self._max_throttle_time_ms = max_throttle_time_ms
        self.throttle_time_ms = 0
        """The throttle time (ms) of the last time the bucket was found below zero, 0 if never."""

    @property
    def enabled(self) -> bool:
        """True when a quota applies to this request's user and client id."""
        return self._bucket is not None

    def record(self, partitions: int, now_ms: int) -> bool:
        """Take ``partitions`` tokens for one topic at ``now_ms``; False when a strict quota refuses
        the topic (the bucket is already below zero: nothing taken, Kafka's
        ThrottlingQuotaExceededException)."""
        if self._bucket is None:
            return True
        if self.strict:
            tokens = self._bucket.measure(self._quota, now_ms)
            if tokens < 0:
                self._note_throttle(tokens)
                return False
            self._bucket.record(self._quota, partitions, now_ms)
            return True
        self._bucket.record(self._quota, partitions, now_ms)
        tokens = self._bucket.measure(self._quota, now_ms)
        if tokens < 0:
            self._note_throttle(tokens)
        return True

    def give_back(self, partitions: int, now_ms: int) -> None:
        """Return the tokens of a topic the controller then refused (Kafka checks the quota after
        validating a topic, so a refused topic never takes any)."""
        if self._bucket is not None:
            self._bucket.record(self._quota, -partitions, now_ms)

    def _note_throttle(self, tokens: float) -> None:
        if self._quota <= 0:
            self.throttle_time_ms = self._max_throttle_time_ms
        else:
            self.throttle_time_ms = round(-tokens / self._quota * 1000)


class ControllerMutationQuotaManager(ClientQuotaManager):
    """The ``controller_mutation_rate`` quotas in force and each quota group's token bucket.

    Args:
        samples: ``quota.window.num`` (11).
        window_ms: ``quota.window.size.seconds`` in ms (1000).
    """

    def __init__(self, samples: int = 11, window_ms: int = 1000) -> None:
        super().__init__(CONTROLLER_MUTATION_RATE, samples, window_ms)
        self._burst_s = samples * window_ms / 1000
        self._max_throttle_time_ms = samples * window_ms
        self._buckets: dict[tuple[str, str], TokenBucket] = {}

    def new_quota_for(self, user: str, client_id: str, *, strict: bool) -> ControllerMutationQuota:
        """The quota a request of ``user`` (a principal's name) and ``client_id`` is held to
        (Kafka's ``newQuotaFor``: strict or permissive by the request's version)."""
        tags = self.quota_metric_tags(user, client_id)
        limit = self.quota_limit(tags) if self.quotas_enabled else None
        if limit is None:
            return ControllerMutationQuota(None, 0.0, strict, self._max_throttle_time_ms)
        bucket = self._buckets.setdefault(tags, TokenBucket(self._burst_s))
        return ControllerMutationQuota(bucket, limit, strict, self._max_throttle_time_ms)
