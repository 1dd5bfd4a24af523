"""Kafka tool flags that ``kafkette`` does not take, and what to use instead.

Owns: ``KAFKA_FLAG_ADVICE`` (a flag of kafka-topics.sh, kafka-configs.sh,
kafka-console-producer.sh, kafka-console-consumer.sh or the perf tools -> one sentence
naming kafkette's way, or why it does not exist yet) and ``advice_for`` (the one-line
error the CLI prints instead of click's bare "No such option").  Flags kafkette does
take are declared on the commands themselves; README.md's table maps the two.
"""

from __future__ import annotations

KAFKA_FLAG_ADVICE: dict[str, str] = {
    "--zookeeper": "ZooKeeper is gone (as in Kafka 4); use --bootstrap-server HOST:PORT",
    "--bootstrap-controller": "use --bootstrap-server; brokers route controller requests",
    "--create": "kafka-topics.sh's action flags are subcommands: kafkette topics create --topic NAME",
    "--list": "kafka-topics.sh's action flags are subcommands: kafkette topics list",
    "--describe": "action flags are subcommands: kafkette topics describe or kafkette configs describe",
    "--alter": "action flags are subcommands: kafkette topics alter or kafkette configs alter",
    "--delete": "action flags are subcommands: kafkette topics delete --topic NAME",
    "--group": "consumer groups are not supported yet; use --partition and --offset",
    "--isolation-level": "transactions are not supported yet: every read is read_uncommitted",
    "--formatter": "only Kafka's DefaultMessageFormatter exists; choose fields with --property print.*=true",
    "--key-deserializer": "keys are printed as their bytes",
    "--value-deserializer": "values are printed as their bytes",
    "--include": "consume one --topic at a time",
    "--whitelist": "consume one --topic at a time",
    "--timeout": "use --timeout-ms",
    "--sync": "use --request-required-acks all (or --acks all)",
    "--message-send-max-retries": "the producer retries until delivery.timeout.ms: --producer-property delivery.timeout.ms=N",
    "--retry-backoff-ms": "use --producer-property retry.backoff.ms=N",
    "--max-memory-bytes": "use --producer-property buffer.memory=N",
    "--max-partition-memory-bytes": "use --batch-size N",
    "--request-timeout-ms-config": "use --request-timeout-ms",
    "--entity-default": "cluster-wide defaults are set in each broker's server.properties",
    "--add-config-file": "use --add-config k=v,k2=v2",
    "--producer.config": "this command is not a producer; use --command-config FILE",
    "--consumer.config": "this command is not a consumer; use --command-config FILE",
    "--producer-property": "this command is not a producer; use --command-config FILE",
    "--consumer-property": "this command is not a consumer; use --command-config FILE",
    "--reporting-interval": "kafkette perf prints one summary at the end (and a progress line on a terminal)",
    "--print-metrics": "client metrics are not exported yet",
    "--producer-props": "use --command-config FILE (client properties) or the flags of kafkette perf produce",
    "--payload-file": "use --record-size N (random payloads)",
    "--topic-id": "topics are named with --topic NAME",
}


def advice_for(flag: str, command_path: str) -> str | None:
    """The one-line error for a Kafka flag ``command_path`` does not take, or None.

    Args:
        flag: the option as typed (``--zookeeper``).
        command_path: the command it was given to (``kafkette topics create``).
    """
    advice = KAFKA_FLAG_ADVICE.get(flag)
    if advice is None:
        return None
    return f"{command_path} does not take Kafka's {flag}: {advice}"
