"""The one-namespace layout: pyproject.toml installs exactly the repository's packages under ``kafkette``.

Every top-level source folder is one package: ``kafkette/`` is ``kafkette`` itself (only
the public face: ``__init__``, ``__main__``, ``py.typed``), and ``broker/``, ``client/``,
``common/``, ``controller/`` and ``protocol/`` are ``kafkette.broker`` ...; pyproject.toml
lists every package, so a new sub-package that is not listed would be missing from the
wheel.  These tests compare that list with the folders.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import kafkette
import kafkette.client

REPO = Path(__file__).resolve().parents[2]
FOLDERS = ("broker", "client", "common", "controller", "protocol")
ROOT_FOLDER = Path("kafkette")


def _setuptools() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]


def _packages_on_disk() -> set[str]:
    names = {"kafkette"}
    for folder in FOLDERS:
        for init in (REPO / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(REPO)
            names.add("kafkette." + ".".join(relative.parts))
    return names


def test_pyproject_lists_every_package_folder_under_the_kafkette_namespace():
    assert sorted(_setuptools()["packages"]) == sorted(_packages_on_disk())


def test_package_dirs_map_each_top_level_folder_to_its_package():
    assert _setuptools()["package-dir"] == {
        "kafkette": "kafkette",
        "kafkette.broker": "broker",
        "kafkette.client": "client",
        "kafkette.common": "common",
        "kafkette.controller": "controller",
        "kafkette.protocol": "protocol",
    }


def test_namespace_root_ships_a_pep_561_marker():
    assert (REPO / ROOT_FOLDER / "py.typed").is_file()
    assert _setuptools()["package-data"]["kafkette"] == ["py.typed"]


def test_kafkette_exports_the_public_api_of_the_client_package():
    for name in (
        "AdminClient",
        "Producer",
        "Consumer",
        "NewTopic",
        "TopicPartition",
        "LocalCluster",
        "NotLeaderOrFollowerError",
        "KafkaError",
    ):
        assert name in kafkette.__all__
        assert getattr(kafkette, name) is getattr(kafkette.client, name)
    assert sorted(kafkette.__all__) == sorted(kafkette.client.__all__)


def test_console_script_points_into_the_namespace():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["scripts"] == {"kafkette": "kafkette.client.cli.main:main"}


def test_the_namespace_root_holds_only_the_public_face():
    assert sorted(path.name for path in (REPO / ROOT_FOLDER).iterdir() if path.name != "__pycache__") == [
        "__init__.py",
        "__main__.py",
        "py.typed",
    ]


def test_every_top_level_source_folder_is_one_kafkette_package():
    folders = {path.name for path in REPO.iterdir() if (path / "__init__.py").is_file()} - {"tests"}
    assert folders == {"kafkette", *FOLDERS}
