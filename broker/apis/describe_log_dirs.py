"""DescribeLogDirs handler: this broker's log directories and the partitions each holds.

Per log directory (``log.dirs``): every partition of the request (all when ``topics`` is
None) whose log lives there, with its size in bytes and an offset lag of 0 (no future
replicas: logs do not move between directories here), and the directory's total and usable
bytes from ``os.statvfs``; a directory that cannot be read answers KAFKA_STORAGE_ERROR.
Kafka concept: ``KafkaApis.handleDescribeLogDirsRequest`` / ``ReplicaManager.describeLogDirs``
(KIP-113, KIP-827).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from kafkette.protocol.apis.describe_log_dirs import (
    DescribeLogDirsPartition,
    DescribeLogDirsRequest,
    DescribeLogDirsResponse,
    DescribeLogDirsResult,
    DescribeLogDirsTopic,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(
    ctx: ApisContext, header: RequestHeader, request: DescribeLogDirsRequest
) -> DescribeLogDirsResponse:
    """One result per log directory, in ``log.dirs`` order."""
    wanted = None if request.topics is None else {(t.topic, p) for t in request.topics for p in t.partitions}
    results = []
    for log_dir, logs in ctx.replica_manager.log_manager.logs_by_dir().items():
        try:
            stat = os.statvfs(log_dir)
        except OSError:
            results.append(DescribeLogDirsResult(error_code=Errors.KAFKA_STORAGE_ERROR, log_dir=str(log_dir)))
            continue
        topics: dict[str, list[DescribeLogDirsPartition]] = {}
        for tp, log in sorted(logs.items(), key=lambda item: (item[0].topic, item[0].partition)):
            if wanted is None or (tp.topic, tp.partition) in wanted:
                topics.setdefault(tp.topic, []).append(
                    DescribeLogDirsPartition(
                        partition_index=tp.partition, partition_size=log.size_in_bytes, offset_lag=0
                    )
                )
        results.append(
            DescribeLogDirsResult(
                error_code=Errors.NONE,
                log_dir=str(log_dir),
                topics=[DescribeLogDirsTopic(name=name, partitions=parts) for name, parts in topics.items()],
                total_bytes=stat.f_blocks * stat.f_frsize,
                usable_bytes=stat.f_bavail * stat.f_frsize,
            )
        )
    return DescribeLogDirsResponse(results=results)
