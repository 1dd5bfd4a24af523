"""DelayedOperationPurgatory: complete exactly once, by condition or by timeout."""

import asyncio

from kafkette.broker.purgatory import DelayedOperation, DelayedOperationPurgatory


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


async def test_timeout_expires_operation():
    purgatory = DelayedOperationPurgatory("t")
    op = Op(10)
    purgatory.try_complete_else_watch(op, ["a"])
    await asyncio.sleep(0.05)
    assert op.completions == 1 and op.expired
    op.ready = True
    assert purgatory.check_and_complete("a") == 0


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
