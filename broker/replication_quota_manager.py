"""ReplicationQuotaManager: the replication throttles (KIP-73), the bytes per second this broker
sends to (as leader) or fetches for (as follower) the replicas a topic marks as throttled.

Owns: the rate in force (``leader.replication.throttled.rate`` or
``follower.replication.throttled.rate``, bytes/s, unlimited by default; dynamic per-broker
configs), the measured rate of the throttled partitions' bytes (Kafka's ``SimpleRate`` over
``replication.quota.window.num`` samples of ``replication.quota.window.size.seconds``), whether it
is above the rate, and which partitions are throttled here: those whose topic config
``leader.replication.throttled.replicas`` / ``follower.replication.throttled.replicas`` lists
``<partition>:<this broker's id>`` or is ``*``.  Does not own leaving a partition out of a fetch
(the ReplicaManager as leader, the ReplicaFetcherThread as follower), and never throttles a replica
that is in sync.

Kafka concept: ``ReplicationQuotaManager`` (``isThrottled``, ``isQuotaExceeded``, ``record``),
``ReplicaManager.shouldLeaderThrottle``, ``ReplicaFetcherThread.shouldFollowerThrottle``,
``TopicConfigHandler.parseThrottledPartitions``.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping

from kafkette.broker.client_quota_manager import WindowedRate
from kafkette.common.config_def import LONG_MAX, PARSERS

logger = logging.getLogger(__name__)

LEADER = "leader"
FOLLOWER = "follower"
ALL_REPLICAS = "*"


@functools.lru_cache(maxsize=4096)
def throttled_partitions(value: str, broker_id: int) -> frozenset[int] | None:
    """The partitions a ``*.replication.throttled.replicas`` value throttles on ``broker_id``.

    Args:
        value: the topic config's value: ``""``, ``"*"`` or ``"0:101,1:102"`` (partition:broker).
        broker_id: this broker's id.

    Returns:
        None for ``*`` (every partition); else the partition ids listed with ``broker_id``.
        Malformed entries are skipped (the controller validates the config).
    """
    items = PARSERS["list"](value)
    if items == [ALL_REPLICAS]:
        return None
    out = set()
    for item in items:
        partition, _, broker = item.partition(":")
        if partition.isdigit() and broker.isdigit() and int(broker) == broker_id:
            out.add(int(partition))
    return frozenset(out)


class ReplicationQuotaManager:
    """One side's replication throttle on this broker.

    Args:
        replication_type: ``LEADER`` or ``FOLLOWER``.
        broker_id: this broker's id (the one the throttled replica lists name).
        samples: ``replication.quota.window.num`` (11).
        window_ms: ``replication.quota.window.size.seconds`` in ms (1000).
    """

    def __init__(
        self, replication_type: str, broker_id: int, samples: int = 11, window_ms: int = 1000
    ) -> None:
        self.replication_type = replication_type
        self.broker_id = broker_id
        self.config_name = f"{replication_type}.replication.throttled.replicas"
        self.bytes_per_s = LONG_MAX
        self._rate = WindowedRate(samples, window_ms, simple=True)

    def update_quota(self, bytes_per_s: int) -> None:
        """Make ``bytes_per_s`` the rate in force (``LONG_MAX``: unlimited)."""
        if bytes_per_s != self.bytes_per_s:
            logger.info(
                "Changing %s replication throttled rate to %s bytes/s", self.replication_type, bytes_per_s
            )
        self.bytes_per_s = bytes_per_s

    def is_throttled(self, partition: int, topic_configs: Mapping[str, str]) -> bool:
        """True when ``partition`` of a topic with ``topic_configs`` (``{name: string value}``, its
        overrides) is throttled on this side of this broker."""
        value = topic_configs.get(self.config_name)
        if not value:
            return False
        listed = throttled_partitions(value, self.broker_id)
        return listed is None or partition in listed

    def is_quota_exceeded(self, now_ms: int) -> bool:
        """True when the throttled bytes' rate is above the rate in force at ``now_ms``."""
        if self.bytes_per_s >= LONG_MAX:
            return False
        return self._rate.measure(now_ms) > self.bytes_per_s

    def record(self, size: int, now_ms: int) -> None:
        """Count ``size`` bytes of throttled partitions sent or fetched at ``now_ms``."""
        self._rate.record(size, now_ms)
