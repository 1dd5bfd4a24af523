"""CreateTopics validation: partition counts, replication factors, manual replica
assignments and topic configs (topic names: ``kafkette.client.topic_names``).

Owns: the checks and Kafka's error messages; each check raises the ``kafkette.protocol.errors``
class whose code the controller puts in that topic's result.  Does not own replica
assignment (``replica_assignment.py``), nor whether the topic already exists or which
brokers are live (the caller passes what it knows).

Kafka concept: ``org.apache.kafka.common.internals.Topic.validate``, the checks of
``ReplicationControlManager.createTopic`` / ``AdminZkClient.validateTopicCreate``
(seeds 000, 002, 003).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from kafkette.client import topic_config
from kafkette.client.topic_config import TOPIC_CONFIG_NAMES
from kafkette.protocol.apis.create_topics import CreatableReplicaAssignment, CreatableTopicConfig
from kafkette.protocol.errors import (  # type: ignore[attr-defined]
    InvalidConfigError,
    InvalidPartitionsError,
    InvalidReplicaAssignmentError,
    InvalidReplicationFactorError,
    InvalidRequestError,
)

MAX_REPLICATION_FACTOR = 32767  # Short.MaxValue
NO_NUM_PARTITIONS = -1
NO_REPLICATION_FACTOR = -1


def resolve_num_partitions(num_partitions: int, default_num_partitions: int) -> int:
    """Resolve ``num_partitions`` (-1 = ``num.partitions``) and check it is >= 1.

    Raises:
        InvalidPartitionsError: (INVALID_PARTITIONS) zero or negative other than -1.
    """
    resolved = default_num_partitions if num_partitions == NO_NUM_PARTITIONS else num_partitions
    if resolved <= 0:
        raise InvalidPartitionsError("Number of partitions was set to an invalid non-positive value.")
    return resolved


def resolve_replication_factor(replication_factor: int, default_replication_factor: int, num_live_brokers: int) -> int:
    """Resolve ``replication_factor`` (-1 = ``default.replication.factor``) and check it.

    Args:
        replication_factor: from the request.
        default_replication_factor: the controller's ``default.replication.factor``.
        num_live_brokers: unfenced brokers available to host replicas.

    Returns:
        The replication factor to use.

    Raises:
        InvalidReplicationFactorError: (INVALID_REPLICATION_FACTOR) outside 1..32767 or
            larger than the number of live brokers.
    """
    resolved = default_replication_factor if replication_factor == NO_REPLICATION_FACTOR else replication_factor
    if not 1 <= resolved <= MAX_REPLICATION_FACTOR:
        raise InvalidReplicationFactorError(
            f"Replication factor must be between 1 and {MAX_REPLICATION_FACTOR} inclusive, or -1 to use the "
            "default value."
        )
    if resolved > num_live_brokers:
        raise InvalidReplicationFactorError(
            f"Replication factor: {resolved} larger than available brokers: {num_live_brokers}."
        )
    return resolved


def validate_manual_assignment(
    assignments: Sequence[CreatableReplicaAssignment],
    num_partitions: int,
    replication_factor: int,
    registered_broker_ids: Collection[int],
) -> dict[int, list[int]]:
    """Validate a manual replica assignment (``--replica-assignment``).

    Args:
        assignments: one entry per partition from the request.
        num_partitions, replication_factor: from the request; both must be -1.
        registered_broker_ids: brokers known to the controller.

    Returns:
        ``{partition id: [broker ids]}``.

    Raises:
        InvalidRequestError: (INVALID_REQUEST) combined with num_partitions or
            replication_factor other than -1.
        InvalidReplicaAssignmentError: (INVALID_REPLICA_ASSIGNMENT) partition ids not
            0..n-1, an empty or duplicate-broker replica list, unequal replication
            factors, or an unregistered broker.
    """
    if num_partitions != NO_NUM_PARTITIONS:
        raise InvalidRequestError("A manual partition assignment was specified, but numPartitions was not set to -1.")
    if replication_factor != NO_REPLICATION_FACTOR:
        raise InvalidRequestError(
            "A manual partition assignment was specified, but replicationFactor was not set to -1."
        )
    result: dict[int, list[int]] = {}
    for entry in assignments:
        if entry.partition_index in result:
            raise InvalidReplicaAssignmentError(
                f"The manual partition assignment includes the partition {entry.partition_index} more than once."
            )
        result[entry.partition_index] = list(entry.broker_ids)
    if sorted(result) != list(range(len(result))):
        raise InvalidReplicaAssignmentError(
            f"Partitions should be a consecutive 0-based integer sequence, got {sorted(result)}."
        )
    first_rf = len(result[0]) if result else 0
    for partition, replicas in sorted(result.items()):
        if not replicas:
            raise InvalidReplicaAssignmentError(
                f"The manual partition assignment includes an empty replica list for partition {partition}."
            )
        check_no_duplicate_replicas(replicas)
        if len(replicas) != first_rf:
            raise InvalidReplicaAssignmentError(f"Partition {partition} has different replication factor: {replicas}")
        check_replicas_registered(replicas, registered_broker_ids)
    return result


def check_no_duplicate_replicas(replicas: Sequence[int]) -> None:
    """Refuse a manual replica list naming a broker twice (Kafka's ``validateManualPartitionAssignment``).

    Args:
        replicas: one partition's replica list (broker ids).

    Raises:
        InvalidReplicaAssignmentError: (INVALID_REPLICA_ASSIGNMENT) naming the repeated brokers.
    """
    duplicates = sorted({b for b in replicas if replicas.count(b) > 1})
    if duplicates:
        raise InvalidReplicaAssignmentError(
            "Partition replica lists may not contain duplicate entries: " + ",".join(map(str, duplicates))
        )


def check_replicas_registered(replicas: Sequence[int], registered_broker_ids: Collection[int]) -> None:
    """Refuse a manual replica list naming a broker the controller has never registered.

    Args:
        replicas: one partition's replica list (broker ids).
        registered_broker_ids: brokers known to the controller.

    Raises:
        InvalidReplicaAssignmentError: (INVALID_REPLICA_ASSIGNMENT) naming the first unknown broker.
    """
    for broker_id in replicas:
        if broker_id not in registered_broker_ids:
            raise InvalidReplicaAssignmentError(
                f"The manual partition assignment includes broker {broker_id}, but no such broker is registered."
            )


def validate_topic_configs(configs: Sequence[CreatableTopicConfig],
                           defaults: Mapping[str, str] | None = None) -> dict[str, str]:
    """Validate topic config overrides from CreateTopics.

    Names must be topic-level configs (``TOPIC_CONFIG_NAMES``); values must have the
    config's type and lie in its range or valid values (``kafkette.client.topic_config``, the
    table the broker's ``LogConfig`` uses too); together with ``defaults`` they must pass
    Kafka's ``LogConfig.validateValues`` (``min.compaction.lag.ms`` <= ``max.compaction.lag.ms``).

    Args:
        configs: the request's config entries.
        defaults: ``{topic config name: value}`` a topic without an override gets (the
            controller's ``topic_config_defaults``), or None for the table's defaults.

    Returns:
        ``{name: value}`` in request order.

    Raises:
        InvalidRequestError: (INVALID_REQUEST) a name given twice.
        InvalidConfigError: (INVALID_CONFIG) a null value, an unknown name or an invalid value;
            the message names the key.
    """
    result: dict[str, str] = {}
    for entry in configs:
        if entry.name in result:
            raise InvalidRequestError(f"Duplicate topic config name: {entry.name}")
        if entry.value is None:
            raise InvalidConfigError(f"Null value not supported for topic configs: {entry.name}")
        if entry.name not in TOPIC_CONFIG_NAMES:
            raise InvalidConfigError(f"Unknown topic config name: {entry.name}")
        result[entry.name] = entry.value
    try:
        topic_config.validate_topic_configs(result, defaults)
    except ValueError as exc:
        raise InvalidConfigError(str(exc)) from None
    return result
