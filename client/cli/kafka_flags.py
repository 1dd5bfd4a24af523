"""Kafka tool flags that ``kafkette`` does not take, and what to use instead.

Owns: ``KAFKA_FLAG_ADVICE`` (a flag of kafka-topics.sh, kafka-configs.sh, kafka-acls.sh,
kafka-console-producer.sh, kafka-console-consumer.sh, kafka-leader-election.sh,
kafka-transactions.sh or the perf tools -> one sentence naming kafkette's way, or why it does
not exist yet),
``COMMAND_FLAG_ADVICE`` (the same for a flag whose advice depends on the command it was
given to: ``--timeout`` is the linger time in kafka-console-producer.sh) and
``advice_for`` (the one-line error ``kafkette.client.cli.main`` prints where click
would print its bare "No such option").  Flags kafkette does take are declared on the
commands themselves; README.md's table maps the two.
"""

from __future__ import annotations

KAFKA_FLAG_ADVICE: dict[str, str] = {
    # every tool
    "--zookeeper": "ZooKeeper is gone (as in Kafka 4); use --bootstrap-server HOST:PORT",
    "--bootstrap-controller": "use --bootstrap-server; brokers route controller requests",
    "--producer.config": (
        "use --command-config FILE (kafkette produce and perf produce also take --producer.config)"
    ),
    "--consumer.config": (
        "use --command-config FILE (kafkette consume and perf consume also take --consumer.config)"
    ),
    "--producer-property": "use --command-config FILE (only kafkette produce takes --producer-property)",
    "--consumer-property": "use --command-config FILE (only kafkette consume takes --consumer-property)",
    "--timeout": "use --timeout-ms",
    "--group": "kafkette consume and kafkette consumer-groups take --group",
    # kafka-topics.sh
    "--create": "kafka-topics.sh's action flags are subcommands: kafkette topics create --topic NAME",
    "--list": "kafka-topics.sh's action flags are subcommands: kafkette topics list",
    "--describe": "action flags are subcommands: kafkette topics describe or kafkette configs describe",
    "--alter": "action flags are subcommands: kafkette topics alter or kafkette configs alter",
    "--delete": "action flags are subcommands: kafkette topics delete --topic NAME",
    "--topic-id": "topics are named with --topic NAME",
    "--topics-with-overrides": "not supported yet; kafkette topics describe prints each topic's overrides "
    "after Configs:",
    "--exclude-internal": "not supported yet; kafkette topics list prints every topic",
    "--at-min-isr-partitions": (
        "not supported yet; use --under-replicated-partitions or --unavailable-partitions"
    ),
    "--under-min-isr-partitions": (
        "not supported yet; use --under-replicated-partitions or --unavailable-partitions"
    ),
    # kafka-configs.sh
    "--entity-default": "only kafkette configs takes --entity-default (users and clients)",
    "--add-config-file": "use --add-config k=v,k2=v2",
    "--user": "only kafkette configs takes --user NAME (user quotas and SCRAM credentials)",
    "--client": "only kafkette configs takes --client CLIENT_ID (client quotas)",
    "--ip": "IP quotas are not supported by kafkette configs yet: --user NAME or --client CLIENT_ID",
    "--client-metrics": "only topic, broker, group, user and client configs exist",
    "--broker-logger": "only topic, broker, group, user and client configs exist",
    "--broker-defaults": "cluster-wide defaults are set in each broker's server.properties",
    # kafka-acls.sh
    "--delegation-token": "delegation tokens are not supported yet: ACLs on --topic, --group, --cluster or "
    "--transactional-id",
    "--user-principal": "delegation tokens are not supported yet: ACLs on --topic, --group, --cluster or "
    "--transactional-id",
    # kafka-console-producer.sh
    "--sync": "use --request-required-acks all (or --acks all)",
    "--metadata-expiry-ms": "use --producer-property metadata.max.age.ms=N",
    "--max-memory-bytes": "use --producer-property buffer.memory=N",
    "--max-partition-memory-bytes": "use --batch-size N",
    "--max-block-ms": "not supported yet (the producer has no max.block.ms)",
    "--socket-buffer-size": "not supported yet (sockets use the system's buffer sizes)",
    "--line-reader": "each stdin line is one record; split keys with --property parse.key=true",
    "--reader-config": "use --property parse.key=true --property key.separator=S",
    "--key-serializer": "keys are sent as the bytes of the line",
    "--value-serializer": "values are sent as the bytes of the line",
    # kafka-console-consumer.sh
    "--formatter": "only Kafka's DefaultMessageFormatter exists; choose fields with --property print.*=true",
    "--formatter-config": "use --property print.key=true (and the other DefaultMessageFormatter properties)",
    "--key-deserializer": "keys are printed as their bytes",
    "--value-deserializer": "values are printed as their bytes",
    "--skip-message-on-error": "records are printed as their bytes, which cannot fail",
    "--include": "consume one --topic at a time",
    "--whitelist": "consume one --topic at a time",
    # kafka-producer-perf-test.sh, kafka-consumer-perf-test.sh
    "--producer-props": "use --command-config FILE (client properties) or the flags of kafkette perf produce",
    "--payload-file": "use --record-size N (random payloads)",
    "--payload-delimiter": "use --record-size N (random payloads)",
    "--transactional-id": (
        "kafkette perf does not run transactions; kafkette produce takes --transactional-id"
    ),
    "--transaction-duration-ms": (
        "kafkette perf does not run transactions; kafkette produce takes --transactional-id and "
        "--transaction-size"
    ),
    "--reporting-interval": "kafkette perf prints one summary at the end (and a progress line on a terminal)",
    "--show-detailed-stats": (
        "kafkette perf prints one summary at the end (and a progress line on a terminal)"
    ),
    "--print-metrics": "client metrics are not exported yet",
    "--from-latest": "kafkette perf consume reads from the earliest offset",
    "--fetch-size": "use --command-config FILE with max.partition.fetch.bytes=N",
    "--threads": "kafkette perf consume is one consumer on one event loop",
    "--num-fetch-threads": "kafkette perf consume is one consumer on one event loop",
    # kafka-leader-election.sh
    "--all-topic-partitions": "kafkette topics elect-leaders without --topic elects every partition",
    "--path-to-json-file": "name the partition with --topic NAME --partition N",
}

# (command path after "kafkette", flag) -> advice; a path names its subcommands too ("topics": every
# topics command).  The longest matching path wins over KAFKA_FLAG_ADVICE.
COMMAND_FLAG_ADVICE: dict[tuple[str, str], str] = {
    (
        "produce",
        "--timeout",
    ): "kafka-console-producer.sh's --timeout is how long a batch waits: use --linger-ms",
    ("perf produce", "--timeout"): "use --request-timeout-ms",
    ("topics", "--timeout"): "use --request-timeout-ms",
    # kafka-transactions.sh takes these before its subcommand; kafkette takes them after it
    ("transactions", "--bootstrap-server"): (
        "give it after the subcommand: kafkette transactions list --bootstrap-server HOST:PORT"
    ),
    ("transactions", "--command-config"): (
        "give it after the subcommand: kafkette transactions list --command-config FILE"
    ),
    ("transactions", "--timeout"): (
        "kafka-transactions.sh has no --timeout either; use --command-config FILE with request.timeout.ms"
    ),
    ("cluster status", "--timeout"): "use --request-timeout-ms",
    ("configs", "--timeout"): "use --request-timeout-ms",
    ("acls", "--timeout"): "use --request-timeout-ms",
    ("metadata-quorum", "--timeout"): "use --request-timeout-ms",
    ("perf consume", "--group"): "perf consume reads every partition without a group; kafkette consume "
    "takes --group",
    ("configs", "--group"): "only topic and broker configs exist (group configs are not supported yet)",
    ("consumer-groups", "--timeout"): "use --request-timeout-ms",
    ("consumer-groups", "--offsets"): "--describe prints the offsets view by default",
    ("consumer-groups", "--to-current"): "not supported yet; --shift-by 0 keeps the committed offsets",
    ("consumer-groups", "--from-file"): "not supported yet; reset with --topic TOPIC:P,P and a --to-* scope",
    ("consumer-groups", "--export"): "not supported yet; --dry-run prints the plan as a table",
    ("consumer-groups", "--verbose"): "not supported yet",
}


def advice_for(flag: str, command_path: str) -> str | None:
    """The one-line error for a Kafka flag ``command_path`` does not take, or None.

    Args:
        flag: the option as typed (``--zookeeper``).
        command_path: the command it was given to (``kafkette topics create``).

    Returns:
        ``"<command_path> does not take Kafka's <flag>: <advice>"``, or None for a flag
        that is not one of Kafka's (click's own message, with its "Did you mean", stays).
    """
    words = command_path.split()[1:]  # without the program name
    paths = (" ".join(words[:n]) for n in range(len(words), 0, -1))  # "perf consume", then "perf"
    advice = next(
        (COMMAND_FLAG_ADVICE[(path, flag)] for path in paths if (path, flag) in COMMAND_FLAG_ADVICE),
        KAFKA_FLAG_ADVICE.get(flag),
    )
    if advice is None:
        return None
    return f"{command_path} does not take Kafka's {flag}: {advice}"
