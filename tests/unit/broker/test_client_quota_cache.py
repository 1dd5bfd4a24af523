"""The broker's client quotas (KIP-546): UpdateMetadata's per-entity sets and full replacement,
and DescribeClientQuotas' filters with Kafka's ``ClientQuotasImage.describe`` rules and messages."""

from __future__ import annotations

import pytest

from kafkette.broker.client_quota_cache import ClientQuotaCache
from kafkette.protocol.apis.client_quotas import (
    MATCH_TYPE_DEFAULT,
    MATCH_TYPE_EXACT,
    MATCH_TYPE_SPECIFIED,
    ClientQuotaEntityData,
    ClientQuotaFilterComponent,
    ClientQuotaValueData,
    DescribeClientQuotasEntry,
    DescribeClientQuotasRequest,
)
from kafkette.protocol.errors import Errors


def quota_entry(entity, **values):
    return DescribeClientQuotasEntry(
        entity=[ClientQuotaEntityData(entity_type=t, entity_name=n) for t, n in entity],
        values=[ClientQuotaValueData(key=k, value=v) for k, v in values.items()],
    )


@pytest.fixture
def cache():
    cache = ClientQuotaCache()
    cache.update(
        [
            quota_entry([("user", "alice")], producer_byte_rate=1.0),
            quota_entry([("user", None)], producer_byte_rate=2.0),
            quota_entry([("user", "alice"), ("client-id", "app")], consumer_byte_rate=3.0),
            quota_entry([("client-id", "app")], request_percentage=4.0),
            quota_entry([("ip", "10.0.0.1")], connection_creation_rate=5.0),
        ],
        full=True,
    )
    return cache


def describe(cache, *components, strict=False):
    response = cache.describe(
        DescribeClientQuotasRequest(
            components=[
                ClientQuotaFilterComponent(entity_type=t, match_type=m, match=n) for t, m, n in components
            ],
            strict=strict,
        )
    )
    if response.error_code:
        return response.error_code, response.error_message
    return [tuple((e.entity_type, e.entity_name) for e in entry.entity) for entry in response.entries]


def test_exact_default_and_specified_components_match_as_kafka_matches(cache):
    assert describe(cache, ("user", MATCH_TYPE_EXACT, "alice")) == [
        (("client-id", "app"), ("user", "alice")),
        (("user", "alice"),),
    ]
    assert describe(cache, ("user", MATCH_TYPE_EXACT, "alice"), strict=True) == [(("user", "alice"),)]
    assert describe(cache, ("user", MATCH_TYPE_DEFAULT, None)) == [(("user", None),)]
    assert len(describe(cache, ("user", MATCH_TYPE_SPECIFIED, None))) == 3
    assert describe(
        cache, ("user", MATCH_TYPE_SPECIFIED, None), ("client-id", MATCH_TYPE_SPECIFIED, None)
    ) == [(("client-id", "app"), ("user", "alice"))]
    assert len(describe(cache)) == 5
    assert describe(cache, strict=True) == []


@pytest.mark.parametrize(
    ("components", "expected"),
    [
        ([("", MATCH_TYPE_EXACT, "x")], (Errors.INVALID_REQUEST, "Invalid empty entity type.")),
        (
            [("user", MATCH_TYPE_EXACT, "a"), ("user", MATCH_TYPE_SPECIFIED, None)],
            (Errors.INVALID_REQUEST, "Entity type user cannot appear more than once in the filter."),
        ),
        ([("group", MATCH_TYPE_EXACT, "g")], (Errors.UNSUPPORTED_VERSION, "Unsupported entity type group")),
        (
            [("user", MATCH_TYPE_EXACT, None)],
            (Errors.INVALID_REQUEST, "Request specified MATCH_TYPE_EXACT, but set match string to null."),
        ),
        (
            [("user", MATCH_TYPE_DEFAULT, "a")],
            (
                Errors.INVALID_REQUEST,
                "Request specified MATCH_TYPE_DEFAULT, but also specified a match string.",
            ),
        ),
        ([("user", 7, None)], (Errors.INVALID_REQUEST, "Unknown match type 7")),
        (
            [("ip", MATCH_TYPE_SPECIFIED, None), ("user", MATCH_TYPE_SPECIFIED, None)],
            (
                Errors.INVALID_REQUEST,
                "Invalid entity filter component combination. IP filter component should not be used with "
                "user or clientId filter component.",
            ),
        ),
    ],
)
def test_a_bad_filter_is_refused_with_kafkas_message(cache, components, expected):
    assert describe(cache, *components) == expected


def test_an_update_replaces_the_listed_entities_and_a_full_one_replaces_all(cache):
    cache.update(
        [quota_entry([("user", "alice")]), quota_entry([("user", "bob")], producer_byte_rate=9.0)], full=False
    )
    assert (("user", "alice"),) not in cache.quotas
    assert cache.quotas[(("user", "bob"),)] == {"producer_byte_rate": 9.0}
    cache.update([quota_entry([("client-id", "x")], request_percentage=1.0)], full=True)
    assert dict(cache.quotas) == {(("client-id", "x"),): {"request_percentage": 1.0}}
