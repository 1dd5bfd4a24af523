"""Network namespaces for the chaos harness: every node, and the clients, on a host of their own.

``NamespaceNetwork`` makes one Linux network namespace per node and one for the clients, each
with a veth link into a bridge that lives in a namespace of its own (the switch), and an
address ``10.213.0.<n>/24`` there (the clients ``10.213.0.250``).  Nothing is added to the
machine's own namespace: the harness's clients run in a thread that entered the clients'
namespace (``setns(2)``, which is per thread), and each broker is started with
``ip netns exec <its namespace>``.  A broker binds ``0.0.0.0`` in its namespace and publishes
its address with ``advertised.listeners``, so nothing depends on 127.0.0.1.

Network partitions are blackhole routes: ``cut(a, b)`` adds a route to ``b``'s address in
``a``'s namespace that drops every packet and the reverse in ``b``'s, so that packets both ways
vanish (connections stall until their timeouts, as a pulled cable does, instead of being reset).
``heal`` deletes them.  Kafka concept: Trogdor's ``NetworkPartitionFaultSpec``; Jepsen's
``partition`` nemesis.

Needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN) and ``ip`` (iproute2); ``available()`` says why not.
"""

from __future__ import annotations

import ctypes
import ipaddress
import logging
import os
import secrets
import shutil
import subprocess
import threading
from collections.abc import Callable
from typing import TypeVar

logger = logging.getLogger(__name__)

SUBNET = ipaddress.ip_network("10.213.0.0/24")
CLIENTS = "clients"  # the clients' end, in cut() and heal()
CLIENT_HOST_INDEX = 250
CLONE_NEWNET = 0x40000000
T = TypeVar("T")


class NamespaceError(RuntimeError):
    """A namespace, link or route could not be made (the message has ``ip``'s error)."""


def available() -> str | None:
    """None when namespaces can be made here, else why not (for a clear skip or failure)."""
    if shutil.which("ip") is None:
        return "the ip command (iproute2) is not installed"
    if os.geteuid() != 0:
        return "network namespaces need root"
    name = f"kt-probe-{secrets.token_hex(3)}"
    probe = subprocess.run(["ip", "netns", "add", name], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"ip netns add failed: {probe.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", name], capture_output=True)
    return None


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30)
    if check and done.returncode != 0:
        raise NamespaceError(f"ip {' '.join(args)}: {done.stderr.strip()}")
    return done


class NamespaceNetwork:
    """One namespace per node and one for the clients, joined by a bridge.

    Args:
        node_ids: the cluster's node ids (each gets ``10.213.0.<index + 1>``).

    Use as ``with NamespaceNetwork(ids) as net:``; leaving removes every namespace it made
    (which also removes its links and routes).
    """

    def __init__(self, node_ids: list[int]) -> None:
        if len(node_ids) >= CLIENT_HOST_INDEX - 1:
            raise ValueError(f"at most {CLIENT_HOST_INDEX - 2} nodes")
        self.tag = secrets.token_hex(3)
        self.node_ids = list(node_ids)
        hosts = list(SUBNET.hosts())
        self.addresses: dict[int | str, str] = {n: str(hosts[i]) for i, n in enumerate(self.node_ids)}
        self.addresses[CLIENTS] = str(hosts[CLIENT_HOST_INDEX - 1])
        self.cuts: set[frozenset[int | str]] = set()
        self._made: list[str] = []

    def namespace(self, end: int | str) -> str:
        """The namespace name of a node id, or of ``CLIENTS``."""
        return f"kt-{self.tag}-{'c' if end == CLIENTS else f'n{end}'}"

    @property
    def switch(self) -> str:
        return f"kt-{self.tag}-sw"

    def hosts(self) -> dict[int, str]:
        """``{node id: address}`` for ``LocalCluster(hosts=...)``."""
        return {n: self.addresses[n] for n in self.node_ids}

    def command_prefix(self) -> dict[int, list[str]]:
        """``{node id: ["ip", "netns", "exec", ns]}`` for ``LocalCluster(command_prefix=...)``."""
        return {n: ["ip", "netns", "exec", self.namespace(n)] for n in self.node_ids}

    # --- set-up and tear-down ----------------------------------------------------------

    def create(self) -> NamespaceNetwork:
        """Make the switch, the namespaces, their links and addresses.

        Raises:
            NamespaceError: an ``ip`` command failed (what was made is removed).
        """
        try:
            _ip("netns", "add", self.switch)
            self._made.append(self.switch)
            _ip("-n", self.switch, "link", "add", "br0", "type", "bridge")
            _ip("-n", self.switch, "link", "set", "br0", "up")
            for index, end in enumerate([*self.node_ids, CLIENTS]):
                ns = self.namespace(end)
                _ip("netns", "add", ns)
                self._made.append(ns)
                port = f"p{index}"
                _ip(
                    "-n",
                    ns,
                    "link",
                    "add",
                    "eth0",
                    "type",
                    "veth",
                    "peer",
                    "name",
                    port,
                    "netns",
                    self.switch,
                )
                _ip("-n", self.switch, "link", "set", port, "master", "br0")
                _ip("-n", self.switch, "link", "set", port, "up")
                _ip("-n", ns, "addr", "add", f"{self.addresses[end]}/{SUBNET.prefixlen}", "dev", "eth0")
                _ip("-n", ns, "link", "set", "eth0", "up")
                _ip("-n", ns, "link", "set", "lo", "up")
        except BaseException:
            self.destroy()
            raise
        logger.info("[NamespaceNetwork] %s: nodes %s", self.tag, self.hosts())
        return self

    def destroy(self) -> None:
        """Remove every namespace this network made (idempotent)."""
        for ns in reversed(self._made):
            _ip("netns", "del", ns, check=False)
        self._made.clear()
        self.cuts.clear()

    def __enter__(self) -> NamespaceNetwork:
        return self.create()

    def __exit__(self, *exc: object) -> None:
        self.destroy()

    # --- faults ------------------------------------------------------------------------

    def cut(self, a: int | str, b: int | str) -> None:
        """Drop every packet between ``a`` and ``b`` (node ids or ``CLIENTS``), both ways.

        Raises:
            NamespaceError: a route could not be added.
        """
        pair = frozenset((a, b))
        if a == b or pair in self.cuts:
            return
        _ip("-n", self.namespace(a), "route", "add", "blackhole", f"{self.addresses[b]}/32")
        _ip("-n", self.namespace(b), "route", "add", "blackhole", f"{self.addresses[a]}/32")
        self.cuts.add(pair)

    def isolate(self, node: int, from_clients: bool = False) -> list[frozenset[int | str]]:
        """Cut ``node`` from every other node (and from the clients when ``from_clients``);
        returns the pairs cut."""
        others: list[int | str] = [n for n in self.node_ids if n != node]
        if from_clients:
            others.append(CLIENTS)
        for other in others:
            self.cut(node, other)
        return [frozenset((node, o)) for o in others]

    def heal(self) -> None:
        """Remove every cut (routes already gone are ignored)."""
        for pair in list(self.cuts):
            a, b = tuple(pair)
            _ip("-n", self.namespace(a), "route", "del", "blackhole", f"{self.addresses[b]}/32", check=False)
            _ip("-n", self.namespace(b), "route", "del", "blackhole", f"{self.addresses[a]}/32", check=False)
            self.cuts.discard(pair)

    # --- the clients' namespace --------------------------------------------------------

    def run_as_client(self, fn: Callable[[], T], timeout_s: float) -> T:
        """Run ``fn()`` in a new thread that entered the clients' namespace; returns its result.

        Every socket ``fn`` opens (and every event loop it runs) lives in that namespace; a
        process it starts does too, unless it enters another one.

        Raises:
            NamespaceError: the thread could not enter the namespace.
            TimeoutError: ``fn`` did not return within ``timeout_s`` seconds (it keeps running).
            whatever ``fn`` raised.
        """
        outcome: dict[str, object] = {}

        def body() -> None:
            try:
                _enter(self.namespace(CLIENTS))
                outcome["result"] = fn()
            except BaseException as exc:  # handed to the caller below
                outcome["error"] = exc

        thread = threading.Thread(target=body, name=f"netns-{self.tag}-clients", daemon=True)
        thread.start()
        thread.join(timeout_s)
        if thread.is_alive():
            raise TimeoutError(f"the clients' work did not finish within {timeout_s:.0f} s")
        if "error" in outcome:
            raise outcome["error"]  # type: ignore[misc]
        return outcome["result"]  # type: ignore[return-value]


def _enter(ns: str) -> None:
    """Move the calling thread into network namespace ``ns`` (``setns(2)``; Python 3.11 has no
    ``os.setns``)."""
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open(f"/run/netns/{ns}", os.O_RDONLY)
    try:
        if libc.setns(fd, CLONE_NEWNET) != 0:
            err = ctypes.get_errno()
            raise NamespaceError(f"setns({ns}): {os.strerror(err)}")
    finally:
        os.close(fd)
