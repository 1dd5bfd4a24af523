"""Controlled shutdown: BrokerLifecycleManager.controlled_shutdown's retries against a fake
controller channel, and the ControlledShutdown / ElectLeaders forwarding handlers."""

from __future__ import annotations

import pytest
from lifecycle_fakes import FakeControllerChannel, apis_context, make_config, running_replica_manager

from kafkette.broker.apis import controlled_shutdown as controlled_shutdown_api
from kafkette.broker.apis import elect_leaders as elect_leaders_api
from kafkette.broker.broker_lifecycle_manager import BrokerLifecycleManager
from kafkette.protocol.apis.controlled_shutdown import (
    ControlledShutdownRequest,
    ControlledShutdownResponse,
    RemainingPartition,
)
from kafkette.protocol.apis.elect_leaders import (
    ElectLeadersRequest,
    ElectLeadersResponse,
    ElectLeadersTopicPartitions,
)
from kafkette.protocol.errors import Errors, KafkaConnectionError
from kafkette.protocol.framing import RequestHeader

HEADER = RequestHeader(api_key=7, api_version=0, correlation_id=1, client_id="broker-2")
STILL_LEADING = [RemainingPartition(topic_name="flights", partition_index=0)]


class Sleeps:
    """Records backoffs instead of sleeping."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay_s: float) -> None:
        self.delays.append(delay_s)


def scripted(*answers):
    """A channel answering ControlledShutdown with ``answers`` in turn (an exception is raised)."""
    queue = list(answers)

    def answer(request):
        item = queue.pop(0)
        if isinstance(item, Exception):
            raise item
        return item

    return FakeControllerChannel(answer)


def lifecycle(tmp_path, channel, broker_epoch: int = 7) -> BrokerLifecycleManager:
    manager = BrokerLifecycleManager(make_config(tmp_path, node_id=2), channel)  # type: ignore[arg-type]
    manager.broker_epoch = broker_epoch
    return manager


async def test_controlled_shutdown_succeeds_when_no_partition_remains(tmp_path):
    channel = scripted(ControlledShutdownResponse(error_code=Errors.NONE))
    sleeps = Sleeps()

    done = await lifecycle(tmp_path, channel).controlled_shutdown(
        max_retries=3, retry_backoff_ms=5000, timeout_ms=60_000, sleep=sleeps
    )

    assert done is True
    (request,) = channel.requests
    assert (request.broker_id, request.broker_epoch) == (2, 7)
    assert sleeps.delays == []


async def test_controlled_shutdown_retries_with_backoff_while_partitions_remain(tmp_path):
    channel = scripted(
        ControlledShutdownResponse(error_code=Errors.NONE, remaining_partitions=STILL_LEADING),
        KafkaConnectionError("controller moving"),
        ControlledShutdownResponse(error_code=Errors.NONE),
    )
    sleeps = Sleeps()

    done = await lifecycle(tmp_path, channel).controlled_shutdown(
        max_retries=3, retry_backoff_ms=250, timeout_ms=60_000, sleep=sleeps
    )

    assert done is True
    assert len(channel.requests) == 3
    assert sleeps.delays == [0.25, 0.25]


async def test_controlled_shutdown_gives_up_after_max_retries(tmp_path):
    channel = scripted(
        *[ControlledShutdownResponse(error_code=Errors.NONE, remaining_partitions=STILL_LEADING)] * 2,
        ControlledShutdownResponse(error_code=Errors.NOT_CONTROLLER),
    )
    sleeps = Sleeps()

    done = await lifecycle(tmp_path, channel).controlled_shutdown(
        max_retries=3, retry_backoff_ms=100, timeout_ms=60_000, sleep=sleeps
    )

    assert done is False
    assert len(channel.requests) == 3
    assert sleeps.delays == [0.1, 0.1]


async def test_controlled_shutdown_stops_retrying_on_a_non_retriable_error(tmp_path):
    channel = scripted(ControlledShutdownResponse(error_code=Errors.STALE_BROKER_EPOCH))
    sleeps = Sleeps()

    done = await lifecycle(tmp_path, channel).controlled_shutdown(
        max_retries=3, retry_backoff_ms=100, timeout_ms=60_000, sleep=sleeps
    )

    assert done is False
    assert len(channel.requests) == 1
    assert sleeps.delays == []


async def test_controlled_shutdown_is_attempted_once_with_zero_retries_and_bounded_by_its_timeout(tmp_path):
    channel = scripted(ControlledShutdownResponse(error_code=Errors.NONE, remaining_partitions=STILL_LEADING))

    done = await lifecycle(tmp_path, channel).controlled_shutdown(
        max_retries=0, retry_backoff_ms=100, timeout_ms=1500, sleep=Sleeps()
    )

    assert done is False
    assert len(channel.requests) == 1
    assert 0 < channel.timeouts[0] <= 1500


async def test_an_unregistered_broker_skips_controlled_shutdown(tmp_path):
    channel = scripted()

    done = await lifecycle(tmp_path, channel, broker_epoch=-1).controlled_shutdown(
        max_retries=3, retry_backoff_ms=100, timeout_ms=1000, sleep=Sleeps()
    )

    assert done is False
    assert channel.requests == []


class FakeController:
    def __init__(self, is_active: bool = True) -> None:
        self.is_active = is_active
        self.controller = self  # its own current term
        self.requests: list[object] = []

    async def controlled_shutdown(self, request: ControlledShutdownRequest) -> ControlledShutdownResponse:
        self.requests.append(request)
        return ControlledShutdownResponse(error_code=Errors.NONE)

    async def elect_leaders(self, request: ElectLeadersRequest) -> ElectLeadersResponse:
        self.requests.append(request)
        return ElectLeadersResponse(error_code=Errors.NONE)


async def test_controller_apis_are_forwarded_to_the_local_controller(tmp_path):
    async with running_replica_manager(make_config(tmp_path)) as manager:
        controller = FakeController()
        ctx = apis_context(manager, controller=controller)

        shutdown = await controlled_shutdown_api.handle(ctx, HEADER, ControlledShutdownRequest(broker_id=2))
        elected = await elect_leaders_api.handle(ctx, HEADER, ElectLeadersRequest(topic_partitions=None))

        assert (shutdown.error_code, elected.error_code) == (Errors.NONE, Errors.NONE)
        assert len(controller.requests) == 2


async def test_controller_apis_answer_not_controller_on_other_brokers(tmp_path):
    async with running_replica_manager(make_config(tmp_path)) as manager:
        ctx = apis_context(manager)

        shutdown = await controlled_shutdown_api.handle(ctx, HEADER, ControlledShutdownRequest(broker_id=2))
        elected = await elect_leaders_api.handle(
            ctx,
            HEADER,
            ElectLeadersRequest(
                topic_partitions=[ElectLeadersTopicPartitions(topic="flights", partitions=[0, 1])]
            ),
        )

        assert shutdown.error_code == Errors.NOT_CONTROLLER
        assert elected.error_code == Errors.NOT_CONTROLLER
        results = elected.replica_election_results[0].partition_result
        assert [(r.partition_id, r.error_code) for r in results] == [
            (0, Errors.NOT_CONTROLLER),
            (1, Errors.NOT_CONTROLLER),
        ]


class ForwardingChannel:
    """A controller channel that answers ElectLeaders as the active controller elsewhere would."""

    def __init__(self) -> None:
        self.requests: list[object] = []

    async def send(self, request, timeout_ms=None):
        self.requests.append(request)
        return ElectLeadersResponse(error_code=Errors.NONE)


@pytest.mark.parametrize("local", ["none", "standby"])
async def test_controller_requests_are_forwarded_to_the_active_controller_once(tmp_path, local):
    async with running_replica_manager(make_config(tmp_path)) as manager:
        standby = FakeController(is_active=False) if local == "standby" else None
        channel = ForwardingChannel()
        ctx = apis_context(manager, controller=standby)
        ctx.controller_channel = channel  # type: ignore[assignment]

        forwarded = await elect_leaders_api.handle(ctx, HEADER, ElectLeadersRequest(topic_partitions=None))
        assert forwarded.error_code == Errors.NONE and len(channel.requests) == 1

        hop = RequestHeader(api_key=43, api_version=0, correlation_id=2, client_id="broker-3-to-controller")
        again = await elect_leaders_api.handle(ctx, hop, ElectLeadersRequest(topic_partitions=None))
        assert len(channel.requests) == 1, "a forwarded request was forwarded again"
        if standby is None:
            assert again.error_code == Errors.NOT_CONTROLLER
        else:
            assert standby.requests  # the standby answered it itself (its answer is NOT_CONTROLLER)
