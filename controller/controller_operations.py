"""ControllerOperations: the narrow interface the controller's request handlers work through.

Owns: the ``ControllerOperations`` protocol (read the context, submit an event to the one
event task, write records, build a request batch to brokers, the log prefix, the brokers
in controlled shutdown) and the response-wait helpers every API shares.  The handler
classes (``TopicDeletionApis``, ``PartitionApis``, ``ConfigApis``) and the propagation
functions take one of these and nothing else of the controller; ``KafkaController``
implements it.  Does not own any decision (the control managers) or any state.

Kafka concept: the ``QuorumController`` operations the managers' results go through
(``appendWriteEvent``, ``appendReadEvent``), here with the ZK-era pushes to brokers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Protocol, TypeVar

from kafkette.controller.controller_broker_request_batch import ControllerBrokerRequestBatch
from kafkette.controller.controller_context import ControllerContext
from kafkette.controller.metadata_records import MetadataRecord

T = TypeVar("T")
Futures = list[asyncio.Future[Any]]


class ControllerOperations(Protocol):
    """What a request handler may do; every method runs on the controller's event loop."""

    context: ControllerContext
    shutting_down_broker_ids: set[int]
    """Brokers in controlled shutdown: never elected until they re-register or are fenced."""

    def log_prefix(self) -> str:
        """``[Controller id=N epoch=E]``."""

    async def submit(self, name: str, handler: Callable[[], Awaitable[T]]) -> T:
        """Run ``handler`` as the event ``name`` on the event task, bounded by ``request.timeout.ms``.

        Raises:
            NotControllerError: the controller is stopped.
            KafkaTimeoutError: the event did not run in time.
        """

    def try_submit(self, name: str, handler: Callable[[], Awaitable[Any]]) -> asyncio.Future[Any] | None:
        """Queue a periodic event without waiting; None when the queue is full or stopped."""

    def submit_in_background(self, name: str, handler: Callable[[], Awaitable[Any]]) -> None:
        """Queue an event from a callback; its task is owned (and cancelled) by the controller."""

    async def write(self, records: list[MetadataRecord], name: str = "") -> None:
        """Check, append and apply ``records`` (one transaction); call only from an event.

        Raises:
            IllegalStateTransitionError: the records would make an illegal transition.
            OSError: the metadata log write failed (nothing is applied).
        """

    def new_batch(self) -> ControllerBrokerRequestBatch:
        """A batch of LeaderAndIsr / UpdateMetadata / StopReplica requests to brokers."""


def response_deadline(timeout_ms: int) -> float:
    """The event-loop time by which a response waiting ``timeout_ms`` must be sent."""
    return asyncio.get_running_loop().time() + max(0, timeout_ms) / 1000


async def wait_all(futures: Iterable[Any], deadline: float) -> None:
    """Wait until every future is done or ``deadline`` (event-loop time) passes; never raises."""
    pending = {f for f in futures if not f.done()}
    if pending:
        await asyncio.wait(pending, timeout=max(0.0, deadline - asyncio.get_running_loop().time()))
