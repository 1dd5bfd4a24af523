"""The InitProducerId handler called directly: KIP-360's producer id and epoch are given together
or not at all (Kafka's ``handleInitProducerIdRequest`` answers INVALID_REQUEST otherwise)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from kafkette.broker.apis import init_producer_id
from kafkette.protocol.apis.producer_ids import InitProducerIdRequest
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader


class _Ids:
    async def generate_producer_id(self) -> int:
        return 4000


async def _answer(listener_name: str | None = None, **fields: object) -> tuple[int, int, int]:
    request = InitProducerIdRequest(transaction_timeout_ms=60000, **{"transactional_id": None, **fields})
    header = RequestHeader(
        api_key=22, api_version=5, correlation_id=1, client_id="c", listener_name=listener_name
    )
    response = await init_producer_id.handle(SimpleNamespace(producer_id_manager=_Ids()), header, request)
    return response.error_code, response.producer_id, response.producer_epoch


@pytest.mark.parametrize(("producer_id", "producer_epoch"), [(7, -1), (-1, 3)])
async def test_an_id_without_an_epoch_or_the_reverse_is_invalid_request(producer_id, producer_epoch):
    assert await _answer(producer_id=producer_id, producer_epoch=producer_epoch) == (
        Errors.INVALID_REQUEST,
        -1,
        -1,
    )


@pytest.mark.parametrize(("producer_id", "producer_epoch"), [(-1, -1), (7, 3)])
async def test_both_or_neither_get_a_new_producer_id(producer_id, producer_epoch):
    assert await _answer(producer_id=producer_id, producer_epoch=producer_epoch) == (Errors.NONE, 4000, 0)


@pytest.mark.parametrize("listener_name", [None, "KAFKA"])
async def test_a_transactional_id_without_a_transaction_coordinator_is_coordinator_not_available(
    listener_name,
):
    assert await _answer(listener_name, transactional_id="txn") == (Errors.COORDINATOR_NOT_AVAILABLE, -1, -1)
