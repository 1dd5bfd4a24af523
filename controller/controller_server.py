"""ControllerServer: a controller-only node (``process.roles=controller``): a voter of the metadata
quorum and its listener, and no broker (no partitions, no logs but the metadata log, no
registration).

Owns: the metadata log directory's ``meta.properties`` check, the node's ``QuorumController`` and its
``SocketServer`` (answering through ``ControllerApis``), their start and stop order, and the node's fatal
faults (committed metadata it cannot load stops it).  Does not own parsing the node's properties (the node's
entry point builds the settings).

Kafka concept: ``ControllerServer`` of a KRaft controller in isolated mode.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kafkette.common.kafka_scheduler import KafkaScheduler
from kafkette.common.meta_properties import create_log_dir, ensure_meta_properties
from kafkette.common.network.socket_server import SocketServer
from kafkette.controller.controller_apis import ControllerApis
from kafkette.controller.controller_config import ControllerConfig
from kafkette.controller.quorum_controller import QuorumController
from kafkette.controller.raft.raft_config import RaftConfig

logger = logging.getLogger(__name__)

SHUTDOWN_STEP_TIMEOUT_S = 15


class ControllerServer:
    """One controller-only node.

    Args:
        config: the controller's settings (``node.id`` is this voter).
        voters: ``{node id: (host, port)}`` of ``controller.quorum.voters``.
        metadata_log_dir: the directory holding ``__cluster_metadata-0/`` (``metadata.log.dir``, by
            default the first of ``log.dirs``).
        raft_config: the quorum's timeouts.
        listener: (host, port) to listen on (this voter's address in ``controller.quorum.voters``).
        listener_options: the listener's bounds, as ``SocketServer`` keyword arguments
            (``max_request_bytes`` for ``socket.request.max.bytes``, ``max_queued_requests``,
            ``max_connections``, ``max_connections_per_ip``, ``connections_max_idle_ms``,
            ``queued_max_request_bytes``; ``ssl_context`` and ``ssl_principal`` for an SSL listener).
    """

    def __init__(
        self,
        config: ControllerConfig,
        *,
        voters: Mapping[int, tuple[str, int]],
        metadata_log_dir: str,
        raft_config: RaftConfig,
        listener: tuple[str, int],
        listener_options: Mapping[str, Any],
    ) -> None:
        self.node_id = config.node_id
        self.shutdown_requested = asyncio.Event()
        self.fatal_error: BaseException | None = None
        self._cluster_id = config.cluster_id
        self._metadata_log_dir = metadata_log_dir
        self.scheduler = KafkaScheduler(log_prefix=f"[KafkaScheduler id={config.node_id}]")
        self.quorum = QuorumController(
            config,
            voters=voters,
            metadata_log_dir=metadata_log_dir,
            raft_config=raft_config,
            fatal_fault_handler=self._on_fatal_fault,
            scheduler=self.scheduler,
        )
        host, port = listener
        self.socket_server = SocketServer(
            host, port, ControllerApis(self.quorum).handle, broker_id=self.node_id, **listener_options
        )
        self._prefix = f"[ControllerServer id={self.node_id}]"

    def _on_fatal_fault(self, error: BaseException) -> None:
        logger.error("%s Fatal fault, shutting down: %r", self._prefix, error)
        self.fatal_error = error
        self.shutdown_requested.set()

    def _ensure_meta_properties(self, log_dir: Path) -> None:
        create_log_dir(log_dir)
        ensure_meta_properties(log_dir, self.node_id, self._cluster_id)

    async def startup(self) -> None:
        """Open the metadata log, start the voter, then listen.

        Raises:
            ConfigError: the metadata log directory's ``meta.properties`` names another
                ``node.id`` or ``cluster.id``.
            OSError: the metadata log directory cannot be used or the port is taken.
        """
        logger.info("%s Starting (controller only)", self._prefix)
        log_dir = Path(self._metadata_log_dir)
        await asyncio.get_running_loop().run_in_executor(None, self._ensure_meta_properties, log_dir)
        await self.quorum.start()
        await self.socket_server.start()
        logger.info("%s Started", self._prefix)

    async def shutdown(self) -> None:
        """Stop listening, then stop the voter (each step bounded by ``SHUTDOWN_STEP_TIMEOUT_S``)."""
        logger.info("%s Shutting down", self._prefix)
        for name, step in (
            ("socket server", self.socket_server.stop),
            ("quorum controller", self.quorum.stop),
            ("scheduler", self.scheduler.shutdown),
        ):
            try:
                await asyncio.wait_for(step(), SHUTDOWN_STEP_TIMEOUT_S)
            except Exception:
                logger.exception("%s Shutdown step %s failed", self._prefix, name)
        logger.info("%s Shut down completed", self._prefix)
