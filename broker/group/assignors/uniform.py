"""The ``uniform`` server-side assignor of consumer groups (KIP-848), the default one.

Owns: choosing the builder by the group's subscription type.  Does not own the builders themselves
(``uniform_homogeneous.py``, ``uniform_heterogeneous.py``) nor which assignor a group uses (the
coordinator, from ``group.consumer.assignors`` and the members' ``ServerAssignor``).

Kafka concept: ``org.apache.kafka.coordinator.group.assignor.UniformAssignor``.
"""

from __future__ import annotations

import logging

from kafkette.broker.group.assignors.api import (
    GroupAssignment,
    GroupSpec,
    SubscribedTopicDescriber,
    SubscriptionType,
)
from kafkette.broker.group.assignors.uniform_heterogeneous import UniformHeterogeneousAssignmentBuilder
from kafkette.broker.group.assignors.uniform_homogeneous import UniformHomogeneousAssignmentBuilder

logger = logging.getLogger(__name__)


class UniformAssignor:
    """Balanced and sticky assignment (Kafka's ``UniformAssignor``, name ``uniform``).

    Every member ends with as even a share of its subscribed partitions as the subscriptions allow
    (sizes differ by at most one in a HOMOGENEOUS group) and keeps as much of its current target as
    that balance permits.  Partition racks are not read.
    """

    name = "uniform"

    def assign(self, group_spec: GroupSpec, topics: SubscribedTopicDescriber) -> GroupAssignment:
        """Compute the next target assignment.

        Args:
            group_spec: the members, their subscriptions and current targets.
            topics: the subscribed topics' partition counts.

        Returns:
            Member id -> ``{topic_id: frozenset(partitions)}`` for every member (empty when the
            group has no member).

        Raises:
            PartitionAssignorError: a member subscribes to a topic that does not exist.
        """
        if not group_spec.members:
            return GroupAssignment({})
        if group_spec.subscription_type is SubscriptionType.HOMOGENEOUS:
            logger.debug("All members subscribe to the same topics: homogeneous uniform assignment")
            return UniformHomogeneousAssignmentBuilder(group_spec, topics).build()
        logger.debug("Members subscribe to different topics: heterogeneous uniform assignment")
        return UniformHeterogeneousAssignmentBuilder(group_spec, topics).build()
