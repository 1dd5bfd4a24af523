"""CreateTopics validation: partition counts, replication factors, manual replica
assignments and topic configs (topic names: ``kafkette.common.topic_names``).

Owns: the checks and Kafka's error messages; each check raises the ``kafkette.protocol.errors``
class whose code the controller puts in that topic's result.  Does not own replica
assignment (``replica_assignment.py``), nor whether the topic already exists or which
brokers are live (the caller passes what it knows).

Kafka concept: ``org.apache.kafka.common.internals.Topic.validate``, the checks of
``ReplicationControlManager.createTopic`` / ``AdminZkClient.validateTopicCreate``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from kafkette.common import topic_config
from kafkette.common.topic_config import TOPIC_CONFIG_NAMES
from kafkette.protocol.apis.create_topics import CreatableReplicaAssignment, CreatableTopicConfig
from kafkette.protocol.errors import (
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


def resolve_replication_factor(
    replication_factor: int, default_replication_factor: int, num_live_brokers: int
) -> int:
    """Resolve ``replication_factor`` (-1 = ``default.replication.factor``) and check it.

    Args:
        replication_factor: from the request.
        default_replication_factor: the controller's ``default.replication.factor``.
        num_live_brokers: unfenced brokers available to host replicas.

    Returns:
        The replication factor to use.

    Raises:
        InvalidReplicationFactorError: (INVALID_REPLICATION_FACTOR) zero or below -1, above
            32767 (only a msgpack request can ask that: Kafka's field is an int16), or larger
            than the number of live brokers, in Kafka's words.
    """
    if replication_factor == 0 or replication_factor < NO_REPLICATION_FACTOR:
        raise InvalidReplicationFactorError(
            "Replication factor must be larger than 0, or -1 to use the default value."
        )
    resolved = (
        default_replication_factor if replication_factor == NO_REPLICATION_FACTOR else replication_factor
    )
    if not 1 <= resolved <= MAX_REPLICATION_FACTOR:
        raise InvalidReplicationFactorError(
            f"Replication factor must be between 1 and {MAX_REPLICATION_FACTOR} inclusive, or -1 to use the "
            "default value."
        )
    if resolved > num_live_brokers:
        raise InvalidReplicationFactorError(replication_factor_unreachable(resolved, num_live_brokers))
    return resolved


def replication_factor_unreachable(replication_factor: int, num_brokers: int) -> str:
    """Kafka's message when there are fewer brokers than replicas to place (``StripedReplicaPlacer``,
    wrapped by ``ReplicationControlManager``).

    Args:
        replication_factor: the replicas asked per partition.
        num_brokers: the brokers available to host them.
    """
    return (
        f"Unable to replicate the partition {replication_factor} time(s): The target replication factor of "
        f"{replication_factor} cannot be reached because only {num_brokers} broker(s) are registered or some "
        "brokers have all their log directories cordoned."
    )


def validate_manual_assignment(
    assignments: Sequence[CreatableReplicaAssignment],
    num_partitions: int,
    replication_factor: int,
    registered_broker_ids: Collection[int],
) -> dict[int, list[int]]:
    """Validate a manual replica assignment (``--replica-assignment``), in the order and words of
    Kafka's ``ReplicationControlManager.createTopic``: the replication factor and the partition
    count must be -1; then each partition in the request's order (named once, its replicas as
    ``validate_partition_assignment`` checks them against the partitions before it); then the
    partition ids must be 0..n-1.

    Args:
        assignments: one entry per partition from the request.
        num_partitions, replication_factor: from the request; both must be -1.
        registered_broker_ids: brokers known to the controller.

    Returns:
        ``{partition id: [broker ids]}``.

    Raises:
        InvalidRequestError: (INVALID_REQUEST) combined with replication_factor or
            num_partitions other than -1.
        InvalidReplicaAssignmentError: (INVALID_REPLICA_ASSIGNMENT) a partition named twice,
            an empty replica list, an unregistered or repeated broker, unequal replication
            factors, partition ids not 0..n-1.
    """
    if replication_factor != NO_REPLICATION_FACTOR:
        raise InvalidRequestError(
            "A manual partition assignment was specified, but replication factor was not set to -1."
        )
    if num_partitions != NO_NUM_PARTITIONS:
        raise InvalidRequestError(
            "A manual partition assignment was specified, but numPartitions was not set to -1."
        )
    result: dict[int, list[int]] = {}
    first_rf: int | None = None
    for entry in assignments:
        if entry.partition_index in result:
            raise InvalidReplicaAssignmentError(
                f"Found multiple manual partition assignments for partition {entry.partition_index}"
            )
        replicas = list(entry.broker_ids)
        validate_partition_assignment(replicas, registered_broker_ids, first_rf)
        first_rf = len(replicas)
        result[entry.partition_index] = replicas
    if any(i not in result for i in range(len(result))):
        raise InvalidReplicaAssignmentError("partitions should be a consecutive 0-based integer sequence")
    return result


def validate_partition_assignment(
    replicas: Sequence[int], registered_broker_ids: Collection[int], replication_factor: int | None
) -> None:
    """Check one partition's manual replica list (Kafka's ``validateManualPartitionAssignment``):
    not empty; its brokers, in id order, registered and each named once; as many as
    ``replication_factor``.

    Args:
        replicas: the partition's replica list (broker ids).
        registered_broker_ids: brokers known to the controller.
        replication_factor: the replicas every partition must have (the previous partitions'
            count, or the topic's), None for the first partition of a new topic.

    Raises:
        InvalidReplicaAssignmentError: (INVALID_REPLICA_ASSIGNMENT) in Kafka's words.
    """
    if not replicas:
        raise InvalidReplicaAssignmentError("The manual partition assignment includes an empty replica list.")
    previous = None
    for broker_id in sorted(replicas):
        if broker_id not in registered_broker_ids:
            raise InvalidReplicaAssignmentError(
                f"The manual partition assignment includes broker {broker_id}, "
                "but no such broker is registered."
            )
        if broker_id == previous:
            raise InvalidReplicaAssignmentError(
                f"The manual partition assignment includes the broker {broker_id} more than once."
            )
        previous = broker_id
    if replication_factor is not None and len(replicas) != replication_factor:
        raise InvalidReplicaAssignmentError(
            f"The manual partition assignment includes a partition with {len(replicas)} replica(s), but this "
            f"is not consistent with previous partitions, which have {replication_factor} replica(s)."
        )


def validate_topic_configs(
    configs: Sequence[CreatableTopicConfig], defaults: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Validate topic config overrides from CreateTopics.

    Names must be topic-level configs (``TOPIC_CONFIG_NAMES``); values must have the
    config's type and lie in its range or valid values (``kafkette.common.topic_config``, the
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
