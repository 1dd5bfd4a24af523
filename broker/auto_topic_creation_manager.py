"""Auto topic creation: unknown topics asked for in Metadata requests are created with
the controller's defaults.

Owns: the set of topics whose CreateTopics request is in flight (so one topic is
asked for once however many Metadata requests name it meanwhile) and the tasks
sending those requests; ``stop()`` cancels and awaits them.  The Metadata handler
decides *whether* to auto-create (``auto.create.topics.enable``, the request's
``allow_auto_topic_creation``, never for all-topics requests); this manager decides
*how*: invalid names get INVALID_TOPIC_EXCEPTION, valid ones a CreateTopics request
(``num_partitions``/``replication_factor`` -1: ``num.partitions`` and
``default.replication.factor`` of the controller) sent without waiting for it, through
the NodeToControllerChannelManager, or straight to the local controller when this
broker runs it.  Until the topic exists its Metadata entry is UNKNOWN_TOPIC_OR_PARTITION
(as Apache Kafka 4.x answers; a retriable error), and the client retries.  TOPIC_ALREADY_EXISTS is fine
(someone else created it first).  Does not own topic validation rules (``controller/
topic_validation.py``, reused here) nor the creation itself (the controller).

Kafka concept: ``AutoTopicCreationManager`` (``createTopics``,
``filterCreatableTopics``, ``sendCreateTopicRequest`` with ``inflightTopics``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from kafkette.common.background_tasks import cancel_and_wait
from kafkette.common.topic_names import INTERNAL_TOPICS, validate_topic_name
from kafkette.protocol.apis.create_topics import CreatableTopic, CreateTopicsRequest
from kafkette.protocol.apis.metadata import MetadataResponseTopic
from kafkette.protocol.errors import Errors, InvalidTopicError, KafkaError, error_name

logger = logging.getLogger(__name__)

STOP_TIMEOUT_S = 5.0
"""Bound on awaiting the cancelled creation tasks at ``stop``."""
MAX_IN_FLIGHT_TOPICS = 1000
"""Bound on topics being created at once; further ones wait for a later Metadata request."""


class ControllerChannel(Protocol):
    """The seam to the controller: ``NodeToControllerChannelManager.send``."""

    async def send(self, request: Any, timeout_ms: int | None = None) -> Any: ...


def topic_name_error(name: str) -> str | None:
    """The INVALID_TOPIC_EXCEPTION message for an illegal topic name, or None when legal."""
    try:
        validate_topic_name(name)
    except InvalidTopicError as exc:
        return exc.args[0] if exc.args else str(exc)
    return None


class AutoTopicCreationManager:
    """Sends CreateTopics for unknown topics to the controller, deduplicating in-flight ones.

    Args:
        broker_id: this broker's node id (log prefix).
        channel: the channel to the active controller (which may be this node's own voter).
        request_timeout_ms: ``timeout_ms`` of the CreateTopics request (how long the
            controller waits for the partitions to get leaders) and, plus a margin, of
            the send.
        internal_topic: the CreateTopics entry of an internal topic (``__consumer_offsets``:
            its own partitions, replication factor and configs, as Kafka's
            ``creatableTopic``), None for any other name (created with the controller's
            defaults).
    """

    def __init__(
        self,
        broker_id: int,
        channel: ControllerChannel,
        *,
        request_timeout_ms: int = 30000,
        internal_topic: Callable[[str], CreatableTopic | None] | None = None,
    ) -> None:
        self._channel = channel
        self._request_timeout_ms = request_timeout_ms
        self._internal_topic = internal_topic or (lambda name: None)
        self.in_flight_topics: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._stopped = False
        self._prefix = f"[AutoTopicCreationManager id={broker_id}]"

    def create_topics(self, topics: Iterable[str]) -> list[MetadataResponseTopic]:
        """Start creating ``topics`` (unknown to the MetadataCache) and answer for them.

        Does not wait for the creation.  Must be called on the event loop.

        Args:
            topics: topic names; duplicates are answered once.

        Returns:
            One Metadata topic entry per distinct name: INVALID_TOPIC_EXCEPTION for an
            illegal name, UNKNOWN_TOPIC_OR_PARTITION for the others (being created; an
            internal topic marked ``is_internal``, as Kafka's ``AutoTopicCreationManager``).
        """
        responses: list[MetadataResponseTopic] = []
        to_create: list[str] = []
        for name in dict.fromkeys(topics):
            problem = topic_name_error(name)
            if problem is not None:
                logger.info("%s Not auto-creating %r: %s", self._prefix, name, problem)
                responses.append(MetadataResponseTopic(error_code=Errors.INVALID_TOPIC_EXCEPTION, name=name))
                continue
            responses.append(
                MetadataResponseTopic(
                    error_code=Errors.UNKNOWN_TOPIC_OR_PARTITION,
                    name=name,
                    is_internal=name in INTERNAL_TOPICS,
                )
            )
            if name not in self.in_flight_topics and len(self.in_flight_topics) < MAX_IN_FLIGHT_TOPICS:
                to_create.append(name)
        if to_create and not self._stopped:
            self.in_flight_topics.update(to_create)
            task = asyncio.get_running_loop().create_task(self._send(to_create), name="auto-topic-creation")
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return responses

    async def _send(self, topics: list[str]) -> None:
        request = CreateTopicsRequest(
            topics=[
                self._internal_topic(name)
                or CreatableTopic(name=name, num_partitions=-1, replication_factor=-1)
                for name in topics
            ],
            timeout_ms=self._request_timeout_ms,
        )
        logger.info("%s Auto-creating topics %s", self._prefix, topics)
        try:
            response = await self._channel.send(request, timeout_ms=self._request_timeout_ms + 5000)
            for result in response.topics:
                if result.error_code not in (Errors.NONE, Errors.TOPIC_ALREADY_EXISTS):
                    logger.warning(
                        "%s Auto-creation of topic %s failed: %s %s",
                        self._prefix,
                        result.name,
                        error_name(result.error_code),
                        result.error_message or "",
                    )
        except KafkaError as exc:
            logger.warning("%s Auto-creation of topics %s not delivered: %s", self._prefix, topics, exc)
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.exception("%s Auto-creation of topics %s failed", self._prefix, topics)
        finally:
            self.in_flight_topics.difference_update(topics)

    async def stop(self) -> None:
        """Cancel and await in-flight creations (the controller may still complete them)."""
        self._stopped = True
        await cancel_and_wait(self._tasks, STOP_TIMEOUT_S)
        self._tasks.clear()
