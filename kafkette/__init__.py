"""Kafkette: a Kafka-style replicated broker cluster on asyncio, its SDK and its tools.

This folder is the top-level package ``kafkette`` and holds only its public face (this
module, ``__main__`` and ``py.typed``); the repository's other top-level folders are its
sub-packages: ``broker/``, ``controller/``, ``client/``, ``common/`` and ``protocol/`` are
``kafkette.broker``, ``kafkette.controller``, ``kafkette.client``, ``kafkette.common`` and
``kafkette.protocol`` (pyproject.toml maps them).  It re-exports the public API of ``kafkette.client``:
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
