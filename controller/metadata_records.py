"""Metadata records: the only way controller state changes, and ``ControllerResult``.

Owns: one frozen dataclass per record type (Kafka's names), their wire form
``[record_type, {field: value}]`` (``to_wire`` / ``record_from_wire``), and
``ControllerResult`` (records a manager wants written, plus the response to give once
they are durable).  Does not own the file format (``metadata_log.py``) nor how a
record changes state (``ControllerContext.replay``).

Kafka concept: the KRaft metadata records (``metadata/src/main/resources/common/
metadata/*Record.json``) and ``ControllerResult``.  ``BeginTransactionRecord`` /
``EndTransactionRecord`` (KIP-868) bracket a multi-record write so that a torn tail
never leaves half of it (for example a topic without all its partitions).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from kafkette.protocol.topic_partition import TopicPartition

R = TypeVar("R")


class MetadataRecord:
    """Base of every metadata record; ``record_type`` is the class name."""

    record_type: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.record_type = cls.__name__
        RECORD_TYPES[cls.__name__] = cls

    def to_wire(self) -> list[Any]:
        """``[record_type, {field: value}]``, msgpack-ready."""
        return [self.record_type, {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}]  # type: ignore[arg-type]


RECORD_TYPES: dict[str, type[MetadataRecord]] = {}


@dataclass(frozen=True)
class RegisterBrokerRecord(MetadataRecord):
    """A broker (``broker_id``) registered with a new ``broker_epoch``; it starts fenced."""

    broker_id: int
    broker_epoch: int
    incarnation_id: str
    host: str
    port: int
    rack: str | None = None
    endpoints: list[list[Any]] = field(
        default_factory=list
    )  # [[listener name, host, port]] of every listener


@dataclass(frozen=True)
class FenceBrokerRecord(MetadataRecord):
    """The broker was fenced (session expired, shut down, or replaced by a new incarnation)."""

    broker_id: int
    broker_epoch: int


@dataclass(frozen=True)
class UnfenceBrokerRecord(MetadataRecord):
    """The broker heartbeated while fenced and is live again."""

    broker_id: int
    broker_epoch: int


@dataclass(frozen=True)
class TopicRecord(MetadataRecord):
    """A topic was created with a unique ``topic_id``."""

    name: str
    topic_id: str


@dataclass(frozen=True)
class PartitionRecord(MetadataRecord):
    """A partition was created with its assignment, first leader and ISR."""

    topic: str
    partition: int
    replicas: list[int]
    isr: list[int]
    leader: int
    leader_epoch: int = 0
    partition_epoch: int = 0

    @property
    def topic_partition(self) -> TopicPartition:
        return TopicPartition(self.topic, self.partition)


@dataclass(frozen=True)
class PartitionChangeRecord(MetadataRecord):
    """A partition's leader and/or ISR changed; carries the full new leader/ISR state.

    ``offline_replicas``: the replicas whose log is offline on their (possibly live)
    broker, the whole list; None leaves the list unchanged (Kafka's KRaft record
    marks them in ``Directories`` as ``DirectoryId.LOST``, KIP-858).
    """

    topic: str
    partition: int
    leader: int
    isr: list[int]
    leader_epoch: int
    partition_epoch: int
    offline_replicas: list[int] | None = None

    @property
    def topic_partition(self) -> TopicPartition:
        return TopicPartition(self.topic, self.partition)


@dataclass(frozen=True)
class ConfigRecord(MetadataRecord):
    """A config override (``name=value``) of a resource: ``resource_type`` "topic" or "group"
    (Kafka's ConfigRecord of resource type TOPIC or GROUP).

    ``value`` None removes the override (IncrementalAlterConfigs DELETE).
    """

    resource_type: str
    resource_name: str
    name: str
    value: str | None


@dataclass(frozen=True)
class TopicDeletionRecord(MetadataRecord):
    """The topic is queued for deletion (Kafka's ``/admin/delete_topics/<name>`` znode).

    It stays queued - served by no broker, refusing CreatePartitions and re-creation -
    until every replica is deleted and a ``RemoveTopicRecord`` follows; a restarted
    controller resumes the deletion from this record.
    """

    name: str
    topic_id: str


@dataclass(frozen=True)
class RemoveTopicRecord(MetadataRecord):
    """The topic is gone: its partitions, configs and replica/partition states are removed
    (Kafka's ``completeDeleteTopic``; KRaft's ``RemoveTopicRecord``)."""

    name: str
    topic_id: str


@dataclass(frozen=True)
class ControllerEpochRecord(MetadataRecord):
    """A controller became active with ``epoch`` (one more than the last one)."""

    epoch: int


@dataclass(frozen=True)
class ProducerIdsRecord(MetadataRecord):
    """A block of producer ids went to ``broker_id``; the next block starts at ``next_producer_id``."""

    broker_id: int
    broker_epoch: int
    next_producer_id: int


@dataclass(frozen=True)
class UserScramCredentialRecord(MetadataRecord):
    """User ``name``'s SCRAM credential for ``mechanism`` (Kafka's type byte: 1 SCRAM-SHA-256,
    2 SCRAM-SHA-512) was set: salt, stored key and server key (RFC 5802), never the password
    (KIP-554)."""

    name: str
    mechanism: int
    salt: bytes
    stored_key: bytes
    server_key: bytes
    iterations: int

    def __repr__(self) -> str:  # the keys are secrets: never in logs
        return f"UserScramCredentialRecord(name={self.name!r}, mechanism={self.mechanism})"


@dataclass(frozen=True)
class RemoveUserScramCredentialRecord(MetadataRecord):
    """User ``name``'s SCRAM credential for ``mechanism`` was deleted (KIP-554)."""

    name: str
    mechanism: int


@dataclass(frozen=True)
class AccessControlEntryRecord(MetadataRecord):
    """The ACL ``id`` (Kafka's Uuid in its string form) was created: resource type, name and pattern
    type, principal (``User:alice``), host, operation and permission type, each enum as Kafka's
    wire code (``kafkette.common.security.acl``; KIP-140, KIP-801)."""

    id: str
    resource_type: int
    resource_name: str
    pattern_type: int
    principal: str
    host: str
    operation: int
    permission_type: int


@dataclass(frozen=True)
class RemoveAccessControlEntryRecord(MetadataRecord):
    """The ACL ``id`` was deleted (KIP-801)."""

    id: str


@dataclass(frozen=True)
class ClientQuotaRecord(MetadataRecord):
    """Quota ``key`` of the client quota ``entity`` ([[entity type, name or None for the
    default], ...], sorted by type) was set to ``value``, or removed when ``remove`` (KIP-546)."""

    entity: list[list[str | None]]
    key: str
    value: float
    remove: bool = False


@dataclass(frozen=True)
class BeginTransactionRecord(MetadataRecord):
    """Starts an atomic group of records (``name`` describes the operation)."""

    name: str = ""


@dataclass(frozen=True)
class EndTransactionRecord(MetadataRecord):
    """Ends the atomic group opened by the last ``BeginTransactionRecord``."""


def record_from_wire(obj: Any) -> MetadataRecord:
    """Decode ``[record_type, {field: value}]``.

    Raises:
        ValueError: not that shape, an unknown record type, or wrong fields.
    """
    if (
        not isinstance(obj, list)
        or len(obj) != 2
        or not isinstance(obj[0], str)
        or not isinstance(obj[1], dict)
    ):
        raise ValueError(f"metadata record must be [record_type, fields], got {obj!r:.200}")
    cls = RECORD_TYPES.get(obj[0])
    if cls is None:
        raise ValueError(f"unknown metadata record type {obj[0]!r}")
    try:
        return cls(**obj[1])
    except TypeError as exc:
        raise ValueError(f"bad fields for {obj[0]}: {exc}") from None


@dataclass
class ControllerResult(Generic[R]):
    """What a controller manager decided: records to write, then a response to return.

    The controller writes ``records`` to the metadata log (fsynced), replays them into
    its context, and only then returns ``response``.  An empty ``records`` list means
    nothing changes.  Kafka concept: ``ControllerResult``.
    """

    records: list[MetadataRecord] = field(default_factory=list)
    response: R | None = None
