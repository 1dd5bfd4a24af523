"""Metadata handler: answered from the MetadataCache on any broker, auto-creating topics.

Requested topics unknown to the cache are auto-created (``AutoTopicCreationManager``)
when ``auto.create.topics.enable`` is true and the request allows it
(``allow_auto_topic_creation``, Metadata v1; v0 always allows); they are answered
UNKNOWN_TOPIC_OR_PARTITION (retriable) until they exist, as Apache Kafka 4.x answers.  Requests for all topics
(``topics`` None) never create.  Without auto-creation an unknown topic is
UNKNOWN_TOPIC_OR_PARTITION, or INVALID_TOPIC_EXCEPTION when its name is illegal.
Kafka concept: ``KafkaApis.handleTopicMetadataRequest`` / ``getTopicMetadata``
(with ``AutoTopicCreationManager`` for auto-creation).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.auto_topic_creation_manager import topic_name_error
from kafkette.protocol.apis.metadata import MetadataRequest, MetadataResponse, MetadataResponseTopic
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.kafka_error_responses import metadata_error_response
from kafkette.protocol.kafka_schema import ZERO_UUID

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext

TOPIC_IDS_FROM_VERSION = 12
"""The first Metadata version that may name topics by id alone (a null name, KIP-516)."""


async def handle(ctx: ApisContext, header: RequestHeader, request: MetadataRequest) -> MetadataResponse:
    """Build the response from the cache (``topics`` None: every topic).

    A request naming topics by id (v12+, KIP-516: the consumer of KIP-848 resolves its assigned topic ids
    so) is answered for those ids alone: each known one under its name, each unknown one UNKNOWN_TOPIC_ID
    with a null name; ids never auto-create (Kafka's ``useTopicId``).  Before v12 a topic with a null
    name or a topic id fails the whole request with INVALID_REQUEST, answered as Kafka's
    ``MetadataRequest.getErrorResponse`` answers it.
    """
    asked = request.topics
    if (
        asked is not None
        and header.api_version < TOPIC_IDS_FROM_VERSION
        and any(t.name is None or t.topic_id != ZERO_UUID for t in asked)
    ):
        return metadata_error_response(request, header.api_version, Errors.INVALID_REQUEST, None)  # type: ignore[no-any-return]
    if asked is not None and header.api_version >= TOPIC_IDS_FROM_VERSION:
        topic_ids = [i for i in dict.fromkeys(t.topic_id for t in asked) if i != ZERO_UUID]
        if topic_ids:
            return _by_topic_ids(ctx, header, topic_ids)
    # A topic named twice is answered once (Kafka reads the names as a set).
    topics = None if asked is None else list(dict.fromkeys(t.name for t in asked if t.name is not None))
    response = ctx.metadata_cache.metadata_response(topics, header.listener_name)
    unknown = [t.name for t in response.topics if t.error_code == Errors.UNKNOWN_TOPIC_OR_PARTITION]
    if topics is None or not unknown:
        return response
    manager = ctx.auto_topic_creation_manager
    if manager is not None and request.allow_auto_topic_creation and ctx.config.auto_create_topics_enable:
        answers = {t.name: t for t in manager.create_topics(unknown)}
    else:
        answers = {
            name: MetadataResponseTopic(error_code=Errors.INVALID_TOPIC_EXCEPTION, name=name)
            for name in unknown
            if topic_name_error(name) is not None
        }
    response.topics = [
        answers.get(t.name, t) if t.error_code == Errors.UNKNOWN_TOPIC_OR_PARTITION else t
        for t in response.topics
    ]
    return response


def _by_topic_ids(ctx: ApisContext, header: RequestHeader, topic_ids: list[bytes]) -> MetadataResponse:
    names = {topic_id: ctx.metadata_cache.topic_name(topic_id) for topic_id in topic_ids}
    known = [name for name in names.values() if name is not None]
    response = ctx.metadata_cache.metadata_response(known, header.listener_name)
    response.topics += [
        MetadataResponseTopic(error_code=Errors.UNKNOWN_TOPIC_ID, name=None, topic_id=topic_id)
        for topic_id, name in names.items()
        if name is None
    ]
    return response
