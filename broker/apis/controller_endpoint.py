"""ControllerEndpoint: what the broker's request handlers may ask of the controller on their node.

Owns: two protocols.  ``Controller`` declares one coroutine per API the controller answers
(CreateTopics, DeleteTopics, CreatePartitions, ElectLeaders, DescribeConfigs and
IncrementalAlterConfigs for topics, BrokerRegistration, BrokerHeartbeat, AlterPartition,
ControlledShutdown, AllocateProducerIds), each taking the decoded request and returning its
response.  ``ControllerEndpoint`` is the node's quorum voter: whether it is the active
controller, its ``controller`` (the one accessor to those APIs), DescribeQuorum and the Raft
requests of the metadata quorum.  The broker never imports the controller package: the node
(``kafkette.broker.server``) hands its controller in as this.

Kafka concept: ``org.apache.kafka.controller.Controller`` (the interface ``QuorumController``
implements) and ``ControllerServer.controller``, as ``ControllerApis`` reaches them; here through
the broker's listener.
"""

from __future__ import annotations

from typing import Any, Protocol

from kafkette.protocol.apis.acls import (
    CreateAclsRequest,
    CreateAclsResponse,
    DeleteAclsRequest,
    DeleteAclsResponse,
)
from kafkette.protocol.apis.alter_partition import AlterPartitionRequest, AlterPartitionResponse
from kafkette.protocol.apis.broker_registration import (
    BrokerHeartbeatRequest,
    BrokerHeartbeatResponse,
    BrokerRegistrationRequest,
    BrokerRegistrationResponse,
)
from kafkette.protocol.apis.client_quotas import AlterClientQuotasRequest, AlterClientQuotasResponse
from kafkette.protocol.apis.configs import (
    DescribeConfigsRequest,
    DescribeConfigsResponse,
    IncrementalAlterConfigsRequest,
    IncrementalAlterConfigsResponse,
)
from kafkette.protocol.apis.controlled_shutdown import ControlledShutdownRequest, ControlledShutdownResponse
from kafkette.protocol.apis.create_partitions import CreatePartitionsRequest, CreatePartitionsResponse
from kafkette.protocol.apis.create_topics import CreateTopicsRequest, CreateTopicsResponse
from kafkette.protocol.apis.delete_topics import DeleteTopicsRequest, DeleteTopicsResponse
from kafkette.protocol.apis.elect_leaders import ElectLeadersRequest, ElectLeadersResponse
from kafkette.protocol.apis.producer_ids import AllocateProducerIdsRequest, AllocateProducerIdsResponse
from kafkette.protocol.apis.raft import DescribeQuorumRequest, DescribeQuorumResponse
from kafkette.protocol.apis.user_scram_credentials import (
    AlterUserScramCredentialsRequest,
    AlterUserScramCredentialsResponse,
)


class Controller(Protocol):
    """The controller's request surface; each method answers errors in its response
    (NOT_CONTROLLER when this node's controller is not the active one)."""

    async def create_topics(self, request: CreateTopicsRequest) -> CreateTopicsResponse: ...

    async def delete_topics(self, request: DeleteTopicsRequest) -> DeleteTopicsResponse: ...

    async def create_partitions(self, request: CreatePartitionsRequest) -> CreatePartitionsResponse: ...

    async def elect_leaders(self, request: ElectLeadersRequest) -> ElectLeadersResponse: ...

    async def describe_configs(self, request: DescribeConfigsRequest) -> DescribeConfigsResponse: ...

    async def incremental_alter_configs(
        self, request: IncrementalAlterConfigsRequest
    ) -> IncrementalAlterConfigsResponse: ...

    async def register_broker(self, request: BrokerRegistrationRequest) -> BrokerRegistrationResponse: ...

    async def broker_heartbeat(self, request: BrokerHeartbeatRequest) -> BrokerHeartbeatResponse: ...

    async def alter_partition(self, request: AlterPartitionRequest) -> AlterPartitionResponse: ...

    async def controlled_shutdown(self, request: ControlledShutdownRequest) -> ControlledShutdownResponse: ...

    async def allocate_producer_ids(
        self, request: AllocateProducerIdsRequest
    ) -> AllocateProducerIdsResponse: ...

    async def alter_user_scram_credentials(
        self, request: AlterUserScramCredentialsRequest
    ) -> AlterUserScramCredentialsResponse: ...

    async def alter_client_quotas(self, request: AlterClientQuotasRequest) -> AlterClientQuotasResponse: ...

    async def create_acls(self, request: CreateAclsRequest) -> CreateAclsResponse: ...

    async def delete_acls(self, request: DeleteAclsRequest) -> DeleteAclsResponse: ...


class ControllerEndpoint(Protocol):
    """A controller node of the metadata quorum, as the broker's request handlers see it."""

    @property
    def is_active(self) -> bool:
        """True while this node's controller is the active one."""
        ...

    @property
    def controller(self) -> Controller:
        """The controller of the current term: the active one, or one that answers every
        request NOT_CONTROLLER while this node is not the active controller."""
        ...

    async def describe_quorum(self, request: DescribeQuorumRequest) -> DescribeQuorumResponse: ...

    async def handle_raft_request(self, request: Any) -> Any:
        """Vote, BeginQuorumEpoch, EndQuorumEpoch, FetchSnapshot, or Fetch of ``__cluster_metadata-0``.

        Raises:
            ValueError, TypeError: a request the voter cannot read.
        """
        ...

    def leader_id(self) -> int:
        """The active controller's node id as this voter knows it (-1 when unknown)."""
        ...
