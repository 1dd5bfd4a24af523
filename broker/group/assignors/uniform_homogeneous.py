"""The ``uniform`` assignor for a group whose members all subscribe to the same topics.

Owns: the sticky, balanced assignment of a HOMOGENEOUS group: every member ends with ``total / M`` or
one more partitions, keeping as much of its current target as that quota allows.  Does not own the
choice of builder (``uniform.py``) nor the heterogeneous case (``uniform_heterogeneous.py``).

Kafka iterates the subscribed topics and each member's current target in ``HashSet``/``HashMap``
order; here topics go in topic id order (``Uuid.compareTo``) and partitions ascending, so which
partitions a member keeps or receives may differ from Kafka's while the sizes, the stickiness and the
validity do not.  It reads no rack.

Kafka concept: ``org.apache.kafka.coordinator.group.assignor.UniformHomogeneousAssignmentBuilder``.
"""

from __future__ import annotations

from kafkette.broker.group.assignors.api import (
    Assignment,
    GroupAssignment,
    GroupSpec,
    PartitionAssignorError,
    SubscribedTopicDescriber,
    TopicId,
)
from kafkette.broker.group.assignors.uniform_heterogeneous import existing_partition_count, topic_id_sort_key


class UniformHomogeneousAssignmentBuilder:
    """Computes one HOMOGENEOUS target (Kafka's ``UniformHomogeneousAssignmentBuilder``).

    Priorities: balance, then stickiness.  With ``total`` partitions and ``M`` members, every member's
    quota is ``min_quota = total // M``, and ``total % M`` members get one extra.  A revoke pass walks
    the members in ``GroupSpec.members`` order: a member tentatively takes the extra if any is left,
    keeps its current target's partitions of the subscribed topics up to that quota (the rest, and
    every unsubscribed topic, are released), and gives the tentative extra back when it did not fill it
    and enough members remain after it to take the remaining extras.  A fill pass then hands the
    released and never-owned partitions, in order, to the members below their quota.  A member whose
    assignment does not change gets its current target mapping back, the same object.
    """

    def __init__(self, group_spec: GroupSpec, topics: SubscribedTopicDescriber) -> None:
        """Take the subscribed topics from the first member (all members share them)."""
        self._group_spec = group_spec
        self._topics = topics
        first = next(iter(group_spec.members.values()))
        self._subscribed_topic_ids = sorted(first.subscribed_topic_ids, key=topic_id_sort_key)

    def build(self) -> GroupAssignment:
        """The new target: member id -> ``{topic_id: frozenset(partitions)}``, every member present.

        Raises:
            PartitionAssignorError: a subscribed topic does not exist, or (which balance rules out)
                partitions were left unassigned.
        """
        member_ids = list(self._group_spec.members)
        if not self._subscribed_topic_ids:
            return GroupAssignment({member_id: {} for member_id in member_ids})
        partition_counts = {
            topic_id: existing_partition_count(self._topics, topic_id)
            for topic_id in self._subscribed_topic_ids
        }
        unassigned = [
            (topic_id, partition)
            for topic_id, count in partition_counts.items()
            for partition in range(count)
            if not self._group_spec.is_partition_assigned(topic_id, partition)
        ]
        total = sum(partition_counts.values())
        min_quota, members_owed_extra = divmod(total, len(member_ids))

        targets: dict[str, Assignment] = {}
        unfilled: list[tuple[str, int]] = []
        for member_index, member_id in enumerate(member_ids):
            quota = min_quota
            has_extra = members_owed_extra > 0
            if has_extra:
                quota += 1
            current = self._group_spec.members[member_id].assigned_partitions
            changed = False
            kept: dict[TopicId, frozenset[int]] = {}
            for topic_id in sorted(current, key=topic_id_sort_key):
                partitions = current[topic_id]
                count = partition_counts.get(topic_id)
                if count is None:  # no longer subscribed
                    changed = True
                    continue
                keep = []
                for partition in sorted(partitions):
                    if partition >= count or partition < 0:  # the topic no longer has it
                        changed = True
                    elif quota > 0:
                        keep.append(partition)
                        quota -= 1
                    else:
                        unassigned.append((topic_id, partition))
                        changed = True
                if keep:
                    kept[topic_id] = frozenset(keep)
                elif partitions:
                    changed = True
            if quota > 0 and has_extra and len(member_ids) - member_index > members_owed_extra:
                # leave the extra to a later member, unless too few are left to take the extras
                quota -= 1
                has_extra = False
            if quota > 0:
                unfilled.append((member_id, quota))
            if has_extra:
                members_owed_extra -= 1
            targets[member_id] = kept if changed else current

        position = 0
        for member_id, quota in unfilled:
            given = unassigned[position : position + quota]
            position += len(given)
            if not given:
                continue
            assignment = {topic_id: set(parts) for topic_id, parts in targets[member_id].items()}
            for topic_id, partition in given:
                assignment.setdefault(topic_id, set()).add(partition)
            targets[member_id] = {topic_id: frozenset(parts) for topic_id, parts in assignment.items()}
        if position < len(unassigned):
            raise PartitionAssignorError("Partitions were left unassigned")
        return GroupAssignment(targets)
