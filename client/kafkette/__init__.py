"""Kafkette: a Kafka-style replicated broker cluster on asyncio, its SDK and its tools.

This folder is installed as the top-level package ``kafkette`` (pyproject.toml maps it;
the repository's ``broker/``, ``controller/``, ``client/`` and ``protocol/`` become
``kafkette.broker``, ``kafkette.controller``, ``kafkette.client`` and
``kafkette.protocol`` below it).  It re-exports the public API of ``kafkette.client``:
``AdminClient``, ``Producer``, ``Consumer``, ``NewTopic``, ``TopicPartition``,
``LocalCluster``, ... and one exception class per Kafka error code
(``NotLeaderOrFollowerError``, ...); ``__all__`` lists them.
"""

from kafkette import client as _client
from kafkette.client import *  # noqa: F403 (the public API, listed in kafkette.client.__all__)

__all__ = list(_client.__all__)
