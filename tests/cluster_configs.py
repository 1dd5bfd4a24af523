"""Broker settings shared by the real-cluster fixtures of every test package."""

# Faster failure detection than Kafka's defaults so fault tests finish quickly.
FAST_FAILOVER = {
    "broker.session.timeout.ms": 3000,
    "broker.heartbeat.interval.ms": 500,
    "replica.lag.time.max.ms": 3000,
    "replica.fetch.backoff.ms": 200,
    "replica.high.watermark.checkpoint.interval.ms": 1000,
    "controlled.shutdown.retry.backoff.ms": 100,
    "controller.quorum.election.timeout.ms": 500,
    "controller.quorum.fetch.timeout.ms": 1000,
}

# Stopping every broker at once leaves the last one retrying ControlledShutdown against
# the stopped controller (controlled.shutdown.retry.backoff.ms, 5 s by default).
# As ``cluster_factory`` keyword arguments.
QUICK_STOP = {"controlled_shutdown_retry_backoff_ms": 100}

# A PLAIN login of the user ``admin``: the server side (its JAAS config, which also logs the nodes
# in to each other as ``admin``) and the SDK's keywords (aiokafka's names) over SASL_PLAINTEXT.
ADMIN_JAAS = (
    "org.apache.kafka.common.security.plain.PlainLoginModule required "
    'username="admin" password="admin-secret" user_admin="admin-secret";'
)
ADMIN_LOGIN = {
    "security_protocol": "SASL_PLAINTEXT",
    "sasl_mechanism": "PLAIN",
    "sasl_plain_username": "admin",
    "sasl_plain_password": "admin-secret",
}
