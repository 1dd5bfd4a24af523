"""ClientQuotaManager: byte-rate quotas per user and client id, and the throttle time a client that
exceeds its quota gets (KIP-13, KIP-55, KIP-219).

Owns: the quotas in force (``update_quota`` / ``remove_quota``, from the metadata log's client
quota records), which quota applies to a (user, client id) pair by Kafka's precedence
(``/users/<user>/clients/<client-id>``, ``/users/<user>/clients/<default>``, ``/users/<user>``,
``/users/<default>/clients/<client-id>``, ``/users/<default>/clients/<default>``,
``/users/<default>``, ``/clients/<client-id>``, ``/clients/<default>``), the rate each quota group
is measured over (the pairs sharing a quota share one rate: ``quota_metric_tags``), and the
throttle time when the measured rate is above the quota: ``(rate - quota) / quota * window``, the
time it takes the average to fall back to the quota.  Does not own sending the throttle time or
muting the connection (the request handlers and the socket server).

Rates are Kafka's ``Rate`` over a ``WindowedSum``: ``quota.window.num`` (11) samples of
``quota.window.size.seconds`` (1 s); a rate measured before the samples span their window counts
the missing full windows as elapsed, so a burst at start-up is not judged over a few ms.

Kafka concept: ``ClientQuotaManager`` with its ``DefaultQuotaCallback``, ``QuotaUtils.throttleTime``,
``org.apache.kafka.common.metrics.stats.Rate`` / ``SampledStat``, ``Sanitizer.sanitize``.
"""

from __future__ import annotations

import logging
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field

from kafkette.common.client_quota_entity import CLIENT_ID, IP, USER, ClientQuotaEntity

logger = logging.getLogger(__name__)

DEFAULT = "<default>"
"""The entity name of a default quota (Kafka's ``<default>`` in ``kafka-configs.sh`` and
``ClientQuotaEntity``'s null name)."""

NO_QUOTAS, CLIENT_ID_QUOTA_ENABLED, USER_QUOTA_ENABLED, USER_CLIENT_ID_QUOTA_ENABLED = 0, 1, 2, 4


def sanitize(name: str) -> str:
    """A user name as quota entities and metric tags hold it (Kafka's ``Sanitizer.sanitize``: URL
    encoding, ``*`` as ``%2A`` and a space as ``%20``)."""
    encoded = urllib.parse.quote_plus(name, safe="*").replace("~", "%7E")
    return encoded.replace("*", "%2A").replace("+", "%20")


@dataclass(frozen=True)
class QuotaEntity:
    """Whom a quota is for: ``user`` (a sanitized user name, ``DEFAULT``) and/or ``client_id``
    (a client id, ``DEFAULT``); None where the entity does not name that part."""

    user: str | None = None
    client_id: str | None = None


@dataclass
class _Sample:
    start_ms: int
    last_event_ms: int
    value: float = 0.0
    events: int = 0


@dataclass
class WindowedRate:
    """A rate per second of recorded values over ``samples`` windows of ``window_ms`` (Kafka's
    ``Rate`` of a ``WindowedSum`` with a ``MetricConfig``).

    Attributes:
        samples: ``quota.window.num``.
        window_ms: ``quota.window.size.seconds`` in ms.
    """

    samples: int = 11
    window_ms: int = 1000
    simple: bool = False
    """Kafka's ``SimpleRate``: a young rate divides by the time since its oldest sample (at least one
    window) instead of counting ``samples - 1`` full windows as elapsed."""
    _samples: list[_Sample] = field(default_factory=list)
    _current: int = 0

    def record(self, value: float, now_ms: int) -> None:
        """Add ``value`` at ``now_ms``."""
        sample = self._current_sample(now_ms)
        if now_ms >= sample.start_ms + self.window_ms:  # Sample.isComplete (no event count bound)
            self._current = (self._current + 1) % (self.samples + 1)
            if self._current >= len(self._samples):
                sample = _Sample(now_ms, now_ms)
                self._samples.append(sample)
            else:
                sample = self._samples[self._current]
                sample.start_ms, sample.last_event_ms, sample.value, sample.events = now_ms, now_ms, 0.0, 0
        sample.value += value
        sample.events += 1
        sample.last_event_ms = now_ms

    def measure(self, now_ms: int) -> float:
        """The rate (values per second) at ``now_ms``."""
        self._purge(now_ms)
        total = sum(s.value for s in self._samples)
        return total / (self.window_size_ms(now_ms) / 1000.0)

    def window_size_ms(self, now_ms: int) -> int:
        """The span the rate divides by (ms): since the oldest sample, at least ``samples - 1``
        full windows, at least 1 ms (Kafka's ``Rate.windowSize``); a ``simple`` rate: since the
        oldest sample, at least one window (``SimpleRate.windowSize``)."""
        self._purge(now_ms)
        oldest = min((s.start_ms for s in self._samples), default=now_ms)
        elapsed = now_ms - oldest
        if self.simple:
            return max(elapsed, self.window_ms)
        full_windows = elapsed // self.window_ms
        if full_windows < self.samples - 1:
            elapsed += (self.samples - 1 - full_windows) * self.window_ms
        return max(elapsed, 1)

    def _current_sample(self, now_ms: int) -> _Sample:
        if not self._samples:
            self._samples.append(_Sample(now_ms, now_ms))
        return self._samples[self._current]

    def _purge(self, now_ms: int) -> None:
        expire_ms = self.samples * self.window_ms
        if not self._samples:
            self._samples.append(_Sample(now_ms, now_ms))
        for sample in self._samples:
            if now_ms - sample.last_event_ms >= expire_ms:
                sample.start_ms, sample.last_event_ms, sample.value, sample.events = now_ms, now_ms, 0.0, 0


class ClientQuotaManager:
    """One quota type's quotas and rates (``producer_byte_rate`` for Produce, ``consumer_byte_rate``
    for Fetch).

    Args:
        quota_type: the quota's config name, for logs.
        samples: ``quota.window.num`` (11).
        window_ms: ``quota.window.size.seconds`` in ms (1000).
    """

    def __init__(self, quota_type: str, samples: int = 11, window_ms: int = 1000) -> None:
        self.quota_type = quota_type
        self._samples = samples
        self._window_ms = window_ms
        self._quotas: dict[QuotaEntity, float] = {}
        self._rates: dict[tuple[str, str], WindowedRate] = {}
        self._types_in_use: dict[int, int] = {}

    @property
    def quotas_enabled(self) -> bool:
        """True once any quota of this type is set (until then nothing is measured)."""
        return self.quota_types_enabled != NO_QUOTAS

    @property
    def quota_types_enabled(self) -> int:
        """Kafka's bit set of the entity kinds with a quota (client id 1, user 2, user and client id 4)."""
        return sum(kind for kind, count in self._types_in_use.items() if count > 0)

    def update_quota(self, entity: QuotaEntity, value: float) -> None:
        """Set ``entity``'s quota (bytes per second)."""
        if entity not in self._quotas:
            kind = _kind(entity)
            self._types_in_use[kind] = self._types_in_use.get(kind, 0) + 1
        logger.info("Changing %s quota for %s to %s", self.quota_type, entity, value)
        self._quotas[entity] = value

    def remove_quota(self, entity: QuotaEntity) -> None:
        """Drop ``entity``'s quota (if it has one)."""
        if self._quotas.pop(entity, None) is not None:
            kind = _kind(entity)
            self._types_in_use[kind] -= 1
            logger.info("Removing %s quota for %s", self.quota_type, entity)

    def set_quotas(self, quotas: dict[QuotaEntity, float]) -> None:
        """Make ``quotas`` the quotas in force: each one set, any other removed (the controller's
        client quotas as the broker last learned them)."""
        for entity in [e for e in self._quotas if e not in quotas]:
            self.remove_quota(entity)
        for entity, value in quotas.items():
            if self._quotas.get(entity) != value:
                self.update_quota(entity, value)

    def quota_metric_tags(self, user: str, client_id: str) -> tuple[str, str]:
        """The (user, client id) tags of the rate a request of ``user`` (a principal's name, not
        sanitized) and ``client_id`` counts toward: pairs with the same tags share a rate and a quota
        (Kafka's ``DefaultQuotaCallback.quotaMetricTags``)."""
        user = sanitize(user)
        enabled = self.quota_types_enabled
        if enabled in (NO_QUOTAS, CLIENT_ID_QUOTA_ENABLED):
            return "", client_id
        if enabled == USER_QUOTA_ENABLED:
            return user, ""
        if enabled == USER_CLIENT_ID_QUOTA_ENABLED:
            return user, client_id
        q = self._quotas
        for entity, tags in (
            (QuotaEntity(user, client_id), (user, client_id)),
            (QuotaEntity(user, DEFAULT), (user, client_id)),
            (QuotaEntity(user, None), (user, "")),
            (QuotaEntity(DEFAULT, client_id), (user, client_id)),
            (QuotaEntity(DEFAULT, DEFAULT), (user, client_id)),
            (QuotaEntity(DEFAULT, None), (user, "")),
        ):
            if entity in q:
                return tags
        return "", client_id

    def unrecord(self, user: str, client_id: str, value: float, now_ms: int) -> None:
        """Take back ``value`` recorded for a request that is answered without it (a throttled
        Fetch gets an empty answer: Kafka's ``unrecordQuotaSensor``)."""
        if not self.quotas_enabled:
            return
        rate = self._rates.get(self.quota_metric_tags(user, client_id))
        if rate is not None:
            rate.record(-value, now_ms)

    def quota_limit(self, tags: tuple[str, str]) -> float | None:
        """The quota (bytes per second) of a rate with these tags, None when none applies (Kafka's
        ``DefaultQuotaCallback.quotaLimit``)."""
        user, client_id = tags
        q = self._quotas
        if user and client_id:
            order = [
                QuotaEntity(user, client_id),
                QuotaEntity(user, DEFAULT),
                QuotaEntity(DEFAULT, client_id),
                QuotaEntity(DEFAULT, DEFAULT),
            ]
        elif user:
            order = [QuotaEntity(user, None), QuotaEntity(DEFAULT, None)]
        elif client_id:
            order = [QuotaEntity(None, client_id), QuotaEntity(None, DEFAULT)]
        else:
            return None
        return next((q[e] for e in order if e in q), None)

    def applies_to(self, user: str, client_id: str) -> bool:
        """Whether a quota of this type applies to requests of ``user`` (a principal's name) and
        ``client_id``: they are recorded against a rate with a limit."""
        return self.quotas_enabled and self.quota_limit(self.quota_metric_tags(user, client_id)) is not None

    def record_and_get_throttle_time_ms(self, user: str, client_id: str, value: float, now_ms: int) -> int:
        """Record ``value`` (bytes) for a request of ``user`` / ``client_id`` at ``now_ms`` and return
        how long to throttle it (ms; 0 within the quota or without one).  Kafka's
        ``maybeRecordAndGetThrottleTimeMs``: nothing is recorded while no quota of this type is set."""
        if not self.quotas_enabled:
            return 0
        tags = self.quota_metric_tags(user, client_id)
        rate = self._rates.get(tags)
        if rate is None:
            rate = self._rates[tags] = WindowedRate(self._samples, self._window_ms)
        rate.record(value, now_ms)
        limit = self.quota_limit(tags)
        if limit is None:
            return 0
        measured = rate.measure(now_ms)
        if measured <= limit:
            return 0
        if limit <= 0:  # a zero quota: held back a whole quota window each time
            return self._samples * self._window_ms
        return round((measured - limit) / limit * rate.window_size_ms(now_ms))


def principal_name(principal: str) -> str:
    """The user name quotas read from a principal's ``Type:name`` form (``User:alice`` -> ``alice``,
    ``User:ANONYMOUS`` -> ``ANONYMOUS``: Kafka's ``KafkaPrincipal.getName``)."""
    return principal.partition(":")[2] or principal


def quotas_of_type(
    client_quotas: Mapping[ClientQuotaEntity, Mapping[str, float]], quota_type: str
) -> dict[QuotaEntity, float]:
    """The ``quota_type`` quotas (``producer_byte_rate`` ...) of the client quota entities the
    controller sent, as ``QuotaEntity``s: user names sanitized, a default name as ``DEFAULT``; IP
    entities and entities without that quota left out (Kafka's ``ClientQuotaMetadataManager``)."""
    out = {}
    for entity, values in client_quotas.items():
        if quota_type not in values:
            continue
        parts = dict(entity)
        if IP in parts:
            continue
        user = (DEFAULT if parts[USER] is None else sanitize(parts[USER])) if USER in parts else None
        client_id = (
            (DEFAULT if parts[CLIENT_ID] is None else parts[CLIENT_ID]) if CLIENT_ID in parts else None
        )
        out[QuotaEntity(user, client_id)] = values[quota_type]
    return out


def _kind(entity: QuotaEntity) -> int:
    if entity.user is not None and entity.client_id is not None:
        return USER_CLIENT_ID_QUOTA_ENABLED
    if entity.user is not None:
        return USER_QUOTA_ENABLED
    if entity.client_id is not None:
        return CLIENT_ID_QUOTA_ENABLED
    return NO_QUOTAS
