"""The floor both servers stand on (Kafka's ``server-common`` and ``clients``' common parts).

Owns what the broker, the controller and the SDK all need and none of them owns: config
definitions (``config_def``, Kafka's ``ConfigDef``), topic configs and names
(``topic_config``, ``topic_names``), the scheduler (``kafka_scheduler``, Kafka's
``KafkaScheduler``), clocks (``clock``, Kafka's ``Time``), owned background tasks
(``background_tasks``, Kafka's ``ShutdownableThread``), durable files and
``meta.properties``, process tuning, and ``network/`` (the socket server, framing streams,
the memory pool and the client connection).

Does not own: wire formats (``kafkette.protocol``, below it), nor anything of the SDK,
the broker or the controller (above it): ``common`` imports only ``kafkette.protocol``.
"""
