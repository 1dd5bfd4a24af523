"""README.md stands alone: it points at nothing outside the repository, and what it names exists.

A clone of the repository is all a reader has: no link may leave it (``../``), every
repository path the README names is there, every ``make`` target it shows is in the
Makefile, every ``python -m`` module it shows imports, and every ``import`` line of its
Python examples imports from the ``kafkette`` namespace.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text()
TOP_LEVEL = ("broker/", "client/", "controller/", "protocol/", "tests/", ".ci/")


def test_readme_has_no_link_outside_the_repository():
    assert "../" not in README
    for target in re.findall(r"\]\(([^)]+)\)", README):
        assert target.startswith(("http://", "https://", "#")) or (REPO / target).exists(), target


def test_every_repository_path_the_readme_names_exists():
    named = {m for m in re.findall(r"`([\w./-]+)`", README) if m.startswith(TOP_LEVEL)}
    assert named, "the README names no repository path"
    assert sorted(p for p in named if not (REPO / p).exists()) == []


def test_every_make_target_the_readme_shows_is_in_the_makefile():
    makefile = (REPO / "Makefile").read_text()
    targets = set(re.findall(r"^([\w-]+):", makefile, re.M))
    shown = set(re.findall(r"`?make ([a-z][\w-]*)", README))
    assert shown and shown <= targets, sorted(shown - targets)


def test_every_python_dash_m_module_the_readme_shows_imports():
    modules = set(re.findall(r"python -m ([\w.]+)", README))
    assert "kafkette.broker" in modules
    for module in modules:
        assert importlib.util.find_spec(module) is not None, module


def test_readme_examples_import_only_from_the_kafkette_namespace():
    imports = re.findall(r"^(?:from|import) ([\w.]+)", README, re.M)
    ours = [
        m for m in imports if m.split(".")[0] in ("kafkette", "client", "broker", "controller", "protocol")
    ]
    assert ours and all(m.split(".")[0] == "kafkette" for m in ours), ours
