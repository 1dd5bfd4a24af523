"""LogDirFailureChannel: tells the broker's listeners that a log went offline.

Owns: the listeners (callables taking the ``TopicPartition`` of the log) and the event
loop they run on.  ``maybe_add_offline_log`` may be called from any thread (a log read
in an executor can find corruption); listeners always run on the loop.  Does not own
the offline state itself (``LocalLog.offline_reason``) nor what listeners do (the
lifecycle manager sends a heartbeat at once, carrying the broker's offline replicas,
so the controller moves leadership away).

Kafka concept: ``LogDirFailureChannel`` (``maybeAddOfflineLogDir``), per partition
here, consumed as ``BrokerLifecycleManager.propagateDirectoryFailure`` does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from kafkette.protocol.topic_partition import TopicPartition

OfflineLogListener = Callable[[TopicPartition], None]


class LogDirFailureChannel:
    """Fan-out of "this log went offline" to listeners on the broker's event loop.

    Listeners are added on the loop (``add_listener``); a notification before any
    listener exists is dropped, which is fine for start-up: whoever listens reads the
    complete offline set when it starts (the first heartbeat carries it).
    """

    def __init__(self) -> None:
        self._listeners: list[OfflineLogListener] = []
        self._loop: asyncio.AbstractEventLoop | None = None

    def add_listener(self, listener: OfflineLogListener) -> None:
        """Call ``listener(tp)`` on the running loop whenever a log goes offline.

        Raises:
            RuntimeError: called outside a running event loop.
        """
        self._loop = asyncio.get_running_loop()
        self._listeners.append(listener)

    def maybe_add_offline_log(self, tp: TopicPartition) -> None:
        """Report that the log of ``tp`` went offline (thread-safe; listeners run on the loop)."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            on_loop = asyncio.get_running_loop() is loop
        except RuntimeError:
            on_loop = False
        for listener in list(self._listeners):
            if on_loop:
                listener(tp)
            else:
                loop.call_soon_threadsafe(listener, tp)
