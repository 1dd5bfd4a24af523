"""Registers the broker with the controller and keeps its session alive with heartbeats.

Owns: the registration (broker epoch, incarnation id) and one heartbeat task.  The
broker is fenced until the controller unfences it after a heartbeat; a heartbeat
answered with STALE_BROKER_EPOCH or BROKER_ID_NOT_REGISTERED (the controller
restarted or fenced us for good) triggers a new registration.  On a clean shutdown
the last heartbeat carries ``want_shut_down`` so the controller fences the broker
and moves its leaderships at once instead of waiting for the session to lapse.
Before that, ``controlled_shutdown`` asks the controller (ControlledShutdown) to move
this broker's leaderships away while it still serves, retrying while partitions
remain (``controlled.shutdown.max.retries``, ``controlled.shutdown.retry.backoff.ms``).
Every heartbeat (v1) carries the replicas whose log is offline here, the whole set;
when a log goes offline (``propagate_offline_replica``) the next heartbeat goes out
at once, so the controller moves leadership away and drops the replica from the ISR
(KIP-858's ``OfflineLogDirs``, Kafka's ``propagateDirectoryFailure``).

Kafka concept: ``BrokerLifecycleManager`` (KIP-631) and ``KafkaServer.controlledShutdown``.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable, Sequence

from kafkette.broker.broker_features import SUPPORTED_FEATURES
from kafkette.broker.config import KafkaConfig
from kafkette.broker.node_to_controller_channel import NodeToControllerChannelManager
from kafkette.common.background_tasks import ShutdownableTask
from kafkette.common.config_def import ConfigError
from kafkette.protocol.apis.broker_registration import (
    BrokerHeartbeatOfflineReplicaTopic,
    BrokerHeartbeatRequest,
    BrokerRegistrationFeature,
    BrokerRegistrationListener,
    BrokerRegistrationRequest,
)
from kafkette.protocol.apis.controlled_shutdown import ControlledShutdownRequest
from kafkette.protocol.errors import Errors, KafkaError, is_retriable
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)
REGISTRATION_MAX_BACKOFF_S = 0.2  # retry bound of BrokerRegistration while no controller answers


class BrokerLifecycleManager:
    """Registration and heartbeats of one broker.

    Args:
        config: broker config (node id, advertised listener, rack, heartbeat interval).
        channel: the channel to the controller.
        offline_replicas: returns the partitions whose log is offline here (default none).
        fatal_fault_handler: called when the controller refuses this broker for good (its
            ``cluster.id`` is another cluster's: INCONSISTENT_CLUSTER_ID); heartbeats stop.
    """

    def __init__(
        self,
        config: KafkaConfig,
        channel: NodeToControllerChannelManager,
        offline_replicas: Callable[[], Sequence[TopicPartition]] = list,
        fatal_fault_handler: Callable[[BaseException], None] | None = None,
    ) -> None:
        self._config = config
        self._fatal_fault_handler = fatal_fault_handler
        self._channel = channel
        self._offline_replicas = offline_replicas
        self._heartbeat_now = asyncio.Event()
        self.broker_id = config.node_id
        self.incarnation_id = uuid.uuid4().bytes  # Kafka's Uuid.randomUuid()
        self.broker_epoch = -1
        self.is_fenced = True
        self._registered = asyncio.Event()
        self._interval_s = config.broker_heartbeat_interval_ms / 1000
        self._prefix = f"[BrokerLifecycleManager id={self.broker_id}]"
        self._task = ShutdownableTask("broker-lifecycle", log_prefix=self._prefix)
        # (listener name, advertised host, port) of every listener served, the kafkette one first;
        # set by the server once bound (empty: the advertised kafkette listener alone)
        self.listeners: list[tuple[str, str, int]] = []

    def start(self) -> None:
        """Start the task that registers this broker and heartbeats."""
        self._task.start(self._run)

    def propagate_offline_replica(self, tp: TopicPartition) -> None:
        """A log went offline: send the next heartbeat (with every offline replica) now.

        Args:
            tp: the partition whose log went offline (logged; the heartbeat reads the full set).
        """
        logger.warning("%s The log of %s went offline; reporting it to the controller", self._prefix, tp)
        self._heartbeat_now.set()

    def _offline_replica_topics(self) -> list[BrokerHeartbeatOfflineReplicaTopic]:
        by_topic: dict[str, list[int]] = {}
        for tp in self._offline_replicas():
            by_topic.setdefault(tp.topic, []).append(tp.partition)
        return [
            BrokerHeartbeatOfflineReplicaTopic(topic_name=t, partitions=sorted(p))
            for t, p in sorted(by_topic.items())
        ]

    async def stop(self, *, controlled: bool = True) -> None:
        """Stop heartbeating; with ``controlled``, first tell the controller we shut down."""
        await self._task.shutdown()
        if controlled and self.broker_epoch >= 0:
            try:
                await self._channel.send(
                    BrokerHeartbeatRequest(
                        broker_id=self.broker_id,
                        broker_epoch=self.broker_epoch,
                        current_metadata_offset=-1,
                        want_fence=True,
                        want_shut_down=True,
                        offline_replicas=self._offline_replica_topics(),
                    ),
                    timeout_ms=2000,
                )
            except KafkaError as exc:
                logger.info("%s Shutdown heartbeat not delivered: %s", self._prefix, exc)

    async def controlled_shutdown(
        self,
        *,
        max_retries: int,
        retry_backoff_ms: int,
        timeout_ms: int,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> bool:
        """Ask the controller to move this broker's leaderships away before it stops.

        Sends ControlledShutdown(broker_id, broker_epoch) up to ``max_retries`` times
        (at least once), waiting ``retry_backoff_ms`` after a failed attempt: a
        failure is an unreachable controller, a retriable error code (NOT_CONTROLLER,
        ...), or a non-empty ``remaining_partitions`` (leaderships the controller could
        not move yet).  A non-retriable error code (STALE_BROKER_EPOCH,
        UNKNOWN_SERVER_ERROR, ...) ends the attempts at once.
        Heartbeats go on meanwhile, so the broker stays unfenced and keeps serving.

        Args:
            max_retries: ``controlled.shutdown.max.retries`` (attempts; 0 counts as 1).
            retry_backoff_ms: ``controlled.shutdown.retry.backoff.ms``.
            timeout_ms: bound on the whole procedure (ms); each attempt's request
                timeout is cut to the time left.
            sleep: ``asyncio.sleep`` (injected by tests).

        Returns:
            True when the controller reported no remaining partitions; False when the
            broker was never registered, or retries or time ran out (the broker then
            stops anyway, an unclean leadership change for what remains).
        """
        if self.broker_epoch < 0:
            logger.info("%s Not registered; skipping controlled shutdown", self._prefix)
            return False
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_ms / 1000
        attempts = max(1, max_retries)
        for attempt in range(1, attempts + 1):
            left_ms = int((deadline - loop.time()) * 1000)
            if left_ms <= 0:
                break
            request = ControlledShutdownRequest(broker_id=self.broker_id, broker_epoch=self.broker_epoch)
            try:
                response = await self._channel.send(request, timeout_ms=left_ms)
            except KafkaError as exc:
                logger.warning(
                    "%s Controlled shutdown attempt %d/%d failed: %s", self._prefix, attempt, attempts, exc
                )
            else:
                if response.error_code == Errors.NONE and not response.remaining_partitions:
                    logger.info("%s Controlled shutdown succeeded", self._prefix)
                    return True
                if response.error_code != Errors.NONE:
                    logger.warning(
                        "%s Controlled shutdown attempt %d/%d refused with error %d",
                        self._prefix,
                        attempt,
                        attempts,
                        response.error_code,
                    )
                    if not is_retriable(response.error_code):
                        break  # e.g. STALE_BROKER_EPOCH or a controller without the API: retrying cannot help
                else:
                    remaining = [f"{p.topic_name}-{p.partition_index}" for p in response.remaining_partitions]
                    logger.info(
                        "%s Controlled shutdown attempt %d/%d: %d partitions still led here: %s",
                        self._prefix,
                        attempt,
                        attempts,
                        len(remaining),
                        remaining[:20],
                    )
            if attempt < attempts:
                backoff_s = min(retry_backoff_ms / 1000, max(0.0, deadline - loop.time()))
                await sleep(backoff_s)
        logger.warning(
            "%s Controlled shutdown did not complete; proceeding with an unclean shutdown", self._prefix
        )
        return False

    async def _register(self) -> None:
        host, port = self._config.advertised_listener
        listeners = self.listeners or [("PLAINTEXT", host, port)]
        request = BrokerRegistrationRequest(
            broker_id=self.broker_id,
            cluster_id=self._config.cluster_id,
            incarnation_id=self.incarnation_id,
            listeners=[BrokerRegistrationListener(name=name, host=h, port=p) for name, h, p in listeners],
            features=_registration_features(),
            rack=self._config.broker_rack,
        )
        response = await self._channel.send(request)
        if response.error_code == Errors.INCONSISTENT_CLUSTER_ID:
            raise ConfigError(
                f"Invalid value for configuration cluster.id: {self._config.cluster_id!r} is not the "
                f"controller's cluster ({response.error_message or 'INCONSISTENT_CLUSTER_ID'})"
            )
        if response.error_code != Errors.NONE:
            raise KafkaError(f"registration refused: {response.error_code} {response.error_message or ''}")
        self.broker_epoch = response.broker_epoch
        self._registered.set()
        logger.info("%s Registered with broker epoch %d", self._prefix, self.broker_epoch)

    async def _heartbeat(self) -> None:
        response = await self._channel.send(
            BrokerHeartbeatRequest(
                broker_id=self.broker_id,
                broker_epoch=self.broker_epoch,
                current_metadata_offset=-1,
                want_fence=False,
                offline_replicas=self._offline_replica_topics(),
            )
        )
        if response.error_code in (Errors.STALE_BROKER_EPOCH, Errors.BROKER_ID_NOT_REGISTERED):
            logger.warning("%s Heartbeat refused (%d); registering again", self._prefix, response.error_code)
            self.broker_epoch = -1
            self._registered.clear()
            return
        if response.error_code != Errors.NONE:
            logger.warning("%s Heartbeat error %d", self._prefix, response.error_code)
            return
        if self.is_fenced != response.is_fenced:  # LocalCluster waits for "Broker is now unfenced"
            logger.info("%s Broker is now %s", self._prefix, "fenced" if response.is_fenced else "unfenced")
        self.is_fenced = response.is_fenced

    async def _run(self) -> None:
        backoff = 0.1
        while True:
            self._heartbeat_now.clear()  # the heartbeat below carries every offline replica known now
            try:
                if self.broker_epoch < 0:
                    await self._register()
                await self._heartbeat()
                backoff = 0.1
                delay = self._interval_s if not self.is_fenced else min(self._interval_s, 0.1)
            except ConfigError as exc:  # this broker belongs to another cluster: it cannot run here
                logger.error("%s %s", self._prefix, exc)
                if self._fatal_fault_handler is not None:
                    self._fatal_fault_handler(exc)
                return
            except KafkaError as exc:
                logger.warning("%s Controller not reachable: %s", self._prefix, exc)
                delay = backoff
                # an unregistered broker keeps asking often: the quorum elects its first leader
                # a second or so after a cold start, and the broker serves once registered
                backoff = min(
                    backoff * 2, self._interval_s if self.broker_epoch >= 0 else REGISTRATION_MAX_BACKOFF_S
                )
            except Exception:
                logger.exception("%s Unexpected error; retrying", self._prefix)
                delay = self._interval_s
            try:  # a log going offline cuts the wait short
                await asyncio.wait_for(self._heartbeat_now.wait(), delay)
            except TimeoutError:
                pass


def _registration_features() -> list[BrokerRegistrationFeature]:
    """The features this broker supports, as BrokerRegistration v0 carries them: Kafka leaves out
    those whose lowest supported level is 0 before v4."""
    return [
        BrokerRegistrationFeature(name=name, min_supported_version=low, max_supported_version=high)
        for name, (low, high) in SUPPORTED_FEATURES.items()
        if low > 0
    ]
