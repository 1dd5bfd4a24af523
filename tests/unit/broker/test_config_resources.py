"""answer_config_resources: the BROKER / TOPIC / unsupported split shared by the config handlers."""

from __future__ import annotations

from kafkette.broker.apis.config_resources import NOT_CONTROLLER_MESSAGE, answer_config_resources
from kafkette.protocol.apis.configs import (
    RESOURCE_BROKER,
    RESOURCE_TOPIC,
    AlterConfigsResourceResponse,
    DescribeConfigsResource,
    DescribeConfigsResult,
)
from kafkette.protocol.errors import Errors


def resource(resource_type: int, name: str) -> DescribeConfigsResource:
    return DescribeConfigsResource(resource_type=resource_type, resource_name=name, configuration_keys=None)


def answer_here(res: DescribeConfigsResource) -> DescribeConfigsResult:
    return DescribeConfigsResult(resource_type=res.resource_type, resource_name=res.resource_name)


async def test_an_unsupported_resource_type_is_invalid_request_in_its_place():
    results = await answer_config_resources(
        [resource(RESOURCE_BROKER, "1"), resource(3, "group"), resource(RESOURCE_BROKER, "1")],
        DescribeConfigsResult,
        answer_here,
        None,
    )

    assert [r.error_code for r in results] == [Errors.NONE, Errors.INVALID_REQUEST, Errors.NONE]
    assert results[1].resource_name == "group"
    assert "Unsupported resource type 3" in results[1].error_message


async def test_a_topic_the_controller_left_unanswered_is_unknown_server_error():
    sent: list[list[str]] = []

    async def forward(resources: list[DescribeConfigsResource]) -> list[AlterConfigsResourceResponse]:
        sent.append([r.resource_name for r in resources])
        return [AlterConfigsResourceResponse(resource_type=RESOURCE_TOPIC, resource_name="b")]

    results = await answer_config_resources(
        [resource(RESOURCE_TOPIC, "a"), resource(RESOURCE_TOPIC, "b")],
        AlterConfigsResourceResponse,
        answer_here,
        forward,
    )

    assert sent == [["a", "b"]]
    assert [(r.resource_name, r.error_code) for r in results] == [
        ("a", Errors.UNKNOWN_SERVER_ERROR),
        ("b", Errors.NONE),
    ]


async def test_topics_without_a_controller_are_not_controller_with_kafkas_message():
    async def no_controller(resources):
        return None

    results = await answer_config_resources(
        [resource(RESOURCE_TOPIC, "a")], DescribeConfigsResult, answer_here, no_controller
    )

    assert [(r.error_code, r.error_message) for r in results] == [
        (Errors.NOT_CONTROLLER, NOT_CONTROLLER_MESSAGE)
    ]
