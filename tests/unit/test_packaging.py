"""The one-namespace layout: pyproject.toml installs exactly the repository's packages under ``kafkette``.

The folders ``broker/``, ``client/``, ``controller/`` and ``protocol/`` are mapped to
``kafkette.broker`` ... and ``client/kafkette/`` to ``kafkette`` itself; pyproject.toml
lists every package, so a new sub-package that is not listed would be missing from
the wheel.  These tests compare that list with the folders.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import kafkette
import kafkette.client

REPO = Path(__file__).resolve().parents[2]
FOLDERS = ("broker", "client", "controller", "protocol")
ROOT_FOLDER = Path("client") / "kafkette"


def _setuptools() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]


def _packages_on_disk() -> set[str]:
    names = {"kafkette"}
    for folder in FOLDERS:
        for init in (REPO / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(REPO)
            if relative == ROOT_FOLDER or ROOT_FOLDER in relative.parents:
                continue
            names.add("kafkette." + ".".join(relative.parts))
    return names


def test_pyproject_lists_every_package_folder_under_the_kafkette_namespace():
    assert sorted(_setuptools()["packages"]) == sorted(_packages_on_disk())


def test_package_dirs_map_the_four_folders_and_the_namespace_root():
    assert _setuptools()["package-dir"] == {
        "kafkette": "client/kafkette",
        "kafkette.broker": "broker",
        "kafkette.client": "client",
        "kafkette.controller": "controller",
        "kafkette.protocol": "protocol",
    }


def test_namespace_root_ships_a_pep_561_marker():
    assert (REPO / ROOT_FOLDER / "py.typed").is_file()
    assert _setuptools()["package-data"]["kafkette"] == ["py.typed"]


def test_kafkette_exports_the_public_api_of_the_client_package():
    for name in ("AdminClient", "Producer", "Consumer", "NewTopic", "TopicPartition", "LocalCluster",
                 "NotLeaderOrFollowerError", "KafkaError"):
        assert name in kafkette.__all__
        assert getattr(kafkette, name) is getattr(kafkette.client, name)
    assert sorted(kafkette.__all__) == sorted(kafkette.client.__all__)


def test_console_script_points_into_the_namespace():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["scripts"] == {"kafkette": "kafkette.client.cli.main:main"}
