"""Dependencies run one way: protocol/ at the bottom, common/ (the servers' shared floor, Kafka's
server-common, and the network layer) above it, broker/ and controller/ above that and neither
importing the other nor the SDK, client/ (the SDK) beside them on protocol/ and common/, the CLI on
top.

Every ``import`` and ``from ... import`` of every module (also those inside functions and
``TYPE_CHECKING`` blocks) is read with ``ast`` and checked against the allowed edges.
``broker/server.py`` composes a node's roles (Kafka's ``KafkaRaftServer``) and is the one
module that may import both; the CLI starts brokers.  ``controller/raft/`` is Kafka's raft
module: it imports nothing of the controller (the record encoding is handed to it, Kafka's
``RecordSerde``).  ``protocol/`` is only the language: no asyncio, sockets or file I/O.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# I/O that the protocol (pure code) never does: the network layer lives in kafkette.common.network
IO_MODULES = (
    "asyncio",
    "socket",
    "selectors",
    "ssl",
    "uvloop",
    "aiofiles",
    "io",
    "os",
    "pathlib",
    "shutil",
    "tempfile",
    "mmap",
)

# folder (or sub-folder) -> the modules its modules must not import
FORBIDDEN = {
    "protocol": ("kafkette.client", "kafkette.common", "kafkette.broker", "kafkette.controller", *IO_MODULES),
    "common": ("kafkette.client", "kafkette.broker", "kafkette.controller"),
    "client": ("kafkette.broker", "kafkette.controller"),
    "broker": ("kafkette.controller", "kafkette.client"),
    "controller": ("kafkette.broker", "kafkette.client"),
    "controller/raft": ("kafkette.controller",),
}
# modules that compose or start nodes: (module path, the imports it may make of the forbidden ones)
ALLOWED = {
    "broker/server.py": ("kafkette.controller",),
    "client/cli/broker.py": ("kafkette.broker.server",),
}
# the raft module may import itself
OWN = {"controller/raft": "kafkette.controller.raft"}


def _imports(path: Path) -> list[str]:
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def _violations(folder: str) -> list[str]:
    found = []
    own = OWN.get(folder)
    for path in sorted((REPO / folder).rglob("*.py")):
        relative = path.relative_to(REPO).as_posix()
        allowed = ALLOWED.get(relative, ())
        for name in _imports(path):
            if own and (name == own or name.startswith(own + ".")):
                continue
            for forbidden in FORBIDDEN[folder]:
                if (name == forbidden or name.startswith(forbidden + ".")) and not name.startswith(
                    allowed or ("\0",)
                ):
                    found.append(f"{relative} imports {name}")
    return found


@pytest.mark.parametrize("folder", sorted(FORBIDDEN))
def test_package_imports_only_what_lies_below_it(folder):
    assert _violations(folder) == []


def test_the_checker_sees_an_import_inside_a_function(tmp_path, monkeypatch):
    module = tmp_path / "controller" / "bad.py"
    module.parent.mkdir()
    module.write_text(
        "def f():\n    from kafkette.broker.config import KafkaConfig\n    return KafkaConfig\n"
    )
    monkeypatch.setattr(f"{__name__}.REPO", tmp_path)
    assert _violations("controller") == ["controller/bad.py imports kafkette.broker.config"]


# one planted violation per rule: (file written under tmp_path, its source, the folder checked, the finding)
PLANTED = [
    ("protocol/bad.py", "import asyncio\n", "protocol", "protocol/bad.py imports asyncio"),
    ("protocol/bad.py", "from pathlib import Path\n", "protocol", "protocol/bad.py imports pathlib"),
    (
        "protocol/bad.py",
        "from kafkette.common.clock import Time\n",
        "protocol",
        "protocol/bad.py imports kafkette.common.clock",
    ),
    (
        "common/bad.py",
        "from kafkette.client.admin import AdminClient\n",
        "common",
        "common/bad.py imports kafkette.client.admin",
    ),
    (
        "common/bad.py",
        "import kafkette.broker.partition\n",
        "common",
        "common/bad.py imports kafkette.broker.partition",
    ),
    (
        "client/bad.py",
        "from kafkette.controller.quorum_controller import QuorumController\n",
        "client",
        "client/bad.py imports kafkette.controller.quorum_controller",
    ),
    (
        "broker/bad.py",
        "from kafkette.client.producer import Producer\n",
        "broker",
        "broker/bad.py imports kafkette.client.producer",
    ),
    (
        "broker/bad.py",
        "from kafkette.controller.controller_context import ControllerContext\n",
        "broker",
        "broker/bad.py imports kafkette.controller.controller_context",
    ),
    (
        "controller/bad.py",
        "from kafkette.client.admin import AdminClient\n",
        "controller",
        "controller/bad.py imports kafkette.client.admin",
    ),
    (
        "controller/raft/bad.py",
        "from kafkette.controller.metadata_records import encode\n",
        "controller/raft",
        "controller/raft/bad.py imports kafkette.controller.metadata_records",
    ),
]


@pytest.mark.parametrize(("relative", "source", "folder", "finding"), PLANTED, ids=[p[3] for p in PLANTED])
def test_each_rule_fails_on_a_planted_violation(tmp_path, monkeypatch, relative, source, folder, finding):
    module = tmp_path / relative
    module.parent.mkdir(parents=True)
    module.write_text(source)
    monkeypatch.setattr(f"{__name__}.REPO", tmp_path)
    assert _violations(folder) == [finding]


def test_the_raft_module_may_import_itself(tmp_path, monkeypatch):
    module = tmp_path / "controller" / "raft" / "fine.py"
    module.parent.mkdir(parents=True)
    module.write_text("from kafkette.controller.raft.quorum_state import QuorumState\n")
    monkeypatch.setattr(f"{__name__}.REPO", tmp_path)
    assert _violations("controller/raft") == []
