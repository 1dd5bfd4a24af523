"""Raw transaction requests for the integration tests that drive a transaction coordinator by hand:
InitProducerId, AddPartitionsToTxn (v3, as a client sends it) and EndTxn, each sent again while the
answer is retriable (the coordinator loading, a transaction completing), a transactional Produce,
and a Fetch of a partition from its start."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from kafkette.common.network.connection import BrokerConnection
from kafkette.protocol.apis.fetch import FetchPartition, FetchRequest, FetchTopic
from kafkette.protocol.apis.produce import ProducePartitionData, ProduceRequest, ProduceTopicData
from kafkette.protocol.apis.producer_ids import InitProducerIdRequest
from kafkette.protocol.apis.transactions import (
    AddPartitionsToTxnRequest,
    AddPartitionsToTxnTopic,
    EndTxnRequest,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.record_batch import build_kafka_batch

RETRIABLE = {
    Errors.COORDINATOR_NOT_AVAILABLE,
    Errors.COORDINATOR_LOAD_IN_PROGRESS,
    Errors.NOT_COORDINATOR,
    Errors.CONCURRENT_TRANSACTIONS,
}


async def until(
    send: Callable[[], Awaitable[Any]], error_of: Callable[[Any], int], timeout_s: float = 60.0
) -> Any:
    """``await send()`` again (every 0.2 s) while its answer's error is in RETRIABLE, for at most
    ``timeout_s``; the last answer."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    while True:
        response = await send()
        if Errors(error_of(response)) not in RETRIABLE or asyncio.get_running_loop().time() > deadline:
            return response
        await asyncio.sleep(0.2)


async def init_producer_id(conn: BrokerConnection, transactional_id: str) -> tuple[int, int]:
    """``(producer_id, producer_epoch)`` of ``transactional_id`` (transaction timeout 60 s)."""
    response = await until(
        lambda: conn.send(
            InitProducerIdRequest(transactional_id=transactional_id, transaction_timeout_ms=60000)
        ),
        lambda r: r.error_code,
    )
    assert response.error_code == Errors.NONE, Errors(response.error_code).name
    return response.producer_id, response.producer_epoch


async def add_partitions(
    conn: BrokerConnection,
    transactional_id: str,
    producer: tuple[int, int],
    topic: str,
    partitions: Iterable[int],
) -> dict[int, int]:
    """``{partition: error code}`` of an AddPartitionsToTxn of ``topic``'s ``partitions``."""
    response = await until(
        lambda: conn.send(
            AddPartitionsToTxnRequest(
                v3_and_below_transactional_id=transactional_id,
                v3_and_below_producer_id=producer[0],
                v3_and_below_producer_epoch=producer[1],
                v3_and_below_topics=[AddPartitionsToTxnTopic(name=topic, partitions=list(partitions))],
            )
        ),
        lambda r: r.results_by_topic_v3_and_below[0].results_by_partition[0].partition_error_code,
    )
    [answer] = response.results_by_topic_v3_and_below
    return {p.partition_index: p.partition_error_code for p in answer.results_by_partition}


async def end_txn(
    conn: BrokerConnection, transactional_id: str, producer: tuple[int, int], commit: bool
) -> int:
    """The error code of an EndTxn COMMIT (``commit``) or ABORT."""
    response = await until(
        lambda: conn.send(
            EndTxnRequest(
                transactional_id=transactional_id,
                producer_id=producer[0],
                producer_epoch=producer[1],
                committed=commit,
            )
        ),
        lambda r: r.error_code,
    )
    return response.error_code


async def fetch_from_start(conn: BrokerConnection, topic: str, partition: int, isolation_level: int) -> Any:
    """The Fetch answer's partition (up to 1 MiB from offset 0, no wait) at ``isolation_level``
    (0 READ_UNCOMMITTED, 1 READ_COMMITTED)."""
    response = await conn.send(
        FetchRequest(
            replica_id=-1,
            max_wait_ms=0,
            min_bytes=0,
            isolation_level=isolation_level,
            max_bytes=1 << 20,
            topics=[
                FetchTopic(
                    topic=topic,
                    partitions=[
                        FetchPartition(partition=partition, fetch_offset=0, partition_max_bytes=1 << 20)
                    ],
                )
            ],
        )
    )
    [part] = response.responses[0].partitions
    return part


async def transactional_produce(
    conn: BrokerConnection,
    transactional_id: str,
    producer: tuple[int, int],
    topic: str,
    partition: int,
    values: Iterable[bytes],
    sequence: int = 0,
    timestamp_ms: int | None = None,
    api_version: int | None = None,
) -> int:
    """A transactional batch of ``values`` (acks=all, base ``sequence``, records stamped
    ``timestamp_ms`` or now) to ``topic``-``partition`` through ``conn`` (its leader), at Produce
    ``api_version`` (None: the connection's); the partition's error code."""
    stamp = int(time.time() * 1000) if timestamp_ms is None else timestamp_ms
    batch = build_kafka_batch(
        [(None, v, None, stamp) for v in values],
        producer_id=producer[0],
        producer_epoch=producer[1],
        base_sequence=sequence,
        transactional=True,
    )
    response = await conn.send(
        ProduceRequest(
            transactional_id=transactional_id,
            acks=-1,
            timeout_ms=10000,
            topic_data=[
                ProduceTopicData(
                    name=topic, partition_data=[ProducePartitionData(index=partition, records=batch)]
                )
            ],
        ),
        api_version=api_version,
    )
    return response.responses[0].partition_responses[0].error_code
