"""ProducerAppendOrder: one producer's Produce requests go on in arrival order, others' do not wait."""

from __future__ import annotations

import asyncio

from kafkette.broker.producer_append_order import ProducerAppendOrder


async def test_requests_of_one_producer_go_in_arrival_order_and_the_chain_is_dropped_at_its_end():
    order = ProducerAppendOrder()
    appended: list[str] = []

    async def request(name: str, producer_id: int, verification_s: float) -> None:
        turn = order.take_turn(producer_id)
        try:
            await turn.wait_for_previous(5000)
            await asyncio.sleep(verification_s)  # the coordinator's answer
            appended.append(name)
        finally:
            turn.release()

    await asyncio.gather(
        request("p1-first", 1, 0.05), request("p1-second", 1, 0.0), request("p2-only", 2, 0.01)
    )
    assert appended == ["p2-only", "p1-first", "p1-second"]
    assert len(order) == 0


async def test_a_request_that_failed_lets_the_next_one_go():
    order = ProducerAppendOrder()
    first = order.take_turn(7)
    second = order.take_turn(7)
    first.release()  # its verification raised: released in its finally
    await asyncio.wait_for(second.wait_for_previous(5000), 1)
    second.release()
    assert len(order) == 0
