"""DelayedOperationPurgatory: complete exactly once, by condition or by timeout."""

import asyncio

from kafkette.broker.purgatory import DelayedOperation, DelayedOperationPurgatory
from kafkette.common.clock import MockTime


class Op(DelayedOperation):
    def __init__(self, delay_ms, ready=False):
        super().__init__(delay_ms)
        self.ready = ready
        self.completions = 0
        self.expired = False

    def try_complete(self):
        return self.force_complete() if self.ready else False

    def on_complete(self):
        self.completions += 1

    def on_expiration(self):
        self.expired = True


async def test_operation_ready_at_once_completes_without_watching():
    purgatory = DelayedOperationPurgatory("t")
    op = Op(1000, ready=True)
    assert purgatory.try_complete_else_watch(op, ["k"])
    assert op.completions == 1 and purgatory.watched("k") == 0


async def test_check_and_complete_completes_watchers_exactly_once():
    purgatory = DelayedOperationPurgatory("t")
    op = Op(10_000)
    assert not purgatory.try_complete_else_watch(op, ["a", "b"])
    assert purgatory.watched("a") == 1 and len(purgatory) == 1
    op.ready = True
    assert purgatory.check_and_complete("a") == 1
    assert purgatory.check_and_complete("b") == 0
    assert op.completions == 1 and not op.expired and len(purgatory) == 0


async def test_timeout_expires_operation_when_the_clock_reaches_its_delay():
    time = MockTime()
    purgatory = DelayedOperationPurgatory("t", time=time)
    op = Op(10)
    purgatory.try_complete_else_watch(op, ["a"])
    time.advance(9)
    assert op.completions == 0 and len(purgatory) == 1
    time.advance(1)
    assert op.completions == 1 and op.expired and len(purgatory) == 0
    op.ready = True
    assert purgatory.check_and_complete("a") == 0


async def test_an_operation_completed_before_its_timeout_does_not_expire():
    time = MockTime()
    purgatory = DelayedOperationPurgatory("t", time=time)
    early, late = Op(10), Op(30)
    for op in (early, late):
        purgatory.try_complete_else_watch(op, ["a"])
    late.ready = True
    assert purgatory.check_and_complete("a") == 1
    time.advance(100)
    assert (early.completions, early.expired) == (1, True)
    assert (late.completions, late.expired) == (1, False)


async def test_timeouts_on_the_system_clock_expire_operations():
    purgatory = DelayedOperationPurgatory("t")
    op = Op(1)
    purgatory.try_complete_else_watch(op, ["a"])
    for _ in range(200):  # at most 2 s
        if op.expired:
            break
        await asyncio.sleep(0.01)
    assert op.completions == 1 and op.expired


async def test_purge_drops_completed_watchers():
    purgatory = DelayedOperationPurgatory("t")
    ops = [Op(10_000) for _ in range(3)]
    for op in ops:
        purgatory.try_complete_else_watch(op, ["a"])
    ops[0].force_complete()
    assert purgatory.purge_completed() == 1
    assert purgatory.watched("a") == 2


async def test_shutdown_expires_pending_operations():
    purgatory = DelayedOperationPurgatory("t")
    op = Op(10_000)
    purgatory.try_complete_else_watch(op, ["a"])
    purgatory.shutdown()
    assert op.completions == 1 and op.expired
