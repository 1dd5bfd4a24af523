"""Requests to a consumer group's coordinator, found with FindCoordinator and found again when
it moves; also a transactional id's transaction coordinator (FindCoordinator key type 1).

Owns: the coordinator known for one group (node id and address), looking it up (any broker
answers FindCoordinator), and sending a group request to it with retries: a lost connection,
COORDINATOR_NOT_AVAILABLE (``__consumer_offsets`` being created, a partition without leader),
NOT_COORDINATOR (it moved) and COORDINATOR_LOAD_IN_PROGRESS (the new one is loading) forget
the coordinator and try again ``retry_backoff_ms`` apart until the deadline.  Shared by the
AdminClient and the Consumer.  Does not own what the requests mean.

Kafka concept: ``AbstractCoordinator.lookupCoordinator`` / ``markCoordinatorUnknown`` (the
consumer) and the Admin client's ``CoordinatorStrategy``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from kafkette.client.kafka_client import KafkaClient
from kafkette.protocol.apis.find_coordinator import (
    COORDINATOR_TYPE_GROUP,
    COORDINATOR_TYPE_TRANSACTION,
    FindCoordinatorRequest,
    FindCoordinatorResponse,
)
from kafkette.protocol.errors import Errors, KafkaConnectionError, KafkaTimeoutError, error_class
from kafkette.protocol.schema import Struct

logger = logging.getLogger(__name__)

COORDINATOR_RETRIABLE = frozenset(
    {Errors.COORDINATOR_NOT_AVAILABLE, Errors.NOT_COORDINATOR, Errors.COORDINATOR_LOAD_IN_PROGRESS}
)
"""Group errors after which the coordinator is looked up again and the request retried."""


class GroupCoordinatorChannel:
    """The way to one group's coordinator.

    Args:
        client: the network client (its brokers answer FindCoordinator).
        group_id: the group (or, with ``key_type`` COORDINATOR_TYPE_TRANSACTION, the transactional id).
        retry_backoff_ms: pause between tries (ms).
        key_type: FindCoordinator's key type: COORDINATOR_TYPE_GROUP (0) or
            COORDINATOR_TYPE_TRANSACTION (1, the transaction coordinator of a transactional id).
    """

    def __init__(
        self,
        client: KafkaClient,
        group_id: str,
        *,
        retry_backoff_ms: int = 100,
        key_type: int = COORDINATOR_TYPE_GROUP,
    ) -> None:
        self._client = client
        self.group_id = group_id
        self._key_type = key_type
        self._key_name = "transactional id" if key_type == COORDINATOR_TYPE_TRANSACTION else "group"
        self._retry_backoff_ms = retry_backoff_ms
        self.coordinator: tuple[int, str, int] | None = None  # (node id, host, port)

    async def _lookup(self) -> tuple[int, str, int] | BaseException:
        """The coordinator, or the retriable error that stopped the lookup.

        Raises:
            KafkaError: a FindCoordinator error that is not retriable.
        """
        try:
            response: FindCoordinatorResponse = await self._client.send_to_any(
                FindCoordinatorRequest(key_type=self._key_type, coordinator_keys=[self.group_id])
            )
        except (KafkaConnectionError, KafkaTimeoutError) as exc:
            return exc
        (found,) = response.coordinators
        if found.error_code == Errors.NONE:
            return found.node_id, found.host, found.port
        error = error_class(found.error_code)(found.error_message or error_class(found.error_code).message)
        if found.error_code not in COORDINATOR_RETRIABLE:
            raise error
        return error

    async def find(self, timeout_ms: int) -> int:
        """The coordinator's node id, looked up if not known.

        Raises:
            KafkaTimeoutError: no coordinator within ``timeout_ms`` (the last error chained).
            KafkaError: a FindCoordinator error that is not retriable.
        """
        await self.send(lambda: None, lambda response: Errors.NONE, timeout_ms)
        assert self.coordinator is not None
        return self.coordinator[0]

    async def send(
        self, build: Callable[[], Struct | None], group_error: Callable[[Any], int], timeout_ms: int
    ) -> Any:
        """Send ``build()`` to the coordinator until it answers as the coordinator.

        Args:
            build: the request (built again for each try); None only looks the coordinator up.
            group_error: the group-level error of a response (NONE when there is none).
            timeout_ms: the deadline for every try together (ms).

        Returns:
            The first response whose group error is not retriable (None when ``build``
            returned None).

        Raises:
            KafkaTimeoutError: no answer within ``timeout_ms`` (the last error chained).
            KafkaError: a FindCoordinator error that is not retriable.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_ms / 1000
        while True:
            last: BaseException | None = None
            if self.coordinator is None:
                found = await self._lookup()
                if isinstance(found, BaseException):
                    last = found
                else:
                    self.coordinator = found
            if self.coordinator is not None:
                request = build()
                if request is None:
                    return None
                node_id, host, port = self.coordinator
                remaining_ms = max(1, int((deadline - loop.time()) * 1000))
                try:
                    response = await self._client.send_to_address(
                        host, port, request, timeout_ms=remaining_ms
                    )
                except (KafkaConnectionError, KafkaTimeoutError) as exc:
                    last = exc
                else:
                    code = group_error(response)
                    if code not in COORDINATOR_RETRIABLE:
                        return response
                    where = f"coordinator {node_id} of {self._key_name} {self.group_id!r}"
                    last = error_class(code)(f"{where}: {error_class(code).message}")
                logger.info(
                    "%s %s: coordinator %d unusable (%s); looking it up again",
                    self._key_name.capitalize(),
                    self.group_id,
                    node_id,
                    last,
                )
                self.coordinator = None
            if loop.time() + self._retry_backoff_ms / 1000 >= deadline:
                raise KafkaTimeoutError(
                    f"no coordinator of {self._key_name} {self.group_id!r} answered in time: {last}"
                ) from last
            await asyncio.sleep(self._retry_backoff_ms / 1000)
