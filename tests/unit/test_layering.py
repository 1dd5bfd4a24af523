"""Dependencies run one way: protocol at the bottom, the client's core above it, broker and
controller above that and neither importing the other, the CLI on top.

Every ``import`` and ``from ... import`` of every module (also those inside functions and
``TYPE_CHECKING`` blocks) is read with ``ast`` and checked against the allowed edges.
``broker/server.py`` composes a node's roles (Kafka's ``KafkaRaftServer``) and is the one
module that may import both; the CLI and the local cluster launcher start brokers.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# package folder -> the kafkette sub-packages its modules must not import
FORBIDDEN = {
    "protocol": ("kafkette.client", "kafkette.broker", "kafkette.controller"),
    "client": ("kafkette.broker", "kafkette.controller"),
    "broker": ("kafkette.controller",),
    "controller": ("kafkette.broker",),
}
# modules that compose or start nodes: (module path, the imports it may make of the forbidden ones)
ALLOWED = {
    "broker/server.py": ("kafkette.controller",),
    "client/cli/broker.py": ("kafkette.broker.server",),
}


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
    for path in sorted((REPO / folder).rglob("*.py")):
        relative = path.relative_to(REPO).as_posix()
        allowed = ALLOWED.get(relative, ())
        for name in _imports(path):
            for forbidden in FORBIDDEN[folder]:
                if (name == forbidden or name.startswith(forbidden + ".")) and not name.startswith(allowed or ("\0",)):
                    found.append(f"{relative} imports {name}")
    return found


@pytest.mark.parametrize("folder", sorted(FORBIDDEN))
def test_package_imports_only_what_lies_below_it(folder):
    assert _violations(folder) == []


def test_the_checker_sees_an_import_inside_a_function(tmp_path, monkeypatch):
    module = tmp_path / "controller" / "bad.py"
    module.parent.mkdir()
    module.write_text("def f():\n    from kafkette.broker.config import KafkaConfig\n    return KafkaConfig\n")
    monkeypatch.setattr(f"{__name__}.REPO", tmp_path)
    assert _violations("controller") == ["controller/bad.py imports kafkette.broker.config"]
