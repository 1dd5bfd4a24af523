"""What the AdminClient is asked to create and what it describes: topic specs.

Owns: ``NewTopic`` (a CreateTopics entry), ``NewPartitions`` (a CreatePartitions
entry), ``normalize_replica_assignment``, and the described shapes ``TopicDescription``
and ``PartitionInfo``.  Does not own any I/O (``kafkette.client.admin.AdminClient``).

Kafka concept: ``org.apache.kafka.clients.admin.NewTopic``, ``NewPartitions``,
``TopicDescription`` and ``TopicPartitionInfo``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kafkette.protocol.apis.create_partitions import CreatePartitionsAssignment, CreatePartitionsTopic
from kafkette.protocol.apis.create_topics import (
    CreatableReplicaAssignment,
    CreatableTopic,
    CreatableTopicConfig,
)


def normalize_replica_assignment(
    assignment: Mapping[int, Sequence[int]] | Sequence[Sequence[int]] | None,
) -> dict[int, list[int]] | None:
    """Turn ``{partition: [broker ids]}`` or a list of lists (index = partition) into a dict.

    Raises:
        TypeError: not a mapping or a sequence of integer sequences.
        ValueError: empty, a negative partition, or an empty replica list.
    """
    if assignment is None:
        return None
    if isinstance(assignment, Mapping):
        items = list(assignment.items())
    elif isinstance(assignment, Sequence) and not isinstance(assignment, (str, bytes)):
        items = list(enumerate(assignment))
    else:
        raise TypeError("replica_assignment must be {partition: [broker ids]} or a list of lists")
    if not items:
        raise ValueError("replica_assignment must not be empty")
    out: dict[int, list[int]] = {}
    for partition, replicas in items:
        if type(partition) is not int or partition < 0:
            raise ValueError(f"replica_assignment partition {partition!r} must be an int >= 0")
        if isinstance(replicas, (str, bytes)) or not isinstance(replicas, Sequence):
            raise TypeError(f"replica list of partition {partition} must be a list of broker ids")
        broker_ids = list(replicas)
        if not broker_ids or any(type(b) is not int for b in broker_ids):
            raise ValueError(f"replica list of partition {partition} must be non-empty broker ids")
        out[partition] = broker_ids
    return out


@dataclass
class NewTopic:
    """A topic to create.

    Args:
        name: topic name.
        num_partitions: partitions, or -1 for the broker's ``num.partitions``.
        replication_factor: replicas per partition, or -1 for ``default.replication.factor``.
        replica_assignment: manual assignment ``{partition: [broker ids]}`` or a list of
            lists; excludes num_partitions/replication_factor (leave them -1).
        configs: topic configs such as ``{"min.insync.replicas": "2"}``.
    """

    name: str
    num_partitions: int = -1
    replication_factor: int = -1
    replica_assignment: Mapping[int, Sequence[int]] | Sequence[Sequence[int]] | None = None
    configs: Mapping[str, Any] | None = field(default=None)

    def to_creatable(self) -> CreatableTopic:
        """The CreateTopics request entry for this topic.

        Raises:
            TypeError / ValueError: malformed fields.
        """
        if not isinstance(self.name, str) or not self.name:
            raise ValueError("NewTopic.name must be a non-empty string")
        assignment = normalize_replica_assignment(self.replica_assignment)
        if assignment is not None and (self.num_partitions != -1 or self.replication_factor != -1):
            if self.num_partitions not in (-1, len(assignment)) or self.replication_factor not in (
                -1,
                len(next(iter(assignment.values()))),
            ):
                raise ValueError(
                    "replica_assignment cannot be combined with num_partitions/replication_factor"
                )
        return CreatableTopic(
            name=self.name,
            num_partitions=-1 if assignment is not None else int(self.num_partitions),
            replication_factor=-1 if assignment is not None else int(self.replication_factor),
            assignments=[
                CreatableReplicaAssignment(partition_index=p, broker_ids=b)
                for p, b in sorted((assignment or {}).items())
            ],
            configs=[
                CreatableTopicConfig(name=k, value=None if v is None else str(v))
                for k, v in (self.configs or {}).items()
            ],
        )


@dataclass(frozen=True)
class PartitionInfo:
    """One partition of a described topic (broker ids; leader -1 when none)."""

    partition: int
    leader: int
    replicas: list[int]
    isr: list[int]
    offline_replicas: list[int]


@dataclass(frozen=True)
class TopicDescription:
    """A described topic: ``partitions`` sorted by partition id."""

    name: str
    partitions: list[PartitionInfo]
    is_internal: bool = False


@dataclass
class NewPartitions:
    """A partition-count increase for one topic (CreatePartitions).

    Args:
        total_count: the topic's new total number of partitions (more than today's).
        new_assignments: replicas of each NEW partition, in order: a list of broker-id
            lists (``[[1, 2], [2, 3]]`` for two new partitions), or None to let the
            controller assign them (continuing the topic's assignment).

    Raises (from ``to_request_topic``):
        TypeError / ValueError: malformed fields (checked before sending; whether the
            count increases and the brokers exist is checked by the controller).
    """

    total_count: int
    new_assignments: Sequence[Sequence[int]] | None = None

    def to_request_topic(self, name: str) -> CreatePartitionsTopic:
        """The CreatePartitions request entry of topic ``name``."""
        if not isinstance(name, str) or not name:
            raise ValueError("topic name must be a non-empty string")
        if type(self.total_count) is not int:
            raise TypeError(
                f"NewPartitions.total_count must be an int, not {type(self.total_count).__name__}"
            )
        if self.total_count < 1:
            raise ValueError(f"NewPartitions.total_count must be >= 1, got {self.total_count}")
        assignments = None
        if self.new_assignments is not None:
            if isinstance(self.new_assignments, (str, bytes, Mapping)) or not isinstance(
                self.new_assignments, Sequence
            ):
                raise TypeError("NewPartitions.new_assignments must be a list of broker-id lists")
            assignments = []
            for index, replicas in enumerate(self.new_assignments):
                if isinstance(replicas, (str, bytes)) or not isinstance(replicas, Sequence):
                    raise TypeError(f"new assignment {index} must be a list of broker ids")
                broker_ids = list(replicas)
                if not broker_ids or any(type(b) is not int for b in broker_ids):
                    raise ValueError(f"new assignment {index} must be a non-empty list of int broker ids")
                assignments.append(CreatePartitionsAssignment(broker_ids=broker_ids))
            if not assignments:
                raise ValueError("NewPartitions.new_assignments must not be empty (use None)")
        return CreatePartitionsTopic(name=name, count=self.total_count, assignments=assignments)
