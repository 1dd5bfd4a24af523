"""Finding a Java runtime for Spark: version parsing and the jdk.incubator.vector shim."""

from __future__ import annotations

import subprocess

from kafkette.client.spark.java_runtime import parse_java_major_version, shim_java_home


def test_java_version_output_is_parsed_to_the_major_version():
    assert parse_java_major_version('openjdk version "17.0.15" 2025-04-15\nOpenJDK Runtime') == 17
    assert parse_java_major_version('openjdk version "21" 2023-09-19') == 21
    assert parse_java_major_version('java version "1.8.0_292"') == 8
    assert parse_java_major_version("bash: java: command not found") is None


def test_shim_drops_only_the_vector_module_argument(tmp_path):
    fake_java = tmp_path / "real-java"
    fake_java.write_text('#!/bin/sh\nfor a do echo "$a"; done\n')
    fake_java.chmod(0o755)

    home = shim_java_home(fake_java, root=tmp_path)
    out = subprocess.run(
        [str(home / "bin" / "java"), "-Xmx1g", "--add-modules=jdk.incubator.vector", "-cp", "a b", "Main"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    ).stdout

    assert out.splitlines() == ["-Xmx1g", "-cp", "a b", "Main"]
    assert shim_java_home(fake_java, root=tmp_path) == home  # made once, then reused
