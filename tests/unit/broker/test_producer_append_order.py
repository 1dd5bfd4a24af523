"""``ProducerAppendOrder``: a transactional producer's requests take their turns in arrival order,
however long an earlier one waits (its verification with the coordinator), and the turns of
other producers do not wait for it."""

from __future__ import annotations

import asyncio

from kafkette.broker.producer_append_order import ProducerAppendOrder


async def _request(order: ProducerAppendOrder, producer_id: int, name: str, wait_s: float, log: list[str]):
    async with order.turn(producer_id):
        await asyncio.sleep(wait_s)  # the verification: the first request's is the slowest
        log.append(name)


def test_a_producers_requests_append_in_arrival_order_and_others_do_not_wait():
    async def run() -> tuple[list[str], int]:
        order, log = ProducerAppendOrder(), []
        await asyncio.wait_for(
            asyncio.gather(
                _request(order, 7, "seq0", 0.05, log),
                _request(order, 7, "seq1", 0.0, log),
                _request(order, 8, "other", 0.0, log),
                _request(order, 7, "seq2", 0.0, log),
            ),
            timeout=5,
        )
        return log, len(order)

    log, left = asyncio.run(run())
    assert log == ["other", "seq0", "seq1", "seq2"]
    assert left == 0
