"""Test doubles and request builders for controller unit tests (fake channel manager, manual clock)."""

from __future__ import annotations

import asyncio
import random
import uuid
from typing import Any

import msgpack
from local_metadata_log import MetadataLog

from kafkette.broker.config import KafkaConfig
from kafkette.broker.server import controller_config
from kafkette.controller.controller import KafkaController
from kafkette.controller.controller_channel_manager import mark_retrieved
from kafkette.controller.controller_config import ControllerConfig
from kafkette.controller.quorum_controller import QuorumController
from kafkette.controller.raft.raft_config import RaftConfig
from kafkette.protocol.api_keys import API_REGISTRY
from kafkette.protocol.apis.broker_registration import (
    BrokerHeartbeatRequest,
    BrokerRegistrationListener,
    BrokerRegistrationRequest,
)
from kafkette.protocol.apis.leader_and_isr import LeaderAndIsrRequest, LeaderAndIsrResponse
from kafkette.protocol.apis.stop_replica import (
    StopReplicaPartitionError,
    StopReplicaRequest,
    StopReplicaResponse,
)
from kafkette.protocol.apis.update_metadata import UpdateMetadataRequest, UpdateMetadataResponse
from kafkette.protocol.topic_partition import TopicPartition


class ManualClock:
    """A monotonic clock in ms that only moves when a test advances it."""

    def __init__(self, now_ms: int = 1_000_000) -> None:
        self.now_ms = now_ms

    def __call__(self) -> int:
        return self.now_ms

    def advance(self, ms: int) -> None:
        self.now_ms += ms


class FakeChannelManager:
    """Captures controller requests instead of sending them; acks at once unless told not to.

    StopReplica responses carry a per-partition error: ``stop_replica_errors[(broker_id,
    TopicPartition)]``, else 0.
    """

    def __init__(self) -> None:
        self.stop_replica_errors: dict[tuple[int, TopicPartition], int] = {}
        self.sent: list[tuple[int, Any]] = []
        self.brokers: dict[int, tuple[str, int]] = {}
        self.auto_ack = True
        self.unreachable: set[int] = set()  # brokers whose channel's last attempt failed
        self.pending: list[tuple[int, Any, asyncio.Future[Any]]] = []
        self.sent_event = asyncio.Event()
        self.removed_event = asyncio.Event()
        self.started = self.stopped = False

    async def start(self) -> None:
        self.started = True

    async def stop(self) -> None:
        self.stopped = True

    def add_broker(self, broker_id: int, host: str, port: int) -> None:
        self.brokers[broker_id] = (host, port)

    def remove_broker(self, broker_id: int) -> None:
        self.brokers.pop(broker_id, None)
        self.removed_event.set()

    def send(self, broker_id: int, request: Any) -> asyncio.Future[Any]:
        if broker_id not in self.brokers:
            raise AssertionError(
                f"controller sent {type(request).__name__} to broker {broker_id} without a channel"
            )
        self.sent.append((broker_id, wire_roundtrip(request)))
        self.sent_event.set()
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        future.add_done_callback(mark_retrieved)  # as the real channel does: most sends are fire-and-forget
        if self.auto_ack:
            future.set_result(self._response_for(broker_id, request))
        else:
            self.pending.append((broker_id, request, future))
        return future

    def awaiting_unreachable_brokers(self) -> set[asyncio.Future[Any]]:
        return {f for broker_id, _, f in self.pending if broker_id in self.unreachable and not f.done()}

    def ack_all(self) -> None:
        pending, self.pending = self.pending, []
        for broker_id, request, future in pending:
            if not future.done():
                future.set_result(self._response_for(broker_id, request))

    def fail_pending(self, broker_id: int) -> None:
        """Fail the unanswered requests to ``broker_id`` as a removed channel does."""
        from kafkette.protocol.errors import KafkaConnectionError

        keep = []
        for entry in self.pending:
            if entry[0] == broker_id and not entry[2].done():
                entry[2].set_exception(KafkaConnectionError(f"broker {broker_id} removed"))
            elif entry[0] != broker_id:
                keep.append(entry)
        self.pending = keep

    def stop_replica(self) -> dict[int, list[StopReplicaRequest]]:
        return self._by_broker(StopReplicaRequest)

    def stopped_partitions(self, broker_id: int) -> list[tuple[TopicPartition, bool]]:
        return [
            (TopicPartition(t.topic_name, p.partition_index), p.delete_partition)
            for r in self.stop_replica().get(broker_id, [])
            for t in r.topic_states
            for p in t.partition_states
        ]

    def _response_for(self, broker_id: int, request: Any) -> Any:
        if isinstance(request, LeaderAndIsrRequest):
            return LeaderAndIsrResponse(error_code=0)
        if isinstance(request, StopReplicaRequest):
            return StopReplicaResponse(
                error_code=0,
                partition_errors=[
                    StopReplicaPartitionError(
                        topic_name=t.topic_name,
                        partition_index=p.partition_index,
                        error_code=self.stop_replica_errors.get(
                            (broker_id, TopicPartition(t.topic_name, p.partition_index)), 0
                        ),
                    )
                    for t in request.topic_states
                    for p in t.partition_states
                ],
            )
        return UpdateMetadataResponse(error_code=0)

    def leader_and_isr(self) -> dict[int, list[LeaderAndIsrRequest]]:
        return self._by_broker(LeaderAndIsrRequest)

    def update_metadata(self) -> dict[int, list[UpdateMetadataRequest]]:
        return self._by_broker(UpdateMetadataRequest)

    def _by_broker(self, cls: type) -> dict[int, list[Any]]:
        out: dict[int, list[Any]] = {}
        for broker_id, request in self.sent:
            if isinstance(request, cls):
                out.setdefault(broker_id, []).append(request)
        return out

    def clear(self) -> None:
        self.sent.clear()
        self.sent_event.clear()


def wire_roundtrip(struct: Any) -> Any:
    """Encode and decode ``struct`` as the wire would, at its API's top version (catches values the
    schema rejects)."""
    version = next(
        (spec.max_version for spec in API_REGISTRY.values() if type(struct) in (spec.request, spec.response)),
        0,
    )
    wire = msgpack.unpackb(msgpack.packb(struct.to_wire(version), use_bin_type=True), raw=False)
    decoded = type(struct).from_wire(wire, version)
    assert decoded == struct, (decoded, struct)
    return decoded


def make_config(**overrides: Any) -> ControllerConfig:
    """The controller settings a node with these properties would give its controller."""
    props: dict[str, Any] = {
        "node.id": 1,
        "process.roles": "broker,controller",
        "controller.quorum.voters": "1@127.0.0.1:9001",
        "listeners": "PLAINTEXT://127.0.0.1:9001",
        "broker.session.timeout.ms": 9000,
        "broker.heartbeat.interval.ms": 2000,
    }
    props.update({k.replace("_", "."): v for k, v in overrides.items()})
    return controller_config(KafkaConfig(props))


def new_controller(path: Any, clock: ManualClock, channel: FakeChannelManager) -> KafkaController:
    """A controller (not started) over the metadata log in ``path``, as the ``controller`` fixture
    makes one; a second one over the same path reads back what the first wrote."""
    return KafkaController(
        make_config(),
        metadata_log=MetadataLog(path),
        channel_manager=channel,
        clock_ms=clock,
        rng=random.Random(7),
    )


def incarnation_id(name: str) -> bytes:
    """The 16-byte incarnation id (Kafka's ``uuid``) a test names ``name``."""
    return uuid.uuid5(uuid.NAMESPACE_OID, name).bytes


def registration(
    broker_id: int, incarnation: str | None = None, rack: str | None = None
) -> BrokerRegistrationRequest:
    return BrokerRegistrationRequest(
        broker_id=broker_id,
        cluster_id=None,
        incarnation_id=incarnation_id(incarnation or f"incarnation-{broker_id}"),
        listeners=[BrokerRegistrationListener(name="PLAINTEXT", host="127.0.0.1", port=9000 + broker_id)],
        rack=rack,
    )


def heartbeat(broker_id: int, broker_epoch: int, **kwargs: Any) -> BrokerHeartbeatRequest:
    return BrokerHeartbeatRequest(
        broker_id=broker_id, broker_epoch=broker_epoch, current_metadata_offset=-1, **kwargs
    )


async def register_live_brokers(controller: KafkaController, *broker_ids: int) -> dict[int, int]:
    """Register and unfence brokers; returns ``{broker_id: broker_epoch}``."""
    epochs = {}
    for broker_id in broker_ids:
        response = await controller.register_broker(registration(broker_id))
        assert response.error_code == 0, response
        epochs[broker_id] = response.broker_epoch
        beat = await controller.broker_heartbeat(heartbeat(broker_id, response.broker_epoch))
        assert beat.error_code == 0 and not beat.is_fenced, beat
    return epochs


async def active_single_voter(tmp_path: Any, raft_config: RaftConfig | None = None) -> QuorumController:
    """A started QuorumController, the only voter (node 1), once it is the active controller.

    Raises:
        AssertionError: it did not become active within 5 s (it is stopped first).
    """
    node = QuorumController(
        make_config(),
        voters={1: ("127.0.0.1", 9001)},
        metadata_log_dir=str(tmp_path),
        raft_config=raft_config,
        rng=random.Random(3),
    )
    await node.start()
    for _ in range(500):
        if node.is_active:
            return node
        await asyncio.sleep(0.01)
    await node.stop()
    raise AssertionError("a single voter did not become the active controller within 5 s")
