"""A consumer group converted back to a classic group (KIP-848's online downgrade).

Owns: ``validate_online_downgrade`` (whether fencing members leaves a consumer group whose remaining
members all use the classic protocol, and the policy and ``group.max.size`` allow the conversion) and
``classic_group_from_consumer_group`` (the classic group it becomes: Stable, generation = the group epoch,
protocol type "consumer", the protocol chosen by vote, each member's assignment its target serialised as a
``ConsumerProtocolAssignment``).  Does not own writing the records, installing the classic group and its
rebalance (``ConsumerGroupCoordinator`` with ``GroupCoordinator``), nor the upgrade
(``consumer_group_conversion``).

Kafka concept: ``GroupMetadataManager.validateOnlineDowngradeWithFencedMembers``, ``convertToClassicGroup``
and ``ClassicGroup.fromConsumerGroup``.
"""

from __future__ import annotations

import logging
import struct
from collections.abc import Callable, Collection

from kafkette.broker.group.assignors.api import TopicId
from kafkette.broker.group.consumer_group import ConsumerGroup
from kafkette.broker.group.consumer_group_member import ConsumerGroupMember
from kafkette.broker.group.group_coordinator_config import ConsumerGroupMigrationPolicy
from kafkette.broker.group.group_metadata import GroupMetadata, GroupState, MemberMetadata
from kafkette.protocol.consumer_protocol import PROTOCOL_TYPE, Assignment, encode_assignment
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)


def validate_online_downgrade(
    group: ConsumerGroup,
    fenced_member_ids: Collection[str],
    policy: ConsumerGroupMigrationPolicy,
    classic_group_max_size: int,
) -> bool:
    """Whether fencing ``fenced_member_ids`` converts the group to a classic group (Kafka's
    ``validateOnlineDowngradeWithFencedMembers``): every other member uses the classic protocol, at least
    one remains, ``group.consumer.migration.policy`` enables downgrades and the remaining members are no
    more than ``group.max.size`` (``classic_group_max_size``)."""
    fenced = set(fenced_member_ids)
    remaining = [m for m in group.members.values() if m.member_id not in fenced]
    if any(not m.use_classic_protocol() for m in remaining):
        return False
    if not remaining:
        logger.debug(
            "Skip downgrading the consumer group %s to classic group because it's empty.", group.group_id
        )
        return False
    return _policy_and_size_allow(group, len(remaining), policy, classic_group_max_size)


def validate_online_downgrade_with_replaced_member(
    group: ConsumerGroup,
    replaced: ConsumerGroupMember,
    policy: ConsumerGroupMigrationPolicy,
    classic_group_max_size: int,
) -> bool:
    """Whether a classic static member joining in place of ``replaced`` (the member of its instance id)
    converts the group to a classic group (Kafka's ``validateOnlineDowngradeWithReplacedMember``): every
    other member uses the classic protocol, the policy enables downgrades, and the group is no larger
    than ``group.max.size``."""
    if any(not m.use_classic_protocol() for m in group.members.values() if m.member_id != replaced.member_id):
        return False
    return _policy_and_size_allow(group, group.num_members(), policy, classic_group_max_size)


def _policy_and_size_allow(
    group: ConsumerGroup, size: int, policy: ConsumerGroupMigrationPolicy, classic_group_max_size: int
) -> bool:
    """The two checks both of Kafka's downgrade validations end with, each refusal logged with Kafka's
    line: ``group.consumer.migration.policy`` enables downgrades, and ``size`` members fit in
    ``group.max.size``."""
    if not policy.is_downgrade_enabled():
        logger.info(
            "Cannot downgrade consumer group %s to classic group because the online downgrade is disabled.",
            group.group_id,
        )
        return False
    if size > classic_group_max_size:
        logger.info(
            "Cannot downgrade consumer group %s to classic group because its group size is greater than "
            "classic group max size.",
            group.group_id,
        )
        return False
    return True


def serialize_assignment(
    partitions: dict[TopicId, frozenset[int]] | dict[TopicId, dict[int, int]],
    topic_name_of: Callable[[TopicId], str | None],
    subscription_metadata: bytes,
) -> bytes:
    """Partitions by topic id as a ``ConsumerProtocolAssignment`` in the version of the member's
    subscription (``subscription_metadata``'s first int16; the fields are the same in every version);
    topics that no longer exist are left out (Kafka's ``toConsumerProtocolAssignment``)."""
    assigned = []
    for topic_id, parts in partitions.items():
        name = topic_name_of(topic_id)
        if name is not None:
            assigned += [TopicPartition(name, p) for p in parts]
    version = struct.unpack(">h", subscription_metadata[:2])[0] if len(subscription_metadata) >= 2 else 0
    encoded = encode_assignment(Assignment(tuple(sorted(assigned))))
    return struct.pack(">h", max(version, 0)) + encoded[2:]


def classic_group_from_consumer_group(
    group: ConsumerGroup,
    leaving_member_ids: Collection[str],
    topic_name_of: Callable[[TopicId], str | None],
    joining: ConsumerGroupMember | None = None,
) -> GroupMetadata:
    """The classic group a consumer group becomes without ``leaving_member_ids`` (Kafka's
    ``ClassicGroup.fromConsumerGroup``).

    Args:
        group: a consumer group ``validate_online_downgrade`` accepted (the others use the classic protocol).
        leaving_member_ids: the members that leave (fenced).
        topic_name_of: topic id -> name (the assignments are written by topic name).
        joining: a classic static member joining in place of the group's member of its instance id; it is
            added last and takes the replaced member's target.

    Returns:
        A Stable classic group at generation = the group epoch, protocol type "consumer", the first
        member leading, the protocol every member supports chosen by vote, and each member's target
        assignment serialised in its subscription's version.
    """
    leaving = set(leaving_member_ids)
    classic = GroupMetadata(
        group.group_id, state=GroupState.STABLE, generation_id=group.group_epoch, protocol_type=PROTOCOL_TYPE
    )
    replaced = group.static_member(joining.instance_id) if joining is not None else None
    targets = {m: group.target_assignment_of(m) for m in group.members}
    adding = [m for m in group.members.values() if m.member_id not in leaving and m is not replaced]
    if joining is not None:
        adding.append(joining)
        targets[joining.member_id] = group.target_assignment_of(replaced.member_id) if replaced else {}
    for member in adding:
        metadata = member.classic_member_metadata
        classic.add(
            MemberMetadata(
                member.member_id,
                member.client_id,
                member.client_host,
                metadata.session_timeout_ms,
                member.rebalance_timeout_ms,
                PROTOCOL_TYPE,
                [(p.name, p.metadata) for p in metadata.supported_protocols],
                group_instance_id=member.instance_id,
            )
        )
    classic.protocol_name = classic.select_protocol()
    classic.subscribed_topics = classic.compute_subscribed_topics()
    for member in classic.members.values():
        member.assignment = serialize_assignment(
            dict(targets.get(member.member_id, {})),
            topic_name_of,
            member.metadata(classic.protocol_name),
        )
    return classic
