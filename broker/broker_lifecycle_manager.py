"""Registers the broker with the controller and keeps its session alive with heartbeats.

Owns: the registration (broker epoch, incarnation id) and one heartbeat task.  The
broker is fenced until the controller unfences it after a heartbeat; a heartbeat
answered with STALE_BROKER_EPOCH or BROKER_ID_NOT_REGISTERED (the controller
restarted or fenced us for good) triggers a new registration.  On a clean shutdown
the last heartbeat carries ``want_shut_down`` so the controller fences the broker
and moves its leaderships at once instead of waiting for the session to lapse.

Kafka concept: ``BrokerLifecycleManager`` (KIP-631).
"""

from __future__ import annotations

import asyncio
import logging
import uuid

from broker.config import KafkaConfig
from broker.node_to_controller_channel import NodeToControllerChannelManager
from protocol.apis.broker_registration import (
    BrokerHeartbeatRequest,
    BrokerRegistrationListener,
    BrokerRegistrationRequest,
)
from protocol.errors import Errors, KafkaError

logger = logging.getLogger(__name__)


class BrokerLifecycleManager:
    """Registration and heartbeats of one broker.

    Args:
        config: broker config (node id, advertised listener, rack, heartbeat interval).
        channel: the channel to the controller.
    """

    def __init__(self, config: KafkaConfig, channel: NodeToControllerChannelManager) -> None:
        self._config = config
        self._channel = channel
        self.broker_id = config.node_id
        self.incarnation_id = uuid.uuid4().hex
        self.broker_epoch = -1
        self.is_fenced = True
        self._registered = asyncio.Event()
        self._unfenced = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._interval_s = config.broker_heartbeat_interval_ms / 1000
        self._prefix = f"[BrokerLifecycleManager id={self.broker_id}]"

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="broker-lifecycle")

    async def wait_for_unfence(self, timeout_s: float) -> bool:
        """Wait until the controller has unfenced this broker; False on timeout."""
        try:
            await asyncio.wait_for(self._unfenced.wait(), timeout_s)
            return True
        except TimeoutError:
            return False

    async def stop(self, *, controlled: bool = True) -> None:
        """Stop heartbeating; with ``controlled``, first tell the controller we shut down."""
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
        if controlled and self.broker_epoch >= 0:
            try:
                await self._channel.send(
                    BrokerHeartbeatRequest(
                        broker_id=self.broker_id, broker_epoch=self.broker_epoch, want_fence=True, want_shut_down=True
                    ),
                    timeout_ms=2000,
                )
            except KafkaError as exc:
                logger.info("%s Shutdown heartbeat not delivered: %s", self._prefix, exc)

    async def _register(self) -> None:
        host, port = self._config.advertised_listener
        request = BrokerRegistrationRequest(
            broker_id=self.broker_id,
            cluster_id=self._config.cluster_id,
            incarnation_id=self.incarnation_id,
            listeners=[BrokerRegistrationListener(name="PLAINTEXT", host=host, port=port)],
            rack=self._config.broker_rack,
        )
        response = await self._channel.send(request)
        if response.error_code != Errors.NONE:
            raise KafkaError(f"registration refused: {response.error_code} {response.error_message or ''}")
        self.broker_epoch = response.broker_epoch
        self._registered.set()
        logger.info("%s Registered with broker epoch %d", self._prefix, self.broker_epoch)

    async def _heartbeat(self) -> None:
        response = await self._channel.send(
            BrokerHeartbeatRequest(broker_id=self.broker_id, broker_epoch=self.broker_epoch, want_fence=False)
        )
        if response.error_code in (Errors.STALE_BROKER_EPOCH, Errors.BROKER_ID_NOT_REGISTERED):
            logger.warning("%s Heartbeat refused (%d); registering again", self._prefix, response.error_code)
            self.broker_epoch = -1
            self._registered.clear()
            return
        if response.error_code != Errors.NONE:
            logger.warning("%s Heartbeat error %d", self._prefix, response.error_code)
            return
        if self.is_fenced != response.is_fenced:
            logger.info("%s Broker is now %s", self._prefix, "fenced" if response.is_fenced else "unfenced")
        self.is_fenced = response.is_fenced
        if not self.is_fenced:
            self._unfenced.set()
        else:
            self._unfenced.clear()

    async def _run(self) -> None:
        backoff = 0.1
        while True:
            try:
                if self.broker_epoch < 0:
                    await self._register()
                await self._heartbeat()
                backoff = 0.1
                delay = self._interval_s if not self.is_fenced else min(self._interval_s, 0.1)
            except KafkaError as exc:
                logger.warning("%s Controller not reachable: %s", self._prefix, exc)
                delay = backoff
                backoff = min(backoff * 2, self._interval_s)
            except Exception:
                logger.exception("%s Unexpected error; retrying", self._prefix)
                delay = self._interval_s
            await asyncio.sleep(delay)
