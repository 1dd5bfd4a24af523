"""Who is appending to a partition's log, which decides the checks an append gets.

Kafka concept: ``AppendOrigin`` (``CLIENT`` for a Produce request, ``COORDINATOR`` for the
group and transaction coordinators' own writes such as transaction markers,
``REPLICATION`` for a follower copying the leader).
"""

from __future__ import annotations

import enum


class AppendOrigin(enum.Enum):
    """Kafka's ``AppendOrigin``: only ``COORDINATOR`` may append control batches."""

    CLIENT = "client"
    COORDINATOR = "coordinator"
    REPLICATION = "replication"
