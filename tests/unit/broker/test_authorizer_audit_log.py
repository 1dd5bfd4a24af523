"""The authorizer's audit log (``kafka.authorizer.logger``): each decision in Kafka's words, a
denial at INFO, an allowed action at DEBUG, checks that only filter or fall back below DEBUG."""

from __future__ import annotations

import logging
from types import SimpleNamespace

from acl_fakes import ALICE, acl, authorizer, header

from kafkette.broker.apis.auth_helper import authorize, authorized_operations, filter_by_authorized
from kafkette.common.security.acl import CLUSTER_NAME, AclOperation, AclPermissionType, ResourceType
from kafkette.protocol.api_keys import ApiKey

LOGGER = "kafka.authorizer.logger"


def _messages(caplog) -> list[tuple[int, str]]:
    return [(r.levelno, r.getMessage()) for r in caplog.records if r.name == LOGGER]


def test_a_denial_is_logged_at_info_in_kafkas_words(caplog):
    caplog.set_level(logging.INFO, logger=LOGGER)
    ctx = SimpleNamespace(authorizer=authorizer())
    assert not authorize(ctx, header(ApiKey.FETCH, 12), AclOperation.READ, ResourceType.TOPIC, "orders")
    assert _messages(caplog) == [
        (
            logging.INFO,
            "Principal = User:alice is Denied operation = READ from host = 10.0.0.1 on resource = "
            "Topic:LITERAL:orders for request = Fetch with resourceRefCount = 1 based on rule DefaultDeny",
        )
    ]


def test_the_matching_acl_is_named_and_an_allowed_action_is_logged_at_debug(caplog):
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    deny = acl(AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, "tx", permission=AclPermissionType.DENY)
    ctx = SimpleNamespace(authorizer=authorizer(acl(AclOperation.READ, ResourceType.GROUP, "g"), deny))
    assert authorize(ctx, header(ApiKey.JOIN_GROUP, 9), AclOperation.READ, ResourceType.GROUP, "g")
    assert not authorize(
        ctx, header(ApiKey.INIT_PRODUCER_ID, 4), AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, "tx"
    )
    assert _messages(caplog) == [
        (
            logging.DEBUG,
            "Principal = User:alice is Allowed operation = READ from host = 10.0.0.1 on resource = "
            "Group:LITERAL:g for request = JoinGroup with resourceRefCount = 1 based on rule "
            "MatchingAcl(acl=StandardAcl[resourceType=GROUP, resourceName=g, patternType=LITERAL, "
            "principal=User:alice, host=*, operation=READ, permissionType=ALLOW])",
        ),
        (
            logging.INFO,
            "Principal = User:alice is Denied operation = WRITE from host = 10.0.0.1 on resource = "
            "TransactionalId:LITERAL:tx for request = InitProducerId with resourceRefCount = 1 based on rule "
            "MatchingAcl(acl=StandardAcl[resourceType=TRANSACTIONAL_ID, resourceName=tx, "
            "patternType=LITERAL, principal=User:alice, host=*, operation=WRITE, permissionType=DENY])",
        ),
    ]


def test_super_users_and_the_no_acl_default_are_named_and_a_filter_counts_references(caplog):
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    ctx = SimpleNamespace(authorizer=authorizer(super_users=(ALICE,)))
    assert authorize(
        ctx, header(ApiKey.CREATE_TOPICS, 7), AclOperation.CREATE, ResourceType.CLUSTER, CLUSTER_NAME
    )
    ctx = SimpleNamespace(authorizer=authorizer(allow_everyone_if_no_acl_found=True))
    assert filter_by_authorized(
        ctx, header(ApiKey.METADATA, 12), AclOperation.DESCRIBE, ResourceType.TOPIC, ["a", "a", "b"]
    ) == {"a", "b"}
    assert [m for _, m in _messages(caplog)] == [
        "Principal = User:alice is Allowed operation = CREATE from host = 10.0.0.1 on resource = "
        "Cluster:LITERAL:kafka-cluster for request = CreateTopics with resourceRefCount = 1 "
        "based on rule SuperUser",
        "Principal = User:alice is Allowed operation = DESCRIBE from host = 10.0.0.1 on resource = "
        "Topic:LITERAL:a for request = Metadata with resourceRefCount = 2 based on rule DefaultAllow",
        "Principal = User:alice is Allowed operation = DESCRIBE from host = 10.0.0.1 on resource = "
        "Topic:LITERAL:b for request = Metadata with resourceRefCount = 1 based on rule DefaultAllow",
    ]


def test_checks_that_only_filter_or_fall_back_stay_below_debug(caplog):
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    ctx = SimpleNamespace(authorizer=authorizer(acl(AclOperation.READ, ResourceType.TOPIC, "t")))
    fetch = header(ApiKey.METADATA, 12)
    assert not authorize(
        ctx, fetch, AclOperation.CREATE, ResourceType.CLUSTER, CLUSTER_NAME, log_if_denied=False
    )
    assert authorized_operations(ctx, fetch, ResourceType.TOPIC, "t") != 0
    assert _messages(caplog) == []
    caplog.set_level(5, logger=LOGGER)
    authorize(ctx, fetch, AclOperation.CREATE, ResourceType.CLUSTER, CLUSTER_NAME, log_if_denied=False)
    assert [level for level, _ in _messages(caplog)] == [5]
