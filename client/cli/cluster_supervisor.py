"""The foreground ``kafkette cluster start``: watching a running local cluster until it ends.

Owns: ``ClusterSupervisor``, which follows the brokers ``<data-dir>/cluster.json`` records (it
reads the file again every ``POLL_INTERVAL_S``, so a broker that ``kafkette cluster
restart-broker`` started from another shell is followed too), says in one line on stderr when a
broker exits (which one, its process id, its exit code when this process started it, its log),
and ends when no broker of the cluster runs any more (``kafkette cluster stop`` from another
shell, or every broker dead) or when asked to stop (SIGINT, SIGTERM): then it stops every broker
the file records, the voters of the metadata quorum last.  ``kafkette cluster stop`` removes the
file only once its last broker has exited, so brokers that are all gone while the file still names
them count as having exited by themselves only after ``EXITED_GRACE_POLLS`` more reads of it.  Does not own
starting brokers (``LocalCluster``) or the file's format (``kafkette.client.cluster_pid_file``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from kafkette.client.cluster_pid_file import (
    BrokerProcess,
    ClusterPidFile,
    is_alive,
    read_pid_file,
    remove_pid_file,
    running_brokers,
    stop_brokers,
)
from kafkette.client.local_cluster import LocalCluster

POLL_INTERVAL_S = 0.5
# Polls (of POLL_INTERVAL_S: 2 s) that cluster.json may still name brokers which have all exited
# before they count as exited by themselves: `kafkette cluster stop` removes it just after the last.
EXITED_GRACE_POLLS = 4
STOP_TIMEOUT_MS = 30000  # a broker still running this long after its SIGTERM is killed (ms)


class ClusterSupervisor:
    """Follows a started ``LocalCluster`` through its ``cluster.json`` until it ends.

    Args:
        local: the started cluster (its own broker processes give their exit codes).
        record: what ``cluster.json`` recorded when it started.
        echo: writes one line for the user (stderr).
    """

    def __init__(self, local: LocalCluster, record: ClusterPidFile, echo: Callable[[str], None]) -> None:
        self.local = local
        self.record = record
        self._echo = echo
        self._reported: set[tuple[int, int]] = set()  # (node id, pid) whose exit was said
        self._polls_all_exited = 0  # polls in a row that found no recorded broker running

    def run(self, stop: threading.Event) -> int:
        """Watch until ``stop`` is set or no broker runs; then stop what still runs.

        Returns:
            The command's exit code: 0 when stopped on purpose (``stop`` set, or ``kafkette cluster
            stop`` removed ``cluster.json``), 1 when every broker exited by itself.
        """
        try:
            while not stop.wait(POLL_INTERVAL_S):
                ended = self._poll()
                if ended is not None:
                    return ended
            self._echo("Stopping brokers ...")
            return 0
        finally:
            self._stop_all()

    def _poll(self) -> int | None:
        try:
            current = read_pid_file(self.local.data_dir)
        except ValueError:  # being replaced by another command: read it next time
            current = self.record
        for broker in (current or self.record).brokers:
            if (broker.id, broker.pid) not in self._reported and not is_alive(broker):
                self._reported.add((broker.id, broker.pid))
                self._echo(self._exit_line(broker))
        if current is not None:
            self.record = current
        if running_brokers(self.record):
            self._polls_all_exited = 0
            return None
        if current is None:
            self._echo(f"The brokers of {self.local.data_dir} were stopped (kafkette cluster stop); exiting")
            return 0
        self._polls_all_exited += 1
        if self._polls_all_exited < EXITED_GRACE_POLLS:
            return None  # a `kafkette cluster stop` may be about to remove cluster.json
        self._echo(f"Every broker of {self.local.data_dir} has exited; exiting")
        return 1

    def _exit_line(self, broker: BrokerProcess) -> str:
        """``Broker 2 (pid 4242) exited with code -9 (log: D/broker-2/broker.log)``; without the code
        for a process another command started (only its parent learns it)."""
        kind = self.local.node_kind(broker.id).capitalize()
        exit_code = self.local.exit_code(broker.id, broker.pid)
        code = f" with code {exit_code}" if exit_code is not None else ""
        return f"{kind} {broker.id} (pid {broker.pid}) exited{code} (log: {self.local.log_path(broker.id)})"

    def _stop_all(self) -> None:
        """Stop every recorded broker still running (voters last), then this launcher's own children;
        remove ``cluster.json`` unless it now names brokers that run (a cluster started again)."""
        try:
            record = read_pid_file(self.local.data_dir) or self.record
        except ValueError:
            record = self.record
        stop_brokers(record, STOP_TIMEOUT_MS)
        self.local.stop()
        try:
            now = read_pid_file(self.local.data_dir)
        except ValueError:
            return
        if now is not None and not running_brokers(now):
            remove_pid_file(self.local.data_dir)
