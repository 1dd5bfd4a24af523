"""The TxnOffsetCommit handler through ``KafkaApis`` over the real group coordinator on files (the
``broker`` fixture of ``test_txn_offsets_on_files``): Kafka's authorization (WRITE on the
transactional id, READ on the group, READ on each topic), UNKNOWN_TOPIC_OR_PARTITION for what the
metadata does not have, the coordinator's group errors; and the API's error response.  The API is not
offered on any listener yet: the dispatcher reaches it in-process."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from acl_fakes import acl, authorizer, header
from broker_fakes import with_quota_managers
from test_txn_offsets_on_files import GROUP, TOPIC, OneTopicMetadataCache, broker, fetch, txn_commit

from kafkette.broker.apis.kafka_apis import KafkaApis
from kafkette.common.security.acl import AclOperation, ResourceType
from kafkette.protocol.api_keys import API_REGISTRY, APIS, KAFKA_APIS, ApiKey
from kafkette.protocol.apis.transactions import TxnOffsetCommitRequestPartition, TxnOffsetCommitRequestTopic
from kafkette.protocol.errors import Errors, error_class
from kafkette.protocol.kafka_error_responses import ERROR_RESPONSES

__all__ = ["broker"]  # the fixture, shared

SPEC = next(spec for spec in APIS if spec.key == ApiKey.TXN_OFFSET_COMMIT)


async def send(broker, request, data=None, version: int = 3):
    ctx = SimpleNamespace(
        authorizer=data, metadata_cache=OneTopicMetadataCache(), group_coordinator=broker.coordinator
    )
    return await KafkaApis(with_quota_managers(ctx)).handle(
        header(ApiKey.TXN_OFFSET_COMMIT, version), SPEC, request
    )


def errors(response) -> dict[tuple[str, int], int]:
    return {(t.name, p.partition_index): p.error_code for t in response.topics for p in t.partitions}


def with_other_topics(request):
    request.topics[0].partitions.append(
        TxnOffsetCommitRequestPartition(partition_index=5, committed_offset=1, committed_metadata="")
    )
    request.topics.append(
        TxnOffsetCommitRequestTopic(
            name="other", partitions=[TxnOffsetCommitRequestPartition(partition_index=0, committed_offset=1)]
        )
    )
    return request


def test_txn_offset_commit_is_offered_on_both_listeners():
    assert ApiKey.TXN_OFFSET_COMMIT in KAFKA_APIS and ApiKey.TXN_OFFSET_COMMIT in API_REGISTRY


async def test_unknown_partitions_are_answered_by_the_handler_the_rest_by_the_coordinator(broker):
    response = await send(broker, with_other_topics(txn_commit({0: 10})))
    assert errors(response) == {
        (TOPIC, 5): Errors.UNKNOWN_TOPIC_OR_PARTITION,
        ("other", 0): Errors.UNKNOWN_TOPIC_OR_PARTITION,
        (TOPIC, 0): Errors.NONE,
    }
    assert fetch(broker.coordinator, require_stable=True)[0] == (-1, Errors.UNSTABLE_OFFSET_COMMIT)


async def test_a_generation_of_a_group_that_does_not_exist_is_illegal_generation(broker):
    response = await send(broker, txn_commit({0: 10, 1: 11}, generation_id=1, member_id="m1"))
    assert set(errors(response).values()) == {Errors.ILLEGAL_GENERATION}


async def test_authorization_needs_write_on_the_transactional_id_read_on_the_group_and_each_topic(broker):
    request = txn_commit({0: 10})
    with pytest.raises(error_class(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)):
        await send(broker, request, authorizer(acl(AclOperation.READ, ResourceType.GROUP, GROUP)))
    write_txn = acl(AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, "txn-1")
    with pytest.raises(error_class(Errors.GROUP_AUTHORIZATION_FAILED)):
        await send(broker, request, authorizer(write_txn))
    read_group = acl(AclOperation.READ, ResourceType.GROUP, GROUP)
    request.topics.append(
        TxnOffsetCommitRequestTopic(
            name="secret", partitions=[TxnOffsetCommitRequestPartition(partition_index=0)]
        )
    )
    response = await send(
        broker, request, authorizer(write_txn, read_group, acl(AclOperation.READ, ResourceType.TOPIC, TOPIC))
    )
    assert errors(response) == {(TOPIC, 0): Errors.NONE, ("secret", 0): Errors.TOPIC_AUTHORIZATION_FAILED}


def test_the_error_response_gives_every_partition_the_error():
    response = ERROR_RESPONSES[ApiKey.TXN_OFFSET_COMMIT](
        txn_commit({0: 1, 1: 2}), 3, Errors.GROUP_AUTHORIZATION_FAILED, None
    )
    assert errors(response) == {(TOPIC, 0): 30, (TOPIC, 1): 30}
