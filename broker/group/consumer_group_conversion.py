"""A classic group converted to a consumer group (KIP-848's online upgrade), as the records Kafka writes.

Owns: ``classic_to_consumer_group_records``: the consumer group built from a non-empty classic group
whose members use the "consumer" embedded protocol (group epoch = assignment epoch = the generation;
each classic member a member at that epoch, STABLE, with its ``ClassicMemberMetadata`` and its last
SyncGroup assignment as its assignment and target) and the records that create it, in Kafka's order;
``classic_member_metadata`` (a JoinGroup's session timeout and protocols as the member record holds
them); and ``consumer_protocol_subscription`` (the "consumer" subscription of a classic member).  Does
not own the checks before a conversion (``consumer_group_migration``), the classic group's tombstone
and its waiting members (``GroupCoordinator``), nor writing (``ConsumerGroupCoordinator``).

Kafka concept: ``GroupMetadataManager.convertToConsumerGroup``, ``ConsumerGroup.fromClassicGroup``,
``ConsumerGroup.createConsumerGroupRecords`` and
``ConsumerGroupMember.classicProtocolListFromJoinRequestProtocolCollection``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kafkette.broker.group import consumer_group_record_helpers as rh
from kafkette.broker.group.assignors.api import TopicId
from kafkette.broker.group.consumer_group import ConsumerGroup
from kafkette.broker.group.consumer_group_errors import ConsumerGroupError
from kafkette.broker.group.consumer_group_member import ConsumerGroupMember, MemberState, with_epochs
from kafkette.broker.group.consumer_group_metadata_hash import metadata_hash
from kafkette.broker.group.consumer_group_records import ClassicMemberMetadata, ClassicProtocol
from kafkette.broker.group.consumer_group_step import TopicMetadata
from kafkette.protocol.consumer_protocol import Subscription, decode_assignment, decode_subscription
from kafkette.protocol.topic_partition import TopicPartition

if TYPE_CHECKING:
    from kafkette.broker.group.consumer_group_record_helpers import CoordinatorRecord
    from kafkette.broker.group.group_metadata import GroupMetadata

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ClassicGroupConversion:
    """A classic group converted to a consumer group, not yet written.

    Attributes:
        group: the consumer group the records build (not registered with the coordinator).
        records: the records creating it (``classic_to_consumer_group_records``).
    """

    group: ConsumerGroup
    records: list[CoordinatorRecord]


def classic_member_metadata(
    session_timeout_ms: int, protocols: Iterable[tuple[str, bytes]]
) -> ClassicMemberMetadata:
    """A classic member's ``ClassicMemberMetadata``: its session timeout (ms) and ``[(name, metadata)]``
    protocols in its order of preference."""
    return ClassicMemberMetadata(
        session_timeout_ms, tuple(ClassicProtocol(name, bytes(metadata)) for name, metadata in protocols)
    )


def consumer_protocol_subscription(protocols: Iterable[tuple[str, bytes]]) -> Subscription:
    """The subscription of a classic member's first protocol (Kafka's ``deserializeSubscription``).

    Raises:
        ConsumerGroupError: INCONSISTENT_GROUP_PROTOCOL when it has no protocol or the metadata does not
            decode, with Kafka's message.
    """
    first = next(iter(protocols), None)
    try:
        if first is None:
            raise ValueError("no protocol")
        return decode_subscription(first[1])
    except ValueError as exc:
        raise ConsumerGroupError(
            "INCONSISTENT_GROUP_PROTOCOL",
            "Malformed embedded consumer protocol in subscription deserialization.",
        ) from exc


def topic_partition_map(
    partitions: Iterable[TopicPartition], topic_id_of: Callable[[str], TopicId | None]
) -> dict[TopicId, frozenset[int]]:
    """``{topic_id: frozenset(partitions)}`` of the partitions whose topic exists (Kafka's
    ``Utils.toTopicPartitionMap``: a deleted topic's partitions are dropped)."""
    result: dict[TopicId, set[int]] = {}
    for tp in partitions:
        topic_id = topic_id_of(tp.topic)
        if topic_id is not None:
            result.setdefault(topic_id, set()).add(tp.partition)
    return {topic_id: frozenset(parts) for topic_id, parts in result.items()}


def _upgrade_refused(group_id: str, reason: str) -> ConsumerGroupError:
    message = f"Cannot upgrade classic group {group_id} to consumer group because {reason}."
    logger.warning("%s", message)
    return ConsumerGroupError("GROUP_ID_NOT_FOUND", message)


def classic_to_consumer_group_records(
    classic_group: GroupMetadata, topics: TopicMetadata
) -> list[CoordinatorRecord]:
    """The records creating the consumer group a non-empty classic group becomes (Kafka's
    ``fromClassicGroup`` then ``createConsumerGroupRecords``): every member's MemberMetadata, the
    ConsumerGroupMetadata (epoch = generation, hash of the subscribed topics), every member's
    TargetAssignmentMember, the TargetAssignmentMetadata (epoch = generation, timestamp 0), every
    member's CurrentAssignment (epoch and previous epoch = generation, STABLE, partitions stamped with
    the generation).  The classic group's tombstone is not among them.

    Args:
        classic_group: a classic group ``validate_online_upgrade`` accepted.
        topics: the cluster's topics (names to ids; partitions of deleted topics are dropped).

    Returns:
        The records, in Kafka's order.

    Raises:
        ConsumerGroupError: GROUP_ID_NOT_FOUND with Kafka's message when a member's subscription or
            assignment does not decode, or an assignment carries a custom assignor's user data.
    """
    group_id = classic_group.group_id
    generation = classic_group.generation_id
    members: list[tuple[ConsumerGroupMember, dict[TopicId, frozenset[int]]]] = []
    for classic in classic_group.members.values():
        protocol = classic_group.protocol_name or (classic.protocols[0][0] if classic.protocols else "")
        try:
            assignment = decode_assignment(classic.assignment)
            subscription = decode_subscription(classic.metadata(protocol))
        except Exception as exc:  # noqa: BLE001 - Kafka's SchemaException: any malformed bytes
            raise _upgrade_refused(group_id, "the embedded consumer protocol is malformed") from exc
        if assignment.user_data:
            raise _upgrade_refused(
                group_id,
                "an unsupported custom assignor is in use. Please refer to the documentation or switch to "
                "a default assignor before re-attempting the upgrade",
            )
        assigned = topic_partition_map(assignment.partitions, topics.topic_id_of)
        member = ConsumerGroupMember(
            classic.member_id,
            member_epoch=generation,
            previous_member_epoch=generation,
            state=MemberState.STABLE,
            instance_id=classic.group_instance_id,
            rack_id=subscription.rack_id,
            rebalance_timeout_ms=classic.rebalance_timeout_ms,
            client_id=classic.client_id,
            client_host=classic.client_host,
            subscribed_topic_names=frozenset(subscription.topics),
            assigned_partitions=with_epochs(assigned, generation),
            classic_member_metadata=classic_member_metadata(classic.session_timeout_ms, classic.protocols),
        )
        members.append((member, assigned))
    names = frozenset(t for member, _ in members for t in member.subscribed_topic_names)
    records: list[CoordinatorRecord] = [rh.member_subscription_record(group_id, m) for m, _ in members]
    records.append(rh.group_epoch_record(group_id, generation, metadata_hash(names, topics)))
    records += [rh.target_assignment_record(group_id, m.member_id, target) for m, target in members]
    records.append(rh.target_assignment_epoch_record(group_id, generation, 0))
    records += [rh.current_assignment_record(group_id, m) for m, _ in members]
    return records
