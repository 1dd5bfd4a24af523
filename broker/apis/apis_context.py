"""ApisContext: the components a request handler may use.

Owns: the one record handed to every handler in ``broker/apis/`` (config, replicas,
metadata, the controller endpoint, the group coordinator ...).  Does not own the dispatch
by api key (``kafka_apis``) nor any component's lifecycle (``broker/server.py`` builds and
stops them).  Kept apart from the dispatch table so a handler names its argument's type
without importing the module that imports every handler.

Kafka concept: the collaborators ``KafkaApis`` is constructed with (``RequestChannel``,
``ReplicaManager``, ``GroupCoordinator``, ``MetadataCache``, ``ForwardingManager`` ...).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kafkette.broker.acl_store import AclStore
from kafkette.broker.client_quota_cache import ClientQuotaCache
from kafkette.broker.client_quota_manager import ClientQuotaManager
from kafkette.broker.client_request_quota_manager import ClientRequestQuotaManager
from kafkette.broker.controller_mutation_quota_manager import ControllerMutationQuotaManager
from kafkette.broker.dynamic_broker_config import DynamicBrokerConfig
from kafkette.broker.fetch_session import FetchManager, FetchSessionCache
from kafkette.broker.scram_credential_cache import ScramCredentialCache
from kafkette.common.client_quota_entity import CONSUMER_BYTE_RATE, PRODUCER_BYTE_RATE

if TYPE_CHECKING:
    from kafkette.broker.apis.controller_endpoint import ControllerEndpoint
    from kafkette.broker.auto_topic_creation_manager import AutoTopicCreationManager
    from kafkette.broker.config import KafkaConfig
    from kafkette.broker.group.group_coordinator import GroupCoordinator
    from kafkette.broker.metadata_cache import MetadataCache
    from kafkette.broker.node_to_controller_channel import NodeToControllerChannelManager
    from kafkette.broker.producer_id_manager import ProducerIdManager
    from kafkette.broker.replica_manager import ReplicaManager
    from kafkette.broker.transaction.transaction_coordinator_service import TransactionCoordinatorService


@dataclass
class ApisContext:
    """What request handlers may touch: config, replicas, metadata, and the controller
    when this broker runs it (None otherwise).

    ``dynamic_config`` holds the run-time broker configs (a fresh one over ``config``
    when not given); ``auto_topic_creation_manager`` None disables auto-creation;
    ``controller_channel`` forwards controller requests to the active controller (KIP-590;
    None: this node answers NOT_CONTROLLER unless it is the active controller);
    ``group_coordinator`` None answers group requests NOT_COORDINATOR;
    ``transaction_coordinator`` None answers the transactional APIs COORDINATOR_NOT_AVAILABLE;
    ``fetch_manager`` holds the fetch sessions (KIP-227; a fresh cache of
    ``max.incremental.fetch.session.cache.slots`` when not given); ``scram_credentials`` the SCRAM
    users the controller sent (KIP-554);
    ``client_quotas`` its client quotas (KIP-546); ``produce_quotas``, ``fetch_quotas`` and
    ``request_quotas`` enforce their ``producer_byte_rate``s, ``consumer_byte_rate``s and
    ``request_percentage``s (KIP-124), ``controller_mutation_quotas`` the
    ``controller_mutation_rate``s (KIP-599); ``authorizer`` the ACLs the controller sent, with Kafka's
    StandardAuthorizer decision (``authorize``), None when
    ``authorizer.class.name`` is unset (no authorization; the ACL APIs answer SECURITY_DISABLED)."""

    config: KafkaConfig
    replica_manager: ReplicaManager
    metadata_cache: MetadataCache
    controller: ControllerEndpoint | None
    producer_id_manager: ProducerIdManager
    dynamic_config: DynamicBrokerConfig = field(default=None)  # type: ignore[assignment]
    auto_topic_creation_manager: AutoTopicCreationManager | None = None
    controller_channel: NodeToControllerChannelManager | None = None
    group_coordinator: GroupCoordinator | None = None
    transaction_coordinator: TransactionCoordinatorService | None = None
    fetch_manager: FetchManager = field(default=None)  # type: ignore[assignment]
    scram_credentials: ScramCredentialCache = field(default_factory=ScramCredentialCache)
    client_quotas: ClientQuotaCache = field(default_factory=ClientQuotaCache)
    produce_quotas: ClientQuotaManager = field(default_factory=lambda: ClientQuotaManager(PRODUCER_BYTE_RATE))
    fetch_quotas: ClientQuotaManager = field(default_factory=lambda: ClientQuotaManager(CONSUMER_BYTE_RATE))
    request_quotas: ClientRequestQuotaManager = field(default_factory=ClientRequestQuotaManager)
    controller_mutation_quotas: ControllerMutationQuotaManager = field(
        default_factory=ControllerMutationQuotaManager
    )
    authorizer: AclStore | None = None

    def __post_init__(self) -> None:
        if self.dynamic_config is None:
            self.dynamic_config = DynamicBrokerConfig(self.config)
        if self.fetch_manager is None:
            self.fetch_manager = FetchManager(
                FetchSessionCache(self.config.max_incremental_fetch_session_cache_slots)
            )
