"""The Metadata handler called directly: before v12 a topic named by id or with a null name fails the
whole request with INVALID_REQUEST, answered as Kafka's ``MetadataRequest.getErrorResponse``."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from kafkette.broker.apis import metadata
from kafkette.protocol.apis.metadata import MetadataRequest, MetadataRequestTopic
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.kafka_schema import ZERO_UUID

TOPIC_ID = bytes(range(1, 17))


@pytest.mark.parametrize("version", [10, 11])
@pytest.mark.parametrize(
    "odd", [MetadataRequestTopic(name="named", topic_id=TOPIC_ID), MetadataRequestTopic(name=None)]
)
async def test_a_topic_id_or_a_null_name_before_v12_is_invalid_request(version, odd):
    request = MetadataRequest(
        topics=[MetadataRequestTopic(name="orders"), odd], allow_auto_topic_creation=True
    )
    header = RequestHeader(api_key=3, api_version=version, correlation_id=1, client_id="c")
    response = await metadata.handle(SimpleNamespace(), header, request)
    assert response.brokers == []
    assert [(t.error_code, t.name, t.topic_id, t.partitions) for t in response.topics] == [
        (Errors.INVALID_REQUEST, "orders", ZERO_UUID, []),
        (Errors.INVALID_REQUEST, odd.name or "", odd.topic_id, []),
    ]
