"""ClientRequestQuotaManager: ``request_percentage`` quotas (KIP-124), the share of the broker's
request handling time a user and/or client id may take.

Owns: recording each request's handler time as a percentage (``thread_time_ns * 100 / 1e9``: one
full second of handling in a second is 100%) against the quota group's rate, and the throttle time
when that rate is above the quota, bounded by one quota window (``quota.window.size.seconds``) as
Kafka bounds it.  The quotas, their precedence and the rate are ``ClientQuotaManager``'s.  Does not
own which requests are exempt (``KafkaApis``: the ``clusterAction`` APIs and follower fetches) nor
muting the connection (the socket server).

Kafka concept: ``ClientRequestQuotaManager`` (``NANOS_TO_PERCENTAGE_PER_SECOND``,
``QuotaUtils.boundedThrottleTime``).
"""

from __future__ import annotations

from kafkette.broker.client_quota_manager import ClientQuotaManager
from kafkette.common.client_quota_entity import REQUEST_PERCENTAGE

NANOS_TO_PERCENTAGE_PER_SECOND = 100.0 / 1_000_000_000
"""A nanosecond of handling as a percentage of one second."""


class ClientRequestQuotaManager(ClientQuotaManager):
    """The ``request_percentage`` quotas in force and each quota group's request-time rate.

    Args:
        samples: ``quota.window.num`` (11).
        window_ms: ``quota.window.size.seconds`` in ms (1000); also the longest throttle time.
    """

    def __init__(self, samples: int = 11, window_ms: int = 1000) -> None:
        super().__init__(REQUEST_PERCENTAGE, samples, window_ms)
        self.max_throttle_time_ms = window_ms

    def record_request_time(self, user: str, client_id: str, thread_time_ns: int, now_ms: int) -> int:
        """Record a request's handler time for ``user`` (a principal's name) and ``client_id`` at
        ``now_ms`` and return its throttle time (ms, at most one quota window; 0 within the quota or
        without one).  Kafka's ``maybeRecordAndGetThrottleTimeMs``."""
        throttle_ms = self.record_and_get_throttle_time_ms(
            user, client_id, thread_time_ns * NANOS_TO_PERCENTAGE_PER_SECOND, now_ms
        )
        return min(throttle_ms, self.max_throttle_time_ms)
