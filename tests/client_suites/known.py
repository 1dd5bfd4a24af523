"""librdkafka tests that pass against Apache Kafka and not (yet) against Kafkette, each with its
reason: ``NOT_OFFERED`` (a feature Kafkette's Kafka listener does not offer) and
``KNOWN_FAILURES`` (a gap being closed).  ``tests.client_suites.run`` fails on any other test that
passes on Kafka and fails on Kafkette.  Keys are test-name prefixes (``0103`` or
``0081_admin``), matched against the test's full name.
"""

from __future__ import annotations

_SHARE_GROUPS = "share groups (KIP-932: ShareGroupHeartbeat, ShareFetch, ShareAcknowledge) are not offered"
# 0081_admin is in neither table: Kafkette enforces ACLs (StandardAuthorizer), and --mode security
# (both clusters with the authorizer and a SASL_SSL listener) passes all its sub-tests, ACLs and
# authorized operations included, on both.  The quick, idempotent and full modes' brokers configure
# no authorizer, so there its ACL sub-tests fail on both (SECURITY_DISABLED).
# Transactions are offered (KIP-98, KIP-890 part 1): 0103_transactions, 0129_fetch_aborted_msgs,
# 0137_barrier_batch_consume and 0061_consumer_lag's transactional sub-test pass on both.
# 0098_consumer_txn is SKIPPED on both: the cached test-runner is built without RapidJSON, and its
# scenarios need Kafka's Java TransactionProducerCli (librdkafka's tests/java, KAFKA_PATH).
_SHARE_CONSUMER_SUBTEST = "its share consumer sub-tests (rd_kafka_share_consumer_new); " + _SHARE_GROUPS
NOT_OFFERED: dict[str, str] = {
    "0135_sasl_credentials": (
        "security mode: its producer sub-tests (sasl_set_credentials after an authentication failure) pass; "
        + _SHARE_CONSUMER_SUBTEST
    ),
    "0142_reauthentication": (
        "security mode: its consumer and producer sub-tests (KIP-368 re-authentication every "
        "connections.max.reauth.ms without losing messages) and its transactional producer sub-tests "
        "(re-authentication in the middle of a committed and an aborted transaction) pass; "
        + _SHARE_CONSUMER_SUBTEST
    ),
    "017": _SHARE_GROUPS,
    "0180_share": _SHARE_GROUPS,
    "0181_share": _SHARE_GROUPS,
    "0184_share": _SHARE_GROUPS,
    "0185_share": _SHARE_GROUPS,
    "0186_share": _SHARE_GROUPS,
    "0190_share": _SHARE_GROUPS,
}

KNOWN_FAILURES: dict[str, str] = {
    "0041_fetch_max_bytes": (
        "1000 records of 500 KB to one partition with replication factor 3 on a loaded machine: the "
        "followers fall out of the ISR (replica.lag.time.max.ms), acks=all Produce requests time out and "
        "the non-idempotent producer's retries append some batches twice; passes when run alone"
    ),
    "0113_cooperative_rebalance": (
        "full mode's l_unsubscribe races two consumers into a new group (group.initial.rebalance.delay.ms=0) "
        "and passes only when the second one's JoinGroup reaches the coordinator before the first one's "
        "SyncGroup: on Apache Kafka the first consumer is alone in generation 1 too, but its two JoinGroup "
        "round trips take 40 and 60 ms, so the second consumer's JoinGroup arrives first, the leader's "
        "SyncGroup gets REBALANCE_IN_PROGRESS and both join generation 2; on Kafkette the first consumer's "
        "join and sync take 9 ms in all and it is assigned all partitions before the second one joins "
        "(the same coordinator logic, a faster broker)"
    ),
}


def not_offered(test: str) -> str | None:
    """The ``NOT_OFFERED`` reason of ``test`` (longest matching prefix), or None."""
    matches = [prefix for prefix in NOT_OFFERED if test.startswith(prefix)]
    return NOT_OFFERED[max(matches, key=len)] if matches else None


def reason(test: str) -> str | None:
    """Why ``test`` may fail on Kafkette while passing on Kafka (the longest matching prefix's
    reason), or None when it must pass."""
    for table in (NOT_OFFERED, KNOWN_FAILURES):
        matches = [prefix for prefix in table if test.startswith(prefix)]
        if matches:
            return table[max(matches, key=len)]
    return None
