"""TopicConfigWarnings: says once that a topic sets a config Kafkette accepts but does not act on.

Owns the set of (topic, config name) pairs already logged in this process, and the WARNING
line (``kafkette.common.topic_config.no_effect_message``) for a topic whose overrides set a
config of ``TOPIC_CONFIGS_WITHOUT_EFFECT`` (the replication throttles) to something other
than its default.  Does not own which configs those are (``kafkette.common.topic_config``)
or where topic configs come from (``ReplicaManager``: LeaderAndIsr and UpdateMetadata).

No Kafka counterpart: Kafka acts on every topic config it accepts.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from kafkette.common.topic_config import configs_without_effect, no_effect_message

logger = logging.getLogger(__name__)


class TopicConfigWarnings:
    """Logs one WARNING per topic and config name per process (not per partition, not per update).

    Args:
        log_prefix: the identity prefix of the lines (``[ReplicaManager broker=1]``).
    """

    def __init__(self, log_prefix: str) -> None:
        self._prefix = log_prefix
        self._warned: set[tuple[str, str]] = set()

    def check(self, topic: str, configs: Mapping[str, str]) -> None:
        """Warn about each config of ``configs`` that has no effect yet, unless already said for ``topic``.

        Args:
            topic: the topic name.
            configs: its whole override set, ``{topic config name: string value}``.
        """
        for name in configs_without_effect(configs):
            if (topic, name) not in self._warned:
                self._warned.add((topic, name))
                logger.warning(
                    "%s %s", self._prefix, no_effect_message(name, topic=topic, value=configs[name])
                )
