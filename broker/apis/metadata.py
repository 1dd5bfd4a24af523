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

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(ctx: ApisContext, header: RequestHeader, request: MetadataRequest) -> MetadataResponse:
    """Build the response from the cache (``topics`` None: every topic)."""
    topics = None if request.topics is None else [t.name for t in request.topics]
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
