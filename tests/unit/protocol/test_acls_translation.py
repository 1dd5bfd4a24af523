"""DescribeAcls, CreateAcls and DeleteAcls on the Kafka listener: a request with an UNKNOWN (0)
resource type, pattern type, operation or permission type is refused as Kafka's request parser
refuses it (``IllegalArgumentException`` in its ``validate``), any other request reaches the broker
unchanged."""

from __future__ import annotations

import pytest

from kafkette.protocol.api_keys import ApiKey
from kafkette.protocol.apis.acls import (
    AclCreation,
    CreateAclsRequest,
    DeleteAclsFilter,
    DeleteAclsRequest,
    DescribeAclsRequest,
)
from kafkette.protocol.kafka_translation import TRANSLATIONS, UnparseableRequestError

FILTER = dict(
    resource_type_filter=1,
    resource_name_filter=None,
    pattern_type_filter=1,
    principal_filter=None,
    host_filter=None,
    operation=1,
    permission_type=1,
)
CREATION = dict(
    resource_type=2,
    resource_name="t",
    resource_pattern_type=3,
    principal="User:a",
    host="*",
    operation=3,
    permission_type=3,
)


def _requests():
    return {
        ApiKey.DESCRIBE_ACLS: lambda **f: DescribeAclsRequest(**{**FILTER, **f}),
        ApiKey.DELETE_ACLS: lambda **f: DeleteAclsRequest(filters=[DeleteAclsFilter(**{**FILTER, **f})]),
        ApiKey.CREATE_ACLS: lambda **f: CreateAclsRequest(
            creations=[AclCreation(**CREATION), AclCreation(**{**CREATION, **f})]
        ),
    }


FILTER_FIELDS = ["resource_type_filter", "pattern_type_filter", "operation", "permission_type"]
CREATION_FIELDS = ["resource_type", "resource_pattern_type", "operation", "permission_type"]
CASES = [(ApiKey.DESCRIBE_ACLS, f) for f in FILTER_FIELDS] + [(ApiKey.DELETE_ACLS, f) for f in FILTER_FIELDS]
CASES += [(ApiKey.CREATE_ACLS, f) for f in CREATION_FIELDS]


@pytest.mark.parametrize(("key", "field"), CASES, ids=[f"{k.name}-{f}" for k, f in CASES])
def test_an_unknown_code_is_an_invalid_request_and_a_known_one_passes(key, field):
    build = _requests()[key]
    with pytest.raises(UnparseableRequestError, match="(?i)unknown elements"):  # closed unanswered
        TRANSLATIONS[key].to_internal(build(**{field: 0}), 3)
    request = build(**{field: 99})  # a code this version does not know is no UNKNOWN (0): Kafka reads it
    assert TRANSLATIONS[key].to_internal(request, 3) is request
