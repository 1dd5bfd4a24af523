"""Whether a classic group may become a consumer group (KIP-848's online upgrade).

Owns: ``validate_online_upgrade``, the checks Kafka makes before it converts a non-empty classic group
to a consumer group when a member of the consumer protocol joins it (ConsumerGroupHeartbeat with member
epoch 0), each refusal with Kafka's GROUP_ID_NOT_FOUND message and log line.  Does not own the
conversion itself, nor the deletion of an Empty classic group a joining member replaces
(``ConsumerGroupCoordinator``), nor parsing ``group.consumer.migration.policy``
(``group_coordinator_config.ConsumerGroupMigrationPolicy``).

Kafka concept: ``GroupMetadataManager.validateOnlineUpgrade`` under ``ConsumerGroupMigrationPolicy``
(KIP-848's "online migration").
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from kafkette.broker.group.consumer_group_errors import ConsumerGroupError

if TYPE_CHECKING:
    from kafkette.broker.group.group_coordinator_config import ConsumerGroupMigrationPolicy
    from kafkette.broker.group.group_metadata import GroupMetadata

logger = logging.getLogger(__name__)


def validate_online_upgrade(
    classic_group: GroupMetadata, policy: ConsumerGroupMigrationPolicy, consumer_group_max_size: int
) -> None:
    """Check that a non-empty classic group may be upgraded online to a consumer group.

    Args:
        classic_group: the classic group a member of the consumer protocol joins.
        policy: ``group.consumer.migration.policy``.
        consumer_group_max_size: ``group.consumer.max.size`` (members).

    Raises:
        ConsumerGroupError: GROUP_ID_NOT_FOUND with Kafka's message when the policy does not enable
            upgrades, when the group's protocol type is not "consumer" (Kafka's
            ``usesConsumerGroupProtocol``), or when it has more members than ``consumer_group_max_size``;
            checked in that order, as Kafka's ``validateOnlineUpgrade``.
    """
    group_id = classic_group.group_id
    if not policy.is_upgrade_enabled():
        reason = "online upgrade is disabled"
    elif not classic_group.uses_consumer_protocol:
        reason = "the group does not use the consumer embedded protocol"
    elif len(classic_group.members) > consumer_group_max_size:
        reason = "the group size exceeds the consumer group maximum size"
    else:
        return
    message = f"Cannot upgrade classic group {group_id} to consumer group because {reason}."
    logger.info("%s", message)
    raise ConsumerGroupError("GROUP_ID_NOT_FOUND", message)
