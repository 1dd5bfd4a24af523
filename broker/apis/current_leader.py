"""The current leader of a partition as this broker knows it, for answers that tell a client where
to go next without a metadata refresh (KIP-951: Produce v10+, Fetch v16+).

Owns: the lookup (this broker's own replica first, then its metadata) and the leader's endpoint on
the listener the request came in on.  Does not own: the message structs, which each API declares
(``protocol/apis/produce.py``, ``protocol/apis/fetch.py``).
Kafka concept: ``KafkaApis.getCurrentLeader``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from kafkette.protocol.topic_partition import TopicPartition

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext

E = TypeVar("E")


def current_leader(
    ctx: ApisContext,
    tp: TopicPartition,
    listener_name: str | None,
    endpoints: dict[int, E],
    endpoint: type[E] | Any,
) -> tuple[int, int]:
    """The leader id and leader epoch of ``tp``: this broker's own replica's, else the metadata's,
    else (-1, -1).  A live leader with an address on ``listener_name`` joins ``endpoints`` (node id
    -> ``endpoint(node_id=, host=, port=, rack=)``, the API's NodeEndpoint struct)."""
    partition = ctx.replica_manager.get_partition(tp)
    if partition is not None:
        leader_id, leader_epoch = partition.leader_id, partition.leader_epoch
    else:
        state = ctx.metadata_cache.partition_state(tp)
        leader_id, leader_epoch = (state.leader, state.leader_epoch) if state is not None else (-1, -1)
    broker = ctx.metadata_cache.get_alive_broker(leader_id) if leader_id >= 0 else None
    address = broker.address(listener_name) if broker is not None else None
    if broker is not None and address is not None:
        endpoints[leader_id] = endpoint(node_id=leader_id, host=address[0], port=address[1], rack=broker.rack)
    return leader_id, leader_epoch
