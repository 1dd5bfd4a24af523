"""Kafkette: a Kafka-style replicated broker cluster on asyncio, its SDK and its tools.

This folder is installed as the top-level package ``kafkette`` (pyproject.toml maps it;
the repository's ``broker/``, ``controller/``, ``client/`` and ``protocol/`` become
``kafkette.broker``, ``kafkette.controller``, ``kafkette.client`` and
``kafkette.protocol`` below it).  It re-exports the public API of ``kafkette.client``:
``AdminClient``, ``Producer``, ``Consumer``, ``NewTopic``, ``TopicPartition``,
``LocalCluster``, ... and one exception class per Kafka error code
(``NotLeaderOrFollowerError``, ...); ``__all__`` lists them.  Each is imported on first use
(PEP 562), so that importing a broker or controller module does not import the whole SDK.
"""

from typing import Any

from kafkette import client as _client

__all__ = list(_client.__all__)


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(_client, name)
    raise AttributeError(f"module 'kafkette' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
